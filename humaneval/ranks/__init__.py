"""Confidence sets for ranks: which ranks a system may hold, and which systems may be the best.

:func:`rank_sets` takes any estimates with their covariance (Mogstad, Romano, Shaikh & Wilhelm
2024, the method of the R package csranks); :func:`analysis_rank_sets` those of an analysis
(``analyze --json`` key ``rank_sets``); :func:`read_estimates` the files of ``humaneval ranks``.
See docs/ranks.md.
"""

from humaneval.ranks.analysis import (
    analysis_rank_sets,
    covariance_from_contrasts,
    rank_sets_dict,
    with_rank_sets,
)
from humaneval.ranks.estimates import DEFAULT_SEED, rank_sets
from humaneval.ranks.files import read_estimates
from humaneval.ranks.result import RANK_COLUMNS, RankSets
from humaneval.ranks.sets import DEFAULT_DRAWS, KINDS

__all__ = [
    "DEFAULT_DRAWS",
    "DEFAULT_SEED",
    "KINDS",
    "RANK_COLUMNS",
    "RankSets",
    "analysis_rank_sets",
    "covariance_from_contrasts",
    "rank_sets",
    "rank_sets_dict",
    "read_estimates",
    "with_rank_sets",
]
