"""A prediction-powered estimate as a :class:`~humaneval.analysis.adapters.SystemAnalysis`.

The ``ppi`` adapter of the analysis registry (:mod:`humaneval.analysis.adapters`) wraps whichever PPI
estimator fits the table — system means (:func:`~humaneval.ppi.systems.ppi_systems`), proportional-odds
contrasts (:func:`~humaneval.ppi.ordinal.ppi_ordinal`) or Bradley–Terry strengths
(:func:`~humaneval.ppi.pairwise.ppi_pairwise`) — in one :class:`JudgedAnalysis`: the system table with
rank groups and the contrast table of every other analysis, plus the estimator's own result. Its
``to_dict()`` is the ``--json`` of ``humaneval ppi``, one element of ``criteria`` in ``humaneval analyze
--judge NAME --json`` and one element of ``ppi`` in the report's ``report.json`` (docs/ppi.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from humaneval.ppi.ordinal import PPIOrdinal
from humaneval.ppi.pairwise import PPIPairwise
from humaneval.ppi.systems import PPIAnalysis
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_p
from humaneval.present.printable import Printable, frame_table
from humaneval.ranks.analysis import rank_sets_dict
from humaneval.ranks.result import RankSets
from humaneval.stats.grouping import groupings

__all__ = ["GAIN_UNCERTAIN", "JudgedAnalysis", "judged_analysis"]

PPIResult = PPIAnalysis | PPIOrdinal | PPIPairwise

#: At or below this many human-rated clusters the effective-n factor is itself too uncertain to plan
#: with: it is a ratio of two variances each estimated from so few clusters.
GAIN_UNCERTAIN = 40

_TESTS = {PPIAnalysis: "ppi-mean", PPIOrdinal: "ppi-ordinal", PPIPairwise: "ppi-bradley-terry"}


@dataclass(frozen=True, eq=False)
class JudgedAnalysis(Printable):
    """Humans and one judge: the prediction-powered system table and contrasts (``SystemAnalysis``).

    ``systems`` has ``system, mean`` (the human ratings' mean), ``estimate`` (the PPI estimate: a
    mean, or a strength on the log-odds scale with the first system at 0), ``label, group, letters``;
    ``contrasts`` the contrast-table columns with ``gain`` (the effective-n factor) and the human-only
    ``human_estimate`` … beside. ``result`` is the estimator's own result; ``rank_sets`` the marginal and
    simultaneous rank sets from the PPI estimates and their covariance (set by
    :func:`humaneval.analysis.analyze`).
    """

    test: str
    kind: str | None
    criterion: str | None
    adjust: str
    response: str
    judge: str
    systems: pd.DataFrame
    contrasts: pd.DataFrame
    result: PPIResult
    cautions: tuple[str, ...] = field(default=())
    fit: None = None
    aggregate: str | None = None
    independent: bool = True
    alpha: float = 0.05
    rank_sets: Mapping[str, RankSets] | None = None

    def rank_inputs(self) -> tuple[pd.Series, np.ndarray] | None:
        """The PPI estimates of the systems and their covariance (the estimator's ``covariance``), from
        which :func:`humaneval.ranks.analysis.analysis_rank_sets` computes the rank sets; None without one."""
        covariance = getattr(self.result, "covariance", None)
        if covariance is None:
            return None
        estimates = self.systems.set_index("system")["estimate"].astype(float)
        names = list(estimates.index)
        return estimates, covariance.loc[names, names].to_numpy(dtype=float)

    def blocks(self) -> tuple[Block, ...]:
        """The system table with rank groups, the contrasts and the cautions (what ``humaneval ppi``
        prints; ``summary()`` is their text)."""
        result = self.result
        head = f"{self.test} with judge {self.judge!r}" + (
            f", criterion {self.criterion}" if self.criterion else ""
        )
        what = (
            f"{head}: {result.n_clusters} clusters (cluster-robust variances), "
            f"{int(100 * (1 - self.alpha) + 0.5)}% intervals, contrasts {self.adjust}-adjusted (a − b)"
        )
        systems = self.systems
        columns: dict[str, Any] = {"system": None, "mean": None, "estimate": None, "letters": str}
        if isinstance(result, PPIAnalysis):
            systems = systems.merge(result.systems.drop(columns="estimate"), on="system", how="left")
            columns = {
                "system": None, "estimate": None, "ci_low": None, "ci_high": None, "lam": None,
                "human_estimate": None, "human_ci_low": None, "human_ci_high": None, "n_human": None,
                "n_judge_only": None, "gain": None, "gain_low": None,
                "gain_high": None, "boot_ci_low": None, "boot_ci_high": None, "letters": str,
            }  # fmt: skip
        names = {
            "estimate": "PPI",
            "human_estimate": "human",
            "lam": "λ",
            "n_human": "n",
            "n_judge_only": "N",
            "gain_low": "gain low",
            "gain_high": "gain high",
        }
        contrasts: dict[str, Any] = {
            c: fmt_p if c == "p_adj" else None
            for c in (
                "system_a",
                "system_b",
                "estimate",
                "se",
                "p_adj",
                "ci_low",
                "ci_high",
                "gain",
                "gain_low",
                "gain_high",
                "better",
            )
            if c in self.contrasts
        }
        out: list[Block] = [
            Paragraph((what,)),
            frame_table(systems, columns, names=names),
            frame_table(
                self.contrasts,
                contrasts,
                names={"estimate": "PPI", "p_adj": "p adj", "gain_low": "gain low", "gain_high": "gain high"},
            ),
        ]
        if self.cautions:
            out.append(Bullets(tuple((f"caution: {c}",) for c in self.cautions)))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        """The estimator's JSON with the keys every analysis has (docs/ppi.md, docs/analysis.md)."""
        return {
            **self.result.to_dict(),
            "test": self.test,
            "kind": self.kind,
            "criterion": self.criterion,
            "response": self.response,
            "judge": self.judge,
            "adjust": self.adjust,
            "groups": self.systems.to_dict(orient="records"),
            "contrasts": self.contrasts.to_dict(orient="records"),
            "cautions": list(self.cautions),
            "rank_sets": rank_sets_dict(self.rank_sets),
        }


def judged_analysis(
    result: PPIResult,
    *,
    kind: str,
    criterion: str | None,
    response: str,
    human_means: pd.Series,
    alpha: float,
) -> JudgedAnalysis:
    """Wrap a PPI estimator's result with rank groups from its adjusted contrasts."""
    if isinstance(result, PPIPairwise):
        systems, contrasts = result.systems, result.contrasts
    else:
        contrasts = result.contrasts.copy()
        if "better" not in contrasts:
            contrasts["better"] = [
                (a if e > 0 else b) if p < alpha else None
                for a, b, e, p in zip(
                    contrasts["system_a"],
                    contrasts["system_b"],
                    contrasts["estimate"],
                    contrasts["p_adj"],
                    strict=True,
                )
            ]
        estimates = _estimates(result, contrasts)
        systems = groupings(human_means.rename("mean"), estimates, contrasts.dropna(subset=["p_adj"]), alpha)
    cautions = tuple(getattr(result, "cautions", ())) + _gain_caution(result, contrasts)
    return JudgedAnalysis(
        test=_TESTS[type(result)],
        kind=kind,
        criterion=criterion,
        adjust=result.adjust if hasattr(result, "adjust") else str(contrasts["adjust"].iloc[0]),
        response=response,
        judge=result.judge,
        systems=systems,
        contrasts=contrasts,
        result=result,
        cautions=cautions,
        alpha=alpha,
    )


def _estimates(result: PPIAnalysis | PPIOrdinal, contrasts: pd.DataFrame) -> pd.Series:
    if isinstance(result, PPIAnalysis):
        return result.systems.set_index("system")["estimate"]
    first = result.systems[0]  # proportional odds: effects relative to the first system
    out = {first: 0.0}
    for row in contrasts.itertuples():
        if row.system_a == first:
            out[row.system_b] = -float(row.estimate)
    return pd.Series(out).reindex(list(result.systems))


def _gain_caution(result: PPIResult, contrasts: pd.DataFrame) -> tuple[str, ...]:
    """Say when the effective-n factor rests on so few clusters that it is itself uncertain."""
    clusters = result.n_clusters
    if isinstance(result, PPIAnalysis) and len(result.systems):
        clusters = int(result.systems["n_clusters"].min())
    gains = contrasts["gain"].to_numpy(dtype=float) if "gain" in contrasts else np.array([])
    if clusters > GAIN_UNCERTAIN or not np.isfinite(gains).any():
        return ()
    top = int(np.nanargmax(gains))
    interval = ""
    if "gain_low" in contrasts and np.isfinite(contrasts["gain_low"].iloc[top]):
        low, high = float(contrasts["gain_low"].iloc[top]), float(contrasts["gain_high"].iloc[top])
        interval = f", interval {low:.2f} to {high:.2f}"
    return (
        f"the effective-n factor (up to {gains[top]:.2f}{interval}) rests on {clusters} human-rated "
        "clusters: it is a ratio of two variances each estimated from so few clusters, so it is itself "
        f"uncertain; do not plan a smaller human sample from it before more than {GAIN_UNCERTAIN} clusters "
        "are rated",
    )
