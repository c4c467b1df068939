"""Error spans: agreement on where the errors are (unitizing α, span F1) and on how bad the texts are
(score α), the scores per system under the scoring rule (MQM or ESA) and the errors per item by
category, for a report of a span table (docs/spans.md)."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Paragraph, Section, text
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    spans = report.spans
    if spans is None:
        return
    intro = text(
        "Annotators marked error spans. Krippendorff's unitizing α (α_u; Krippendorff 2004, pp. 251–256) "
        "measures how far they agree on where the errors are, overall and by category; span F1 is the mean "
        "character-level F1 of two annotators' marked characters; score α is the interval α of the item "
        "scores, agreement on how bad the texts are. The results below analyse those scores with the "
        "CLMM (annotator and document effects), as humaneval analyze does."
    )
    yield Section(
        "Error spans",
        (Paragraph(intro), *spans.reliability.blocks(), *spans.analysis.blocks(model=False)),
        id="spans",
    )
