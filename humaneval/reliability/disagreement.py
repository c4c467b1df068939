"""Observed and expected disagreement of Krippendorff's α: fast paths and the explicit matrix path.

See docs/reliability.md. All functions take *pairable* values only: ``unit`` holds
compact codes ``0..U-1`` of units with at least two values (see :func:`pairable`), ``x`` the
values as float64. With :math:`n_{\\cdot\\cdot}` pairable values,

- nominal: :math:`D_o=\\frac1{n}\\sum_u\\frac{m_u^2-\\sum_c n_{uc}^2}{m_u-1}`,
  :math:`D_e=\\frac{n^2-\\sum_c n_c^2}{n(n-1)}` — :math:`O(N)`;
- interval: :math:`D_o=\\frac2n\\sum_u m_u s_u^2`, :math:`D_e=2s^2` (two-pass centred sums);
- ordinal: the interval formulas on mid-ranks :math:`M_c=\\sum_{g<c}n_g+n_c/2`, which turns
  eq. 3.12 into :math:`\\delta_{ck}=(M_k-M_c)^2` — :math:`O(N\\log N)`;
- ratio: :math:`D_o` from within-unit pairs, :math:`D_e` in row blocks of distinct values;
- the explicit path builds the coincidence matrix :math:`o_{ck}` (eqs. 3.9–3.11) from a sparse
  unit × value count matrix and applies a V×V distance matrix.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
from scipy import sparse

from humaneval.core.deprecation import caller_stacklevel
from humaneval.errors import ReliabilityWarning

LEVELS = ("nominal", "ordinal", "interval", "ratio")
RATIO_WARN_VALUES = 50_000
_BLOCK = 1024
_PAIR_CHUNK = 4_000_000


def pairable(unit: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Mask of the values in units with ≥ 2 values, their compact unit codes, and the number of
    units dropped (those with exactly one value)."""
    m = np.bincount(unit)
    keep_unit = m >= 2
    keep = keep_unit[unit]
    compact = np.cumsum(keep_unit) - 1
    return keep, compact[unit[keep]], int((m == 1).sum())


def distinct(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct values, the code of every value, and the count of every distinct value.

    Small integer ranges (Likert scales, ranks) use a counting pass instead of a sort.
    """
    if len(x):
        low, high = x.min(), x.max()
        if high - low < 1_000_000 and np.array_equal(x, np.round(x)):
            offset = (x - low).astype(np.int64)
            counts = np.bincount(offset)
            present = np.flatnonzero(counts)
            remap = np.cumsum(counts > 0) - 1
            return present + low, remap[offset], counts[present]
    values, codes, counts = np.unique(x, return_inverse=True, return_counts=True)
    return values, codes.ravel(), counts


def midranks(counts: np.ndarray) -> np.ndarray:
    """Mid-rank :math:`M_c=\\sum_{g<c}n_g+n_c/2` of every distinct value (eq. 3.12)."""
    return np.cumsum(counts) - counts / 2.0


def interval_disagreement(unit: np.ndarray, x: np.ndarray) -> tuple[float, float]:
    """:math:`(D_o, D_e)` for squared differences, from within-unit and total variances."""
    n = len(x)
    m = np.bincount(unit)
    mean_u = np.bincount(unit, x) / m
    dev = x - mean_u[unit]
    ss_u = np.bincount(unit, dev * dev)
    within = float(np.sum(m * ss_u / (m - 1)))
    centred = x - x.mean()
    ss_total = float(centred @ centred)
    return 2.0 * within / n, 2.0 * ss_total / (n - 1)


def nominal_disagreement(unit: np.ndarray, codes: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """:math:`(D_o, D_e)` for the nominal distance from per-unit category counts :math:`n_{uc}`."""
    n = len(codes)
    m = np.bincount(unit)
    n_values = len(counts)
    keys = unit * n_values + codes
    if len(m) * n_values <= 20_000_000:
        n_uc = np.bincount(keys)
        key_unit = np.arange(len(n_uc)) // n_values
    else:
        uniq, n_uc = np.unique(keys, return_counts=True)
        key_unit = uniq // n_values
    sumsq_u = np.bincount(key_unit, n_uc.astype(float) ** 2, minlength=len(m))
    d_o = float(np.sum((m.astype(float) ** 2 - sumsq_u) / (m - 1))) / n
    d_e = (n * n - float(np.sum(counts.astype(float) ** 2))) / (n * (n - 1))
    return d_o, d_e


def ratio_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:math:`((a-b)/(a+b))^2` with :math:`\\delta(0,0)=0`."""
    total = a + b
    with np.errstate(invalid="ignore", divide="ignore"):
        d = ((a - b) / total) ** 2
    return np.where(total == 0, 0.0, d)


def pair_distance(level: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The distance of each value pair for a built-in level (ordinal on mid-ranks)."""
    if level == "nominal":
        return (a != b).astype(float)
    if level in ("interval", "ordinal"):
        return (a - b) ** 2
    return ratio_distance(a, b)


def ordered_pairs(unit: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, float]]:
    """Indices ``(i, j)`` of all ordered pairs of distinct values within each unit, in chunks,
    with the weight :math:`1/(m_u-1)` of the chunk's unit size."""
    order = np.argsort(unit, kind="stable")
    m = np.bincount(unit)
    starts = np.concatenate([[0], np.cumsum(m)[:-1]])
    for size in np.unique(m[m >= 2]):
        units = np.flatnonzero(m == size)
        ii, jj = np.nonzero(~np.eye(size, dtype=bool))
        per_chunk = max(1, _PAIR_CHUNK // len(ii))
        for lo in range(0, len(units), per_chunk):
            base = starts[units[lo : lo + per_chunk]][:, None]
            yield order[(base + ii).ravel()], order[(base + jj).ravel()], 1.0 / (size - 1)


def ratio_disagreement(unit: np.ndarray, x: np.ndarray, values: np.ndarray, counts: np.ndarray):
    """:math:`(D_o, D_e)` at the ratio level; :math:`D_e` in row blocks so memory is O(V)."""
    n = len(x)
    if len(values) > RATIO_WARN_VALUES:
        warnings.warn(
            f"ratio α over {len(values)} distinct values: the expected disagreement costs O(V²) time",
            ReliabilityWarning,
            stacklevel=caller_stacklevel(),
        )
    observed = sum(w * float(ratio_distance(x[i], x[j]).sum()) for i, j, w in ordered_pairs(unit))
    weights = counts.astype(float)
    expected = 0.0
    for lo in range(0, len(values), _BLOCK):
        block = ratio_distance(values[lo : lo + _BLOCK, None], values[None, :])
        expected += float(weights[lo : lo + _BLOCK] @ block @ weights)
    return observed / n, expected / (n * (n - 1))


def coincidences(unit: np.ndarray, codes: np.ndarray, n_values: int) -> np.ndarray:
    """The V×V coincidence matrix :math:`o_{ck}=\\sum_u (n_{uc}n_{uk}-[c=k]n_{uc})/(m_u-1)`."""
    m = np.bincount(unit)
    scale = 1.0 / (m - 1)
    if len(m) * n_values <= 20_000_000:
        counts = np.bincount(unit * n_values + codes, minlength=len(m) * n_values).reshape(len(m), n_values)
        weighted = counts * scale[:, None]
        o = weighted.T @ counts
        diagonal = weighted.sum(axis=0)
    else:
        counts = sparse.csr_matrix(
            (np.ones(len(codes)), (unit, codes)), shape=(len(m), n_values), dtype=float
        )
        weighted = sparse.diags(scale) @ counts
        o = (weighted.T @ counts).toarray()
        diagonal = np.asarray(weighted.sum(axis=0)).ravel()
    o[np.diag_indices(n_values)] -= diagonal
    return o


def delta_matrix(level: str, values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The V×V distance matrix of a built-in level over the sorted distinct values; ordinal
    uses eq. 3.12, :math:`(\\sum_{g=c}^k n_g-(n_c+n_k)/2)^2`, written with cumulative sums."""
    if level == "nominal":
        return 1.0 - np.eye(len(values))
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(counts, dtype=float)])
        c, k = np.meshgrid(np.arange(len(values)), np.arange(len(values)), indexing="ij")
        low, high = np.minimum(c, k), np.maximum(c, k)
        between = cum[high + 1] - cum[low]
        return (between - (counts[c] + counts[k]) / 2.0) ** 2
    return pair_distance(level, values[:, None], values[None, :])


def matrix_disagreement(o: np.ndarray, counts: np.ndarray, delta: np.ndarray) -> tuple[float, float]:
    """:math:`D_o=\\frac1n\\sum o_{ck}\\delta_{ck}` and
    :math:`D_e=\\frac1{n(n-1)}\\sum n_c(n_k-[c=k])\\delta_{ck}`."""
    n = float(counts.sum())
    nc = counts.astype(float)
    expected = np.outer(nc, nc) - np.diag(nc)
    return float((o * delta).sum()) / n, float((expected * delta).sum()) / (n * (n - 1))
