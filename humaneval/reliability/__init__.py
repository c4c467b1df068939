"""Reliability of human judgements: agreement between annotators and split-half reliability.

Observed agreement, Cohen's κ, Scott's π, Fleiss' κ, Krippendorff's α with KALPHA and unit
bootstraps; split-half reliability, time-vs-reliability and nested-vs-crossed curves (Steen's
dissertation, ch. 3). See ``docs/reliability.md``.
"""

from humaneval.reliability.agreement import (
    FleissKappa,
    TwoCoderAgreement,
    cohen_kappa,
    fleiss_kappa,
    observed_agreement,
    pairwise_agreement,
    scott_pi,
    two_coder_agreement,
)
from humaneval.reliability.alpha import AlphaResult, krippendorff_alpha
from humaneval.reliability.bootstrap import AlphaBootstrap, kalpha_bootstrap, unit_bootstrap
from humaneval.reliability.criteria import CriterionCorrelations, criterion_correlations
from humaneval.reliability.curves import (
    nested_crossed_curve,
    plot_nested_crossed,
    plot_time_curve,
    time_buckets,
    time_reliability_curve,
)
from humaneval.reliability.data import (
    ReliabilityData,
    as_reliability_data,
    from_counts,
    from_long,
    from_matrix,
    from_ratings,
)
from humaneval.reliability.diagnostics import AlphaDiagnostics, alpha_diagnostics
from humaneval.reliability.report import ReliabilityReport, reliability_report
from humaneval.reliability.splithalf import SplitHalfResult, split_half_reliability
from humaneval.reliability.timing import load_annotator_times, ratings_annotator_times

__all__ = [
    "AlphaBootstrap",
    "AlphaDiagnostics",
    "AlphaResult",
    "CriterionCorrelations",
    "FleissKappa",
    "ReliabilityData",
    "ReliabilityReport",
    "SplitHalfResult",
    "TwoCoderAgreement",
    "alpha_diagnostics",
    "as_reliability_data",
    "cohen_kappa",
    "criterion_correlations",
    "fleiss_kappa",
    "from_counts",
    "from_long",
    "from_matrix",
    "from_ratings",
    "kalpha_bootstrap",
    "krippendorff_alpha",
    "load_annotator_times",
    "nested_crossed_curve",
    "observed_agreement",
    "pairwise_agreement",
    "plot_nested_crossed",
    "plot_time_curve",
    "ratings_annotator_times",
    "reliability_report",
    "scott_pi",
    "split_half_reliability",
    "time_buckets",
    "time_reliability_curve",
    "two_coder_agreement",
    "unit_bootstrap",
]
