"""One call from a ratings table to the system table with groupings and the contrast table.

``analyze`` runs either the model of the table's kind (docs/analysis.md, the default and the
recommended analysis; :mod:`humaneval.analysis.adapters` decides which) or one of the classic tests
(docs/analysis.md) and returns an :class:`~humaneval.analysis.outcome.Analysis` (or the adapter's
result), whose ``to_dict()`` is the JSON of ``humaneval analyze --json``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, cast

import numpy as np
import pandas as pd

from humaneval.analysis.adapters import ADAPTERS, MODEL_TESTS, SystemAnalysis, adapter_for
from humaneval.analysis.classic import TESTS, anova_omnibus, classic_test, independent_units
from humaneval.analysis.options import AnalysisOptions
from humaneval.analysis.ordinal import formula_analysis
from humaneval.analysis.outcome import Analysis, system_means
from humaneval.analysis.plan import CEILING_MINUTES
from humaneval.comparative.analyze import ComparativeAnalysis, analyze_comparative
from humaneval.core.deprecation import caller_stacklevel, renamed
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings, as_ratings, select_criterion
from humaneval.errors import AnalysisCaution, OptionError
from humaneval.methods import get_method
from humaneval.methods.base import MethodTable
from humaneval.ranks.analysis import with_rank_sets
from humaneval.stats.grouping import groupings
from humaneval.stats.kernels import AGGREGATES


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
        return formula_analysis(
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
