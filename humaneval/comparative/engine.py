"""Maximum likelihood for the conditional-logit models of :mod:`humaneval.comparative.judgements`.

The log-likelihood Σ_e w_e [x_e,chosen·β − log Σ_a exp(x_e,a·β)] is concave, so Newton's method
with step halving converges from β = 0 whenever the MLE exists; no prior or penalty is needed.
It exists when the "preferred to" graph of the systems is strongly connected (every group of
systems was preferred at least once to some system outside it: Hunter 2004, Zermelo 1929);
:func:`check_estimable` says which systems break it. Many weightings (bootstrap replicates) are
fitted at once, vectorised over the replicates, and each event is evaluated on its support only
(the parameters its alternatives involve: two systems and log ν for a pairwise comparison), so the
cost is events × support², not events × parameters².
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.errors import InsufficientDataError

MAX_ITER = 100
GRAD_TOL = 1e-8
#: A replicate whose |β| exceeds this has no finite MLE (some system never lost or never won).
DIVERGED = 25.0
#: Replicates are fitted in chunks whose (replicates × events × alternatives × P) stays below this.
CHUNK_CELLS = 2e7


@dataclass(frozen=True)
class EventFit:
    """Estimates of one or many weightings: β (R, P), log-likelihood, max |gradient|, iterations."""

    beta: np.ndarray
    loglik: np.ndarray
    max_grad: np.ndarray
    hessian: np.ndarray
    n_iter: int

    @property
    def ok(self) -> np.ndarray:
        """Replicates that converged to a finite MLE."""
        return (self.max_grad < 1e-5) & (np.abs(self.beta).max(axis=1) < DIVERGED)


@dataclass(frozen=True)
class _Support:
    """The events in sparse form: each event touches only a few parameters (its *support*).

    ``index`` (E, K) holds the parameters an event's alternatives involve (padding points at a dummy
    parameter P), ``values`` (E, A, K) the features on them; ``scatter`` maps the (E·K) gradient
    entries and ``scatter2`` the (E·K·K) information entries to their parameters.
    """

    index: np.ndarray
    values: np.ndarray
    mask: np.ndarray
    chosen: np.ndarray
    n_par: int
    scatter: csr_matrix
    scatter2: csr_matrix

    @classmethod
    def of(cls, features: np.ndarray, mask: np.ndarray, chosen: np.ndarray) -> _Support:
        n_par = features.shape[2]
        used = (features != 0).any(axis=1)
        width = max(1, int(used.sum(axis=1).max(initial=0)))
        order = np.argsort(~used, axis=1, kind="stable")[:, :width]
        valid = np.take_along_axis(used, order, axis=1)
        index = np.where(valid, order, n_par)
        padded = np.concatenate([features, np.zeros((*features.shape[:2], 1))], axis=2)
        values = np.take_along_axis(padded, index[:, None, :], axis=2)
        rows = np.arange(index.size)
        scatter = csr_matrix((np.ones(index.size), (rows, index.ravel())), shape=(index.size, n_par + 1))
        pairs = (index[:, :, None] * (n_par + 1) + index[:, None, :]).ravel()
        scatter2 = csr_matrix(
            (np.ones(pairs.size), (np.arange(pairs.size), pairs)), shape=(pairs.size, (n_par + 1) ** 2)
        )
        return cls(index, values, np.asarray(mask, bool), np.asarray(chosen), n_par, scatter, scatter2)


def _evaluate(support: _Support, weights, beta):
    """Log-likelihood, gradient and information of every weighting (rows of ``weights``) at ``beta``.

    Replicates are the last axis of every intermediate array; only each event's support is touched:
    the information is Σ_e w_e (Σ_a p_a x_a x_aᵀ − m_e m_eᵀ) with m_e = Σ_a p_a x_a, all on the
    support, scattered once into the P × P matrices.
    """
    n_rep, n_par, n_events = len(beta), support.n_par, len(support.index)
    padded = np.concatenate([beta.T, np.zeros((1, n_rep))])
    on_support = padded[support.index]  # (E, K, R)
    eta = np.einsum("eak,ekr->ear", support.values, on_support)
    eta = np.where(support.mask[:, :, None], eta, -np.inf)
    top = eta.max(axis=1, keepdims=True)
    prob = np.exp(eta - top)
    total = prob.sum(axis=1, keepdims=True)
    prob /= total
    w = weights.T  # (E, R)
    picked = eta[np.arange(n_events), support.chosen]
    loglik = (w * (picked - top[:, 0] - np.log(total[:, 0]))).sum(axis=0)
    mean = np.einsum("eak,ear->ekr", support.values, prob)
    chosen_x = support.values[np.arange(n_events), support.chosen]  # (E, K)
    grad = support.scatter.T @ (w[:, None, :] * (chosen_x[:, :, None] - mean)).reshape(-1, n_rep)
    second = np.einsum("eak,eal,ear->eklr", support.values, support.values, prob)
    second -= mean[:, :, None, :] * mean[:, None, :, :]
    second *= w[:, None, None, :]
    info = (support.scatter2.T @ second.reshape(-1, n_rep)).reshape(n_par + 1, n_par + 1, n_rep)
    info = np.ascontiguousarray(info[:n_par, :n_par].transpose(2, 0, 1))
    return loglik, np.ascontiguousarray(grad[:n_par].T), info


def fit_events(
    features: np.ndarray,
    mask: np.ndarray,
    chosen: np.ndarray,
    weights: np.ndarray,
    start: np.ndarray | None = None,
) -> EventFit:
    """Newton–Raphson with step halving for every row of ``weights`` (R, E) at once, from ``start``
    (P,) or β = 0."""
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    support = _Support.of(np.asarray(features, dtype=float), mask, chosen)
    per_rep = support.values.size + support.index.size * support.index.shape[1]
    chunk = max(1, int(CHUNK_CELLS // max(1, per_rep)))
    parts = [_fit(support, weights[i : i + chunk], start) for i in range(0, len(weights), chunk)]
    if len(parts) == 1:
        return parts[0]
    return EventFit(
        beta=np.concatenate([p.beta for p in parts]),
        loglik=np.concatenate([p.loglik for p in parts]),
        max_grad=np.concatenate([p.max_grad for p in parts]),
        hessian=np.concatenate([p.hessian for p in parts]),
        n_iter=max(p.n_iter for p in parts),
    )


def _fit(support: _Support, weights: np.ndarray, start: np.ndarray | None) -> EventFit:
    n_rep, n_par = weights.shape[0], support.n_par
    beta = np.zeros((n_rep, n_par)) if start is None else np.tile(np.asarray(start, dtype=float), (n_rep, 1))
    loglik, grad, info = _evaluate(support, weights, beta)
    ridge = 1e-10 * np.eye(n_par)
    n_iter = 0
    for _ in range(MAX_ITER):
        active = (np.abs(grad).max(axis=1) > GRAD_TOL) & (np.abs(beta).max(axis=1) < DIVERGED)
        if not active.any():
            break
        n_iter += 1
        step = np.linalg.solve(info[active] + ridge, grad[active][..., None])[..., 0]
        scale = np.ones(int(active.sum()))
        for _ in range(30):
            trial = beta[active] + scale[:, None] * step
            new_ll, new_grad, new_info = _evaluate(support, weights[active], trial)
            # a step may not lower ℓ by more than its rounding error: with 10^5 judgements ℓ is
            # ~10^5 and the gain of a last Newton step (~10^-14) drowns in it
            worse = new_ll < loglik[active] - 1e-13 * (1.0 + np.abs(loglik[active]))
            if not worse.any():
                break
            scale[worse] /= 2
        idx = np.flatnonzero(active)
        beta[idx], loglik[idx], grad[idx], info[idx] = trial, new_ll, new_grad, new_info
    return EventFit(beta, loglik, np.abs(grad).max(axis=1), info, n_iter)


def check_estimable(beats: np.ndarray, systems: tuple[str, ...], what: str) -> None:
    """Raise :class:`InsufficientDataError` unless the "preferred to" graph is strongly connected.

    ``beats[i, j] > 0`` when system i was preferred to system j at least once.
    """
    compared = beats + beats.T
    n_weak, weak = connected_components(csr_matrix(compared > 0), directed=False)
    if n_weak > 1:
        groups = [sorted(systems[i] for i in np.flatnonzero(weak == k)) for k in range(n_weak)]
        shown = " | ".join(", ".join(g) for g in groups)
        raise InsufficientDataError(
            f"no {what} estimate: the systems fall into groups never compared with each other ({shown}); "
            "their strengths cannot be put on one scale — collect comparisons across the groups"
        )
    n_strong, strong = connected_components(csr_matrix(beats > 0), directed=True, connection="strong")
    if n_strong > 1:
        # a strongly connected component that no other component beats: it was never dominated
        for k in range(n_strong):
            inside = strong == k
            if not (beats[np.ix_(~inside, inside)] > 0).any():
                top = sorted(systems[i] for i in np.flatnonzero(inside))
                raise InsufficientDataError(
                    f"no {what} estimate: {', '.join(top)} {'was' if len(top) == 1 else 'were'} preferred "
                    "in every judgement against the other systems (perfect separation), so the "
                    "maximum-likelihood strength is infinite; collect more judgements or report win counts"
                )
