"""What a CLMM or classic-test analysis of one criterion holds: the system table with rank groups, the
contrast table and the fit (:class:`Analysis`), and the raw system means it shows.

The system table shows raw means (ranks 1-based, lower = better) with the rank groups of
dissertation Table 3.2 ("5.25 (1)", "4.33 (3/4)") computed from the contrasts; ``to_dict()`` is one
element of ``criteria`` in ``humaneval analyze --json`` (docs/analysis.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from humaneval.analysis.scale import scale_lines
from humaneval.clmm.result import FitResult
from humaneval.core.ratings import Ratings
from humaneval.core.responses import lower_is_better
from humaneval.present.formatting import fmt, fmt_ci, fmt_p, is_missing, p_is
from humaneval.ranks.analysis import rank_sets_dict
from humaneval.ranks.result import RankSets


def system_means(ratings: Ratings) -> pd.Series:
    """Mean response per system as reported: scores as given, ranks 1-based (lower = better).

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> system_means(as_ratings(wine_ratings())).round(3).to_dict()
    {'cold-no': 2.056, 'cold-yes': 2.611, 'warm-no': 3.111, 'warm-yes': 3.889}
    """
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
    extra: Mapping[str, object] | None = None
    emms: pd.DataFrame | None = None
    lr_test: Mapping[str, object] | None = None
    omnibus: Mapping[str, object] | None = None
    by: tuple[str, ...] = ()
    cautions: tuple[str, ...] = ()
    kind: str | None = None
    rank_sets: Mapping[str, RankSets] | None = None

    def to_dict(self) -> dict[str, object]:
        """One element of ``criteria`` in ``humaneval analyze --json`` (see docs/analysis.md).

        ``contrasts`` holds the rows of :attr:`contrasts` with its column names as keys.
        """
        fit = self.fit
        return {
            "test": self.test,
            "kind": self.kind,
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
            "cautions": list(self.cautions),
            "rank_sets": rank_sets_dict(self.rank_sets),
            **(self.extra or {}),
        }

    @property
    def by_columns(self) -> list[str]:
        """The ``by`` columns of an EMM contrast table (empty otherwise)."""
        return list(self.by)

    def summary(self) -> str:
        """The system table with groupings and the contrast table, as ``humaneval analyze`` prints them."""
        lines = (
            self.fit.headline() if self.fit is not None else [f"{self.test} test, aggregate={self.aggregate}"]
        )
        if self.fit is not None and (self.fit.structure == "formula" or self.emms is not None):
            lines += ["", f"{'term':<28} {'estimate':>9} {'SE':>7} {'z':>8} {'p':>8}"]
            for row in self.fit.fixed_effects().itertuples():
                lines.append(
                    f"{row.term:<28} {row.estimate:>9.4f} {row.se:>7.4f} {row.z:>8.3f} {fmt_p(row.p):>8}"
                )
        if self.emms is not None:
            return "\n".join(lines + self._emm_lines())
        unit = "mean rank (1 = best)" if lower_is_better(self.response) else "mean score"
        lines += ["", f"{'system':<20} {unit:<22} letters  estimate"]
        for row in self.systems.itertuples():
            lines.append(f"{row.system:<20} {row.label:<22} {row.letters:<8} {fmt(row.estimate)}")
        lines += ["", f"contrasts (adjust = {self.adjust}; positive = first system better)"]
        lines.append(f"{'contrast':<36} {'estimate':>9} {'SE':>7} {'stat':>8} {'p':>8} {'p adj':>8}  CI")
        for row in self.contrasts.itertuples():
            name = f"{row.system_a} - {row.system_b}"
            ci = "" if is_missing(row.ci_low) else fmt_ci(row.ci_low, row.ci_high)
            lines.append(
                f"{name:<36} {fmt(row.estimate):>9} {fmt(row.se):>7} {fmt(row.statistic):>8} "
                f"{fmt_p(row.p_unadj):>8} {fmt_p(row.p_adj):>8}  {ci}"
            )
        return "\n".join(lines)

    def _emm_lines(self) -> list[str]:
        """EMM tables, contrasts with odds ratios and the tests of a formula analysis."""
        emms = self.emms
        if emms is None:
            return []
        factor = [c for c in emms.columns if c not in ("emmean", "se", "ci_low", "ci_high", "mode")]
        lines = []
        found = (self.extra or {}).get("categories")
        categories = found if isinstance(found, dict) else {}
        used = categories.get("used") or []
        same = "expected" in set(emms["mode"]) and used == list(range(1, len(used) + 1))
        for mode, part in emms.groupby("mode", sort=False):
            if same and mode == "mean.class":
                continue  # the class index is the score on a 1..K scale with every point used
            lines += ["", _emm_heading(str(mode), categories)]
            for row in part.itertuples(index=False):
                label = " ".join(f"{k}={getattr(row, k)}" for k in factor)
                lines.append(
                    f"  {label:<36} {row.emmean:>8.3f} {row.se:>7.3f}  {fmt_ci(row.ci_low, row.ci_high)}"
                )
        lines += ["", f"contrasts (adjust = {self.adjust}; latent scale; OR = odds ratio)"]
        for row in self.contrasts.itertuples():
            by = "".join(f" | {k}={getattr(row, k)}" for k in self.by_columns)
            odds = getattr(row, "odds_ratio", None)
            odds_text = f"  OR {odds:.3f} {fmt_ci(row.or_low, row.or_high)}" if not is_missing(odds) else ""
            lines.append(
                f"  {row.system_a} - {row.system_b}{by:<12} {row.estimate:>8.3f} {row.se:>7.3f} "
                f"p {fmt_p(row.p_unadj)} p.adj {fmt_p(row.p_adj)}{odds_text}"
            )
        if self.omnibus:
            o = self.omnibus
            lines.append(
                f"omnibus Wald test of {o['factor']}: χ²({o['df']}) = {o['statistic']:.3f}, {p_is(o['p'])}"
            )
        if self.lr_test:
            t = self.lr_test
            lines.append(
                f"likelihood-ratio test vs {t['restricted']}: χ²({t['df']}) = {t['statistic']:.3f}, "
                f"{p_is(t['p'])}; AIC {t['aic_restricted']:.2f} → {t['aic_full']:.2f}, "
                f"BIC {t['bic_restricted']:.2f} → {t['bic_full']:.2f}"
            )
        return lines + scale_lines(self.extra)

    def __repr__(self) -> str:
        what = (
            f"CLMM {self.fit.structure}, {self.fit.engine} engine" if self.fit is not None else f"{self.test}"
        )
        criterion = f" [{self.criterion}]" if self.criterion else ""
        significant = int(self.contrasts["better"].notna().sum()) if "better" in self.contrasts else 0
        counts = f"{_count(len(self.systems), 'system')}, {_count(len(self.contrasts), 'contrast')}"
        cautions = f", {_count(len(self.cautions), 'caution')}" if self.cautions else ""
        tests = f"{significant} significant at adjust={self.adjust}"
        return f"<Analysis{criterion} {what}: {counts} ({tests}){cautions}>"


def _emm_heading(mode: str, categories: dict) -> str:
    """What an EMM table holds, in words a reader cannot mistake: the expected score is on the
    ratings' own values, the class index is not a score."""
    used = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in categories.get("used", []))
    if mode == "expected":
        unused = categories.get("unused")
        never = f"; never used: {', '.join(f'{v:g}' for v in unused)}" if unused else ""
        return f"estimated marginal means (expected score on the scale's own values {used}{never}; 95% CI)"
    if mode == "mean.class":
        k = len(categories.get("used", [])) or "K"
        return (
            f"estimated marginal means (mean.class: expected class index 1..{k} over the categories "
            f"used, {used}; not a score; 95% CI)"
        )
    return f"estimated marginal means ({mode}, 95% CI)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
