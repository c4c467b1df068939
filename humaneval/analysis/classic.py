"""Classic significance tests of system pairs, for comparison and for aggregated designs.

docs/analysis.md#method-notes: paired t-test, Noreen's approximate randomisation test (dissertation
§3.2.4, eq. 3.14), Wilcoxon signed-rank, and one-way ANOVA at three aggregation levels:

- ``"none"``: one judgement per system, paired within (annotator, document);
- ``"document"``: the mean over the document's annotators, paired within documents;
- ``"cluster"``: the mean over a cluster's (block's) judgements, paired within clusters.

Pairs with a missing side are dropped and counted. Responses are oriented so that higher is better
(ranks negated): p-values equal those on raw ranks, only the sign of the estimate flips. Every test
returns the contrast table of :mod:`humaneval.analysis.contrasts` (``system_a − system_b``).

All of them assume independent pairs; with ``aggregate`` other than ``"cluster"`` judgements that
share an annotator or a document are correlated and the p-values come out too small (dissertation §3.6.5).
:func:`independent_units` says whether the units are independent clusters.
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.analysis.prepare import choose_reference
from humaneval.clmm.contrasts import (
    CONTRAST_COLUMNS,
    adjust_pvalues,
    better_column,
    check_adjust,
    tukey_p,
    tukey_quantile,
)
from humaneval.core.deprecation import caller_stacklevel, renamed
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings, as_ratings, select_criterion
from humaneval.core.structure import cluster_labels
from humaneval.errors import DataWarning, InsufficientDataError, OptionError
from humaneval.stats.kernels import AGGREGATES, art_pvalues, paired_t_pvalues

TESTS = ("ttest", "art", "wilcoxon", "anova")


def unit_table(ratings: Ratings | pd.DataFrame, aggregate: str = "none") -> pd.DataFrame:
    """Oriented responses (higher = better) per pairing unit (rows) and system (columns).

    Systems are ordered as in the CLMM: the reference first, then sorted.
    """
    if aggregate not in AGGREGATES:
        raise OptionError(f"unknown aggregation {aggregate!r}; use one of {', '.join(AGGREGATES)}")
    table = select_criterion(ratings)
    df = table.data.assign(value=table.oriented().astype(float))
    if aggregate == "none":
        keys = ["annotator", "document"]
    elif aggregate == "document":
        keys = ["document"]
    else:
        df = df.assign(cluster=cluster_labels(table).to_numpy())
        keys = ["cluster"]
    wide = df.pivot_table(index=keys, columns="system", values="value", aggfunc="mean", observed=True)
    ref = choose_reference(table.systems)
    return wide.reindex(columns=[ref, *(s for s in table.systems if s != ref)])


def independent_units(ratings: Ratings | pd.DataFrame, aggregate: str) -> bool:
    """Whether the pairing units of ``aggregate`` are independent: one unit per cluster."""
    if aggregate == "cluster":
        return True
    table = as_ratings(ratings).without_checks()
    return len(unit_table(table, aggregate)) == cluster_labels(table).nunique()


def _pairs(wide: pd.DataFrame):
    """Yield (a, b, Δ = x_a − x_b over complete pairs, number of dropped pairs)."""
    for a, b in combinations(wide.columns, 2):
        both = wide[[a, b]].dropna()
        dropped = int(wide[[a, b]].notna().any(axis=1).sum() - len(both))
        yield a, b, (both[a] - both[b]).to_numpy(), dropped


@renamed(level="confidence_level")
@shared_docs
def paired_ttest(
    ratings: Ratings | pd.DataFrame,
    aggregate: str = "none",
    adjust: str = "holm",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Paired t-test per system pair, t = Δ̄/(s_Δ/√n) on n−1 df.

    All Δ_i = 0 gives p = 1; constant non-zero Δ_i give p = 0 with a warning.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        %(one_criterion_ratings)s
    aggregate : {"none", "document", "cluster"}
        %(aggregate)s
    adjust : {"holm", "bonferroni", "none"}
        %(adjust_intervals)s
    confidence_level : float
        %(confidence_level)s
    alpha : float
        %(alpha)s

    Returns
    -------
    DataFrame
        One row per system pair: the contrast table of docs/vocabulary.md (``estimate`` is the
        mean difference ``system_a − system_b`` of oriented responses, ``test`` is ``t``).

    Raises
    ------
    OptionError
        An unknown aggregation or adjustment.
    InsufficientDataError
        A pair shares fewer than 2 pairing units.

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    Warm wines taste more bitter than cold ones (:func:`humaneval.io.datasets.wine_ratings`):

    >>> from humaneval.io.datasets import wine_ratings
    >>> table = paired_ttest(wine_ratings())
    >>> row = table.iloc[1]
    >>> row.system_a, row.system_b, float(round(row.estimate, 4)), float(round(row.statistic, 4)), int(row.df)
    ('cold-no', 'warm-no', -1.0556, -4.4857, 17)
    >>> float(round(row.p_adj, 4)), row.better
    (0.0013, 'warm-no')
    """
    rows = []
    for a, b, delta, dropped in _pairs(unit_table(ratings, aggregate)):
        n = delta.size
        _require_pairs(n, a, b)
        mean, se = float(delta.mean()), float(delta.std(ddof=1) / np.sqrt(n))
        p = float(paired_t_pvalues(delta))
        if se == 0 and mean != 0:
            warnings.warn(
                f"{a} − {b}: every difference is {mean:g}; t is infinite",
                DataWarning,
                stacklevel=caller_stacklevel(),
            )
        t = mean / se if se > 0 else (0.0 if mean == 0 else np.copysign(np.inf, mean))
        rows.append(_row(a, b, mean, se, t, n - 1, p, n, dropped))
    return _finish(rows, adjust, confidence_level, alpha, "t", ratings, aggregate)


@renamed(rounds="n_permutations")
@shared_docs
def approximate_randomization(
    ratings: Ratings | pd.DataFrame,
    aggregate: str = "none",
    n_permutations: int = 1000,
    seed: int | np.random.Generator | None = None,
    adjust: str = "holm",
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Noreen's paired two-sided ART: T = |ΣΔ_i|, R = ``n_permutations`` random sign flips,
    p = (#{T* ≥ T} + 1)/(R + 1) with ties within a relative 1e-12 (eq. 3.14); with at most 10
    pairs all 2^n sign patterns are enumerated instead (the same kernel as the simulations).

    The statistic column holds T; the p-value is never below 1/(R+1) and, with n pairs, never
    meaningfully below 2^(1−n) (5 clusters cannot reject at 0.05).

    Parameters
    ----------
    ratings : Ratings or DataFrame
        %(one_criterion_ratings)s
    aggregate : {"none", "document", "cluster"}
        %(aggregate)s
    n_permutations : int
        Random sign-flip rounds R (ignored when every pattern is enumerated).
    seed : int or Generator, optional
        Seed of the sign flips.
    adjust : {"holm", "bonferroni", "none"}
        %(adjust)s
    alpha : float
        %(alpha)s

    Returns
    -------
    DataFrame
        The contrast table (docs/vocabulary.md) with ``test`` = ``art``; ``se`` and the
        intervals are missing.

    Raises
    ------
    OptionError
        ``n_permutations`` < 1, an unknown aggregation or adjustment.
    InsufficientDataError
        A pair shares fewer than 2 pairing units.

    References
    ----------
    Noreen, E. W. (1989). Computer-Intensive Methods for Testing Hypotheses. Wiley.

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = approximate_randomization(wine_ratings(), n_permutations=999, seed=1)
    >>> row = table.iloc[2]
    >>> row.system_a, row.system_b, float(row.statistic), float(round(row.p_adj, 3))
    ('cold-no', 'warm-yes', 33.0, 0.006)

    With 2 documents as pairing units all 4 sign patterns are enumerated: p cannot go below 0.5.

    >>> float(approximate_randomization(wine_ratings(), "document")["p_unadj"].min())
    0.5
    """
    if n_permutations < 1:
        raise OptionError(f"n_permutations must be positive, not {n_permutations}")
    rng = np.random.default_rng(seed)
    rows = []
    for a, b, delta, dropped in _pairs(unit_table(ratings, aggregate)):
        n = delta.size
        _require_pairs(n, a, b)
        observed = abs(float(delta.sum()))
        p = float(art_pvalues(delta, n_permutations, rng))
        rows.append(_row(a, b, float(delta.mean()), np.nan, observed, np.nan, p, n, dropped))
    return _finish(rows, adjust, None, alpha, "art", ratings, aggregate)


@shared_docs
def wilcoxon_test(
    ratings: Ratings | pd.DataFrame, aggregate: str = "none", adjust: str = "holm", alpha: float = 0.05
) -> pd.DataFrame:
    """Wilcoxon signed-rank test per system pair (``scipy.stats.wilcoxon``, zero differences
    dropped as in Wilcoxon's original method; all-zero differences give p = 1).

    Parameters
    ----------
    ratings : Ratings or DataFrame
        %(one_criterion_ratings)s
    aggregate : {"none", "document", "cluster"}
        %(aggregate)s
    adjust : {"holm", "bonferroni", "none"}
        %(adjust)s
    alpha : float
        %(alpha)s

    Returns
    -------
    DataFrame
        The contrast table (docs/vocabulary.md): ``statistic`` is W, ``test`` is ``wilcoxon``.

    Raises
    ------
    OptionError
        An unknown aggregation or adjustment.
    InsufficientDataError
        A pair shares fewer than 2 pairing units.

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics Bulletin, 1(6), 80–83.

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> row = wilcoxon_test(wine_ratings()).iloc[2]
    >>> row.system_a, row.system_b, float(row.statistic), float(round(row.p_adj, 4))
    ('cold-no', 'warm-yes', 0.0, 0.0013)
    """
    rows = []
    for a, b, delta, dropped in _pairs(unit_table(ratings, aggregate)):
        n = delta.size
        _require_pairs(n, a, b)
        if np.all(delta == 0):
            stat, p = 0.0, 1.0
        else:
            res = stats.wilcoxon(delta)
            stat, p = float(res.statistic), float(res.pvalue)
        rows.append(_row(a, b, float(delta.mean()), np.nan, stat, np.nan, p, n, dropped))
    return _finish(rows, adjust, None, alpha, "wilcoxon", ratings, aggregate)


@renamed(level="confidence_level")
@shared_docs
def one_way_anova(
    ratings: Ratings | pd.DataFrame,
    aggregate: str = "none",
    adjust: str = "tukey",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """One-way ANOVA over systems, F = MS_between/MS_within on (S−1, N−S) df, with
    pairwise follow-up t-tests on the pooled MS_within (Tukey HSD for ``adjust="tukey"``).

    It ignores the pairing and grouping factors (not recommended); :func:`anova_omnibus` gives
    the omnibus F test.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        %(one_criterion_ratings)s
    aggregate : {"none", "document", "cluster"}
        %(aggregate)s
    adjust : {"tukey", "holm", "bonferroni", "none"}
        %(adjust_intervals)s
    confidence_level : float
        %(confidence_level)s
    alpha : float
        %(alpha)s

    Returns
    -------
    DataFrame
        The contrast table (docs/vocabulary.md) with ``test`` = ``anova`` and N − S df.

    Raises
    ------
    OptionError
        An unknown aggregation or adjustment.
    InsufficientDataError
        No more observations than systems.

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = one_way_anova(wine_ratings())
    >>> row = table.iloc[0]
    >>> row.system_a, row.system_b, float(round(row.estimate, 4)), int(row.df), float(round(row.p_adj, 4))
    ('cold-no', 'cold-yes', -0.5556, 68, 0.2103)
    >>> {k: round(v, 3) for k, v in anova_omnibus(wine_ratings()).items() if k != "p"}
    {'F': 15.206, 'df1': 3, 'df2': 68}
    """
    wide, groups = _anova_groups(ratings, aggregate)
    sizes = np.array([g.size for g in groups])
    n_total, k = int(sizes.sum()), len(groups)
    ms_within = sum(((g - g.mean()) ** 2).sum() for g in groups) / (n_total - k)
    dof = n_total - k
    rows = []
    for (i, a), (j, b) in combinations(enumerate(wide.columns), 2):
        est = float(groups[i].mean() - groups[j].mean())
        se = float(np.sqrt(ms_within * (1 / sizes[i] + 1 / sizes[j])))
        t = est / se if se > 0 else np.nan
        p = float(2 * stats.t.sf(abs(t), dof))
        rows.append(_row(a, b, est, se, t, dof, p, int(sizes[i] + sizes[j]), 0))
    return _finish(rows, adjust, confidence_level, alpha, "anova", ratings, aggregate, n_means=k)


def anova_omnibus(ratings: Ratings | pd.DataFrame, aggregate: str = "none") -> dict[str, float]:
    """The one-way ANOVA's omnibus test of equal system means: ``F``, ``df1``, ``df2`` and ``p``."""
    _, groups = _anova_groups(ratings, aggregate)
    n_total, k = sum(g.size for g in groups), len(groups)
    anova = stats.f_oneway(*groups)
    return {"F": float(anova.statistic), "df1": k - 1, "df2": n_total - k, "p": float(anova.pvalue)}


def _anova_groups(ratings: Ratings | pd.DataFrame, aggregate: str) -> tuple[pd.DataFrame, list[np.ndarray]]:
    wide = unit_table(ratings, aggregate)
    groups = [wide[s].dropna().to_numpy() for s in wide.columns]
    n_total, k = sum(g.size for g in groups), len(groups)
    if n_total - k < 1 or any(g.size < 1 for g in groups):
        raise InsufficientDataError(
            f"one-way ANOVA needs more observations than systems (have {n_total} for {k})"
        )
    return wide, groups


@renamed(rounds="n_permutations")
@shared_docs
def classic_test(
    ratings: Ratings | pd.DataFrame,
    test: str = "ttest",
    aggregate: str = "none",
    adjust: str | None = None,
    n_permutations: int = 1000,
    seed: int | np.random.Generator | None = None,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Run one classic test by name (``ttest``, ``art``, ``wilcoxon``, ``anova``).

    ``adjust`` defaults to ``tukey`` for the ANOVA and ``holm`` for the paired tests.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        One criterion's ratings.
    test : {"ttest", "art", "wilcoxon", "anova"}
        :func:`paired_ttest`, :func:`approximate_randomization`, :func:`wilcoxon_test` or
        :func:`one_way_anova`.
    aggregate : {"none", "document", "cluster"}
        The pairing unit.
    adjust : str, optional
        Multiple-comparison adjustment (``tukey`` only for the ANOVA).
    n_permutations, seed :
        Rounds and seed of the ART.
    alpha : float
        %(alpha)s

    Returns
    -------
    DataFrame
        The contrast table of the chosen test (docs/vocabulary.md).

    Raises
    ------
    OptionError
        An unknown test, or ``adjust="tukey"`` with a paired test.

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = classic_test(wine_ratings(), "ttest", aggregate="document")
    >>> table["n"].tolist(), table["adjust"].iloc[0]
    ([2, 2, 2, 2, 2, 2], 'holm')
    >>> classic_test(wine_ratings(), "bootstrap")
    Traceback (most recent call last):
    ...
    humaneval.errors.OptionError: unknown test 'bootstrap'; use one of ttest, art, wilcoxon, anova
    """
    if test not in TESTS:
        raise OptionError(f"unknown test {test!r}; use one of {', '.join(TESTS)}")
    if test == "anova":
        return one_way_anova(ratings, aggregate, adjust or "tukey", alpha=alpha)
    adjust = adjust or "holm"
    if adjust == "tukey":
        raise OptionError(f"the Tukey adjustment applies to the CLMM and the ANOVA, not to {test}; use holm")
    if test == "ttest":
        return paired_ttest(ratings, aggregate, adjust, alpha=alpha)
    if test == "art":
        return approximate_randomization(ratings, aggregate, n_permutations, seed, adjust, alpha)
    return wilcoxon_test(ratings, aggregate, adjust, alpha)


def _require_pairs(n: int, a: str, b: str) -> None:
    if n < 2:
        raise InsufficientDataError(f"{a} and {b} share {n} pairing unit(s); a paired test needs at least 2")


def _row(a, b, estimate, se, statistic, dof, p, n, dropped) -> dict[str, object]:
    return {
        "system_a": a,
        "system_b": b,
        "estimate": estimate,
        "se": se,
        "statistic": statistic,
        "df": dof,
        "p_unadj": p,
        "n": n,
        "n_dropped": dropped,
    }


def _finish(
    rows: list[dict[str, object]],
    adjust: str,
    confidence_level: float | None,
    alpha: float,
    test: str,
    ratings: Ratings | pd.DataFrame,
    aggregate: str,
    n_means: int | None = None,
) -> pd.DataFrame:
    """Adjust p-values, add confidence intervals (t-based tests) and the common columns."""
    check_adjust(adjust)
    table = pd.DataFrame(rows)
    if adjust == "tukey":
        if n_means is None:
            raise OptionError(
                f"the Tukey adjustment applies to the CLMM and the ANOVA, not to {test}; use holm"
            )
        table["p_adj"] = tukey_p(table["statistic"], n_means, table["df"].to_numpy(dtype=float))
    else:
        table["p_adj"] = adjust_pvalues(table["p_unadj"].to_numpy(dtype=float), adjust)
    table["adjust"] = adjust
    if confidence_level is None:
        table["ci_low"] = table["ci_high"] = np.nan
    else:
        dof = table["df"].to_numpy(dtype=float)
        if adjust == "tukey":
            crit = tukey_quantile(n_means, confidence_level, float(dof[0])) / np.sqrt(2.0)
        else:
            tail = (1 - confidence_level) / (len(table) if adjust in ("holm", "bonferroni") else 1)
            crit = stats.t.ppf(1 - tail / 2, dof)
        table["ci_low"] = table["estimate"] - crit * table["se"]
        table["ci_high"] = table["estimate"] + crit * table["se"]
    table["better"] = pd.Series(better_column(table, alpha), dtype=object)
    table["test"] = test
    columns = [*CONTRAST_COLUMNS, "n", "n_dropped"]
    return table[columns]
