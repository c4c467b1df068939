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

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix, csr_matrix

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.core.responses import lower_is_better
from humaneval.errors import RatingsError
from humaneval.io.tables import codes_of
from humaneval.methods import get_method
from humaneval.methods.kinds import detect_kind

#: The kinds analysed by :func:`humaneval.comparative.analyze_comparative`.
COMPARATIVE_KINDS = ("pairwise", "bws", "ranking")


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
        are one cluster) and annotator × document cell. Computed on first use (only the cluster
        bootstrap, the mixed model and the summaries need them) by ``clusters``.
    beats:
        (S, S) count of "i was preferred to j" implied by the judgements (existence of the MLE).
    means:
        Descriptive score per system: win rate (ties ½), best–worst counting score, or mean rank
        (1 = best).
    covariates:
        Names of the style covariates of a pairwise table (the last parameters, after log ν);
        with covariates every comparison is its own event.
    """

    kind: str
    model: str
    systems: tuple[str, ...]
    features: np.ndarray
    mask: np.ndarray
    chosen: np.ndarray
    incidence: csr_matrix
    beats: np.ndarray
    means: pd.Series
    n_rows: int
    clusters: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] = field(repr=False)
    covariates: tuple[str, ...] = ()

    @cached_property
    def _clusters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.clusters()

    @property
    def annotator(self) -> np.ndarray:
        return self._clusters[0]

    @property
    def document(self) -> np.ndarray:
        return self._clusters[1]

    @property
    def cell(self) -> np.ndarray:
        return self._clusters[2]

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


def build_judgements(
    ratings: Ratings | pd.DataFrame, kind: str | None = None, style: tuple[str, ...] = ()
) -> Judgements:
    """Pool a pairwise, best–worst or ranking table (checks excluded) into :class:`Judgements`.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        A pairwise (``opponent``), best–worst (``tuple_id``) or ranking (``rank``) table.
    kind : {"pairwise", "bws", "ranking"}, optional
        Detected by :func:`detect_kind` when None.
    style : tuple of str
        Columns of a pairwise table holding a style difference of the row's system over its
        opponent (e.g. the normalised length difference (len_a − len_b)/(len_a + len_b) of
        LMArena's style control; a mirror row holds its negative), entered as covariates:
        P(a ≻ b) = σ(θa − θb + γᵀd).

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
    if style and unit != "pair":
        raise RatingsError(f"style covariates are for pairwise tables, not {kind} tables")
    if unit == "pair":
        return _pairwise(data, tuple(style))
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
    """Accumulates best–worst events (alternative features as tuples) and their judgement codes."""

    def __init__(self, systems: list[str]):
        self.systems = systems
        self.index = {s: i for i, s in enumerate(systems)}
        self.n_params = len(systems) - 1
        self.keys: dict[tuple, int] = {}
        self.events: list[tuple[np.ndarray, int]] = []
        self.rows: list[int] = []
        self.cols: list[int] = []
        self.beats = np.zeros((len(systems), len(systems)))

    def vector(self, weights: dict[int, float]) -> np.ndarray:
        """Features of one alternative: system weights without the reference system, whose θ is 0
        while fitting."""
        full = np.zeros(self.n_params + 1)
        for j, w in weights.items():
            full[j] += w
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

        def clusters() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            annotator = pd.factorize(units["annotator"])[0]
            document = _document_clusters(units["documents"])
            cell = pd.factorize(pd.Series(list(zip(annotator, document, strict=True))))[0]
            return annotator, document, cell

        return Judgements(
            kind=kind,
            model=model,
            systems=tuple(self.systems),
            features=features,
            mask=mask,
            chosen=chosen,
            incidence=incidence,
            clusters=clusters,
            beats=self.beats,
            means=means.reindex(self.systems),
            n_rows=n_rows,
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


def _text_codes(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes and names of an id column as text (a validated table's categorical: its own codes, its
    unused categories left out)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, names = codes_of(column)
        used = np.bincount(codes[codes >= 0], minlength=len(names)) > 0
        if not used.all():
            codes = np.append(np.cumsum(used) - 1, -1)[codes]
            names = names[used]
        return codes, pd.Index(names.astype(str))
    codes, names = pd.factorize(column.astype(str))
    return codes, pd.Index(names)


def _clusters_of(annotator: np.ndarray, document: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Annotator, document and annotator × document codes of the judgements, numbered by appearance."""
    annotator, document = pd.factorize(annotator)[0], pd.factorize(document)[0]
    cell = pd.factorize(annotator.astype(np.int64) * (int(document.max(initial=0)) + 1) + document)[0]
    return annotator, document, cell


def _criterion_keys(data: pd.DataFrame) -> list[str]:
    return ["criterion"] if "criterion" in data else []


def _pairwise(data: pd.DataFrame, style: tuple[str, ...] = ()) -> Judgements:
    """Vectorised: comparisons are keyed by integer codes, events by (first, second, outcome);
    with ``style`` covariates each comparison is its own event."""
    score = pd.to_numeric(data["score"], errors="coerce").to_numpy(dtype=float)
    if np.isnan(score).any() or not np.isin(score, [0, 0.5, 1]).all():
        raise RatingsError("pairwise scores must be 1 (won), 0 (lost) or 0.5 (tie)")
    sys_code, sys_names = _text_codes(data["system"])
    opp_code, opp_names = _text_codes(data["opponent"])
    opp_names = opp_names.str.strip()
    systems = sorted(set(sys_names) | set(opp_names))
    n_sys = len(systems)
    lookup = pd.Index(systems)
    sys_code, opp_code = lookup.get_indexer(sys_names)[sys_code], lookup.get_indexer(opp_names)[opp_code]
    if (sys_code == opp_code).any():
        raise RatingsError("a pairwise row compares a system with itself (system = opponent)")
    # one comparison = the row whose system sorts first; its mirror row (if present) must agree
    first = sys_code < opp_code
    a, b = np.where(first, sys_code, opp_code), np.where(first, opp_code, sys_code)
    score_a = np.where(first, score, 1 - score)
    keys = ["annotator", "document", *_criterion_keys(data)]
    key_codes = [codes_of(data[k])[0] for k in keys]
    kept = np.all([c >= 0 for c in key_codes], axis=0)  # rows with a missing key form no comparison
    group, first_row = _comparisons(key_codes, a, b, kept)
    n_comp = int(group.max()) + 1 if group.size else 0
    rows = np.flatnonzero(kept)
    head = np.zeros(n_comp, dtype=np.int64)
    head[group[rows][::-1]] = rows[::-1]  # the first row of each comparison
    low = score_a[head]
    mirrors = rows[first_row[rows] != rows]
    disagree = mirrors[score_a[mirrors] != score_a[first_row[mirrors]]]
    if disagree.size:
        row = int(head[group[disagree].min()])
        raise RatingsError(
            f"the two rows of the comparison {systems[a[row]]} vs {systems[b[row]]} (annotator "
            f"{data[keys[0]].iloc[row]}, document {data[keys[1]].iloc[row]}) "
            "disagree: their scores must add up to 1"
        )
    i, j, s = a[head], b[head], low
    ties = bool((s == 0.5).any())
    outcome = np.where(s == 1, 0, np.where(s == 0, 1, 2))
    difference = _style_differences(data, style, first, group, rows, n_comp)
    if style:
        event, event_keys = np.arange(n_comp), (i * n_sys + j) * 3 + outcome
    else:
        event, event_keys = _factorize_small((i * n_sys + j) * 3 + outcome, n_sys * n_sys * 3)
    event_i, event_j, chosen = event_keys // 3 // n_sys, event_keys // 3 % n_sys, event_keys % 3
    n_par = n_sys - 1 + ties
    features = np.zeros((len(event_keys), 3 if ties else 2, n_par + 1 + len(style)))
    rank = np.arange(len(event_keys))
    features[rank, 0, event_i] = 1.0
    features[rank, 1, event_j] = 1.0
    if ties:
        features[rank, 2, event_i] = features[rank, 2, event_j] = 0.5
        features[:, 2, n_par] = 1.0
    if style:  # only differences matter: the first system's alternative carries d, a tie d/2
        features[:, 0, n_par + 1 :] = difference
        if ties:
            features[:, 2, n_par + 1 :] = difference / 2
    beats = np.bincount(i * n_sys + j, s > 0, minlength=n_sys * n_sys).reshape(n_sys, n_sys)
    beats = beats + np.bincount(j * n_sys + i, s < 1, minlength=n_sys * n_sys).reshape(n_sys, n_sys)
    incidence = csr_matrix((np.ones(n_comp), (np.arange(n_comp), event)), shape=(n_comp, len(event_keys)))
    with np.errstate(invalid="ignore"):  # a system only ever listed as the opponent has no mean
        rate = np.bincount(sys_code, score, n_sys) / np.bincount(sys_code, minlength=n_sys)
    means = pd.Series(rate, systems)
    return Judgements(
        kind="pairwise",
        model="davidson" if ties else "bradley-terry",
        systems=tuple(systems),
        features=features[:, :, 1:],
        mask=np.ones(features.shape[:2], dtype=bool),
        chosen=chosen.astype(int),
        incidence=incidence,
        clusters=lambda: _clusters_of(key_codes[0][head], key_codes[1][head]),
        beats=beats.astype(float),
        means=means.reindex(systems),
        n_rows=len(data),
        covariates=style,
    )


def _comparisons(
    key_codes: list[np.ndarray], a: np.ndarray, b: np.ndarray, kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The comparison of every kept row (−1 for the others), numbered by first appearance as
    ``pd.factorize`` of the (keys, pair) key would, and the first row of each row's comparison.

    A comparison's rows share annotator, document (``key_codes[1]``), criterion and pair of systems.
    Rows alone in their document (arena votes: one prompt, one comparison) are their own comparison
    and are not hashed; the others are keyed by their codes in mixed radix."""
    n = kept.size
    first_row = np.arange(n)
    doc = key_codes[1]
    per_doc = np.bincount(doc[kept], minlength=1)
    shared = np.flatnonzero(kept)
    shared = shared[per_doc[doc[shared]] > 1]
    if shared.size:
        combined, bound = np.zeros(shared.size, dtype=np.int64), 1
        for c in [*(k[shared] for k in key_codes), a[shared], b[shared]]:
            width = int(c.max()) + 1
            if bound * width >= 2**62:  # renumber before the mixed-radix key could overflow
                combined, uniques = pd.factorize(combined)
                bound = len(uniques)
            combined, bound = combined * width + c, bound * width
        sub = pd.factorize(combined)[0]
        head = np.zeros(int(sub.max()) + 1, dtype=np.int64)
        head[sub[::-1]] = shared[::-1]
        first_row[shared] = head[sub]
    starts = np.zeros(n, dtype=bool)
    starts[first_row[kept]] = True
    group = np.full(n, -1, dtype=np.int64)
    group[kept] = (np.cumsum(starts) - 1)[first_row[kept]]
    return group, first_row


def _factorize_small(keys: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize`` of non-negative integers below ``size``, by counting when ``size`` is small."""
    if size > 4 * keys.size + 65536:
        return pd.factorize(keys)
    first = np.full(size, keys.size, dtype=np.int64)
    first[keys[::-1]] = np.arange(keys.size)[::-1]
    present = np.flatnonzero(first < keys.size)
    uniques = present[np.argsort(first[present], kind="stable")]
    code = np.zeros(size, dtype=np.int64)
    code[uniques] = np.arange(uniques.size)
    return code[keys], uniques


def _style_differences(
    data: pd.DataFrame, style: tuple[str, ...], first: np.ndarray, group: np.ndarray, rows, n_comp: int
) -> np.ndarray:
    """(comparisons, covariates) style differences of each comparison's first system; the rows of
    one comparison must agree (a mirror row holds the negative difference)."""
    out = np.zeros((n_comp, len(style)))
    for k, column in enumerate(style):
        if column not in data:
            raise RatingsError(
                f"style column {column!r} is not in the table; columns: {', '.join(map(str, data.columns))}"
            )
        values = pd.to_numeric(data[column], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(values).all():
            bad = int(np.flatnonzero(~np.isfinite(values))[0])
            raise RatingsError(
                f"style column {column!r}: row {bad} is not a number; give every comparison its "
                "style difference (the row's system minus its opponent)"
            )
        oriented = np.where(first, values, -values)[rows]
        low, high = np.full(n_comp, np.inf), np.full(n_comp, -np.inf)
        np.minimum.at(low, group[rows], oriented)
        np.maximum.at(high, group[rows], oriented)
        if (high - low > 1e-9 * (1 + np.abs(high))).any():
            raise RatingsError(
                f"style column {column!r}: the two rows of a comparison disagree; it holds the "
                "difference of the row's system over its opponent, so a mirror row holds its negative"
            )
        out[:, k] = low
    return out


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
    """Vectorised: every summary ranked above the last level of its ranking is chosen from those
    ranked at or below it; the event is keyed by that set (a bit mask of systems) and the choice."""
    codes, names = _text_codes(data["system"])
    systems = sorted(names)
    n_sys = len(systems)
    codes = pd.Index(systems).get_indexer(names)[codes]
    ranks = reported.to_numpy(float)
    keys = ["annotator", "document", *_criterion_keys(data)]
    key_codes = [codes_of(data[k])[0] for k in keys]
    kept = np.flatnonzero(np.all([c >= 0 for c in key_codes], axis=0))
    unit = pd.MultiIndex.from_arrays([c[kept] for c in key_codes]).factorize()[0]
    n_units = int(unit.max()) + 1 if unit.size else 0
    order = np.lexsort((codes[kept], ranks[kept], unit))  # by ranking, best level first
    rows, unit = kept[order], unit[order]
    level = ranks[rows]
    # the systems ranked at or below each row's level: suffix sums of bits within its ranking
    n_words = (n_sys + 61) // 62
    bits = np.zeros((rows.size, n_words), dtype=np.int64)
    bits[np.arange(rows.size), codes[rows] // 62] = np.left_shift(1, codes[rows] % 62)
    new_unit = np.r_[True, unit[1:] != unit[:-1]]
    new_level = new_unit | np.r_[True, level[1:] != level[:-1]]
    from_end = np.vstack([np.cumsum(bits[::-1], axis=0)[::-1], np.zeros((1, n_words), dtype=np.int64)])
    unit_end = np.r_[np.flatnonzero(new_unit)[1:], rows.size]
    starts = np.flatnonzero(new_level)[np.cumsum(new_level) - 1]
    ends = unit_end[np.cumsum(new_unit) - 1]
    remaining = from_end[starts] - from_end[ends]
    last_level = level == level[ends - 1]
    chooses = np.flatnonzero(~last_level)
    event_key = pd.MultiIndex.from_arrays([*remaining[chooses].T, codes[rows[chooses]]])
    event, uniques = event_key.factorize()
    sets = np.array([list(k[:-1]) for k in uniques], dtype=np.int64).reshape(len(uniques), n_words)
    chosen_sys = np.array([k[-1] for k in uniques], dtype=np.int64)
    member = (sets[:, np.arange(n_sys) // 62] >> (np.arange(n_sys) % 62)) & 1 == 1  # (E, S)
    n_alt = int(member.sum(axis=1).max(initial=1))
    slot = np.cumsum(member, axis=1) - 1
    features = np.zeros((len(uniques), n_alt, n_sys))
    e_idx, s_idx = np.nonzero(member)
    features[e_idx, slot[e_idx, s_idx], s_idx] = 1.0
    mask = np.zeros((len(uniques), n_alt), dtype=bool)
    mask[e_idx, slot[e_idx, s_idx]] = True
    chosen = slot[np.arange(len(uniques)), chosen_sys]
    incidence = csr_matrix((np.ones(chooses.size), (unit[chooses], event)), shape=(n_units, len(uniques)))
    incidence.sum_duplicates()
    # i preferred to j: i chosen while j still remained, j not tied with i
    pairs = pd.DataFrame({"unit": unit, "code": codes[rows], "level": level})
    joined = pairs.merge(pairs, on="unit", suffixes=("", "_o"))
    joined = joined[joined["level"] < joined["level_o"]]
    beats = np.bincount(
        joined["code"].to_numpy() * n_sys + joined["code_o"].to_numpy(), minlength=n_sys * n_sys
    ).reshape(n_sys, n_sys)
    head = rows[np.flatnonzero(new_unit)]
    unit_rows = np.zeros(n_units, dtype=np.int64)
    unit_rows[unit[new_unit]] = head
    means = reported.groupby(data["system"].astype(str).to_numpy()).mean()
    return Judgements(
        kind="ranking",
        model="plackett-luce",
        systems=tuple(systems),
        features=features[:, :, 1:],
        mask=mask,
        chosen=chosen,
        incidence=incidence,
        clusters=lambda: _clusters_of(key_codes[0][unit_rows], key_codes[1][unit_rows]),
        beats=beats.astype(float),
        means=means.reindex(systems),
        n_rows=len(data),
    )
