"""Analysis across the criteria of one study: per-criterion results, one multiplicity adjustment.

A study that rates several criteria (coherence, consistency, fluency, relevance) tests every pair
of systems once per criterion. Each criterion is analysed as :func:`~humaneval.analysis.workflow.
analyze` does it; with ``adjust_across_criteria`` the unadjusted p-values of all criteria × pairs
are adjusted together (``statsmodels.stats.multitest.multipletests``), so the family-wise error
rate holds for the whole study rather than for each criterion separately, and the rank groups and
``better`` columns follow the jointly adjusted p-values. The contrasts' confidence intervals are
then left empty (NaN): the within-criterion simultaneous intervals do not cover the larger family.
:meth:`CriteriaAnalysis.summary_table` is the systems × criteria table of the report
("3.78 (1/2)": mean and rank group).

With the CLMM, a Likert table of several criteria gets the joint model ``score ~ system * criterion +
(1 + system | annotator) + (1 | document)`` (:mod:`humaneval.analysis.joint`, which decides it for
:func:`~humaneval.analysis.workflow.analyze`), fitted once; each criterion's analysis is its slice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.multitest import multipletests

from humaneval.analysis.adapters import SystemAnalysis
from humaneval.analysis.workflow import analyze
from humaneval.clmm.contrasts import better_column
from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import OptionError
from humaneval.present.document import Block, Paragraph
from humaneval.present.printable import Printable, frame_table
from humaneval.stats.grouping import groupings

#: Adjustments across criteria × pairs (statsmodels names): Holm and Bonferroni control the
#: family-wise error rate, ``fdr_bh`` (Benjamini–Hochberg) the false discovery rate.
ACROSS_METHODS = ("holm", "bonferroni", "fdr_bh")


@dataclass(frozen=True, eq=False)
class CriteriaAnalysis(Printable):
    """The analyses of every criterion, possibly with p-values adjusted across criteria.

    Attributes
    ----------
    analyses:
        One :class:`~humaneval.analysis.outcome.Analysis` per criterion (sorted names).
    adjust_across_criteria:
        The method applied to all criteria × pairs together, or ``None`` (each criterion adjusted
        on its own, as ``analyze`` does).
    alpha:
        Significance level of ``better`` and the rank groups.
    """

    analyses: tuple[SystemAnalysis, ...]
    adjust_across_criteria: str | None = None
    alpha: float = 0.05

    @property
    def criteria(self) -> list[str | None]:
        return [a.criterion for a in self.analyses]

    def summary_table(self) -> pd.DataFrame:
        """Systems × criteria: each cell the mean and rank group (``"3.78 (1/2)"``), best system of the
        first criterion first; columns are the criteria."""
        columns = {}
        for analysis in self.analyses:
            columns[analysis.criterion or "score"] = analysis.systems.set_index("system")["label"]
        table = pd.DataFrame(columns)
        first = self.analyses[0].systems["system"].tolist()
        table = table.reindex(first + [s for s in table.index if s not in first])
        table.index.name = "system"
        return table

    def contrasts(self) -> pd.DataFrame:
        """All contrasts of all criteria in one table with a ``criterion`` column."""
        return pd.concat(
            [a.contrasts.assign(criterion=a.criterion) for a in self.analyses], ignore_index=True
        )

    def blocks(self) -> tuple[Block, ...]:
        how = (
            f"p-values adjusted across {len(self.analyses)} criteria × pairs ({self.adjust_across_criteria})"
            if self.adjust_across_criteria
            else "p-values adjusted within each criterion"
        )
        table = self.summary_table().reset_index()
        return (frame_table(table, list(table.columns)), Paragraph((how,)))

    def to_dict(self) -> dict[str, Any]:
        """``{"criteria": [analysis, ...], "adjust_across_criteria": ...}`` (the ``--json`` shape)."""
        return {
            "criteria": [a.to_dict() for a in self.analyses],
            "adjust_across_criteria": self.adjust_across_criteria,
        }


def analyze_criteria(
    ratings: Ratings | pd.DataFrame,
    test: str = "clmm",
    *,
    criteria: Sequence[str | None] | None = None,
    adjust_across_criteria: str | None = None,
    alpha: float = 0.05,
    **options: Any,
) -> CriteriaAnalysis:
    """Analyse every criterion of ``ratings`` and optionally adjust across criteria × pairs.

    Parameters
    ----------
    ratings:
        The ratings table (with a ``criterion`` column for several criteria).
    test:
        ``"clmm"`` or a classic test, as in :func:`~humaneval.analysis.workflow.analyze`.
    criteria:
        The criteria to analyse (default: all).
    adjust_across_criteria:
        ``"holm"``, ``"bonferroni"`` or ``"fdr_bh"``: adjust the unadjusted p-values of all
        criteria × pairs together, replacing each criterion's own adjustment; ``None`` keeps it.
    alpha:
        Significance level.
    **options:
        Passed to :func:`~humaneval.analysis.workflow.analyze` (``engine``, ``model``, ``adjust``, ...).

    Returns
    -------
    CriteriaAnalysis
        One :class:`~humaneval.analysis.outcome.Analysis` per criterion (``analyses``);
        ``summary_table()`` sets their system tables side by side.

    Raises
    ------
    OptionError
        An unknown ``adjust_across_criteria`` or an option :func:`analyze` rejects.

    Examples
    --------
    Two criteria rated on the wine data, the second the mirror image of the first:

    >>> import warnings
    >>> import pandas as pd
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = wine_ratings()
    >>> two = pd.concat([table.assign(criterion="bitterness"),
    ...                  table.assign(criterion="sweetness", score=6 - table["score"])])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     result = analyze_criteria(two, "ttest", adjust_across_criteria="holm")
    >>> side_by_side = result.summary_table()
    >>> side_by_side.index.tolist()
    ['warm-yes', 'warm-no', 'cold-yes', 'cold-no']
    >>> side_by_side.loc["warm-yes"].tolist()
    ['3.89 (1)', '2.11 (4)']
    """
    if adjust_across_criteria is not None and adjust_across_criteria not in ACROSS_METHODS:
        raise OptionError(
            f"adjust_across_criteria {adjust_across_criteria!r} is unknown; "
            f"use one of {', '.join(ACROSS_METHODS)}"
        )
    table = as_ratings(ratings)
    names = list(criteria) if criteria is not None else table.criteria
    # analyze decides whether the criteria share one joint model; it keeps that fit for the next criterion
    analyses = [analyze(table, test, criterion=name, alpha=alpha, **options) for name in names]
    if adjust_across_criteria is not None:
        analyses = adjust_across(analyses, adjust_across_criteria, alpha)
    return CriteriaAnalysis(tuple(analyses), adjust_across_criteria, alpha)


def adjust_across(
    analyses: Sequence[SystemAnalysis], method: str, alpha: float = 0.05
) -> list[SystemAnalysis]:
    """The analyses with ``p_adj`` from ``method`` over the unadjusted p-values of all their contrasts,
    and ``better``, rank groups and letters recomputed from them.

    The within-criterion simultaneous intervals do not hold across criteria, so ``ci_low`` and
    ``ci_high`` become missing.

    Parameters
    ----------
    analyses : sequence of Analysis
        One analysis per criterion.
    method : {"holm", "bonferroni", "fdr_bh"}
        The adjustment (``statsmodels.stats.multitest.multipletests``) over all their contrasts.
    alpha : float
        Significance level.

    Returns
    -------
    list of Analysis
        The analyses with ``adjust`` = ``"<method> across criteria"``.

    Examples
    --------
    Two criteria × 6 pairs: Bonferroni multiplies each p-value by 12.

    >>> import warnings
    >>> from humaneval.analysis import analyze
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = wine_ratings()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     pair = [analyze(table, "ttest", aggregate="document"),
    ...             analyze(table.assign(score=6 - table["score"]), "ttest", aggregate="document")]
    >>> first = adjust_across(pair, "bonferroni")[0]
    >>> row = first.contrasts.iloc[4]
    >>> first.adjust, round(float(row.p_adj), 4), round(12 * float(row.p_unadj), 4)
    ('bonferroni across criteria', 0.3319, 0.3319)
    """
    sizes = [len(a.contrasts) for a in analyses]
    pooled = np.concatenate([a.contrasts["p_unadj"].to_numpy(dtype=float) for a in analyses])
    adjusted = multipletests(pooled, alpha=alpha, method=method)[1] if len(pooled) else pooled
    label = f"{method} across criteria"
    out, start = [], 0
    for analysis, size in zip(analyses, sizes, strict=True):
        contrasts = analysis.contrasts.copy()
        contrasts["p_adj"] = adjusted[start : start + size]
        contrasts["adjust"] = label
        # the within-criterion simultaneous intervals do not hold across criteria; none replace them
        contrasts[["ci_low", "ci_high"]] = np.nan
        contrasts["better"] = pd.Series(better_column(contrasts, alpha), dtype=object, index=contrasts.index)
        start += size
        systems = analysis.systems.set_index("system")
        estimates = systems["estimate"]
        out.append(
            replace(
                analysis,
                adjust=label,
                contrasts=contrasts,
                systems=groupings(systems["mean"], estimates, contrasts, alpha),
            )
        )
    return out
