"""The HEDS 3.0 datasheet as the form's own JSON: written from a design or a report, read back.

The keys are the form's field names (:data:`~humaneval.reproducibility.heds_fields.FIELDS`); each value is
``{"data": {...}, "control": {}, "text": {}}`` with ``data`` keyed by the criterion for the per-criterion
questions of section 4 and by ``""`` elsewhere, as the form's JSON holds them. Free-text and number
questions the package can answer are filled; every other text question is present and empty for the
author, and the multiple-choice questions are left to the form (docs/reproducibility.md, "HEDS").

References
----------
Belz, A. and Thomson, C. HEDS 3.0: the Human Evaluation Datasheet, version 3.0.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from humaneval.design.datasheet import plain_text
from humaneval.design.load import DesignLike, load_design
from humaneval.errors import HumanEvalError
from humaneval.present.document import Block, Column, Paragraph, Table
from humaneval.present.printable import Printable
from humaneval.reproducibility.heds_fields import FIELDS, JSON_KEYS
from humaneval.spans.scoring import get_scoring

if TYPE_CHECKING:
    from humaneval.design.plan import Design
    from humaneval.report.build import StudyReport
    from humaneval.spans.summary import SpanSummary

_PREFIX = "heds-"
_CRITERION = "heds-criteria-criterion-"
_TEXT_KINDS = ("TextInputHandler", "IntegerInputHandler")
#: The questions a person answers in words or numbers (not choices, not "other" boxes).
TEXT_FIELDS: tuple[str, ...] = tuple(f for f in FIELDS if JSON_KEYS.get(f, ("", ""))[0] in _TEXT_KINDS)
_FIELD_SET = frozenset(FIELDS)

_S3 = "heds-sample_evaluators_design-"
_S4 = "heds-criteria-criterion-response_elicitation-"
#: Short names of the fields the package fills (docs/reproducibility.md lists what goes in each).
F = {
    "experiment": "heds-paper_and_resources-paper-experiment_identification",
    "outputs": _S3 + "sample-number_of_system_outputs",
    "power_method": _S3 + "sample-statistical_power-method",
    "power_value": _S3 + "sample-statistical_power-value",
    "power_script": _S3 + "sample-statistical_power-script",
    "evaluators": _S3 + "evaluators-number_of_evaluators",
    "recruitment": _S3 + "evaluators-recruitment_method",
    "collection": _S3 + "experimental_design-collection_method",
    "qa": _S3 + "experimental_design-quality_assurance-description",
    "what_seen": _S3 + "experimental_design-what_evaluators_see-description",
    "criterion_name": _S4 + "qc_name-participant_criterion_name",
    "definition": _S4 + "participant_criterion_definiiton",
    "scale_size": _S4 + "size_of_scale",
    "scale_range": _S4 + "list_or_range",
    "task": _S4 + "task_description",
    "question": _S4 + "verbatim_question",
    "aggregation": _S4 + "response_aggregation",
    "effect_size": _S4 + "effect_size_method",
    "agreement": _S4 + "inter_annotator-agreement",
    "agreement_score": _S4 + "inter_annotator-agreement_score",
}


class HEDSError(HumanEvalError, ValueError):
    """A file that is not a HEDS 3.0 JSON the form can load."""


@dataclass(frozen=True)
class HEDS(Printable):
    """The answers: field name → {criterion or ``""`` → text}."""

    answers: dict[str, dict[str, str]]

    @property
    def criteria(self) -> list[str]:
        names = {c for field, data in self.answers.items() if field.startswith(_CRITERION) for c in data}
        return sorted(names - {""})

    def filled(self) -> list[str]:
        """The fields with an answer, in the form's order."""
        return [f for f in FIELDS if any(str(v).strip() for v in self.answers.get(f, {}).values())]

    def missing(self) -> list[str]:
        """The text questions still empty (per criterion for section 4)."""
        out = []
        for field in TEXT_FIELDS:
            data = self.answers.get(field, {})
            keys = self.criteria or [""] if field.startswith(_CRITERION) else [""]
            out += [field for key in keys if not str(data.get(key, "")).strip()][:1]
        return out

    def to_dict(self) -> dict[str, Any]:
        """The form's JSON: every text question present, the filled ones with their answers."""
        out: dict[str, Any] = {}
        for field in FIELDS:
            if field in self.answers or field in TEXT_FIELDS:
                data = self.answers.get(field) or (
                    {c: "" for c in self.criteria}
                    if field.startswith(_CRITERION) and self.criteria
                    else {"": ""}
                )
                out[field] = {"data": dict(data), "control": {}, "text": {}}
        return out

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return path

    def blocks(self) -> tuple[Block, ...]:
        filled, missing = self.filled(), self.missing()
        head = f"HEDS 3.0: {len(filled)} fields filled, {len(missing)} text questions empty"
        if self.criteria:
            head += "; criteria: " + ", ".join(self.criteria)
        columns = (Column("question"), Column("field"), Column("answer"))
        return (
            Paragraph((head,)),
            Table(
                columns,
                tuple((_question(f), f, _short(self.answers[f])) for f in filled),
                caption=("filled:",),
            ),
            Table(columns[:2], tuple((_question(f), f) for f in missing), caption=("missing:",)),
        )


def _question(field: str) -> str:
    return JSON_KEYS.get(field, ("", ""))[1] or "-"


def _short(data: Mapping[str, str]) -> str:
    text = "; ".join(f"{k}: {v}" if k else str(v) for k, v in data.items() if str(v).strip())
    return text if len(text) <= 80 else text[:77] + "..."


def read_heds(path: str | Path) -> HEDS:
    """Read a HEDS 3.0 JSON file (written by the form or by :func:`heds_from_report`).

    Raises
    ------
    HEDSError
        Not JSON, not an object of the form's entries, or a key that is not one of the form's.
    """
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8-sig"))  # a BOM from Windows editors
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HEDSError(
            f"{path}: not a readable JSON file ({exc}); give the file the HEDS form downloads"
        ) from None
    except RecursionError:
        raise HEDSError(f"{path}: JSON nested too deeply; give the file the HEDS form downloads") from None
    if not isinstance(raw, dict):
        raise HEDSError(f"{path}: a HEDS file is a JSON object keyed by the form's fields")
    answers: dict[str, dict[str, str]] = {}
    for key, value in raw.items():
        if key not in _FIELD_SET and key not in JSON_KEYS:
            raise HEDSError(f"{path}: {key!r} is not a field of the HEDS 3.0 form; is this a HEDS 3.0 file?")
        data = value.get("data") if isinstance(value, dict) else None
        if not isinstance(data, dict):
            raise HEDSError(f"{path}: {key}: each entry must be an object with a 'data' object")
        answers[key] = {str(k): "" if v is None else plain_text(v) for k, v in data.items()}
    return HEDS(answers)


def heds_from_design(
    design: Design,
    *,
    form: Mapping[str, Any] | None = None,
    recruitment: Mapping[str, Any] | None = None,
    power: Mapping[str, str] | None = None,
) -> HEDS:
    """The HEDS 3.0 answers known before collection: the design, its method, scale, criteria, checks.

    Parameters
    ----------
    design : Design
        The generated design.
    form, recruitment : mapping, optional
        As for :func:`humaneval.design.datasheet.make_datasheet`.
    power : mapping, optional
        ``method``, ``value`` and ``script`` of the power computation (e.g. from a preregistration).

    Returns
    -------
    HEDS
    """
    sheet = design.datasheet(form=form, recruitment=recruitment).sections
    return _answers(sheet, design.spec, power or {}, None)


def heds_from_report(
    report: StudyReport, *, design: DesignLike | None = None, power: Mapping[str, str] | None = None
) -> HEDS:
    """The HEDS 3.0 answers of a finished study: the design (when given; the report's datasheet
    otherwise), the annotators analysed, the QC rules, the analysis, agreement and power of each
    criterion.
    """
    sheet = (report.datasheet or {}).get("sections", {})
    spec: dict[str, Any] = {}
    if design is not None:
        loaded = load_design(design)
        if not isinstance(loaded, pd.DataFrame):
            spec = dict(loaded.spec)
            sheet = sheet or loaded.datasheet().sections
    return _answers(sheet, spec, power or _report_power(report), report)


def _answers(
    sheet: Mapping[str, Any], spec: Mapping[str, Any], power: Mapping[str, str], report: StudyReport | None
) -> HEDS:
    res = dict(sheet.get("resources", {}))
    sed = dict(sheet.get("sample_evaluators_design", {}))
    qc = dict(sheet.get("quality_criteria", {}))
    a: dict[str, dict[str, str]] = {}

    def put(name: str, value: Any, key: str = "") -> None:
        if value is not None and plain_text(value).strip() and plain_text(value) != "none":
            a.setdefault(F[name], {})[key] = plain_text(value)

    put("experiment", res.get("design_id") and f"humaneval design {res['design_id']}")
    put("outputs", res.get("items"))
    put("evaluators", sed.get("annotators_planned"))
    put("recruitment", sed.get("platform") and _recruitment(sed))
    put("collection", sed.get("platform") and _collection(sed, qc))
    put("what_seen", qc.get("method") and _what_seen(qc, sed))
    put("qa", qc.get("attention_checks") and _quality_assurance(qc, report))
    for name in ("method", "value", "script"):
        put(f"power_{name}", power.get(name))
    if report is not None:
        humans = report.ratings.humans()
        put("outputs", humans.data[["document", "system"]].drop_duplicates().shape[0])
        put("evaluators", len(humans.annotators))
        put("experiment", report.title if not res.get("design_id") else None)
        put("qa", _quality_assurance(qc, report))
    for criterion, info in _criteria(spec, qc, report).items():
        for name, value in info.items():
            put(name, value, criterion)
    return HEDS(a)


def _recruitment(sed: Mapping[str, Any]) -> str:
    text = f"crowdsourcing platform {sed['platform']}"
    if sed.get("recruitment_filters"):
        text += f"; filters: {plain_text(sed['recruitment_filters'])}"
    if sed.get("pay_per_task"):
        text += f"; pay {sed['pay_per_task']} per task ({sed.get('hourly_wage_planned')} planned)"
    return text


def _collection(sed: Mapping[str, Any], qc: Mapping[str, Any]) -> str:
    return (
        f"online forms on {sed['platform']} ({qc.get('method')}); {sed.get('design_family')} design of "
        f"{sed.get('blocks')} blocks, {sed.get('annotators_per_block')} annotators per block, "
        f"{sed.get('judgements_per_summary')} judgements per summary; {sed.get('presentation_order')}"
    )


def _what_seen(qc: Mapping[str, Any], sed: Mapping[str, Any]) -> str:
    source = "with the source document" if qc.get("source_shown") else "without the source document"
    return (
        f"{qc['method']} screens, one output at a time {source}; {sed.get('presentation_order', '')}".rstrip(
            "; "
        )
    )


def _quality_assurance(qc: Mapping[str, Any], report: StudyReport | None) -> str:
    checks = qc.get("attention_checks") or {}
    parts = []
    if checks:
        parts.append(
            f"{checks.get('per_annotator', 0)} attention checks per annotator "
            f"({plain_text(checks.get('kinds', []))}); {checks.get('pass_rule', '')}"
        )
    if report is not None:
        rules = report.qc.rules
        flagged = len(report.qc.flagged())
        parts.append(
            f"QC flags: too fast below {rules.fast_fraction:.3g} of the median time, a run of one answer "
            f"over {rules.long_run_fraction:.3g} of the items, ≥ {rules.min_failed_checks_for_rejection} "
            f"failed instructed checks; {flagged} annotators flagged"
        )
    return "; ".join(p for p in parts if p)


def _criteria(
    spec: Mapping[str, Any], qc: Mapping[str, Any], report: StudyReport | None
) -> dict[str, dict[str, Any]]:
    """Section 4 per criterion: what the design says and, after collection, what the analysis did."""
    out: dict[str, dict[str, Any]] = {}
    for c in spec.get("criteria") or []:
        out[c["name"]] = {
            "criterion_name": c["name"],
            "question": c.get("question"),
            "definition": c.get("definition"),
            "scale_size": c.get("points"),
            "scale_range": _range(c.get("points"), c.get("labels")),
        }
    if not out and spec.get("dimension"):
        points = spec.get("scale_points") or qc.get("scale_points")
        out[spec["dimension"]] = {
            "criterion_name": spec["dimension"],
            "question": qc.get("question"),
            "task": qc.get("instructions"),
            "scale_size": points,
            "scale_range": _range(points, qc.get("scale_labels")),
        }
    if report is None:
        return out
    for part in report.criteria:
        name = part.criterion or (next(iter(out)) if len(out) == 1 else report.ratings.response)
        info = out.setdefault(name, {"criterion_name": name})
        ratings = report.ratings.humans()
        if part.criterion is not None:
            ratings = next(r for c, r in ratings.by_criterion() if c == part.criterion)
        low, high = ratings.scale
        info.setdefault("scale_range", f"{low:g}-{high:g}")
        if not info.get("scale_size") and float(low).is_integer() and float(high).is_integer():
            info["scale_size"] = int(high - low) + 1
        analysis = part.analysis
        info["aggregation"] = f"system means over all judgements; systems compared with {analysis.test}" + (
            f" (p adjusted: {analysis.adjust})" if analysis.adjust else ""
        )
        info["effect_size"] = (
            f"difference between two systems' estimates ({analysis.test}) with its confidence interval"
        )
        if part.reliability is not None:
            rel = part.reliability
            info["agreement"] = f"Krippendorff's alpha ({rel.level_of_measurement})" + (
                ", Fleiss' kappa" if rel.fleiss_kappa is not None else ""
            )
            score = f"alpha = {rel.alpha:.3f}"
            if rel.alpha_ci is not None:
                score += f" [{rel.alpha_ci[0]:.3f}, {rel.alpha_ci[1]:.3f}]"
            if rel.fleiss_kappa is not None:
                score += f"; kappa = {rel.fleiss_kappa:.3f}"
            info["agreement_score"] = score
        if report.spans is not None:
            info.update(_span_fields(report.spans))
    return out


def _span_fields(spans: SpanSummary) -> dict[str, str | None]:
    """A span study's scale, aggregation and agreement: where the errors are (unitizing alpha, span F1)
    and how bad the texts are (alpha of the item scores); docs/spans.md."""
    rel, rule = spans.reliability, get_scoring(spans.analysis.scoring)
    return {
        "scale_size": None,
        "scale_range": "error spans marked in the text, each with a severity (minor, major) and a category; "
        f"item scores by {rule.title}",
        "aggregation": f"item scores by {rule.title}, their ordered classes analysed with "
        f"{spans.analysis.test} (p adjusted: {spans.analysis.adjust}); mean score per system",
        "agreement": "Krippendorff's unitizing alpha over all categories and by category (Krippendorff "
        "2004); character-level span F1 of annotator pairs; interval Krippendorff's alpha of the "
        f"{rule.name} item scores",
        "agreement_score": f"alpha_u = {rel.alpha_u:.3f}; span F1 = {rel.span_f1:.3f}; "
        f"score alpha = {rel.score_alpha:.3f}",
    }


def _range(points: Any, labels: Any) -> str | None:
    if not points:
        return None
    text = f"1-{points}"
    if isinstance(labels, Mapping) and labels:
        text += " (" + ", ".join(f"{k} = {v}" for k, v in labels.items()) + ")"
    return text


def _report_power(report: StudyReport) -> dict[str, str]:
    notes = [(p.criterion, p.power) for p in report.criteria if p.power is not None]
    if not notes:
        return {}
    values = []
    for criterion, note in notes:
        if note.smallest_pair is not None and not note.pairs.empty:
            row = note.pairs.loc[note.pairs["pair"] == note.smallest_pair].iloc[0]
            values.append(
                (f"{criterion}: " if criterion else "")
                + f"{row['artagg']:.2f} for the closest pair {note.smallest_pair} (ARTagg, alpha 0.05)"
            )
    return {
        "method": "simulation from the fitted model on the observed design (humaneval report, power note)",
        "value": "; ".join(values),
        "script": f"humaneval report RATINGS --seed {report.settings.seed} "
        f"--power-trials {report.settings.power_trials}",
    }
