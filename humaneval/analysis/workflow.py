"""One call from a ratings table to the system table with groupings and the contrast table.

``analyze`` runs either the CLMM (docs/analysis.md, the default and the recommended analysis) or one of the
classic tests (docs/analysis.md) and returns an :class:`Analysis`, whose ``to_dict()`` is the JSON of
``humaneval analyze --json``. The system table shows raw means (ranks 1-based, lower = better) with
the rank groups of dissertation Table 3.2 ("5.25 (1)", "4.33 (3/4)") computed from the contrasts.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from humaneval.analysis.adapters import ADAPTERS, MODEL_TESTS, AnalysisOptions, SystemAnalysis, adapter_for
from humaneval.analysis.calibration import clmm_calibration
from humaneval.analysis.classic import TESTS, anova_omnibus, classic_test, independent_units
from humaneval.analysis.fit import _plain, fit_clmm
from humaneval.analysis.plan import CEILING_MINUTES
from humaneval.analysis.scale import scale_extra, scale_lines
from humaneval.clmm.contrasts import CONTRAST_COLUMNS
from humaneval.clmm.emmeans import _fixed_columns, emm_contrasts, emmeans, lr_test, wald_omnibus
from humaneval.clmm.result import FitResult
from humaneval.clmm.spec import ClmmSpec
from humaneval.comparative.analyze import ComparativeAnalysis, analyze_comparative
from humaneval.core.deprecation import caller_stacklevel, renamed
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings, as_ratings, select_criterion
from humaneval.core.responses import lower_is_better
from humaneval.core.structure import describe_structure
from humaneval.errors import AnalysisCaution, ModelSpecError, OptionError
from humaneval.methods import get_method
from humaneval.methods.base import MethodTable
from humaneval.present.formatting import fmt, fmt_ci, fmt_p, is_missing, p_is
from humaneval.ranks.analysis import rank_sets_dict, with_rank_sets
from humaneval.ranks.result import RankSets
from humaneval.stats.grouping import groupings
from humaneval.stats.kernels import AGGREGATES


def system_means(ratings: Ratings) -> pd.Series:
    """Mean response per system as reported: scores as given, ranks 1-based (lower = better).

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> system_means(as_ratings(wine_ratings())).round(3).to_dict()
    {'cold-no': 2.056, 'cold-yes': 2.611, 'warm-no': 3.111, 'warm-yes': 3.889}
    """
    values = ratings.reported()
    return values.groupby(ratings.data["system"]).mean().rename("mean")


@dataclass(frozen=True, eq=False)
class Analysis:
    """The outcome of :func:`analyze`: systems with groupings, contrasts and (for the CLMM) the fit."""

    test: str
    aggregate: str | None
    adjust: str
    response: str
    systems: pd.DataFrame
    contrasts: pd.DataFrame
    fit: FitResult | None = None
    independent: bool = True
    criterion: str | None = None
    extra: Mapping[str, object] | None = None
    emms: pd.DataFrame | None = None
    lr_test: Mapping[str, object] | None = None
    omnibus: Mapping[str, object] | None = None
    by: tuple[str, ...] = ()
    cautions: tuple[str, ...] = ()
    kind: str | None = None
    rank_sets: Mapping[str, RankSets] | None = None

    def to_dict(self) -> dict[str, object]:
        """One element of ``criteria`` in ``humaneval analyze --json`` (see docs/analysis.md).

        ``contrasts`` holds the rows of :attr:`contrasts` with its column names as keys.
        """
        fit = self.fit
        return {
            "test": self.test,
            "kind": self.kind,
            "criterion": self.criterion,
            "response": self.response,
            "engine": fit.engine if fit else None,
            "structure": fit.structure if fit else None,
            "link": fit.link if fit else None,
            "reference": fit.reference if fit else None,
            "aggregate": self.aggregate,
            "independent_units": self.independent,
            "fallbacks": [a.to_dict() for a in fit.fallbacks] if fit else [],
            "fixed_effects": fit.fixed_effects().to_dict(orient="records") if fit else [],
            "thresholds": fit.thresholds_frame().to_dict(orient="records") if fit else [],
            "random_effects": fit.random_effects_frame().to_dict(orient="records") if fit else [],
            "contrasts": self.contrasts.to_dict(orient="records"),
            "groups": self.systems.to_dict(orient="records"),
            "diagnostics": (
                {
                    **fit.diagnostics.to_dict(),
                    "loglik": fit.loglik,
                    "aic": fit.aic,
                    "bic": fit.bic,
                    "nobs": fit.nobs,
                }
                if fit
                else None
            ),
            "formula": fit.formula if fit else None,
            "threshold": fit.threshold if fit else None,
            "emmeans": self.emms.to_dict(orient="records") if self.emms is not None else [],
            "lr_test": self.lr_test,
            "omnibus": self.omnibus,
            "engine_comparison": fit.engine_comparison if fit else None,
            "versions": fit.versions if fit else {},
            "cautions": list(self.cautions),
            "rank_sets": rank_sets_dict(self.rank_sets),
            **(self.extra or {}),
        }

    @property
    def by_columns(self) -> list[str]:
        """The ``by`` columns of an EMM contrast table (empty otherwise)."""
        return list(self.by)

    def summary(self) -> str:
        """The system table with groupings and the contrast table, as ``humaneval analyze`` prints them."""
        lines = (
            self.fit.headline() if self.fit is not None else [f"{self.test} test, aggregate={self.aggregate}"]
        )
        if self.fit is not None and (self.fit.structure == "formula" or self.emms is not None):
            lines += ["", f"{'term':<28} {'estimate':>9} {'SE':>7} {'z':>8} {'p':>8}"]
            for row in self.fit.fixed_effects().itertuples():
                lines.append(
                    f"{row.term:<28} {row.estimate:>9.4f} {row.se:>7.4f} {row.z:>8.3f} {fmt_p(row.p):>8}"
                )
        if self.emms is not None:
            return "\n".join(lines + self._emm_lines())
        unit = "mean rank (1 = best)" if lower_is_better(self.response) else "mean score"
        lines += ["", f"{'system':<20} {unit:<22} letters  estimate"]
        for row in self.systems.itertuples():
            lines.append(f"{row.system:<20} {row.label:<22} {row.letters:<8} {fmt(row.estimate)}")
        lines += ["", f"contrasts (adjust = {self.adjust}; positive = first system better)"]
        lines.append(f"{'contrast':<36} {'estimate':>9} {'SE':>7} {'stat':>8} {'p':>8} {'p adj':>8}  CI")
        for row in self.contrasts.itertuples():
            name = f"{row.system_a} - {row.system_b}"
            ci = "" if is_missing(row.ci_low) else fmt_ci(row.ci_low, row.ci_high)
            lines.append(
                f"{name:<36} {fmt(row.estimate):>9} {fmt(row.se):>7} {fmt(row.statistic):>8} "
                f"{fmt_p(row.p_unadj):>8} {fmt_p(row.p_adj):>8}  {ci}"
            )
        return "\n".join(lines)

    def _emm_lines(self) -> list[str]:
        """EMM tables, contrasts with odds ratios and the tests of a formula analysis."""
        emms = self.emms
        if emms is None:
            return []
        factor = [c for c in emms.columns if c not in ("emmean", "se", "ci_low", "ci_high", "mode")]
        lines = []
        found = (self.extra or {}).get("categories")
        categories = found if isinstance(found, dict) else {}
        used = categories.get("used") or []
        same = "expected" in set(emms["mode"]) and used == list(range(1, len(used) + 1))
        for mode, part in emms.groupby("mode", sort=False):
            if same and mode == "mean.class":
                continue  # the class index is the score on a 1..K scale with every point used
            lines += ["", _emm_heading(str(mode), categories)]
            for row in part.itertuples(index=False):
                label = " ".join(f"{k}={getattr(row, k)}" for k in factor)
                lines.append(
                    f"  {label:<36} {row.emmean:>8.3f} {row.se:>7.3f}  {fmt_ci(row.ci_low, row.ci_high)}"
                )
        lines += ["", f"contrasts (adjust = {self.adjust}; latent scale; OR = odds ratio)"]
        for row in self.contrasts.itertuples():
            by = "".join(f" | {k}={getattr(row, k)}" for k in self.by_columns)
            odds = getattr(row, "odds_ratio", None)
            odds_text = f"  OR {odds:.3f} {fmt_ci(row.or_low, row.or_high)}" if not is_missing(odds) else ""
            lines.append(
                f"  {row.system_a} - {row.system_b}{by:<12} {row.estimate:>8.3f} {row.se:>7.3f} "
                f"p {fmt_p(row.p_unadj)} p.adj {fmt_p(row.p_adj)}{odds_text}"
            )
        if self.omnibus:
            o = self.omnibus
            lines.append(
                f"omnibus Wald test of {o['factor']}: χ²({o['df']}) = {o['statistic']:.3f}, {p_is(o['p'])}"
            )
        if self.lr_test:
            t = self.lr_test
            lines.append(
                f"likelihood-ratio test vs {t['restricted']}: χ²({t['df']}) = {t['statistic']:.3f}, "
                f"{p_is(t['p'])}; AIC {t['aic_restricted']:.2f} → {t['aic_full']:.2f}, "
                f"BIC {t['bic_restricted']:.2f} → {t['bic_full']:.2f}"
            )
        return lines + scale_lines(self.extra)

    def __repr__(self) -> str:
        what = (
            f"CLMM {self.fit.structure}, {self.fit.engine} engine" if self.fit is not None else f"{self.test}"
        )
        criterion = f" [{self.criterion}]" if self.criterion else ""
        significant = int(self.contrasts["better"].notna().sum()) if "better" in self.contrasts else 0
        counts = f"{_count(len(self.systems), 'system')}, {_count(len(self.contrasts), 'contrast')}"
        cautions = f", {_count(len(self.cautions), 'caution')}" if self.cautions else ""
        tests = f"{significant} significant at adjust={self.adjust}"
        return f"<Analysis{criterion} {what}: {counts} ({tests}){cautions}>"


def _emm_heading(mode: str, categories: dict) -> str:
    """What an EMM table holds, in words a reader cannot mistake: the expected score is on the
    ratings' own values, the class index is not a score."""
    used = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in categories.get("used", []))
    if mode == "expected":
        unused = categories.get("unused")
        never = f"; never used: {', '.join(f'{v:g}' for v in unused)}" if unused else ""
        return f"estimated marginal means (expected score on the scale's own values {used}{never}; 95% CI)"
    if mode == "mean.class":
        k = len(categories.get("used", [])) or "K"
        return (
            f"estimated marginal means (mean.class: expected class index 1..{k} over the categories "
            f"used, {used}; not a score; 95% CI)"
        )
    return f"estimated marginal means ({mode}, 95% CI)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@renamed(model="structure", rounds="n_permutations")
def analyze(
    ratings: Ratings | pd.DataFrame | MethodTable,
    test: str = "clmm",
    *,
    engine: str = "native",
    structure: str = "auto",
    link: str = "logit",
    reference: str | Mapping[str, str] | None = None,
    adjust: str | None = None,
    aggregate: str = "none",
    criterion: str | None = None,
    fallback: bool = True,
    n_permutations: int = 1000,
    seed: int | np.random.Generator | None = None,
    alpha: float = 0.05,
    formula: str | None = None,
    threshold: str = "flexible",
    emm: str | None = None,
    by: str | None = None,
    compare: str | None = None,
    progress: bool | Callable[[str], None] = False,
    inference: str | None = None,
    n_resamples: int = 1000,
    style: tuple[str, ...] = (),
    max_minutes: float | None = CEILING_MINUTES,
    judge: str | None = None,
    judge_scores: Any = None,
    judge_model: str = "mean",
    cluster: str = "auto",
    probabilities: pd.DataFrame | None = None,
    scale: str | None = None,
) -> SystemAnalysis:
    """Analyse one criterion with the model of its table kind (``test="clmm"``) or a classic test.

    Which model a table gets is decided here, through the methods registry
    (:func:`~humaneval.analysis.adapters.adapter_for`): Likert, slider and ranking tables get the
    CLMM (an :class:`Analysis`), pairwise tables the mixed-effects Bradley–Terry model and
    best–worst tables MaxDiff strengths with a cluster bootstrap (a
    :class:`~humaneval.comparative.ComparativeAnalysis`). ``humaneval analyze`` and ``humaneval
    report`` call this function, so the three give the same model, estimates and p-values.

    ``adjust`` defaults to ``tukey`` (CLMM, ANOVA) or ``holm`` (paired classic tests);
    ``aggregate`` applies to classic tests only. ``formula`` fits any CLMM formula (``ratings`` may
    then be any data frame); ``emm`` names the factor whose estimated marginal means are compared
    (default ``system`` when the formula has it), optionally within each level of ``by``;
    ``compare`` is a nested formula tested against ``formula`` by a likelihood-ratio test.

    A classic test whose units are not independent, and the one-way ANOVA, come with cautions:
    each is warned as an :class:`~humaneval.errors.AnalysisCaution` and kept in
    ``Analysis.cautions``.

    Parameters
    ----------
    ratings : Ratings, DataFrame or SpanTable
        The long ratings table (``annotator, document, system, score`` or ``rank``); with
        ``formula`` any data frame holding the formula's columns; or a span table
        (:func:`humaneval.spans.load_spans`), scored by its rule and analysed by the ``spans``
        adapter (docs/spans.md).
    test : {"clmm", "plackett-luce", "ttest", "art", "wilcoxon", "anova"}
        ``clmm`` (default, recommended): the model of the table's kind (the CLMM for ratings and
        ranks, the comparative model for pairwise and best–worst judgements); ``plackett-luce``: a
        ranking table as comparative judgements; or a classic test (:func:`classic_test`).
    engine : {"native", "r", "both"}
        The CLMM engine; ``both`` compares the native fit with R's ordinal::clmm.
    structure : {"auto", "maximal", "nested", "uncorrelated", "intercepts"}
        Random-effect structure of the CLMM (formerly ``model=``); ``auto`` starts at the
        design's maximal structure and walks the fallback ladder.
    link : {"logit", "probit", "cloglog", "loglog", "cauchit"}
        The CLMM link.
    reference : str or mapping, optional
        Reference level of the treatment coding: a system, or factor → level
        (``{"temp": "warm"}``, the CLI's ``--reference temp=warm``) for formula fits.
    adjust : {"tukey", "holm", "bonferroni", "none"}, optional
        Multiple-comparison adjustment of the contrasts.
    aggregate : {"none", "document", "cluster"}
        Pairing unit of a classic test.
    criterion : str, optional
        The criterion to analyse when the table has several (see :func:`analyze_criteria`).
    fallback : bool
        Walk down the structure ladder when a CLMM fit fails.
    n_permutations : int
        Sign-flip rounds of the ART (formerly ``rounds=``).
    seed : int or Generator, optional
        Seed of the ART.
    alpha : float
        Significance level of the rank groups and the ``better`` column.
    formula : str, optional
        Any CLMM formula, e.g. ``"score ~ system * position + (1 | annotator)"``.
    threshold : {"flexible", "equidistant", "symmetric"}
        Threshold structure of a formula fit.
    emm : str, optional
        Factor whose estimated marginal means are compared (formula fits).
    by : str, optional
        Compare the ``emm`` levels within each level of this factor.
    compare : str, optional
        A nested formula tested against ``formula`` (likelihood ratio).
    scale : str, optional
        Scale effects of the CLMM: ``"~ annotator"`` (fixed) or ``"~ (1 | annotator)"`` (a random
        log-scale); the result's ``extra`` then holds ``scale_effects``, ``scale_sd`` and
        ``scale_test`` (docs/analysis.md, "Annotators who use the scale differently").
    progress : bool or callable
        Say how long work goes (``True``: on stderr): the size, model and estimate of a long
        CLMM fit before it starts, then where it is (:func:`fit_clmm`).
    inference : {"mixed", "two-way", "pigeonhole", "annotator", "document", "naive", "model"}, optional
        Standard errors of a comparative analysis (default: the mixed model for pairwise tables,
        the two-way cluster bootstrap for best–worst and Plackett–Luce); refused for the CLMM.
    n_resamples : int
        Bootstrap replicates of a comparative analysis with a bootstrap inference.
    style : tuple of str
        Pairwise tables: style-difference columns entered as covariates (style control; see
        :func:`~humaneval.comparative.analyze_comparative`); refused for other tables.
    max_minutes : float or None
        Ceiling on the estimated CPU minutes of a native CLMM fit of a named structure; ``None``
        lifts it (docs/analysis.md, "Large studies").
    judge : str, optional
        Humans and this judge together: prediction-powered inference (the ``ppi`` adapter,
        docs/ppi.md), the same estimates as ``humaneval ppi``. Without it, judge rows are left out.
    judge_scores : path, DataFrame or dict, optional
        The judge's scores when they are not rows of ``ratings``
        (:func:`~humaneval.core.judge_scores.read_judge_scores`); implies the ``ppi`` adapter.
    judge_model : {"mean", "ordinal"}
        With a judge, the estimator of a score table: PPI++ means or proportional-odds contrasts.
    cluster : {"auto", "document", "block"}
        With a judge, the independent units.
    probabilities : DataFrame, optional
        With a judge, ``document, probability`` of the design that chose the human-rated documents.

    Returns
    -------
    SystemAnalysis
        An :class:`Analysis` (CLMM, classic tests) or a
        :class:`~humaneval.comparative.ComparativeAnalysis`: the system table with rank groups, the
        contrast table, the fit and the cautions; ``summary()`` is the text of ``humaneval analyze``,
        ``to_dict()`` its ``--json``.

    Raises
    ------
    OptionError
        An unknown test, engine, structure, adjustment or aggregation, or formula options with a
        classic test.
    RatingsError
        A malformed table or an unknown criterion.

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    Randall's wine data (``humaneval.io.datasets.wine``): warm wines are rated more bitter, by
    3.063 on the latent scale (Christensen 2019):

    >>> from humaneval.io.datasets import wine
    >>> result = analyze(wine(), formula="rating ~ temp + contact + (1|judge)", emm="temp")
    >>> result
    <Analysis CLMM formula, native engine: 2 systems, 1 contrast (1 significant at adjust=tukey)>
    >>> print(result.summary().splitlines()[0])  # doctest: +ELLIPSIS
    CLMM formula (rating ~ temp + contact + (1 | judge)), logit link, flexible thresholds, ...; 72 ratings
    >>> row = result.contrasts.iloc[0]
    >>> row.system_a, row.system_b, float(round(row.estimate, 3))
    ('cold', 'warm', -3.063)
    """
    if isinstance(ratings, MethodTable) and not isinstance(ratings, Ratings | pd.DataFrame):
        # a table of another method's answers (a span table): the adapter its method names (docs/spans.md)
        if test != "clmm" or any(o is not None for o in (formula, emm, compare, scale)):
            raise OptionError(
                f"a {ratings.method} table gets its method's model; it takes no --test, --formula, "
                "--emmeans, --compare or --scale-effects"
            )
        options = AnalysisOptions(
            engine=engine, structure=structure, link=link, reference=reference, adjust=adjust,
            fallback=fallback, alpha=alpha, seed=seed, inference=inference, style=tuple(style),
            max_minutes=max_minutes, judge=judge, judge_scores=judge_scores,
        )  # fmt: skip
        adapter = ADAPTERS[get_method(ratings.method).analysis]
        return adapter.run(cast(Ratings, ratings), ratings.method, criterion, options)  # its adapter reads it
    if by is not None and formula is None and emm is None and compare is None:
        raise OptionError(f"--by {by} compares the --emmeans factor within each level; add --emmeans FACTOR")
    if style and (test not in MODEL_TESTS or formula is not None):
        raise OptionError(
            "style covariates apply to the pairwise Bradley–Terry model, not to a formula or classic test"
        )
    if formula is not None or emm is not None or compare is not None or scale is not None:
        if test != "clmm":
            raise OptionError(
                "--formula, --emmeans, --compare and --scale-effects apply to the CLMM (--test clmm)"
            )
        return _analyze_formula(
            ratings,
            formula,
            engine=engine,
            structure=structure,
            link=link,
            reference=reference,
            adjust=adjust or "tukey",
            criterion=criterion,
            alpha=alpha,
            threshold=threshold,
            emm=emm,
            by=by,
            compare=compare,
            progress=progress,
            scale=scale,
        )
    if test not in (*MODEL_TESTS, *TESTS):
        raise OptionError(f"unknown test {test!r}; use one of {', '.join((*MODEL_TESTS, *TESTS))}")
    if aggregate not in AGGREGATES:
        raise OptionError(f"unknown aggregation {aggregate!r}; use one of {', '.join(AGGREGATES)}")
    judged = judge is not None or judge_scores is not None
    if judged and test not in MODEL_TESTS:
        raise OptionError(f"a judge joins the table kind's model, not the classic test {test!r}")
    if test in MODEL_TESTS:
        adapter, kind = adapter_for(ratings, criterion, test, judged=judged)
        options = AnalysisOptions(
            engine=engine, structure=structure, link=link, reference=reference, adjust=adjust,
            fallback=fallback, alpha=alpha, seed=seed, inference=inference, n_resamples=n_resamples,
            progress=progress, style=tuple(style), max_minutes=max_minutes, judge=judge,
            judge_scores=judge_scores, judge_model=judge_model, cluster=cluster, probabilities=probabilities,
        )  # fmt: skip
        result = adapter.run(as_ratings(ratings), kind, criterion, options)
        return with_rank_sets(result, confidence=1.0 - alpha, seed=seed)
    table = select_criterion(ratings, criterion)
    means = system_means(table)
    return _classic_analysis(
        table, means, test, aggregate, adjust, n_permutations=n_permutations, seed=seed, alpha=alpha,
        criterion=criterion,
    )  # fmt: skip


def clmm_analysis(ratings: Ratings, kind: str, criterion: str | None, options: AnalysisOptions) -> Analysis:
    """The :class:`Analysis` of a CLMM fit of the system effects of one criterion: its contrasts and
    rank groups (the ``clmm`` adapter of :mod:`humaneval.analysis.adapters`)."""
    table = select_criterion(ratings, criterion)
    fit = fit_clmm(
        table,
        engine=options.engine,
        structure=options.structure,
        link=options.link,
        reference=options.reference,
        fallback=options.fallback,
        progress=options.progress,
        max_minutes=options.max_minutes,
    )
    adjust, alpha = options.adjust or "tukey", options.alpha
    contrasts = fit.contrasts(adjust=adjust, alpha=alpha)
    caution = clmm_calibration(describe_structure(table))
    if caution is not None:
        warnings.warn(caution, AnalysisCaution, stacklevel=caller_stacklevel())
    return Analysis(
        test="clmm",
        aggregate=None,
        adjust=adjust,
        response=table.response,
        systems=groupings(system_means(table), fit.estimates(), contrasts, alpha),
        contrasts=contrasts,
        fit=fit,
        criterion=criterion,
        kind=kind,
        cautions=() if caution is None else (caution,),
    )


def _classic_analysis(
    table: Ratings,
    means: pd.Series,
    test: str,
    aggregate: str,
    adjust: str | None,
    *,
    n_permutations: int,
    seed: int | np.random.Generator | None,
    alpha: float,
    criterion: str | None,
) -> Analysis:
    """The :class:`Analysis` of a classic test: contrasts, rank groups on the mean oriented scores,
    and the cautions (warned as well as kept)."""
    contrasts = classic_test(
        table, test, aggregate, adjust, n_permutations=n_permutations, seed=seed, alpha=alpha
    )
    oriented = table.oriented().astype(float).groupby(table.data["system"]).mean()
    estimates = oriented.reindex(list(dict.fromkeys([*contrasts["system_a"], *contrasts["system_b"]])))
    independent = independent_units(table, aggregate)
    cautions = classic_cautions(test, aggregate, independent)
    for caution in cautions:
        warnings.warn(caution, AnalysisCaution, stacklevel=caller_stacklevel())
    return Analysis(
        test=test,
        aggregate=aggregate,
        adjust=str(contrasts["adjust"].iloc[0]),
        response=table.response,
        systems=groupings(means, estimates, contrasts, alpha),
        contrasts=contrasts,
        independent=independent,
        criterion=criterion,
        extra={"anova": anova_omnibus(table, aggregate), "not_recommended": True}
        if test == "anova"
        else None,
        cautions=cautions,
    )


def classic_cautions(test: str, aggregate: str, independent: bool) -> tuple[str, ...]:
    """What a reader of a classic test's p-values must know: units that are not independent (the
    p-values are too small) and the one-way ANOVA's ignoring of the pairing."""
    out = []
    if not independent:
        out.append(
            f"{test} treats the {aggregate}-level units as independent, but they share annotators or "
            "documents; p-values are too small. Use the CLMM or --aggregate cluster."
        )
    if test == "anova":
        out.append("one-way ANOVA ignores the pairing and grouping factors (not recommended)")
    return tuple(out)


@renamed(n_boot="n_resamples")
@shared_docs
def bradley_terry(
    ratings: Ratings | pd.DataFrame,
    *,
    criterion: str | None = None,
    inference: str | None = None,
    adjust: str | None = None,
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = 1,
    **options: Any,
) -> ComparativeAnalysis:
    """Bradley–Terry strengths of pairwise judgements through
    :func:`humaneval.comparative.analyze_comparative` (``kind`` ``pairwise``; other ``options`` are
    passed on). The default ``inference`` is the mixed-effects Bradley–Terry model (annotator and
    document deviations as random effects); ``"two-way"`` is the Davidson/Bradley–Terry fit with a
    two-way cluster bootstrap over annotators and documents.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        A pairwise table (one row per summary and judgement, with ``opponent``; score 1 won,
        0 lost, 0.5 tie).
    criterion : str, optional
        %(criterion)s
    inference : {"mixed", "two-way", "pigeonhole", "annotator", "document", "naive", "model"}, optional
        How the covariance of the strengths is estimated (default ``mixed``).
    adjust : {"tukey", "holm", "bonferroni", "none"}, optional
        Multiple-comparison adjustment of the contrasts (default ``tukey``).
    n_resamples : int
        Bootstrap replicates of the bootstrap inferences.
    seed : int or Generator, optional
        Seed of the bootstrap.
    **options
        Passed to :func:`humaneval.comparative.analyze_comparative` (``confidence_level``,
        ``alpha``, ``floor``, ``mixed_terms``).

    Returns
    -------
    ComparativeAnalysis
        The system table with rank groups, the contrast table and the fit; ``summary()`` prints them.

    Raises
    ------
    OptionError
        An unknown inference or adjustment.
    RatingsError
        A table that is not pairwise, or an unknown criterion.

    References
    ----------
    Bradley, R. A., & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method
    of paired comparisons. Biometrika, 39(3/4), 324–345.

    Examples
    --------
    A simulated study of three systems with true strengths 0.5, 0 and −0.5:

    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> result = bradley_terry(simulate_pairwise_study([0.5, 0.0, -0.5], seed=1))
    >>> result.test, result.systems["system"].tolist(), result.systems["letters"].tolist()
    ('mixed-bradley-terry', ['s0', 's1', 's2'], ['a', 'b', 'c'])
    >>> result.systems["estimate"].round(3).tolist()
    [0.625, -0.102, -0.522]
    """
    return analyze_comparative(
        ratings,
        kind="pairwise",
        criterion=criterion,
        inference=inference,
        adjust=adjust,
        n_resamples=n_resamples,
        seed=seed,
        **options,
    )


def _analyze_formula(
    ratings: Ratings | pd.DataFrame,
    formula: str | None,
    *,
    engine: str,
    structure: str,
    link: str,
    reference: str | Mapping[str, str] | None,
    adjust: str,
    criterion: str | None,
    alpha: float,
    threshold: str,
    emm: str | None,
    by: str | None,
    compare: str | None,
    progress: bool | Callable[[str], None],
    scale: str | None = None,
) -> Analysis:
    """The CLMM of any formula (or of a named structure, for --emmeans/--compare) with EMMs."""
    frame: pd.DataFrame
    if _plain(ratings):
        if formula is None:
            raise ModelSpecError("a table without annotator and system columns needs --formula")
        frame, response = ratings, None
    else:
        table = select_criterion(ratings, criterion) if not _uses(formula, "criterion") else _all(ratings)
        frame, response = table.data, table.response
    if formula is None:
        formula = _structure_formula(table, structure, response or "score", scale is not None)
    fit = fit_clmm(
        frame,
        engine=engine,
        link=link,
        reference=reference,
        formula=formula,
        threshold=threshold,
        progress=progress,
        scale=scale,
    )
    categories = _categories(fit, table if not _plain(ratings) else None, criterion)
    factors, _ = _fixed_columns(fit)
    factor = emm or ("system" if "system" in factors else (factors[0] if factors else None))
    contrasts = pd.DataFrame(columns=list(CONTRAST_COLUMNS))
    emms = groups = omnibus = None
    by_cols = [by] if by else []
    if factor is not None:
        table_c = emm_contrasts(fit, factor, by=by, adjust=adjust, alpha=alpha)
        contrasts = table_c.rename(columns={"level_a": "system_a", "level_b": "system_b", "z": "statistic"})
        contrasts["df"] = np.inf
        contrasts["test"] = "z"
        latent = emmeans(fit, factor, by=by, mode="latent").assign(mode="latent")
        mean_class = emmeans(fit, factor, by=by, mode="mean.class").assign(mode="mean.class")
        parts = [latent, mean_class]
        if categories["values_numeric"]:
            expected = emmeans(fit, factor, by=by, mode="expected").assign(mode="expected")
            parts.insert(1, expected)
        emms = pd.concat(parts, ignore_index=True)
        omnibus = wald_omnibus(fit, factor)
        if by is None:
            est = latent.set_index(factor)["emmean"]
            column = fit.spec.response if isinstance(fit.spec, ClmmSpec) else None
            if column in frame and factor in frame:
                means = (
                    pd.to_numeric(frame[column], errors="coerce").groupby(frame[factor].astype(str)).mean()
                )
            else:
                means = mean_class.set_index(factor)["emmean"]
            groups = groupings(means.rename("mean"), est, contrasts, alpha)
    lr = None
    if compare is not None:
        restricted = fit_clmm(
            frame,
            engine="native" if engine == "both" else engine,
            link=link,
            reference=reference,
            formula=compare,
            threshold=threshold,
            scale=scale,
        )
        lr = lr_test(restricted, fit)
    extra: dict[str, object] | None = {"categories": categories} if emms is not None else None
    if fit.scale is not None:
        extra = {**(extra or {}), **scale_extra(fit)}
    return Analysis(
        test="clmm",
        aggregate=None,
        adjust=adjust,
        response=response or (fit.spec.response if isinstance(fit.spec, ClmmSpec) else "response"),
        systems=groups if groups is not None else pd.DataFrame(),
        contrasts=contrasts,
        fit=fit,
        criterion=criterion,
        emms=emms,
        lr_test=lr,
        omnibus=omnibus,
        by=tuple(by_cols),
        extra=extra,
    )


def _structure_formula(table: Ratings, structure: str, response: str, scale: bool) -> str:
    """The formula of a named structure (``auto``: nested or maximal; ``intercepts`` with scale effects,
    which take random intercepts only)."""
    from humaneval.clmm.structures import structure_formula

    nested = describe_structure(table).family == "nested"
    chosen = structure if structure != "auto" else ("nested" if nested else "maximal")
    if scale and structure == "auto":
        chosen = "intercepts"
    return structure_formula(chosen, nested, response)


def _categories(fit: FitResult, table: Ratings | None, criterion: str | None) -> dict[str, object]:
    """The response categories the model knows (the values used) and, when the scale is declared
    (``ratings.scale.json``, ``Ratings.scales``), the declared points never used."""
    try:
        used: list = [float(v) for v in fit.levels]
        numeric = True
    except (TypeError, ValueError):
        used, numeric = [str(v) for v in fit.levels], False
    declared = table.declared_points(criterion) if table is not None and numeric else None
    unused = None if declared is None else [v for v in declared if v not in set(used)]
    return {
        "used": used,
        "declared": declared,
        "unused": unused,
        "values_numeric": numeric,
    }


def _uses(formula: str | None, column: str) -> bool:
    import re

    return formula is not None and re.search(rf"\b{re.escape(column)}\b", formula) is not None


def _all(ratings: Ratings | pd.DataFrame) -> Ratings:
    return as_ratings(ratings).without_checks()
