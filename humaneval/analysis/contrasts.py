"""The contrast tools of the analysis: contrasts and multiplicity adjustments
(:mod:`humaneval.clmm.contrasts`, used by both CLMM engines and the classic tests) and the rank
groupings of dissertation Table 3.2 (:mod:`humaneval.stats.grouping`), in one place."""

from humaneval.clmm.contrasts import (
    ADJUSTMENTS,
    CONTRAST_COLUMNS,
    adjust_pvalues,
    better_column,
    check_adjust,
    critical_value,
    pairwise_contrasts,
    tukey_p,
    tukey_quantile,
)
from humaneval.stats.grouping import compact_letters, groupings, rank_groups

__all__ = [
    "ADJUSTMENTS",
    "CONTRAST_COLUMNS",
    "adjust_pvalues",
    "better_column",
    "check_adjust",
    "compact_letters",
    "critical_value",
    "groupings",
    "pairwise_contrasts",
    "rank_groups",
    "tukey_p",
    "tukey_quantile",
]
