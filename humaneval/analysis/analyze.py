"""One call from a ratings table to the system table with groupings and the contrast table.

``analyze`` runs either the CLMM (docs/analysis.md, the default and the recommended analysis) or one of the
classic tests (docs/analysis.md) and returns an :class:`Analysis`, whose ``to_dict()`` is the JSON of
``humaneval analyze --json``. The system table shows raw means (ranks 1-based, lower = better) with
the rank groups of dissertation Table 3.2 ("5.25 (1)", "4.33 (3/4)") computed from the contrasts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval._deprecation import renamed
from humaneval.analysis.classic import AGGREGATES, TESTS, classic_test, independent_units
from humaneval.analysis.contrasts import groupings
from humaneval.analysis.fit import _plain, fit_clmm
from humaneval.analysis.prepare import select_criterion
from humaneval.analysis.result import FitResult
from humaneval.clmm.contrasts import CONTRAST_COLUMNS
from humaneval.clmm.emmeans import _fixed_columns, emm_contrasts, emmeans, lr_test, wald_omnibus
from humaneval.errors import ModelSpecError
from humaneval.ratings import Ratings


def system_means(ratings: Ratings) -> pd.Series:
    """Mean response per system as reported: scores as given, ranks 1-based (lower = better)."""
    values = ratings.reported()
    return values.groupby(ratings.data["system"]).mean().rename("mean")


@dataclass(frozen=True, eq=False)
class Analysis:
    """The outcome of :func:`analyze`: systems with groupings, contrasts and (for the CLMM) the fit."""

    test: str
    aggregate: str | None
    adjust: str
    response: str
    systems: pd.DataFrame
    contrasts: pd.DataFrame
    fit: FitResult | None = None
    independent: bool = True
    criterion: str | None = None
    extra: dict[str, object] | None = None
    emms: pd.DataFrame | None = None
    lr_test: dict[str, object] | None = None
    omnibus: dict[str, object] | None = None

    def to_dict(self) -> dict[str, object]:
        """One element of ``criteria`` in ``humaneval analyze --json`` (see docs/analysis.md).

        ``contrasts`` holds the rows of :attr:`contrasts` with its column names as keys.
        """
        fit = self.fit
        return {
            "test": self.test,
            "criterion": self.criterion,
            "response": self.response,
            "engine": fit.engine if fit else None,
            "structure": fit.structure if fit else None,
            "link": fit.link if fit else None,
            "reference": fit.reference if fit else None,
            "aggregate": self.aggregate,
            "independent_units": self.independent,
            "fallbacks": [a.to_dict() for a in fit.fallbacks] if fit else [],
            "fixed_effects": fit.fixed_effects().to_dict(orient="records") if fit else [],
            "thresholds": fit.thresholds_frame().to_dict(orient="records") if fit else [],
            "random_effects": fit.random_effects_frame().to_dict(orient="records") if fit else [],
            "contrasts": self.contrasts.to_dict(orient="records"),
            "groups": self.systems.to_dict(orient="records"),
            "diagnostics": (
                {
                    **fit.diagnostics.to_dict(),
                    "loglik": fit.loglik,
                    "aic": fit.aic,
                    "bic": fit.bic,
                    "nobs": fit.nobs,
                }
                if fit
                else None
            ),
            "formula": fit.formula if fit else None,
            "threshold": fit.threshold if fit else None,
            "emmeans": self.emms.to_dict(orient="records") if self.emms is not None else [],
            "lr_test": self.lr_test,
            "omnibus": self.omnibus,
            "engine_comparison": fit.engine_comparison if fit else None,
            "versions": fit.versions if fit else {},
            **(self.extra or {}),
        }

    @property
    def by_columns(self) -> list[str]:
        """The ``by`` columns of an EMM contrast table (empty otherwise)."""
        return list(self.contrasts.attrs.get("by", []))


@renamed(model="structure", rounds="n_permutations")
def analyze(
    ratings: Ratings | pd.DataFrame,
    test: str = "clmm",
    *,
    engine: str = "native",
    structure: str = "auto",
    link: str = "logit",
    reference: str | None = None,
    adjust: str | None = None,
    aggregate: str = "none",
    criterion: str | None = None,
    fallback: bool = True,
    n_permutations: int = 1000,
    seed: int | np.random.Generator | None = None,
    alpha: float = 0.05,
    formula: str | None = None,
    threshold: str = "flexible",
    emm: str | None = None,
    by: str | None = None,
    compare: str | None = None,
    progress: bool = False,
) -> Analysis:
    """Analyse one criterion with the CLMM (``test="clmm"``) or a classic test.

    ``adjust`` defaults to ``tukey`` (CLMM, ANOVA) or ``holm`` (paired classic tests);
    ``aggregate`` applies to classic tests only. ``formula`` fits any CLMM formula (``ratings`` may
    then be any data frame); ``emm`` names the factor whose estimated marginal means are compared
    (default ``system`` when the formula has it), optionally within each level of ``by``;
    ``compare`` is a nested formula tested against ``formula`` by a likelihood-ratio test.
    """
    if formula is not None or emm is not None or compare is not None:
        if test != "clmm":
            raise ModelSpecError("--formula, --emmeans and --compare apply to the CLMM (--test clmm)")
        return _analyze_formula(
            ratings,
            formula,
            engine=engine,
            structure=structure,
            link=link,
            reference=reference,
            adjust=adjust or "tukey",
            criterion=criterion,
            alpha=alpha,
            threshold=threshold,
            emm=emm,
            by=by,
            compare=compare,
            progress=progress,
        )
    if test not in ("clmm", *TESTS):
        raise ModelSpecError(f"unknown test {test!r}; use clmm or one of {', '.join(TESTS)}")
    if aggregate not in AGGREGATES:
        raise ModelSpecError(f"unknown aggregation {aggregate!r}; use one of {', '.join(AGGREGATES)}")
    table = select_criterion(ratings, criterion)
    means = system_means(table)
    if test == "clmm":
        fit = fit_clmm(
            table,
            engine=engine,
            structure=structure,
            link=link,
            reference=reference,
            fallback=fallback,
            progress=progress,
        )
        adjust = adjust or "tukey"
        contrasts = fit.contrasts(adjust=adjust, alpha=alpha)
        estimates = fit.estimates()
        return Analysis(
            test=test,
            aggregate=None,
            adjust=adjust,
            response=table.response,
            systems=groupings(means, estimates, contrasts, alpha),
            contrasts=contrasts,
            fit=fit,
            criterion=criterion,
        )
    contrasts = classic_test(
        table, test, aggregate, adjust, n_permutations=n_permutations, seed=seed, alpha=alpha
    )
    oriented = table.oriented().astype(float).groupby(table.data["system"]).mean()
    estimates = oriented.reindex(list(dict.fromkeys([*contrasts["system_a"], *contrasts["system_b"]])))
    return Analysis(
        test=test,
        aggregate=aggregate,
        adjust=str(contrasts["adjust"].iloc[0]),
        response=table.response,
        systems=groupings(means, estimates, contrasts, alpha),
        contrasts=contrasts,
        independent=independent_units(table, aggregate),
        criterion=criterion,
        extra={"anova": contrasts.attrs["anova"], "not_recommended": True} if test == "anova" else None,
    )


def _analyze_formula(
    ratings: Ratings | pd.DataFrame,
    formula: str | None,
    *,
    engine: str,
    structure: str,
    link: str,
    reference: str | None,
    adjust: str,
    criterion: str | None,
    alpha: float,
    threshold: str,
    emm: str | None,
    by: str | None,
    compare: str | None,
    progress: bool,
) -> Analysis:
    """The CLMM of any formula (or of a named structure, for --emmeans/--compare) with EMMs."""
    if _plain(ratings):
        if formula is None:
            raise ModelSpecError("a table without annotator and system columns needs --formula")
        frame, response = ratings, None
    else:
        table = select_criterion(ratings, criterion) if not _uses(formula, "criterion") else _all(ratings)
        frame, response = table.data, table.response
    if formula is None:
        from humaneval.clmm.structures import structure_formula
        from humaneval.structure import describe_structure

        nested = describe_structure(table).family == "nested"
        chosen = structure if structure != "auto" else ("nested" if nested else "maximal")
        formula = structure_formula(chosen, nested, response or "score")
    fit = fit_clmm(
        frame,
        engine=engine,
        link=link,
        reference=reference,
        formula=formula,
        threshold=threshold,
        progress=progress,
    )
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
        contrasts.attrs["by"] = by_cols
        latent = emmeans(fit, factor, by=by, mode="latent").assign(mode="latent")
        mean_class = emmeans(fit, factor, by=by, mode="mean.class").assign(mode="mean.class")
        emms = pd.concat([latent, mean_class], ignore_index=True)
        omnibus = wald_omnibus(fit, factor)
        if by is None:
            est = latent.set_index(factor)["emmean"]
            column = fit.spec.response if fit.spec is not None else None
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
        )
        lr = lr_test(restricted, fit)
    return Analysis(
        test="clmm",
        aggregate=None,
        adjust=adjust,
        response=response or (fit.spec.response if fit.spec is not None else "response"),
        systems=groups if groups is not None else pd.DataFrame(),
        contrasts=contrasts,
        fit=fit,
        criterion=criterion,
        emms=emms,
        lr_test=lr,
        omnibus=omnibus,
    )


def _uses(formula: str | None, column: str) -> bool:
    import re

    return formula is not None and re.search(rf"\b{re.escape(column)}\b", formula) is not None


def _all(ratings: Ratings | pd.DataFrame) -> Ratings:
    from humaneval.ratings import as_ratings

    return as_ratings(ratings).without_checks()
