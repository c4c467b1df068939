"""Deprecated import path, removed in humaneval 0.2: the result of a CLMM fit and its diagnostics live in
:mod:`humaneval.clmm.result`."""

from humaneval.clmm.result import (
    COND_UNIDENTIFIABLE,
    COND_WARN,
    GRAD_TOL,
    GRAD_WARN,
    Attempt,
    Diagnostics,
    FitResult,
    assess,
    is_singular,
)

__all__ = [
    "COND_UNIDENTIFIABLE",
    "COND_WARN",
    "GRAD_TOL",
    "GRAD_WARN",
    "Attempt",
    "Diagnostics",
    "FitResult",
    "assess",
    "is_singular",
]
