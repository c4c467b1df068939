"""Vectorised paired tests for many comparisons at once (docs/simulation.md).

Every kernel takes paired differences ``delta`` of shape ``(..., n)`` (Δ_i = x_i − y_i over the n
pairing units of one comparison) and returns two-sided p-values of shape ``(...)``, so a whole
batch of trials × system pairs is tested in one call. The single-analysis versions live in
:mod:`humaneval.analysis.classic` (which runs the randomisation test through these kernels); the
simulation (:mod:`humaneval.simulate`) runs them on many trials at once. Both import them from
here, below either subpackage.
"""

from __future__ import annotations

import itertools

import numpy as np
from scipy import special

from humaneval.core.deprecation import renamed
from humaneval.errors import DesignError

#: Aggregation levels of the paired units (ratings, documents or clusters of documents).
AGGREGATES = ("none", "document", "cluster")
#: Relative tolerance under which T* and T count as tied.
TIE_TOLERANCE = 1e-12
#: Up to this many pairs the ART is run exactly over all 2^n sign patterns (see :func:`art_pvalues`).
EXACT_MAX_PAIRS = 10


def paired_t_pvalues(delta: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test, t = Δ̄ / (s_Δ/√n) on n−1 df, along the last axis.

    Equals ``scipy.stats.ttest_rel`` except in the degenerate cases, fixed here: all Δ_i = 0
    gives p = 1, constant non-zero Δ_i give p = 0; n < 2 gives NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> delta = np.array([[1.0, 2.0, 0.5, 1.5, 1.0, 2.0, 0.5, 1.0], [1.0, -1.0, 0.5, -0.5, 0, 0, 1, -1]])
    >>> np.allclose(paired_t_pvalues(delta), stats.ttest_1samp(delta, 0, axis=-1).pvalue)
    True
    >>> paired_t_pvalues(np.zeros((1, 5))).tolist()
    [1.0]
    """
    delta = np.asarray(delta, dtype=float)
    n = delta.shape[-1]
    if n < 2:
        return np.full(delta.shape[:-1], np.nan)
    mean = delta.mean(axis=-1)
    sd = delta.std(axis=-1, ddof=1)
    # spread below rounding noise of the mean counts as constant differences
    constant = sd <= 1e-12 * np.maximum(np.abs(mean), 1e-300)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    p = 2.0 * special.stdtr(n - 1, -np.abs(t))
    p = np.where(constant, np.where(mean == 0, 1.0, 0.0), p)
    return p


def random_signs(rng: np.random.Generator, n_permutations: int, n: int) -> np.ndarray:
    """A ``n_permutations × n`` matrix of independent fair ±1 signs (float32), unpacked from random bytes.

    It is the transpose of a C-contiguous ``n × n_permutations`` array, the layout BLAS wants in
    :func:`art_pvalues_from_signs`.
    """
    n_bytes = -(-n_permutations * n // 8)
    bits = np.unpackbits(np.frombuffer(rng.bytes(n_bytes), dtype=np.uint8), count=n_permutations * n)
    signs = bits.astype(np.float32)
    signs *= 2
    signs -= 1
    return signs.reshape(n, n_permutations).T


def _exact_in_float32(delta: np.ndarray) -> bool:
    """Integer differences whose sums stay below 2^24 are summed exactly in float32."""
    return bool(np.all(delta == np.round(delta)) and np.abs(delta).sum(axis=-1).max(initial=0) < 2**24)


def art_pvalues_from_signs(delta: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Noreen's approximate randomisation test with given sign flips.

    T = |Σ Δ_i|; each row of ``signs`` (R × n, shared by every comparison in ``delta``) gives
    T* = |Σ ε_i Δ_i|; p = (#{T* ≥ T} + 1)/(R + 1), ties within a relative 1e-12 counting.
    Comparisons sharing one sign matrix are dependent, but each p-value is a valid ART.
    Integer-valued Δ (scores, or per-unit totals of scores) run in exact float32 arithmetic,
    which is several times faster; anything else in float64.
    """
    delta = np.asarray(delta, dtype=float)
    observed = np.abs(delta.sum(axis=-1))
    if _exact_in_float32(delta):
        permuted = np.abs(delta.astype(np.float32) @ signs.T.astype(np.float32, copy=False))
    else:
        permuted = np.abs(delta @ signs.T.astype(np.float64))
    count = (permuted >= (observed * (1.0 - TIE_TOLERANCE))[..., None]).sum(axis=-1)
    return (count + 1.0) / (signs.shape[0] + 1.0)


def _all_sign_patterns(n: int) -> np.ndarray:
    return np.array(list(itertools.product((1.0, -1.0), repeat=n)))


def art_exact_pvalues(delta: np.ndarray) -> np.ndarray:
    """The exact randomisation p-value: the share of all 2^n sign patterns with T* ≥ T.

    The observed pattern and its mirror image both attain T, so p ≥ 2^(1−n)
    (:func:`min_attainable_p`); with 5 clusters no result can reach p < 0.05.

    Examples
    --------
    Eight differences of one sign: only the observed pattern and its mirror reach T, p = 2/2⁸.

    >>> import numpy as np
    >>> art_exact_pvalues(np.array([[1.0, 2.0, 0.5, 1.5, 1.0, 2.0, 0.5, 1.0]])).tolist()
    [0.0078125]
    """
    delta = np.asarray(delta, dtype=float)
    n = delta.shape[-1]
    if n > 20:
        raise DesignError(
            f"exact enumeration of 2^{n} sign patterns is too large; use art_pvalues (Monte-Carlo for n > "
            f"{EXACT_MAX_PAIRS})"
        )
    patterns = _all_sign_patterns(n)
    observed = np.abs(delta.sum(axis=-1))
    permuted = np.abs(delta @ patterns.T)
    count = (permuted >= (observed * (1.0 - TIE_TOLERANCE))[..., None]).sum(axis=-1)
    return count / float(patterns.shape[0])


@renamed(rounds="n_permutations")
def art_pvalues(
    delta: np.ndarray, n_permutations: int = 1000, seed: int | np.random.Generator | None = None
) -> np.ndarray:
    """Two-sided paired ART along the last axis: exact for n ≤ :data:`EXACT_MAX_PAIRS` pairs
    (2^n patterns cost no more than ``n_permutations`` random ones and avoid Monte-Carlo rejections
    below the floor 2^(1−n)), otherwise ``n_permutations`` Monte-Carlo sign patterns (formerly
    ``rounds``) with one sign matrix for the whole batch."""
    delta = np.asarray(delta, dtype=float)
    n = delta.shape[-1]
    if n <= EXACT_MAX_PAIRS:
        return art_exact_pvalues(delta)
    return art_pvalues_from_signs(delta, random_signs(np.random.default_rng(seed), n_permutations, n))


def min_attainable_p(n: int) -> float:
    """The smallest two-sided randomisation p-value with n pairs, 2^(1−n).

    Examples
    --------
    With 5 pairs no randomisation test can reach p < 0.05:

    >>> min_attainable_p(5)
    0.0625
    """
    return 2.0 ** (1 - n)
