"""Reliability of human judgements: agreement between annotators and split-half reliability.

Analysis specification §2 (observed agreement, Cohen's κ, Scott's π, Fleiss' κ, Krippendorff's α
with KALPHA and unit bootstraps) and §3 (split-half reliability, time-vs-reliability and
nested-vs-crossed curves).
"""

from humaneval.reliability.alpha import AlphaResult, krippendorff_alpha
from humaneval.reliability.data import (
    ReliabilityData,
    as_reliability_data,
    from_counts,
    from_long,
    from_matrix,
    from_ratings,
)

__all__ = [
    "AlphaResult",
    "ReliabilityData",
    "as_reliability_data",
    "from_counts",
    "from_long",
    "from_matrix",
    "from_ratings",
    "krippendorff_alpha",
]
