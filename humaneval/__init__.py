"""humaneval: run human evaluations of text summarizers and other NLG systems properly.

The package follows the workflow of a study: :mod:`humaneval.design` (who rates what) →
forms and collection → :mod:`humaneval.ratings` (the one validated long-format table every
stage reads and writes) → reliability, analysis and simulation → report.

The methods follow Steen & Markert (EACL 2021), "How to Evaluate a Summarizer: Study Design
and Statistical Analysis for Manual Linguistic Quality Evaluation", and chapter 3 of Steen's
dissertation "Holistic Evaluation of Text Summarization".
"""

from humaneval.errors import (
    AnalysisCaution,
    BackendUnavailableError,
    ConvergenceWarning,
    DataWarning,
    DesignError,
    FitFailedError,
    HumanEvalError,
    InsufficientDataError,
    OptionError,
    RatingsError,
    ReliabilityWarning,
)
from humaneval.ratings import Ratings, load_ratings, validate_ratings
from humaneval.structure import DesignStructure, describe_structure

__version__ = "0.1.0"

__all__ = [
    "AnalysisCaution",
    "BackendUnavailableError",
    "ConvergenceWarning",
    "DataWarning",
    "DesignError",
    "DesignStructure",
    "FitFailedError",
    "HumanEvalError",
    "InsufficientDataError",
    "OptionError",
    "Ratings",
    "RatingsError",
    "ReliabilityWarning",
    "__version__",
    "describe_structure",
    "load_ratings",
    "validate_ratings",
]
