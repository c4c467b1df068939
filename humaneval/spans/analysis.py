"""Span studies analysed: item scores under a scoring rule into the package's models.

The spans of every annotator on every item become one score (:func:`item_scores`); the scores
form a ratings table (``annotator, document, system, score``) that :func:`humaneval.analysis.analyze`
fits with the model of a rating study (the CLMM with annotator and document effects), so systems
get the same rank groups and contrasts as in any other study. Per-category error rates per system
come beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from humaneval.core.ratings import Ratings, load_ratings
from humaneval.present.document import Block, Paragraph
from humaneval.present.printable import Printable, frame_table
from humaneval.spans.scoring import get_scoring, item_scores
from humaneval.spans.table import ITEM, SpanTable


def category_rates(table: SpanTable) -> pd.DataFrame:
    """Errors per annotated item, by system, category and severity.

    Returns
    -------
    DataFrame
        ``system, category, severity, errors, items, rate``: ``items`` counts annotator × item
        views of the system, ``rate`` is ``errors / items``.

    Examples
    --------
    >>> from humaneval.spans.table import load_spans
    >>> t = load_spans(pd.DataFrame({"annotator": ["a", "b"], "document": "d", "system": "s",
    ...     "start": [0, None], "end": [2, None], "severity": ["minor", None],
    ...     "category": ["fluency", None], "length": 9}))
    >>> category_rates(t)[["category", "errors", "items", "rate"]].to_dict("records")
    [{'category': 'fluency', 'errors': 1, 'items': 2, 'rate': 0.5}]
    """
    views = table.items.groupby("system").size().rename("items")
    spans = table.spans.assign(severity=table.spans["severity"].fillna(""))
    errors = spans.groupby(["system", "category", "severity"]).size().rename("errors").reset_index()
    out = errors.merge(views.reset_index(), on="system", how="left")
    out["rate"] = out["errors"] / out["items"]
    return out.sort_values(["system", "category", "severity"]).reset_index(drop=True)


@dataclass(frozen=True)
class SpanAnalysis(Printable):
    """The analysis of a span study.

    Attributes
    ----------
    scoring : str
        The scoring rule.
    mean_score : dict
        Mean item score per system (over annotators and items).
    category_rates : DataFrame
        :func:`category_rates`.
    analysis : object
        The model's result (:class:`~humaneval.analysis.outcome.Analysis`) on the item scores.
    scores : DataFrame
        The item scores analysed.
    criterion : str or None
        The criterion analysed, when the table has several.

    It is the :class:`~humaneval.analysis.adapters.SystemAnalysis` of the table (the ``spans``
    adapter): ``systems``, ``contrasts``, ``fit`` and the rest are the model's.
    """

    scoring: str
    mean_score: dict[str, float]
    category_rates: pd.DataFrame
    analysis: Any
    scores: pd.DataFrame
    criterion: str | None = None

    @property
    def test(self) -> str:
        return str(self.analysis.test)

    @property
    def kind(self) -> str:
        return "spans"

    @property
    def adjust(self) -> str:
        return str(self.analysis.adjust)

    @property
    def response(self) -> str:
        return str(self.analysis.response)

    @property
    def systems(self) -> pd.DataFrame:
        return self.analysis.systems

    @property
    def contrasts(self) -> pd.DataFrame:
        return self.analysis.contrasts

    @property
    def fit(self) -> Any:
        return self.analysis.fit

    @property
    def aggregate(self) -> str | None:
        return self.analysis.aggregate

    @property
    def independent(self) -> bool:
        return bool(self.analysis.independent)

    @property
    def cautions(self) -> tuple[str, ...]:
        return tuple(self.analysis.cautions)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.analysis.to_dict(),
            "kind": self.kind,
            "criterion": self.criterion,
            "scoring": self.scoring,
            "mean_score": dict(self.mean_score),
            "category_rates": self.category_rates.to_dict(orient="records"),
        }

    def blocks(self, model: bool = True) -> tuple[Block, ...]:
        """The scoring rule, the mean score per system and the error rates by category, and with
        ``model`` the model's system table (rank groups) and contrasts (``humaneval analyze``)."""
        means = pd.DataFrame({"system": list(self.mean_score), "mean_score": list(self.mean_score.values())})
        rates = self.category_rates.pivot_table(
            index="category", columns="system", values="rate", aggfunc="sum", fill_value=0.0
        ).reset_index()
        out: list[Block] = [
            Paragraph((f"span study scored by {get_scoring(self.scoring).title}",)),
            frame_table(means, ["system", "mean_score"], caption=("mean score per system",)),
            frame_table(rates, list(rates.columns), caption=("errors per item by category",)),
        ]
        if not model:
            return tuple(out)
        what = (
            "the scores' ordered classes (1 = worst) with annotator and document effects"
            if self.test == "clmm"
            else "the item scores themselves"
        )
        systems = [c for c in ("system", "estimate", "letters") if c in self.systems]
        contrasts = ("system_a", "system_b", "estimate", "se", "p_adj", "ci_low", "ci_high")
        return (
            *out,
            Paragraph((f"{self.test} of {what}; contrasts adjusted by {self.adjust}",), "note"),
            frame_table(self.systems, systems, caption=("systems (letters: rank groups)",)),
            frame_table(
                self.contrasts, [c for c in contrasts if c in self.contrasts], caption=("contrasts",)
            ),
        )


MAX_LEVELS = 21
"""Most distinct scores the CLMM takes as they are (its limit on ordinal categories)."""

BINS = 10
"""Ordered classes of the scores, at their quantiles, when there are more distinct scores."""


def ordinal_scores(scores: pd.Series) -> pd.Series:
    """The scores as ordered classes ``1..K`` for the CLMM, keeping their order.

    Up to :data:`MAX_LEVELS` distinct scores each become a class; more are grouped into
    :data:`BINS` classes at their quantiles (ties never split).

    Examples
    --------
    >>> ordinal_scores(pd.Series([-6.0, 0.0, -1.0, 0.0])).tolist()
    [1, 3, 2, 3]
    """
    if scores.nunique() <= MAX_LEVELS:
        return scores.rank(method="dense").astype(int)
    classes = pd.qcut(scores.rank(method="min"), BINS, labels=False, duplicates="drop")
    return pd.Series(classes, index=scores.index).rank(method="dense").astype(int)


def score_ratings(scores: pd.DataFrame, test: str = "clmm") -> Ratings:
    """The ratings table the item scores are analysed as: their ordered classes for the CLMM
    (:func:`ordinal_scores`), the scores themselves for a classic test."""
    if test == "clmm":  # the CLMM models the scores' order; classic tests take the scores as they are
        return load_ratings(scores.assign(score=ordinal_scores(scores["score"])), response="score")
    return load_ratings(scores, response="score", continuous=True)


def analyze_spans(table: SpanTable, scoring: str = "mqm", **options: Any) -> SpanAnalysis:
    """Score every annotator's spans on every item and analyse the scores like ratings.

    Parameters
    ----------
    table : SpanTable
    scoring : str
        A rule of :data:`~humaneval.spans.scoring.SCORING_RULES` (``mqm``, ``esa``).
    **options
        Passed to :func:`humaneval.analysis.analyze` (``test``, ``structure``, ``adjust``, ...).

    Returns
    -------
    SpanAnalysis
    """
    from humaneval.analysis.workflow import analyze

    rule = get_scoring(scoring)
    scores = item_scores(table, rule)
    test = options.pop("test", "clmm")
    result = analyze(score_ratings(scores, test), test, **options)
    mean = scores.groupby("system")["score"].mean()
    return SpanAnalysis(
        scoring=rule.name,
        mean_score={str(k): float(v) for k, v in mean.items()},
        category_rates=category_rates(table),
        analysis=result,
        scores=scores,
    )


__all__ = ["ITEM", "SpanAnalysis", "analyze_spans", "category_rates", "score_ratings"]
