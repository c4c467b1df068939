"""Budget planner: the cheapest block design that reaches a target power (docs/simulation.md).

Candidates (B, D, A) from a grid are priced with a linear cost model — annotator time per
judgement plus a fixed recruiting/instruction time per annotator, paid at an hourly wage — and
screened by simulation with a cheap test (default ``artagg``, the ART on independent block means,
for screening). The cheapest candidate whose simulated power reaches the target wins; confirm
it with the CLMM (``simulate(..., tests=("clmm",))``) before running the study.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.clmm.model import OrdinalModel
from humaneval.core.currency import currency_code
from humaneval.core.docstrings import shared_docs
from humaneval.errors import DesignError
from humaneval.present.document import Block, Bullets, Paragraph, Text
from humaneval.present.formatting import fmt_estimate_ci
from humaneval.present.printable import Printable
from humaneval.simulate.designs import SimDesign
from humaneval.simulate.experiment import resolve_model, simulate

#: Fewest documents before the planner warns that document effects dominate (package default).
MIN_DOCUMENTS = 50
#: Fewest independent clusters the planner recommends for aggregated tests (package default).
MIN_CLUSTERS = 15
#: Decimals kept in the candidates table (and budget.csv): cost in currency units to the cent,
#: hours to the second-ish, rates beyond their Monte-Carlo precision.
COST_DIGITS, HOURS_DIGITS, RATE_DIGITS = 2, 4, 4


@dataclass(frozen=True)
class CostModel:
    """Cost of a design: (judgements × seconds_per_judgement + annotators × seconds_per_annotator)
    / 3600 × wage_per_hour, in ``currency``. The default 32 s is the reference study's mean time
    per Likert screen."""

    seconds_per_judgement: float = 32.0
    wage_per_hour: float = 15.0
    seconds_per_annotator: float = 0.0
    currency: str = "USD"

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if name == "currency":
                object.__setattr__(self, "currency", currency_code(value, "cost model currency"))
                continue
            if not np.isfinite(value) or value < 0:
                raise DesignError(f"cost model {name} must be a non-negative number, not {value!r}")

    def hours(self, design: SimDesign, n_systems: int) -> float:
        seconds = design.judgements(n_systems) * self.seconds_per_judgement
        return (seconds + design.total_annotators * self.seconds_per_annotator) / 3600.0

    def cost(self, design: SimDesign, n_systems: int) -> float:
        return self.hours(design, n_systems) * self.wage_per_hour


@dataclass(frozen=True, eq=False)
class BudgetPlan(Printable):
    """Screened candidates (one row per design, cheapest first) and the cheapest one reaching ``target``."""

    candidates: pd.DataFrame
    best: dict[str, Any] | None
    target: float
    test: str
    aggregate: str
    cost_model: CostModel
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "test": self.test,
            "aggregate": self.aggregate,
            "cost_model": asdict(self.cost_model),
            "best": self.best,
            "notes": list(self.notes),
            "candidates": self.candidates.to_dict(orient="records"),
        }

    def blocks(self) -> tuple[Block, ...]:
        """How many designs were screened, the cheapest one reaching the target, and the notes."""
        lines: list[Text] = [
            (
                f"{len(self.candidates)} designs screened with {self.test} ({self.aggregate}), "
                f"target power {self.target:g}; cost at {self.cost_model.wage_per_hour:g} "
                f"{self.cost_model.currency}/h, {self.cost_model.seconds_per_judgement:g} s per judgement",
            )
        ]
        if self.best is not None:
            b = self.best
            lines.append(
                (
                    f"cheapest: {b['blocks']} blocks × {b['docs']} docs × {b['annotators']} annotators "
                    f"({b['total_annotators']} annotators, {b['judgements']} judgements, "
                    f"cost {b['cost']:.2f} {self.cost_model.currency}), "
                    f"power {fmt_estimate_ci(b['power'], b['ci_low'], b['ci_high'])}",
                )
            )
        blocks: list[Block] = [Paragraph(line) for line in lines]
        if self.notes:
            blocks.append(Bullets(tuple((f"note: {n}",) for n in self.notes)))
        return tuple(blocks)

    def plot(self, path: str | Path) -> Path:
        """Power vs total annotators, vs judgements and vs cost, one line per annotators-per-block;
        written as ``path`` and as its PNG/SVG/PDF twins."""
        return plot_power_curves(
            self.candidates, path, target=self.target, best=self.best, currency=self.cost_model.currency
        )


@shared_docs
def plan_budget(
    model: OrdinalModel | str | Path | None = None,
    target: float = 0.8,
    *,
    cost_model: CostModel | None = None,
    blocks: Sequence[int] = (6, 10, 15, 20, 30, 45, 60),
    docs: Sequence[int] = (2, 5, 10),
    annotators: Sequence[int] = (1, 2, 3),
    test: str = "artagg",
    aggregate: str | None = None,
    max_cost: float | None = None,
    trials: int = 200,
    seed: int = 1,
    effects: Sequence[float] | dict[str, float] | float | None = None,
    workers: int = 1,
    notes: Sequence[str] = (),
) -> BudgetPlan:
    """Screen every (B, D, A) of the grid within ``max_cost`` and pick the cheapest reaching ``target``.

    Power is the overall correct-direction detection rate of ``test`` at ``aggregate`` (default:
    ``cluster`` for ``artagg``, ``document`` otherwise) with its Monte-Carlo SE.

    Parameters
    ----------
    model : OrdinalModel, path or None
        %(generating_model)s
    target : float
        The power to reach, in (0, 1).
    cost_model : CostModel, optional
        Seconds per judgement, wage and per-annotator overhead (default 32 s at 15 USD/hour).
    blocks, docs, annotators : sequence of int
        The grid of candidate designs B × D × A.
    test : str
        The (cheap) screening test.
    aggregate : str, optional
        Its aggregation level.
    max_cost : float, optional
        Leave out candidates that cost more.
    trials, seed, effects, workers :
        As for :func:`~humaneval.simulate.simulate`.
    notes : sequence of str
        How the model was made (from :func:`~humaneval.simulate.study.plan_study`), kept first in
        the plan's notes.

    Returns
    -------
    BudgetPlan
        ``candidates`` (one row per design, cheapest first, with cost and power), ``best`` (the
        cheapest reaching ``target``, or None) and ``notes``.

    Raises
    ------
    DesignError
        ``target`` outside (0, 1), or no candidate within ``max_cost``.

    Examples
    --------
    >>> plan = plan_budget(None, 0.8, blocks=(6, 10, 15, 20), docs=(5,), annotators=(3,), trials=100)
    >>> plan.candidates[["blocks", "cost", "power"]].values.tolist()
    [[6.0, 60.0, 0.474], [10.0, 100.0, 0.768], [15.0, 150.0, 0.864], [20.0, 200.0, 0.898]]
    >>> plan.best["blocks"], plan.best["cost"], plan.best["power"]
    (15, 150.0, 0.864)
    """
    if not 0 < target < 1:
        raise DesignError(f"target power must lie in (0, 1), not {target}")
    model = resolve_model(model)
    cost_model = cost_model or CostModel()
    aggregate = aggregate or ("cluster" if test == "artagg" else "document")
    n_sys = len(model.system_names)
    grid = [SimDesign(b, d, a) for b, d, a in itertools.product(blocks, docs, annotators)]
    if max_cost is not None:
        grid = [g for g in grid if cost_model.cost(g, n_sys) <= max_cost]
    if not grid:
        raise DesignError("no candidate design fits the budget; raise --max-cost or widen the grid")
    rows = []
    for design in sorted(grid, key=lambda g: cost_model.cost(g, n_sys)):
        result = simulate(
            model,
            design,
            (test,),
            trials=trials,
            seed=seed,
            effects=effects,
            aggregates=(aggregate,),
            workers=workers,
        )
        overall = result.overall().iloc[0]
        rows.append(
            {
                **{k: v for k, v in design.to_dict().items() if k != "family"},
                "family": design.family,
                "judgements": design.judgements(n_sys),
                "hours": round(cost_model.hours(design, n_sys), HOURS_DIGITS),
                "cost": round(cost_model.cost(design, n_sys), COST_DIGITS),
                "power": round(float(overall["rate"]), RATE_DIGITS),
                "mc_se": round(float(overall["mc_se"]), RATE_DIGITS),
                "ci_low": round(float(overall["ci_low"]), RATE_DIGITS),
                "ci_high": round(float(overall["ci_high"]), RATE_DIGITS),
                "n_failed": int(overall["n_failed"]),
            }
        )
    candidates = pd.DataFrame(rows)
    reached = candidates[candidates["power"] >= target]
    best = None if reached.empty else {k: _plain(v) for k, v in reached.iloc[0].items()}
    return BudgetPlan(
        candidates, best, target, test, aggregate, cost_model, (*notes, *_notes(best, test, target))
    )


def design_costs(design: str | Path) -> dict[str, Any]:
    """Seconds per screen, hourly wage and currency of a design written by ``humaneval design``
    (its manifest's cost estimate); empty for a bare table without manifest.

    Examples
    --------
    >>> design_costs("no-such-design.csv")
    {}
    """
    from humaneval.design.load import load_design
    from humaneval.design.plan import Design
    from humaneval.errors import HumanEvalError

    try:
        loaded = load_design(design)
    except (HumanEvalError, OSError):
        return {}
    cost = loaded.summary().cost if isinstance(loaded, Design) else None
    if cost is None:
        return {}
    return {"seconds": cost.seconds_per_screen, "wage": cost.hourly_wage, "currency": cost.currency}


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _notes(best: dict[str, Any] | None, test: str, target: float) -> tuple[str, ...]:
    if best is None:
        return (f"no candidate reaches power {target:g}; add blocks or documents, or raise --max-cost",)
    notes = []
    if best["total_documents"] < MIN_DOCUMENTS:
        notes.append(
            f"only {best['total_documents']} documents: with crossed document effects more annotators "
            f"cannot compensate; prefer at least {MIN_DOCUMENTS}"
        )
    if test != "clmm" and best["blocks"] < MIN_CLUSTERS:
        notes.append(f"{best['blocks']} blocks: aggregated tests want at least {MIN_CLUSTERS} clusters")
    notes.append("screened with a cheap test; confirm the best 2-3 designs with the maximal CLMM")
    return tuple(notes)


def plot_power_curves(
    candidates: pd.DataFrame,
    path: str | Path,
    target: float | None = None,
    best: dict[str, Any] | None = None,
    currency: str | None = None,
) -> Path:
    """Three panels of power (95 % Clopper–Pearson intervals) against total annotators, judgements and cost in
    ``currency``; written as ``path`` and its PNG/SVG/PDF twins
    (:func:`humaneval.present.plotting.save_figure`)."""
    from matplotlib import ticker
    from matplotlib.figure import Figure

    from humaneval.present.plotting import CATEGORICAL, LABEL_SIZE, TICK_SIZE, save_figure

    path = Path(path)
    fig = Figure(figsize=(12, 4.0), layout="constrained")
    axes = fig.subplots(1, 3, sharey=True)
    cost_label = f"cost ({currency})" if currency else "cost"
    markers = "osD^v<>p"
    for ax, x, label in zip(
        axes,
        ("total_annotators", "judgements", "cost"),
        ("total annotators", "judgements", cost_label),
        strict=True,
    ):
        for k, ((a, d), group) in enumerate(candidates.groupby(["annotators", "docs"])):
            group = group.sort_values(x)
            ax.errorbar(
                group[x],
                group["power"],
                yerr=[group["power"] - group["ci_low"], group["ci_high"] - group["power"]],
                marker=markers[k % len(markers)],
                color=CATEGORICAL[k % len(CATEGORICAL)],
                ms=3.5,
                capsize=2,
                label=f"A={a}, D={d}",
            )
        if target is not None:
            ax.axhline(target, color="grey", ls="--", lw=1)
        if best is not None:
            ax.plot(best[x], best["power"], marker="*", ms=14, color="black", ls="none")
        ax.set_xlabel(label, fontsize=LABEL_SIZE)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.tick_params(labelsize=TICK_SIZE)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("power (± 1.96 Monte-Carlo SE)", fontsize=LABEL_SIZE)
    axes[0].set_ylim(-0.02, 1.02)
    axes[-1].legend(
        fontsize=TICK_SIZE - 2, ncol=1, loc="lower right", title="annotators, documents per block"
    )
    return save_figure(fig, path, dpi=90)[path.suffix.lower().lstrip(".") or "png"]
