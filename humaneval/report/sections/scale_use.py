"""A criterion's annotator scale use: spread and shift per annotator, and whether it matters.

Drawn when the report is asked for it (``humaneval report --scale-use``): it fits the CLMM with a random
annotator log-scale (:func:`humaneval.analysis.scale.scale_use`), which costs one more fit per criterion.
"""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.analysis.scale import scale_use
from humaneval.clmm.result import FitResult
from humaneval.errors import HumanEvalError
from humaneval.present.document import Block, Paragraph, text
from humaneval.report import figures
from humaneval.report.sections.base import CriterionView


def part(view: CriterionView) -> Iterator[Block]:
    if not getattr(view.report.settings, "scale_use", False) or not isinstance(view.fit, FitResult):
        return
    ratings = view.ratings
    data = ratings.data
    if data["annotator"].nunique() < 3:
        return
    try:
        use = scale_use(data[["annotator", "document", "system", ratings.response]], ratings.response)
    except HumanEvalError as exc:
        yield Paragraph(text(f"Annotator scale use could not be estimated: {exc}"))
        return
    yield view.figure(
        "scale-use",
        lambda path: figures.scale_use_figure(use.groups, path),
        "Annotator scale use",
        text(
            "Annotator scale use: each annotator's spread (× the median annotator's) and location shift on "
            "the latent scale, with 95 % conditional intervals, from the CLMM with a random annotator "
            'log-scale (docs/analysis.md, "Annotators who use the scale differently").'
        ),
    )
    yield Paragraph(text(use.sentence()))
