"""One call from a ratings table to the system table with groupings and the contrast table.

``analyze`` runs either the CLMM (spec §5, the default and the recommended analysis) or one of the
classic tests (spec §4) and returns an :class:`Analysis`, whose ``to_dict()`` is the JSON of
``humaneval analyze --json``. The system table shows raw means (ranks 1-based, lower = better) with
the rank groups of dissertation Table 3.2 ("5.25 (1)", "4.33 (3/4)") computed from the contrasts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.analysis.classic import AGGREGATES, TESTS, classic_test, independent_units
from humaneval.analysis.contrasts import groupings
from humaneval.analysis.fit import fit_clmm
from humaneval.analysis.prepare import select_criterion
from humaneval.analysis.result import FitResult
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

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` schema of ``humaneval analyze`` (see docs/analysis.md)."""
        fit = self.fit
        contrasts = [
            {
                "a": row.system_a,
                "b": row.system_b,
                "estimate": row.estimate,
                "se": row.se,
                "z": row.statistic if self.test == "clmm" else None,
                "statistic": row.statistic,
                "df": row.df,
                "p": row.p_unadj,
                "p_adjusted": row.p_adj,
                "adjust": row.adjust,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "better": row.better,
            }
            for row in self.contrasts.itertuples()
        ]
        return {
            "test": self.test,
            "criterion": self.criterion,
            "response": self.response,
            "engine": fit.engine if fit else None,
            "model_used": fit.structure if fit else self.test,
            "link": fit.link if fit else None,
            "reference": fit.reference if fit else None,
            "aggregate": self.aggregate,
            "independent_units": self.independent,
            "fallbacks": [a.to_dict() for a in fit.fallbacks] if fit else [],
            "fixed_effects": fit.fixed_effects().to_dict(orient="records") if fit else [],
            "thresholds": fit.thresholds_frame().to_dict(orient="records") if fit else [],
            "random_effects": fit.random_effects_frame().to_dict(orient="records") if fit else [],
            "contrasts": contrasts,
            "groups": self.systems.to_dict(orient="records"),
            "diagnostics": (
                {**fit.diagnostics.to_dict(), "loglik": fit.loglik, "aic": fit.aic, "nobs": fit.nobs}
                if fit
                else None
            ),
            "versions": fit.versions if fit else {},
            **(self.extra or {}),
        }


def analyze(
    ratings: Ratings | pd.DataFrame,
    test: str = "clmm",
    *,
    engine: str = "auto",
    model: str = "auto",
    link: str = "logit",
    reference: str | None = None,
    adjust: str | None = None,
    aggregate: str = "none",
    criterion: str | None = None,
    fallback: bool = True,
    rounds: int = 1000,
    seed: int | np.random.Generator | None = None,
    alpha: float = 0.05,
) -> Analysis:
    """Analyse one criterion with the CLMM (``test="clmm"``) or a classic test.

    ``adjust`` defaults to ``tukey`` (CLMM, ANOVA) or ``holm`` (paired classic tests);
    ``aggregate`` applies to classic tests only.
    """
    if test not in ("clmm", *TESTS):
        raise ModelSpecError(f"unknown test {test!r}; use clmm or one of {', '.join(TESTS)}")
    if aggregate not in AGGREGATES:
        raise ModelSpecError(f"unknown aggregation {aggregate!r}; use one of {', '.join(AGGREGATES)}")
    table = select_criterion(ratings, criterion)
    means = system_means(table)
    if test == "clmm":
        fit = fit_clmm(
            table, engine=engine, structure=model, link=link, reference=reference, fallback=fallback
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
    contrasts = classic_test(table, test, aggregate, adjust, rounds=rounds, seed=seed, alpha=alpha)
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
