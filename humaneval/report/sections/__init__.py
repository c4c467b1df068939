"""The report's sections, in the order the report shows them (docs/report.md, "Adding a section").

A study section is one module with ``section(report, canvas)`` yielding :class:`~humaneval.report.
document.Section` objects (none when it does not apply), listed in :data:`SECTIONS`; a part of every
criterion's results section is one module with ``part(view)`` yielding blocks, listed in
:data:`CRITERION_PARTS`. :func:`report_document` runs them all once and returns the
:class:`~humaneval.present.document.ReportDocument` every format is rendered from.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from pathlib import Path

from humaneval import __version__
from humaneval.present.document import ReportDocument
from humaneval.report.build import StudyReport
from humaneval.report.sections import (
    contrasts,
    criteria,
    datasheet,
    files,
    judges,
    paper,
    power,
    ppi,
    quality_control,
    reliability,
    replicability,
    results,
    scale_use,
    spans,
    study,
    systems,
)
from humaneval.report.sections.base import Canvas, CriterionPart, CriterionView, SectionBuilder

#: The parts of each criterion's results section, in order.
CRITERION_PARTS: list[CriterionPart] = [
    systems.part,
    contrasts.part,
    reliability.part,
    scale_use.part,
    power.part,
    replicability.part,
]

#: The sections of the report, in order (``results`` is one section per criterion).
SECTIONS: list[SectionBuilder] = [
    study.section,
    spans.section,
    criteria.section,
    partial(results.sections, parts=CRITERION_PARTS),
    quality_control.section,
    judges.section,
    ppi.section,
    datasheet.section,
    files.section,
]


def report_document(report: StudyReport, out: str | Path) -> tuple[ReportDocument, dict[str, Path]]:
    """Build the document of ``report``, drawing its figures into ``out``; returns it and the figure files."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    canvas = Canvas(out)
    built = tuple(s for build in SECTIONS for s in build(report, canvas))
    document = ReportDocument(
        title=report.title,
        source=report.source,
        generated=dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__,
        cautions=tuple(report.warnings),
        sections=built,
        paper_tables=paper.tables(report, canvas),
        settings=tuple((k, str(v)) for k, v in report.settings.to_dict().items()),
    )
    return document, canvas.files


__all__ = ["CRITERION_PARTS", "SECTIONS", "Canvas", "CriterionView", "report_document"]
