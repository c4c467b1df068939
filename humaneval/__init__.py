"""humaneval: run human evaluations of text summarizers and other NLG systems properly.

The package follows the workflow of a study: :mod:`humaneval.design` (who rates what) →
forms and collection → :mod:`humaneval.core.ratings` (the one validated long-format table every
stage reads and writes) → reliability, analysis and simulation → report. Below the workflow's
packages sit four low-level ones named for what they hold: :mod:`humaneval.core` (the ratings
table, scales, structure), :mod:`humaneval.io` (files), :mod:`humaneval.stats` (resampling,
kernels, replicates) and :mod:`humaneval.present` (formatting, plotting).

The methods follow Steen & Markert (EACL 2021), "How to Evaluate a Summarizer: Study Design
and Statistical Analysis for Manual Linguistic Quality Evaluation", and chapter 3 of Steen's
dissertation "Holistic Evaluation of Text Summarization".
"""

import sys
from importlib import import_module
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
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
    from humaneval.core.ratings import Ratings, load_ratings, validate_ratings
    from humaneval.core.structure import DesignStructure, describe_structure

# imported on first use, so that `humaneval --help` and `import humaneval.errors` do not load pandas
_LAZY = {
    "Ratings": "humaneval.core.ratings",
    "load_ratings": "humaneval.core.ratings",
    "validate_ratings": "humaneval.core.ratings",
    "DesignStructure": "humaneval.core.structure",
    "describe_structure": "humaneval.core.structure",
}

#: Import paths of modules that moved from the package's root (and the report's document and
#: renderers) into the low-level packages: ``import humaneval.ratings`` still gives
#: :mod:`humaneval.core.ratings` itself, the same module object, loaded only when asked for
#: (docs/reference.md lists both paths).
MOVED_MODULES = {
    "humaneval.ratings": "humaneval.core.ratings",
    "humaneval.scales": "humaneval.core.scales",
    "humaneval.structure": "humaneval.core.structure",
    "humaneval.currency": "humaneval.core.currency",
    "humaneval.tables": "humaneval.io.tables",
    "humaneval.serialization": "humaneval.io.serialization",
    "humaneval.studydb": "humaneval.io.studydb",
    "humaneval.datasets": "humaneval.io.datasets",
    "humaneval.grouping": "humaneval.stats.grouping",
    "humaneval.heap": "humaneval.stats.heap",
    "humaneval.kernels": "humaneval.stats.kernels",
    "humaneval.proportions": "humaneval.stats.proportions",
    "humaneval.resampling": "humaneval.stats.resampling",
    "humaneval.replicates": "humaneval.stats.replicates",
    "humaneval.formatting": "humaneval.present.formatting",
    "humaneval.plotting": "humaneval.present.plotting",
    "humaneval.model": "humaneval.clmm.model",
    "humaneval.renv": "humaneval.clmm.renv",
    "humaneval.platform_registry": "humaneval.core.platforms",
    "humaneval.report.document": "humaneval.present.document",
    "humaneval.report.renderers": "humaneval.present.renderers",
}


class _MovedModuleLoader(Loader):
    """Gives the module at its new path for an old import path (no copy, no second execution)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self._spec: ModuleSpec | None = None

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system stamped the old path's spec on the module: give it back its own
        module.__spec__ = self._spec


class _MovedModuleFinder(MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        new = MOVED_MODULES.get(fullname)
        return None if new is None else ModuleSpec(fullname, _MovedModuleLoader(new))


if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
    sys.meta_path.insert(0, _MovedModuleFinder())


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
