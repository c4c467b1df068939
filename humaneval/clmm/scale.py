"""Fitting cumulative link (mixed) models with scale effects: annotators who use the scale differently.

The latent variable of an observation has location xᵀβ + (random location intercepts) and logistic
spread exp(wᵀζ + s_a), where ζ are fixed scale effects (``ordinal::clm``'s ``scale = ~annotator``)
and s_a ~ N(0, σ_s²) an optional random log-scale per annotator, crossed with the location's random
intercepts. The likelihood integrates all random effects jointly by one Laplace approximation
(:mod:`humaneval.clmm.scale_laplace`, analytic gradient); it is maximised with L-BFGS-B and the
standard errors from central differences of that gradient. Without random effects the
model is a CLM and the likelihood is exact. docs/native-engine.md, "Scale effects".

References
----------
Christensen, R. H. B. (2019). Cumulative link models for ordinal regression with the R package
ordinal (scale effects, section 2.3).
Self, S. G. & Liang, K.-Y. (1987). Asymptotic properties of maximum likelihood estimators and
likelihood ratio tests under nonstandard conditions. JASA 82, 605–610 (the boundary LR test).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import scipy
from scipy import optimize, stats
from threadpoolctl import ThreadpoolController

from humaneval import __version__
from humaneval.clmm.links import check_link, quantile
from humaneval.clmm.result import GRAD_TOL, FitResult, assess
from humaneval.clmm.scale_laplace import ScaleLaplace, Slot
from humaneval.clmm.scale_spec import ScaleSpec
from humaneval.clmm.spec import ClmmSpec
from humaneval.core.docstrings import shared_docs
from humaneval.errors import FitFailedError, ModelSpecError, OptionError

START_SD = 0.5
START_SCALE_SD = 0.3
HESSIAN_STEP = 1e-5
BOUNDARY_TOL = 1e-3
INFEASIBLE = 1e12


@dataclass(frozen=True, eq=False)
class ScaleEstimates:
    """The scale part of a fit: fixed scale effects ζ with SEs, σ_s and each group's shift and spread.

    ``groups`` has one row per level of the random log-scale's factor (or of the first location
    factor named like it): ``shift`` (conditional mode of the location intercept, latent units),
    ``log_spread`` (ζ of that level's fixed term, or its conditional log-scale mode) and their
    conditional SDs ``shift_se`` / ``log_spread_se``. ``vcov`` is the covariance of (τ, β, ζ), for the
    EMMs under the scale model (:mod:`humaneval.clmm.scale_emmeans`).
    """

    names: tuple[str, ...]
    zeta: np.ndarray
    se: np.ndarray
    sd: float | None
    sd_se: float | None
    factor: str | None
    groups: pd.DataFrame | None = None
    vcov: np.ndarray | None = None

    def effects_frame(self) -> pd.DataFrame:
        """ζ per term with SE, z and the unadjusted p (one row per fixed scale column)."""
        z = self.zeta / self.se
        return pd.DataFrame(
            {
                "term": list(self.names),
                "estimate": self.zeta,
                "se": self.se,
                "z": z,
                "p": 2.0 * stats.norm.sf(np.abs(z)),
            }
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "scale_effects": [
                {"term": n, "estimate": float(e), "se": float(s)}
                for n, e, s in zip(self.names, self.zeta, self.se, strict=True)
            ],
            "scale_sd": None
            if self.sd is None
            else {"factor": self.factor, "estimate": self.sd, "se": self.sd_se},
        }


@dataclass(frozen=True)
class _Layout:
    n_tau: int
    n_beta: int
    n_zeta: int
    n_sd: int
    flexible: bool

    @property
    def size(self) -> int:
        return self.n_tau + self.n_beta + self.n_zeta + self.n_sd

    def split(self, x: np.ndarray):
        a, b, c = self.n_tau, self.n_tau + self.n_beta, self.n_tau + self.n_beta + self.n_zeta
        return x[:a], x[a:b], x[b:c], x[c:]

    def to_optimizer(self, x: np.ndarray) -> np.ndarray:
        z = x.copy()
        if self.flexible:
            z[1 : self.n_tau] = np.log(np.diff(x[: self.n_tau]))
        return z

    def from_optimizer(self, z: np.ndarray) -> np.ndarray:
        x = z.copy()
        if self.flexible:
            x[: self.n_tau] = np.cumsum(np.concatenate((z[:1], np.exp(z[1 : self.n_tau]))))
        return x

    def gradient_to_optimizer(self, z: np.ndarray, grad: np.ndarray) -> np.ndarray:
        out = grad.copy()
        if self.flexible:
            k = self.n_tau
            tail = np.cumsum(grad[:k][::-1])[::-1]
            out[:k] = tail * np.concatenate(((1.0,), np.exp(z[1:k])))
        return out


class _Model:
    """ℓ_LA over the flat natural-scale vector (τ, β, ζ, SDs)."""

    def __init__(self, spec: ClmmSpec, link: str) -> None:
        scale = spec.scale if spec.scale is not None else _no_scale(spec.nobs)
        for term in spec.terms:
            if term.size != 1 or not np.all(term.z == 1.0):
                raise ModelSpecError(
                    f"with scale effects only random intercepts (1 | factor) are supported, not the "
                    f"{term.covariance} term of {term.factor}; drop the slopes or the scale effects"
                )
        slots, offset = [], 0
        for term in spec.terms:
            slots.append(Slot(0, term.codes + offset))
            offset += term.n_groups
        if scale.random is not None:
            slots.append(Slot(1, scale.random.codes + offset))
            offset += scale.random.n_groups
        self.spec, self.scale, self.jac = spec, scale, spec.jacobian
        self.layout = _Layout(
            self.jac.shape[1], len(spec.beta_names), scale.n_zeta, len(slots), spec.threshold == "flexible"
        )
        self.problem = ScaleLaplace(spec.y, spec.x, scale.w, tuple(slots), offset, link, self.jac.shape[0])
        self.n_eval = 0

    def loglik_and_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        tau, beta, zeta, sd = self.layout.split(x)
        value = self.problem.evaluate(self.jac @ tau, beta, zeta, sd)
        self.n_eval += 1
        if not np.isfinite(value.loglik):
            return -np.inf, np.zeros(self.layout.size)
        assert value.grad_theta is not None and value.grad_sd is not None
        grad = np.concatenate(
            [self.jac.T @ value.grad_theta, value.grad_beta, value.grad_zeta, value.grad_sd]
        )
        return value.loglik, grad

    def objective(self, z: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = self.loglik_and_grad(self.layout.from_optimizer(z))
        if not np.isfinite(value):  # a huge finite value makes L-BFGS-B's line search step back
            return INFEASIBLE, np.zeros_like(z)
        return -value, -self.layout.gradient_to_optimizer(z, grad)


def _no_scale(nobs: int) -> ScaleSpec:
    return ScaleSpec("", np.zeros((nobs, 0)), ())


@shared_docs
def fit_scale(
    spec: ClmmSpec,
    link: str = "logit",
    *,
    start: FitResult | None = None,
    max_iter: int = 2000,
    grad_tol: float = GRAD_TOL,
) -> FitResult:
    """Fit a CLM or CLMM with scale effects (module docstring); what :func:`~humaneval.clmm.fit_spec`
    calls for a spec with ``scale`` or without random terms.

    Parameters
    ----------
    spec:
        From :func:`humaneval.clmm.formula.clmm_spec` with ``scale=`` (random terms: intercepts only).
    link:
        %(link)s
    start:
        A fit of the same data to start from (its thresholds and β).
    max_iter, grad_tol:
        L-BFGS-B iterations; the max.grad above which the fit counts as failed.

    Returns
    -------
    FitResult
        With ``scale`` (:class:`ScaleEstimates`); ``random_effects`` holds the location variances.

    Examples
    --------
    ``ordinal::clm(rating ~ temp + contact, scale = ~judge, data = wine)`` has logLik −81.459
    (tests/r/scale.R):

    >>> from humaneval.clmm.formula import clmm_spec
    >>> from humaneval.io.datasets import wine
    >>> fit = fit_scale(clmm_spec("rating ~ temp + contact", wine(), scale="~ judge"))
    >>> round(fit.loglik, 3)
    -81.459
    """
    check_link(link)
    with ThreadpoolController().limit(limits=1):  # small dense systems: threads only cost (fit.py)
        return _fit_scale(spec, link, start, max_iter, grad_tol)


def _fit_scale(
    spec: ClmmSpec, link: str, start: FitResult | None, max_iter: int, grad_tol: float
) -> FitResult:
    clock = time.perf_counter()
    model = _Model(spec, link)
    layout = model.layout
    x0 = _start(spec, model, link, start)
    bounds = [(None, None)] * (layout.size - layout.n_sd) + [(0.0, None)] * layout.n_sd
    z0 = layout.to_optimizer(x0)
    if model.objective(z0)[0] >= INFEASIBLE:
        raise FitFailedError("the scale model's likelihood is zero at the start values")
    res = optimize.minimize(
        model.objective,
        z0,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": max_iter, "ftol": 1e-13, "gtol": 1e-7, "maxcor": 20},
    )
    x = layout.from_optimizer(res.x)
    # a random SD stuck at 0 (a stationary point of the even Laplace likelihood): try from 0.1
    stuck = np.zeros(layout.size, dtype=bool)
    stuck[layout.size - layout.n_sd :] = x[layout.size - layout.n_sd :] < BOUNDARY_TOL
    n_iter = int(res.nit)
    if stuck.any():
        probe = np.where(stuck, 0.1, x)
        again = optimize.minimize(
            model.objective,
            layout.to_optimizer(probe),
            jac=True,
            method="L-BFGS-B",
            bounds=bounds,
            options={"maxiter": max_iter, "ftol": 1e-13, "gtol": 1e-7},
        )
        n_iter += int(again.nit)
        if -again.fun > -res.fun:
            res, x = again, layout.from_optimizer(again.x)
    loglik, grad = model.loglik_and_grad(x)
    if not np.isfinite(loglik):
        raise FitFailedError("the scale model's optimiser ended where the likelihood is zero")
    free = np.ones(layout.size, dtype=bool)
    free[layout.size - layout.n_sd :] = x[layout.size - layout.n_sd :] >= BOUNDARY_TOL
    hess = _hessian(model, x, free)
    return _result(spec, model, link, x, loglik, grad, free, hess, res, n_iter, grad_tol, clock)


def _start(spec: ClmmSpec, model: _Model, link: str, start: FitResult | None) -> np.ndarray:
    layout, jac = model.layout, model.jac
    if start is not None and len(start.thresholds) == jac.shape[0] and len(start.beta) == layout.n_beta:
        theta, beta = np.asarray(start.thresholds, float), np.asarray(start.beta, float)
    else:
        counts = np.bincount(spec.y, minlength=jac.shape[0] + 1)
        cum = np.cumsum(counts)[:-1] / counts.sum()
        theta = quantile(np.clip(cum, 1e-3, 1 - 1e-3), link)
        theta = np.maximum.accumulate(theta + 1e-3 * np.arange(theta.size))
        beta = np.zeros(layout.n_beta)
    tau = theta if spec.threshold == "flexible" else np.linalg.lstsq(jac, theta, rcond=None)[0]
    sd = [START_SD] * len(spec.terms) + ([START_SCALE_SD] if model.scale.random is not None else [])
    return np.concatenate([tau, beta, np.zeros(layout.n_zeta), sd])


def _hessian(model: _Model, x: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Central differences of the analytic gradient over the free parameters, symmetrised; the exact
    Hessian for a model without random effects."""
    if model.problem.q == 0:
        tau, beta, zeta, _ = model.layout.split(x)
        return model.problem.information(model.jac @ tau, beta, zeta, model.jac)
    idx = np.flatnonzero(free)
    base = model.problem.state()
    hess = np.empty((idx.size, idx.size))
    for k, j in enumerate(idx):
        step = HESSIAN_STEP * max(1.0, abs(x[j]))
        cols = []
        for sign in (1.0, -1.0):
            trial = x.copy()
            trial[j] += sign * step
            model.problem.restore(base)
            cols.append(model.loglik_and_grad(trial)[1][idx])
        hess[:, k] = (cols[0] - cols[1]) / (2.0 * step)
    model.problem.restore(base)
    return 0.5 * (hess + hess.T)


def _result(spec, model: _Model, link, x, loglik, grad, free, hess, res, n_iter, grad_tol, clock):
    layout = model.layout
    tau, beta, zeta, sd = layout.split(x)
    info = -hess
    eig = np.linalg.eigvalsh(info) if info.size else np.array([1.0])
    cond_h = float(eig.max() / eig.min()) if eig.min() > 0 else np.inf
    try:
        cov_free = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        cov_free = np.full(info.shape, np.nan)
    cov = np.full((layout.size, layout.size), np.nan)
    idx = np.flatnonzero(free)
    cov[np.ix_(idx, idx)] = cov_free
    n_tb = layout.n_tau + layout.n_beta
    vcov_tb = cov[:n_tb, :n_tb]
    vcov = vcov_tb[layout.n_tau :, layout.n_tau :]
    n_loc = len(spec.terms)
    random_effects = {t.factor: np.array([[sd[k] ** 2]]) for k, t in enumerate(spec.terms)}
    grad_free = grad[free]
    with np.errstate(invalid="ignore"):
        steps = np.abs(cov_free @ grad_free) / np.sqrt(np.abs(np.diag(cov_free))) if idx.size else [0.0]
    diagnostics = assess(
        code=0 if res.success else 1,
        message=str(res.message),
        max_grad=float(np.max(np.abs(grad_free))) if grad_free.size else 0.0,
        cond_h=cond_h,
        cond_fixed=cond_h,
        n_iter=n_iter,
        fit_seconds=time.perf_counter() - clock,
        vcov=vcov,
        random_effects=random_effects,
        grad_tol=grad_tol,
        beta=beta,
        thresholds=model.jac @ tau,
        beta_names=tuple(spec.beta_names),
        rel_grad=float(np.nanmax(steps)) if np.size(steps) else 0.0,
    )
    se_all = np.sqrt(np.abs(np.diag(cov)))
    zeta_se = se_all[n_tb : n_tb + layout.n_zeta]
    scale = model.scale
    random = scale.random
    sd_s = float(sd[n_loc]) if random is not None else None
    sd_s_se = float(se_all[n_tb + layout.n_zeta + n_loc]) if random is not None else None
    estimates = ScaleEstimates(
        names=scale.names,
        zeta=np.asarray(zeta, float).copy(),
        se=zeta_se,
        sd=sd_s,
        sd_se=sd_s_se,
        factor=random.factor if random is not None else None,
        groups=_groups(spec, model, x),
        vcov=cov[: n_tb + layout.n_zeta, : n_tb + layout.n_zeta],
    )
    scale_text = f", scale = {scale.formula}" if scale.formula else ""
    return FitResult(
        engine="native",
        structure="formula",
        link=link,
        systems=(),
        response=spec.response,
        levels=tuple(spec.levels),
        thresholds=np.asarray(model.jac @ tau, float).copy(),
        beta=np.asarray(beta, float).copy(),
        vcov=vcov,
        random_effects=random_effects,
        loglik=float(loglik),
        aic=float(-2.0 * loglik + 2.0 * layout.size),
        nobs=spec.nobs,
        diagnostics=diagnostics,
        versions={"humaneval": __version__, "numpy": np.__version__, "scipy": scipy.__version__},
        formula=spec.formula + scale_text,
        beta_names=tuple(spec.beta_names),
        threshold=spec.threshold,
        tau=np.asarray(tau, float).copy(),
        vcov_theta_beta=vcov_tb,
        random_columns={t.factor: ("(Intercept)",) for t in spec.terms},
        n_params=layout.size,
        spec=spec,
        scale=estimates,
    )


def _groups(spec: ClmmSpec, model: _Model, x: np.ndarray) -> pd.DataFrame | None:
    """Per level of the scale's factor: location shift and log-spread with conditional SDs."""
    scale = model.scale
    factor = scale.random.factor if scale.random is not None else _fixed_factor(spec, scale)
    if factor is None:
        return None
    layout = model.layout
    tau, beta, zeta, sd = layout.split(x)
    modes, var = model.problem.conditional(model.jac @ tau, beta, zeta, sd)
    levels = spec.factors.get(factor) or next(
        (t.levels for t in spec.terms if t.factor == factor),
        scale.random.levels if scale.random is not None else (),
    )
    out = pd.DataFrame({factor: list(levels)})
    offset = 0
    out["shift"], out["shift_se"] = 0.0, np.nan
    for k, term in enumerate(spec.terms):
        if term.factor == factor:
            order = [term.levels.index(str(lv)) for lv in levels]
            block = slice(offset, offset + term.n_groups)
            out["shift"] = sd[k] * modes[block][order]
            out["shift_se"] = sd[k] * np.sqrt(var[block][order])
        offset += term.n_groups
    if scale.random is not None:
        rand = scale.random
        order = [rand.levels.index(str(lv)) for lv in levels]
        block = slice(offset, offset + rand.n_groups)
        out["log_spread"] = sd[-1] * modes[block][order]
        out["log_spread_se"] = sd[-1] * np.sqrt(var[block][order])
    else:
        names = dict(zip(scale.names, zeta, strict=True))
        se = dict(zip(scale.names, np.zeros(len(zeta)), strict=True))
        out["log_spread"] = [names.get(f"{factor}{lv}", 0.0) for lv in levels]
        out["log_spread_se"] = [se.get(f"{factor}{lv}", 0.0) for lv in levels]
    return out


def _fixed_factor(spec: ClmmSpec, scale: ScaleSpec) -> str | None:
    """The factor whose levels name every fixed scale column (``~ annotator``), if there is one."""
    for factor, levels in spec.factors.items():
        if scale.names and set(scale.names) == {f"{factor}{lv}" for lv in levels[1:]}:
            return factor
    return None


@dataclass(frozen=True)
class ScaleTest:
    """The likelihood-ratio test "does scale use differ between annotators?".

    ``df`` counts the fixed scale effects; a random log-scale adds a boundary parameter, so the
    null distribution is the 50:50 mixture of χ²_df and χ²_(df+1) (Self & Liang 1987).
    """

    statistic: float
    df: int
    p: float
    boundary: bool
    loglik_scale: float
    loglik_null: float

    def to_dict(self) -> dict[str, object]:
        return {
            "statistic": self.statistic,
            "df": self.df,
            "p": self.p,
            "boundary": self.boundary,
            "loglik_scale": self.loglik_scale,
            "loglik_null": self.loglik_null,
        }


def scale_lr_test(fit: FitResult, link: str | None = None) -> ScaleTest:
    """LR test of a scale fit against the same location model without scale effects.

    The null model is fitted by the same engine (the same Laplace approximation), so the two
    log-likelihoods are comparable.

    Examples
    --------
    >>> from humaneval.clmm.formula import clmm_spec
    >>> from humaneval.io.datasets import wine
    >>> fit = fit_scale(clmm_spec("rating ~ temp + contact", wine(), scale="~ judge"))
    >>> test = scale_lr_test(fit)
    >>> test.df, round(test.statistic, 2)
    (8, 10.07)
    """
    spec = fit.spec
    if not isinstance(spec, ClmmSpec) or spec.scale is None or getattr(fit, "scale", None) is None:
        raise OptionError("scale_lr_test needs a fit with scale effects (clmm_spec(..., scale=...))")
    null_spec = replace(spec, scale=_no_scale(spec.nobs))
    null = fit_scale(null_spec, link or fit.link, start=fit)
    stat = max(0.0, 2.0 * (fit.loglik - null.loglik))
    df = spec.scale.n_zeta
    boundary = spec.scale.random is not None
    if boundary:
        p = 0.5 * stats.chi2.sf(stat, df + 1) + (0.5 * stats.chi2.sf(stat, df) if df else 0.5 * (stat <= 0))
    else:
        p = stats.chi2.sf(stat, df)
    return ScaleTest(float(stat), int(df + boundary), float(p), boundary, fit.loglik, null.loglik)
