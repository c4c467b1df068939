"""System means with cluster-bootstrap intervals, for the report's Table 3.2-style results table.

The analysis reports the mean response per system (``humaneval.analysis.analyze.system_means``:
scores as given, ranks 1-based) and its significance groupings; the report adds how precisely each
mean is known. Ratings of one block share annotators and documents, so the interval resamples the
independent blocks (connected components of the annotator–document graph, analysis spec §1.2),
never single judgements — the cluster bootstrap of spec §2.6 applied to the system means. The mean
of a resample is the ratio Σ values / Σ counts over the drawn blocks, so it equals the reported
mean on the full data even when blocks differ in size.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humaneval.analysis.analyze import system_means
from humaneval.ratings import Ratings
from humaneval.reliability.seeding import SeedLike, resolve_seed
from humaneval.reliability.splithalf import group_sums
from humaneval.structure import cluster_labels


def mean_intervals(
    ratings: Ratings, *, n_resamples: int = 2000, level: float = 0.95, seed: SeedLike = 1
) -> pd.DataFrame:
    """``system, mean, ci_low, ci_high, n`` — percentile intervals over resampled blocks.

    ``ratings`` is one criterion without attention checks. With a single block there is nothing
    independent to resample and the interval is NaN (the report says why).
    """
    means = system_means(ratings)
    values = ratings.reported()
    clusters = cluster_labels(ratings).to_numpy()
    systems = pd.Categorical(ratings.data["system"], categories=means.index)
    n_clusters = int(clusters.max()) + 1
    sums, counts = group_sums(
        clusters, systems.codes.astype(np.int64), values.to_numpy(), n_clusters, len(means)
    )
    low = high = np.full(len(means), np.nan)
    if n_clusters > 1:
        rng, _ = resolve_seed(seed)
        draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
        weights = np.apply_along_axis(np.bincount, 1, draws, minlength=n_clusters).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            boot = (weights @ sums) / (weights @ counts)
        tail = (1 - level) / 2 * 100
        low, high = np.nanpercentile(boot, [tail, 100 - tail], axis=0)
    return pd.DataFrame(
        {
            "system": means.index,
            "mean": means.to_numpy(),
            "ci_low": low,
            "ci_high": high,
            "n": counts.sum(axis=0).astype(int),
        }
    )
