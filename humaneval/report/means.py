"""System means with cluster-bootstrap intervals, for the report's Table 3.2-style results table.

The analysis reports the mean response per system (``humaneval.analysis.outcome.system_means``:
scores as given, ranks 1-based) and its significance groupings; the report adds how precisely each
mean is known. Ratings of one block share annotators and documents, so the interval resamples the
independent blocks (connected components of the annotator–document graph; Steen's dissertation,
§3.5), never single judgements: the cluster bootstrap of :func:`humaneval.stats.resampling.
cluster_bootstrap`. The mean of a resample is the ratio Σ values / Σ counts over the drawn blocks,
so it equals the reported mean on the full data even when blocks differ in size. With fewer than
:data:`~humaneval.stats.resampling.MIN_INTERVAL_CLUSTERS` blocks no interval is computed (a bootstrap over
two blocks has three distinct resamples).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humaneval.analysis.outcome import system_means
from humaneval.core.deprecation import renamed
from humaneval.core.ratings import Ratings
from humaneval.core.structure import cluster_labels
from humaneval.reliability.seeding import resolve_seed
from humaneval.reliability.splithalf import group_sums
from humaneval.stats.resampling import ClusterInterval, cluster_bootstrap
from humaneval.stats.seeds import SeedLike


@renamed(level="confidence_level")
def mean_intervals(
    ratings: Ratings,
    *,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    seed: SeedLike = 1,
    method: str = "percentile",
) -> tuple[pd.DataFrame, ClusterInterval]:
    """``system, mean, ci_low, ci_high, n`` — intervals over resampled blocks — and the
    :class:`~humaneval.stats.resampling.ClusterInterval` behind them (number of blocks, caveat).

    ``ratings`` is one criterion without attention checks. With too few blocks the interval
    columns are NaN and the caveat says why.
    """
    means = system_means(ratings)
    values = ratings.reported()
    clusters = cluster_labels(ratings).to_numpy()
    systems = pd.Categorical(ratings.data["system"], categories=means.index)
    n_clusters = int(clusters.max()) + 1
    sums, counts = group_sums(
        clusters, systems.codes.astype(np.int64), values.to_numpy(), n_clusters, len(means)
    )

    def pooled_means(drawn: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.moveaxis(sums[drawn].sum(-2) / counts[drawn].sum(-2), -1, 0)

    rng, _ = resolve_seed(seed)
    interval = cluster_bootstrap(
        pooled_means,
        n_clusters,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        rng=rng,
    )
    frame = pd.DataFrame(
        {
            "system": means.index,
            "mean": means.to_numpy(),
            "ci_low": interval.low,
            "ci_high": interval.high,
            "n": counts.sum(axis=0).astype(int),
        }
    )
    return frame, interval
