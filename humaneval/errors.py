"""Exceptions and warnings shared by every stage.

Every error a user can cause by their input is a :class:`HumanEvalError`; the CLI prints its
message as one line and exits with code 2. Messages name the file, the row or column, what is
wrong and how to fix it, so that the API and the CLI say the same thing.

Which class says what happened:

- :class:`OptionError`: an argument names an unknown choice (test, engine, adjustment, level, ...)
  or lies out of range; the fix is a different option.
- :class:`RatingsError`: an input table is malformed; :class:`InsufficientDataError`: it is
  valid but too small; :class:`DesignError`: a study design cannot support the procedure;
  :class:`ModelSpecError`: a model (a CLMM formula or parameter JSON) is malformed.
- :class:`ReliabilityWarning`: a reliability or agreement statistic is undefined or unstable;
  :class:`DataWarning`: the data are valid but degenerate (constant, a single category, a
  zero-variance difference), so a statistic computed from them says little.

Examples
--------
>>> from humaneval.analysis import analyze
>>> try:
...     analyze(None, test="t-test")
... except OptionError as error:
...     print(error)
unknown test 't-test'; use one of clmm, plackett-luce, ttest, art, wilcoxon, anova
>>> issubclass(OptionError, HumanEvalError) and issubclass(OptionError, ValueError)
True
"""

from __future__ import annotations

import warnings


class HumanEvalError(Exception):
    """Base class of all errors caused by input, design or environment."""


class RatingsError(HumanEvalError, ValueError):
    """A ratings table (or another input table) is malformed."""


class InsufficientDataError(HumanEvalError, ValueError):
    """The data are valid but too few for the requested statistic."""


class DesignError(HumanEvalError, ValueError):
    """A study design is impossible or cannot support the requested procedure."""


class BackendUnavailableError(HumanEvalError, RuntimeError):
    """An optional backend (R, rpy2, a browser, a model) is not installed."""


class FitFailedError(HumanEvalError, RuntimeError):
    """A model fit failed or did not converge and no fallback was allowed."""


class ReliabilityWarning(UserWarning):
    """A reliability or agreement statistic is undefined or unstable (α, κ, split-half, bootstrap)."""


class ConvergenceWarning(UserWarning):
    """A model fit converged with warnings (large gradient, singular covariance, ...)."""


class ModelSpecError(HumanEvalError, ValueError):
    """A model description (e.g. a CLMM parameter JSON) is malformed."""


class PayBelowMinimumError(DesignError):
    """A planned hourly wage is below the platform's (or the user's) minimum."""


class PlatformError(HumanEvalError, RuntimeError):
    """A crowdsourcing platform's API (MTurk, Prolific) refused a request or could not be reached."""


class CostWarning(UserWarning):
    """A design's pay was planned for another platform than the one it is being prepared for."""


class OptionError(HumanEvalError, ValueError):
    """A command-line option is out of range or names an unusable path (e.g. an output folder that
    does not exist)."""


class EngineFallbackWarning(UserWarning):
    """The engine asked for (``auto``) is unavailable and a fallback engine is used instead."""


class DataWarning(UserWarning):
    """The data are valid but look wrong or degenerate: a stray value widening a scale, a system with a
    handful of ratings (a corrupted id), constant differences, a flat metric."""


class AnalysisCaution(UserWarning):
    """A caution about an analysis that is valid but needs care in reading (e.g. a one-way ANOVA
    that ignores the pairing); :func:`humaneval.analysis.analyze` also lists it in
    ``Analysis.cautions``."""


_DEPRECATED = {"DataValidationError": ("RatingsError", RatingsError)}


def __getattr__(name: str) -> type:
    """Old names kept for one release; each access warns with the new name."""
    if name in _DEPRECATED:
        new, value = _DEPRECATED[name]
        warnings.warn(
            f"humaneval.errors.{name} is deprecated; use humaneval.errors.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
