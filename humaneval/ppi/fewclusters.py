"""Variances of the PPI++ mean that hold with few human-rated clusters: the cluster jackknife.

With blocks as clusters a study may have five of them. The cluster-robust sandwich (CR0/CR1) is
then biased downwards, and more so for PPI++: its λ is tuned to minimise that very variance on the
same five clusters, so the printed interval is too narrow and the gain over the humans alone too
large. The cluster jackknife (CV3; MacKinnon, Nielsen & Webb 2023) leaves out one human-rated
cluster at a time — its human ratings and any judge-only units it holds — re-tunes λ, and
re-estimates:

    V_J = (G − 1)/G · Σ_c (θ̂_(−c) − θ̄)²,

G the number of human-rated clusters; clusters holding judge-only units alone add their plain
cluster-robust share λ² V(ḡ) (there are many, each small). The human-only mean gets the same
jackknife, so the gain V_human / V_PPI compares like with like. Intervals use t(G − 1).

References
----------
MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide to
empirical practice. Journal of Econometrics 232(2), 272–299 (CV3, the cluster jackknife).
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
inference. arXiv:2311.01453.
"""

from __future__ import annotations

import numpy as np

__all__ = ["jackknife_variances"]


def jackknife_variances(
    y: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    codes: np.ndarray,
    codes_unlabeled: np.ndarray,
    n_clusters: int,
    lam: float | None,
    lam_used: float = 0.0,
) -> tuple[float, float, np.ndarray]:
    """Cluster-jackknife variances of the PPI++ mean (λ re-tuned per deletion unless fixed) and of
    the human-only mean, with the PPI++ mean's contributions per cluster.

    Parameters
    ----------
    y, f, g : ndarray
        Human and judge scores of the human-rated units; judge scores of the others.
    codes, codes_unlabeled : ndarray
        Cluster codes of both (one label space, as :func:`humaneval.ppi.mean.cluster_codes` gives).
    n_clusters : int
        Number of codes.
    lam : float, optional
        A fixed λ (no re-tuning), else PPI++'s λ̂ on every deletion.
    lam_used : float
        The λ of the full-data estimate (it weighs the judge-only clusters' share).

    Returns
    -------
    (float, float, ndarray)
        V_J of the PPI++ mean and of the human-only mean, and per cluster code the PPI++ mean's
        contribution d_c (√((G − 1)/G) (θ̂_(−c) − θ̄) for a human-rated cluster, its share of λ ḡ for
        one of judge-only units), so that V_J = Σ d_c²; Σ d_c e_c over two estimates on the same
        clusters is their jackknife covariance.

    Examples
    --------
    With λ = 0 the jackknife of the mean of cluster means is the textbook one:

    >>> y = np.array([1.0, 2.0, 4.0, 3.0, 5.0, 9.0]); codes = np.array([0, 0, 1, 1, 2, 2])
    >>> v, v_h, d = jackknife_variances(y, y, np.array([2.0]), codes, np.array([3]), 4, 0.0)
    >>> means = np.array([(3.5 * 2 + 14) / 4, (1.5 * 2 + 14) / 4, (1.5 * 2 + 3.5 * 2) / 4])
    >>> bool(np.isclose(v, 2 / 3 * ((means - means.mean()) ** 2).sum())), bool(np.isclose(v, v_h))
    (True, True)
    >>> bool(np.isclose(d @ d, v))
    True
    """
    from humaneval.ppi.mean import cluster_sums, ppi_lambda  # the two modules use each other

    labelled = np.unique(codes)
    big_n = len(g)
    thetas, humans = [], []
    for c in labelled:
        keep, keep_u = codes != c, codes_unlabeled != c
        yk, fk, gk = y[keep], f[keep], g[keep_u]
        lk = (
            lam
            if lam is not None
            else ppi_lambda(yk, fk, gk, codes[keep], codes_unlabeled[keep_u], n_clusters)
        )
        lk = 0.0 if not np.isfinite(lk) else lk
        thetas.append(lk * gk.mean() + (yk - lk * fk).mean())
        humans.append(yk.mean())
    size = len(labelled)
    scale = (size - 1) / size
    contributions = np.zeros(n_clusters)
    contributions[labelled] = np.sqrt(scale) * (np.array(thetas) - np.mean(thetas))
    v_human = scale * float(np.sum((np.array(humans) - np.mean(humans)) ** 2))
    # clusters of judge-only units: their share of V(ḡ), times the λ the estimate uses
    alone = np.unique(codes_unlabeled[~np.isin(codes_unlabeled, labelled)])
    if len(alone):
        contributions[alone] = lam_used * cluster_sums(g, codes_unlabeled, n_clusters)[alone] / big_n
    return float(contributions @ contributions), v_human, contributions
