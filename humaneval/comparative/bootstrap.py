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

Every scheme reweights per-cluster sufficient statistics (how often each cluster holds each
distinct event) by multinomial cluster multiplicities; the judgements themselves are never
resampled, so 10⁶ judgements cost what their clusters and distinct events cost.

References
----------
Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2011). Robust inference with multiway clustering.
*Journal of Business & Economic Statistics* 29(2), 238–249.
Angrist, J. D. & Pischke, J.-S. (2009). *Mostly Harmless Econometrics*. Princeton University Press.
Owen, A. B. (2007). The pigeonhole bootstrap. *Annals of Applied Statistics* 1(2), 386–411.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix, identity, vstack
from threadpoolctl import threadpool_limits

from humaneval.comparative.engine import fit_events
from humaneval.comparative.judgements import Judgements
from humaneval.core.deprecation import renamed, renamed_attribute
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


#: Replicates are drawn in chunks whose (replicates × clusters) multiplicities stay below this.
CHUNK_DRAWS = 2e7


def _cluster_stats(judgements: Judgements, codes: np.ndarray) -> csr_matrix:
    """(G, E) sufficient statistics of each cluster: how often it holds each distinct event."""
    n_clusters = int(codes.max()) + 1
    members = csr_matrix(
        (np.ones(codes.size), (codes, np.arange(codes.size))), shape=(n_clusters, codes.size)
    )
    return (members @ judgements.incidence).tocsr()


def _draws(n_clusters: int, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(B, G) multiplicities of G clusters drawn with replacement."""
    draws = rng.integers(0, n_clusters, size=(n_resamples, n_clusters))
    offsets = (np.arange(n_resamples) * n_clusters)[:, None]
    counts = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_clusters)
    return counts.reshape(n_resamples, n_clusters).astype(float)


def _resampled(stats: csr_matrix, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """(b, E) event weights of chunks of B cluster-bootstrap replicates.

    Drawing G clusters with replacement gives multinomial(G, 1/G) multiplicities; clusters with the
    same sufficient statistics are interchangeable, so when many clusters hold a single judgement
    (annotator × document cells, single judgements) the draw is multinomial over the distinct
    statistics instead, with probabilities their shares of the clusters.
    """
    n_clusters = stats.shape[0]
    sizes = np.asarray(stats.sum(axis=1)).ravel()
    single = sizes == 1
    events = stats[single].indices  # the event of each single-judgement cluster
    single_types, single_count = np.unique(events, return_counts=True)
    n_types = single_types.size + int((~single).sum())
    if n_types * 8 <= n_clusters:
        types = vstack([identity(stats.shape[1], format="csr")[single_types], stats[~single]]).tocsr()
        shares = np.r_[single_count, np.ones(n_types - single_types.size)] / n_clusters
        counts = rng.multinomial(n_clusters, shares, size=n_resamples).astype(float)
        yield np.asarray((types.T @ counts.T).T)
        return
    chunk = max(1, int(CHUNK_DRAWS // n_clusters))
    for first in range(0, n_resamples, chunk):
        counts = _draws(n_clusters, min(chunk, n_resamples - first), rng)
        yield np.asarray((stats.T @ counts.T).T)


def _pigeonhole(judgements: Judgements, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Annotators and documents drawn independently; a judgement weighs the product of the two."""
    cells = _cluster_stats(judgements, judgements.cell)
    first = np.zeros(int(judgements.cell.max()) + 1, dtype=np.int64)
    first[judgements.cell[::-1]] = np.arange(judgements.cell.size)[::-1]
    of_annotator, of_document = judgements.annotator[first], judgements.document[first]
    n_a, n_d = int(of_annotator.max()) + 1, int(of_document.max()) + 1
    chunk = max(1, int(CHUNK_DRAWS // max(n_a, n_d, first.size)))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        product = _draws(n_a, size, rng)[:, of_annotator] * _draws(n_d, size, rng)[:, of_document]
        yield np.asarray((cells.T @ product.T).T)


def event_weights(
    judgements: Judgements, scheme: str, n_resamples: int, rng: np.random.Generator
) -> Iterator[np.ndarray]:
    """(b, E) weights of the distinct events in chunks of bootstrap replicates under ``scheme``.

    Every scheme reweights the per-cluster sufficient statistics (event counts), never the judgements.
    """
    if scheme == "pigeonhole":
        return _pigeonhole(judgements, n_resamples, rng)
    if scheme == "naive":
        return _resampled(judgements.incidence.tocsr(), n_resamples, rng)
    if scheme in ("annotator", "document", "cell"):
        stats = _cluster_stats(judgements, getattr(judgements, scheme))
        return _resampled(stats, n_resamples, rng)
    raise OptionError(f"unknown bootstrap scheme {scheme!r}; use one of {', '.join(SCHEMES)}")


def _replicates(
    judgements: Judgements, scheme: str, n_resamples: int, rng: np.random.Generator, start: np.ndarray | None
) -> tuple[np.ndarray, int]:
    betas, failed = [], 0
    for weights in event_weights(judgements, scheme, n_resamples, rng):
        fit = fit_events(judgements.features, judgements.mask, judgements.chosen, weights, start)
        betas.append(fit.beta[fit.ok])
        failed += int((~fit.ok).sum())
    return np.concatenate(betas), failed


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
    with threadpool_limits(1):  # many tiny matrix products: threads only contend
        centre = fit_events(judgements.features, judgements.mask, judgements.chosen, judgements.event_counts)
    start = centre.beta[0] if centre.ok[0] else None  # replicates start at the full-data estimate
    for part in parts:
        with threadpool_limits(1):
            beta, bad = _replicates(judgements, part, n_resamples, rng, start)
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
