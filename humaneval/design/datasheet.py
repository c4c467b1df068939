"""HEDS-style study datasheet, Markdown and JSON (docs/design.md, "Datasheet").

Most published studies do not report their full design (26 of 95 surveyed; 6 of 49 crowdsourced),
so the datasheet is filled from the design itself, the form settings, the recruitment settings
and (after collection) the QC outcome, in the sections of HEDS 3.0 (Belz & Thomson): resources;
systems; sample, evaluators and design; quality criteria and their operationalisation; ethics.
Whatever the package cannot know is emitted as ``null`` with a TODO note, never left out; what it
can derive is filled in (the realised hourly wage from the reward and the median actual minutes).
In Markdown and HTML, yes/no facts read as words and money carries its currency.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from humaneval.design.summary import CostEstimate, DesignSummary
from humaneval.design.summary import span as _span
from humaneval.methods import get_method
from humaneval.methods.base import Method

if TYPE_CHECKING:
    from humaneval.design.plan import Design

SECTIONS = (
    ("resources", "Resources"),
    ("systems", "Systems"),
    ("sample_evaluators_design", "Sample, evaluators and design"),
    ("quality_criteria", "Quality criteria and their operationalisation"),
    ("ethics", "Ethics"),
)
_ORDER_TEXT = {
    "random": "each annotator slot sees its screens in its own uniformly random order",
    "balanced": "each annotator slot sees its items in shuffled segments that mix systems",
}


@dataclass(frozen=True)
class Datasheet:
    """The sections of the datasheet; each maps field → value, ``todo`` maps field → note."""

    sections: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"format": "HEDS 3.0 sections (Belz & Thomson)", "sections": self.sections}

    def to_markdown(self) -> str:
        lines = ["# Human evaluation datasheet", ""]
        for key, title in SECTIONS:
            section = self.sections[key]
            lines += [f"## {title}", ""]
            todo = section.get("todo", {})
            for name, value in section.items():
                if name == "todo":
                    continue
                label = name.replace("_", " ")
                if value is None:
                    lines.append(f"- **{label}**: TODO — {todo.get(name, 'not known to the package')}")
                else:
                    lines.append(f"- **{label}**: {plain_text(value)}")
            lines.append("")
        return "\n".join(lines)

    def write(self, stem: str | Path) -> dict[str, Path]:
        """Write ``<stem>.datasheet.md`` and ``<stem>.datasheet.json``."""
        stem = Path(stem)
        md = stem.with_name(stem.name + ".datasheet.md")
        js = stem.with_name(stem.name + ".datasheet.json")
        md.write_text(self.to_markdown(), encoding="utf-8")
        js.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return {"datasheet_md": md, "datasheet_json": js}


def make_datasheet(
    design: Design,
    *,
    form: Mapping[str, Any] | None = None,
    recruitment: Mapping[str, Any] | None = None,
    qc: Mapping[str, Any] | None = None,
    sampling: str | None = None,
    dates: str | None = None,
    analysis_plan: str | None = None,
) -> Datasheet:
    """Fill the datasheet of ``design``.

    Parameters
    ----------
    design : Design
        The generated design; its summary, spec and cost fill most fields.
    form : mapping, optional
        Preset settings: ``preset``, ``overview``, ``definition``, ``question``, ``points``,
        ``labels``, ``show_source``, ``allow_ties``, ``consent``.
    recruitment : mapping, optional
        ``filters`` (list), ``native_speakers``, ``median_minutes_actual``,
        ``hourly_wage_realised`` (default: the reward per annotator divided by the median actual
        hours, when both are known).
    qc : mapping, optional
        ``annotators_analysed``, ``excluded``, ``replaced``, ``exclusion_reasons``.
    sampling, dates, analysis_plan : str, optional
        How the documents were sampled, the collection dates, where the analysis plan is.

    Returns
    -------
    Datasheet
        The HEDS 3.0 sections; every omitted fact is ``null`` with a TODO note.

    References
    ----------
    Belz, A. and Thomson, C. HEDS 3.0: the Human Evaluation Datasheet, version 3.0.
    """
    form, recruitment, qc = dict(form or {}), dict(recruitment or {}), dict(qc or {})
    summary = design.summary()
    method = get_method(design.method)
    todo = _Todos()
    sections: dict[str, dict[str, Any]] = {
        "resources": _resources(design, summary, todo.section("resources"), sampling, dates, analysis_plan),
        "systems": _systems(summary),
        "sample_evaluators_design": _sample_evaluators_design(
            design, summary, method, todo.section("sample_evaluators_design"), recruitment, qc
        ),
        "quality_criteria": _quality_criteria(design, method, todo.section("quality_criteria"), form, qc),
        "ethics": _ethics(todo.section("ethics"), form),
    }
    for key, _ in SECTIONS:
        sections[key]["todo"] = todo.notes[key]
    return Datasheet(sections)


Need = Callable[[str, Any, str], Any]
"""``need(name, value, note)``: ``value``, noting ``note`` as the field's TODO when it is ``None``."""


class _Todos:
    """The TODO notes of the facts the package cannot know, by section."""

    def __init__(self) -> None:
        self.notes: dict[str, dict[str, str]] = {key: {} for key, _ in SECTIONS}

    def section(self, section: str) -> Need:
        def need(name: str, value: Any, note: str) -> Any:
            if value is None:
                self.notes[section][name] = note
            return value

        return need


def _resources(
    design: Design,
    summary: DesignSummary,
    need: Need,
    sampling: str | None,
    dates: str | None,
    analysis_plan: str | None,
) -> dict[str, Any]:
    return {
        "documents": summary.documents_used,
        "documents_dropped": len(summary.documents_dropped),
        "document_sampling": need(
            "document_sampling", sampling, "say how the documents were sampled from which corpus"
        ),
        "document_shuffle_seed": design.spec["seed"],
        "items": summary.items,
        "dates": need("dates", dates, "give the collection dates"),
        "design_id": design.design_id,
        "package_version": design.package_version,
        "analysis_plan": need("analysis_plan", analysis_plan, "point to the pre-registered analysis plan"),
    }


def _systems(summary: DesignSummary) -> dict[str, Any]:
    return {
        "systems": summary.systems,
        "reference_system": summary.reference_system,
        "number_of_systems": len(summary.systems),
    }


def _sample_evaluators_design(
    design: Design,
    summary: DesignSummary,
    method: Method,
    need: Need,
    recruitment: dict[str, Any],
    qc: dict[str, Any],
) -> dict[str, Any]:
    spec, cost = design.spec, summary.cost
    minutes_actual = recruitment.get("median_minutes_actual")
    return {
        "design_family": spec["family"],
        "blocks": summary.blocks,
        "documents_per_block": _span(summary.block_sizes),
        "annotators_per_block": summary.annotators_per_block,
        "annotators_planned": summary.annotators,
        "annotators_analysed": need("annotators_analysed", qc.get("annotators_analysed"), "fill in after QC"),
        "judgements_per_summary": _span(summary.judgements_per_summary),
        "total_judgements": summary.analysed_judgements,
        "independent_units": summary.independent_units,
        "assignment_rule": "no annotator in more than one block; a document's summaries share a block",
        "presentation_order": _ORDER_TEXT[spec["order"]],
        "position_balancing": method.position_balancing,
        "platform": spec["platform"],
        "recruitment_filters": need(
            "recruitment_filters",
            recruitment.get("filters"),
            "list qualifications, e.g. ≥ 10,000 approved HITs, ≥ 97 % approval, locales",
        ),
        "native_speaker_screening": need(
            "native_speaker_screening",
            recruitment.get("native_speakers"),
            "say whether and how language proficiency was screened",
        ),
        "pay_per_task": None if cost is None else _money(cost.reward_per_annotator, cost.currency),
        "estimated_minutes": None if cost is None else round(cost.minutes_per_annotator, 1),
        "median_minutes_actual": need(
            "median_minutes_actual", minutes_actual, "fill in from the collected timings"
        ),
        "hourly_wage_planned": None
        if cost is None
        else _money(cost.effective_hourly_wage, cost.currency, "per hour"),
        "hourly_wage_realised": need(
            "hourly_wage_realised",
            _realised_wage(cost, recruitment),
            "reward divided by the median actual time",
        ),
    }


def _realised_wage(cost: CostEstimate | None, recruitment: dict[str, Any]) -> str | None:
    """The given realised hourly wage, else the reward per annotator over the median actual hours."""
    realised = recruitment.get("hourly_wage_realised")
    minutes_actual = recruitment.get("median_minutes_actual")
    if realised is None and cost is not None and minutes_actual:
        realised = _money(cost.reward_per_annotator / (float(minutes_actual) / 60), cost.currency, "per hour")
    return realised


def _quality_criteria(
    design: Design, method: Method, need: Need, form: dict[str, Any], qc: dict[str, Any]
) -> dict[str, Any]:
    spec = design.spec
    checks = spec["checks_per_annotator"]
    return {
        "dimension": spec["dimension"],
        "method": design.method,
        "preset": form.get("preset"),
        "instructions": need(
            "instructions",
            _join(form.get("overview"), form.get("definition")),
            "paste the verbatim instructions",
        ),
        "question": need("question", form.get("question"), "paste the verbatim question"),
        "scale_points": spec["scale_points"] if method.criteria else form.get("points"),
        "scale_labels": form.get("labels"),
        **({"criteria": _criteria_text(spec["criteria"])} if spec.get("criteria") else {}),
        "source_shown": form.get("show_source", spec["show_source"]),
        "ties_allowed": form.get("allow_ties", False) if method.ties_option else "not applicable",
        "attention_checks": {
            "kinds": spec["check_kinds"] if checks else [],
            "per_annotator": checks,
            "pass_rule": "passed when answered as instructed; Prolific: reject only after ≥ 2 failures",
        },
        "annotators_excluded": need("annotators_excluded", qc.get("excluded"), "fill in after QC"),
        "annotators_replaced": need("annotators_replaced", qc.get("replaced"), "fill in after QC"),
        "exclusion_reasons": need("exclusion_reasons", qc.get("exclusion_reasons"), "fill in after QC"),
    }


def _ethics(need: Need, form: dict[str, Any]) -> dict[str, Any]:
    return {
        "ethics_approval": need("ethics_approval", None, "name the approving body and reference"),
        "consent_text": need("consent_text", form.get("consent"), "paste the consent text shown"),
        "data_protection": need("data_protection", None, "say how personal data are stored"),
    }


def _join(*parts: str | None) -> str | None:
    text = "\n\n".join(p for p in parts if p)
    return text or None


def _money(amount: float, currency: str, unit: str = "") -> str:
    return f"{amount:.2f} {currency}" + (f" {unit}" if unit else "")


def plain_text(value: Any) -> str:
    """A datasheet value in words: yes/no for booleans, lists joined (``none`` when empty),
    mappings as ``key: value`` pairs."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(plain_text(v) for v in value) if value else "none"
    if isinstance(value, dict):
        return "; ".join(f"{str(k).replace('_', ' ')}: {plain_text(v)}" for k, v in value.items())
    return str(value)


def _criteria_text(criteria: list[dict[str, Any]]) -> str:
    """Every question of a several-questions-per-screen design with its scale, verbatim."""
    parts = []
    for c in criteria:
        labels = ", ".join(f"{k} = {v}" for k, v in c.get("labels", {}).items())
        parts.append(f'{c["name"]}: "{c["question"]}" (1–{c["points"]}{"; " + labels if labels else ""})')
    return "; ".join(parts)
