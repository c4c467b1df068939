"""One results section per criterion, made of the parts listed in
:data:`humaneval.report.sections.CRITERION_PARTS`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from humaneval.present.document import Section
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas, CriterionPart, CriterionView


def sections(report: StudyReport, canvas: Canvas, parts: Sequence[CriterionPart]) -> Iterator[Section]:
    for index, part in enumerate(report.criteria, start=1):
        view = CriterionView(report, part, index, canvas)
        name = part.criterion
        yield Section(
            "Results" + (f": {name}" if name else ""),
            tuple(block for build in parts for block in build(view)),
            id=f"results{index}",
            nav="Results" + (f" ({name})" if name else ""),
        )
