"""How many human ratings with a judge, planned from a real pilot: SummEval coherence with BARTScore.

What ``humaneval budget --judge-pilot human.csv --judge-file bartscore.csv --target-width 0.5
--judge-cost 0.002`` computes (docs/ppi.md, "How many human ratings"): the pilot's within-system SD
of a summary's human score σ, the judge's SD σ_f and their correlation ρ (each system's mean
removed), then the cheapest numbers of human-rated (n) and judge-only (N) summaries whose 95 %
interval for a system mean is at most 0.5 wide, a judge score costing 1/500 of a human rating. Beside
it, the plan a planner that ignores PPI++'s cap λ ≤ 1 would make (the judge on the humans' scale,
σ_f = σ), and the realised width of each plan in simulated studies with the pilot's σ, ρ and σ_f.
Writes ``ppi_budget_summeval.md`` to ``--out``.

    python simulations/ppi_budget_summeval.py
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.core.judge_scores import read_judge_scores
from humaneval.core.ratings import load_ratings
from humaneval.ppi.budget import judged_pilot_relation, ppi_budget
from humaneval.ppi.mean import ppi_mean

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data" / "summeval-coherence-scores"
WIDTH, JUDGE_COST = 0.5, 0.002


def realised_width(sd: float, rho: float, sd_f: float, n: int, big_n: int, trials: int, seed: int) -> float:
    """Mean width of ppi_mean's 95 % interval over studies of bivariate normal scores."""
    rng = np.random.default_rng(seed)
    cov = [[sd**2, rho * sd * sd_f], [rho * sd * sd_f, sd_f**2]]
    widths = []
    for _ in range(trials):
        draw = rng.multivariate_normal([0.0, 0.0], cov, size=n + big_n)
        est = ppi_mean(draw[:n, 0], draw[:n, 1], draw[n:, 1])
        widths.append(est.ci_high - est.ci_low)
    return float(np.mean(widths))


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--trials", type=int, default=1000)
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--out", type=Path, default=HERE / "output")
    opts = args.parse_args()
    human = pd.read_csv(DATA / "human.csv").rename(
        columns={"doc": "document", "summarizer": "system", "Qcoherence": "score"}
    )
    human["annotator"] = "rater-" + human["document"]  # one rating per summary
    judge = pd.read_csv(DATA / "bartscore.csv")
    judge.columns = ["document", "system", "score"]
    pilot = load_ratings(human, continuous=True).data
    sd, rho, sd_f = judged_pilot_relation(pilot, None, read_judge_scores(judge.assign(judge="BARTScore")))
    plans = {
        "the pilot's σ_f (λ ≤ 1)": ppi_budget(
            sd, rho, human_cost=1.0, judge_cost=JUDGE_COST, target_width=WIDTH, judge_sd=sd_f, seed=opts.seed
        ),
        "σ_f = σ (λ free)": ppi_budget(
            sd, rho, human_cost=1.0, judge_cost=JUDGE_COST, target_width=WIDTH, judge_sd=sd, seed=opts.seed
        ),
    }
    lines = [
        f"SummEval coherence, BARTScore as the judge: σ = {sd:.3f}, σ_f = {sd_f:.3f}, ρ = {rho:.3f} "
        f"(ρσ = {rho * sd:.3f}); target width {WIDTH}, a judge score costing {JUDGE_COST} of a human rating.",
        "",
        "| planned with | n | N | cost | humans alone: n | saving | realised width (BARTScore's σ_f) |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, plan in plans.items():
        width = realised_width(sd, rho, sd_f, plan.n, plan.big_n, opts.trials, opts.seed)
        saving = 1 - plan.cost / plan.human_only_cost
        lines.append(
            f"| {label} | {plan.n} | {plan.big_n} | {plan.cost:.2f} | {plan.human_only_n} | "
            f"{100 * saving:.0f} % | {width:.3f} |"
        )
    opts.out.mkdir(parents=True, exist_ok=True)
    (opts.out / "ppi_budget_summeval.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
