"""A frozen preregistration (``prereg.json``) written before collection, and the report's deviations from it.

docs/reproducibility.md, "Preregistration". The file holds the hypotheses as contrasts (every pair of
systems per criterion, two-sided), the analysis and its options, the exclusion and QC rules, α, the power
computation and its command, and the design's hash; ``sha256`` seals all of it, so an edit after freezing
is itself reported as a deviation.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from humaneval.errors import HumanEvalError
from humaneval.qc import FLAGS, QCRules, qc_report

if TYPE_CHECKING:
    from humaneval.design.plan import Design
    from humaneval.report.build import ReportSettings, StudyReport

PREREG_VERSION = 1
#: The report settings a preregistration fixes (the analysis options of ``humaneval report``).
ANALYSIS_OPTIONS = ("engine", "structure", "seed", "n_resamples", "n_splits", "mean_resamples")
DEFAULT_POLICY = ("prolific_rejection_eligible",)


class PreregError(HumanEvalError, ValueError):
    """A preregistration file that cannot be read."""


def design_hash(design: Design) -> str:
    """SHA-256 of the design's manifest (its spec, slots and texts' ids) in canonical JSON."""
    return _sha256(design.to_dict())


def _sha256(content: Any) -> str:
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def make_prereg(
    design: Design,
    *,
    settings: ReportSettings | None = None,
    alpha: float = 0.05,
    exclusion_policy: Sequence[str] = DEFAULT_POLICY,
    qc_rules: QCRules | None = None,
    power: Mapping[str, Any] | None = None,
    design_file: str | None = None,
) -> dict[str, Any]:
    """The preregistration of ``design``, sealed with its ``sha256``.

    Parameters
    ----------
    design : Design
        The generated design (its systems and criteria give the hypotheses; its manifest the hash).
    settings : ReportSettings, optional
        The analysis options the report will use (default: the report's defaults).
    alpha : float, default 0.05
        Significance level of every contrast.
    exclusion_policy : sequence of str
        The QC flags whose annotators are excluded (``humaneval qc --exclude``).
    qc_rules : QCRules, optional
        The thresholds of the QC flags (default: the package's).
    power : mapping, optional
        The power computation: ``command`` and its result (``power``, ``design``...).
    design_file : str, optional
        Where the design was written (for the commands the file records).

    Returns
    -------
    dict
        The content of ``prereg.json``.
    """
    from humaneval.report.build import ReportSettings

    if not 0 < alpha < 1:
        raise PreregError(f"alpha must lie in (0, 1), got {alpha}")
    check_policy(exclusion_policy)
    settings = settings or ReportSettings()
    rules = qc_rules or QCRules()
    criteria = [c.name for c in design.criteria] or [design.spec.get("dimension") or ""]
    systems = sorted(s for s in design.summary().systems)
    target = design_file or "DESIGN"
    content = {
        "prereg_version": PREREG_VERSION,
        "frozen_at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "design": {"design_id": design.design_id, "sha256": design_hash(design), "file": design_file},
        "hypotheses": [
            {"criterion": c, "system_a": a, "system_b": b, "contrast": f"{a} - {b}", "sided": "two-sided"}
            for c in criteria
            for a, b in combinations(systems, 2)
        ],
        "analysis": {
            "command": f"humaneval report RATINGS --design {target} "
            + " ".join(
                f"--{k.replace('_', '-')} {getattr(settings, k)}" for k in ("engine", "structure", "seed")
            ),
            "method": design.method,
            "options": {k: getattr(settings, k) for k in ANALYSIS_OPTIONS},
        },
        "alpha": alpha,
        "exclusions": {"policy": list(dict.fromkeys(exclusion_policy)), "qc_rules": dict(rules.__dict__)},
        "power": dict(power) if power else {"command": f"humaneval power --design {target}", "result": None},
    }
    return {**content, "sha256": _sha256(content)}


def write_prereg(prereg: Mapping[str, Any], path: str | Path) -> Path:
    path = Path(path)
    path.write_text(json.dumps(prereg, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_prereg(path: str | Path) -> dict[str, Any]:
    """Read ``prereg.json``; raises :class:`PreregError` when it is not one."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM from Windows editors
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PreregError(f"{path}: not a readable preregistration ({exc})") from None
    needed = ("prereg_version", "design", "hypotheses", "analysis", "alpha", "exclusions", "sha256")
    missing = [k for k in needed if not isinstance(raw, dict) or k not in raw]
    if missing:
        raise PreregError(
            f"{path}: not a prereg.json written by 'humaneval design --prereg' (no {missing[0]})"
        )
    wrong = _misshapen(raw)
    if wrong:
        raise PreregError(f"{path}: {wrong}; write the file again with 'humaneval design --prereg'")
    return raw


def _misshapen(raw: Mapping[str, Any]) -> str | None:
    """What of a preregistration's content :func:`deviations` cannot read, or None."""
    for key in ("design", "analysis", "exclusions"):
        if not isinstance(raw[key], dict):
            return f"{key} must be a JSON object, not {type(raw[key]).__name__}"
    if not isinstance(raw["analysis"].get("options", {}), dict):
        return "analysis.options must be a JSON object"
    hypotheses = raw["hypotheses"]
    if not isinstance(hypotheses, list) or not all(
        isinstance(h, dict)
        and all(isinstance(h.get(k), str) for k in ("system_a", "system_b"))
        and isinstance(h.get("criterion"), str | None)
        for h in hypotheses
    ):
        return "hypotheses must be a list of objects with criterion, system_a and system_b"
    policy = raw["exclusions"].get("policy", [])
    if not isinstance(policy, list) or not all(isinstance(f, str) for f in policy):
        return "exclusions.policy must be a list of QC flags"
    rules = raw["exclusions"].get("qc_rules", {})
    known = QCRules.__dataclass_fields__
    if not isinstance(rules, dict) or not set(rules) <= set(known):
        return f"exclusions.qc_rules must be an object with keys among {', '.join(known)}"
    for name, value in rules.items():
        if not (value is None or (isinstance(value, int | float) and not isinstance(value, bool))):
            return f"exclusions.qc_rules.{name} must be a number, not {value!r}"
    return None


def check_policy(policy: Sequence[str]) -> list[str]:
    """``policy`` if each of its names is a QC flag; else :class:`PreregError`."""
    unknown = [f for f in policy if f not in FLAGS]
    if unknown:
        raise PreregError(
            f"exclusion policy (--exclude-policy): {unknown[0]} is not a QC flag; use one of "
            + ", ".join(FLAGS)
        )
    return list(policy)


def deviations(
    prereg: Mapping[str, Any],
    report: StudyReport,
    *,
    design: Design | None = None,
    exclusion_policy: Sequence[str] | None = None,
) -> list[str]:
    """Every way the report departs from the preregistration, one sentence each.

    Parameters
    ----------
    prereg : mapping
        The content of ``prereg.json``.
    report : StudyReport
        The report of the collected data.
    design : Design, optional
        The design the data were collected with (its hash is compared with the preregistered one).
    exclusion_policy : sequence of str, optional
        The QC flags the analysed ratings were cleaned with; ``None`` when not stated (then only the
        annotators the preregistered rule excludes are looked for in the data).

    Returns
    -------
    list of str
        Empty when the study followed its preregistration.
    """
    check_policy(exclusion_policy or ())
    out: list[str] = []
    content = {k: v for k, v in prereg.items() if k != "sha256"}
    if _sha256(content) != prereg.get("sha256"):
        out.append("prereg.json was edited after it was frozen (its sha256 no longer matches its content)")
    if design is not None and design_hash(design) != prereg["design"].get("sha256"):
        out.append(
            f"the design differs from the preregistered one (design {design.design_id}, preregistered "
            f"{prereg['design'].get('design_id')})"
        )
    options = prereg["analysis"].get("options", {})
    for key, planned in options.items():
        done = getattr(report.settings, key, planned)
        if done != planned:
            out.append(f"analysis option {key} is {done}, preregistered {planned}")
    out += _hypothesis_deviations(prereg, report)
    out += _exclusion_deviations(prereg, report, exclusion_policy)
    return out


def _hypothesis_deviations(prereg: Mapping[str, Any], report: StudyReport) -> list[str]:
    planned = {(h["criterion"] or "", h["system_a"], h["system_b"]) for h in prereg["hypotheses"]}
    planned_criteria = {c for c, _, _ in planned}
    out = []
    for part in report.criteria:
        name = part.criterion or (next(iter(planned_criteria)) if len(planned_criteria) == 1 else "")
        if name not in planned_criteria:
            out.append(f"test added after the data came in: criterion {name or part.analysis.response}")
            continue
        for row in part.analysis.contrasts.itertuples():
            a, b = sorted((str(row.system_a), str(row.system_b)))
            if (name, a, b) not in planned:
                out.append(f"test added after the data came in: {a} vs {b}" + (f" ({name})" if name else ""))
    return out


def _exclusion_deviations(
    prereg: Mapping[str, Any], report: StudyReport, policy: Sequence[str] | None
) -> list[str]:
    planned = list(prereg["exclusions"].get("policy", []))
    out = []
    if policy is not None and sorted(set(policy)) != sorted(set(planned)):
        out.append(
            "exclusion rule changed: annotators excluded by "
            f"{', '.join(sorted(set(policy))) or 'no flag'}, preregistered {', '.join(planned) or 'no flag'}"
        )
    rules = QCRules(**prereg["exclusions"].get("qc_rules", {}))
    present = [f for f in planned if f in FLAGS]
    qc = qc_report(report.ratings, rules) if present and rules != report.qc.rules else report.qc
    flags = [f for f in present if f in qc.table]
    if flags:
        kept = qc.table.loc[qc.table[flags].fillna(False).astype(bool).any(axis=1), "annotator"]
        if len(kept):
            names = ", ".join(map(str, kept[:5])) + (" ..." if len(kept) > 5 else "")
            out.append(
                f"{len(kept)} annotators the preregistered exclusion rule ({', '.join(flags)}) drops are in "
                f"the analysed ratings: {names}"
            )
    return out


def with_deviations(report: StudyReport, found: Sequence[str]) -> StudyReport:
    """The report with each deviation as a note of "Read this first"."""
    notes = tuple(f"Deviation from the preregistration: {text}." for text in found)
    return replace(report, notes=report.notes + notes)
