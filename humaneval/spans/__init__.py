"""Error-span studies (MQM, ESA): the span table, its agreement statistics and its scores.

- :mod:`~humaneval.spans.table`: the validated span table (:func:`load_spans`, :func:`read_texts`);
- :mod:`~humaneval.spans.unitizing`: Krippendorff's unitizing α;
- :mod:`~humaneval.spans.agreement`: α_u by category, span F1, score α with bootstrap intervals;
- :mod:`~humaneval.spans.scoring`: the scoring rules (MQM, ESA) turning spans into item scores;
- :mod:`~humaneval.spans.analysis`: item scores analysed with the package's models.

See docs/spans.md.
"""

from humaneval.spans import adapter as _adapter  # noqa: F401  (registers the spans analysis)
from humaneval.spans.agreement import SpanReliability, span_f1, span_reliability
from humaneval.spans.scoring import SCORING_RULES, ScoringRule, get_scoring, item_scores, mqm_weight
from humaneval.spans.table import SpanTable, is_span_table, load_spans, read_texts

__all__ = [
    "SCORING_RULES",
    "ScoringRule",
    "SpanReliability",
    "SpanTable",
    "get_scoring",
    "is_span_table",
    "item_scores",
    "load_spans",
    "mqm_weight",
    "read_texts",
    "span_f1",
    "span_reliability",
]
