"""CLMM analyses of a ratings table: the system effects of one criterion under a named random-effect
structure (:func:`clmm_analysis`, the ``clmm`` adapter), or any formula with estimated marginal means,
a likelihood-ratio comparison and scale effects (:func:`formula_analysis`)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from humaneval.analysis.calibration import clmm_calibration
from humaneval.analysis.fit import _plain, fit_clmm
from humaneval.analysis.options import AnalysisOptions
from humaneval.analysis.outcome import Analysis, system_means
from humaneval.analysis.scale import scale_extra
from humaneval.clmm.contrasts import CONTRAST_COLUMNS
from humaneval.clmm.emmeans import _fixed_columns, emm_contrasts, emmeans, lr_test, wald_omnibus
from humaneval.clmm.result import FitResult
from humaneval.clmm.spec import ClmmSpec
from humaneval.clmm.structures import structure_formula
from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.ratings import Ratings, as_ratings, select_criterion
from humaneval.core.structure import describe_structure
from humaneval.errors import AnalysisCaution, ModelSpecError
from humaneval.stats.grouping import groupings


def clmm_analysis(ratings: Ratings, kind: str, criterion: str | None, options: AnalysisOptions) -> Analysis:
    """The :class:`Analysis` of a CLMM fit of the system effects of one criterion: its contrasts and
    rank groups (the ``clmm`` adapter of :mod:`humaneval.analysis.adapters`)."""
    table = select_criterion(ratings, criterion)
    fit = fit_clmm(
        table,
        engine=options.engine,
        structure=options.structure,
        link=options.link,
        reference=options.reference,
        fallback=options.fallback,
        progress=options.progress,
        max_minutes=options.max_minutes,
    )
    adjust, alpha = options.adjust or "tukey", options.alpha
    contrasts = fit.contrasts(adjust=adjust, alpha=alpha)
    caution = clmm_calibration(describe_structure(table))
    if caution is not None:
        warnings.warn(caution, AnalysisCaution, stacklevel=caller_stacklevel())
    return Analysis(
        test="clmm",
        aggregate=None,
        adjust=adjust,
        response=table.response,
        systems=groupings(system_means(table), fit.estimates(), contrasts, alpha),
        contrasts=contrasts,
        fit=fit,
        criterion=criterion,
        kind=kind,
        cautions=() if caution is None else (caution,),
    )


def formula_analysis(
    ratings: Ratings | pd.DataFrame,
    formula: str | None,
    *,
    engine: str,
    structure: str,
    link: str,
    reference: str | Mapping[str, str] | None,
    adjust: str,
    criterion: str | None,
    alpha: float,
    threshold: str,
    emm: str | None,
    by: str | None,
    compare: str | None,
    progress: bool | Callable[[str], None],
    scale: str | None = None,
) -> Analysis:
    """The CLMM of any formula (or of a named structure, for --emmeans/--compare) with EMMs."""
    frame: pd.DataFrame
    if _plain(ratings):
        if formula is None:
            raise ModelSpecError("a table without annotator and system columns needs --formula")
        frame, response = ratings, None
    else:
        table = select_criterion(ratings, criterion) if not _uses(formula, "criterion") else _all(ratings)
        frame, response = table.data, table.response
    if formula is None:
        formula = _structure_formula(table, structure, response or "score", scale is not None)
    fit = fit_clmm(
        frame,
        engine=engine,
        link=link,
        reference=reference,
        formula=formula,
        threshold=threshold,
        progress=progress,
        scale=scale,
    )
    categories = _categories(fit, table if not _plain(ratings) else None, criterion)
    factors, _ = _fixed_columns(fit)
    factor = emm or ("system" if "system" in factors else (factors[0] if factors else None))
    contrasts = pd.DataFrame(columns=list(CONTRAST_COLUMNS))
    emms = groups = omnibus = None
    by_cols = [by] if by else []
    if factor is not None:
        table_c = emm_contrasts(fit, factor, by=by, adjust=adjust, alpha=alpha)
        contrasts = table_c.rename(columns={"level_a": "system_a", "level_b": "system_b", "z": "statistic"})
        contrasts["df"] = np.inf
        contrasts["test"] = "z"
        latent = emmeans(fit, factor, by=by, mode="latent").assign(mode="latent")
        mean_class = emmeans(fit, factor, by=by, mode="mean.class").assign(mode="mean.class")
        parts = [latent, mean_class]
        if categories["values_numeric"]:
            expected = emmeans(fit, factor, by=by, mode="expected").assign(mode="expected")
            parts.insert(1, expected)
        emms = pd.concat(parts, ignore_index=True)
        omnibus = wald_omnibus(fit, factor)
        if by is None:
            est = latent.set_index(factor)["emmean"]
            column = fit.spec.response if isinstance(fit.spec, ClmmSpec) else None
            if column in frame and factor in frame:
                means = (
                    pd.to_numeric(frame[column], errors="coerce").groupby(frame[factor].astype(str)).mean()
                )
            else:
                means = mean_class.set_index(factor)["emmean"]
            groups = groupings(means.rename("mean"), est, contrasts, alpha)
    lr = None
    if compare is not None:
        restricted = fit_clmm(
            frame,
            engine="native" if engine == "both" else engine,
            link=link,
            reference=reference,
            formula=compare,
            threshold=threshold,
            scale=scale,
        )
        lr = lr_test(restricted, fit)
    extra: dict[str, object] | None = {"categories": categories} if emms is not None else None
    if fit.scale is not None:
        extra = {**(extra or {}), **scale_extra(fit)}
    return Analysis(
        test="clmm",
        aggregate=None,
        adjust=adjust,
        response=response or (fit.spec.response if isinstance(fit.spec, ClmmSpec) else "response"),
        systems=groups if groups is not None else pd.DataFrame(),
        contrasts=contrasts,
        fit=fit,
        criterion=criterion,
        emms=emms,
        lr_test=lr,
        omnibus=omnibus,
        by=tuple(by_cols),
        extra=extra,
    )


def _structure_formula(table: Ratings, structure: str, response: str, scale: bool) -> str:
    """The formula of a named structure (``auto``: nested or maximal; ``intercepts`` with scale effects,
    which take random intercepts only)."""
    nested = describe_structure(table).family == "nested"
    chosen = structure if structure != "auto" else ("nested" if nested else "maximal")
    if scale and structure == "auto":
        chosen = "intercepts"
    return structure_formula(chosen, nested, response)


def _categories(fit: FitResult, table: Ratings | None, criterion: str | None) -> dict[str, object]:
    """The response categories the model knows (the values used) and, when the scale is declared
    (``ratings.scale.json``, ``Ratings.scales``), the declared points never used."""
    try:
        used: list = [float(v) for v in fit.levels]
        numeric = True
    except (TypeError, ValueError):
        used, numeric = [str(v) for v in fit.levels], False
    declared = table.declared_points(criterion) if table is not None and numeric else None
    unused = None if declared is None else [v for v in declared if v not in set(used)]
    return {
        "used": used,
        "declared": declared,
        "unused": unused,
        "values_numeric": numeric,
    }


def _uses(formula: str | None, column: str) -> bool:
    return formula is not None and re.search(rf"\b{re.escape(column)}\b", formula) is not None


def _all(ratings: Ratings | pd.DataFrame) -> Ratings:
    return as_ratings(ratings).without_checks()
