"""The prediction-powered M-estimator's cluster-robust pieces, shared by the Bradley–Terry and the
proportional-odds estimators (:mod:`humaneval.ppi.pairwise`, :mod:`humaneval.ppi.ordinal`).

With per-unit gradients g_y (human label), g_f (judge on the human-rated units) and g_u (judge on
the others), the PPI++ estimating equation is mean(g_y − λ g_f) + λ mean(g_u) = 0. Its sandwich
covariance sums the centred gradients within clusters (CR0), and λ is tuned to minimise the trace
of the estimates' variance (Angelopoulos, Duchi & Zrnic 2023, eq. for the optimal λ).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["cluster_sums", "reference_covariance", "sandwich", "tuned_lambda"]


def cluster_sums(g: np.ndarray, codes: np.ndarray, n_clusters: int) -> np.ndarray:
    """Per cluster (rows) and parameter (columns): the sum of the centred gradients ``g``."""
    centred = g - g.mean(axis=0)
    return np.stack(
        [np.bincount(codes, weights=centred[:, k], minlength=n_clusters) for k in range(g.shape[1])], 1
    )


def sandwich(
    inv_h: np.ndarray,
    grads: tuple[np.ndarray, np.ndarray, np.ndarray],
    lam: float,
    codes: np.ndarray,
    codes_u: np.ndarray,
    n_clusters: int,
) -> np.ndarray:
    """H⁻¹ M H⁻¹, M the cluster-robust meat of the PPI++ equation at ``lam`` (``grads``: g_y, g_f, g_u)."""
    gy, gf, gu = grads
    meat = cluster_sums(gy - lam * gf, codes, n_clusters) / len(gy)
    if lam > 0:
        meat = meat + lam * cluster_sums(gu, codes_u, n_clusters) / len(gu)
    return inv_h @ (meat.T @ meat) @ inv_h.T


def tuned_lambda(
    inv_h: np.ndarray, grads: tuple[np.ndarray, np.ndarray, np.ndarray], codes: np.ndarray, n_clusters: int
) -> float:
    """PPI++'s λ in [0, 1] for the parameters whose rows ``inv_h`` holds (trace of their variance),
    from the gradients at the λ = 1 estimate."""
    gy, gf, gu = grads
    n, big_n = len(gy), len(gu)
    sy, sf = cluster_sums(gy, codes, n_clusters), cluster_sums(gf, codes, n_clusters)
    cross = (sy.T @ sf + sf.T @ sy) / n
    var = np.atleast_2d(np.cov(np.vstack([gf, gu]).T))
    num = np.trace(inv_h @ cross @ inv_h.T)
    den = 2 * (1 + n / big_n) * np.trace(inv_h @ var @ inv_h.T)
    return float(np.clip(num / den, 0.0, 1.0)) if den > 0 else 0.0


def reference_covariance(systems: Sequence[str], vcov: np.ndarray) -> pd.DataFrame:
    """The covariance of treatment-coded effects as a systems × systems table, the reference (the first
    system, fixed at 0) with row and column 0."""
    full = np.zeros((len(systems), len(systems)))
    full[1:, 1:] = vcov
    return pd.DataFrame(full, index=systems, columns=systems)
