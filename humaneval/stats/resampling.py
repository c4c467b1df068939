"""Bootstrap intervals shared by reliability and the report, and the rule for when they mean nothing.

Two entry points, both on :func:`scipy.stats.bootstrap` machinery:

- :func:`cluster_bootstrap` resamples whole independent clusters (blocks, documents) with
  replacement and returns a percentile or BCa interval of a (possibly vector-valued) statistic of
  the drawn clusters — the cluster bootstrap of Field & Welsh (2007) that the report uses for
  system means;
- :func:`percentile_interval` is the percentile interval of a bootstrap distribution computed
  elsewhere (Krippendorff's KALPHA resamples coincidences, not units, so it cannot go through
  :func:`scipy.stats.bootstrap`).

A bootstrap over C clusters can only produce :math:`\\binom{2C-1}{C}` distinct resamples (3 for
two blocks), so its percentiles are not an interval estimate when C is small.
:func:`cluster_caveat` says so in one sentence: below :data:`MIN_INTERVAL_CLUSTERS` no interval
is computed at all; below :data:`FEW_CLUSTERS` the interval is shown with a warning that it is
rough and tends to be too narrow (percentile intervals undercover with few clusters; Cameron,
Gelbach & Miller 2008).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb

import numpy as np
from scipy import stats

from humaneval.core.deprecation import renamed, renamed_attribute
from humaneval.errors import OptionError

#: Fewest independent clusters for which a cluster-bootstrap interval is computed at all.
MIN_INTERVAL_CLUSTERS = 5
#: Below this many clusters an interval is shown with a warning that it is rough.
FEW_CLUSTERS = 15
METHODS = ("percentile", "bca")


@dataclass(frozen=True, eq=False)
class ClusterInterval:
    """``low``/``high`` per component of the statistic (NaN when not computed), the resampled
    distribution (components × resamples, empty when not computed) and why it is missing or rough."""

    low: np.ndarray
    high: np.ndarray
    distribution: np.ndarray
    n_clusters: int
    method: str
    confidence_level: float
    caveat: str | None

    confidence = renamed_attribute("confidence", "confidence_level")

    @property
    def computed(self) -> bool:
        return self.n_clusters >= MIN_INTERVAL_CLUSTERS


def cluster_caveat(n_clusters: int, unit: str = "block") -> str | None:
    """One sentence on how far a cluster-bootstrap interval over ``n_clusters`` can be trusted;
    ``None`` when there are enough clusters."""
    units = f"{n_clusters} independent {unit}" + ("" if n_clusters == 1 else "s")
    if n_clusters < MIN_INTERVAL_CLUSTERS:
        distinct = distinct_resamples(n_clusters)
        return (
            f"only {units}: a bootstrap over them has {distinct} distinct resample"
            f"{'' if distinct == 1 else 's'}, which is no interval estimate, so no interval is given "
            f"(it needs at least {MIN_INTERVAL_CLUSTERS} {unit}s)"
        )
    if n_clusters < FEW_CLUSTERS:
        return (
            f"only {units} to resample: the interval is rough and tends to be too narrow "
            f"(aim for at least {FEW_CLUSTERS} {unit}s)"
        )
    return None


@renamed(confidence="confidence_level")
def cluster_bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    n_clusters: int,
    *,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    rng: np.random.Generator | None = None,
    unit: str = "block",
) -> ClusterInterval:
    """Interval of ``statistic`` over resamples of ``n_clusters`` independent clusters.

    Parameters
    ----------
    statistic
        Maps cluster indices of shape ``(..., n_clusters)`` (the drawn clusters, repeats allowed)
        to the statistic with the components first and the resamples last: ``(k, ...)``. It must
        accept the identity draw ``np.arange(n_clusters)`` (BCa's jackknife uses subsets).
    n_clusters
        Number of independent clusters; below :data:`MIN_INTERVAL_CLUSTERS` nothing is resampled.
    method
        ``"percentile"`` or ``"bca"`` (bias-corrected and accelerated; Efron 1987).

    Returns
    -------
    ClusterInterval
        NaN bounds with a caveat when there are too few clusters. Resamples in which a component is
        undefined (NaN) are left out of that component's percentiles.

    References
    ----------
    Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. JRSS B 69(3).
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap, ch. 13-14.

    Examples
    --------
    >>> sums, counts = np.array([[4.0], [6.0], [5.0], [9.0], [2.0]]), np.ones((5, 1))
    >>> ci = cluster_bootstrap(lambda i: (sums[i].sum(-2) / counts[i].sum(-2)).T, 5,
    ...                        rng=np.random.default_rng(1))
    >>> bool(ci.low[0] < 5.2 < ci.high[0])
    True
    """
    if method not in METHODS:
        raise OptionError(f"bootstrap method {method!r}; use one of {', '.join(METHODS)}")
    if not 0 < confidence_level < 1:
        raise OptionError(f"confidence_level={confidence_level} must lie between 0 and 1, e.g. 0.95")
    caveat = cluster_caveat(n_clusters, unit)
    width = np.asarray(statistic(np.arange(n_clusters))).shape[0]
    if n_clusters < MIN_INTERVAL_CLUSTERS:
        empty = np.full(width, np.nan)
        return ClusterInterval(
            empty, empty.copy(), np.empty((width, 0)), n_clusters, method, confidence_level, caveat
        )
    result = stats.bootstrap(
        (np.arange(n_clusters),),
        lambda idx, axis=-1: statistic(idx),
        n_resamples=n_resamples,
        vectorized=True,
        confidence_level=confidence_level,
        method="BCa" if method == "bca" else "percentile",
        rng=rng,
    )
    dist = np.asarray(result.bootstrap_distribution).reshape(width, -1)
    low = np.atleast_1d(np.asarray(result.confidence_interval.low, dtype=float))
    high = np.atleast_1d(np.asarray(result.confidence_interval.high, dtype=float))
    if method == "percentile" and np.isnan(dist).any():
        low, high = percentile_interval(dist, confidence_level, axis=-1)
    return ClusterInterval(low, high, dist, n_clusters, method, confidence_level, caveat)


@renamed(confidence="confidence_level")
def percentile_interval(
    samples: np.ndarray, confidence_level: float = 0.95, axis: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of a bootstrap distribution along ``axis`` (NaN resamples left out)."""
    tail = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore"):
        low, high = np.nanquantile(np.asarray(samples, dtype=float), [tail, 1.0 - tail], axis=axis)
    return low, high


def distinct_resamples(n_clusters: int) -> int:
    """Distinct bootstrap resamples of C clusters (multisets of size C): C(2C-1, C)."""
    return comb(2 * n_clusters - 1, n_clusters) if n_clusters > 0 else 0
