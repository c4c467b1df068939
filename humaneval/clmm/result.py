"""The result of a CLMM fit (either engine) and its diagnostics.

A fit has **failed** (docs/analysis.md, "Diagnostics") when the optimizer's convergence code is
non-zero, the maximal absolute gradient exceeds ``grad_tol`` (default 0.01) while the relative gradient
(the Newton step still to go, in standard errors of each parameter; ``rel_grad``) exceeds
``REL_GRAD_TOL`` (0.002, lme4's tolerance for its scaled gradient), the condition number
of the Hessian exceeds ``cond_tol`` (default 1e6: the model is possibly not identifiable, so its
standard errors cannot be trusted; for the native engine the condition number of the information
about thresholds and fixed effects with the random-effect parameters profiled out, ``cond_fixed``,
because a singular Ψ leaves L entries without any information, docs/native-engine.md), the
covariance of β is not finite with positive variances,
the estimates are *degenerate* (some |β| > 15 or SE > 25 on the latent scale, or a random-effect
variance > 400: separation — e.g. every rating of a level in one category — or a parameter that
the data cannot determine, which optimisers report as "converged"), or the engine raised an error.
Large gradients (> 5e-3), cond.H above 1e4 and boundary (singular) random-effect covariances are
warnings only and never move the fallback ladder.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.clmm.contrasts import pairwise_contrasts
from humaneval.clmm.model import OrdinalModel
from humaneval.clmm.spec import ClmmSpec
from humaneval.core.deprecation import renamed
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt, fmt_p
from humaneval.present.printable import Printable, frame_table

GRAD_TOL = 0.01
#: A max.grad above GRAD_TOL still counts as converged when the Newton step to the optimum is below this
#: many standard errors: the log-likelihood is a sum over ratings, so its gradient at a numerically
#: exact optimum grows with their number (≈ 0.02 at 10^6 ratings) while this step does not.
REL_GRAD_TOL = 0.002
GRAD_WARN = 5e-3
COND_WARN = 1e4
COND_UNIDENTIFIABLE = 1e6
SINGULAR_TOL = 1e-8
CORR_TOL = 0.999
#: Beyond these bounds on the latent scale an estimate signals separation / non-identifiability.
BETA_BOUND = 15.0
SE_BOUND = 25.0
VARIANCE_BOUND = 400.0


@dataclass(frozen=True)
class Diagnostics:
    """Convergence diagnostics of one fit (docs/analysis.md)."""

    converged: bool
    code: int
    message: str
    max_grad: float
    cond_h: float
    n_iter: int
    singular: bool
    fit_seconds: float
    warnings: tuple[str, ...] = ()
    vcov_ok: bool = True
    grad_tol: float = GRAD_TOL
    cond_tol: float = COND_UNIDENTIFIABLE
    degenerate: tuple[str, ...] = ()
    cond_fixed: float = float("nan")
    rel_grad: float = float("nan")

    @property
    def failed(self) -> bool:
        """Non-zero code, max.grad > grad_tol, cond.H > cond_tol, or a non-finite/non-positive vcov."""
        return bool(self.reasons)

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the fit failed (empty when it did not)."""
        out = []
        if self.code != 0:
            out.append(f"convergence code {self.code}: {self.message}")
        if (not np.isfinite(self.max_grad) or self.max_grad > self.grad_tol) and not (
            self.rel_grad <= REL_GRAD_TOL
        ):
            relative = f", relative gradient {self.rel_grad:.3g}" if np.isfinite(self.rel_grad) else ""
            out.append(f"max.grad {self.max_grad:.3g} > {self.grad_tol:g}{relative}")
        if np.isnan(self.cond_fixed):  # the R engine: cond.H of all parameters; NaN never fails
            if self.cond_h > self.cond_tol:
                out.append(f"cond.H {self.cond_h:.3g} > {self.cond_tol:g}: model possibly not identifiable")
        elif self.cond_fixed > self.cond_tol:  # native: of (θ, β), random-effect parameters profiled out
            out.append(
                f"cond.H of the thresholds and fixed effects {self.cond_fixed:.3g} > {self.cond_tol:g}: "
                "model possibly not identifiable"
            )
        if not self.vcov_ok:
            out.append("vcov(β) is not finite with positive variances")
        out.extend(self.degenerate)
        return tuple(out)

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "failed": self.failed}


def assess(
    *,
    code: int,
    message: str,
    max_grad: float,
    cond_h: float,
    n_iter: int,
    fit_seconds: float,
    vcov: np.ndarray,
    random_effects: dict[str, np.ndarray],
    grad_tol: float = GRAD_TOL,
    extra_warnings: tuple[str, ...] = (),
    beta: np.ndarray | None = None,
    thresholds: np.ndarray | None = None,
    beta_names: tuple[str, ...] = (),
    cond_fixed: float = float("nan"),
    rel_grad: float = float("nan"),
) -> Diagnostics:
    """Build :class:`Diagnostics` from raw fit output by the rules of the module docstring."""
    if np.ndim(vcov) == 2 and np.shape(vcov)[0] == 0:  # a model without fixed effects (y ~ 1 + (1|g))
        vcov_ok = True
    else:
        variances = np.diag(vcov) if np.ndim(vcov) == 2 and np.size(vcov) else np.array([np.nan])
        vcov_ok = bool(np.all(np.isfinite(vcov)) and np.all(variances > 0))
    found = list(extra_warnings)
    if np.isfinite(max_grad) and GRAD_WARN < max_grad <= grad_tol:
        found.append(f"max.grad {max_grad:.3g} is above {GRAD_WARN:g}")
    if cond_h > COND_UNIDENTIFIABLE and cond_fixed <= COND_UNIDENTIFIABLE:
        found.append(
            f"cond.H {cond_h:.3g} > {COND_UNIDENTIFIABLE:g} from random-effect parameters without "
            f"information (singular Ψ); thresholds and fixed effects are determined "
            f"(their cond.H {cond_fixed:.3g})"
        )
    elif cond_h > COND_UNIDENTIFIABLE:
        found.append(f"cond.H {cond_h:.3g} > {COND_UNIDENTIFIABLE:g}: model possibly not identifiable")
    elif cond_h > COND_WARN:
        found.append(f"cond.H {cond_h:.3g} > {COND_WARN:g}")
    singular_factors = [f for f, psi in random_effects.items() if is_singular(psi)]
    if singular_factors:
        found.append(f"singular random-effect covariance (boundary fit) for {', '.join(singular_factors)}")
    return Diagnostics(
        converged=code == 0,
        code=int(code),
        message=str(message),
        max_grad=float(max_grad),
        cond_h=float(cond_h),
        n_iter=int(n_iter),
        singular=bool(singular_factors),
        fit_seconds=float(fit_seconds),
        warnings=tuple(found),
        vcov_ok=vcov_ok,
        grad_tol=grad_tol,
        degenerate=degenerate_estimates(beta, vcov, random_effects, thresholds, beta_names),
        cond_fixed=float(cond_fixed),
        rel_grad=float(rel_grad),
    )


def degenerate_estimates(
    beta: np.ndarray | None,
    vcov: np.ndarray,
    random_effects: dict[str, np.ndarray],
    thresholds: np.ndarray | None = None,
    beta_names: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """Reasons why the estimates are degenerate (separation, non-identifiability), if they are.

    Optimisers report "converged" when the likelihood flattens out towards infinity, e.g. a
    3-rating file or annotators who each give one constant score yield β ≈ −33 with SE ≈ 5000.
    """
    out = []
    if beta is not None and np.size(beta):
        beta = np.asarray(beta, dtype=float)
        names = list(beta_names) or [f"β{k + 1}" for k in range(beta.size)]
        se = (
            np.sqrt(np.abs(np.diag(vcov)))
            if np.ndim(vcov) == 2 and np.size(vcov)
            else np.full(beta.size, np.nan)
        )
        bad = [k for k in range(beta.size) if abs(beta[k]) > BETA_BOUND or se[k] > SE_BOUND]
        if bad:
            shown = ", ".join(f"{names[k]} = {beta[k]:.3g} (SE {se[k]:.3g})" for k in bad[:3])
            out.append(
                f"degenerate fit (separation or non-identifiable): {shown} beyond |β| ≤ {BETA_BOUND:g}, "
                f"SE ≤ {SE_BOUND:g} on the latent scale; some level's ratings may all fall in one "
                "category, or the data are too few for the model"
            )
    if thresholds is not None and np.size(thresholds) > 1 and np.ptp(thresholds) > 4 * BETA_BOUND:
        out.append(
            f"degenerate fit: thresholds span {np.ptp(thresholds):.3g} latent units "
            "(a category is empty in effect)"
        )
    running = [f for f, psi in random_effects.items() if np.max(np.diag(np.atleast_2d(psi))) > VARIANCE_BOUND]
    if running:
        out.append(
            f"degenerate fit: random-effect variance above {VARIANCE_BOUND:g} for {', '.join(running)} "
            "(the variance runs off; e.g. each group rates in a single category)"
        )
    return tuple(out)


def is_singular(psi: np.ndarray) -> bool:
    """Boundary estimate: smallest eigenvalue / trace < 1e-8, or some |correlation| > 0.999."""
    psi = np.atleast_2d(np.asarray(psi, dtype=float))
    trace = np.trace(psi)
    if trace <= 0 or np.linalg.eigvalsh(psi).min() / trace < SINGULAR_TOL:
        return True
    sd = np.sqrt(np.diag(psi))
    if np.any(sd <= 0):
        return True
    corr = psi / np.outer(sd, sd)
    return bool(np.any(np.abs(corr[np.triu_indices_from(corr, 1)]) > CORR_TOL))


@dataclass(frozen=True)
class Attempt:
    """One rung of the fallback ladder: what was fitted and how it went."""

    engine: str
    structure: str
    seconds: float
    diagnostics: Diagnostics | None = None
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.error is not None or self.diagnostics is None or self.diagnostics.failed

    @property
    def reason(self) -> str:
        """One line saying why this rung was abandoned ("" when it succeeded)."""
        if self.error is not None:
            return self.error
        if self.diagnostics is None:
            return "no estimates"
        return "; ".join(self.diagnostics.reasons)

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "structure": self.structure,
            "seconds": self.seconds,
            "failed": self.failed,
            "reason": self.reason,
            "error": self.error,
            "diagnostics": None if self.diagnostics is None else self.diagnostics.to_dict(),
        }


@dataclass(frozen=True, eq=False, repr=False)
class FitResult(Printable):
    """A fitted CLMM: estimates, covariance, random effects, fit statistics and diagnostics.

    ``beta`` and ``vcov`` belong to the columns ``beta_names`` of the fixed design (R's names:
    ``tempwarm``, ``tempwarm:contactyes``). For the named structures of a system comparison
    (``structure`` maximal … intercepts) they are the treatment-coded effects of ``systems[1:]``
    against ``systems[0]``; for formula fits ``systems`` is empty and ``structure`` is ``formula``.
    ``random_effects`` maps a grouping factor to its covariance matrix Ψ in the order of
    ``random_columns[factor]`` ((Intercept), then slopes). ``spec`` is the fitted
    :class:`~humaneval.clmm.spec.ClmmSpec` (for predictions and estimated marginal means).
    """

    engine: str
    structure: str
    link: str
    systems: tuple[str, ...]
    response: str
    levels: tuple[float | str, ...]
    thresholds: np.ndarray
    beta: np.ndarray
    vcov: np.ndarray
    random_effects: dict[str, np.ndarray]
    loglik: float
    aic: float
    nobs: int
    diagnostics: Diagnostics
    attempts: tuple[Attempt, ...] = ()
    versions: dict[str, str] = field(default_factory=dict)
    formula: str = ""
    beta_names: tuple[str, ...] = ()
    threshold: str = "flexible"
    tau: np.ndarray | None = None
    vcov_theta_beta: np.ndarray | None = None
    random_columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    n_params: int = 0
    spec: ClmmSpec | None = field(default=None, repr=False)
    engine_comparison: dict[str, Any] | None = None
    scale: Any = None  # humaneval.clmm.scale.ScaleEstimates of a fit with scale effects

    @property
    def terms(self) -> tuple[str, ...]:
        """Names of β: ``beta_names``, or ``system<name>`` for a system comparison."""
        if self.beta_names:
            return tuple(self.beta_names)
        return tuple(f"system{s}" for s in self.systems[1:])

    @property
    def bic(self) -> float:
        """−2 logLik + log(n) × number of parameters."""
        k = self.n_params or (
            len(self.thresholds)
            + len(self.beta)
            + sum((p.shape[0] * (p.shape[0] + 1)) // 2 for p in self.random_effects.values())
        )
        return float(-2.0 * self.loglik + np.log(self.nobs) * k)

    @property
    def reference(self) -> str | None:
        """The reference system (for a formula fit: the first level of a ``system`` factor, if any)."""
        if self.systems:
            return self.systems[0]
        factors = getattr(self.spec, "factors", None) or {}
        return factors["system"][0] if "system" in factors else None

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(np.diag(self.vcov))

    @property
    def fallbacks(self) -> tuple[Attempt, ...]:
        """The abandoned rungs before the one reported."""
        return tuple(a for a in self.attempts if a.failed)

    def fixed_effects(self) -> pd.DataFrame:
        """β per term (``system`` too for a system comparison) with SE, z = β/SE and the unadjusted p."""
        z = self.beta / self.se
        names = {"system": list(self.systems[1:])} if self.systems else {}
        return pd.DataFrame(
            {
                **names,
                "term": list(self.terms),
                "estimate": self.beta,
                "se": self.se,
                "z": z,
                "p": 2.0 * stats.norm.sf(np.abs(z)),
            }
        )

    def headline(self) -> list[str]:
        """The fit in a few lines, as ``humaneval analyze`` starts its output: model, fit statistics
        and diagnostics, abandoned fallbacks and (engine ``both``) the native-vs-R differences."""
        reference = f"; reference {self.reference}" if self.reference is not None else ""
        d = self.diagnostics
        lines = [
            f"CLMM {self.structure} ({self.formula}), {self.link} link, {self.threshold} thresholds, "
            f"{self.engine} engine{reference}; {self.nobs} ratings",
            f"logLik {self.loglik:.2f}, AIC {self.aic:.2f}, BIC {self.bic:.2f}, max.grad {d.max_grad:.1e}, "
            f"cond.H {d.cond_h:.1e}, {d.fit_seconds:.1f} s",
        ]
        lines += [f"  fallback: {a.structure} failed ({a.reason})" for a in self.fallbacks]
        if self.engine_comparison:
            c = self.engine_comparison
            lines.append(
                f"native vs R: max |Δ logLik| {c['loglik']:.2e}, max |Δβ| {c['beta']:.2e} "
                f"({c['beta_term']}), max |Δp| {c['p']:.2e}; "
                f"{c['seconds'][0]:.2f} s vs {c['seconds'][1]:.2f} s"
            )
        return lines

    def brief(self) -> str:
        """Model, link, engine, size, logLik and convergence in one line (the ``repr``)."""
        status = "FAILED: " + "; ".join(self.diagnostics.reasons) if self.diagnostics.failed else "converged"
        return (
            f"CLMM {self.structure} {self.formula!r}, {self.link} link, {self.engine} engine, "
            f"{self.nobs} obs, logLik {fmt(self.loglik, 2)}, {status}"
        )

    def blocks(self) -> tuple[Block, ...]:
        """The fit as R's ``summary(clmm)`` shows it: model, fit statistics, Ψ, β and thresholds."""
        d = self.diagnostics
        four = {"estimate": lambda v: fmt(v, 4), "se": lambda v: fmt(v, 4), "z": fmt, "p": fmt_p}
        variances = self.random_effects_frame().query("term_a == term_b")
        blocks: list[Block] = [
            Paragraph(
                (
                    f"Cumulative link mixed model ({self.engine} engine, Laplace): {self.formula}; "
                    f"link {self.link}, threshold {self.threshold}, nobs {self.nobs}, "
                    f"logLik {fmt(self.loglik, 2)}, AIC {fmt(self.aic, 2)}, BIC {fmt(self.bic, 2)}, "
                    f"niter {d.n_iter}, max.grad {d.max_grad:.2e}, cond.H {d.cond_h:.1e}",
                )
            ),
            frame_table(
                variances,
                {"factor": None, "term_a": None, "covariance": lambda v: fmt(v, 4)},
                names={"term_a": "term", "covariance": "variance"},
                caption=("Random effects:",),
            ),
            frame_table(self.fixed_effects(), {"term": None, **four}, caption=("Coefficients:",)),
            frame_table(
                self.thresholds_frame(),
                {"threshold": None, "estimate": lambda v: fmt(v, 4)},
                caption=("Thresholds:",),
            ),
        ]
        notes = [f"FAILED: {'; '.join(d.reasons)}"] if d.failed else []
        notes += [f"warning: {w}" for w in d.warnings]
        if notes:
            blocks.append(Bullets(tuple((n,) for n in notes)))
        return tuple(blocks)

    def thresholds_frame(self) -> pd.DataFrame:
        """θ_j between consecutive response levels, labelled "lower|upper" as R prints them."""
        text = [f"{v:g}" if isinstance(v, int | float | np.number) else str(v) for v in self.levels]
        labels = [f"{a}|{b}" for a, b in itertools.pairwise(text)]
        return pd.DataFrame({"threshold": labels, "estimate": self.thresholds})

    def random_effects_frame(self) -> pd.DataFrame:
        """Long table of each Ψ: factor, row term, column term, covariance and correlation."""
        rows = []
        for factor, psi in self.random_effects.items():
            if self.systems or factor not in self.random_columns:
                terms = ["(Intercept)", *self.systems[1:]][: psi.shape[0]]
            else:
                terms = list(self.random_columns[factor])
            sd = np.sqrt(np.clip(np.diag(psi), 0.0, None))
            for a in range(psi.shape[0]):
                for b in range(psi.shape[1]):
                    denom = sd[a] * sd[b]
                    rows.append(
                        {
                            "factor": factor,
                            "term_a": terms[a],
                            "term_b": terms[b],
                            "covariance": float(psi[a, b]),
                            "correlation": float(psi[a, b] / denom) if denom > 0 else np.nan,
                        }
                    )
        return pd.DataFrame(rows, columns=["factor", "term_a", "term_b", "covariance", "correlation"])

    def diagnostics_frame(self) -> pd.DataFrame:
        """One row per attempted rung (the last is the reported fit) with its diagnostics."""
        attempts = self.attempts or (
            Attempt(self.engine, self.structure, self.diagnostics.fit_seconds, self.diagnostics),
        )
        rows = []
        for attempt in attempts:
            d = attempt.diagnostics
            rows.append(
                {
                    "engine": attempt.engine,
                    "structure": attempt.structure,
                    "failed": attempt.failed,
                    "reason": attempt.reason,
                    "code": d.code if d else None,
                    "max_grad": d.max_grad if d else np.nan,
                    "cond_h": d.cond_h if d else np.nan,
                    "n_iter": d.n_iter if d else None,
                    "singular": d.singular if d else None,
                    "seconds": attempt.seconds,
                }
            )
        frame = pd.DataFrame(rows)
        frame["loglik"] = [np.nan] * (len(frame) - 1) + [self.loglik]
        frame["aic"] = [np.nan] * (len(frame) - 1) + [self.aic]
        return frame

    @renamed(level="confidence_level")
    def contrasts(
        self, adjust: str = "tukey", confidence_level: float = 0.95, alpha: float = 0.05
    ) -> pd.DataFrame:
        """All pairwise contrasts on the latent scale as emmeans computes them (docs/analysis.md)."""
        return pairwise_contrasts(
            self.systems, self.beta, self.vcov, adjust=adjust, confidence_level=confidence_level, alpha=alpha
        )

    def estimates(self) -> pd.Series:
        """β per system including the reference at 0 (higher = better)."""
        return pd.Series(np.r_[0.0, self.beta], index=list(self.systems), name="estimate")

    def emmeans(self) -> pd.Series:
        """emmeans' latent marginal means: β_s minus the mean threshold (docs/analysis.md)."""
        return (self.estimates() - float(np.mean(self.thresholds))).rename("emmean")

    def to_model(self) -> OrdinalModel:
        """The fit as an :class:`~humaneval.clmm.model.OrdinalModel` (for simulation and power analysis).

        Formula fits qualify when they compare systems (:func:`humaneval.clmm.predict.ordinal_model`).
        """
        if not self.systems:
            from humaneval.clmm.predict import ordinal_model

            return ordinal_model(self)
        return OrdinalModel(
            system_names=self.systems,
            coefficients=np.r_[0.0, self.beta],
            thresholds=self.thresholds,
            random_effects=dict(self.random_effects),
            link=self.link,
            description=f"{self.structure} CLMM fitted with the {self.engine} engine to {self.nobs} ratings",
        )

    def predict(self, newdata: pd.DataFrame | None = None, *, type: str = "prob", random: str = "zero"):
        """Category probabilities, expected scores or the linear predictor (see humaneval.clmm.predict)."""
        from humaneval.clmm.predict import predict

        return predict(self, newdata, type=type, random=random)

    def simulate(self, newdata: pd.DataFrame | None = None, *, n: int = 1, seed=None) -> pd.DataFrame:
        """New responses drawn from the fitted model (:func:`humaneval.clmm.predict.simulate`)."""
        from humaneval.clmm.predict import simulate

        return simulate(self, newdata, n=n, seed=seed)

    def to_dict(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "structure": self.structure,
            "formula": self.formula,
            "link": self.link,
            "threshold": self.threshold,
            "terms": list(self.terms),
            "systems": list(self.systems),
            "reference": self.reference,
            "response": self.response,
            "levels": list(self.levels),
            "thresholds": self.thresholds.tolist(),
            "beta": self.beta.tolist(),
            "vcov": self.vcov.tolist(),
            "random_effects": {k: v.tolist() for k, v in self.random_effects.items()},
            "loglik": self.loglik,
            "aic": self.aic,
            "bic": self.bic,
            "nobs": self.nobs,
            "diagnostics": self.diagnostics.to_dict(),
            "engine_comparison": self.engine_comparison,
            "attempts": [a.to_dict() for a in self.attempts],
            "versions": dict(self.versions),
            **({} if self.scale is None else self.scale.to_dict()),
        }


def engine_differences(native: FitResult, reference: FitResult) -> dict[str, object]:
    """The largest absolute differences between two fits of one model (``--engine both``).

    Returns ``loglik``, ``beta`` and ``p`` (the unadjusted p of the coefficients), the term where
    β and p differ most, and both fit times.
    """
    names = list(native.terms)
    other = dict(zip(reference.terms, reference.beta, strict=True))
    other_p = dict(zip(reference.terms, reference.fixed_effects()["p"], strict=True))
    if set(names) != set(other):
        raise ValueError(f"the engines estimated different terms: {names} vs {list(other)}")
    d_beta = np.array([abs(b - other[n]) for n, b in zip(names, native.beta, strict=True)])
    d_p = np.array([abs(p - other_p[n]) for n, p in zip(names, native.fixed_effects()["p"], strict=True)])
    return {
        "engines": [native.engine, reference.engine],
        "loglik": float(abs(native.loglik - reference.loglik)),
        "beta": float(d_beta.max()) if d_beta.size else 0.0,
        "beta_term": names[int(np.argmax(d_beta))] if d_beta.size else None,
        "p": float(np.nanmax(d_p)) if d_p.size else 0.0,
        "p_term": names[int(np.nanargmax(d_p))] if d_p.size and np.isfinite(d_p).any() else None,
        "seconds": [native.diagnostics.fit_seconds, reference.diagnostics.fit_seconds],
        "loglik_values": [native.loglik, reference.loglik],
    }
