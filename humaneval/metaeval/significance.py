"""Does metric A agree with humans better than metric B? Paired permutation, Williams, Fisher z.

The paired permutation test of Deutsch, Dror & Roth (2021), the Williams (1959) test for
dependent correlations and Fisher-z intervals with the constants of Bonett & Wright (2000);
see docs/metaeval.md.

The permutation test is vectorised. For Kendall's τ and pairwise accuracy, swapping metric
values cell by cell with indicator z (1 = swapped) gives A* = (1 − z)·A + z·B, and every pair
count is a quadratic form in z: with K_XY[u, v] = sign(H_u − H_v)·sign(X_u − Y_v),

    1ᵀK(A*)1 = (1−z)ᵀK_AA(1−z) + 2(1−z)ᵀK_AB z + zᵀK_BB z,

and B* is the same at 1 − z; so R permutations cost a few matrix products instead of R sign
matrices. For Kendall's τ and pairwise accuracy :mod:`humaneval.metaeval.swaps` goes further:
the difference of the two counts is linear in the swaps, so most tests need no quadratic form at
all. Pearson and Spearman are evaluated on the stacked permuted matrices directly.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
from scipy import stats

from humaneval.core.deprecation import caller_stacklevel, renamed
from humaneval.errors import DataWarning, InsufficientDataError, OptionError
from humaneval.metaeval.bootstrap import MAX_PAIR_MATRIX
from humaneval.metaeval.kernel import Coefficient, PairKernel, normalise_coefficient
from humaneval.metaeval.levels import measure, normalise_levels, per_document, system_means
from humaneval.metaeval.swaps import SwapDifference
from humaneval.metaeval.swaps import layout as _layout

Alternative = Literal["greater", "less", "two-sided"]


@dataclass(frozen=True)
class PermutationResult:
    """δ = EM(A, H) − EM(B, H) on z-scored data and its permutation p-value."""

    level: str
    delta: float
    p_value: float
    alternative: str
    method: str
    n_permutations: int
    coefficient: str

    def to_dict(self) -> dict:
        return asdict(self)


def _zscore(M: np.ndarray) -> np.ndarray:
    return (M - np.nanmean(M)) / np.nanstd(M)


def _signs(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(np.sign(X[:, :, None] - Y[:, None, :])).astype(np.float32)


def _matvec(K: np.ndarray, z: np.ndarray) -> np.ndarray:
    """K z per permutation r and group g: K (G, U, U), z (R, G, U) → (R, G, U)."""
    if K.shape[0] == 1:
        return (z[:, 0].astype(np.float32) @ K[0].T).astype(float)[:, None]
    return np.matmul(K.astype(float), z.transpose(1, 2, 0)).transpose(2, 0, 1)


class _SwapForms:
    """Pair-count matrices of H against A and B for one level, built once per test.

    With K_XY = (pair count of X values on the left, Y on the right), 1 the all-ones vector and
    z the swap indicators, the counts of A* = (1−z)A + zB and B* = zA + (1−z)B are

        F(A*) = 1ᵀK_AA1 − 2(K_AA1)·z + zᵀK_AA z + 2((K_ABᵀ1)·z − zᵀK_AB z) + zᵀK_BB z
        F(B*) = zᵀK_AA z + 2((K_AB1)·z − zᵀK_AB z) + 1ᵀK_BB1 − 2(K_BB1)·z + zᵀK_BB z

    (K_AA, K_BB symmetric), so each family costs three matrix products per chunk.
    """

    def __init__(self, H: np.ndarray, A: np.ndarray, B: np.ndarray, level: str, coefficient: str):
        if level != "acc" and coefficient not in ("kendall", "kendall_a"):
            raise OptionError("the permutation test supports kendall, kendall_a, pearson and spearman")
        self.level, self.coefficient = level, coefficient
        h, a, b = _layout(H, level), _layout(A, level), _layout(B, level)
        sH = _signs(h, h)
        pairs = {"AA": (a, a), "AB": (a, b), "BB": (b, b)}
        untied = {k: np.abs(_signs(*v)) for k, v in pairs.items()}
        self.families = {"conc": {k: sH * _signs(*v) for k, v in pairs.items()}}
        if level == "acc":
            self.families["both"] = {k: np.abs(sH) * v for k, v in untied.items()}
        elif coefficient == "kendall":
            self.families["untied"] = untied
        self.n_units = (~np.isnan(h)).sum(axis=1)
        self.untied_h = np.abs(sH).sum(axis=(1, 2))

    @staticmethod
    def _pair_counts(K: dict, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        kaa, kab, kbb = _matvec(K["AA"], z), _matvec(K["AB"], z), _matvec(K["BB"], z)
        row_aa, row_ab = K["AA"].sum(axis=2, dtype=float), K["AB"].sum(axis=2, dtype=float)
        col_ab, row_bb = K["AB"].sum(axis=1, dtype=float), K["BB"].sum(axis=2, dtype=float)
        zaa, zab, zbb = (z * kaa).sum(-1), (z * kab).sum(-1), (z * kbb).sum(-1)
        total_aa, total_bb = row_aa.sum(-1), row_bb.sum(-1)
        for_a = total_aa - 2 * (z * row_aa).sum(-1) + zaa + 2 * ((z * col_ab).sum(-1) - zab) + zbb
        for_b = zaa + 2 * ((z * row_ab).sum(-1) - zab) + total_bb - 2 * (z * row_bb).sum(-1) + zbb
        return for_a, for_b

    def __call__(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """EM(A*, H) and EM(B*, H) for swap indicators z (R, S, D)."""
        zz = _layout(z.astype(float), self.level)
        counts = {name: self._pair_counts(K, zz) for name, K in self.families.items()}
        results = []
        for side in (0, 1):
            c = counts["conc"][side]
            if self.level == "acc":
                results.append(((c + counts["both"][side]) / 2).sum(axis=1) / self.untied_h.sum())
                continue
            with np.errstate(invalid="ignore", divide="ignore"):
                if self.coefficient == "kendall":
                    value = c / np.sqrt(self.untied_h * counts["untied"][side])
                else:
                    value = c / (self.n_units * (self.n_units - 1))
            value = np.where(np.isfinite(value), value, np.nan)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                results.append(np.nanmean(value, axis=1))
        return results[0], results[1]


def _stacked(H, stack, level: str, coefficient: str) -> np.ndarray:
    """EM(P_r, H) for a stack of metric matrices (R, S, D), any coefficient."""
    R = stack.shape[0]
    if level == "sys":
        x, y = np.tile(system_means(H), (R, 1)), np.nanmean(stack, axis=2)
        return PairKernel(x, y).evaluate(np.ones((1, x.shape[1])), coefficient)["value"][0]
    if level == "acc":
        return np.array([measure(H, P, "acc").estimate for P in stack])
    h = _layout(H, level)
    x = np.tile(h, (R, 1))
    y = _layout(stack, level).reshape(-1, h.shape[1])
    values = PairKernel(x, y).evaluate(np.ones((1, h.shape[1])), coefficient)["value"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(values.reshape(R, h.shape[0]), axis=1)


def permutation_test(
    H: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    level: str = "pair",
    *,
    coefficient: Coefficient = "kendall",
    method: Literal["systems", "documents", "both"] = "both",
    n_permutations: int = 1000,
    alternative: Alternative = "greater",
    seed: int | np.random.Generator | None = None,
    plus_one: bool = True,
    chunk_size: int = 100,
) -> PermutationResult:
    """Paired permutation test of "metric A correlates better with H than metric B".

    A, B and H are z-scored globally; each permutation swaps A and B by system row (``systems``),
    document column (``documents``) or both (a cell is swapped iff exactly one of its coins came
    up). p = (1 + #{δ* ≥ δ})/(R + 1) (``plus_one``, our default), mirrored for ``less`` and
    with |δ| for ``two-sided``. Only cells where H, A and B are all present are used.

    Parameters
    ----------
    H, A, B : array-like
        Human scores and the two metrics' scores, systems × documents.
    level : {"sys", "sum", "pair", "intra", "acc"}
        The measure compared.
    coefficient : {"kendall", "kendall_a", "pearson", "spearman"}
        The correlation coefficient (a callable is refused).
    method : {"both", "systems", "documents"}
        What the swaps permute.
    n_permutations : int
        Permutation rounds R.
    alternative : {"greater", "less", "two-sided"}
        The alternative hypothesis about δ = m(H, A) − m(H, B).
    seed : int or Generator, optional
        Seed of the swaps.
    plus_one : bool
        Count the observed δ among the permutations.
    chunk_size : int
        Permutations evaluated at once (memory).

    Returns
    -------
    PermutationResult
        ``level``, ``delta``, ``p_value`` and the settings.

    Raises
    ------
    OptionError
        An unknown level, or a callable coefficient.
    InsufficientDataError
        The measure is undefined for A or B.

    References
    ----------
    Deutsch, D., Dror, R., & Roth, D. (2021). A statistical analysis of summarization evaluation
    metrics using resampling methods. TACL, 9, 1132–1146.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])  # 3 systems × 4 documents
    >>> P = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> B = np.array([[.4, .1, .3, .2], [.5, .2, .6, .1], [.3, .6, .2, .4]])
    >>> result = permutation_test(H, P, B, "sum", n_permutations=1000, seed=1)
    >>> round(result.delta, 3), round(result.p_value, 4)
    (0.883, 0.0569)
    """
    (level,) = normalise_levels([level])
    coefficient = normalise_coefficient(coefficient)
    if callable(coefficient):
        raise OptionError("the permutation test needs a named coefficient (kendall, pearson or spearman)")
    H, A, B = (np.asarray(M, dtype=float) for M in (H, A, B))
    present = ~(np.isnan(H) | np.isnan(A) | np.isnan(B))
    H, A, B = (np.where(present, _zscore(M), np.nan) for M in (H, A, B))
    delta = measure(H, A, level, coefficient).estimate - measure(H, B, level, coefficient).estimate
    if np.isnan(delta):
        raise InsufficientDataError(f"{level}: the measure is undefined for metric A or B; cannot test")
    rng = np.random.default_rng(seed)
    S, D = H.shape
    deltas = np.empty(n_permutations)
    large_sum = level == "sum" and H.size > MAX_PAIR_MATRIX
    shortcut = (
        SwapDifference.build(H, A, B, level, coefficient)
        if level == "acc" or (coefficient in ("kendall", "kendall_a") and level != "sys")
        else None
    )
    swap_forms = (
        _SwapForms(H, A, B, level, coefficient)
        if ((coefficient.startswith("kendall") and level != "sys") or level == "acc")
        and not large_sum
        and shortcut is None
        else None
    )
    for start in range(0, n_permutations, chunk_size):
        R = min(chunk_size, n_permutations - start)
        rows = rng.random((R, S, 1)) < 0.5 if method in ("systems", "both") else np.zeros((R, S, 1), bool)
        cols = rng.random((R, 1, D)) < 0.5 if method in ("documents", "both") else np.zeros((R, 1, D), bool)
        if shortcut is not None and shortcut.by_columns:  # stored (S, D, R): one column per round
            z = (rows[:, :, 0].T[:, None, :] ^ cols[:, 0, :].T[None, :, :]).transpose(2, 0, 1)
        else:
            z = rows ^ cols
        if shortcut is not None:
            deltas[start : start + R] = shortcut(z)
            continue
        if swap_forms is not None:
            em_a, em_b = swap_forms(z)
        elif large_sum and coefficient == "kendall":  # O(n log n) scipy Kendall per permutation
            em_a = np.array([measure(H, P, level, coefficient).estimate for P in np.where(z, B, A)])
            em_b = np.array([measure(H, P, level, coefficient).estimate for P in np.where(z, A, B)])
        else:
            em_a = _stacked(H, np.where(z, B, A), level, coefficient)
            em_b = _stacked(H, np.where(z, A, B), level, coefficient)
        deltas[start : start + R] = em_a - em_b
    p = resampling_p_value(deltas[~np.isnan(deltas)], delta, alternative, plus_one)
    return PermutationResult(level, float(delta), p, alternative, method, n_permutations, str(coefficient))


def resampling_p_value(deltas: np.ndarray, delta: float, alternative: str, plus_one: bool = True) -> float:
    """(1 + #{δ* at least as extreme as δ})/(R + 1), or #/R without ``plus_one`` (as nlpstats):
    δ* ≥ δ for ``greater``, δ* ≤ δ for ``less``, |δ*| ≥ |δ| for ``two-sided``."""
    if alternative == "greater":
        hits = np.sum(deltas >= delta - 1e-12)
    elif alternative == "less":
        hits = np.sum(deltas <= delta + 1e-12)
    else:
        hits = np.sum(np.abs(deltas) >= abs(delta) - 1e-12)
    return float((1 + hits) / (len(deltas) + 1) if plus_one else hits / len(deltas))


@dataclass(frozen=True)
class WilliamsResult:
    """Williams' t for r12 = corr(H, A) vs r13 = corr(H, B) given r23 = corr(A, B) on n units."""

    r12: float
    r13: float
    r23: float
    n: int
    K: float
    t: float
    df: int
    p_value: float
    alternative: str

    def to_dict(self) -> dict:
        return asdict(self)


def williams_test(
    r12: float, r13: float, r23: float, n: int, alternative: Alternative = "greater", absolute: bool = False
) -> WilliamsResult:
    """Williams test for dependent correlations sharing H.

    K = 1 − r12² − r13² − r23² + 2·r12·r13·r23,
    t = (r12 − r13)·sqrt((n−1)(1+r23)) / sqrt(2K(n−1)/(n−3) + ((r12+r13)²/4)(1−r23)³), df = n − 3.
    Exact in theory for Pearson only; for Kendall and Spearman it is an approximation. Signed
    correlations by default (our choice); ``absolute=True`` uses |r|. NaN (with a warning) when
    n ≤ 3 or K < 0.

    Parameters
    ----------
    r12, r13 : float
        Correlations of H with metric A and with metric B.
    r23 : float
        Correlation of the two metrics.
    n : int
        Number of paired observations.
    alternative : {"greater", "less", "two-sided"}
        The alternative about r12 − r13.
    absolute : bool
        Compare |r| instead of r.

    Returns
    -------
    WilliamsResult
        The inputs, ``K``, ``t``, ``df`` = n − 3 and ``p_value``.

    References
    ----------
    Williams, E. J. (1959). The comparison of regression variables. Journal of the Royal
    Statistical Society, Series B, 21(2), 396–399. Graham, Y., & Baldwin, T. (2014). Testing for
    significance of increased correlation with human judgment. EMNLP 2014.

    Examples
    --------
    >>> result = williams_test(0.6, 0.4, 0.5, 50)
    >>> round(result.K, 2), round(result.t, 4), result.df, round(result.p_value, 4)
    (0.47, 1.7051, 47, 0.0474)
    """
    if absolute:
        r12, r13, r23 = abs(r12), abs(r13), abs(r23)
    K = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    if n <= 3 or K < 0 or any(math.isnan(v) for v in (r12, r13, r23)):
        warnings.warn(
            f"Williams test undefined (n = {n}, K = {K:.4g})", DataWarning, stacklevel=caller_stacklevel()
        )
        return WilliamsResult(r12, r13, r23, n, K, math.nan, n - 3, math.nan, alternative)
    t = (r12 - r13) * math.sqrt((n - 1) * (1 + r23))
    t /= math.sqrt(2 * K * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3)
    df = n - 3
    if alternative == "greater":
        p = stats.t.sf(t, df)
    elif alternative == "less":
        p = stats.t.cdf(t, df)
    else:
        p = 2 * stats.t.sf(abs(t), df)
    return WilliamsResult(r12, r13, r23, n, K, float(t), df, float(p), alternative)


def williams_compare(
    H: np.ndarray,
    A: np.ndarray,
    B: np.ndarray,
    level: str = "sys",
    *,
    coefficient: Coefficient = "kendall",
    alternative: Alternative = "greater",
    absolute: bool = False,
    allow_input_level: bool = False,
) -> WilliamsResult:
    """Williams test of metric A vs metric B at a level: ``sys`` uses n = |S|, ``sum``
    n = complete cells; per-document ``pair`` has no single n and is refused unless
    ``allow_input_level`` (then n = the most complete cells of any document column, with a warning).

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])
    >>> A = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> B = np.array([[.4, .1, .3, .2], [.5, .2, .6, .1], [.3, .6, .2, .4]])
    >>> result = williams_compare(H, A, B, "sum")
    >>> result.n, round(result.r12, 3), round(result.r13, 3), round(result.p_value, 4)
    (12, 0.725, -0.158, 0.0211)
    """
    (level,) = normalise_levels([level])
    H, A, B = (np.asarray(M, dtype=float) for M in (H, A, B))
    present = ~(np.isnan(H) | np.isnan(A) | np.isnan(B))
    if level == "sys":
        n = int((~np.isnan(system_means(np.where(present, H, np.nan)))).sum())
    elif level == "sum":
        n = int(present.sum())
    elif level == "pair" and allow_input_level:
        n = int(present.sum(axis=0).max())
        warnings.warn(
            "Williams test on per-document averages: n is the largest document column (nlpstats convention)",
            DataWarning,
            stacklevel=caller_stacklevel(),
        )
    else:
        raise InsufficientDataError(
            f"the Williams test needs one n; level {level!r} has none (use sys or sum, or "
            "allow_input_level=True for pair)"
        )

    def r(X: np.ndarray, Y: np.ndarray) -> float:
        X, Y = np.where(present, X, np.nan), np.where(present, Y, np.nan)
        if level == "pair":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return float(np.nanmean(per_document(X, Y, coefficient)))
        return measure(X, Y, level, coefficient).estimate

    return williams_test(r(H, A), r(H, B), r(A, B), n, alternative, absolute)


FISHER_CONSTANTS = {"pearson": (3, None), "spearman": (3, None), "kendall": (4, math.sqrt(0.437))}


@renamed(confidence="confidence_level")
def fisher_ci(
    r: float, n: int, coefficient: str = "pearson", confidence_level: float = 0.95
) -> tuple[float, float]:
    """Fisher-z interval [tanh(z − h), tanh(z + h)], h = z_{1−α/2}·c/sqrt(n − b).

    Bonett & Wright (2000): Pearson b = 3, c = 1; Spearman b = 3, c = sqrt(1 + r²/2); Kendall
    b = 4, c = sqrt(0.437). NaN for n ≤ b; [r, r] for |r| = 1.

    Parameters
    ----------
    r : float
        The correlation.
    n : int
        Number of observations.
    coefficient : {"pearson", "spearman", "kendall"}
        Which correlation ``r`` is.
    confidence_level : float
        Of the interval (formerly ``confidence``).

    Returns
    -------
    tuple of float
        The interval's bounds.

    Raises
    ------
    OptionError
        A coefficient without Fisher-z constants.

    References
    ----------
    Bonett, D. G., & Wright, T. A. (2000). Sample size requirements for estimating Pearson,
    Kendall and Spearman correlations. Psychometrika, 65(1), 23–28.

    Examples
    --------
    The textbook interval of r = 0.5 from 50 observations:

    >>> [round(x, 3) for x in fisher_ci(0.5, 50)]
    [0.257, 0.683]
    >>> [round(x, 3) for x in fisher_ci(0.5, 50, "kendall")]
    [0.344, 0.629]
    """
    coefficient = normalise_coefficient(coefficient)
    if coefficient not in FISHER_CONSTANTS:
        raise OptionError(f"Fisher-z constants exist for pearson, spearman and kendall, not {coefficient!r}")
    b, c = FISHER_CONSTANTS[coefficient]
    c = c if c is not None else (math.sqrt(1 + r * r / 2) if coefficient == "spearman" else 1.0)
    if n <= b or math.isnan(r):
        return math.nan, math.nan
    if abs(r) >= 1:
        return float(r), float(r)
    half = stats.norm.ppf(1 - (1 - confidence_level) / 2) * c / math.sqrt(n - b)
    z = math.atanh(r)
    return math.tanh(z - half), math.tanh(z + half)


def holm(p_values) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values: sorted ascending, p_(i)·(m − i) made
    monotone by a running maximum and capped at 1."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    out = np.empty(m)
    out[order] = adjusted
    return out
