"""Scoring rules: how the spans of one annotator on one item become the item's score.

A rule is one :class:`ScoringRule` in :data:`SCORING_RULES`; a new rule is one entry there. Scores
are oriented so that higher is better, as the ratings table expects: MQM scores are the negated
weighted error counts (WMT 2023 reports them so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import pandas as pd

from humaneval.errors import OptionError, RatingsError
from humaneval.spans.table import ITEM, SpanTable

MQM_SEVERITY_WEIGHTS = MappingProxyType({"major": 5.0, "minor": 1.0, "neutral": 0.0})
"""MQM weight of a span by severity (Freitag et al. 2021, google/wmt-mqm-human-evaluation)."""

MQM_MINOR_PUNCTUATION = 0.1
"""Weight of a minor punctuation error (category ``Fluency/Punctuation``)."""

MQM_NON_TRANSLATION = 25.0
"""Weight of a ``Non-translation`` span, whatever its severity."""


def mqm_weight(severity: str | None, category: str) -> float:
    """MQM weight of one span.

    Parameters
    ----------
    severity : str
        ``major``, ``minor`` or ``neutral`` (case ignored).
    category : str
        The error category; ``Non-translation`` (``Non-translation!`` in Google's files) weighs 25,
        a minor ``Fluency/Punctuation`` (or ``punctuation``) error 0.1, ``No-error`` 0.

    Returns
    -------
    float

    References
    ----------
    Freitag, M. et al. (2021). Experts, errors, and context: a large-scale study of human
    evaluation for machine translation. TACL 9, 1460–1474 (Table 2).

    Examples
    --------
    >>> mqm_weight("major", "Accuracy/Mistranslation"), mqm_weight("minor", "Fluency/Punctuation")
    (5.0, 0.1)
    >>> mqm_weight("minor", "Non-translation!")
    25.0
    """
    name = category.strip().rstrip("!").lower()
    if name == "non-translation":
        return MQM_NON_TRANSLATION
    if name in ("no-error", "no error"):
        return 0.0
    level = (severity or "").strip().lower()
    if level not in MQM_SEVERITY_WEIGHTS:
        raise RatingsError(
            f"MQM severity {severity!r} of a {category!r} span is unknown; use one of "
            f"{', '.join(MQM_SEVERITY_WEIGHTS)}"
        )
    if level == "minor" and name.split("/")[-1] == "punctuation":
        return MQM_MINOR_PUNCTUATION
    return MQM_SEVERITY_WEIGHTS[level]


def _mqm(table: SpanTable, views: pd.DataFrame) -> pd.Series:
    spans = table.spans
    weights = pd.Series(
        [mqm_weight(s, c) for s, c in zip(spans["severity"], spans["category"], strict=True)],
        index=spans.index,
        dtype=float,
    )
    keys = _keys(table)
    total = weights.groupby([spans[k] for k in keys]).sum()
    return -total.reindex(pd.MultiIndex.from_frame(views[keys])).fillna(0.0).set_axis(views.index)


def _esa(table: SpanTable, views: pd.DataFrame) -> pd.Series:
    if "score" not in table.data:
        raise RatingsError(
            f"{table.source or 'the span table'}: no score column; ESA scores are the annotators' 0–100 "
            "scores, one per item (or use --scoring mqm)"
        )
    keys = _keys(table)
    scores = table.data.groupby(keys)["score"]
    if (scores.nunique() > 1).any() or scores.count().eq(0).any():
        bad = scores.nunique() > 1
        which = (bad[bad] if bad.any() else scores.count()[scores.count().eq(0)]).index[0]
        raise RatingsError(
            f"{table.source or 'the span table'}: {dict(zip(keys, which, strict=True))} has "
            f"{'different scores in its rows' if bad.any() else 'no score'}; give every row of an "
            "annotator's item the one ESA score"
        )
    values = scores.first()
    if ((values < 0) | (values > 100)).any():
        raise RatingsError(
            f"{table.source or 'the span table'}: an ESA score outside 0–100; scores lie on 0–100"
        )
    return values.reindex(pd.MultiIndex.from_frame(views[keys])).set_axis(views.index)


def _keys(table: SpanTable) -> list[str]:
    return ["annotator", *ITEM, *(["criterion"] if "criterion" in table.data else [])]


@dataclass(frozen=True)
class ScoringRule:
    """A way to score an annotator's spans on an item.

    Attributes
    ----------
    name : str
        Name used by ``--scoring``.
    title : str
        What the score is, for people.
    low, high : float or None
        Bounds of the score where it has them.
    score : callable
        ``(table, views) -> Series``: one score per row of ``views`` (``annotator, document, system``).
    """

    name: str
    title: str
    score: Callable[[SpanTable, pd.DataFrame], pd.Series]
    low: float | None = None
    high: float | None = None


SCORING_RULES: MappingProxyType[str, ScoringRule] = MappingProxyType({
    "mqm": ScoringRule("mqm", "MQM score (minus the weighted error count; higher is better)", _mqm, high=0.0),
    "esa": ScoringRule("esa", "ESA score (the annotator's 0–100 score after marking)", _esa, 0.0, 100.0),
})  # fmt: skip
"""Every scoring rule by name."""


def get_scoring(name: str | ScoringRule) -> ScoringRule:
    """The rule called ``name``; an unknown name raises :class:`OptionError` listing the known ones."""
    if isinstance(name, ScoringRule):
        return name
    if name not in SCORING_RULES:
        raise OptionError(f"scoring rule {name!r} is unknown; use one of {', '.join(SCORING_RULES)}")
    return SCORING_RULES[name]


def default_scoring(table: SpanTable) -> str:
    """``esa`` when the table has annotators' scores, else ``mqm``."""
    return "esa" if "score" in table.data and table.data["score"].notna().any() else "mqm"


def item_scores(table: SpanTable, scoring: str | ScoringRule = "mqm") -> pd.DataFrame:
    """One score per annotator and item: the ratings table of a span study.

    Parameters
    ----------
    table : SpanTable
    scoring : str or ScoringRule
        A name of :data:`SCORING_RULES`.

    Returns
    -------
    DataFrame
        ``annotator, document, system[, criterion], score`` (higher is better).

    Examples
    --------
    >>> from humaneval.spans.table import load_spans
    >>> t = load_spans(pd.DataFrame({"annotator": ["a", "a", "b"], "document": "d", "system": "s",
    ...     "start": [0, 5, None], "end": [2, 9, None], "severity": ["major", "minor", None],
    ...     "category": ["accuracy", "fluency", None], "length": 20}))
    >>> item_scores(t, "mqm")["score"].tolist()
    [-6.0, 0.0]
    """
    rule = get_scoring(scoring)
    views = table.data[_keys(table)].drop_duplicates().sort_values(_keys(table)).reset_index(drop=True)
    scores = rule.score(table, views).to_numpy(dtype=float)
    return views.assign(score=np.where(scores == 0, 0.0, scores))
