"""``fit_native``: one rung of the CLMM ladder fitted in numpy/scipy (issue 8, spec §5.3–5.5).

The Laplace log-likelihood (:mod:`humaneval.clmm.laplace`) is maximised over thresholds, β and
the Cholesky factors L_f with L-BFGS-B on analytic gradients (diagonals of L_f bounded below by 0,
as in ``ordinal::clmm``; thresholds on the increment scale of :mod:`humaneval.clmm.params`). The
Hessian is then taken once, by central differences of the analytic gradient on the natural scale,
over the parameters that are not on the boundary (diagonal entries < 1e-3 are left out, as
``ordinal`` does). vcov(β) is the β block of its inverse, cond.H the ratio of its extreme
eigenvalues and max.grad the largest free gradient entry — the quantities R reports, so both
engines are judged by the same rules (spec §5.5).
"""

from __future__ import annotations

import time
from functools import cache

import numpy as np
import scipy
from scipy import optimize, special
from threadpoolctl import ThreadpoolController

from humaneval import __version__
from humaneval.analysis.prepare import ClmmData, r_formula, random_terms
from humaneval.analysis.result import GRAD_TOL, FitResult, assess
from humaneval.clmm.design import random_design
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.params import ParamLayout
from humaneval.clmm.quadrature import QuadratureProblem
from humaneval.errors import FitFailedError, InsufficientDataError, ModelSpecError
from humaneval.model import LINKS

BOUNDARY_TOL = 1e-3
RESTARTS = 2
STALL_GRAD = 1e-3
HESSIAN_STEP = 1e-4
START_SD = 0.5


def fit_native(
    data: ClmmData,
    structure: str,
    link: str = "logit",
    *,
    start: FitResult | None = None,
    n_agq: int = 1,
    max_iter: int = 2000,
    grad_tol: float = GRAD_TOL,
) -> FitResult:
    """Fit ``structure`` (spec §5.1: maximal, nested, uncorrelated, intercepts) by Laplace.

    ``start`` warm-starts from another fit of the same data (e.g. a lower rung, or the model that
    generated a simulated study): its thresholds, β and Ψ (as far as the structure has them) are
    the starting point. ``n_agq`` > 1 replaces the Laplace approximation by adaptive Gauss–Hermite
    quadrature with that many nodes (``nAGQ`` of ``ordinal::clmm``; only for a single grouping factor
    with a random intercept, e.g. ``intercepts`` on a nested design; :mod:`humaneval.clmm.quadrature`).
    Returns a result whose diagnostics say whether the fit failed; raises
    :class:`FitFailedError` only when no estimates exist at all.

    BLAS runs single-threaded during the fit: every matrix is small, and waking threads on a busy
    machine cost more than the whole optimiser (measured: 0.45 s → 0.18 s for the intercepts fit).
    """
    with _blas_controller().limit(limits=1):
        return _fit(data, structure, link, start, n_agq, max_iter, grad_tol)


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()


def _fit(
    data: ClmmData,
    structure: str,
    link: str,
    start: FitResult | None,
    n_agq: int,
    max_iter: int,
    grad_tol: float,
) -> FitResult:
    if link not in LINKS:
        raise ModelSpecError(f"link must be one of {', '.join(LINKS)}, not {link!r}")
    if data.nobs == 0 or len(data.levels) < 2:
        raise InsufficientDataError("a CLMM needs at least one rating in each of two response categories")
    clock = time.perf_counter()
    design = random_design(data, random_terms(structure, data.nested))
    layout = ParamLayout(len(data.levels) - 1, len(data.systems) - 1, design.terms)
    if int(n_agq) != n_agq or n_agq < 1:
        raise ModelSpecError(f"n_agq must be a whole number of at least 1, not {n_agq!r}")
    problem = LaplaceProblem(data, design, link)
    if n_agq > 1:
        problem = QuadratureProblem(problem, int(n_agq))
    diag = layout.diagonal_mask()

    def loglik_and_grad(x: np.ndarray) -> tuple[float, np.ndarray]:
        value = problem.evaluate(*layout.split(x))
        if not np.isfinite(value.loglik):
            return -np.inf, np.zeros(layout.size)
        return value.loglik, layout.flatten(value.grad_theta, value.grad_beta, value.grad_factors)

    def objective(z: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = loglik_and_grad(layout.from_optimizer(z))
        if not np.isfinite(value):
            return np.inf, np.zeros_like(z)
        return -value, -layout.gradient_to_optimizer(z, grad)

    z = layout.to_optimizer(_start_vector(data, layout, link, start))
    bounds = [(0.0, None) if d else (None, None) for d in diag]
    n_iter = 0
    for _ in range(RESTARTS + 1):
        found = optimize.minimize(
            objective,
            z,
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": max_iter, "maxfun": 2 * max_iter, "ftol": 1e-13, "gtol": 1e-7, "maxcor": 40},
        )
        z, n_iter = found.x, n_iter + int(found.nit)
        x = layout.from_optimizer(z)
        loglik, grad = loglik_and_grad(x)
        if not np.isfinite(loglik):
            raise FitFailedError(
                f"native CLMM ({structure}): the optimiser ended where the likelihood is zero"
            )
        free = ~(diag & (x < BOUNDARY_TOL))
        max_grad = float(np.max(np.abs(grad[free])))
        # a stalled line search (status 2) right at the optimum is convergence to numerical precision;
        # anywhere else, restart from the last point with a fresh curvature memory
        if found.success or (found.status == 2 and max_grad < STALL_GRAD):
            code, message = 0, str(found.message)
            break
        code, message = int(found.status) or 1, f"{found.message} (max.grad {max_grad:.2g})"

    hess = _hessian(loglik_and_grad, x, free)

    theta, beta, factors = layout.split(x)
    info = -hess  # observed information of the free parameters
    eig = np.linalg.eigvalsh(info) if info.size else np.array([1.0])
    cond_h = float(eig.max() / eig.min()) if eig.min() > 0 else np.inf
    try:
        cov = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        cov = np.full_like(info, np.nan)
    sl = slice(layout.n_thresholds, layout.n_thresholds + layout.n_beta)
    vcov = cov[sl, sl]
    random_effects = {t.factor: f @ f.T for t, f in zip(design.terms, factors, strict=True)}
    seconds = time.perf_counter() - clock
    diagnostics = assess(
        code=code,
        message=message,
        max_grad=max_grad,
        cond_h=cond_h,
        n_iter=n_iter,
        fit_seconds=seconds,
        vcov=vcov,
        random_effects=random_effects,
        grad_tol=grad_tol,
    )
    return FitResult(
        engine="native",
        structure=structure,
        link=link,
        systems=tuple(data.systems),
        response=data.response,
        levels=tuple(data.levels),
        thresholds=np.asarray(theta, dtype=float).copy(),
        beta=np.asarray(beta, dtype=float).copy(),
        vcov=vcov,
        random_effects=random_effects,
        loglik=float(loglik),
        aic=float(-2.0 * loglik + 2.0 * layout.size),
        nobs=data.nobs,
        diagnostics=diagnostics,
        versions={"humaneval": __version__, "numpy": np.__version__, "scipy": scipy.__version__},
        formula=r_formula(structure, data.nested, tuple(data.systems))
        + (f", nAGQ = {n_agq}" if n_agq > 1 else ""),
    )


def _start_vector(data: ClmmData, layout: ParamLayout, link: str, start: FitResult | None) -> np.ndarray:
    """θ from the cumulative category proportions, β = 0 and L_f = 0.5·I; or values from ``start``."""
    if (
        start is not None
        and len(start.thresholds) == layout.n_thresholds
        and len(start.beta) == layout.n_beta
    ):
        theta = np.asarray(start.thresholds, dtype=float)
        beta = np.asarray(start.beta, dtype=float)
    else:
        counts = np.bincount(data.y, minlength=layout.n_thresholds + 1)
        cum = np.cumsum(counts)[:-1] / counts.sum()
        quantile = special.logit if link == "logit" else special.ndtri
        theta = quantile(np.clip(cum, 1e-3, 1 - 1e-3))
        theta = np.maximum.accumulate(theta + 1e-3 * np.arange(theta.size))
        beta = np.zeros(layout.n_beta)
    factors = []
    for term in layout.terms:
        psi = None if start is None else start.random_effects.get(term.factor)
        factors.append(_start_factor(term.size, term.covariance, psi))
    return layout.flatten(theta, beta, tuple(factors))


def _start_factor(size: int, covariance: str, psi: np.ndarray | None) -> np.ndarray:
    """A lower-triangular L with L Lᵀ ≈ Ψ (restricted to the term's form); 0.5 for what Ψ lacks."""
    if psi is None:
        return START_SD * np.eye(size)
    psi = np.asarray(psi, dtype=float)
    if psi.shape[0] != size:  # e.g. an intercept-only start for a term with slopes
        sd = np.full(size, START_SD)
        sd[0] = np.sqrt(max(psi[0, 0], 0.0)) + 0.05
        return np.diag(sd)
    if covariance != "unstructured":
        return np.diag(np.sqrt(np.clip(np.diag(psi), 0.0, None)) + 0.05)
    return np.linalg.cholesky(psi + 1e-2 * np.eye(size))


def _hessian(loglik_and_grad, x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Central differences of the analytic gradient over the free parameters, symmetrised."""
    idx = np.flatnonzero(free)
    hess = np.empty((idx.size, idx.size))
    for k, j in enumerate(idx):
        step = HESSIAN_STEP * max(1.0, abs(x[j]))
        up, down = x.copy(), x.copy()
        up[j] += step
        down[j] -= step
        hess[:, k] = (loglik_and_grad(up)[1][idx] - loglik_and_grad(down)[1][idx]) / (2 * step)
    return 0.5 * (hess + hess.T)
