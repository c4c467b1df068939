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

from humaneval.analysis.scale import scale_blocks
from humaneval.clmm.result import FitResult
from humaneval.core.ratings import Ratings
from humaneval.core.responses import lower_is_better
from humaneval.present.document import Block, Paragraph
from humaneval.present.formatting import MISSING, fmt, fmt_ci, fmt_p, is_missing, p_is
from humaneval.present.printable import Printable, frame_table
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


@dataclass(frozen=True, eq=False, repr=False)
class Analysis(Printable):
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

    def brief(self) -> str:
        """``[criterion] model: n systems, n contrasts (n significant at adjust=...)``, the ``repr``."""
        what = f"CLMM {self.fit.structure}, {self.fit.engine} engine" if self.fit is not None else self.test
        criterion = f"[{self.criterion}] " if self.criterion else ""
        significant = int(self.contrasts["better"].notna().sum()) if "better" in self.contrasts else 0
        counts = f"{_count(len(self.systems), 'system')}, {_count(len(self.contrasts), 'contrast')}"
        cautions = f", {_count(len(self.cautions), 'caution')}" if self.cautions else ""
        return f"{criterion}{what}: {counts} ({significant} significant at adjust={self.adjust}){cautions}"

    def blocks(self) -> tuple[Block, ...]:
        """The fit, the system table with groupings and the contrast table (what ``humaneval analyze``
        prints); a formula fit shows its coefficients, and with EMMs their tables and tests instead."""
        fit = self.fit
        heading = fit.headline() if fit is not None else [f"{self.test} test, aggregate={self.aggregate}"]
        out: list[Block] = [Paragraph((line.strip(),)) for line in heading]
        if fit is not None and (fit.structure == "formula" or self.emms is not None):
            four = {
                "term": None,
                "estimate": lambda v: fmt(v, 4),
                "se": lambda v: fmt(v, 4),
                "z": fmt,
                "p": fmt_p,
            }
            out.append(frame_table(fit.fixed_effects(), four, names={"se": "SE"}))
        if self.emms is not None:
            return (*out, *self._emm_blocks())
        unit = "mean rank (1 = best)" if lower_is_better(self.response) else "mean score"
        systems = {"system": None, "label": None, "letters": None, "estimate": fmt}
        out.append(frame_table(self.systems, systems, names={"label": unit}))
        contrasts = self.contrasts.assign(
            contrast=[f"{r.system_a} - {r.system_b}" for r in self.contrasts.itertuples()],
            ci=[
                MISSING if is_missing(r.ci_low) else fmt_ci(r.ci_low, r.ci_high)
                for r in self.contrasts.itertuples()
            ],
        )
        columns = {
            "contrast": None,
            "estimate": fmt,
            "se": fmt,
            "statistic": fmt,
            "p_unadj": fmt_p,
            "p_adj": fmt_p,
            "ci": None,
        }
        names = {"se": "SE", "statistic": "stat", "p_unadj": "p", "p_adj": "p adj", "ci": "CI"}
        caption = f"contrasts (adjust = {self.adjust}; positive = first system better)"
        out.append(frame_table(contrasts, columns, names=names, caption=(caption,)))
        return tuple(out)

    def _emm_blocks(self) -> list[Block]:
        """EMM tables, contrasts with odds ratios and the tests of a formula analysis."""
        emms = self.emms
        if emms is None:
            return []
        factor = [c for c in emms.columns if c not in ("emmean", "se", "ci_low", "ci_high", "mode")]
        out: list[Block] = []
        found = (self.extra or {}).get("categories")
        categories = found if isinstance(found, dict) else {}
        used = categories.get("used") or []
        same = "expected" in set(emms["mode"]) and used == list(range(1, len(used) + 1))
        for mode, part in emms.groupby("mode", sort=False):
            if same and mode == "mean.class":
                continue  # the class index is the score on a 1..K scale with every point used
            part = part.assign(ci=[fmt_ci(r.ci_low, r.ci_high) for r in part.itertuples()])
            columns = {**dict.fromkeys(factor), "emmean": fmt, "se": fmt, "ci": None}
            caption = _emm_heading(str(mode), categories)
            out.append(frame_table(part, columns, names={"se": "SE", "ci": "95% CI"}, caption=(caption,)))
        contrasts = self.contrasts.assign(
            contrast=[
                f"{r.system_a} - {r.system_b}" + "".join(f" | {k}={getattr(r, k)}" for k in self.by_columns)
                for r in self.contrasts.itertuples()
            ]
        )
        columns = {"contrast": None, "estimate": fmt, "se": fmt, "p_unadj": fmt_p, "p_adj": fmt_p}
        if "odds_ratio" in contrasts:
            contrasts["odds"] = [
                MISSING if is_missing(r.odds_ratio) else f"{fmt(r.odds_ratio)} {fmt_ci(r.or_low, r.or_high)}"
                for r in contrasts.itertuples()
            ]
            columns["odds"] = None
        names = {"se": "SE", "p_unadj": "p", "p_adj": "p adj", "odds": "OR [CI]"}
        caption = f"contrasts (adjust = {self.adjust}; latent scale; OR = odds ratio)"
        out.append(frame_table(contrasts, columns, names=names, caption=(caption,)))
        if self.omnibus:
            o = self.omnibus
            said = (
                f"omnibus Wald test of {o['factor']}: χ²({o['df']}) = {fmt(o['statistic'])}, {p_is(o['p'])}"
            )
            out.append(Paragraph((said,)))
        if self.lr_test:
            t = self.lr_test
            said = (
                f"likelihood-ratio test vs {t['restricted']}: χ²({t['df']}) = {fmt(t['statistic'])}, "
                f"{p_is(t['p'])}; AIC {fmt(t['aic_restricted'], 2)} → {fmt(t['aic_full'], 2)}, "
                f"BIC {fmt(t['bic_restricted'], 2)} → {fmt(t['bic_full'], 2)}"
            )
            out.append(Paragraph((said,)))
        return out + scale_blocks(self.extra)


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
