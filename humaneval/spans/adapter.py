"""The ``spans`` analysis adapter: :func:`humaneval.analysis.analyze` of a span table.

The span-marking method (:data:`humaneval.methods.METHODS` ``["spans"]``) names ``spans`` as its
analysis; this module registers the adapter of that name with the analysis layer (which sits below
this package and cannot import it), so ``analyze(span_table)``, ``humaneval analyze SPANS.csv`` and
the report run one analysis: :func:`~humaneval.spans.analysis.analyze_spans` under the table's
scoring rule.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from humaneval.analysis.adapters import register_adapter
from humaneval.analysis.options import AnalysisOptions
from humaneval.core.ratings import Ratings
from humaneval.errors import OptionError
from humaneval.spans.analysis import SpanAnalysis, analyze_spans
from humaneval.spans.scoring import default_scoring
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


register_adapter(SpanAdapter())
