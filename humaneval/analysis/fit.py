"""``fit_clmm``: engine choice, formulas and the fallback ladder (docs/analysis.md).

The native engine is the default; ``engine="r"`` fits with ``ordinal::clmm`` and ``engine="both"``
fits with both and records their largest differences
(:func:`humaneval.clmm.result.engine_differences`). ``formula=`` fits any lme4/ordinal formula
(:mod:`humaneval.clmm.formula`); without it one of the named structures is fitted. Their ladder
starts at the requested structure (``auto``: ``nested`` for nested designs, else ``maximal``) and
moves down **maximal/nested → uncorrelated → intercepts** only when a fit *failed* (non-zero
convergence code, max.grad > 0.01, unusable vcov, degenerate estimates, or an engine error);
warnings never move it. Every attempt is kept in :attr:`FitResult.attempts` with its diagnostics
and time.
"""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import pandas as pd

from humaneval.analysis.plan import CEILING_MINUTES, PLAN_SECONDS, check_ceiling, plan_fit
from humaneval.analysis.prepare import choose_reference, prepare_clmm_data
from humaneval.clmm.formula import clmm_spec, parse_formula
from humaneval.clmm.result import Attempt, FitResult, engine_differences
from humaneval.clmm.structures import STRUCTURES, ClmmData, default_structure
from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings, select_criterion
from humaneval.errors import ConvergenceWarning, FitFailedError, ModelSpecError, OptionError

#: ``auto`` is kept for callers of the old default and now means ``native``.
ENGINES = ("native", "r", "both", "auto")
LADDER = ("uncorrelated", "intercepts")


def ladder(structure: str) -> tuple[str, ...]:
    """The rungs tried for a requested structure, in order."""
    if structure not in STRUCTURES:
        raise OptionError(
            f"unknown model structure {structure!r}; use auto or one of {', '.join(STRUCTURES)}"
        )
    if structure in LADDER:
        return LADDER[LADDER.index(structure) :]
    return (structure, *LADDER)


def check_engine(engine: str) -> str:
    """``engine`` if known (``auto``, the old default, now means native), else ModelSpecError."""
    if engine == "auto":
        return "native"
    if engine not in ENGINES:
        raise OptionError(f"unknown engine {engine!r}; use native, r or both")
    return engine


def resolve_engine(engine: str) -> tuple[str, Callable[..., FitResult]]:
    """The engine name and its single-rung fitter (native unless ``r`` is asked for)."""
    if check_engine(engine) == "r":
        from humaneval.clmm import rbridge

        return "r", rbridge.fit_r
    from humaneval.clmm.fit import fit_native

    return "native", fit_native


@shared_docs
def fit_formula(
    data: pd.DataFrame,
    formula: str,
    *,
    engine: str = "native",
    link: str = "logit",
    threshold: str = "flexible",
    reference: dict[str, str] | None = None,
    progress: bool | Callable[[str], None] = False,
    scale: str | None = None,
    **options: Any,
) -> FitResult:
    """Fit ``formula`` to any data frame with the native engine, R, or both.

    ``reference`` maps factor columns to their reference level (a ``system`` column gets the
    reference rule of :func:`~humaneval.analysis.prepare.choose_reference` unless given). With
    ``engine="both"`` the native fit is returned with ``engine_comparison`` filled in. A fit whose
    diagnostics say it failed raises :class:`FitFailedError` with the reasons (no ladder: the
    formula is the model asked for).

    Parameters
    ----------
    data : DataFrame
        Any table holding the formula's columns; the response is ordered by its sorted values.
    formula : str
        An lme4/ordinal formula with at least one random-effect term, e.g.
        ``"rating ~ temp + contact + (1 | judge)"``.
    engine : {"native", "r", "both"}
        The fitting engine.
    link : {"logit", "probit", "cloglog", "loglog", "cauchit"}
        The link function.
    threshold : {"flexible", "equidistant", "symmetric"}
        The threshold structure.
    reference : dict, optional
        Reference level per factor column.
    progress : bool or callable
        %(r_progress)s
    scale : str, optional
        Scale effects, ``"~ annotator"`` (fixed) or ``"~ (1 | annotator)"`` (a random log-scale):
        :mod:`humaneval.clmm.scale`, native engine only; the formula then may have no random term.
    **options
        Passed to the native engine.

    Returns
    -------
    FitResult
        Coefficients, covariance, thresholds, random-effect SDs, logLik/AIC/BIC and diagnostics.

    Raises
    ------
    ModelSpecError
        A malformed formula, a column that is missing, or no random-effect term.
    FitFailedError
        The fit failed (the reasons are in the message).

    References
    ----------
    Christensen, R. H. B. (2019). Cumulative link models for ordinal regression with the R package
    ordinal.

    Examples
    --------
    Christensen's CLMM of the wine data (logLik −81.57, tempwarm 3.063, contactyes 1.835):

    >>> from humaneval.io.datasets import wine
    >>> fit = fit_formula(wine(), "rating ~ temp + contact + (1 | judge)")
    >>> round(fit.loglik, 2), fit.fixed_effects()["estimate"].round(3).tolist()
    (-81.57, [3.063, 1.835])
    """
    engine = check_engine(engine)
    parsed = parse_formula(formula)
    reference = dict(reference or {})
    if "system" in data.columns and "system" not in reference and "system" in parse_formula(formula).fixed:
        reference["system"] = choose_reference(sorted(map(str, data["system"].dropna().unique())))
    if scale is not None and engine != "native":
        raise OptionError(
            "scale effects are fitted by the native engine only (ordinal::clmm has none); use --engine native"
        )
    spec = clmm_spec(parsed, data, reference=reference, threshold=threshold, scale=scale)
    fits = {}
    if engine in ("native", "both"):
        from humaneval.clmm.fit import fit_spec

        fits["native"] = fit_spec(spec, link, **options)
    if engine in ("r", "both"):
        from humaneval.clmm.rbridge import fit_r_spec

        fits["r"] = fit_r_spec(spec, link, progress=bool(progress))
    result = fits["native"] if "native" in fits else fits["r"]
    if len(fits) == 2:
        result = replace(result, engine_comparison=engine_differences(fits["native"], fits["r"]))
    if result.diagnostics.failed:
        raise FitFailedError(f"the CLMM {spec.formula} failed: {'; '.join(result.diagnostics.reasons)}")
    _warn(result, "formula")
    return result


def reference_levels(reference: str | Mapping[str, str] | None) -> dict[str, str] | None:
    """``reference`` as a mapping of factor columns to reference levels: a plain string is the
    reference system; ``"temp=warm"`` (the CLI's form) names the factor.

    Examples
    --------
    >>> reference_levels("BART"), reference_levels({"temp": "warm"}), reference_levels("temp=warm")
    ({'system': 'BART'}, {'temp': 'warm'}, {'temp': 'warm'})
    """
    if reference is None:
        return None
    if isinstance(reference, str):
        factor, sep, level = reference.partition("=")
        return {factor.strip(): level.strip()} if sep and factor.strip() else {"system": reference}
    return {str(k): str(v) for k, v in reference.items()}


@shared_docs
def fit_clmm(
    ratings: Ratings | pd.DataFrame | ClmmData,
    engine: str = "native",
    structure: str = "auto",
    link: str = "logit",
    reference: str | Mapping[str, str] | None = None,
    fallback: bool = True,
    criterion: str | None = None,
    formula: str | None = None,
    threshold: str = "flexible",
    progress: bool | Callable[[str], None] = False,
    max_minutes: float | None = CEILING_MINUTES,
    **options: Any,
) -> FitResult:
    """Fit a CLMM of system differences (docs/analysis.md), walking the fallback ladder if needed.

    Parameters
    ----------
    ratings:
        A ratings table (one criterion, or pick one with ``criterion=``) or prepared :class:`ClmmData`.
    engine:
        ``"native"`` (default), ``"r"`` (ordinal::clmm) or ``"both"`` (native, compared with R).
    structure:
        ``"auto"``, ``"maximal"``, ``"nested"``, ``"uncorrelated"`` or ``"intercepts"`` (shortcuts for
        formulas, :func:`humaneval.clmm.structures.structure_formula`).
    link:
        ``"logit"`` (default), ``"probit"``, ``"cloglog"``, ``"loglog"`` or ``"cauchit"``.
    formula:
        Any lme4/ordinal formula on the table's columns, e.g.
        ``"score ~ system + position + (1 | annotator) + (1 | document)"``; replaces ``structure``.
    threshold:
        ``flexible``, ``equidistant`` or ``symmetric`` (formula fits).
    progress:
        Say how long work goes (``True``: on stderr; or a function called with each line): R fits
        show their elapsed time; a native fit estimated to take more than a few seconds first says
        its size, model and estimate (:func:`humaneval.analysis.plan.plan_fit`), then where it is
        every 10 s.
    max_minutes:
        Refuse (:class:`OptionError`, naming cheaper structures) a native fit of a named structure
        estimated to take more CPU minutes than this; ``None`` lifts the ceiling (docs/analysis.md,
        "Large studies").
    reference:
        Reference level of the treatment coding: a system name, or a mapping of factor columns to
        their reference levels (``{"temp": "warm"}``; factors other than ``system`` need a formula).
        Default for ``system`` per docs/analysis.md.
    fallback:
        Move down the ladder on a failed fit; with ``False`` a failure raises ``FitFailedError``.
    options:
        Passed to the native engine only.

    Returns
    -------
    FitResult
        The fit of the first rung that succeeded; ``structure`` names it and ``attempts`` lists
        the rungs tried, ``estimates()`` the system effects (reference 0) and ``contrasts()`` the
        pairwise contrasts.

    Raises
    ------
    OptionError
        An unknown engine, structure or link.
    ModelSpecError
        A malformed formula, or a formula fit of :class:`ClmmData`.
    RatingsError
        A malformed ratings table or an unknown criterion.
    FitFailedError
        Every rung failed, or the single rung with ``fallback=False``.

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    The four wine conditions as systems (:func:`humaneval.io.datasets.wine_ratings`); with random
    intercepts per judge (the document intercept is estimated at 0) the fit equals the
    interaction model ``rating ~ temp * contact + (1 | judge)`` (warm-no − cold-no = 2.947):

    >>> import warnings
    >>> from humaneval.io.datasets import wine_ratings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     fit = fit_clmm(wine_ratings(), structure="intercepts")
    >>> fit  # doctest: +ELLIPSIS
    <FitResult CLMM intercepts 'score ~ system + (1 | annotator) + (1 | document)', ..., logLik -81.54, ...>
    >>> fit.estimates().round(3).to_dict()
    {'cold-no': 0.0, 'cold-yes': 1.717, 'warm-no': 2.947, 'warm-yes': 4.896}
    """
    engine = check_engine(engine)
    if formula is not None:
        if isinstance(ratings, ClmmData):
            raise ModelSpecError("a formula fit needs the ratings table (or any data frame), not ClmmData")
        # a data frame is fitted as given; a ratings table loses its attention checks
        frame = ratings if isinstance(ratings, pd.DataFrame) else select_criterion(ratings, criterion).data
        refs = reference_levels(reference)
        return fit_formula(
            frame,
            formula,
            engine=engine,
            link=link,
            threshold=threshold,
            reference=refs,
            progress=progress,
            **options,
        )
    system_reference = (reference_levels(reference) or {}).get("system")
    others = sorted(set(reference_levels(reference) or {}) - {"system"})
    if others:
        raise OptionError(
            f"a reference level for {', '.join(others)} needs a formula with that factor "
            "(the named structures have only system)"
        )
    data = (
        ratings if isinstance(ratings, ClmmData) else prepare_clmm_data(ratings, system_reference, criterion)
    )
    if engine == "both":
        native = fit_clmm(data, "native", structure, link, fallback=fallback, **options)
        from humaneval.clmm.rbridge import fit_r

        other = fit_r(data, native.structure, link)
        return replace(native, engine_comparison=engine_differences(native, other))
    name, fitter = resolve_engine(engine)
    extra = options if name == "native" else {}
    start = default_structure(data.nested) if structure == "auto" else structure
    rungs = ladder(start) if fallback else ladder(start)[:1]
    say = _say(progress)
    if name == "native":
        check_ceiling(data, plan_fit(data, start), max_minutes)
        if say is not None:
            extra = {**extra, "progress": say}
    attempts: list[Attempt] = []
    for rung in rungs:
        if say is not None and name == "native":
            plan = plan_fit(data, rung)
            if plan.seconds >= PLAN_SECONDS:
                say(("" if rung == rungs[0] else "falling back: ") + plan.line())
        start_time = time.perf_counter()
        try:
            if name == "r" and progress:
                from humaneval.clmm.rbridge import with_progress

                result = with_progress(functools.partial(fitter, data, rung, link), f"R clmm ({rung})")
            else:
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


def _say(progress: bool | Callable[[str], None]) -> Callable[[str], None] | None:
    """Where progress lines go: ``progress`` itself, stderr for ``True``, nowhere for ``False``."""
    if callable(progress):
        return progress
    if not progress:
        return None
    import sys

    return lambda line: print(line, file=sys.stderr, flush=True)


def _plain(data: object) -> bool:
    """A data frame that is not a ratings table (no annotator/document/system columns)."""
    return isinstance(data, pd.DataFrame) and not {"annotator", "system"} <= set(data.columns)


def _warn(result: FitResult, requested: str) -> None:
    for message in result.diagnostics.warnings:
        warnings.warn(
            f"CLMM ({result.structure}): {message}", ConvergenceWarning, stacklevel=caller_stacklevel()
        )
    if result.structure != requested and requested != "formula":
        warnings.warn(
            f"the {requested} CLMM failed; results are from the simpler {result.structure} model, "
            "whose contrast SEs may be too small",
            ConvergenceWarning,
            stacklevel=caller_stacklevel(),
        )
