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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from humaneval.design.summary import span as _span
from humaneval.methods import get_method

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

    ``form``: preset settings (``preset``, ``overview``, ``definition``, ``question``, ``points``,
    ``labels``, ``show_source``, ``allow_ties``). ``recruitment``: ``filters`` (list),
    ``native_speakers``, ``median_minutes_actual``, ``hourly_wage_realised`` (default: the reward per
    annotator divided by the median actual hours, when both are known). ``qc``:
    ``annotators_analysed``, ``excluded``, ``replaced``, ``exclusion_reasons``. Omitted facts
    become ``null`` with a TODO note.
    """
    form, recruitment, qc = dict(form or {}), dict(recruitment or {}), dict(qc or {})
    summary = design.summary()
    spec = design.spec
    method = get_method(design.method)
    cost = summary.cost
    todo: dict[str, dict[str, str]] = {key: {} for key, _ in SECTIONS}

    def need(section: str, name: str, value: Any, note: str) -> Any:
        if value is None:
            todo[section][name] = note
        return value

    checks = spec["checks_per_annotator"]
    minutes_actual = recruitment.get("median_minutes_actual")
    realised = recruitment.get("hourly_wage_realised")
    if realised is None and cost is not None and minutes_actual:
        realised = _money(cost.reward_per_annotator / (float(minutes_actual) / 60), cost.currency, "per hour")
    sections: dict[str, dict[str, Any]] = {
        "resources": {
            "documents": summary.documents_used,
            "documents_dropped": len(summary.documents_dropped),
            "document_sampling": need(
                "resources",
                "document_sampling",
                sampling,
                "say how the documents were sampled from which corpus",
            ),
            "document_shuffle_seed": spec["seed"],
            "items": summary.items,
            "dates": need("resources", "dates", dates, "give the collection dates"),
            "design_id": design.design_id,
            "package_version": design.package_version,
            "analysis_plan": need(
                "resources", "analysis_plan", analysis_plan, "point to the pre-registered analysis plan"
            ),
        },
        "systems": {
            "systems": summary.systems,
            "reference_system": summary.reference_system,
            "number_of_systems": len(summary.systems),
        },
        "sample_evaluators_design": {
            "design_family": spec["family"],
            "blocks": summary.blocks,
            "documents_per_block": _span(summary.block_sizes),
            "annotators_per_block": summary.annotators_per_block,
            "annotators_planned": summary.annotators,
            "annotators_analysed": need(
                "sample_evaluators_design",
                "annotators_analysed",
                qc.get("annotators_analysed"),
                "fill in after QC",
            ),
            "judgements_per_summary": _span(summary.judgements_per_summary),
            "total_judgements": summary.analysed_judgements,
            "independent_units": summary.independent_units,
            "assignment_rule": "no annotator in more than one block; a document's summaries share a block",
            "presentation_order": _ORDER_TEXT[spec["order"]],
            "position_balancing": method.position_balancing,
            "platform": spec["platform"],
            "recruitment_filters": need(
                "sample_evaluators_design",
                "recruitment_filters",
                recruitment.get("filters"),
                "list qualifications, e.g. ≥ 10,000 approved HITs, ≥ 97 % approval, locales",
            ),
            "native_speaker_screening": need(
                "sample_evaluators_design",
                "native_speaker_screening",
                recruitment.get("native_speakers"),
                "say whether and how language proficiency was screened",
            ),
            "pay_per_task": None if cost is None else _money(cost.reward_per_annotator, cost.currency),
            "estimated_minutes": None if cost is None else round(cost.minutes_per_annotator, 1),
            "median_minutes_actual": need(
                "sample_evaluators_design",
                "median_minutes_actual",
                minutes_actual,
                "fill in from the collected timings",
            ),
            "hourly_wage_planned": None
            if cost is None
            else _money(cost.effective_hourly_wage, cost.currency, "per hour"),
            "hourly_wage_realised": need(
                "sample_evaluators_design",
                "hourly_wage_realised",
                realised,
                "reward divided by the median actual time",
            ),
        },
        "quality_criteria": {
            "dimension": spec["dimension"],
            "method": design.method,
            "preset": form.get("preset"),
            "instructions": need(
                "quality_criteria",
                "instructions",
                _join(form.get("overview"), form.get("definition")),
                "paste the verbatim instructions",
            ),
            "question": need(
                "quality_criteria", "question", form.get("question"), "paste the verbatim question"
            ),
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
            "annotators_excluded": need(
                "quality_criteria", "annotators_excluded", qc.get("excluded"), "fill in after QC"
            ),
            "annotators_replaced": need(
                "quality_criteria", "annotators_replaced", qc.get("replaced"), "fill in after QC"
            ),
            "exclusion_reasons": need(
                "quality_criteria", "exclusion_reasons", qc.get("exclusion_reasons"), "fill in after QC"
            ),
        },
        "ethics": {
            "ethics_approval": need(
                "ethics", "ethics_approval", None, "name the approving body and reference"
            ),
            "consent_text": need(
                "ethics", "consent_text", form.get("consent"), "paste the consent text shown"
            ),
            "data_protection": need("ethics", "data_protection", None, "say how personal data are stored"),
        },
    }
    for key, _ in SECTIONS:
        sections[key]["todo"] = todo[key]
    return Datasheet(sections)


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
