"""Meta-evaluation of automatic metrics against human judgements (spec ``metaeval-and-scorers.md``).

Correlation levels τ_sys / τ_sum / τ_pair / τ_intra and pairwise accuracy, bias matrices,
confounder probes, Bhandari et al.'s binned inter-metric analysis, and vectorised inference
(bootstrap, permutation, Williams, Fisher z).
"""

from humaneval.metaeval.data import (
    AlignmentWarning,
    ScoreMatrices,
    align,
    human_scores,
    read_human,
    read_scores,
    to_matrix,
)
from humaneval.metaeval.kernel import correlate
from humaneval.metaeval.levels import (
    LevelValue,
    correlation_levels,
    measure,
    pairwise_accuracy,
    per_document,
    per_system_intra,
    tau_intra,
    tau_pair,
    tau_sum,
    tau_sys,
    tie_calibrated_accuracy,
)

__all__ = [
    "AlignmentWarning",
    "LevelValue",
    "ScoreMatrices",
    "align",
    "correlate",
    "correlation_levels",
    "human_scores",
    "measure",
    "pairwise_accuracy",
    "per_document",
    "per_system_intra",
    "read_human",
    "read_scores",
    "tau_intra",
    "tau_pair",
    "tau_sum",
    "tau_sys",
    "tie_calibrated_accuracy",
    "to_matrix",
]
