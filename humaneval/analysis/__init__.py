"""Significance analysis: CLMM fits (native or R engine, named models or any formula), contrasts,
classic tests, groupings.

The engines, model specs, results and the R bridge live in :mod:`humaneval.clmm` (which never
imports this package); ``ClmmData``, ``FitResult``, ``Diagnostics`` and ``rbridge`` are re-exported
here for compatibility. Nothing here starts R until an R fit is asked for.
"""

from humaneval.analysis.contrasts import (
    adjust_pvalues,
    compact_letters,
    groupings,
    pairwise_contrasts,
    rank_groups,
    tukey_p,
)
from humaneval.analysis.fit import fit_clmm, fit_formula
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
    "fit_formula",
    "groupings",
    "pairwise_contrasts",
    "prepare_clmm_data",
    "random_terms",
    "rank_groups",
    "tukey_p",
]
