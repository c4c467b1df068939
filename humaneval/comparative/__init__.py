"""Comparative judgements: pairwise preferences, best–worst tuples and rankings.

:func:`detect_kind` tells what a ratings table holds; :func:`analyze_comparative` fits
Bradley–Terry / Davidson, MaxDiff or Plackett–Luce strengths with cluster-bootstrap inference and
returns the system and contrast tables of the Likert path; :func:`bws_scores` gives best–worst
counting scores; :mod:`humaneval.comparative.simulate` simulates studies with annotators who have
their own preferences.
"""

from humaneval.comparative.analyze import (
    INFERENCE,
    ComparativeAnalysis,
    ComparativeFit,
    analyze_comparative,
    mixed_design,
)
from humaneval.comparative.bootstrap import SCHEMES, bootstrap_vcov
from humaneval.comparative.counting import bws_scores
from humaneval.comparative.judgements import COMPARATIVE_KINDS, Judgements, build_judgements, detect_kind

__all__ = [
    "COMPARATIVE_KINDS",
    "INFERENCE",
    "SCHEMES",
    "ComparativeAnalysis",
    "ComparativeFit",
    "Judgements",
    "analyze_comparative",
    "bootstrap_vcov",
    "build_judgements",
    "bws_scores",
    "detect_kind",
    "mixed_design",
]
