"""``fit_clmm``: engine choice and the fallback ladder (analysis specification §5.5).

The ladder starts at the requested structure (``auto``: ``nested`` for nested designs, else
``maximal``) and moves down **maximal/nested → uncorrelated → intercepts** only when a fit
*failed* (non-zero convergence code, max.grad > 0.01, unusable vcov, or an engine error); warnings
never move it. Every attempt is kept in :attr:`FitResult.attempts` with its diagnostics and time.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pandas as pd

from humaneval.analysis.prepare import STRUCTURES, ClmmData, default_structure, prepare_clmm_data
from humaneval.analysis.result import Attempt, FitResult
from humaneval.errors import ConvergenceWarning, FitFailedError, ModelSpecError
from humaneval.ratings import Ratings
from humaneval.renv import warn_fallback

ENGINES = ("auto", "r", "native")
LADDER = ("uncorrelated", "intercepts")


def ladder(structure: str) -> tuple[str, ...]:
    """The rungs tried for a requested structure, in order."""
    if structure not in STRUCTURES:
        raise ModelSpecError(
            f"unknown model structure {structure!r}; use auto or one of {', '.join(STRUCTURES)}"
        )
    if structure in LADDER:
        return LADDER[LADDER.index(structure) :]
    return (structure, *LADDER)


def resolve_engine(engine: str) -> tuple[str, Callable[..., FitResult]]:
    """The engine name and its single-rung fitter; ``auto`` is R when available, else native."""
    if engine not in ENGINES:
        raise ModelSpecError(f"unknown engine {engine!r}; use auto, r or native")
    if engine in ("auto", "r"):
        from humaneval.analysis import rbridge

        if engine == "r" or rbridge.r_available():
            return "r", rbridge.fit_r
        warn_fallback()
    from humaneval.clmm import fit_native

    return "native", fit_native


def fit_clmm(
    ratings: Ratings | pd.DataFrame | ClmmData,
    engine: str = "auto",
    structure: str = "auto",
    link: str = "logit",
    reference: str | None = None,
    fallback: bool = True,
    criterion: str | None = None,
    **options: Any,
) -> FitResult:
    """Fit a CLMM of system differences (spec §5), walking the fallback ladder if needed.

    Parameters
    ----------
    ratings:
        A ratings table (one criterion, or pick one with ``criterion=``) or prepared :class:`ClmmData`.
    engine:
        ``"r"`` (ordinal::clmm), ``"native"`` (humaneval.clmm) or ``"auto"`` (R when available).
    structure:
        ``"auto"``, ``"maximal"``, ``"nested"``, ``"uncorrelated"`` or ``"intercepts"``.
    link:
        ``"logit"`` (default) or ``"probit"``.
    reference:
        Reference system of the treatment coding (default per spec §5.1).
    fallback:
        Move down the ladder on a failed fit; with ``False`` a failure raises ``FitFailedError``.
    options:
        Passed to the native engine only.
    """
    data = ratings if isinstance(ratings, ClmmData) else prepare_clmm_data(ratings, reference, criterion)
    name, fitter = resolve_engine(engine)
    extra = options if name == "native" else {}
    start = default_structure(data.nested) if structure == "auto" else structure
    rungs = ladder(start) if fallback else ladder(start)[:1]
    attempts: list[Attempt] = []
    for rung in rungs:
        start_time = time.perf_counter()
        try:
            result = fitter(data, rung, link, **extra)
        except FitFailedError as exc:
            seconds = time.perf_counter() - start_time
            attempts.append(Attempt(engine=name, structure=rung, seconds=seconds, error=str(exc)))
            continue
        attempts.append(
            Attempt(
                engine=name,
                structure=rung,
                seconds=result.diagnostics.fit_seconds,
                diagnostics=result.diagnostics,
            )
        )
        if not result.diagnostics.failed:
            _warn(result, start)
            return replace(result, attempts=tuple(attempts))
    summary = "; ".join(f"{a.structure}: {a.reason}" for a in attempts)
    hint = "" if fallback else " (fallback=False; allow the fallback ladder or choose a simpler model)"
    raise FitFailedError(f"every CLMM fit failed{hint}: {summary}")


def _warn(result: FitResult, requested: str) -> None:
    for message in result.diagnostics.warnings:
        warnings.warn(f"CLMM ({result.structure}): {message}", ConvergenceWarning, stacklevel=3)
    if result.structure != requested:
        warnings.warn(
            f"the {requested} CLMM failed; results are from the simpler {result.structure} model, "
            "whose contrast SEs may be too small",
            ConvergenceWarning,
            stacklevel=3,
        )
