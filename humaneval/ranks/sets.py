"""Confidence sets for ranks: the stepwise parametric bootstrap of Mogstad, Romano, Shaikh & Wilhelm (2024).

The rank of population j is 1 + the number of populations with a larger θ. A confidence set for it
follows from simultaneous one-sided tests of the hypotheses H(j, k): θ_j ≤ θ_k over ordered pairs:
rejecting H(k, j) shows k is better than j (the lower bound rises), rejecting H(j, k) shows j is
better than k (the upper bound falls). The critical value of a set I of ordered pairs is the
1 − α quantile of max over (j, k) ∈ I of (Z_j − Z_k) / σ_jk with Z ~ N(0, Σ) (a parametric
bootstrap); the stepdown recomputes it over the pairs not yet rejected until nothing more is
rejected (Romano & Wolf 2005). A *marginal* set covers one population's rank (I: the pairs that
contain j), a *simultaneous* set all ranks at once (I: all ordered pairs). The τ-best set (the
populations that may be among the τ best) is {j : lower bound of the simultaneous set ≤ τ}.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from humaneval.errors import OptionError

KINDS = ("marginal", "simultaneous")
"""Kinds of rank confidence sets: one population's rank, or all ranks jointly."""

DEFAULT_DRAWS = 10_000
"""Bootstrap draws of the critical values (csranks defaults to 1,000, whose bounds vary between seeds)."""

MAX_DRAWS = 1_000_000

#: Standardised differences computed at once (draws × pairs), bounding the memory of a step to ~32 MB.
_CHUNK = 4_000_000


def ordered_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (j, k), j ≠ k, of ``n`` populations as two index arrays."""
    j, k = np.nonzero(~np.eye(n, dtype=bool))
    return j, k


def difference_sd(cov: np.ndarray) -> np.ndarray:
    """σ_jk = sd(θ̂_j − θ̂_k) for every pair, from the covariance of the estimates."""
    d = np.diag(cov)
    return np.sqrt(np.clip(d[:, None] + d[None, :] - 2.0 * cov, 0.0, None))


def draw_normal(cov: np.ndarray, draws: int, rng: np.random.Generator) -> np.ndarray:
    """``draws`` × n draws of N(0, cov); a singular (positive semi-definite) cov is allowed."""
    values, vectors = np.linalg.eigh(cov)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    return rng.standard_normal((draws, cov.shape[0])) @ root.T


def _max_statistic(z: np.ndarray, sd: np.ndarray, j: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per draw, max over the ordered pairs (j, k) of (Z_j − Z_k) / σ_jk."""
    step = max(1, _CHUNK // max(len(j), 1))
    scale = 1.0 / sd[j, k]
    out = np.empty(z.shape[0])
    for start in range(0, z.shape[0], step):
        block = z[start : start + step]
        out[start : start + step] = ((block[:, j] - block[:, k]) * scale).max(axis=1)
    return out


def stepdown(
    estimates: np.ndarray,
    sd: np.ndarray,
    z: np.ndarray,
    j: np.ndarray,
    k: np.ndarray,
    alpha: float,
) -> np.ndarray:
    """Which hypotheses θ_j ≤ θ_k, (j, k) the given ordered pairs, the stepdown rejects at level α.

    Parameters
    ----------
    estimates : ndarray
        θ̂ (higher = better).
    sd : ndarray
        σ_jk, the standard deviations of the differences (:func:`difference_sd`).
    z : ndarray
        Draws × populations from N(0, Σ) (:func:`draw_normal`).
    j, k : ndarray
        The ordered pairs tested together.
    alpha : float
        The family-wise error rate.

    Returns
    -------
    ndarray of bool
        One per pair: H(j, k) rejected, i.e. θ_j > θ_k is shown.
    """
    t = (estimates[j] - estimates[k]) / sd[j, k]
    rejected = np.zeros(len(j), dtype=bool)
    while not rejected.all():
        live = ~rejected
        critical = float(np.quantile(_max_statistic(z, sd, j[live], k[live]), 1.0 - alpha))
        new = live & (t > critical)
        if not new.any():
            break
        rejected |= new
    return rejected


def rank_bounds(
    estimates: np.ndarray,
    cov: np.ndarray,
    *,
    kind: str,
    alpha: float,
    draws: int,
    rng: np.random.Generator,
    indices: Sequence[int] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds of the rank confidence sets of ``indices`` (default: all).

    ``kind`` is ``marginal`` (each set covers its rank with probability ≥ 1 − α) or
    ``simultaneous`` (all sets of ``indices`` cover jointly). Rank 1 = the highest estimate.
    The arrays are validated by the caller (:func:`humaneval.ranks.rank_sets`).
    """
    if kind not in KINDS:
        raise OptionError(f"kind {kind!r} is unknown; use one of {', '.join(KINDS)}")
    n = len(estimates)
    chosen = np.arange(n) if indices is None else np.asarray(indices, dtype=int)
    sd = difference_sd(cov)
    z = draw_normal(cov, draws, rng)
    if kind == "simultaneous":
        j, k = ordered_pairs(n)
        keep = np.isin(j, chosen) | np.isin(k, chosen)
        better = np.zeros((n, n), dtype=bool)  # better[a, b]: θ_a > θ_b is shown
        better[j[keep], k[keep]] = stepdown(estimates, sd, z, j[keep], k[keep], alpha)
        return 1 + better[:, chosen].sum(axis=0), n - better[chosen, :].sum(axis=1)
    low, high = np.empty(len(chosen), dtype=int), np.empty(len(chosen), dtype=int)
    for i, target in enumerate(chosen):
        others = np.delete(np.arange(n), target)
        j = np.r_[np.full(n - 1, target), others]
        k = np.r_[others, np.full(n - 1, target)]
        shown = stepdown(estimates, sd, z, j, k, alpha)
        high[i] = n - shown[: n - 1].sum()
        low[i] = 1 + shown[n - 1 :].sum()
    return low, high
