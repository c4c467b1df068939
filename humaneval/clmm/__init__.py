"""Cumulative link mixed models: formulas, the native Laplace engine and the R bridge.

- :func:`humaneval.clmm.formula.clmm_spec` turns an lme4/ordinal formula and a data frame into a
  :class:`~humaneval.clmm.spec.ClmmSpec`; :meth:`ClmmSpec.from_matrices` builds one from y, X and
  random-effect design rows (the matrix-level entry point).
- :func:`fit_spec` fits any spec natively; :func:`fit_native` fits a named structure of a system
  comparison (:mod:`humaneval.clmm.structures`). Both return a :class:`FitResult`.

This package never imports :mod:`humaneval.analysis`. See ``docs/native-engine.md``.
"""

from humaneval.clmm.fit import fit_native, fit_spec
from humaneval.clmm.formula import clmm_spec, parse_formula
from humaneval.clmm.result import Attempt, Diagnostics, FitResult
from humaneval.clmm.spec import ClmmSpec, RandomEffect
from humaneval.clmm.structures import ClmmData

__all__ = [
    "Attempt",
    "ClmmData",
    "ClmmSpec",
    "Diagnostics",
    "FitResult",
    "RandomEffect",
    "clmm_spec",
    "fit_native",
    "fit_spec",
    "parse_formula",
]
