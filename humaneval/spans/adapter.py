"""The span table in the registries: the ``spans`` analysis adapter, its structure and its reliability.

The span-marking method (:data:`humaneval.methods.METHODS` ``["spans"]``) names ``spans`` as its
analysis; this module registers the adapter of that name with the analysis layer (which sits below
this package and cannot import it), so ``analyze(span_table)``, ``humaneval analyze SPANS.csv`` and
the report run one analysis: :func:`~humaneval.spans.analysis.analyze_spans` under the table's
scoring rule. In the same way :func:`~humaneval.core.structure.describe_structure` of a span table is
:func:`~humaneval.spans.structure.describe_spans` (``humaneval validate``) and
:func:`~humaneval.reliability.report.reliability_report` of one is :func:`span_table_reliability`
(``humaneval reliability``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from humaneval.analysis.adapters import register_adapter
from humaneval.analysis.options import AnalysisOptions
from humaneval.core.ratings import Ratings
from humaneval.core.structure import register_structure
from humaneval.errors import OptionError
from humaneval.reliability.report import register_reliability
from humaneval.spans.agreement import DEFAULT_RESAMPLES, SpanReliability, span_reliability
from humaneval.spans.analysis import SpanAnalysis, analyze_spans
from humaneval.spans.scoring import default_scoring
from humaneval.spans.structure import describe_spans
from humaneval.spans.table import SpanTable


@dataclass(frozen=True)
class SpanAdapter:
    """Item scores of a span table under its scoring rule, analysed with the CLMM."""

    name: ClassVar[str] = "spans"
    title: ClassVar[str] = "error-span scores in the cumulative link mixed model"

    def run(
        self, ratings: Ratings | SpanTable, kind: str, criterion: str | None, options: AnalysisOptions
    ) -> SpanAnalysis:
        if not isinstance(ratings, SpanTable):
            raise OptionError(
                "the spans analysis takes a span table (humaneval.spans.load_spans; docs/spans.md)"
            )
        if (
            options.judge is not None
            or options.judge_scores is not None
            or options.inference
            or options.style
        ):
            raise OptionError(
                "a span table takes no --judge, --inference or --style; an automatic span annotator is "
                "one more annotator of the table (humaneval.spans.judge, docs/spans.md)"
            )
        table = ratings.for_criterion(criterion)
        result = analyze_spans(
            table,
            table.scoring or default_scoring(table),
            engine=options.engine,
            structure=options.structure,
            link=options.link,
            reference=options.reference,
            adjust=options.adjust,
            fallback=options.fallback,
            alpha=options.alpha,
            seed=options.seed,
            max_minutes=options.max_minutes,
        )
        return replace(result, criterion=criterion)


def span_table_reliability(table: SpanTable, *, n_resamples: int, seed: int | None) -> SpanReliability:
    """:func:`~humaneval.spans.agreement.span_reliability` under the table's scoring rule, with at most
    :data:`~humaneval.spans.agreement.DEFAULT_RESAMPLES` resamples (every one recomputes α_u)."""
    return span_reliability(
        table,
        table.scoring,
        n_resamples=min(n_resamples, DEFAULT_RESAMPLES),
        seed=1 if seed is None else seed,
    )


register_adapter(SpanAdapter())
register_structure(SpanTable.method, describe_spans)
register_reliability(SpanTable.method, span_table_reliability)
