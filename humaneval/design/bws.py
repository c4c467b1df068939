"""Best–worst scaling tuples and their balance (docs/design.md).

Rules of Kiritchenko & Mohammad (2017): tuples of 4 (5 allowed), about 1.5N–2N tuples for N items, every
item about equally often and every pair of items about equally often together. The construction
(ours, deterministic given the generator): all k-subsets when there are few, else
the best of ``iterations`` greedy "least-used items first" candidates.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from itertools import combinations

import numpy as np

from humaneval.errors import DesignError


@dataclass(frozen=True)
class BWSBalance:
    """Appearances per item and pair co-occurrence of a set of tuples."""

    n_items: int
    n_tuples: int
    tuple_size: int
    appearances_min: int
    appearances_max: int
    pair_min: int
    pair_mean: float
    pair_max: int
    never_together: int

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def bws_tuples(
    n_items: int,
    tuple_size: int = 4,
    factor: float = 2.0,
    *,
    iterations: int = 200,
    rng: np.random.Generator,
) -> np.ndarray:
    """T = ⌈factor·N⌉ tuples of ``tuple_size`` distinct item indices 0..N−1, shape (T, k).

    1. If C(N, k) ≤ T every k-subset is used ⌊T/C⌋ or ⌈T/C⌉ times (random choice of the extras).
    2. Otherwise each of ``iterations`` candidates fills every tuple with the k least-used items,
       which keeps item appearances within one of each other. Among tied items it takes, one by
       one, the item least often together with those already chosen (random tie-break; a package
       refinement of a purely random tie-break), re-drawn up to 20 times to avoid
       repeating a tuple.
    3. The candidate minimising (max − min pair co-occurrence, never-together pairs, variance of
       co-occurrence) is kept.
    """
    if not 2 <= tuple_size < n_items:
        raise DesignError(f"BWS needs 2 ≤ tuple_size < N; got tuple_size={tuple_size}, N={n_items}")
    n_tuples = math.ceil(factor * n_items)
    n_subsets = math.comb(n_items, tuple_size)
    if n_subsets <= n_tuples:
        subsets = np.array(list(combinations(range(n_items), tuple_size)))
        base, extra = divmod(n_tuples, n_subsets)
        uses = np.full(n_subsets, base)
        uses[rng.choice(n_subsets, extra, replace=False)] += 1
        return np.repeat(subsets, uses, axis=0)[rng.permutation(n_tuples)]
    if iterations < 1:
        raise DesignError(f"BWS needs iterations ≥ 1; got {iterations}")
    best, best_key = None, None
    for _ in range(iterations):
        candidate = _greedy_candidate(n_items, tuple_size, n_tuples, rng)
        co = cooccurrence(candidate, n_items)[np.triu_indices(n_items, 1)]
        key = (int(co.max() - co.min()), int((co == 0).sum()), float(co.var()))
        if best_key is None or key < best_key:
            best, best_key = candidate, key
    assert best is not None  # iterations ≥ 1
    return best


def _greedy_candidate(n_items: int, k: int, n_tuples: int, rng: np.random.Generator) -> np.ndarray:
    used = np.zeros(n_items, dtype=int)
    co = np.zeros((n_items, n_items), dtype=int)
    seen: set[tuple[int, ...]] = set()
    tuples = np.empty((n_tuples, k), dtype=int)
    for t in range(n_tuples):
        cutoff = np.sort(used)[k - 1]
        for _ in range(20):
            chosen = list(np.flatnonzero(used < cutoff))
            tied = np.flatnonzero(used == cutoff)
            while len(chosen) < k:
                # among the tied least-used items, prefer those seldom together with the chosen ones
                together = co[np.ix_(tied, chosen)].sum(axis=1) if chosen else np.zeros(len(tied))
                pick = tied[np.lexsort((rng.random(len(tied)), together))[0]]
                chosen.append(pick)
                tied = tied[tied != pick]
            key = tuple(sorted(int(c) for c in chosen))
            if key not in seen:
                break
        seen.add(key)
        tuples[t] = key
        used[list(key)] += 1
        co[np.ix_(key, key)] += 1
    return tuples


def cooccurrence(tuples: np.ndarray, n_items: int) -> np.ndarray:
    """N×N matrix: how often items i ≠ j share a tuple (diagonal 0)."""
    incidence = np.zeros((len(tuples), n_items), dtype=int)
    np.put_along_axis(incidence, np.asarray(tuples), 1, axis=1)
    co = incidence.T @ incidence
    np.fill_diagonal(co, 0)
    return co


def bws_balance(tuples: np.ndarray, n_items: int) -> BWSBalance:
    """Balance statistics of ``tuples`` over items 0..N−1.

    Examples
    --------
    16 tuples of 4 out of 8 items: every item appears 16·4/8 = 8 times and the 96 pairs inside
    the tuples spread over the 28 item pairs (3.43 on average):

    >>> import numpy as np
    >>> tuples = bws_tuples(8, 4, rng=np.random.default_rng(1))
    >>> balance = bws_balance(tuples, 8)
    >>> tuples.shape, balance.appearances_min, balance.appearances_max, round(balance.pair_mean, 2)
    ((16, 4), 8, 8, 3.43)
    >>> balance.never_together
    0
    """
    tuples = np.asarray(tuples)
    appearances = np.bincount(tuples.ravel(), minlength=n_items)
    pairs = cooccurrence(tuples, n_items)[np.triu_indices(n_items, 1)]
    return BWSBalance(
        n_items=n_items,
        n_tuples=len(tuples),
        tuple_size=tuples.shape[1],
        appearances_min=int(appearances.min()),
        appearances_max=int(appearances.max()),
        pair_min=int(pairs.min()),
        pair_mean=float(pairs.mean()),
        pair_max=int(pairs.max()),
        never_together=int((pairs == 0).sum()),
    )
