"""Agreement of span annotations: unitizing α, character-level span F1 and α of the item scores.

Each statistic comes with an item-cluster bootstrap interval: items (``document, system``) are
drawn with replacement and every statistic recomputed on the drawn items.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from humaneval.errors import InsufficientDataError, RatingsError
from humaneval.present.document import Block, Column, Paragraph, Table
from humaneval.present.formatting import fmt, fmt_ci
from humaneval.present.printable import Printable
from humaneval.spans.scoring import default_scoring, get_scoring, item_scores
from humaneval.spans.table import ITEM, SpanTable
from humaneval.spans.unitizing import Continuum, unitizing_disagreements
from humaneval.stats.resampling import cluster_bootstrap

DEFAULT_RESAMPLES = 1000


def _merged(starts: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted(zip(starts.tolist(), ends.tolist(), strict=True)):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> int:
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def item_pair_f1(table: SpanTable) -> pd.DataFrame:
    """Character-level F1 of every pair of annotators on every item they both annotated.

    F1 of two annotators is ``2|A∩B| / (|A|+|B|)`` over the characters each marked (any category);
    pairs where neither marked anything are left out.

    Returns
    -------
    DataFrame
        ``document, system, annotator_a, annotator_b, f1``.
    """
    spans = table.spans
    marked = {
        key: _merged(part["start"].to_numpy(int), part["end"].to_numpy(int))
        for key, part in spans.groupby([*ITEM, "annotator"])
    }
    rows = []
    for (doc, system), part in table.items.groupby(ITEM, sort=True):
        for a, b in combinations(sorted(part["annotator"]), 2):
            sa, sb = marked.get((doc, system, a), []), marked.get((doc, system, b), [])
            size = sum(e - s for s, e in sa) + sum(e - s for s, e in sb)
            if size:
                rows.append((doc, system, a, b, 2 * _overlap(sa, sb) / size))
    return pd.DataFrame(rows, columns=[*ITEM, "annotator_a", "annotator_b", "f1"])


def span_f1(table: SpanTable) -> float:
    """Mean character-level F1 over items and annotator pairs (:func:`item_pair_f1`).

    Examples
    --------
    >>> from humaneval.spans.table import load_spans
    >>> t = load_spans(pd.DataFrame({"annotator": ["a", "b"], "document": "d", "system": "s",
    ...     "start": [0, 2], "end": [4, 6], "severity": "minor", "category": "x", "length": 10}))
    >>> span_f1(t)  # 2 shared characters of 4 + 4 marked
    0.5
    """
    pairs = item_pair_f1(table)
    return float(pairs["f1"].mean()) if len(pairs) else float("nan")


def interval_alpha(units: list[np.ndarray]) -> float:
    """Krippendorff's interval α of the values of several units (units with one value are dropped).

    Examples
    --------
    >>> round(interval_alpha([np.array([1.0, 2.0]), np.array([3.0, 3.0]), np.array([5.0, 4.0, 5.0])]), 4)
    0.8723
    """
    pairable = [u for u in units if len(u) >= 2]
    if not pairable:
        return float("nan")
    x = np.concatenate(pairable)
    n = len(x)
    m_u = np.array([len(u) for u in pairable], dtype=float)
    # Σ_{i≠j} (v_i − v_j)² within a unit is 2 (m Σv² − (Σv)²)
    within = 2 * (
        m_u * np.array([np.sum(u**2) for u in pairable]) - np.array([np.sum(u) for u in pairable]) ** 2
    )
    d_o = float(np.sum(within / (m_u - 1))) / n
    d_e = 2 * (n * float(np.sum(x**2)) - float(np.sum(x)) ** 2) / (n * (n - 1))
    return 1 - d_o / d_e if d_e > 0 else float("nan")


@dataclass(frozen=True)
class SpanReliability(Printable):
    """Agreement of a span table, with item-cluster bootstrap intervals.

    Attributes
    ----------
    alpha_u : float
        Krippendorff's unitizing α over all categories.
    alpha_u_by_category : dict
        α_u of every category alone.
    span_f1 : float
        Mean character-level F1 of annotator pairs (:func:`span_f1`).
    score_alpha : float
        Interval α of the item scores under ``scoring``.
    scoring : str
        The scoring rule of ``score_alpha``.
    intervals : dict
        ``name -> (low, high)`` 95% item-cluster bootstrap interval of each statistic
        (``alpha_u``, ``span_f1``, ``score_alpha``, ``alpha_u:<category>``).
    n_items, n_annotators, n_spans, n_resamples : int
    caveats : tuple of str
    """

    alpha_u: float
    alpha_u_by_category: dict[str, float]
    span_f1: float
    score_alpha: float
    scoring: str
    intervals: dict[str, tuple[float, float]]
    n_items: int
    n_annotators: int
    n_spans: int
    n_resamples: int
    caveats: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha_u": self.alpha_u,
            "alpha_u_by_category": dict(self.alpha_u_by_category),
            "span_f1": self.span_f1,
            "score_alpha": self.score_alpha,
            "scoring": self.scoring,
            "intervals": {k: list(v) for k, v in self.intervals.items()},
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "n_spans": self.n_spans,
            "n_resamples": self.n_resamples,
            "caveats": list(self.caveats),
        }

    def blocks(self, source: str | None = None) -> tuple[Block, ...]:
        """A line naming the study, the statistics with their intervals, and the notes."""
        named = [
            ("alpha_u", "alpha_u", self.alpha_u),
            *((f"alpha_u {c}", f"alpha_u:{c}", a) for c, a in self.alpha_u_by_category.items()),
            ("span_f1", "span_f1", self.span_f1),
            (f"score_alpha ({self.scoring})", "score_alpha", self.score_alpha),
        ]
        rows = tuple(
            (label, fmt(value, 4), fmt_ci(*self.intervals.get(key, (np.nan, np.nan))))
            for label, key, value in named
        )
        head = (
            f"{source + ': ' if source else ''}span agreement, {self.n_items} items, "
            f"{self.n_annotators} annotators, {self.n_spans} spans"
        )
        table = Table((Column("statistic"), Column("value", "r"), Column("95% CI", "r")), rows)
        notes = tuple(Paragraph((f"note: {c}",), "note") for c in self.caveats)
        return (Paragraph((head,)), table, *notes)


class _Statistics:
    """Every statistic of :class:`SpanReliability` on a multiset of items (arrays prepared once)."""

    def __init__(self, table: SpanTable, scoring: str):
        self.items = [tuple(x) for x in table.items[ITEM].drop_duplicates().itertuples(index=False)]
        self.lengths = np.array([int(table.lengths[item]) for item in self.items], dtype=np.int64)
        coders_of = {
            key: tuple(sorted(part["annotator"])) for key, part in table.items.groupby(ITEM, sort=True)
        }
        self.coders_of = [coders_of[item] for item in self.items]
        self.categories = table.categories
        category_index = {c: i for i, c in enumerate(self.categories)}
        spans = table.spans
        by_item = {key: part for key, part in spans.groupby(ITEM, sort=False)}
        self.units: list[np.ndarray] = []
        for item, coders in zip(self.items, self.coders_of, strict=True):
            part = by_item.get(item, spans.iloc[:0])
            index = {c: i for i, c in enumerate(coders)}
            self.units.append(
                np.column_stack([
                    part["annotator"].map(index).to_numpy(np.int64),
                    part["category"].map(category_index).to_numpy(np.int64),
                    part["start"].to_numpy(np.int64),
                    part["end"].to_numpy(np.int64),
                ]).reshape(-1, 4)
            )  # fmt: skip
        pairs = item_pair_f1(table)
        f1 = {key: part["f1"].to_numpy() for key, part in pairs.groupby(ITEM)}
        self.f1 = [f1.get(item, np.zeros(0)) for item in self.items]
        self.scores: list[np.ndarray] = []
        self.score_problem: str | None = None
        try:
            scores = item_scores(table, scoring)
        except RatingsError as error:  # agreement on spans stands without scores; say why there are none
            self.score_problem = f"no score_alpha: {error}"
            return
        found = {key: part["score"].to_numpy(float) for key, part in scores.groupby(ITEM)}
        self.scores = [found[item] for item in self.items]

    def unitizing(self, draw: list[int]) -> np.ndarray:
        """``(D_o, D_e)`` per category, pooled over the continua of items with the same annotators."""
        parts = np.zeros((len(self.categories), 2))
        groups: dict[tuple[str, ...], list[int]] = {}
        for i in draw:
            groups.setdefault(self.coders_of[i], []).append(i)
        for coders, members in groups.items():
            if len(coders) < 2:
                continue
            sizes = self.lengths[members]
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            table = np.concatenate(
                [self.units[i] + [0, 0, o, o] for i, o in zip(members, offsets, strict=True)]
            )
            continuum = Continuum(
                int(sizes.sum()), table[:, 0], table[:, 1], table[:, 2], table[:, 3], len(coders)
            )
            parts += len(coders) * continuum.length * unitizing_disagreements(continuum, len(self.categories))
        return parts

    def __call__(self, draw: np.ndarray) -> np.ndarray:
        chosen = sorted(draw.tolist())
        parts = self.unitizing(chosen)
        with np.errstate(invalid="ignore", divide="ignore"):
            by_category = 1 - parts[:, 0] / parts[:, 1]
            overall = 1 - parts[:, 0].sum() / parts[:, 1].sum()
        f1 = np.concatenate([self.f1[i] for i in chosen])
        score_alpha = interval_alpha([self.scores[i] for i in chosen]) if self.scores else np.nan
        return np.array([overall, f1.mean() if len(f1) else np.nan, score_alpha, *by_category])


def span_reliability(
    table: SpanTable,
    scoring: str | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 1,
) -> SpanReliability:
    """Unitizing α (overall and by category), span F1 and score α, with bootstrap intervals.

    Parameters
    ----------
    table : SpanTable
    scoring : str, optional
        Scoring rule of ``score_alpha`` (default: ``esa`` when the table has scores, else ``mqm``).
    n_resamples : int
        Item-cluster bootstrap resamples (0: no intervals).
    seed : int

    Returns
    -------
    SpanReliability

    References
    ----------
    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology (2nd ed.),
    pp. 251–256. Krippendorff, K. (2013). Agreement and information in the reliability of coding.
    Communication Methods and Measures 5(2), 93–112.

    Examples
    --------
    The worked example of Krippendorff (2004, p. 254): α_u = 0.8587 (the book rounds to 0.8591).

    >>> from humaneval.spans.table import load_spans
    >>> units = [("r0", 30, 90, "k"), ("r0", 75, 145, "c"), ("r0", 150, 200, "k"), ("r0", 220, 250, "c"),
    ...          ("r1", 30, 90, "k"), ("r1", 70, 150, "c"), ("r1", 150, 200, "k"), ("r1", 205, 225, "c"),
    ...          ("r1", 250, 270, "c")]
    >>> frame = pd.DataFrame(units, columns=["annotator", "start", "end", "category"]).assign(
    ...     document="example", system="text", severity="minor", length=300)
    >>> r = span_reliability(load_spans(frame), n_resamples=0)
    >>> round(r.alpha_u, 4), round(r.alpha_u_by_category["c"], 4), round(r.span_f1, 4)
    (0.8587, 0.7286, 0.8395)
    """
    scoring = scoring or default_scoring(table)
    get_scoring(scoring)
    if "criterion" in table.data and table.data["criterion"].nunique() > 1:
        raise RatingsError(
            f"{table.source or 'the span table'}: spans of several criteria "
            f"({', '.join(sorted(table.data['criterion'].unique()))}); measure agreement on one "
            "criterion's rows at a time"
        )
    statistics = _Statistics(table, scoring)
    if not any(len(c) >= 2 for c in statistics.coders_of):
        raise InsufficientDataError(
            f"{table.source or 'the span table'}: no item was annotated by two annotators; agreement "
            "needs items annotated by at least two"
        )
    n = len(statistics.items)
    point = statistics(np.arange(n))
    names = ["alpha_u", "span_f1", "score_alpha", *(f"alpha_u:{c}" for c in statistics.categories)]
    intervals = {name: (float("nan"), float("nan")) for name in names}
    caveats = [statistics.score_problem] if statistics.score_problem else []
    if n_resamples:
        rng = np.random.default_rng(seed)
        found = cluster_bootstrap(
            lambda idx: np.stack([statistics(row) for row in np.atleast_2d(idx)], axis=-1),
            n,
            n_resamples=n_resamples,
            rng=rng,
            unit="item",
        )
        intervals = {
            name: (float(lo), float(hi)) for name, lo, hi in zip(names, found.low, found.high, strict=True)
        }
        if found.caveat:
            caveats.append(found.caveat)
    return SpanReliability(
        alpha_u=float(point[0]),
        alpha_u_by_category={c: float(a) for c, a in zip(statistics.categories, point[3:], strict=True)},
        span_f1=float(point[1]),
        score_alpha=float(point[2]),
        scoring=scoring,
        intervals=intervals,
        n_items=n,
        n_annotators=len(table.annotators),
        n_spans=len(table.spans),
        n_resamples=n_resamples,
        caveats=tuple(caveats),
    )
