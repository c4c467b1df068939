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
jackknife. Intervals use t(G − 1).

The interval needs a variance that errs high; the gain V_human / V_PPI needs one that errs neither
way. Re-tuning λ on every deletion makes V_J conservative (the jackknife overstates the variance of a
non-linear statistic; Efron & Stein 1981), so V_human / V_J understated the Monte Carlo gain by
17 % with 5 blocks (median 1.07 against 1.29). The gain therefore uses the delta method's split
of the PPI++ variance, V(θ̂) ≈ V(θ̂ | λ̂) + (ḡ − f̄)² V(λ̂), each part by the same deletions: the
jackknife of the estimate at the full-data λ̂, and the jackknife of λ̂ itself (median 1.23 against
1.29; within 5 % at 5 and 10 blocks, tests/test_ppi_edges.py). Its interval is the jackknife of
log(gain) over the same deletions, each deleted sample's gain computed as above, with t(G − 1)
quantiles (up to 20 human-rated clusters; :func:`humaneval.ppi.mean.ratio_interval` beyond).

References
----------
MacKinnon, J. G., Nielsen, M. Ø. & Webb, M. D. (2023). Cluster-robust inference: a guide to
empirical practice. Journal of Econometrics 232(2), 272–299 (CV3, the cluster jackknife).
Efron, B. & Stein, C. (1981). The jackknife estimate of variance. Annals of Statistics 9(3),
586–596.
Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
inference. arXiv:2311.01453.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humaneval.ppi.tuning import cluster_sums, ppi_lambda

__all__ = ["JackknifeVariances", "jackknife_gain_interval", "jackknife_variances"]


@dataclass(frozen=True, eq=False)
class JackknifeVariances:
    """``ppi``: V_J of the PPI++ mean (λ re-tuned per deletion unless fixed), for its interval;
    ``human``: V_J of the human-only mean; ``gain``: V_human over the delta-method PPI++ variance;
    ``contributions``: the PPI++ mean's contribution per cluster code (Σ of squares = ``ppi``)."""

    ppi: float
    human: float
    gain: float
    contributions: np.ndarray


def jackknife_variances(
    y: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    codes: np.ndarray,
    codes_unlabeled: np.ndarray,
    n_clusters: int,
    lam: float | None,
    lam_used: float = 0.0,
) -> JackknifeVariances:
    """Cluster-jackknife variances of the PPI++ mean (λ re-tuned per deletion unless fixed) and of
    the human-only mean, the gain, and the PPI++ mean's contributions per cluster.

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
    JackknifeVariances
        ``contributions``: per cluster code the PPI++ mean's contribution d_c (√((G − 1)/G) (θ̂_(−c) − θ̄)
        for a human-rated cluster, its share of λ ḡ for one of judge-only units), so that ``ppi`` = Σ d_c²;
        Σ d_c e_c over two estimates on the same clusters is their jackknife covariance.

    Examples
    --------
    With λ = 0 the jackknife of the mean of cluster means is the textbook one:

    >>> y = np.array([1.0, 2.0, 4.0, 3.0, 5.0, 9.0]); codes = np.array([0, 0, 1, 1, 2, 2])
    >>> jk = jackknife_variances(y, y, np.array([2.0]), codes, np.array([3]), 4, 0.0)
    >>> means = np.array([(3.5 * 2 + 14) / 4, (1.5 * 2 + 14) / 4, (1.5 * 2 + 3.5 * 2) / 4])
    >>> expected = 2 / 3 * ((means - means.mean()) ** 2).sum()
    >>> bool(np.isclose(jk.ppi, expected)), bool(np.isclose(jk.ppi, jk.human))
    (True, True)
    >>> bool(np.isclose(jk.contributions @ jk.contributions, jk.ppi))
    True
    """
    labelled = np.unique(codes)
    thetas, fixed, humans, lams = [], [], [], []
    for c in labelled:
        keep, keep_u = codes != c, codes_unlabeled != c
        yk, fk, gk = y[keep], f[keep], g[keep_u]
        tuned = ppi_lambda(yk, fk, gk, codes[keep], codes_unlabeled[keep_u], n_clusters)
        tuned = 0.0 if not np.isfinite(tuned) else tuned
        lk = lam if lam is not None else tuned
        thetas.append(lk * gk.mean() + (yk - lk * fk).mean())
        fixed.append(lam_used * gk.mean() + (yk - lam_used * fk).mean())
        humans.append(yk.mean())
        lams.append(lk)
    scale = (len(labelled) - 1) / len(labelled)
    parts = {"ppi": thetas, "fixed": fixed, "human": humans, "lam": lams}
    spread = {k: scale * (np.array(v) - np.mean(v)) ** 2 for k, v in parts.items()}
    # clusters of judge-only units: their share of V(ḡ), times the λ the estimate uses
    contributions = np.zeros(n_clusters)
    contributions[labelled] = np.sqrt(scale) * (np.array(thetas) - np.mean(thetas))
    alone = np.unique(codes_unlabeled[~np.isin(codes_unlabeled, labelled)])
    extra = 0.0
    if len(alone):
        contributions[alone] = lam_used * cluster_sums(g, codes_unlabeled, n_clusters)[alone] / len(g)
        extra = float(contributions[alone] @ contributions[alone])
    delta = float(np.sum(spread["fixed"] + spread["lam"] * (g.mean() - f.mean()) ** 2)) + extra
    human = float(np.sum(spread["human"]))
    return JackknifeVariances(
        ppi=float(np.sum(spread["ppi"])) + extra,
        human=human,
        gain=human / delta if delta > 0 else float("nan"),
        contributions=contributions,
    )


def jackknife_gain_interval(
    y: np.ndarray,
    f: np.ndarray,
    g: np.ndarray,
    codes: np.ndarray,
    codes_unlabeled: np.ndarray,
    n_clusters: int,
    lam: float | None,
    gain: float,
    quantile: float,
) -> tuple[float, float]:
    """The interval gain · exp(± quantile · se), se the jackknife SE of log(gain) over the deleted
    human-rated clusters (each deletion's gain by :func:`jackknife_variances`; NaN below 3 clusters)."""
    labelled = np.unique(codes)
    if len(labelled) < 3 or not gain > 0:
        return float("nan"), float("nan")
    logs = []
    for c in labelled:
        keep, keep_u = codes != c, codes_unlabeled != c
        yk, fk, gk, ck, cu = y[keep], f[keep], g[keep_u], codes[keep], codes_unlabeled[keep_u]
        used = lam if lam is not None else ppi_lambda(yk, fk, gk, ck, cu, n_clusters)
        used = 0.0 if not np.isfinite(used) else used
        logs.append(jackknife_variances(yk, fk, gk, ck, cu, n_clusters, lam, used).gain)
    gains = np.array(logs)
    if not (gains > 0).all():  # a deletion without spread in the human scores: no log gain to resample
        return float("nan"), float("nan")
    values = np.log(gains)
    se = float(np.sqrt((len(values) - 1) / len(values) * np.sum((values - values.mean()) ** 2)))
    return float(gain * np.exp(-quantile * se)), float(gain * np.exp(quantile * se))
