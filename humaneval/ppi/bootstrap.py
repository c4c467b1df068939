"""The prediction-powered bootstrap (PPBoot) of many PPI++ means at once.

Clusters (documents or blocks) are drawn with replacement, each with everything it holds: human
and judge scores of its labelled units and judge scores of its unlabelled ones. In each resample
λ is tuned again and the PPI++ mean recomputed (Zrnic 2024, the power-tuned PPBoot); the interval
is the percentile interval of the resampled estimates. All targets (systems and system pairs) share
the resampled clusters, and every target needs only eight cluster sums, so one matrix product of
the (resamples × clusters) count matrix with the (clusters × 8 targets) sums does the work.

References
----------
Zrnic, T. (2024). A note on the prediction-powered bootstrap. arXiv:2405.18379.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Target", "ppboot_intervals"]

#: (labelled values y, labelled judge f, labelled cluster codes, unlabelled judge g, unlabelled codes)
Target = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _moments(targets: Sequence[Target], n_clusters: int) -> np.ndarray:
    """(clusters × 8 · targets) cluster sums: n, Σy, Σf, Σyf, Σf², N, Σg, Σg² of each target."""
    columns = []
    for y, f, codes, g, codes_u in targets:
        for weights, index in (
            (None, codes),
            (y, codes),
            (f, codes),
            (y * f, codes),
            (f * f, codes),
            (None, codes_u),
            (g, codes_u),
            (g * g, codes_u),
        ):
            columns.append(np.bincount(index, weights=weights, minlength=n_clusters))
    return np.column_stack(columns)


def ppboot_intervals(
    targets: Sequence[Target],
    n_clusters: int,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int | None = 0,
) -> np.ndarray:
    """Percentile PPBoot intervals of the PPI++ mean of every target, shape (targets, 2).

    Parameters
    ----------
    targets : sequence of tuples
        Per target the labelled values ``y`` and judge scores ``f`` with their cluster codes, and the
        unlabelled judge scores ``g`` with theirs (codes in ``range(n_clusters)``, one space for all).
    n_clusters : int
        The number of clusters resampled.
    n_resamples, confidence_level, seed
        Resamples, the interval's level, the seed of the cluster draws.

    Returns
    -------
    ndarray
        Lower and upper bounds; NaN where no resample had two labelled and one unlabelled unit.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(0, 1, 200); f = y + rng.normal(0, 1, 200)
    >>> codes = np.arange(200)
    >>> ci = ppboot_intervals([(y[:50], f[:50], codes[:50], f[50:], codes[50:])], 200, seed=1)
    >>> bool(ci[0, 0] < y[:50].mean() < ci[0, 1])
    True
    """
    rng = np.random.default_rng(seed)
    moments = _moments(targets, n_clusters)
    draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    draws += (np.arange(n_resamples) * n_clusters)[:, None]
    counts = np.bincount(draws.ravel(), minlength=n_resamples * n_clusters).reshape(n_resamples, n_clusters)
    sums = (counts.astype(float) @ moments).reshape(n_resamples, len(targets), 8)
    n, sy, sf, syf, sff, big_n, sg, sgg = np.moveaxis(sums, 2, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_y, mean_f, mean_g = sy / n, sf / n, sg / big_n
        cov = syf / n - mean_y * mean_f
        total = n + big_n
        var = (sff + sgg - (sf + sg) ** 2 / total) / (total - 1)
        lam = np.clip(np.where(var > 0, cov / ((1 + n / big_n) * var), 0.0), 0.0, 1.0)
        theta = lam * mean_g + mean_y - lam * mean_f
    theta[(n < 2) | (big_n < 1)] = np.nan
    tail = (1 - confidence_level) / 2
    out = np.full((len(targets), 2), np.nan)
    ok = np.isfinite(theta).any(axis=0)
    if ok.any():
        out[ok] = np.nanquantile(theta[:, ok], [tail, 1 - tail], axis=0).T
    return out
