"""Significance analysis: CLMM fits (R or native engine), contrasts, classic tests, groupings.

Nothing here imports R: :mod:`humaneval.analysis.rbridge` starts embedded R on the first R fit,
and the native engine (:mod:`humaneval.clmm`) is imported when it is asked for.
"""

from humaneval.analysis.contrasts import (
    adjust_pvalues,
    compact_letters,
    groupings,
    pairwise_contrasts,
    rank_groups,
    tukey_p,
)
from humaneval.analysis.fit import fit_clmm
from humaneval.analysis.prepare import ClmmData, choose_reference, prepare_clmm_data, random_terms
from humaneval.analysis.result import Attempt, Diagnostics, FitResult

__all__ = [
    "Attempt",
    "ClmmData",
    "Diagnostics",
    "FitResult",
    "adjust_pvalues",
    "choose_reference",
    "compact_letters",
    "fit_clmm",
    "groupings",
    "pairwise_contrasts",
    "prepare_clmm_data",
    "random_terms",
    "rank_groups",
    "tukey_p",
]
