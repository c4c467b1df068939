"""How many items and humans an alt-test needs: the authors' simulation, with items per human and numbers.

Calderon, Reichart & Dror (2025, appendix C) simulate categorical labels: every item has a true
category out of ``n_categories``; each human and the judge report it, except that with probability
``noise_humans`` (``noise_judge``) a label is replaced by a category drawn uniformly (possibly the
true one), so that two humans agree beyond chance with Cohen's κ = (1 − noise)². Two things decide a
real study's verdict besides the judge's quality, and the simulation models both:

- **Items per human.** The alt-test runs one t-test per human over the items that human labelled,
  and leaves out humans with fewer than 30 (the authors' minimum,
  :data:`~humaneval.judges.alttest.MIN_ITEMS`).
  A study rarely has every human label every item: with ``pool_size`` humans of whom ``n_humans``
  label each item, each human labels about ``n_items · n_humans / pool_size`` items. Item *i* goes
  to humans ``(i · n_humans + k) mod pool_size``, ``k < n_humans`` — fixed groups of humans sharing
  blocks of items, as a blocked design has them. Spread over many humans, even 200 items can leave
  no human with 30, and then no judge passes.
- **Numeric labels.** Ratings on a ``1..points`` scale are scored by −RMSE, as the authors do for
  numeric annotations: every item has a true value drawn uniformly on ``[1, points]``; a label is
  that value plus normal noise (SD ``sd_humans``, ``sd_judge``), rounded and clipped to the scale.

For every number of items the alt-test — its per-human t-tests
(:func:`~humaneval.judges.alttest.per_human`) and the Benjamini–Yekutieli correction over the tested
humans — runs on ``n_trials`` simulated data sets; reported are the mean winning rate ω, the mean
advantage probability ρ and how often the judge passes (ω ≥ 0.5): the chance that a study of that
size reaches the verdict "may replace" for a judge of that quality.

References
----------
Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge: How
to Statistically Justify Replacing Human Annotators with LLMs. ACL 2025 (Algorithm 1; −RMSE for
numeric annotations; at least 30 items per annotator; appendix C).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from humaneval.core.docstrings import shared_docs
from humaneval.errors import OptionError
from humaneval.judges.alttest import MIN_ITEMS, per_human, resolve_epsilon
from humaneval.judges.uncertainty import by_rejections
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.printable import Printable, frame_table

__all__ = [
    "LABELS",
    "AltTestSimulation",
    "alt_test_arrays",
    "assignment",
    "numeric_labels",
    "simulate_alt_test",
    "simulated_labels",
]

LabelKind = Literal["categorical", "numeric"]
#: The label kinds the simulation draws: categories (accuracy) or ratings (−RMSE).
LABELS = ("categorical", "numeric")
#: Items × humans × trials cells of indicator arrays handled at once (bounds the memory of a run).
_CHUNK = 2_000_000


@dataclass(frozen=True, eq=False)
class AltTestSimulation(Printable):
    """One row per number of items and ε in ``table``: ``n_items, items_per_human`` (the fewest items
    a human labels), ``humans_tested`` (humans with at least ``min_items``), ``epsilon,
    winning_rate, advantage_probability, pass_rate, pass_ci_low, pass_ci_high`` (exact 95% interval
    of the pass rate); the model's settings beside it."""

    table: pd.DataFrame
    n_humans: int
    pool_size: int
    labels: LabelKind
    n_categories: int
    noise_humans: float
    noise_judge: float
    points: int
    sd_humans: float
    sd_judge: float
    n_trials: int
    min_items: int
    seed: int | None

    @property
    def human_kappa(self) -> float | None:
        """Cohen's κ of two humans under the categorical model, (1 − noise)²; None for numbers."""
        return (1 - self.noise_humans) ** 2 if self.labels == "categorical" else None

    def smallest(self, target: float = 0.8) -> pd.DataFrame:
        """Per ε, the fewest items whose pass rate reaches ``target`` (absent when none does)."""
        reached = self.table[self.table["pass_rate"] >= target]
        return reached.sort_values("n_items").groupby("epsilon", as_index=False).first()

    def blocks(self) -> tuple[Block, ...]:
        """The model in one sentence, the table, and the smallest study passing in 80 % of the sets."""
        if self.labels == "categorical":
            model = (
                f"{self.n_categories} categories scored by accuracy, human noise {self.noise_humans:g} "
                f"(Cohen's κ ≈ {self.human_kappa:.2f}), judge noise {self.noise_judge:g}"
            )
        else:
            model = (
                f"ratings 1–{self.points} scored by −RMSE, human noise SD {self.sd_humans:g}, judge noise "
                f"SD {self.sd_judge:g}"
            )
        head = (
            f"Alt-test simulation (Calderon et al., 2025, appendix C): {self.n_humans} humans per item "
            f"out of {self.pool_size}, {model}; {self.n_trials} simulated data sets per size."
        )
        out: list[Block] = [Paragraph((head,)), frame_table(self.table, list(self.table.columns))]
        lines = [
            (f"ε = {row.epsilon:g}: {row.n_items} items pass in ≥ 80% of the data sets",)
            for row in self.smallest().itertuples()
        ]
        short = self.table[self.table["items_per_human"] < self.min_items]
        if len(short):
            lines.append(
                (
                    f"at {', '.join(map(str, sorted(short['n_items'].unique())))} items some humans label "
                    f"fewer than {self.min_items} items and are left out of the t-tests (none left: the "
                    "judge cannot pass); add items or give each human more of them",
                )
            )
        if lines:
            out.append(Bullets(tuple(lines)))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_humans": self.n_humans,
            "pool_size": self.pool_size,
            "labels": self.labels,
            "n_categories": self.n_categories,
            "noise_humans": self.noise_humans,
            "noise_judge": self.noise_judge,
            "human_kappa": self.human_kappa,
            "points": self.points,
            "sd_humans": self.sd_humans,
            "sd_judge": self.sd_judge,
            "n_trials": self.n_trials,
            "min_items": self.min_items,
            "seed": self.seed,
            "results": self.table.to_dict(orient="records"),
        }


@shared_docs
def simulate_alt_test(
    n_items: Sequence[int] = (30, 50, 75, 100, 150, 200),
    *,
    n_humans: int = 3,
    pool_size: int | None = None,
    labels: LabelKind = "categorical",
    n_categories: int = 4,
    noise_humans: float = 0.3,
    noise_judge: float = 0.3,
    points: int = 5,
    sd_humans: float = 0.8,
    sd_judge: float = 0.8,
    epsilons: Sequence[float] = (0.1, 0.15, 0.2),
    n_trials: int = 500,
    q: float = 0.05,
    min_items: int = MIN_ITEMS,
    seed: int | None = 1,
) -> AltTestSimulation:
    """Simulate the alt-test at several numbers of items (see the module docstring for the model).

    Parameters
    ----------
    n_items : sequence of int
        Numbers of items, each labelled by ``n_humans`` humans and the judge.
    n_humans : int
        Humans per item (at least 2; the authors recommend 3 or more).
    pool_size : int, optional
        Humans in the study (default ``n_humans``: every human labels every item).
    labels : {"categorical", "numeric"}
        Categories scored by accuracy, or ratings on ``1..points`` scored by −RMSE.
    n_categories, noise_humans, noise_judge :
        The categorical model: categories, and the probability in [0, 1] that a label is replaced by
        a uniformly drawn category.
    points, sd_humans, sd_judge :
        The numeric model: scale points, and the SD of the normal noise added to the true value.
    epsilons : sequence of float
        The ε values to test at.
    n_trials : int
        Simulated data sets per size.
    q : float
        Benjamini–Yekutieli false-discovery rate.
    min_items : int
        %(min_items)s
    seed : int, optional
        Seed of the simulation.

    Returns
    -------
    AltTestSimulation

    Examples
    --------
    A judge as noisy as the humans passes a 3-human study of 100 items most of the time at ε = 0.2;
    the same 100 items spread over 12 humans give each 25 items, too few for any t-test:

    >>> sim = simulate_alt_test([100], epsilons=[0.2], n_trials=200, seed=1)
    >>> bool(sim.table.at[0, "pass_rate"] > 0.5), round(sim.human_kappa, 2)
    (True, 0.49)
    >>> spread = simulate_alt_test([100], pool_size=12, epsilons=[0.2], n_trials=20).table.iloc[0]
    >>> int(spread.items_per_human), int(spread.humans_tested), float(spread.pass_rate)
    (25, 0, 0.0)
    """
    sizes = [int(n) for n in n_items]
    pool = n_humans if pool_size is None else pool_size
    _check(sizes, n_humans, pool, labels, n_categories, points, n_trials)
    for name, value in (("noise_humans", noise_humans), ("noise_judge", noise_judge)):
        if not 0 <= value <= 1:
            raise OptionError(f"{name} {value} must lie in [0, 1]")
    for name, value in (("sd_humans", sd_humans), ("sd_judge", sd_judge)):
        if not 0 <= value < 1e6:
            raise OptionError(f"{name} {value} must be a non-negative noise SD")
    eps = [resolve_epsilon(e) for e in epsilons]
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        present = assignment(n, n_humans, pool)
        if labels == "categorical":
            h, j = simulated_labels(rng, n_trials, n, pool, n_categories, noise_humans, noise_judge)
        else:
            h, j = numeric_labels(rng, n_trials, n, pool, points, sd_humans, sd_judge)
        per_human_items = present.sum(axis=0)
        for e in eps:
            omega, rho = alt_test_arrays(
                h, j, e, q, present=present, numeric=labels == "numeric", min_items=min_items
            )
            passes = int((omega >= 0.5).sum())
            low, high = proportion_confint(passes, n_trials, alpha=0.05, method="beta")
            rows.append(
                {
                    "n_items": n,
                    "items_per_human": int(per_human_items.min()),
                    "humans_tested": int((per_human_items >= min_items).sum()),
                    "epsilon": e,
                    "winning_rate": float(omega.mean()),
                    "advantage_probability": float(rho.mean()) if np.isfinite(rho).all() else np.nan,
                    "pass_rate": passes / n_trials,
                    "pass_ci_low": float(low),
                    "pass_ci_high": float(high),
                }
            )
    return AltTestSimulation(
        table=pd.DataFrame(rows),
        n_humans=n_humans,
        pool_size=pool,
        labels=labels,
        n_categories=n_categories,
        noise_humans=noise_humans,
        noise_judge=noise_judge,
        points=points,
        sd_humans=sd_humans,
        sd_judge=sd_judge,
        n_trials=n_trials,
        min_items=min_items,
        seed=seed,
    )


def _check(
    sizes: list[int], n_humans: int, pool: int, labels: str, n_categories: int, points: int, n_trials: int
) -> None:
    if not sizes or min(sizes) < 2:
        raise OptionError("the numbers of items must be at least 2, e.g. 30,50,100")
    if n_humans < 2:
        raise OptionError(f"the alt-test needs at least 2 humans per item, not {n_humans}")
    if pool < n_humans:
        raise OptionError(f"the pool of {pool} humans is smaller than the {n_humans} humans per item")
    if labels not in LABELS:
        raise OptionError(f"labels {labels!r}: use categorical or numeric")
    if n_categories < 2:
        raise OptionError(f"at least 2 categories are needed, not {n_categories}")
    if points < 2:
        raise OptionError(f"a rating scale needs at least 2 points, not {points}")
    if n_trials < 1:
        raise OptionError("n_trials must be at least 1")


def assignment(n_items: int, n_humans: int, pool_size: int) -> np.ndarray:
    """Items × humans: item *i* labelled by humans ``(i · n_humans + k) mod pool_size``, ``k < n_humans``.

    Examples
    --------
    >>> assignment(4, 2, 4).astype(int).tolist()
    [[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1]]
    """
    present = np.zeros((n_items, pool_size), dtype=bool)
    rows = np.repeat(np.arange(n_items), n_humans)
    present[rows, (rows * n_humans + np.tile(np.arange(n_humans), n_items)) % pool_size] = True
    return present


def simulated_labels(rng, trials, n, humans, k, noise_humans, noise_judge) -> tuple[np.ndarray, np.ndarray]:
    """Category codes of appendix C's model: humans ``trials × n × humans``, the judge ``trials × n × 1``."""
    truth = rng.integers(0, k, (trials, n, 1))
    h = np.where(
        rng.random((trials, n, humans)) < noise_humans, rng.integers(0, k, (trials, n, humans)), truth
    )
    j = np.where(rng.random((trials, n, 1)) < noise_judge, rng.integers(0, k, (trials, n, 1)), truth)
    return h, j


def numeric_labels(rng, trials, n, humans, points, sd_humans, sd_judge) -> tuple[np.ndarray, np.ndarray]:
    """Ratings ``1..points``: a true value uniform on ``[1, points]`` plus normal noise, rounded and
    clipped; humans ``trials × n × humans``, the judge ``trials × n × 1`` (floats holding whole numbers)."""
    truth = rng.uniform(1, points, (trials, n, 1))
    h = np.clip(np.rint(truth + rng.normal(0, sd_humans, (trials, n, humans))), 1, points)
    j = np.clip(np.rint(truth + rng.normal(0, sd_judge, (trials, n, 1))), 1, points)
    return h, j


def alt_test_arrays(
    h: np.ndarray,
    j: np.ndarray,
    epsilon: float,
    q: float = 0.05,
    *,
    present: np.ndarray | None = None,
    numeric: bool = False,
    min_items: int = 2,
) -> tuple[np.ndarray, np.ndarray]:
    """ω and ρ of many simulated studies at once: what :func:`~humaneval.judges.alttest.alt_test`
    computes for each.

    ``h``: ``studies × items × humans`` labels (category codes, or whole-number ratings with
    ``numeric``), ``j``: ``studies × items × 1``; ``present``: items × humans, who labelled what
    (default: everyone everything). Accuracy or −RMSE against the other humans of each item, the
    per-human one-sided t-tests against ``epsilon`` over the humans with at least ``min_items`` items,
    Benjamini–Yekutieli at ``q``. ρ is the mean over the tested humans (NaN when none is tested, and
    ω is then 0).
    """
    trials, n, humans = h.shape
    present = np.ones((n, humans), dtype=bool) if present is None else present
    tested = present.sum(axis=0) >= min_items
    omega, rho = np.zeros(trials), np.full(trials, np.nan)
    if not tested.any():
        return omega, rho
    step = max(1, _CHUNK // (n * humans))
    for start in range(0, trials, step):
        part = slice(start, start + step)
        judge_ok, human_ok = _indicators(h[part], j[part], present, numeric)
        # per_human takes items × humans × judges: the studies stand in for judges (one assignment)
        rho_h, _, _, p, _ = per_human(
            present, judge_ok.transpose(1, 2, 0), human_ok.transpose(1, 2, 0), epsilon
        )
        omega[part] = by_rejections(p[tested], q) / tested.sum()
        rho[part] = rho_h[tested].mean(axis=0)
    return omega, rho


def _indicators(
    h: np.ndarray, j: np.ndarray, present: np.ndarray, numeric: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Judge-at-least-as-good and human-at-least-as-good, studies × items × humans (False where absent)."""
    w = present[None].astype(float)
    if numeric:  # squared differences to the other humans; whole numbers, so equality is exact
        m = present.sum(axis=1)[None, :, None].astype(float)
        filled = np.where(present[None], h, 0.0)
        s1 = filled.sum(axis=2, keepdims=True)
        s2 = (filled**2).sum(axis=2, keepdims=True)
        human_loss = m * filled**2 - 2 * filled * s1 + s2
        judge_loss = (m * j**2 - 2 * j * s1 + s2) - (j - filled) ** 2
    else:  # agreeing others: one count per category, less the human itself
        k = int(max(h.max(), j.max())) + 1
        counts = (np.eye(k)[h] * w[..., None]).sum(axis=2)  # studies × items × categories
        human_loss = -(np.take_along_axis(counts, h, axis=2) - 1)
        judge_loss = -(np.take_along_axis(counts, np.broadcast_to(j, h.shape), axis=2) - (h == j))
    keep = present[None]
    return (judge_loss <= human_loss) & keep, (human_loss <= judge_loss) & keep
