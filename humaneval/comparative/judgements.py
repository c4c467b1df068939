"""Comparative judgements as choice events: what kind a table holds and how each judgement is modelled.

Every comparative model of this package is a conditional (multinomial) logit over systems: a
judgement is one or more *choice events*, each an alternative chosen from a set, with utility
linear in the system strengths θ (and, for ties, log ν):

- **pairwise** (``opponent`` column; score 1 won, 0 lost, 0.5 tie): one event per comparison. Without
  ties the alternatives are "a wins" (x = e_a) and "b wins" (x = e_b): Bradley–Terry. With ties in
  the table every comparison has a third alternative "tie" (x = (e_a + e_b)/2 plus log ν): the
  Davidson (1970) model, P(tie) = ν √(π_a π_b) / (π_a + π_b + ν √(π_a π_b)).
- **bws** (``tuple_id`` column; +1 best, −1 worst, 0 other): one event per tuple whose alternatives
  are the ordered (best, worst) pairs of distinct entries, x = e_best − e_worst: the MaxDiff model
  P(i best, j worst) ∝ exp(θ_i − θ_j) (Marley & Louviere 2005).
- **ranking** (``rank`` response): a ranking of k summaries is k − 1 events, the best of those not
  yet placed (Plackett–Luce, the rank-ordered logit); tied summaries are each chosen from the same
  remaining set (Breslow's approximation).

Identical events are pooled, so a fit works on a handful of distinct events weighted by counts,
and a bootstrap replicate only reweights them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix, csr_matrix

from humaneval.errors import RatingsError
from humaneval.methods import RANK, SCORE, get_method, lower_is_better
from humaneval.ratings import Ratings, as_ratings

Kind = Literal["likert", "pairwise", "bws", "ranking"]
#: The kinds analysed by :func:`humaneval.comparative.analyze_comparative`.
COMPARATIVE_KINDS = ("pairwise", "bws", "ranking")


def count_judgements(ratings: Ratings | pd.DataFrame) -> int:
    """The judgements in a ratings table, attention checks left out: one per pairwise comparison
    (two rows), one per best–worst tuple judged (one row per shown summary), one per row otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> count_judgements(pd.DataFrame({"annotator": ["w"] * 2, "document": ["d"] * 2,
    ...                                "system": ["A", "B"], "opponent": ["B", "A"], "score": [1.0, 0.0]}))
    1
    """
    table = as_ratings(ratings).without_checks()
    data, unit = table.data, get_method(detect_kind(table)).unit
    if unit == "pair":
        return len(data) // 2
    if unit == "tuple":
        return len(data.drop_duplicates(["annotator", "tuple_id"]))
    return len(data)


def detect_kind(ratings: Ratings | pd.DataFrame) -> Kind:
    """What a ratings table holds: ``pairwise``, ``bws``, ``ranking`` or ``likert`` (any rating scale).

    A table with an ``opponent`` column and scores in {0, 0.5, 1} is pairwise; one with a
    ``tuple_id`` column and scores in {−1, 0, 1} is best–worst; a ``rank`` response is a ranking.
    Attention-check rows are ignored.

    Examples
    --------
    >>> import pandas as pd
    >>> detect_kind(pd.DataFrame({"annotator": ["w"] * 2, "document": ["d"] * 2, "system": ["A", "B"],
    ...                           "opponent": ["B", "A"], "score": [1.0, 0.0]}))
    'pairwise'
    """
    data = ratings.without_checks().data if isinstance(ratings, Ratings) else ratings
    if isinstance(ratings, Ratings):
        response = ratings.response
    else:
        response = RANK if RANK in data and SCORE not in data else SCORE
    if lower_is_better(response):
        return get_method(RANK).table_kind
    if "score" not in data:
        return "likert"
    score = pd.to_numeric(data["score"], errors="coerce").dropna()
    if "opponent" in data and data["opponent"].notna().all() and score.isin([0, 0.5, 1]).all():
        return "pairwise"
    if "tuple_id" in data and data["tuple_id"].notna().all() and score.isin([-1, 0, 1]).all():
        return "bws"
    return "likert"


@dataclass(frozen=True, eq=False)
class Judgements:
    """Comparative judgements pooled into distinct choice events, with the clusters of every judgement.

    Attributes
    ----------
    kind, model:
        ``pairwise`` / ``bws`` / ``ranking`` and the model: ``bradley-terry``, ``davidson``,
        ``maxdiff`` or ``plackett-luce``.
    systems:
        System names; parameter j < S − 1 is the strength of ``systems[j + 1]`` against
        ``systems[0]``, a last parameter log ν for Davidson.
    features:
        (E, A, P) features of the alternatives of each distinct event (padding is masked).
    mask, chosen:
        (E, A) valid alternatives and (E,) the chosen one.
    incidence:
        Sparse (U, E): how often judgement u contributes event e.
    annotator, document, cell:
        (U,) cluster codes of each judgement: annotator, document (documents sharing a judgement
        are one cluster) and annotator × document cell.
    beats:
        (S, S) count of "i was preferred to j" implied by the judgements (existence of the MLE).
    means:
        Descriptive score per system: win rate (ties ½), best–worst counting score, or mean rank
        (1 = best).
    """

    kind: str
    model: str
    systems: tuple[str, ...]
    features: np.ndarray
    mask: np.ndarray
    chosen: np.ndarray
    incidence: csr_matrix
    annotator: np.ndarray
    document: np.ndarray
    cell: np.ndarray
    beats: np.ndarray
    means: pd.Series
    n_rows: int
    orders: tuple[tuple[int, ...], ...] | None = None

    @property
    def n_params(self) -> int:
        return self.features.shape[2]

    @property
    def n_judgements(self) -> int:
        return self.incidence.shape[0]

    @property
    def event_counts(self) -> np.ndarray:
        """(E,) how often each distinct event occurs in the data."""
        return np.asarray(self.incidence.sum(axis=0)).ravel()


def build_judgements(ratings: Ratings | pd.DataFrame, kind: str | None = None) -> Judgements:
    """Pool a pairwise, best–worst or ranking table (checks excluded) into :class:`Judgements`.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        A pairwise (``opponent``), best–worst (``tuple_id``) or ranking (``rank``) table.
    kind : {"pairwise", "bws", "ranking"}, optional
        Detected by :func:`detect_kind` when None.

    Returns
    -------
    Judgements
        ``systems``, ``beats`` (how often row beat column), ``n_judgements``, the ``model``
        (Bradley–Terry, Davidson with ties, Plackett–Luce or MaxDiff) and the cluster codes.

    Raises
    ------
    RatingsError
        A rating-scale table, or a malformed comparative one.

    Examples
    --------
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> judgements = build_judgements(simulate_pairwise_study([0.5, 0.0, -0.5], seed=1))
    >>> judgements.systems, judgements.model, judgements.n_judgements
    (('s0', 's1', 's2'), 'bradley-terry', 450)
    >>> judgements.beats.astype(int).tolist()
    [[0, 100, 109], [50, 0, 92], [41, 58, 0]]
    """
    ratings = as_ratings(ratings)
    kind = kind or detect_kind(ratings)
    table = ratings.without_checks()
    data = table.data
    unit = get_method(kind).unit
    if unit == "pair":
        return _pairwise(data)
    if unit == "tuple":
        return _bws(data)
    if unit == "document":
        if not lower_is_better(table.response):
            raise RatingsError("a Plackett–Luce analysis needs a 'rank' column (lower = better)")
        return _ranking(data, table.reported())
    raise RatingsError(
        "this table holds ratings on a scale, not comparative judgements: a pairwise table needs an "
        "'opponent' column with scores 1/0/0.5, a best–worst table a 'tuple_id' column with scores +1/−1/0"
    )


class _Builder:
    """Accumulates events (alternative features as tuples) and their judgement/cluster codes."""

    def __init__(self, systems: list[str], extra: int = 0):
        self.systems = systems
        self.index = {s: i for i, s in enumerate(systems)}
        self.n_params = len(systems) - 1 + extra
        self.keys: dict[tuple, int] = {}
        self.events: list[tuple[np.ndarray, int]] = []
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.beats = np.zeros((len(systems), len(systems)))

    def vector(self, weights: dict[int, float], extra: float = 0.0) -> np.ndarray:
        """Features of one alternative: system weights, then log ν; without the reference system,
        whose θ is 0 while fitting."""
        full = np.zeros(self.n_params + 1)
        for j, w in weights.items():
            full[j] += w
        if self.n_params >= len(self.systems):
            full[-1] = extra
        return full[1:]

    def add(self, unit: int, alternatives: list[np.ndarray], chosen: int) -> None:
        features = np.array(alternatives)
        key = (features.round(12).tobytes(), features.shape, chosen)
        if key not in self.keys:
            self.keys[key] = len(self.events)
            self.events.append((features, chosen))
        self.rows.append(unit)
        self.cols.append(self.keys[key])

    def finish(
        self,
        kind: str,
        model: str,
        units: pd.DataFrame,
        means: pd.Series,
        n_rows: int,
        orders: list[tuple[int, ...]] | None = None,
    ) -> Judgements:
        n_alt = max(f.shape[0] for f, _ in self.events)
        features = np.zeros((len(self.events), n_alt, self.n_params))
        mask = np.zeros((len(self.events), n_alt), dtype=bool)
        chosen = np.zeros(len(self.events), dtype=int)
        for e, (f, c) in enumerate(self.events):
            features[e, : len(f)] = f
            mask[e, : len(f)] = True
            chosen[e] = c
        n_units = len(units)
        incidence = coo_matrix(
            (np.ones(len(self.rows)), (self.rows, self.cols)), shape=(n_units, len(self.events))
        ).tocsr()
        annotator = pd.factorize(units["annotator"])[0]
        document = _document_clusters(units["documents"])
        cell = pd.factorize(pd.Series(list(zip(annotator, document, strict=True))))[0]
        return Judgements(
            kind=kind,
            model=model,
            systems=tuple(self.systems),
            features=features,
            mask=mask,
            chosen=chosen,
            incidence=incidence,
            annotator=annotator,
            document=document,
            cell=cell,
            beats=self.beats,
            means=means.reindex(self.systems),
            n_rows=n_rows,
            orders=None if orders is None else tuple(orders),
        )


def _document_clusters(documents: pd.Series) -> np.ndarray:
    """Cluster codes of judgements: documents that appear in one judgement together are one cluster."""
    names = sorted({d for docs in documents for d in docs})
    parent = {d: d for d in names}

    def root(d: str) -> str:
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d

    for docs in documents:
        first = root(docs[0])
        for other in docs[1:]:
            parent[root(other)] = first
    return pd.factorize(pd.Series([root(docs[0]) for docs in documents]))[0]


def _criterion_keys(data: pd.DataFrame) -> list[str]:
    return ["criterion"] if "criterion" in data else []


def _pairwise(data: pd.DataFrame) -> Judgements:
    score = pd.to_numeric(data["score"], errors="coerce")
    if score.isna().any() or not score.isin([0, 0.5, 1]).all():
        raise RatingsError("pairwise scores must be 1 (won), 0 (lost) or 0.5 (tie)")
    system, opponent = data["system"].astype(str), data["opponent"].astype(str).str.strip()
    if (system == opponent).any():
        raise RatingsError("a pairwise row compares a system with itself (system = opponent)")
    systems = sorted(set(system) | set(opponent))
    # one comparison = the row whose system sorts first; its mirror row (if present) must agree
    a, b = np.where(system < opponent, system, opponent), np.where(system < opponent, opponent, system)
    score_a = np.where(system < opponent, score, 1 - score)
    keys = ["annotator", "document", *_criterion_keys(data)]
    frame = data[keys].assign(a=a, b=b, score_a=score_a)
    agree = frame.groupby([*keys, "a", "b"], sort=False)["score_a"].agg(["min", "max"])
    if (agree["min"] != agree["max"]).any():
        bad = agree.index[agree["min"] != agree["max"]][0]
        raise RatingsError(
            f"the two rows of the comparison {bad[-2]} vs {bad[-1]} (annotator {bad[0]}, document {bad[1]}) "
            "disagree: their scores must add up to 1"
        )
    comparisons = agree.reset_index()
    ties = bool((comparisons["min"] == 0.5).any())
    builder = _Builder(systems, extra=1 if ties else 0)
    idx = builder.index
    orders: list[tuple[int, ...]] = []
    for u, row in enumerate(comparisons.itertuples(index=False)):
        i, j, s = idx[row.a], idx[row.b], row.min
        alternatives = [builder.vector({i: 1.0}), builder.vector({j: 1.0})]
        if ties:
            alternatives.append(builder.vector({i: 0.5, j: 0.5}, extra=1.0))
        builder.add(u, alternatives, 0 if s == 1 else 1 if s == 0 else 2)
        builder.beats[i, j] += s > 0
        builder.beats[j, i] += s < 1
        orders.append((i, j) if s == 1 else (j, i))
    units = pd.DataFrame(
        {"annotator": comparisons["annotator"], "documents": [[d] for d in comparisons["document"]]}
    )
    means = pd.Series(score.to_numpy(), index=system.to_numpy()).groupby(level=0).mean()
    model = "davidson" if ties else "bradley-terry"
    return builder.finish("pairwise", model, units, means, len(data), None if ties else orders)


def _bws(data: pd.DataFrame) -> Judgements:
    score = pd.to_numeric(data["score"], errors="coerce")
    if score.isna().any() or not score.isin([-1, 0, 1]).all():
        raise RatingsError("best–worst scores must be +1 (best), −1 (worst) or 0")
    systems = sorted(data["system"].astype(str).unique())
    builder = _Builder(systems)
    idx = builder.index
    keys = ["annotator", "tuple_id", *_criterion_keys(data)]
    units = []
    codes = data["system"].astype(str).map(idx).to_numpy()
    values, documents = score.to_numpy(), data["document"].astype(str).to_numpy()
    choices: dict[tuple[int, ...], tuple[list[tuple[int, int]], list[np.ndarray]]] = {}
    for u, (key, rows) in enumerate(data.groupby(keys, sort=False).indices.items()):
        rows = rows[np.argsort(codes[rows], kind="stable")]
        members = tuple(codes[rows].tolist())
        best, worst = np.flatnonzero(values[rows] == 1), np.flatnonzero(values[rows] == -1)
        if len(best) != 1 or len(worst) != 1 or len(members) < 2:
            raise RatingsError(
                f"tuple {key[1]} of annotator {key[0]} needs exactly one best (+1) and one worst (−1) "
                f"entry among at least 2; found {len(best)} best and {len(worst)} worst"
            )
        if members not in choices:
            pairs = [(p, q) for p in range(len(members)) for q in range(len(members)) if p != q]
            choices[members] = (
                pairs,
                [builder.vector({members[p]: 1.0}) - builder.vector({members[q]: 1.0}) for p, q in pairs],
            )
        pairs, alternatives = choices[members]
        builder.add(u, alternatives, pairs.index((int(best[0]), int(worst[0]))))
        b, w = members[best[0]], members[worst[0]]
        for m in members:
            if m != b:
                builder.beats[b, m] += 1
            if m != w:
                builder.beats[m, w] += 1
        units.append((key[0], list(dict.fromkeys(documents[rows]))))
    unit_frame = pd.DataFrame(units, columns=["annotator", "documents"])
    means = (
        pd.Series(score.to_numpy(float), index=data["system"].astype(str).to_numpy()).groupby(level=0).mean()
    )
    return builder.finish("bws", "maxdiff", unit_frame, means, len(data))


def _ranking(data: pd.DataFrame, reported: pd.Series) -> Judgements:
    systems = sorted(data["system"].astype(str).unique())
    builder = _Builder(systems)
    idx = builder.index
    keys = ["annotator", "document", *_criterion_keys(data)]
    codes = data["system"].astype(str).map(idx).to_numpy()
    all_ranks = reported.to_numpy(float)
    units = []
    orders: list[tuple[int, ...]] | None = []
    for u, (key, rows) in enumerate(data.groupby(keys, sort=False).indices.items()):
        rows = rows[np.argsort(codes[rows], kind="stable")]
        members, ranks = codes[rows], all_ranks[rows]
        if orders is not None and len(np.unique(ranks)) == len(ranks):
            orders.append(tuple(int(m) for m in members[np.argsort(ranks)]))
        else:
            orders = None
        remaining = list(range(len(members)))
        for level in np.unique(ranks)[:-1] if len(np.unique(ranks)) > 1 else []:
            tied = [k for k in remaining if ranks[k] == level]
            alternatives = [builder.vector({int(members[k]): 1.0}) for k in remaining]
            for k in tied:
                builder.add(u, alternatives, remaining.index(k))
            remaining = [k for k in remaining if ranks[k] != level]
            for k in tied:
                for m in remaining:
                    builder.beats[members[k], members[m]] += 1
        units.append((key[0], [str(key[1])]))
    unit_frame = pd.DataFrame(units, columns=["annotator", "documents"])
    means = reported.groupby(data["system"].astype(str).to_numpy()).mean()
    return builder.finish("ranking", "plackett-luce", unit_frame, means, len(data), orders)
