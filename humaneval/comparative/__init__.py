"""Comparative judgements: pairwise preferences, best–worst tuples and rankings.

:func:`detect_kind` tells what a ratings table holds; :func:`analyze_comparative` fits the
mixed-effects Bradley–Terry model (pairwise, :func:`fit_mixed_bt`) or Bradley–Terry / Davidson,
MaxDiff or Plackett–Luce strengths with cluster-bootstrap inference and returns the system and
contrast tables of the Likert path; :func:`bws_scores` gives best–worst counting scores;
:func:`comparative_agreement` how far annotators agree on their choices;
:mod:`humaneval.comparative.simulate` simulates studies with annotators who have their own
preferences and :func:`comparative_power` the power of a pairwise or best–worst design.
"""

from humaneval.comparative.agreement import ComparativeAgreement, comparative_agreement
from humaneval.comparative.analyze import (
    INFERENCE,
    ComparativeAnalysis,
    ComparativeFit,
    analyze_comparative,
    default_inference,
)
from humaneval.comparative.bootstrap import SCHEMES, bootstrap_vcov
from humaneval.comparative.counting import bws_scores
from humaneval.comparative.judgements import COMPARATIVE_KINDS, Judgements, build_judgements
from humaneval.comparative.mixed import MixedFit, fit_mixed_bt, mixed_design
from humaneval.comparative.power import ComparativeDesign, ComparativePower, comparative_power
from humaneval.methods.kinds import detect_kind

__all__ = [
    "COMPARATIVE_KINDS",
    "INFERENCE",
    "SCHEMES",
    "ComparativeAgreement",
    "ComparativeAnalysis",
    "ComparativeDesign",
    "ComparativeFit",
    "ComparativePower",
    "Judgements",
    "MixedFit",
    "analyze_comparative",
    "bootstrap_vcov",
    "build_judgements",
    "bws_scores",
    "comparative_agreement",
    "comparative_power",
    "default_inference",
    "detect_kind",
    "fit_mixed_bt",
    "mixed_design",
]
