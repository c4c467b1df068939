"""Are annotators rating distinct things? Correlation between the criteria of one study.

When one screen asks several questions about a summary (SummEval's coherence, consistency,
fluency and relevance), annotators may answer all of them from one overall impression (a halo
effect); the criteria then measure the same thing and separate conclusions per criterion add
nothing. :func:`criterion_correlations` measures this for every pair of criteria on the judgements
that have both: Spearman's ρ over all judgements, the mean ρ *within* annotators (the halo: how
strongly one annotator's answers move together), and ρ between the system means (do the criteria
rank systems alike?).

References
----------
Fabbri, A. R. et al. (2021). SummEval: Re-evaluating summarization evaluation. TACL 9, 391–409
(Table 3 reports correlations between its four criteria).
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import InsufficientDataError
from humaneval.present.document import Block, Column, Paragraph, Table
from humaneval.present.formatting import fmt
from humaneval.present.printable import Printable

COLUMNS = (
    "criterion_a",
    "criterion_b",
    "n_judgements",
    "rho",
    "n_annotators",
    "rho_within_annotator",
    "n_systems",
    "rho_systems",
)


@dataclass(frozen=True, eq=False)
class CriterionCorrelations(Printable):
    """Correlations between every pair of criteria (one row per pair, see :data:`COLUMNS`).

    ``rho``: Spearman's ρ over all judgements rated on both criteria; ``rho_within_annotator``:
    the mean of each annotator's own ρ (annotators with at least 3 such judgements and answers
    that vary on both criteria; ``n_annotators`` counts them); ``rho_systems``: ρ between the
    system means of the two criteria (``n_systems`` points). Undefined values are ``NaN``.
    """

    table: pd.DataFrame

    def blocks(self) -> tuple[Block, ...]:
        if self.table.empty:
            return (Paragraph(("one criterion: no correlation between criteria",)),)
        rows = tuple(
            (
                f"{r.criterion_a} – {r.criterion_b}",
                f"{fmt(r.rho)} (n={r.n_judgements})",
                f"{fmt(r.rho_within_annotator)} ({r.n_annotators} annotators)",
                f"{fmt(r.rho_systems)} ({r.n_systems} systems)",
            )
            for r in self.table.itertuples()
        )
        columns = ("criteria", "judgements", "within annotators", "system means")
        return (
            Paragraph(("correlation between criteria (Spearman ρ)",)),
            Table(tuple(Column(c, align="l" if k == 0 else "r") for k, c in enumerate(columns)), rows),
        )

    def to_dict(self) -> list[dict[str, object]]:
        records = self.table.to_dict(orient="records")
        return [
            {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in r.items()} for r in records
        ]


def criterion_correlations(ratings: Ratings | pd.DataFrame) -> CriterionCorrelations:
    """Spearman correlations between every pair of criteria of a score table (checks left out).

    Parameters
    ----------
    ratings:
        A :class:`~humaneval.core.ratings.Ratings` (or raw table) with a ``criterion`` column; a table with
        one criterion (or none) gives an empty table.

    Returns
    -------
    CriterionCorrelations
        One row per pair of criteria, in the sorted order of their names.

    Examples
    --------
    The wine judges' 1–5 bitterness rating against their underlying 0–100 response:

    >>> import pandas as pd
    >>> from humaneval.io.datasets import wine, wine_ratings
    >>> table = wine_ratings()
    >>> two = pd.concat([table.assign(criterion="bitterness"),
    ...                  table.assign(criterion="response", score=wine()["response"])])
    >>> row = criterion_correlations(two).table.iloc[0]
    >>> row.criterion_a, row.criterion_b, int(row.n_judgements), round(float(row.rho), 3)
    ('bitterness', 'response', 72, 0.959)
    """
    ratings = as_ratings(ratings).without_checks()
    if ratings.response != "score":
        raise InsufficientDataError("correlations between criteria need scores, not ranks")
    criteria = [c for c in ratings.criteria if c is not None]
    if len(criteria) < 2:
        return CriterionCorrelations(pd.DataFrame(columns=list(COLUMNS)))
    wide = ratings.data.pivot_table(
        index=["annotator", "document", "system"], columns="criterion", values="score", aggfunc="mean"
    )
    means = wide.groupby(level="system").mean()
    rows = []
    for a, b in itertools.combinations(criteria, 2):
        both = wide[[a, b]].dropna()
        within = [
            _spearman(part[a], part[b])
            for _, part in both.groupby(level="annotator")
            if len(part) >= 3 and part[a].nunique() > 1 and part[b].nunique() > 1
        ]
        system_means = means[[a, b]].dropna()
        rows.append(
            {
                "criterion_a": a,
                "criterion_b": b,
                "n_judgements": len(both),
                "rho": _spearman(both[a], both[b]),
                "n_annotators": len(within),
                "rho_within_annotator": float(np.mean(within)) if within else np.nan,
                "n_systems": len(system_means),
                "rho_systems": _spearman(system_means[a], system_means[b]),
            }
        )
    return CriterionCorrelations(pd.DataFrame(rows, columns=list(COLUMNS)))


def _spearman(x: pd.Series, y: pd.Series) -> float:
    if len(x) < 3 or x.nunique() < 2 or y.nunique() < 2:
        return np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.spearmanr(x, y).statistic)


def _plain(value: object) -> object:
    if isinstance(value, float) and np.isnan(value):
        return None
    return value.item() if hasattr(value, "item") else value
