"""Deprecated import path, removed in humaneval 0.2: the vectorised paired tests live in
:mod:`humaneval.stats.kernels`, below both :mod:`humaneval.analysis` and :mod:`humaneval.simulate`."""

from humaneval.stats.kernels import (
    EXACT_MAX_PAIRS,
    TIE_TOLERANCE,
    art_exact_pvalues,
    art_pvalues,
    art_pvalues_from_signs,
    min_attainable_p,
    paired_t_pvalues,
    random_signs,
)

__all__ = [
    "EXACT_MAX_PAIRS",
    "TIE_TOLERANCE",
    "art_exact_pvalues",
    "art_pvalues",
    "art_pvalues_from_signs",
    "min_attainable_p",
    "paired_t_pvalues",
    "random_signs",
]
