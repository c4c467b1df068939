"""The study: design structure, annotator time and planned cost."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.methods import get_method
from humaneval.methods.kinds import count_judgements, detect_kind
from humaneval.present.document import Column, Section, Table
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas


def facts(report: StudyReport) -> list[tuple[str, str]]:
    """Name and value of every fact about the study, as the page lists them."""
    s = report.structure
    study = report.study()
    method = get_method(detect_kind(report.ratings))
    response = method.scale_description or f"{s.response} ({s.scale[0]:g}–{s.scale[1]:g})"
    judgements = count_judgements(report.ratings) // max(s.n_criteria, 1)
    out = [
        ("ratings file", report.source),
        ("response", response),
        ("design family", s.family.replace("_", " ")),
        ("systems", s.n_systems),
        ("documents", s.n_documents),
        ("annotators", s.n_annotators),
        ("independent blocks", s.n_blocks),
        ("documents per block", s.block_documents),
        ("annotators per block", s.block_annotators),
        ("documents per annotator", s.documents_per_annotator),
        ("judgements per summary", s.judgements_per_summary),
        ("criteria", s.n_criteria),
        ("judgements analysed" + (" per criterion" if s.n_criteria > 1 else ""), judgements),
        ("attention-check rows", s.n_checks),
    ]
    if study["total_hours"] is not None:
        out.append(
            (
                "annotator time",
                f"{study['total_hours']:.1f} h in total, median "
                f"{study['median_minutes_per_annotator']:.1f} min per annotator",
            )
        )
    if study["cost"] is not None and study["cost"]["total"] is not None:
        out.append(("planned cost", f"{study['cost']['total']:.2f} {study['cost']['currency']}"))
    return [(name, str(value)) for name, value in out]


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    table = Table((Column("fact"), Column("value")), tuple(facts(report)), facts=True)
    yield Section("Study", (table,), id="study")
