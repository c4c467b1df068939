"""Significance analysis: CLMM fits (native or R engine, named models or any formula), contrasts,
classic tests, groupings.

The engines, model specs, results and the R bridge live in :mod:`humaneval.clmm` (which never
imports this package); ``ClmmData``, ``FitResult``, ``Diagnostics`` and ``rbridge`` are re-exported
here for old imports until humaneval 0.2 (the package itself imports them from
:mod:`humaneval.clmm`). Nothing here starts R until an R fit is asked for.

:func:`analyze` (module :mod:`humaneval.analysis.workflow`) is the one call from a ratings table to
the system and contrast tables; the classic tests are :func:`paired_ttest`,
:func:`approximate_randomization`, :func:`wilcoxon_test` and :func:`one_way_anova`; pairwise and
best–worst judgements have :func:`bradley_terry` and :func:`bws_scores` (the models live in
:mod:`humaneval.comparative`).
"""

import sys as _sys

from humaneval.analysis.adapters import ADAPTERS, SystemAnalysis, adapter_for
from humaneval.analysis.classic import (
    approximate_randomization,
    classic_test,
    one_way_anova,
    paired_ttest,
    wilcoxon_test,
)
from humaneval.analysis.criteria import adjust_across, analyze_criteria
from humaneval.analysis.fit import fit_clmm, fit_formula
from humaneval.analysis.outcome import Analysis, system_means
from humaneval.analysis.prepare import choose_reference, prepare_clmm_data
from humaneval.analysis.workflow import analyze, bradley_terry
from humaneval.clmm.contrasts import adjust_pvalues, pairwise_contrasts, tukey_p
from humaneval.clmm.emmeans import emm_contrasts, emmeans, lr_test, wald_omnibus
from humaneval.clmm.result import Attempt, Diagnostics, FitResult
from humaneval.clmm.structures import ClmmData, random_terms
from humaneval.comparative.counting import bws_scores
from humaneval.stats.grouping import compact_letters, groupings, rank_groups

# The module was called ``analyze`` before, which shadowed the function: old imports of
# ``humaneval.analysis.analyze`` get the module until humaneval 0.2.
_sys.modules.setdefault(f"{__name__}.analyze", _sys.modules[f"{__name__}.workflow"])

__all__ = [
    "ADAPTERS",
    "Analysis",
    "Attempt",
    "ClmmData",
    "Diagnostics",
    "FitResult",
    "SystemAnalysis",
    "adapter_for",
    "adjust_across",
    "adjust_pvalues",
    "analyze",
    "analyze_criteria",
    "approximate_randomization",
    "bradley_terry",
    "bws_scores",
    "choose_reference",
    "classic_test",
    "compact_letters",
    "emm_contrasts",
    "emmeans",
    "fit_clmm",
    "fit_formula",
    "groupings",
    "lr_test",
    "one_way_anova",
    "paired_ttest",
    "pairwise_contrasts",
    "prepare_clmm_data",
    "random_terms",
    "rank_groups",
    "system_means",
    "tukey_p",
    "wald_omnibus",
    "wilcoxon_test",
]
