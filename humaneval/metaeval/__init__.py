"""Meta-evaluation of automatic metrics against human judgements (docs/metaeval.md).

Correlation levels τ_sys / τ_sum / τ_pair / τ_intra and pairwise accuracy (:mod:`.levels`), bias
matrices (:mod:`.bias`), confounder probes (:mod:`.probes`), Bhandari et al.'s binned inter-metric
analysis (:mod:`.binned`), vectorised inference (:mod:`.bootstrap`, :mod:`.significance`) and the
one-call :func:`meta_evaluate` with its results table (:mod:`.report`).
"""

from humaneval.metaeval.bias import BiasMatrix, bias_matrix, plot_bias_matrix
from humaneval.metaeval.binned import binned_agreement
from humaneval.metaeval.bootstrap import BootstrapResult, bootstrap, resample_indices
from humaneval.metaeval.data import (
    AlignmentWarning,
    HumanAnchor,
    ScoreMatrices,
    align,
    human_anchor,
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
from humaneval.metaeval.probes import arch_probe, confounder_table, upper_bound_probe
from humaneval.metaeval.report import (
    MetaEvalResult,
    compare_metrics,
    meta_evaluate,
    results_table,
    to_latex,
    to_markdown,
)
from humaneval.metaeval.significance import fisher_ci, permutation_test, williams_compare, williams_test

__all__ = [
    "AlignmentWarning",
    "BiasMatrix",
    "BootstrapResult",
    "HumanAnchor",
    "LevelValue",
    "MetaEvalResult",
    "ScoreMatrices",
    "align",
    "arch_probe",
    "bias_matrix",
    "binned_agreement",
    "bootstrap",
    "compare_metrics",
    "confounder_table",
    "correlate",
    "correlation_levels",
    "fisher_ci",
    "human_anchor",
    "human_scores",
    "measure",
    "meta_evaluate",
    "pairwise_accuracy",
    "per_document",
    "per_system_intra",
    "permutation_test",
    "plot_bias_matrix",
    "read_human",
    "read_scores",
    "resample_indices",
    "results_table",
    "tau_intra",
    "tau_pair",
    "tau_sum",
    "tau_sys",
    "tie_calibrated_accuracy",
    "to_latex",
    "to_markdown",
    "to_matrix",
    "upper_bound_probe",
    "williams_compare",
    "williams_test",
]
