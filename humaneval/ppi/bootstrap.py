"""The prediction-powered bootstrap (PPBoot) of many PPI++ means at once.

Clusters (documents or blocks) are drawn with replacement, each with everything it holds: human
and judge scores of its labelled units and judge scores of its unlabelled ones. In each resample
λ is tuned again and the PPI++ mean recomputed (Zrnic 2024, the power-tuned PPBoot); the interval
is the percentile interval of the resampled estimates. All targets (systems and system pairs) share
the resampled clusters, and every target needs only eight cluster sums, so two matrix products of
the (resamples × clusters) count matrix with the labelled and unlabelled cluster sums do the work.

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


def _moments(targets: Sequence[Target], n_clusters: int) -> tuple[np.ndarray, np.ndarray]:
    """Cluster sums of every target: (clusters × 5 · targets) labelled n, Σy, Σf, Σyf, Σf² and
    (clusters × 3 · targets) unlabelled N, Σg, Σg²."""
    labelled, unlabelled = [], []
    for y, f, codes, g, codes_u in targets:
        for weights in (None, y, f, y * f, f * f):
            labelled.append(np.bincount(codes, weights=weights, minlength=n_clusters))
        for weights in (None, g, g * g):
            unlabelled.append(np.bincount(codes_u, weights=weights, minlength=n_clusters))
    return np.column_stack(labelled), np.column_stack(unlabelled)


def _resampled(counts: np.ndarray, moments: np.ndarray) -> np.ndarray:
    """counts @ moments over the clusters that hold anything (most hold only one kind of unit)."""
    used = np.flatnonzero(moments.any(axis=1))
    return counts[:, used] @ moments[used]


#: Resample × cluster counts held at once; more resamples are drawn in chunks of this size.
MAX_CELLS = 10_000_000


def _theta(
    rng: np.random.Generator,
    n_resamples: int,
    n_clusters: int,
    labelled: np.ndarray,
    unlabelled: np.ndarray,
    n_targets: int,
) -> np.ndarray:
    """The PPI++ mean of every target in ``n_resamples`` cluster resamples, shape (resamples, targets)."""
    draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    draws += (np.arange(n_resamples) * n_clusters)[:, None]
    counts = np.bincount(draws.ravel(), minlength=n_resamples * n_clusters).reshape(n_resamples, n_clusters)
    counts = counts.astype(float)
    lab = _resampled(counts, labelled).reshape(n_resamples, n_targets, 5)
    unl = _resampled(counts, unlabelled).reshape(n_resamples, n_targets, 3)
    n, sy, sf, syf, sff = np.moveaxis(lab, 2, 0)
    big_n, sg, sgg = np.moveaxis(unl, 2, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_y, mean_f, mean_g = sy / n, sf / n, sg / big_n
        cov = syf / n - mean_y * mean_f
        total = n + big_n
        var = (sff + sgg - (sf + sg) ** 2 / total) / (total - 1)
        lam = np.clip(np.where(var > 0, cov / ((1 + n / big_n) * var), 0.0), 0.0, 1.0)
        theta = lam * mean_g + mean_y - lam * mean_f
    theta[(n < 2) | (big_n < 1)] = np.nan
    return theta


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
    labelled, unlabelled = _moments(targets, n_clusters)
    step = max(1, MAX_CELLS // max(n_clusters, 1))  # memory bounded whatever the size (issue 47)
    theta = np.concatenate(
        [
            _theta(rng, min(step, n_resamples - start), n_clusters, labelled, unlabelled, len(targets))
            for start in range(0, n_resamples, step)
        ]
    )
    tail = (1 - confidence_level) / 2
    out = np.full((len(targets), 2), np.nan)
    ok = np.isfinite(theta).any(axis=0)
    if ok.any():
        out[ok] = np.nanquantile(theta[:, ok], [tail, 1 - tail], axis=0).T
    return out
