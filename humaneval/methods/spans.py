"""Error-span marking: annotators mark the erroneous spans of a text with a severity and a category
(MQM, Freitag et al. 2021); Error Span Annotation adds a 0–100 score after marking (ESA, Kocmi et al.
2024). The answers are the span table of docs/spans.md, analysed by the ``spans`` adapter."""

from __future__ import annotations

from dataclasses import dataclass

from humaneval.core.responses import SCORE
from humaneval.methods.base import Method

SEVERITIES = ("minor", "major")
"""The severities a form offers (MQM; Freitag et al. 2021, Table 2)."""


@dataclass(frozen=True)
class SpanMarking(Method):
    """Spans of a text; the ESA score, when asked, is a number from 0 to 100."""

    def value_range(self, points: int | None = None) -> tuple[float, float]:
        return (0, 100)


SPANS = SpanMarking(
    name="spans",
    title="error-span marking (MQM, ESA)",
    aliases=("error-spans",),
    unit="item",
    response=SCORE,
    table_kind="spans",
    analysis="spans",
    widget="spans",
    check_placement="screen",
    preset="{dimension}-spans",
    field_prefix="sp_q0_",
    scale_description="error spans marked in the text, each with a severity and a category",
)
"""The span-marking method."""
