"""humaneval: run human evaluations of text summarizers and other NLG systems properly.

The package follows the workflow of a study: :mod:`humaneval.design` (who rates what) →
forms and collection → :mod:`humaneval.ratings` (the one validated long-format table every
stage reads and writes) → reliability, analysis and simulation → report.

The methods follow Steen & Markert (EACL 2021), "How to Evaluate a Summarizer: Study Design
and Statistical Analysis for Manual Linguistic Quality Evaluation", and chapter 3 of Steen's
dissertation "Holistic Evaluation of Text Summarization".
"""

from importlib import import_module
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    from humaneval.ratings import Ratings, load_ratings, validate_ratings
    from humaneval.structure import DesignStructure, describe_structure

# imported on first use, so that `humaneval --help` and `import humaneval.errors` do not load pandas
_LAZY = {
    "Ratings": "humaneval.ratings",
    "load_ratings": "humaneval.ratings",
    "validate_ratings": "humaneval.ratings",
    "DesignStructure": "humaneval.structure",
    "describe_structure": "humaneval.structure",
}


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'humaneval' has no attribute {name!r}")


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
