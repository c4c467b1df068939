"""What a study report says about a span study: its agreement and its analysis, computed once.

:func:`span_summary` runs ``humaneval reliability`` (:func:`~humaneval.spans.agreement.span_reliability`)
and ``humaneval analyze`` (:func:`humaneval.analysis.analyze` of the span table, the ``spans`` adapter)
with the report's settings; the report's other sections take :attr:`SpanSummary.ratings`, the item
scores as the CLMM analyses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from humaneval.analysis.workflow import analyze
from humaneval.core.ratings import Ratings
from humaneval.spans.agreement import SpanReliability, span_reliability
from humaneval.spans.analysis import SpanAnalysis, score_ratings
from humaneval.spans.scoring import default_scoring
from humaneval.spans.table import SpanTable


@dataclass(frozen=True)
class SpanSummary:
    """The agreement and the analysis of one span table (``report.json``'s ``spans``)."""

    reliability: SpanReliability
    analysis: SpanAnalysis
    ratings: Ratings

    def to_dict(self) -> dict[str, Any]:
        return {**self.reliability.to_dict(), **self.analysis.to_dict()}


def span_summary(
    table: SpanTable,
    *,
    engine: str = "native",
    structure: str = "auto",
    seed: int = 1,
    n_resamples: int = 1000,
) -> SpanSummary:
    """Agreement (α_u, span F1, score α) and the analysis of ``table`` under its scoring rule.

    Parameters
    ----------
    table : SpanTable
    engine, structure : str
        The CLMM's, as :func:`humaneval.analysis.analyze` takes them.
    seed : int
        Seed of the bootstrap intervals and of the analysis.
    n_resamples : int
        Item-cluster bootstrap resamples of the agreement (0: no intervals).

    Returns
    -------
    SpanSummary
    """
    scoring = table.scoring or default_scoring(table)
    reliability = span_reliability(table, scoring, n_resamples=n_resamples, seed=seed)
    analysis = analyze(table, engine=engine, structure=structure, seed=seed)
    if not isinstance(analysis, SpanAnalysis):  # the registry gives span tables the spans adapter
        raise TypeError(f"the analysis of a span table is a {type(analysis).__name__}, not a SpanAnalysis")
    return SpanSummary(reliability, analysis, score_ratings(analysis.scores))
