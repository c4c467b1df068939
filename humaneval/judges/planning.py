"""Planning a judge calibration: how many items and humans an alt-test needs, and which items to send.

:func:`simulate_alt_test` is the simulation of Calderon, Reichart & Dror (2025, appendix C): every
item has a true category out of ``n_categories``; each human and the judge report it, except that
with probability ``noise_humans`` (``noise_judge``) a label is replaced by a category drawn
uniformly (possibly the true one). Two humans then agree beyond chance with Cohen's κ =
(1 − noise)² (0.1 → 0.81, 0.2 → 0.64, 0.3 → 0.49, 0.4 → 0.36). For every number of items it runs
the alt-test on ``n_trials`` simulated data sets and reports the mean winning rate, the mean
advantage probability and how often the judge passes — the chance that a study of that size
reaches a verdict of "may replace" for a judge of that quality.

:func:`plan_calibration` picks the human calibration subset of a judge-scored pool: whole
documents (so every system is rated on the same documents, balanced), spread over the judge's
score range, until the subset holds the requested number of items.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from humaneval.core.ratings import Ratings
from humaneval.errors import DesignError, OptionError, RatingsError
from humaneval.judges.alttest import MIN_ITEMS, RECOMMENDED_HUMANS, resolve_epsilon

__all__ = [
    "AltTestSimulation",
    "CalibrationPlan",
    "alt_test_arrays",
    "by_rejections",
    "plan_calibration",
    "simulate_alt_test",
    "simulated_labels",
]


@dataclass(frozen=True, eq=False)
class AltTestSimulation:
    """``table``: one row per number of items and ε — ``n_items, epsilon, winning_rate,
    advantage_probability, pass_rate, pass_ci_low, pass_ci_high`` (exact 95% interval of the pass rate)."""

    table: pd.DataFrame
    n_humans: int
    n_categories: int
    noise_humans: float
    noise_judge: float
    n_trials: int
    seed: int | None
    human_kappa: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "human_kappa", (1 - self.noise_humans) ** 2)

    def smallest(self, target: float = 0.8) -> pd.DataFrame:
        """Per ε, the fewest items whose pass rate reaches ``target`` (absent when none does)."""
        reached = self.table[self.table["pass_rate"] >= target]
        return reached.sort_values("n_items").groupby("epsilon", as_index=False).first()

    def summary(self) -> str:
        lines = [
            f"Alt-test simulation (Calderon et al., 2025, appendix C): {self.n_humans} humans per item, "
            f"{self.n_categories} categories, human noise {self.noise_humans:g} "
            f"(Cohen's κ ≈ {self.human_kappa:.2f}), "
            f"judge noise {self.noise_judge:g}; {self.n_trials} simulated data sets per size.",
            self.table.to_string(index=False, float_format=lambda v: f"{v:.2f}"),
        ]
        best = self.smallest()
        for row in best.itertuples():
            lines.append(f"ε = {row.epsilon:g}: {row.n_items} items pass in ≥ 80% of the data sets")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_humans": self.n_humans,
            "n_categories": self.n_categories,
            "noise_humans": self.noise_humans,
            "noise_judge": self.noise_judge,
            "human_kappa": self.human_kappa,
            "n_trials": self.n_trials,
            "seed": self.seed,
            "results": self.table.to_dict(orient="records"),
        }


def simulate_alt_test(
    n_items: Sequence[int] = (30, 50, 75, 100, 150, 200),
    *,
    n_humans: int = 3,
    n_categories: int = 4,
    noise_humans: float = 0.3,
    noise_judge: float = 0.3,
    epsilons: Sequence[float] = (0.1, 0.15, 0.2),
    n_trials: int = 500,
    q: float = 0.05,
    seed: int | None = 1,
) -> AltTestSimulation:
    """Simulate the alt-test (appendix C of Calderon, Reichart & Dror, 2025) at several sizes.

    Parameters
    ----------
    n_items : sequence of int
        Numbers of items (each labelled by every human and the judge).
    n_humans : int
        Humans per item (at least 2; the authors recommend 3 or more).
    n_categories : int
        Label categories (scored by accuracy).
    noise_humans, noise_judge : float
        Probability in [0, 1] that a label is replaced by a uniformly drawn category.
    epsilons : sequence of float
        The ε values to test at.
    n_trials : int
        Simulated data sets per size.
    q : float
        Benjamini–Yekutieli false-discovery rate.
    seed : int, optional
        Seed of the simulation.

    Returns
    -------
    AltTestSimulation

    Examples
    --------
    A judge as noisy as the humans passes a 3-human study of 100 items most of the time at ε = 0.2:

    >>> sim = simulate_alt_test([100], epsilons=[0.2], n_trials=200, seed=1)
    >>> row = sim.table.iloc[0]
    >>> bool(row.pass_rate > 0.5), round(sim.human_kappa, 2)
    (True, 0.49)
    """
    sizes = [int(n) for n in n_items]
    if not sizes or min(sizes) < 2:
        raise OptionError("the numbers of items must be at least 2, e.g. 30,50,100")
    if n_humans < 2:
        raise OptionError(f"the alt-test needs at least 2 humans per item, not {n_humans}")
    if n_categories < 2:
        raise OptionError(f"at least 2 categories are needed, not {n_categories}")
    for name, value in (("noise_humans", noise_humans), ("noise_judge", noise_judge)):
        if not 0 <= value <= 1:
            raise OptionError(f"{name} {value} must lie in [0, 1]")
    if n_trials < 1:
        raise OptionError("n_trials must be at least 1")
    eps = [resolve_epsilon(e) for e in epsilons]
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        h, j = simulated_labels(rng, n_trials, n, n_humans, n_categories, noise_humans, noise_judge)
        for e in eps:
            omega, rho = alt_test_arrays(h, j, e, q)
            passes = int((omega >= 0.5).sum())
            low, high = proportion_confint(passes, n_trials, alpha=0.05, method="beta")
            rows.append(
                {
                    "n_items": n,
                    "epsilon": e,
                    "winning_rate": float(omega.mean()),
                    "advantage_probability": float(rho.mean()),
                    "pass_rate": passes / n_trials,
                    "pass_ci_low": float(low),
                    "pass_ci_high": float(high),
                }
            )
    return AltTestSimulation(
        table=pd.DataFrame(rows),
        n_humans=n_humans,
        n_categories=n_categories,
        noise_humans=noise_humans,
        noise_judge=noise_judge,
        n_trials=n_trials,
        seed=seed,
    )


def simulated_labels(rng, trials, n, humans, k, noise_humans, noise_judge) -> tuple[np.ndarray, np.ndarray]:
    """Category codes of appendix C's model: humans ``trials × n × humans``, the judge ``trials × n × 1``."""
    truth = rng.integers(0, k, (trials, n, 1))
    h = np.where(
        rng.random((trials, n, humans)) < noise_humans, rng.integers(0, k, (trials, n, humans)), truth
    )
    j = np.where(rng.random((trials, n, 1)) < noise_judge, rng.integers(0, k, (trials, n, 1)), truth)
    return h, j


def alt_test_arrays(
    h: np.ndarray, j: np.ndarray, epsilon: float, q: float = 0.05
) -> tuple[np.ndarray, np.ndarray]:
    """ω and ρ of many complete categorical studies at once (every human labels every item).

    ``h``: ``studies × items × humans`` codes, ``j``: ``studies × items × 1``; accuracy scoring,
    one-sided t-tests against ``epsilon``, Benjamini–Yekutieli at ``q`` — what
    :func:`~humaneval.judges.alttest.alt_test` computes for one study.
    """
    n = h.shape[1]
    same = h[:, :, :, None] == h[:, :, None, :]
    human_hits = same.sum(axis=3) - 1
    judge_hits = (h == j).sum(axis=2, keepdims=True) - (h == j)
    judge_ok, human_ok = judge_hits >= human_hits, human_hits >= judge_hits
    d = human_ok.astype(float) - judge_ok.astype(float)
    mean, sd = d.mean(axis=1), d.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = stats.t.cdf((mean - epsilon) / (sd / math.sqrt(n)), n - 1)
    p = np.where(sd == 0, np.where(mean < epsilon, 0.0, 1.0), p)
    return by_rejections(p, q).mean(axis=1), judge_ok.mean(axis=(1, 2))


def by_rejections(p: np.ndarray, q: float) -> np.ndarray:
    """Benjamini–Yekutieli rejections of every row of ``p`` at false-discovery rate ``q``.

    The same decisions as ``statsmodels.stats.multitest.multipletests(row, q, "fdr_by")`` for each
    row, in one pass over a matrix of simulated studies.
    """
    m = p.shape[1]
    order = np.argsort(p, axis=1)
    ranked = np.take_along_axis(p, order, axis=1)
    c_m = np.sum(1.0 / np.arange(1, m + 1))
    below = ranked <= np.arange(1, m + 1) * q / (m * c_m)
    last = np.where(below.any(axis=1), m - 1 - np.argmax(below[:, ::-1], axis=1), -1)
    rejected_sorted = np.arange(m)[None, :] <= last[:, None]
    out = np.empty_like(rejected_sorted)
    np.put_along_axis(out, order, rejected_sorted, axis=1)
    return out


@dataclass(frozen=True, eq=False)
class CalibrationPlan:
    """The documents to send to humans: ``items`` (``document, system, judge_score, stratum``), every
    pool document's inclusion ``probabilities`` and whether it was drawn (as
    :func:`humaneval.design.judged.choose_documents` gives them), and what the plan cannot promise
    (``notes``)."""

    items: pd.DataFrame
    humans_per_item: int
    probabilities: pd.DataFrame
    notes: tuple[str, ...] = ()

    @property
    def documents(self) -> tuple[str, ...]:
        """The chosen documents, sorted."""
        return tuple(sorted(self.probabilities.loc[self.probabilities["selected"], "document"]))

    def summary(self) -> str:
        lines = [
            f"Calibration subset: {len(self.documents)} documents, {len(self.items)} items "
            f"({self.items['system'].nunique()} systems), each for {self.humans_per_item} humans."
        ]
        counts = self.items["system"].value_counts()
        lines.append(f"items per system: {counts.min()}–{counts.max()}")
        lines += [f"Note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": list(self.documents),
            "n_items": len(self.items),
            "humans_per_item": self.humans_per_item,
            "items": self.items.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def plan_calibration(
    pool: Ratings | pd.DataFrame,
    n_items: int = 100,
    *,
    humans_per_item: int = RECOMMENDED_HUMANS,
    criterion: str | None = None,
    strategy: str = "stratified",
    strata: int = 5,
    seed: int | None = 1,
) -> CalibrationPlan:
    """Choose whole documents of a judge-scored pool for the human calibration of the judge.

    The documents are drawn by :func:`humaneval.design.judged.choose_documents` — by default from
    ``strata`` strata of the judge's mean score per document, so the subset spans the judge's range,
    not just its typical scores — as many as hold ``n_items`` summaries on average; every system of
    a chosen document is in it, so the systems stay balanced. ``humaneval design --judge-scores POOL
    --calibration-items N`` calls it; the same pool and seed give the same documents as
    ``--documents n --choose stratified`` for the matching ``n``.

    Parameters
    ----------
    pool : Ratings or DataFrame
        The judge-scored pool: a ratings table (its judge rows, or every row when none is marked as a
        judge) or a judge file's ``document, system, score`` rows (optionally ``judge`` or
        ``annotator`` and ``criterion``).
    n_items : int
        Summaries to calibrate on (the authors: at least 30, 50–100 in most cases).
    humans_per_item : int
        Humans to rate each item (the authors recommend at least 3).
    criterion : str, optional
        The criterion whose judge scores order the documents (default: all, averaged).
    strategy : {"stratified", "random", "active"}
        How the documents are drawn (:func:`~humaneval.design.judged.choose_documents`).
    strata : int
        Strata of the stratified draw (at most one per document drawn).
    seed : int, optional
        Seed of the draw.

    Returns
    -------
    CalibrationPlan

    Raises
    ------
    DesignError
        Fewer than 2 humans per item, or a pool smaller than ``n_items``.
    RatingsError
        A judge table without ``document, system, score`` or with a score that is not a number.

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator test for LLM-as-a-judge:
    how to statistically justify replacing human annotators with LLMs. *ACL 2025*.
    """
    from humaneval.design.judged import choose_documents

    if humans_per_item < 2:
        raise DesignError(f"the alt-test needs at least 2 humans per item, not {humans_per_item}")
    scores = _judge_scores(pool, criterion)
    summaries = scores.groupby(["document", "system"], as_index=False)["score"].mean()
    summaries = summaries.rename(columns={"score": "judge_score"})
    if n_items > len(summaries):
        raise DesignError(
            f"the pool has {len(summaries)} summaries, fewer than the {n_items} items asked for"
        )
    per_document = len(summaries) / summaries["document"].nunique()
    n_documents = min(math.ceil(n_items / per_document), summaries["document"].nunique())
    picks = choose_documents(scores, n_documents, strategy=strategy, strata=strata, seed=seed)
    chosen = picks.loc[picks["selected"], "document"]
    items = summaries[summaries["document"].isin(chosen)]
    if "stratum" in picks:
        items = items.merge(picks[["document", "stratum"]], on="document")
    notes = []
    if n_items < MIN_ITEMS:
        notes.append(
            f"fewer than {MIN_ITEMS} items: the alt-test's t-tests need at least {MIN_ITEMS} per human"
        )
    if humans_per_item < RECOMMENDED_HUMANS:
        notes.append("the authors recommend at least three humans per item")
    return CalibrationPlan(
        items=items.sort_values(["document", "system"]).reset_index(drop=True),
        humans_per_item=humans_per_item,
        probabilities=picks,
        notes=tuple(notes),
    )


def _judge_scores(pool: Ratings | pd.DataFrame, criterion: str | None) -> pd.DataFrame:
    """``document, system, score, judge`` rows of the pool's judges (one criterion, if named)."""
    if isinstance(pool, Ratings):
        judged = pool.judges() if pool.has_judges else pool
        data = judged.data
        frame = pd.DataFrame(
            {
                "document": data["document"].astype(str),
                "system": data["system"].astype(str),
                "score": data[pool.response].astype(float),
                "judge": data["annotator"].astype(str),
            }
        )
        if "criterion" in data:
            frame["criterion"] = data["criterion"].to_numpy()
    else:
        missing = [c for c in ("document", "system", "score") if c not in pool]
        if missing:
            raise RatingsError(f"judge scores: no column {', '.join(missing)}; give document, system, score")
        scores = pd.to_numeric(pool["score"], errors="coerce")
        if scores.isna().any():
            raise RatingsError(
                f"judge scores: score {pool['score'][scores.isna()].iloc[0]!r} is not a number; give one "
                "numeric score per row"
            )
        frame = pool.astype({"document": str, "system": str}).assign(score=scores)
        if "judge" not in frame and "annotator" in frame:
            frame = frame.rename(columns={"annotator": "judge"})
    if criterion is not None and "criterion" in frame:
        frame = frame[frame["criterion"] == criterion]
    return frame
