"""``fit_native``: one rung of the CLMM ladder fitted in numpy/scipy (docs/native-engine.md).

The Laplace log-likelihood (:mod:`humaneval.clmm.laplace`) is maximised over thresholds, β and
the Cholesky factors L_f with L-BFGS-B on analytic gradients (diagonals of L_f bounded below by 0,
as in ``ordinal::clmm``; thresholds on the increment scale of :mod:`humaneval.clmm.params`). A
reached point with a singular Ψ is checked for optimality over positive semi-definite Ψ and left
along an ascent direction when it fails. The Hessian is then taken once, by forward differences of
the analytic gradient on the natural scale, over the parameters that are not on the boundary
(diagonal entries < 1e-3 are left out, as ``ordinal`` does). vcov(β) is the β block of its inverse
(random-effect parameters profiled out), cond.H the ratio of its extreme eigenvalues and max.grad
the largest free gradient entry — the quantities R reports, so both engines are judged by the same
rules (docs/native-engine.md).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from typing import NamedTuple

import numpy as np
import scipy
from scipy import optimize
from threadpoolctl import ThreadpoolController

from humaneval import __version__
from humaneval.clmm.design import FittedTerm, RandomDesign, random_design
from humaneval.clmm.dispatch import laplace_problem
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.links import check_link, quantile
from humaneval.clmm.params import ParamLayout
from humaneval.clmm.quadrature import QuadratureProblem
from humaneval.clmm.result import GRAD_TOL, FitResult, assess
from humaneval.clmm.spec import ClmmSpec
from humaneval.clmm.structures import ClmmData, structure_spec
from humaneval.core.docstrings import shared_docs
from humaneval.errors import FitFailedError, OptionError
from humaneval.stats.heap import malloc_thresholds

BOUNDARY_TOL = 1e-3
RESTARTS = 2
STALL_GRAD = 1e-3
HESSIAN_STEP = 1e-5
START_SD = 0.5
BOUNDARY_PROBE = 0.1
NULL_TOL = 1e-6  # eigenvalues of Ψ below this × its largest (or 1) span its null space
CURVATURE_STEP = 1e-3
CURVATURE_TOL = 1e-2  # ∂ℓ/∂δ of Ψ + δ·vvᵀ above which a boundary point is a saddle, not a maximum
ESCAPES = 3
PROGRESS_SECONDS = 10.0
HEAP_MIN_ROWS = 100_000  # fits from this many observations keep their temporaries on the heap
RANDOM_INFO_TOL = 1e-5  # |eigenvalues| of the random-effect information below this × the largest: flat

_Function = Callable[[np.ndarray], tuple[float, np.ndarray]]  # x ↦ (value, gradient)
_Bounds = Sequence[tuple[float | None, float | None]]  # L-BFGS-B's (low, high) per parameter
_Ascent = tuple[str, np.ndarray, float]  # (factor, direction v, slope) from _ascent_on_boundary
_OptimiserEnd = tuple[np.ndarray, np.ndarray, float, float, np.ndarray, int, str, int]  # an _Optimum's fields


def fit_native(
    data: ClmmData,
    structure: str,
    link: str = "logit",
    *,
    start: FitResult | None = None,
    n_agq: int = 1,
    max_iter: int = 2000,
    grad_tol: float = GRAD_TOL,
    progress: Callable[[str], None] | None = None,
) -> FitResult:
    """Fit a named ``structure`` (maximal, nested, uncorrelated, intercepts) of system differences.

    A shortcut for :func:`fit_spec` on :func:`~humaneval.clmm.structures.structure_spec`; the
    result also carries the systems (``systems``, ``beta`` per non-reference system).
    """
    spec = structure_spec(data, structure)
    result = fit_spec(
        spec, link, start=start, n_agq=n_agq, max_iter=max_iter, grad_tol=grad_tol, progress=progress
    )
    return replace(
        result,
        structure=structure,
        systems=tuple(data.systems),
        response=data.response,
        levels=tuple(data.levels),
    )


@shared_docs
def fit_spec(
    spec: ClmmSpec,
    link: str = "logit",
    *,
    start: FitResult | None = None,
    n_agq: int = 1,
    max_iter: int = 2000,
    grad_tol: float = GRAD_TOL,
    progress: Callable[[str], None] | None = None,
) -> FitResult:
    """Fit the CLMM ``spec`` by Laplace (or adaptive quadrature): the matrix-level entry point.

    Parameters
    ----------
    spec:
        From a formula (:func:`humaneval.clmm.formula.clmm_spec`) or from matrices
        (:meth:`humaneval.clmm.spec.ClmmSpec.from_matrices`).
    link:
        %(link)s
    start:
        A fit of the same data to start from (e.g. a lower rung, or the model that generated a
        simulated study): its thresholds, β and Ψ, as far as the shapes match.
    n_agq:
        > 1 replaces the Laplace approximation by adaptive Gauss–Hermite quadrature with that many
        nodes (``nAGQ`` of ``ordinal::clmm``; only for a single random intercept).
    max_iter, grad_tol:
        Optimiser iterations; the max.grad above which the fit counts as failed (unless the
        relative gradient is below :data:`~humaneval.clmm.result.REL_GRAD_TOL`).
    progress:
        Called with one line (evaluations so far, logLik, elapsed seconds) every
        ``PROGRESS_SECONDS`` of a long fit; fits shorter than that say nothing.

    Returns
    -------
    FitResult
        Diagnostics say whether the fit failed; :class:`FitFailedError` is raised only when no
        estimates exist at all.

    Notes
    -----
    BLAS runs single-threaded during the fit: every matrix is small, and waking threads on a busy
    machine cost more than the whole optimiser (measured: 0.45 s → 0.18 s for the intercepts fit).

    Examples
    --------
    Christensen's CLMM of the wine data (ordinal::clmm logLik −81.57):

    >>> from humaneval.clmm.formula import clmm_spec
    >>> from humaneval.io.datasets import wine
    >>> round(fit_spec(clmm_spec("rating ~ temp + contact + (1 | judge)", wine())).loglik, 4)
    -81.5654
    """
    if spec.scale is not None or not spec.terms:  # scale effects, or a CLM: humaneval.clmm.scale
        from humaneval.clmm.scale import fit_scale

        if n_agq > 1:
            raise OptionError("n_agq > 1 (adaptive quadrature) is not available with scale effects")
        with _blas_controller().limit(limits=1):
            return fit_scale(spec, link, start=start, max_iter=max_iter, grad_tol=grad_tol)
    with _blas_controller().limit(limits=1), _arrays_on_heap(spec.nobs):
        return _fit(spec, link, start, n_agq, max_iter, grad_tol, progress)


#: Substrings of the file names of the libraries threadpoolctl can limit (BLAS and OpenMP runtimes).
THREADPOOL_LIBRARIES = ("blas", "omp", "mkl", "blis")


class _ThreadpoolScan(ThreadpoolController):
    """threadpoolctl's controller, looking only at libraries whose file name can be a BLAS or OpenMP
    runtime: its full scan resolves the path of every loaded library (≈ 200 with pandas and scipy;
    12 ms CPU, a quarter of a one-shot 1,500-rating fit)."""

    def _make_controller_from_path(self, filepath: str) -> None:
        name = os.path.basename(filepath).lower()
        if any(part in name for part in THREADPOOL_LIBRARIES):
            super()._make_controller_from_path(filepath)


@cache
def _blas_controller() -> ThreadpoolController:
    if hasattr(ThreadpoolController, "_make_controller_from_path"):
        return _ThreadpoolScan()
    return ThreadpoolController()


@contextmanager
def _arrays_on_heap(nobs: int) -> Iterator[None]:
    """Keep a large fit's per-observation temporaries on glibc's heap (Linux; elsewhere a no-op).

    Arrays above glibc's mmap threshold (at most 32 MiB) are mapped and page-faulted afresh each
    time; a fit of 10^6 ratings allocates n × q arrays of 40 MB hundreds of times, which cost as much
    system time as half its arithmetic (88 of 236 CPU-s for the maximal fit; a 384k intercepts fit:
    2.4 s → 0.2 s, 18× fewer page faults). The thresholds are raised for the fit and then left at
    the values glibc's own adaptive rule reaches (mmap 32 MiB, trim 64 MiB).
    """
    if nobs < HEAP_MIN_ROWS:
        yield
        return
    with malloc_thresholds(1 << 30, 1 << 30, restore=(32 << 20, 64 << 20)):
        yield


def _fit(
    spec: ClmmSpec,
    link: str,
    start: FitResult | None,
    n_agq: int,
    max_iter: int,
    grad_tol: float,
    progress: Callable[[str], None] | None = None,
) -> FitResult:
    check_link(link)
    clock = time.perf_counter()
    reporter = None if progress is None else _Progress(progress, clock)
    model = _likelihood(spec, link, n_agq, reporter)
    best, check = _maximise(model, spec, link, start, max_iter)
    if reporter is not None:
        reporter.phase = "standard errors"
    hess, grad = _hessian(model, best.x, best.free)
    return _fit_result(spec, link, n_agq, grad_tol, model, best, check, hess, grad, clock)


@dataclass(frozen=True)
class _Likelihood:
    """The Laplace (or quadrature) log-likelihood of one spec over the flat parameter vector."""

    problem: LaplaceProblem | QuadratureProblem
    layout: ParamLayout
    jac: np.ndarray
    design: RandomDesign
    reporter: _Progress | None = None
    last: list = field(default_factory=list)  # [x, ℓ, gradient, warm start after it] of the last call

    def loglik_and_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """ℓ and its gradient at the natural-scale vector ``x`` (−∞ and zeros where ℓ is not finite).

        The same ``x`` as the last call (the optimiser's end point, asked for again by the optimum
        checks and the Hessian) returns that call's values and puts back the modes it left, exactly
        what evaluating again from those converged modes would give.
        """
        laplace = _laplace(self.problem)
        if self.last and np.array_equal(self.last[0], x):
            laplace.restore(self.last[3])
            return self.last[1], self.last[2].copy()
        layout = self.layout
        tau, beta, factors = layout.split(x)
        value = self.problem.evaluate(self.jac @ tau, beta, factors)
        if self.reporter is not None:
            self.reporter.evaluated(value.loglik)
        if not np.isfinite(value.loglik):
            loglik, grad = -np.inf, np.zeros(layout.size)
        else:
            loglik = value.loglik
            assert value.grad_theta is not None and value.grad_beta is not None  # a finite value has them
            assert value.grad_factors is not None
            grad = layout.flatten(self.jac.T @ value.grad_theta, value.grad_beta, value.grad_factors)
        self.last[:] = [x.copy(), loglik, grad.copy(), laplace.state()]
        return loglik, grad

    def snapshot(self) -> tuple:
        """The warm start and the last call, to :meth:`resume` after evaluating elsewhere."""
        return _laplace(self.problem).state(), list(self.last)

    def resume(self, snapshot: tuple) -> None:
        """Put back a :meth:`snapshot`: the next evaluation starts as if none had happened since."""
        _laplace(self.problem).restore(snapshot[0])
        self.last[:] = snapshot[1]

    def objective(self, z: np.ndarray) -> tuple[float, np.ndarray]:
        """−ℓ and its gradient at the optimiser-scale vector ``z`` (what L-BFGS-B minimises)."""
        value, grad = self.loglik_and_grad(self.layout.from_optimizer(z))
        if not np.isfinite(value):
            return np.inf, np.zeros_like(z)
        return -value, -self.layout.gradient_to_optimizer(z, grad)


class _Optimum(NamedTuple):
    """What one optimiser run (:func:`_optimise`, :func:`_escape`) reached."""

    z: np.ndarray
    x: np.ndarray
    loglik: float
    max_grad: float
    free: np.ndarray
    code: int
    message: str
    n_iter: int

    def then(self, found: _Optimum) -> _Optimum:
        """``found``, a later and better run, counting the iterations of both."""
        return found._replace(n_iter=self.n_iter + found.n_iter)


class _Progress:
    """Counts likelihood evaluations and says where a long fit is every ``PROGRESS_SECONDS``."""

    def __init__(self, say: Callable[[str], None], clock: float) -> None:
        self.say, self.clock, self.last = say, clock, clock
        self.count, self.best, self.phase = 0, -np.inf, "optimising"

    def evaluated(self, loglik: float) -> None:
        self.count += 1
        self.best = max(self.best, loglik) if np.isfinite(loglik) else self.best
        now = time.perf_counter()
        if now - self.last >= PROGRESS_SECONDS:
            self.last = now
            self.say(
                f"native CLMM: {self.phase}, {self.count} likelihood evaluations, best logLik "
                f"{self.best:.2f}, {now - self.clock:.0f} s"
            )


def _likelihood(spec: ClmmSpec, link: str, n_agq: int, reporter: _Progress | None = None) -> _Likelihood:
    design = random_design(spec.terms)
    jac = spec.jacobian
    layout = ParamLayout(jac.shape[1], len(spec.beta_names), design.terms, spec.threshold == "flexible")
    if int(n_agq) != n_agq or n_agq < 1:
        raise OptionError(f"n_agq must be a whole number of at least 1, not {n_agq!r}")
    laplace = laplace_problem(spec.y, spec.x, design, link, jac.shape[0])
    problem: LaplaceProblem | QuadratureProblem = laplace
    if n_agq > 1:
        problem = QuadratureProblem(laplace, int(n_agq))
    return _Likelihood(problem, layout, jac, design, reporter)


def _maximise(
    model: _Likelihood, spec: ClmmSpec, link: str, start: FitResult | None, max_iter: int
) -> tuple[_Optimum, tuple[str, ...]]:
    """The best point found from the start, a boundary probe and escapes from saddles of a singular Ψ,
    and the warning when logLik still rises along a covariance direction there."""
    layout = model.layout
    diag = layout.diagonal_mask()
    bounds = [(0.0, None) if d else (None, None) for d in diag]

    def run(z: np.ndarray) -> _Optimum:
        return _Optimum(
            *_optimise(
                model.objective, model.loglik_and_grad, layout, z, bounds, diag, max_iter, spec.formula
            )
        )

    best = run(layout.to_optimizer(_start_vector(spec, layout, link, start)))
    best = _probe_boundary(model, best, diag, run)
    best, ascent = _escape_saddles(model, best, bounds, diag, max_iter, spec.formula)
    if ascent is None:
        return best, ()
    # re-optimising along the direction found nothing higher: flag, do not fail
    term, _, slope = ascent
    model.loglik_and_grad(best.x)
    return best, (
        f"optimum check: logLik rises along a direction of the {term} covariance (slope {slope:.3g} "
        "per unit variance) but re-optimising from there found no higher logLik; the fit may depend "
        "on its start",
    )


def _probe_boundary(
    model: _Likelihood, best: _Optimum, diag: np.ndarray, run: Callable[[np.ndarray], _Optimum]
) -> _Optimum:
    """Re-run from small positive variances when a diagonal of L sits at 0 and that is better.

    L = 0 is a stationary point of the Laplace likelihood (it is even in each column of L), so a
    variance can stick at the boundary although a small positive one is better.
    """
    layout, x = model.layout, best.x
    if not np.any(diag & (x < BOUNDARY_TOL)):
        return best
    probe = layout.to_optimizer(np.where(diag & (x < BOUNDARY_TOL), BOUNDARY_PROBE, x))
    at_optimum = model.snapshot()
    if model.loglik_and_grad(layout.from_optimizer(probe))[0] > best.loglik:
        found = run(probe)
        if found.loglik > best.loglik:
            return best.then(found)
        model.loglik_and_grad(x)  # leave the warm-start modes at the reported optimum
    else:
        model.resume(at_optimum)  # the probe's modes would be a poor start for the Hessian's columns
    return best


def _escape_saddles(
    model: _Likelihood, best: _Optimum, bounds: _Bounds, diag: np.ndarray, max_iter: int, formula: str
) -> tuple[_Optimum, _Ascent | None]:
    """Up to ``ESCAPES`` re-optimisations along an ascent direction of a singular Ψ; the best point
    and the ascent still found there (``None`` when it passes the optimality check)."""
    for _ in range(ESCAPES):
        ascent = _ascent_on_boundary(model.problem, model.layout, model.jac, best.x)
        if ascent is None:
            break
        found = _escape(
            model.objective,
            model.loglik_and_grad,
            model.layout,
            best.x,
            ascent,
            bounds,
            diag,
            max_iter,
            formula,
        )
        if found is None or found[2] <= best.loglik + 1e-8:
            model.loglik_and_grad(best.x)
            break
        best = best.then(_Optimum(*found))
    else:
        ascent = _ascent_on_boundary(model.problem, model.layout, model.jac, best.x)
    return best, ascent


def _fit_result(
    spec: ClmmSpec,
    link: str,
    n_agq: int,
    grad_tol: float,
    model: _Likelihood,
    best: _Optimum,
    check: tuple[str, ...],
    hess: np.ndarray,
    grad: np.ndarray,
    clock: float,
) -> FitResult:
    """The :class:`FitResult` at ``best``: covariances from the Hessian ``hess`` and the diagnostics."""
    layout, jac, design = model.layout, model.jac, model.design
    tau, beta, factors = layout.split(best.x)
    cond_h, cond_fixed, vcov_tb = _covariance(hess, layout)
    vcov = vcov_tb[layout.n_thresholds :, layout.n_thresholds :]
    random_effects = {t.factor: f @ f.T for t, f in zip(design.terms, factors, strict=True)}
    diagnostics = assess(
        extra_warnings=check,
        code=best.code,
        message=best.message,
        max_grad=best.max_grad,
        cond_h=cond_h,
        cond_fixed=cond_fixed,
        n_iter=best.n_iter,
        fit_seconds=time.perf_counter() - clock,
        vcov=vcov,
        random_effects=random_effects,
        grad_tol=grad_tol,
        beta=beta,
        thresholds=jac @ tau,
        beta_names=tuple(spec.beta_names),
        rel_grad=_relative_gradient(-hess, grad),
    )
    return FitResult(
        engine="native",
        structure="formula",
        link=link,
        systems=(),
        response=spec.response,
        levels=tuple(spec.levels),
        thresholds=np.asarray(jac @ tau, dtype=float).copy(),
        beta=np.asarray(beta, dtype=float).copy(),
        vcov=vcov,
        random_effects=random_effects,
        loglik=float(best.loglik),
        aic=float(-2.0 * best.loglik + 2.0 * layout.size),
        nobs=spec.nobs,
        diagnostics=diagnostics,
        versions={"humaneval": __version__, "numpy": np.__version__, "scipy": scipy.__version__},
        formula=spec.formula + (f", nAGQ = {n_agq}" if n_agq > 1 else ""),
        beta_names=tuple(spec.beta_names),
        threshold=spec.threshold,
        tau=np.asarray(tau, dtype=float).copy(),
        vcov_theta_beta=vcov_tb,
        random_columns={t.factor: tuple(t.columns) for t in design.terms},
        n_params=layout.size,
        spec=spec,
    )


def _covariance(hess: np.ndarray, layout: ParamLayout) -> tuple[float, float, np.ndarray]:
    """cond.H of the free parameters' information, and the condition number and vcov of (τ, β)."""
    info = -hess  # observed information of the free parameters
    eig = np.linalg.eigvalsh(info) if info.size else np.array([1.0])
    cond_h = float(eig.max() / eig.min()) if eig.min() > 0 else np.inf
    n_tb = layout.n_thresholds + layout.n_beta  # τ and β are never on a boundary: the first free ones
    vcov_tb, cond_fixed = _fixed_vcov(info, n_tb)
    return cond_h, cond_fixed, vcov_tb


def _relative_gradient(info: np.ndarray, grad: np.ndarray) -> float:
    """The largest Newton step still to go, I⁻¹g, in standard errors √(I⁻¹)_jj of each free parameter
    (directions without information, as in :func:`_fixed_vcov`, left out): the scale-free convergence
    criterion :data:`~humaneval.clmm.result.REL_GRAD_TOL` checks."""
    if not info.size:
        return 0.0
    eigval, eigvec = np.linalg.eigh(0.5 * (info + info.T))
    keep = eigval > RANDOM_INFO_TOL * max(np.abs(eigval).max(), 1.0)
    inverse = (eigvec[:, keep] / eigval[keep]) @ eigvec[:, keep].T
    se = np.sqrt(np.clip(np.diag(inverse), 0.0, None))
    step = inverse @ grad
    known = se > 0
    return float(np.max(np.abs(step[known]) / se[known])) if known.any() else float("nan")


def _ascent_on_boundary(
    problem: LaplaceProblem | QuadratureProblem, layout: ParamLayout, jac: np.ndarray, x: np.ndarray
) -> _Ascent | None:
    """Optimality check of a singular Ψ: ``(factor, direction v, slope)`` if ℓ rises along Ψ + δ·vvᵀ.

    With the Cholesky parametrisation a zero column of L_f is a stationary point whatever the
    data say (ℓ is even in each column), and it also freezes the rows below it, so L-BFGS-B can
    stop there with a small gradient although the maximum lies elsewhere (seen when a simulated
    fit starts from the generating model, and behind most cond.H > 1e6 among simulated maximal
    fits). At a maximum over positive semi-definite Ψ the gradient G = ∂ℓ/∂Ψ is negative
    semi-definite (the KKT conditions, with GΨ = 0). One gradient at the invertible factor
    L = [V₊√λ₊, εN] (N the null space of Ψ; the same Ψ up to ε²NNᵀ) gives ∂ℓ/∂L = 2GL, hence G;
    its largest eigenvalue per covariance block decides. None when every Ψ passes or none is
    singular (then G = 0 already follows from a zero gradient in L).
    """
    tau, beta, factors = layout.split(x)
    probes, nulls = [], []
    for term, factor in zip(layout.terms, factors, strict=True):
        probe, null = np.zeros_like(factor), np.zeros((term.size, 0))
        start = 0
        for size in term.blocks:
            sl = slice(start, start + size)
            eigval, eigvec = np.linalg.eigh(factor[sl, sl] @ factor[sl, sl].T)
            small = eigval < NULL_TOL * max(1.0, eigval.max())
            block = np.where(small, CURVATURE_STEP, np.sqrt(np.clip(eigval, 0.0, None)))
            probe[sl, sl] = eigvec * block
            embedded = np.zeros((term.size, int(small.sum())))
            embedded[sl] = eigvec[:, small]
            null = np.hstack([null, embedded])
            start += size
        probes.append(probe)
        nulls.append(null)
    if all(n.shape[1] == 0 for n in nulls):
        return None
    saved = [u.copy() for u in _laplace(problem).modes]
    value = problem.evaluate(jac @ tau, beta, tuple(probes))
    _laplace(problem).modes[:] = saved
    if not np.isfinite(value.loglik):
        return None
    assert value.grad_factors is not None  # a finite value has them
    best = None
    for term, probe, null, grad in zip(layout.terms, probes, nulls, value.grad_factors, strict=True):
        if null.shape[1] == 0:
            continue
        twice = grad @ np.linalg.pinv(probe)  # ∂ℓ/∂L · L⁻¹ = 2 ∂ℓ/∂Ψ
        slope = 0.25 * (twice + twice.T)
        start = 0
        for size in term.blocks:
            sl = slice(start, start + size)
            eigval, eigvec = np.linalg.eigh(slope[sl, sl])
            if eigval[-1] > CURVATURE_TOL and (best is None or eigval[-1] > best[2]):
                direction = np.zeros(term.size)
                direction[sl] = eigvec[:, -1]
                best = (term.factor, direction, float(eigval[-1]))
            start += size
    return best


def _escape(
    objective: _Function,
    loglik_and_grad: _Function,
    layout: ParamLayout,
    x: np.ndarray,
    ascent: _Ascent,
    bounds: _Bounds,
    diag: np.ndarray,
    max_iter: int,
    formula: str,
) -> _OptimiserEnd | None:
    """Re-optimise from Ψ + δ·vvᵀ (the best δ of a few) with a full-rank factor; None if all fail."""
    factor_name, direction, _ = ascent
    tau, beta, factors = layout.split(x)
    k = next(i for i, t in enumerate(layout.terms) if t.factor == factor_name)
    psi = factors[k] @ factors[k].T
    best, best_value = None, -np.inf
    for delta in (0.05, 0.2, 0.5):
        moved = psi + delta * np.outer(direction, direction)
        trial = list(factors)
        trial[k] = _block_cholesky(layout.terms[k], moved)
        candidate = layout.flatten(tau, beta, tuple(trial))
        value = loglik_and_grad(candidate)[0]
        if value > best_value:
            best, best_value = candidate, value
    if best is None:
        return None
    z = layout.to_optimizer(best)
    return _optimise(objective, loglik_and_grad, layout, z, bounds, diag, max_iter, formula)


def _block_cholesky(term: FittedTerm, psi: np.ndarray) -> np.ndarray:
    """A lower-triangular factor of Ψ (within the term's blocks), nudged to full rank so that no
    column of L starts at the stationary zero."""
    out = np.zeros_like(psi)
    start = 0
    for size in term.blocks:
        sl = slice(start, start + size)
        out[sl, sl] = np.linalg.cholesky(psi[sl, sl] + 1e-2 * np.eye(size))
        start += size
    return out


def _fixed_vcov(info: np.ndarray, n_tb: int) -> tuple[np.ndarray, float]:
    """vcov of (τ, β) and the condition number of their information with the random-effect
    parameters profiled out, I_tt − I_tr I_rr⁺ I_rt.

    Equal to the (τ, β) block of info⁻¹ when I_rr is positive definite. Directions of I_rr without
    information (|eigenvalue| ≤ 1e-5 × the largest, below the accuracy of the forward-difference
    Hessian: flat L entries of a singular Ψ) are left out
    of the pseudo-inverse instead of swamping the inverse; a clearly negative one (not a maximum)
    makes the condition number infinite.
    """
    i_tt, i_tr, i_rr = info[:n_tb, :n_tb], info[:n_tb, n_tb:], info[n_tb:, n_tb:]
    concave = True
    if i_rr.size:
        eigval, eigvec = np.linalg.eigh(i_rr)
        flat = RANDOM_INFO_TOL * max(np.abs(eigval).max(), 1.0)
        concave = bool(eigval.min() >= -flat)
        keep = eigval > flat
        i_tt = i_tt - (i_tr @ eigvec[:, keep] / eigval[keep]) @ (eigvec[:, keep].T @ i_tr.T)
    i_tt = 0.5 * (i_tt + i_tt.T)
    eig = np.linalg.eigvalsh(i_tt) if i_tt.size else np.array([1.0])
    cond = float(eig.max() / eig.min()) if eig.min() > 0 and concave else np.inf
    try:
        return np.linalg.inv(i_tt), cond
    except np.linalg.LinAlgError:
        return np.full_like(i_tt, np.nan), np.inf


def _laplace(problem: LaplaceProblem | QuadratureProblem) -> LaplaceProblem:
    return problem.laplace if isinstance(problem, QuadratureProblem) else problem


def _optimise(
    objective: _Function,
    loglik_and_grad: _Function,
    layout: ParamLayout,
    z: np.ndarray,
    bounds: _Bounds,
    diag: np.ndarray,
    max_iter: int,
    formula: str,
) -> _OptimiserEnd:
    """L-BFGS-B with up to ``RESTARTS`` restarts; the end point, its logLik, max.grad and status."""
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
            raise FitFailedError(f"native CLMM ({formula}): the optimiser ended where the likelihood is zero")
        free = ~(diag & (x < BOUNDARY_TOL))
        max_grad = float(np.max(np.abs(grad[free])))
        # a stalled line search (status 2) right at the optimum is convergence to numerical precision;
        # anywhere else, restart from the last point with a fresh curvature memory
        if found.success or (found.status == 2 and max_grad < STALL_GRAD):
            code, message = 0, str(found.message)
            break
        code, message = int(found.status) or 1, f"{found.message} (max.grad {max_grad:.2g})"
    return z, x, loglik, max_grad, free, code, message, n_iter


def _start_vector(spec: ClmmSpec, layout: ParamLayout, link: str, start: FitResult | None) -> np.ndarray:
    """θ from the cumulative category proportions, β = 0 and L_f = 0.5·I; or values from ``start``."""
    jac = spec.jacobian
    if start is not None and len(start.thresholds) == jac.shape[0] and len(start.beta) == layout.n_beta:
        theta = np.asarray(start.thresholds, dtype=float)
        beta = np.asarray(start.beta, dtype=float)
    else:
        counts = np.bincount(spec.y, minlength=jac.shape[0] + 1)
        cum = np.cumsum(counts)[:-1] / counts.sum()
        theta = quantile(np.clip(cum, 1e-3, 1 - 1e-3), link)
        theta = np.maximum.accumulate(theta + 1e-3 * np.arange(theta.size))
        beta = np.zeros(layout.n_beta)
    tau = theta if spec.threshold == "flexible" else np.linalg.lstsq(jac, theta, rcond=None)[0]
    factors = []
    for term in layout.terms:
        psi = None if start is None else start.random_effects.get(term.factor)
        factors.append(_start_factor(term, psi))
    return layout.flatten(tau, beta, tuple(factors))


def _start_factor(term: FittedTerm, psi: np.ndarray | None) -> np.ndarray:
    """A lower-triangular L with L Lᵀ ≈ Ψ (restricted to the term's form); 0.5 for what Ψ lacks."""
    size, covariance = term.size, term.covariance
    if psi is None:
        return START_SD * np.eye(size)
    psi = np.asarray(psi, dtype=float)
    if psi.shape[0] != size:  # e.g. an intercept-only start for a term with slopes
        sd = np.full(size, START_SD)
        sd[0] = np.sqrt(max(psi[0, 0], 0.0)) + 0.05
        return np.diag(sd)
    if covariance != "unstructured":  # diagonal, or blocks: start from the variances only
        return np.diag(np.sqrt(np.clip(np.diag(psi), 0.0, None)) + 0.05)
    return np.linalg.cholesky(psi + 1e-2 * np.eye(size))


def _hessian(model: _Likelihood, x: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward differences of the analytic gradient over the free parameters, symmetrised, and that
    gradient at ``x``.

    One gradient per free parameter (central differences took two). The step h = 1e-5·max(1, |x_j|)
    balances the O(h) truncation error of each column against the gradient's own error (modes
    solved to 1e-9) divided by h: SEs of (θ, β) agree with central differences to 4–5e-5 relative
    on the Likert maximal fit, a 20-system maximal fit and three interior optima of wine, soup and
    simulated data (3.6–4.4e-4 with h = 1e-4; 1e-6 is more accurate on small models but its noise
    reaches 8e-5 with 445 parameters). Every step starts from the modes at ``x``, so each mode
    re-solve is one or two chord steps with the factorisation of H left by the evaluation before
    (docs/native-engine.md).
    """
    idx = np.flatnonzero(free)
    laplace = _laplace(model.problem)
    modes = laplace.modes
    base = [u.copy() for u in modes]
    grad0 = model.loglik_and_grad(x)[1][idx]
    hess = np.empty((idx.size, idx.size))
    try:
        for k, j in enumerate(idx):
            step = HESSIAN_STEP * max(1.0, abs(x[j]))
            up = x.copy()
            up[j] += step
            modes[:] = [u.copy() for u in base]
            hess[:, k] = (model.loglik_and_grad(up)[1][idx] - grad0) / step
    finally:
        modes[:] = base
    return 0.5 * (hess + hess.T), grad0
