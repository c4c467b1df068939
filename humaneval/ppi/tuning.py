"""The PPI++ power-tuning λ of a mean, from cluster sums of centred values (the CR0 cluster-robust
covariances; with one unit per cluster the formulas of ``ppi_py``): shared by the closed-form mean
(:mod:`humaneval.ppi.mean`) and its cluster jackknife (:mod:`humaneval.ppi.fewclusters`), which re-tunes λ
on every deletion.

References
----------
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered inference.
arXiv:2311.01453.
"""

from __future__ import annotations

import numpy as np

__all__ = ["cluster_sums", "ppi_lambda"]


def cluster_sums(values: np.ndarray, codes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Σ_{i∈c} (v_i − v̄) for every cluster c."""
    return np.bincount(codes, weights=values - values.mean(), minlength=n_clusters)


def ppi_lambda(
    y: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    codes: np.ndarray,
    codes_unlabeled: np.ndarray,
    n_clusters: int,
) -> float:
    """The PPI++ power-tuning λ̂ (clipped to [0, 1]); NaN when the judge scores are constant."""
    n, big_n = len(y), len(g)
    cov = float(cluster_sums(y, codes, n_clusters) @ cluster_sums(f, codes, n_clusters)) / n
    pooled = np.concatenate([f, g])
    spread = cluster_sums(pooled, np.concatenate([codes, codes_unlabeled]), n_clusters)
    var = float(spread @ spread) / (n + big_n - 1)
    if not var > 1e-12 * max(1.0, float(np.abs(pooled).max())) ** 2:
        return float("nan")
    return float(np.clip(cov / ((1 + n / big_n) * var), 0.0, 1.0))
