"""How many human ratings with this judge: the cheapest (n, N) reaching a target width or power.

With PPI++'s tuned λ, the variance of the mean from ``n`` human-rated units and ``N`` judge-only
units is (Angelopoulos, Duchi & Zrnic 2023; Broska, Howes & van Loon 2024)

    V(n, N) = σ² / n · (1 − ρ² · N / (n + N)),

σ the SD of the human scores of a unit and ρ their correlation with the judge's: the effective
number of human-rated units is n (n + N) / (n + (1 − ρ²) N). That needs the optimal
λ* = ρσ / (σ_f (1 + n/N)), σ_f the judge's SD; PPI++ clips λ to [0, 1], so a judge on a compressed
scale (σ_f < ρσ) cannot reach it, and the plan then uses the variance at λ = 1,

    V(n, N) = σ_f² / N + (σ² − 2ρσσ_f + σ_f²) / n.

A human rating of a unit costs ``human_cost`` (all its annotators), a judge score ``judge_cost``, and
the judge scores every unit: the cost is ``human_cost · n + judge_cost · (n + N)`` (humans alone:
``human_cost · n``). A target interval width W at confidence 1 − α asks for V ≤ (W / 2z)²; a target
power 1 − β against a difference δ asks for V ≤ (δ / (z_{1−α/2} + z_{1−β}))². For every n from the
smallest that can reach the target with unlimited judge scores to the human-only n, the least N is
found by bisection (V falls with N); the cheapest pair wins, and a simulation of bivariate normal
scores with (σ, σ_f, ρ) checks its width (or power) and coverage.

A unit is what the target is about: a summary for a system mean, a document (two summaries) for a
paired difference; σ and ρ come from a pilot (:func:`pilot_relation`) or are given.

References
----------
Broska, D., Howes, M. & van Loon, A. (2024). The mixed subjects design: treating large language
models as (potentially) informative observations. SocArXiv j3bnt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.errors import OptionError
from humaneval.ppi.checks import check_magnitudes, check_units
from humaneval.present.document import Block, Column, Table
from humaneval.present.printable import Printable

__all__ = ["PPIBudget", "pilot_relation", "ppi_budget"]


@dataclass(frozen=True, repr=False)
class PPIBudget(Printable):
    """The cheapest (n, N) and the human-only n for the same target, with the simulated check."""

    sd: float
    correlation: float
    judge_sd: float
    human_cost: float
    judge_cost: float
    target: str
    variance_bound: float
    n: int
    big_n: int
    cost: float
    n_effective: float
    human_only_n: int
    human_only_cost: float
    simulated_width: float
    simulated_coverage: float
    simulated_power: float | None
    trials: int

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` schema of ``humaneval budget --judge-correlation/--judge-pilot`` (docs/ppi.md)."""
        return {
            "sd": self.sd,
            "correlation": self.correlation,
            "judge_sd": self.judge_sd,
            "human_cost": self.human_cost,
            "judge_cost": self.judge_cost,
            "target": self.target,
            "n": self.n,
            "N": self.big_n,
            "cost": self.cost,
            "n_effective": self.n_effective,
            "human_only_n": self.human_only_n,
            "human_only_cost": self.human_only_cost,
            "simulated_width": self.simulated_width,
            "simulated_coverage": self.simulated_coverage,
            "simulated_power": self.simulated_power,
            "trials": self.trials,
        }

    def brief(self) -> str:
        """``n = 39 + N = 503, cost 44.42 (humans alone 97.00)``, the ``repr``."""
        alone = f"humans alone {self.human_only_cost:.2f}"
        return f"n = {self.n} + N = {self.big_n}, cost {self.cost:.2f} ({alone})"

    def blocks(self) -> tuple[Block, ...]:
        """The target and the pilot's σ and ρ, the cheapest plan, the human-only plan and the simulated
        check, one fact each."""
        saving = 1 - self.cost / self.human_only_cost if self.human_only_cost > 0 else 0.0
        power = "" if self.simulated_power is None else f", power {self.simulated_power:.3f}"
        facts = (
            (
                "target",
                f"{self.target}; human SD {self.sd:.3f}, judge SD {self.judge_sd:.3f}, judge–human "
                f"correlation {self.correlation:.3f}",
            ),
            (
                "cheapest",
                f"n = {self.n} human-rated units + N = {self.big_n} judge-only units, cost {self.cost:.2f} "
                f"(effective n {self.n_effective:.1f})",
            ),
            (
                "humans alone",
                f"n = {self.human_only_n}, cost {self.human_only_cost:.2f} "
                f"(the judge saves {100 * saving:.0f} %)",
            ),
            (
                f"simulated ({self.trials} studies)",
                f"mean width {self.simulated_width:.4f}, coverage {self.simulated_coverage:.3f}{power}",
            ),
        )
        return (Table((Column("what"), Column("value")), facts, facts=True),)


def pilot_relation(human: np.ndarray, judge: np.ndarray) -> tuple[float, float]:
    """σ of the human scores and their correlation with the judge's, from a pilot's paired units."""
    human, judge = np.asarray(human, float), np.asarray(judge, float)
    ok = np.isfinite(human) & np.isfinite(judge)
    if ok.sum() < 10:
        raise OptionError(
            f"the pilot has {int(ok.sum())} units with human and judge scores; give at least 10"
        )
    if np.ptp(judge[ok]) == 0 or np.ptp(human[ok]) == 0:
        raise OptionError("the pilot's human or judge scores are constant: no correlation to plan with")
    return float(np.std(human[ok], ddof=1)), float(np.corrcoef(human[ok], judge[ok])[0, 1])


def judged_pilot_relation(
    pilot: pd.DataFrame, judge: str | None, judge_scores: pd.DataFrame | None = None
) -> tuple[float, float, float]:
    """:func:`pilot_relation` of a pilot ratings table with judge rows (or ``judge_scores``): each
    summary's mean human score against the judge's, both centred per system, since a system mean's
    variance is about the spread within a system; third, the judge's SD (centred the same way)."""
    from humaneval.ppi.items import judged_items
    from humaneval.ppi.judged import split_judge

    humans, judged, name = split_judge(pilot, judge, judge_scores)
    items = judged_items(humans, judged, judge_name=name).table.dropna(subset=["human"])
    within = items.groupby("system")[["human", "judge"]].transform(lambda v: v - v.mean())
    sd, correlation = pilot_relation(within["human"].to_numpy(), within["judge"].to_numpy())
    return sd, correlation, float(np.std(within["judge"].to_numpy(), ddof=1))


def ppi_budget(
    sd: float,
    correlation: float,
    *,
    human_cost: float,
    judge_cost: float,
    target_width: float | None = None,
    target_power: float | None = None,
    effect: float | None = None,
    confidence_level: float = 0.95,
    max_units: int | None = None,
    trials: int = 2000,
    seed: int | None = 0,
    judge_sd: float | None = None,
) -> PPIBudget:
    """The cheapest numbers of human-rated and judge-only units reaching a target width or power.

    Parameters
    ----------
    sd, correlation : float
        SD of a unit's human score and its correlation with the judge's score.
    human_cost, judge_cost : float
        Cost of the human rating(s) of one unit and of one judge score.
    target_width : float, optional
        Full width of the interval to reach.
    target_power, effect : float, optional
        Power to reach against a true difference ``effect`` (two-sided test at 1 − ``confidence_level``).
    confidence_level : float
    max_units : int, optional
        At most this many units in the pool (n + N).
    trials, seed
        Of the simulation check.
    judge_sd : float, optional
        SD of the judge's scores (default: ``sd``, a judge on the humans' scale). Below ρ·sd, PPI++'s
        λ ≤ 1 binds and the plan uses the variance at λ = 1.

    Examples
    --------
    Human SD 1, a judge correlated 0.8, a judge score costing 1 % of a human rating, interval width 0.4:

    >>> plan = ppi_budget(1.0, 0.8, human_cost=1.0, judge_cost=0.01, target_width=0.4, trials=500)
    >>> plan.human_only_n, plan.n, plan.big_n
    (97, 39, 503)
    >>> abs(plan.simulated_coverage - 0.95) < 0.02, plan.simulated_width <= 0.4
    (True, True)
    """
    if (target_width is None) == (target_power is None):
        raise OptionError("give a target width or a target power (with the effect), not both")
    if not 0 <= abs(correlation) < 1:
        raise OptionError(f"correlation {correlation}: give a number strictly between -1 and 1")
    if not (sd > 0 and human_cost > 0 and judge_cost >= 0):
        raise OptionError("the SD and the human cost must be positive and the judge cost not negative")
    sd_f = float(sd if judge_sd is None else judge_sd)
    if not (math.isfinite(sd_f) and sd_f > 0):
        raise OptionError(f"judge SD {judge_sd}: give a positive number")
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    check_magnitudes({"--sd": sd, "--judge-sd": judge_sd, "--target-width": target_width, "--effect": effect})
    if not 1e-6 <= sd_f / sd <= 1e6:  # the simulation's covariance is then singular: width 0, coverage 1
        raise OptionError(
            f"--judge-sd {sd_f:g} is {sd_f / sd:.3g} times --sd {sd:g}; the two SDs must lie within a "
            "factor of 10^6 of each other: rescale the judge's scores"
        )
    if target_width is not None:
        if not target_width > 0:
            raise OptionError(f"target width {target_width}: give a positive number")
        bound = (target_width / (2 * z)) ** 2
        label = f"{100 * confidence_level:g}% interval width ≤ {target_width:g}"
    else:
        if effect is None or target_power is None or not effect > 0 or not 0 < target_power < 1:
            raise OptionError("a target power needs a power in (0, 1) and a positive --effect")
        bound = (effect / (z + stats.norm.ppf(target_power))) ** 2
        label = f"power ≥ {target_power:g} against a difference of {effect:g} (α = {1 - confidence_level:g})"
    rho2 = correlation**2
    check_units(sd**2 / bound if bound > 0 else math.inf, label)
    human_only = math.ceil(sd**2 / bound - 1e-9)
    n_low = max(2, math.floor(sd**2 * (1 - rho2) / bound) + 1)
    best = (human_only * human_cost, human_only, 0)
    for n in range(n_low, human_only):
        big_n = _least_judge_units(sd, correlation, sd_f, n, bound)
        if big_n is None or (max_units is not None and n + big_n > max_units):
            continue
        cost = human_cost * n + judge_cost * (n + big_n)
        if cost < best[0]:
            best = (cost, n, big_n)
    cost, n, big_n = best
    n_effective = sd**2 / _variance(sd, correlation, sd_f, n, big_n) if big_n else float(n)
    width, coverage, power = _simulate(sd, correlation, sd_f, n, big_n, effect, z, trials, seed)
    return PPIBudget(
        sd=float(sd),
        correlation=float(correlation),
        judge_sd=sd_f,
        human_cost=float(human_cost),
        judge_cost=float(judge_cost),
        target=label,
        variance_bound=float(bound),
        n=n,
        big_n=big_n,
        cost=float(cost),
        n_effective=float(n_effective),
        human_only_n=human_only,
        human_only_cost=float(human_only * human_cost),
        simulated_width=width,
        simulated_coverage=coverage,
        simulated_power=power if target_power is not None else None,
        trials=trials,
    )


def _variance(sd: float, rho: float, sd_f: float, n: int, big_n: int) -> float:
    """Variance of the PPI++ mean at the best λ in [0, 1] (the tuned λ's limit)."""
    lam = min(max(rho * sd / (sd_f * (1 + n / big_n)), 0.0), 1.0)
    return lam**2 * sd_f**2 / big_n + (sd**2 - 2 * lam * rho * sd * sd_f + lam**2 * sd_f**2) / n


def _least_judge_units(sd: float, rho: float, sd_f: float, n: int, bound: float) -> int | None:
    """The least N with V(n, N) ≤ bound (None when no N reaches it); V falls with N."""
    high = 1 << 40
    if _variance(sd, rho, sd_f, n, high) > bound:
        return None
    low = 1
    while low < high:
        mid = (low + high) // 2
        if _variance(sd, rho, sd_f, n, mid) <= bound:
            high = mid
        else:
            low = mid + 1
    return low


def _simulate(sd, rho, sd_f, n, big_n, effect, z, trials, seed) -> tuple[float, float, float]:
    """Mean width, coverage and (against ``effect``) power of the PPI++ interval over ``trials``
    studies of bivariate normal (human, judge) scores; the human-only interval when N = 0."""
    rng = np.random.default_rng(seed)
    shift = effect or 0.0
    cov = [[sd**2, rho * sd * sd_f], [rho * sd * sd_f, sd_f**2]]
    draws = rng.multivariate_normal([shift, 0.0], cov, size=(trials, n + big_n))
    y, f, g = draws[:, :n, 0], draws[:, :n, 1], draws[:, n:, 1]
    if big_n == 0:
        estimate, se = y.mean(1), y.std(1) / np.sqrt(n)
    else:
        fg = np.concatenate([f, g], axis=1)
        cov_yf = ((y - y.mean(1, keepdims=True)) * (f - f.mean(1, keepdims=True))).mean(1)
        lam = np.clip(cov_yf / ((1 + n / big_n) * fg.var(1, ddof=1)), 0, 1)[:, None]
        rect = y - lam * f
        estimate = lam[:, 0] * g.mean(1) + rect.mean(1)
        se = np.sqrt(lam[:, 0] ** 2 * g.var(1) / big_n + rect.var(1) / n)
    covered = np.abs(estimate - shift) <= z * se
    rejected = np.abs(estimate) > z * se
    return float(np.mean(2 * z * se)), float(covered.mean()), float(rejected.mean())
