"""Cluster bootstraps of comparative models: judgements share annotators and documents.

A judgement-level ("naive") bootstrap treats every judgement as independent, which understates the
uncertainty whenever annotators differ in taste or documents favour some systems. The default
``two-way`` scheme combines three one-way cluster bootstraps as in the multiway-clustering variance
of Cameron, Gelbach & Miller (2011):

    V = V_annotator + V_document − V_annotator×document,

where V_g is the covariance of the estimates over replicates that resample whole clusters g with
replacement, times G/(G − 1) for G clusters (negative eigenvalues of the sum are set to 0).
``pigeonhole`` resamples annotators and documents independently and weights each judgement by the
product of the two multiplicities (Owen 2007); it counts the judgement-level noise about three
times and so is conservative.
``annotator``, ``document`` and ``naive`` are the one-way and independent versions, shown for
comparison in the calibration study (docs/analysis.md).

References
----------
Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2011). Robust inference with multiway clustering.
*Journal of Business & Economic Statistics* 29(2), 238–249.
Angrist, J. D. & Pischke, J.-S. (2009). *Mostly Harmless Econometrics*. Princeton University Press.
Owen, A. B. (2007). The pigeonhole bootstrap. *Annals of Applied Statistics* 1(2), 386–411.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from humaneval._deprecation import renamed, renamed_attribute
from humaneval.comparative.engine import fit_events
from humaneval.comparative.judgements import Judgements
from humaneval.errors import ModelSpecError, OptionError

SCHEMES = ("two-way", "pigeonhole", "annotator", "document", "naive")


@dataclass(frozen=True)
class BootstrapVcov:
    """Covariance of the estimates under a bootstrap scheme and how many replicates had no MLE."""

    scheme: str
    vcov: np.ndarray
    n_resamples: int
    n_failed: int

    n_boot = renamed_attribute("n_boot", "n_resamples")


def _counts(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(B, G) multiplicities of G clusters drawn with replacement."""
    draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    return np.stack([np.bincount(d, minlength=n_clusters) for d in draws]).astype(float)


def unit_weights(
    judgements: Judgements, scheme: str, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """(B, U) bootstrap weights of the judgements under a one-way or pigeonhole ``scheme``."""
    if scheme == "naive":
        return _counts(judgements.n_judgements, n_resamples, rng)
    if scheme in ("annotator", "document", "cell"):
        codes = getattr(judgements, scheme)
        return _counts(int(codes.max()) + 1, n_resamples, rng)[:, codes]
    if scheme == "pigeonhole":
        a, d = judgements.annotator, judgements.document
        return (
            _counts(int(a.max()) + 1, n_resamples, rng)[:, a]
            * _counts(int(d.max()) + 1, n_resamples, rng)[:, d]
        )
    raise OptionError(f"unknown bootstrap scheme {scheme!r}; use one of {', '.join(SCHEMES)}")


def _replicates(
    judgements: Judgements, scheme: str, n_resamples: int, rng: np.random.Generator
) -> tuple[np.ndarray, int]:
    weights = unit_weights(judgements, scheme, n_resamples, rng) @ judgements.incidence
    fit = fit_events(judgements.features, judgements.mask, judgements.chosen, weights)
    ok = fit.ok
    return fit.beta[ok], int((~ok).sum())


@renamed(n_boot="n_resamples")
def bootstrap_vcov(
    judgements: Judgements,
    scheme: str = "two-way",
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = None,
    floor: np.ndarray | None = None,
) -> BootstrapVcov:
    """Bootstrap covariance of the parameters of ``judgements`` under ``scheme`` (see module doc).

    Replicates without a finite MLE (a resample in which some system never lost) are dropped and
    counted in ``n_failed``. With ``floor`` (the model-based covariance, judgements independent) the
    result is raised to at least ``floor`` in every direction: V + (floor − V)₊. Clustering can only
    add variance here (judgements of one annotator agree more, never less, than those of two), so a
    bootstrap variance below the independence variance is resampling noise, which the two-way
    difference of three covariances amplifies when clusters are few (Angrist & Pischke 2009, ch. 8
    take the larger of the conventional and the robust standard error for the same reason).

    Parameters
    ----------
    judgements : Judgements
        From :func:`~humaneval.comparative.build_judgements`.
    scheme : {"two-way", "pigeonhole", "annotator", "document", "naive"}
        What is resampled (two-way: V_annotator + V_document − V_cell).
    n_resamples : int
        Replicates per one-way part (≥ 2).
    seed : int or Generator, optional
        Seed of the resampling.
    floor : ndarray, optional
        Lower bound of the covariance (the model-based one).

    Returns
    -------
    BootstrapVcov
        ``vcov``, ``scheme``, ``n_resamples`` and ``n_failed``.

    Raises
    ------
    OptionError
        An unknown scheme.
    ModelSpecError
        Fewer than 2 replicates.

    References
    ----------
    Cameron, A. C., Gelbach, J. B., & Miller, D. L. (2011). Robust inference with multiway
    clustering. Journal of Business & Economic Statistics, 29(2), 238–249.

    Examples
    --------
    >>> from humaneval.comparative import build_judgements
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> judgements = build_judgements(simulate_pairwise_study([0.5, 0.0, -0.5], seed=1))
    >>> result = bootstrap_vcov(judgements, "annotator", n_resamples=200, seed=1)
    >>> result.vcov.shape, result.n_failed
    ((2, 2), 0)
    """
    if scheme not in SCHEMES:
        raise OptionError(f"unknown bootstrap scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
    if n_resamples < 2:
        raise ModelSpecError(f"the bootstrap needs at least 2 replicates, not {n_resamples}")
    rng = np.random.default_rng(seed)
    parts = ("annotator", "document", "cell") if scheme == "two-way" else (scheme,)
    covs, failed = [], 0
    for part in parts:
        with threadpool_limits(1):  # many tiny matrix products: threads only contend
            beta, bad = _replicates(judgements, part, n_resamples, rng)
        failed += bad
        cov = np.cov(beta, rowvar=False, ddof=1).reshape(judgements.n_params, judgements.n_params)
        covs.append(cov * _small_sample(judgements, part))
    vcov = _positive_part(covs[0] + covs[1] - covs[2]) if scheme == "two-way" else covs[0]
    if floor is not None:
        vcov = vcov + _positive_part(np.asarray(floor, dtype=float) - vcov)
    return BootstrapVcov(scheme, vcov, n_resamples * len(parts), failed)


def _small_sample(judgements: Judgements, scheme: str) -> float:
    """G / (G − 1) for G resampled clusters: a bootstrap over G clusters reproduces the plug-in
    variance, which is (G − 1)/G of the unbiased one (the c factor of Cameron et al. 2011)."""
    if scheme == "pigeonhole":
        return 1.0
    codes = np.arange(judgements.n_judgements) if scheme == "naive" else getattr(judgements, scheme)
    n_clusters = int(codes.max()) + 1
    return n_clusters / (n_clusters - 1) if n_clusters > 1 else 1.0


def _positive_part(matrix: np.ndarray) -> np.ndarray:
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2)
    return (vectors * np.clip(values, 0.0, None)) @ vectors.T
