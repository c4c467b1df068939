"""One call from a pairwise, best–worst or ranking table to the system and contrast tables.

:func:`analyze_comparative` fits the model of the table's kind (Bradley–Terry or Davidson for
pairwise judgements, MaxDiff for best–worst tuples, Plackett–Luce for rankings; see
:mod:`humaneval.comparative.judgements`), estimates the covariance of the strengths with a
two-way cluster bootstrap over annotators and documents (:mod:`humaneval.comparative.bootstrap`),
and returns the same tables as the Likert path (:func:`humaneval.analysis.workflow.analyze`): a
system table with strengths, intervals, rank groups and compact letters, and a contrast table of
log-odds differences with adjusted p-values and win probabilities. Strengths θ are on the logit
scale and sum to zero; θ_a − θ_b is the log-odds that a is preferred to b, and
σ(θ_a − θ_b) the probability that it is (for Davidson: given the judgement is not a tie).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit

from humaneval.clmm.contrasts import (
    adjust_pvalues,
    better_column,
    check_adjust,
    pairwise_contrasts,
    tukey_p,
    tukey_quantile,
)
from humaneval.clmm.result import Attempt, Diagnostics
from humaneval.comparative.bootstrap import SCHEMES, bootstrap_vcov
from humaneval.comparative.engine import check_estimable, fit_events
from humaneval.comparative.judgements import COMPARATIVE_KINDS, Judgements, build_judgements
from humaneval.core.deprecation import caller_stacklevel, renamed, renamed_attribute
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings, as_ratings, select_criterion
from humaneval.errors import AnalysisCaution, HumanEvalError, ModelSpecError, OptionError
from humaneval.methods import get_method
from humaneval.methods.kinds import detect_kind
from humaneval.present.document import Block, Paragraph
from humaneval.present.formatting import fmt, fmt_ci, fmt_estimate_ci, fmt_p
from humaneval.present.printable import Printable, frame_table
from humaneval.ranks.analysis import rank_sets_dict
from humaneval.ranks.result import RankSets
from humaneval.stats.grouping import groupings

#: Ways to get the covariance of the strengths: bootstrap schemes, the observed information
#: (judgements independent), or the mixed-effects Bradley–Terry model (pairwise tables only).
INFERENCE = (*SCHEMES, "model", "mixed")

MODEL_NAMES = {
    "bradley-terry": "Bradley–Terry",
    "davidson": "Davidson (Bradley–Terry with ties)",
    "maxdiff": "MaxDiff (best–worst multinomial logit)",
    "plackett-luce": "Plackett–Luce (rank-ordered logit)",
    "mixed-bradley-terry": "mixed-effects Bradley–Terry (random annotator × system deviations)",
}
FORMULAS = {
    "bradley-terry": "P(a ≻ b) = σ(θa − θb)",
    "davidson": "P(a ≻ b) ∝ πa, P(b ≻ a) ∝ πb, P(tie) ∝ ν√(πa πb), π = exp θ",
    "maxdiff": "P(i best, j worst | tuple) ∝ exp(θi − θj)",
    "plackett-luce": "P(ranking) = Π_r exp(θ_(r)) / Σ_{s ranked ≥ r} exp(θs)",
    "mixed-bradley-terry": "P(a ≻ b | annotator k) = σ(θa + u_ka − θb − u_kb − τ), u_ks ~ N(0, σs²)",
}
#: Fewer annotators or document clusters than this make cluster-bootstrap standard errors unreliable.
MIN_CLUSTERS = 10
MEANS = {"pairwise": "win rate", "bws": "best–worst score", "ranking": "mean rank (1 = best)"}


@dataclass(frozen=True, eq=False)
class ComparativeFit:
    """The fitted model: estimates, covariance and the summary a report shows (as for a CLMM fit)."""

    model: str
    kind: str
    systems: tuple[str, ...]
    beta: np.ndarray
    vcov: np.ndarray
    model_vcov: np.ndarray
    loglik: float
    nobs: int
    n_rows: int
    diagnostics: Diagnostics
    inference: str
    n_resamples: int = 0
    n_resamples_failed: int = 0
    log_nu: float | None = None
    engine: str = "native"
    link: str = "logit"
    fallbacks: tuple[Attempt, ...] = ()
    versions: dict[str, str] = field(default_factory=dict)
    thresholds: tuple[tuple[str, float], ...] = ()
    random_sd: pd.DataFrame | None = None
    n_params: int | None = None
    covariates: tuple[tuple[str, float, float], ...] = ()

    n_boot = renamed_attribute("n_boot", "n_resamples")
    n_boot_failed = renamed_attribute("n_boot_failed", "n_resamples_failed")

    @property
    def structure(self) -> str:
        if self.model == "mixed-bradley-terry" and self.random_sd is not None:
            factors = " and ".join(dict.fromkeys(self.random_sd["factor"]))
            return f"mixed-effects Bradley–Terry (random {factors} × system deviations)"
        return MODEL_NAMES[self.model]

    @property
    def family(self) -> str:
        """What the report calls the model (the Likert path says "cumulative link mixed model")."""
        how = {
            "model": "observed-information",
            "mixed": "mixed-model",
            "naive": "judgement-bootstrap",
        }.get(self.inference, f"{self.inference} cluster-bootstrap")
        return f"model with {how} standard errors"

    @property
    def abbrev(self) -> str:
        """Short name after the model's name in report sentences (the Likert path says "CLMM")."""
        return "model"

    @property
    def formula(self) -> str:
        if self.model != "mixed-bradley-terry" or self.random_sd is None:
            return FORMULAS[self.model]
        document = "document" in set(self.random_sd["factor"])
        shift = "θa − θb + u_ka − u_kb" + (" + v_da − v_db" if document else "")
        given = "annotator k" + (", document d" if document else "")
        sds = "u_ks ~ N(0, σs²)" + (", v_ds ~ N(0, ωs²)" if document else "")
        if len(self.thresholds) == 2:
            return f"P(outcome ≤ j | {given}) = σ(τj − ({shift})), lost < tie < won; {sds}"
        return f"P(a ≻ b | {given}) = σ({shift} − τ); {sds}"

    @property
    def reference(self) -> str:
        return self.systems[0]

    @property
    def aic(self) -> float:
        n_params = self.n_params or len(self.systems) - 1 + (self.log_nu is not None) + len(self.covariates)
        return -2 * self.loglik + 2 * n_params

    def estimates(self) -> pd.Series:
        """Strengths θ (logit scale, sum to zero; higher = better)."""
        full = np.r_[0.0, self.beta]
        return pd.Series(full - full.mean(), index=list(self.systems), name="estimate")

    def strength_se(self) -> np.ndarray:
        """Standard errors of the centred strengths."""
        n = len(self.systems)
        full = np.zeros((n, n))
        full[1:, 1:] = self.vcov
        centre = np.eye(n) - 1.0 / n
        return np.sqrt(np.clip(np.diag(centre @ full @ centre.T), 0.0, None))

    def fixed_effects(self) -> pd.DataFrame:
        """θ_s − θ_reference per non-reference system with SE, z and the unadjusted p."""
        se = np.sqrt(np.diag(self.vcov))
        z = self.beta / se
        return pd.DataFrame(
            {
                "system": list(self.systems[1:]),
                "estimate": self.beta,
                "se": se,
                "z": z,
                "p": 2 * stats.norm.sf(np.abs(z)),
            }
        )

    def covariates_frame(self) -> pd.DataFrame:
        """Style covariates γ (log-odds per unit of style difference) with SE, z and p; else empty."""
        frame = pd.DataFrame(list(self.covariates), columns=["covariate", "estimate", "se"])
        frame["z"] = frame["estimate"] / frame["se"]
        frame["p"] = 2 * stats.norm.sf(np.abs(frame["z"].to_numpy(dtype=float)))
        return frame

    def thresholds_frame(self) -> pd.DataFrame:
        """Davidson's tie parameter log ν, or the mixed model's thresholds τ; else empty."""
        if self.thresholds:
            return pd.DataFrame(list(self.thresholds), columns=["threshold", "estimate"])
        if self.log_nu is None:
            return pd.DataFrame(columns=["threshold", "estimate"])
        return pd.DataFrame({"threshold": ["log_nu"], "estimate": [self.log_nu]})

    def random_effects_frame(self) -> pd.DataFrame:
        """Variances of the mixed model's annotator (and document) deviations per system (diagonal Ψ)."""
        columns = ["factor", "term_a", "term_b", "covariance", "correlation"]
        if self.random_sd is None:
            return pd.DataFrame(columns=columns)
        sd = self.random_sd
        return pd.DataFrame(
            {
                "factor": sd["factor"],
                "term_a": sd["system"],
                "term_b": sd["system"],
                "covariance": sd["sd"] ** 2,
                "correlation": 1.0,
            }
        )


@dataclass(frozen=True, eq=False)
class ComparativeAnalysis(Printable):
    """The outcome of :func:`analyze_comparative`; ``to_dict()`` has the keys of the Likert analysis.

    ``cautions`` are the notes on the standard errors (few clusters, failed bootstrap replicates, a
    failed mixed-model fit), as in :class:`humaneval.analysis.Analysis`; :func:`analyze_comparative`
    also warns each as an :class:`~humaneval.errors.AnalysisCaution`.
    """

    kind: str
    test: str
    adjust: str
    response: str
    systems: pd.DataFrame
    contrasts: pd.DataFrame
    fit: ComparativeFit
    criterion: str | None = None
    cautions: tuple[str, ...] = ()
    aggregate: str | None = None
    independent: bool = False
    rank_sets: Mapping[str, RankSets] | None = None

    warnings = renamed_attribute("warnings", "cautions")

    @property
    def mean_unit(self) -> str:
        """What the descriptive ``mean`` column holds (win rate, best–worst score or mean rank)."""
        return MEANS[self.kind]

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` schema of ``humaneval analyze`` for comparative tables (docs/analysis.md).

        ``contrasts`` holds the rows of :attr:`contrasts` with its column names as keys.
        """
        fit = self.fit
        d = fit.diagnostics
        return {
            "test": self.test,
            "kind": self.kind,
            "criterion": self.criterion,
            "response": self.response,
            "engine": fit.engine,
            "structure": fit.structure,
            "link": fit.link,
            "reference": fit.reference,
            "formula": None,
            "threshold": None,
            "emmeans": [],
            "lr_test": None,
            "omnibus": None,
            "engine_comparison": None,
            "aggregate": None,
            "independent_units": False,
            "inference": fit.inference,
            "n_resamples": fit.n_resamples,
            "n_resamples_failed": fit.n_resamples_failed,
            "fallbacks": [
                {"structure": a.structure, "engine": a.engine, "reason": a.error} for a in fit.fallbacks
            ],
            "fixed_effects": fit.fixed_effects().to_dict(orient="records"),
            "thresholds": fit.thresholds_frame().to_dict(orient="records"),
            "covariates": fit.covariates_frame().to_dict(orient="records"),
            "random_effects": fit.random_effects_frame().to_dict(orient="records"),
            "contrasts": self.contrasts.to_dict(orient="records"),
            "groups": self.systems.to_dict(orient="records"),
            "diagnostics": {**d.to_dict(), "loglik": fit.loglik, "aic": fit.aic, "nobs": fit.nobs},
            "versions": dict(fit.versions),
            "cautions": list(self.cautions),
            "rank_sets": rank_sets_dict(self.rank_sets),
        }

    def blocks(self) -> tuple[Block, ...]:
        """The fit, the system table and the contrast table (what ``humaneval analyze`` prints)."""
        fit = self.fit
        lines = [
            f"{fit.structure}: {fit.formula}",
            f"{fit.nobs} judgements ({fit.n_rows} rows), logLik {fmt(fit.loglik, 2)}, AIC {fmt(fit.aic, 2)}; "
            f"{_inference_text(fit)}",
        ]
        if fit.log_nu is not None:
            lines.append(f"tie parameter ν = {fmt(np.exp(fit.log_nu))}")
        if fit.covariates:
            shown = ", ".join(f"{name} {fmt(value)} (SE {fmt(se)})" for name, value, se in fit.covariates)
            lines.append(f"style covariates (log-odds per unit of difference): {shown}")
        if fit.random_sd is not None:
            for factor in ("annotator", "document"):
                part = fit.random_sd[fit.random_sd["factor"] == factor]
                if len(part):
                    shown = ", ".join(f"{r.system} {fmt(r.sd, 2)}" for r in part.itertuples())
                    lines.append(f"{factor} deviation SD per system (logit scale): {shown}")
        lines += [f"warning: {w}" for w in self.cautions]
        systems = self.systems.assign(
            strength=[
                fmt_estimate_ci(r.estimate, r.estimate_ci_low, r.estimate_ci_high)
                for r in self.systems.itertuples()
            ]
        )
        contrasts = self.contrasts.assign(
            contrast=[f"{r.system_a} - {r.system_b}" for r in self.contrasts.itertuples()],
            ci=[fmt_ci(r.ci_low, r.ci_high) for r in self.contrasts.itertuples()],
        )
        return (
            *(Paragraph((line,)) for line in lines),
            frame_table(
                systems,
                {"system": None, "label": None, "letters": None, "strength": None},
                names={"label": MEANS[self.kind], "strength": "strength [95% CI]"},
            ),
            frame_table(
                contrasts,
                {
                    "contrast": None,
                    "estimate": fmt,
                    "se": fmt,
                    "statistic": lambda v: fmt(v, 2),
                    "p_adj": fmt_p,
                    "ci": None,
                    "win_probability": fmt,
                },
                names={
                    "se": "SE",
                    "statistic": "z",
                    "p_adj": "p adj",
                    "ci": "CI",
                    "win_probability": "P(a ≻ b)",
                },
                caption=(
                    f"contrasts (log-odds a over b; adjust = {self.adjust}; "
                    "positive = first system preferred)",
                ),
            ),
        )


def _inference_text(fit: ComparativeFit) -> str:
    if fit.inference == "model":
        return "standard errors from the observed information (judgements treated as independent)"
    if fit.inference == "mixed":
        d = fit.diagnostics
        return (
            f"standard errors from the mixed-effects fit (native CLMM engine, Laplace; max.grad "
            f"{d.max_grad:.1e}, cond.H {d.cond_h:.1e})"
        )
    failed = f", {fit.n_resamples_failed} without an estimate" if fit.n_resamples_failed else ""
    what = "judgements" if fit.inference == "naive" else f"{fit.inference} clusters"
    return f"standard errors from {fit.n_resamples} bootstrap replicates over {what}{failed}"


@renamed(n_boot="n_resamples", level="confidence_level")
@shared_docs
def analyze_comparative(
    ratings: Ratings | pd.DataFrame,
    *,
    kind: str | None = None,
    criterion: str | None = None,
    inference: str | None = None,
    adjust: str | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 1,
    floor: bool = True,
    mixed_terms: tuple[str, ...] = ("annotator", "document"),
    style: tuple[str, ...] = (),
) -> ComparativeAnalysis:
    """Fit the comparative model of a pairwise, best–worst or ranking table and compare all systems.

    Parameters
    ----------
    ratings:
        A pairwise (``opponent``), best–worst (``tuple_id``) or ranking table, as ``humaneval
        collect`` writes it; attention-check rows are left out.
    kind:
        ``pairwise``, ``bws`` or ``ranking``; detected by :func:`detect_kind` when None.
    criterion:
        %(criterion)s
    inference:
        Default :func:`default_inference` of the kind. ``two-way`` (cluster bootstrap over
        annotators and documents), ``pigeonhole``,
        ``annotator``, ``document``, ``naive`` (judgements independent), ``model`` (observed
        information) or ``mixed`` (pairwise only: the mixed-effects Bradley–Terry model of
        :mod:`humaneval.comparative.mixed`; when its fit fails the two-way cluster bootstrap is
        used instead, with the reason in ``fit.fallbacks`` and the cautions).
    adjust:
        Multiplicity adjustment of the contrasts: ``tukey`` (default), ``holm``, ``bonferroni``,
        ``none``.
    n_resamples:
        Bootstrap replicates (per one-way part of the two-way scheme); formerly ``n_boot``.
    confidence_level:
        Of the strength intervals and the contrast intervals (default 0.95); formerly ``level``.
    floor:
        Never let a bootstrap covariance fall below the model-based one (see
        :func:`~humaneval.comparative.bootstrap.bootstrap_vcov`).
    mixed_terms:
        Grouping factors with random system deviations in the mixed model: ``("annotator",
        "document")`` (default) or ``("annotator",)``.
    style:
        Pairwise tables: columns holding a style difference of the row's system over its opponent
        (LMArena's "style control", e.g. the normalised length difference); the strengths are then
        those of P(a ≻ b) = σ(θa − θb + γᵀd), style held equal, and γ is in ``fit.covariates``.

    Returns
    -------
    ComparativeAnalysis
        ``systems`` (strength, CI, rank group, letters, descriptive mean) and ``contrasts``.

    Raises
    ------
    OptionError
        An unknown kind, inference or adjustment.
    RatingsError
        A table that is not comparative, or an unknown criterion.

    References
    ----------
    Bradley, R. A., & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method
    of paired comparisons. Biometrika, 39(3/4), 324–345. Louviere, J. J., Flynn, T. N., & Marley,
    A. A. J. (2015). Best-Worst Scaling: Theory, Methods and Applications. Cambridge University
    Press.

    Examples
    --------
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> table = simulate_pairwise_study([0.5, 0.0, -0.5], seed=1)
    >>> result = analyze_comparative(table)
    >>> result.test, list(result.systems["system"])
    ('mixed-bradley-terry', ['s0', 's1', 's2'])
    >>> two_way = analyze_comparative(table, inference="two-way", n_resamples=200)
    >>> two_way.test, two_way.systems["estimate"].round(3).tolist()
    ('bradley-terry', [0.56, -0.076, -0.484])
    >>> analyze_comparative(table, inference="jackknife")
    Traceback (most recent call last):
    ...
    humaneval.errors.OptionError: unknown inference 'jackknife'; use one of two-way, ...
    """
    started = time.perf_counter()
    kind, inference, adjust, judgements = _checked_judgements(
        ratings, kind, criterion, inference, adjust, tuple(style)
    )
    return analyze_judgements(
        judgements,
        kind=kind,
        criterion=criterion,
        inference=inference,
        adjust=adjust,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        alpha=alpha,
        seed=seed,
        floor=floor,
        mixed_terms=mixed_terms,
        started=started,
    )


def analyze_judgements(
    judgements: Judgements,
    *,
    kind: str,
    criterion: str | None,
    inference: str,
    adjust: str,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = 1,
    floor: bool = True,
    mixed_terms: tuple[str, ...] = ("annotator", "document"),
    started: float | None = None,
) -> ComparativeAnalysis:
    """:func:`analyze_comparative` from judgements already built and checked (options as there);
    :func:`humaneval.comparative.counts.analyze_counts` gives it those of win counts."""
    started = time.perf_counter() if started is None else started
    counts = judgements.event_counts
    fit = fit_events(
        judgements.features, judgements.mask, judgements.chosen, counts, _choix_start(judgements)
    )
    model_vcov = np.linalg.inv(fit.hessian[0])
    mixed, fallbacks, fallback_notes = None, (), ()
    if inference == "mixed":
        mixed, fallbacks, fallback_notes = _mixed_or_fallback(judgements, kind, mixed_terms)
        if mixed is None:
            inference = "two-way"
    vcov, n_done, n_failed = _covariance(judgements, inference, mixed, model_vcov, n_resamples, seed, floor)
    notes = fallback_notes + _cautions(judgements, inference, n_done, n_failed)
    for note in notes:
        warnings.warn(note, AnalysisCaution, stacklevel=caller_stacklevel())
    if mixed is not None:
        result = _mixed_result(mixed, judgements, kind, model_vcov, time.perf_counter() - started)
    else:
        result = _fixed_result(
            fit, judgements, kind, vcov, model_vcov, inference, (n_done, n_failed), fallbacks, started
        )
    contrasts, systems = _compare_systems(judgements, result, inference, adjust, confidence_level, alpha)
    return ComparativeAnalysis(
        kind=kind,
        test=result.model,
        adjust=adjust,
        response=get_method(kind).response,
        systems=systems,
        contrasts=contrasts,
        fit=result,
        criterion=criterion,
        cautions=notes,
    )


def _checked_judgements(
    ratings: Ratings | pd.DataFrame,
    kind: str | None,
    criterion: str | None,
    inference: str | None,
    adjust: str | None,
    style: tuple[str, ...] = (),
) -> tuple[str, str, str, Judgements]:
    """The kind, inference and adjustment (defaults filled in, unknown ones refused) and the coded
    judgements of the criterion, refused when the systems cannot be told apart."""
    ratings = as_ratings(ratings)
    table = select_criterion(ratings, criterion) if "criterion" in ratings.data else ratings
    kind = kind or detect_kind(table)
    if kind not in COMPARATIVE_KINDS:
        raise OptionError(f"{kind!r} is not a comparative kind; use one of {', '.join(COMPARATIVE_KINDS)}")
    inference = inference or default_inference(kind)
    if inference not in INFERENCE:
        raise OptionError(f"unknown inference {inference!r}; use one of {', '.join(INFERENCE)}")
    adjust = check_adjust(adjust or "tukey")
    judgements = build_judgements(table, kind, style)
    check_estimable(judgements.beats, judgements.systems, MODEL_NAMES[judgements.model])
    counts = judgements.event_counts
    if judgements.model == "davidson" and counts[judgements.chosen != 2].sum() == 0:
        raise ModelSpecError("every comparison is a tie: the systems cannot be told apart")
    return kind, inference, adjust, judgements


def _mixed_or_fallback(judgements: Judgements, kind: str, terms: tuple[str, ...]):
    """:func:`_fit_mixed` for a pairwise table; other kinds have no mixed model and are refused."""
    if get_method(kind).unit != "pair":
        raise OptionError(
            f"the mixed-effects Bradley–Terry model is for pairwise judgements, not {kind}; "
            "use the two-way cluster bootstrap (inference 'two-way')"
        )
    return _fit_mixed(judgements, terms)


def _covariance(
    judgements: Judgements,
    inference: str,
    mixed,
    model_vcov: np.ndarray,
    n_resamples: int,
    seed: int | np.random.Generator | None,
    floor: bool,
) -> tuple[np.ndarray, int, int]:
    """The covariance of the estimates under ``inference`` with the bootstrap replicates done and
    failed (0 and 0 without a bootstrap)."""
    if inference == "model":
        return model_vcov, 0, 0
    if inference == "mixed":
        return mixed.vcov, 0, 0
    boot = bootstrap_vcov(judgements, inference, n_resamples, seed, floor=model_vcov if floor else None)
    return boot.vcov, boot.n_resamples, boot.n_failed


def _fixed_result(
    fit,
    judgements: Judgements,
    kind: str,
    vcov: np.ndarray,
    model_vcov: np.ndarray,
    inference: str,
    resamples: tuple[int, int],
    fallbacks: tuple[Attempt, ...],
    started: float,
) -> ComparativeFit:
    """A :class:`ComparativeFit` of the Bradley–Terry (Davidson, Plackett–Luce, MaxDiff) fit with
    the covariance of ``inference`` and the Newton diagnostics; ``resamples`` are the bootstrap
    replicates done and failed."""
    beta, info = fit.beta[0], fit.hessian[0]
    n_sys = len(judgements.systems)
    n_cov = len(judgements.covariates)
    cov_se = np.sqrt(np.diag(vcov))[len(beta) - n_cov :]
    strengths_vcov = vcov[: n_sys - 1, : n_sys - 1]
    eigen = np.linalg.eigvalsh(info)
    diagnostics = Diagnostics(
        converged=bool(fit.ok[0]),
        code=0 if fit.ok[0] else 1,
        message="" if fit.ok[0] else "Newton iterations did not converge",
        max_grad=float(fit.max_grad[0]),
        cond_h=float(eigen.max() / eigen.min()) if eigen.min() > 0 else float("inf"),
        n_iter=fit.n_iter,
        singular=False,
        fit_seconds=time.perf_counter() - started,
        vcov_ok=bool(np.all(np.isfinite(strengths_vcov)) and np.all(np.diag(strengths_vcov) > 0)),
    )
    return ComparativeFit(
        model=judgements.model,
        kind=kind,
        systems=judgements.systems,
        beta=beta[: n_sys - 1],
        vcov=strengths_vcov,
        model_vcov=model_vcov[: n_sys - 1, : n_sys - 1],
        loglik=float(fit.loglik[0]),
        nobs=judgements.n_judgements,
        n_rows=judgements.n_rows,
        diagnostics=diagnostics,
        inference=inference,
        n_resamples=resamples[0],
        n_resamples_failed=resamples[1],
        log_nu=float(beta[n_sys - 1]) if judgements.model == "davidson" else None,
        fallbacks=fallbacks,
        versions=_versions(),
        covariates=_named(judgements.covariates, beta[len(beta) - n_cov :], cov_se),
    )


def _named(
    names: tuple[str, ...], estimates: np.ndarray, se: np.ndarray
) -> tuple[tuple[str, float, float], ...]:
    return tuple((n, float(e), float(v)) for n, e, v in zip(names, estimates, se, strict=True))


def _compare_systems(
    judgements: Judgements,
    result: ComparativeFit,
    inference: str,
    adjust: str,
    confidence_level: float,
    alpha: float,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The contrast table (with win probabilities) and the system table (strengths with t
    intervals on the clustered degrees of freedom, rank groups, letters)."""
    dof = cluster_dof(judgements, inference)
    contrasts = t_contrasts(
        judgements.systems, result.beta, result.vcov, adjust, confidence_level, alpha, dof
    )
    contrasts["win_probability"] = expit(contrasts["estimate"])
    contrasts["win_probability_low"] = expit(contrasts["ci_low"])
    contrasts["win_probability_high"] = expit(contrasts["ci_high"])
    contrasts["test"] = result.model
    estimates = result.estimates()
    systems = groupings(judgements.means, estimates, contrasts, alpha)
    se = pd.Series(result.strength_se(), index=estimates.index).reindex(systems["system"]).to_numpy()
    half = stats.t.ppf(0.5 + confidence_level / 2, dof) * se
    systems.insert(3, "se", se)
    systems.insert(4, "estimate_ci_low", systems["estimate"] - half)
    systems.insert(5, "estimate_ci_high", systems["estimate"] + half)
    return contrasts, systems


def default_inference(kind: str) -> str:
    """``mixed`` (the mixed-effects Bradley–Terry model) for pairwise tables, ``two-way`` (cluster
    bootstrap) for best–worst and ranking tables, which have no mixed model here."""
    return "mixed" if get_method(kind).unit == "pair" else "two-way"


def _fit_mixed(judgements: Judgements, terms: tuple[str, ...]):
    """The mixed-effects fit, or (None, the failed attempt, a warning) when it failed."""
    from humaneval.comparative.mixed import fit_mixed_bt

    clock = time.perf_counter()
    try:
        mixed = fit_mixed_bt(judgements, tuple(terms))
    except HumanEvalError as error:
        reason = str(error)
    else:
        if not mixed.failed:
            return mixed, (), ()
        reason = "; ".join(mixed.reasons)
    attempt = Attempt(
        engine="native",
        structure="mixed-effects Bradley–Terry",
        seconds=time.perf_counter() - clock,
        error=reason,
    )
    note = (
        f"the mixed-effects Bradley–Terry fit failed ({reason}); its estimates are not shown and the "
        "two-way cluster bootstrap of the Bradley–Terry model is used instead"
    )
    return None, (attempt,), (note,)


def _mixed_result(mixed, judgements: Judgements, kind: str, model_vcov: np.ndarray, seconds: float):
    """A :class:`ComparativeFit` holding the mixed-effects estimates and the CLMM diagnostics."""
    clmm = mixed.clmm
    n_sys = len(judgements.systems)
    names = ("first listed|won",) if len(clmm.thresholds) == 1 else ("lost|tie", "tie|won")
    se = np.sqrt(np.diag(mixed.vcov))
    return ComparativeFit(
        model="mixed-bradley-terry",
        kind=kind,
        systems=judgements.systems,
        beta=mixed.beta[: n_sys - 1],
        vcov=mixed.vcov[: n_sys - 1, : n_sys - 1],
        model_vcov=model_vcov[: n_sys - 1, : n_sys - 1],
        loglik=clmm.loglik,
        nobs=clmm.nobs,
        n_rows=judgements.n_rows,
        diagnostics=replace(clmm.diagnostics, fit_seconds=seconds),
        inference="mixed",
        engine="native",
        link=clmm.link,
        versions=dict(clmm.versions),
        thresholds=tuple(zip(names, map(float, clmm.thresholds), strict=True)),
        random_sd=mixed.random_sd(),
        n_params=clmm.n_params,
        covariates=_named(judgements.covariates, mixed.beta[n_sys - 1 :], se[n_sys - 1 :]),
    )


def cluster_dof(judgements: Judgements, inference: str) -> float:
    """Degrees of freedom of the t reference distribution: G − 1 for G clusters, the smaller of the
    annotator and document counts for two-way schemes (Cameron, Gelbach & Miller 2011), ∞ otherwise."""
    if inference not in ("two-way", "pigeonhole", "annotator", "document"):
        return np.inf
    annotators, documents = int(judgements.annotator.max()) + 1, int(judgements.document.max()) + 1
    clusters = {
        "two-way": min(annotators, documents),
        "pigeonhole": min(annotators, documents),
        "annotator": annotators,
        "document": documents,
    }.get(inference)
    return float(clusters - 1) if clusters is not None and clusters > 1 else np.inf


def t_contrasts(
    systems: tuple[str, ...],
    beta: np.ndarray,
    vcov: np.ndarray,
    adjust: str,
    confidence_level: float,
    alpha: float,
    dof: float,
) -> pd.DataFrame:
    """:func:`~humaneval.analysis.contrasts.pairwise_contrasts` with t(``dof``) instead of normal
    reference distributions: with G clusters a cluster-robust z statistic is closer to t(G − 1)."""
    table = pairwise_contrasts(
        systems, beta, vcov, adjust=adjust, confidence_level=confidence_level, alpha=alpha
    )
    if not np.isfinite(dof):
        return table
    z, n_pairs = table["statistic"].to_numpy(), len(table)
    table["df"] = dof
    table["p_unadj"] = 2 * stats.t.sf(np.abs(z), dof)
    if adjust == "tukey":
        table["p_adj"] = tukey_p(z, len(systems), dof)
        critical = tukey_quantile(len(systems), confidence_level, dof) / np.sqrt(2.0)
    else:
        table["p_adj"] = adjust_pvalues(table["p_unadj"].to_numpy(), adjust)
        tail = (1 - confidence_level) / (2 * (n_pairs if adjust in ("holm", "bonferroni") else 1))
        critical = stats.t.ppf(1 - tail, dof)
    table["ci_low"] = table["estimate"] - critical * table["se"]
    table["ci_high"] = table["estimate"] + critical * table["se"]
    table["better"] = pd.Series(better_column(table, alpha), dtype=object)
    table["test"] = "t"
    return table


def _cautions(judgements: Judgements, inference: str, n_resamples: int, n_failed: int) -> tuple[str, ...]:
    out = []
    few = []
    if inference in ("two-way", "pigeonhole", "annotator", "document", "mixed"):  # they use the clusters
        clusters = {
            "annotators": int(judgements.annotator.max()) + 1,
            "document clusters": int(judgements.document.max()) + 1,
        }
        few = [f"{n} {name}" for name, n in clusters.items() if n < MIN_CLUSTERS]
    if inference in ("two-way", "pigeonhole", "annotator", "document") and few:
        out.append(
            f"only {' and '.join(few)}: a cluster bootstrap needs about {MIN_CLUSTERS} or more clusters, so "
            "these standard errors are rough (too small as often as too large); collect more blocks"
        )
    if inference == "mixed" and few:
        out.append(
            f"only {' and '.join(few)}: the variances of the mixed model's deviations are poorly "
            f"determined from fewer than {MIN_CLUSTERS} groups, so its standard errors may be too small; "
            "collect more blocks"
        )
    if n_resamples and n_failed > 0.01 * n_resamples:
        out.append(
            f"{n_failed} of {n_resamples} bootstrap replicates had no estimate (in them some system "
            "never lost or never won) and were left out, which makes the standard errors too small; "
            "collect more judgements"
        )
    return tuple(out)


def _choix_start(judgements: Judgements) -> np.ndarray | None:
    """The MLE of untied Bradley–Terry data by choix's ILSR (Maystre & Grossglauser 2015) on the
    matrix of win counts, which Newton's method then only confirms; None for the other models and
    with style covariates."""
    if judgements.model != "bradley-terry" or judgements.covariates:
        return None
    import choix

    theta = choix.ilsr_pairwise_dense(judgements.beats, alpha=0.0, max_iter=500)
    return theta[1:] - theta[0]


def _versions() -> dict[str, str]:
    from humaneval import __version__

    return {"humaneval": __version__, "numpy": np.__version__}
