"""Coverage of the 95 % intervals of a system mean: PPI++ (normal), human-only (normal) and PPBoot.

Each study has n human-rated documents and N = 4n documents only the judge scored (humans on 20 %
of the pool), one system, one annotator per summary. A summary's latent quality is a document
effect (SD 0.6) plus noise (SD 0.7) around 3.0 (symmetric criterion) or 4.6 (ceiling-heavy: most
ratings are 5s); the human rating is the latent value plus the annotator's bias (SD 0.3) and noise
(SD 0.5), rounded and clipped to 1–5 (the model of :func:`humaneval.ppi.simulate.judged_study`).
The judge sees the latent value with noise SD 0.5 (good) or sees nothing (useless: pure noise).
The target is the population mean human rating (from 2,000,000 simulated summaries). Writes
``ppi_coverage.csv`` and ``ppi_coverage.md`` to ``--out``; ``ppi_coverage_blocks.{csv,md}`` hold a block
design (5 documents × 3 annotators per block, each annotator's bias shared by the block: the clusters are
blocks) with 4–32 human-rated blocks (``--blocks-only`` runs just these).

    python simulations/ppi_coverage.py --studies 1000 --resamples 500
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.ppi.bootstrap import ppboot_intervals
from humaneval.ppi.mean import ppi_mean

HERE = Path(__file__).resolve().parent
SIZES = (20, 40, 80, 200)


def draw(rng: np.random.Generator, size: int, ceiling: bool, good: bool) -> tuple[np.ndarray, np.ndarray]:
    latent = (4.6 if ceiling else 3.0) + rng.normal(0, 0.6, size) + rng.normal(0, 0.7, size)
    human = np.clip(np.rint(latent + rng.normal(0, 0.3, size) + rng.normal(0, 0.5, size)), 1, 5)
    judge = latent + rng.normal(0, 0.5, size) if good else rng.normal(0, 1, size)
    return human, judge


def scenario(
    n: int, ceiling: bool, good: bool, studies: int, resamples: int, seed: int, truth: float
) -> dict:
    rng = np.random.default_rng(seed)
    hits = {"ppi": 0, "human": 0, "ppboot": 0}
    widths = {"ppi": 0.0, "human": 0.0, "ppboot": 0.0}
    skews = []
    for study in range(studies):
        y, f_all = draw(rng, 5 * n, ceiling, good)
        y, f, g = y[:n], f_all[:n], f_all[n:]
        est = ppi_mean(y, f, g)
        codes = np.arange(5 * n)
        ((low, high),) = ppboot_intervals(
            [(y, f, codes[:n], g, codes[n:])], 5 * n, n_resamples=resamples, seed=seed * 100_000 + study
        )
        for name, (a, b) in {
            "ppi": (est.ci_low, est.ci_high),
            "human": (est.human_ci_low, est.human_ci_high),
            "ppboot": (low, high),
        }.items():
            hits[name] += a <= truth <= b
            widths[name] += b - a
        sd = y.std()
        skews.append(0.0 if sd == 0 else float(np.mean((y - y.mean()) ** 3) / sd**3))
    return {
        "n": n,
        "N": 4 * n,
        "criterion": "ceiling-heavy" if ceiling else "symmetric",
        "judge": "good" if good else "useless",
        **{f"coverage_{k}": v / studies for k, v in hits.items()},
        **{f"width_{k}": v / studies for k, v in widths.items()},
        "median_skewness": float(np.median(skews)),
        "studies": studies,
    }


def block_scenario(blocks: int, studies: int, resamples: int, seed: int, truth: float) -> dict:
    """Coverage of system s0's intervals in a block design: ``blocks`` blocks of 5 documents × 3
    annotators rated by humans (annotator biases shared within a block) among 5× as many documents;
    and its gain: the median reported against the Monte Carlo gain V(human-only) / V(PPI++) over the
    studies, and how often the gain's interval holds the Monte Carlo gain."""
    from humaneval.ppi import ppi_systems
    from humaneval.ppi.simulate import judged_study

    hits = {"ppi": 0, "human": 0, "ppboot": 0}
    estimates, humans, gains, bounds = [], [], [], []
    for study in range(studies):
        human, judge = judged_study(
            n_documents=25 * blocks,
            n_systems=2,
            human_share=0.2,
            n_annotators=3,
            docs_per_block=5,
            seed=seed * 100_000 + study,
        )
        row = ppi_systems(human, judge, adjust="none", n_resamples=resamples, seed=study).systems.iloc[0]
        hits["ppi"] += row["ci_low"] <= truth <= row["ci_high"]
        hits["human"] += row["human_ci_low"] <= truth <= row["human_ci_high"]
        hits["ppboot"] += row["boot_ci_low"] <= truth <= row["boot_ci_high"]
        estimates.append(row["estimate"])
        humans.append(row["human_estimate"])
        gains.append(row["gain"])
        bounds.append((row["gain_low"], row["gain_high"]))
    monte_carlo = float(np.var(humans) / np.var(estimates))
    low, high = np.array(bounds).T
    return {
        "blocks": blocks,
        "documents": 5 * blocks,
        **{f"coverage_{k}": v / studies for k, v in hits.items()},
        "gain_monte_carlo": monte_carlo,
        "gain_median": float(np.median(gains)),
        "gain_interval_coverage": float(np.mean((low <= monte_carlo) & (monte_carlo <= high))),
    }


def markdown(table: pd.DataFrame) -> str:
    lines = [
        "| criterion | judge | n | N | PPI++ | human-only | PPBoot | width PPI++ / human | median skewness |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.criterion} | {r.judge} | {r.n} | {r.N} | {r.coverage_ppi:.3f} | {r.coverage_human:.3f} | "
            f"{r.coverage_ppboot:.3f} | {r.width_ppi / r.width_human:.2f} | {r.median_skewness:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--studies", type=int, default=1000)
    args.add_argument("--resamples", type=int, default=500)
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--out", type=Path, default=HERE / "output")
    args.add_argument("--blocks-only", action="store_true", help="only the block-design scenarios")
    opts = args.parse_args()
    opts.out.mkdir(parents=True, exist_ok=True)
    blocks(opts)
    if opts.blocks_only:
        return
    truths = {}
    for ceiling in (False, True):
        y, _ = draw(np.random.default_rng(12345), 2_000_000, ceiling, True)
        truths[ceiling] = float(y.mean())
    rows = []
    started = time.perf_counter()
    for k, (ceiling, good, n) in enumerate(
        (c, g, n) for c in (False, True) for g in (True, False) for n in SIZES
    ):
        rows.append(scenario(n, ceiling, good, opts.studies, opts.resamples, opts.seed + k, truths[ceiling]))
        r = rows[-1]
        print(
            f"{r['criterion']}, {r['judge']} judge, n = {n}: PPI++ {r['coverage_ppi']:.3f}, "
            f"human {r['coverage_human']:.3f}, PPBoot {r['coverage_ppboot']:.3f} "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    table = pd.DataFrame(rows)
    opts.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(opts.out / "ppi_coverage.csv", index=False)
    (opts.out / "ppi_coverage.md").write_text(markdown(table))


def blocks(opts: argparse.Namespace) -> None:
    """The block-design scenarios: clusters are blocks of 5 documents sharing 3 annotators."""
    from humaneval.ppi.simulate import judged_study

    human, _ = judged_study(n_documents=200_000, n_systems=2, human_share=1.0, n_annotators=1, seed=999)
    truth = float(human.loc[human["system"] == "s0", "score"].mean())
    rows = []
    for b in (4, 8, 16, 32):
        rows.append(block_scenario(b, opts.studies // 2, opts.resamples, opts.seed + b, truth))
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(opts.out / "ppi_coverage_blocks.csv", index=False)
    lines = [
        "| human-rated blocks (5 documents × 3 annotators) | documents | PPI++ | human-only | PPBoot "
        "| gain (Monte Carlo) | gain (median reported) | gain interval holds it |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.blocks} | {r.documents} | {r.coverage_ppi:.3f} | {r.coverage_human:.3f} | "
        f"{r.coverage_ppboot:.3f} | {r.gain_monte_carlo:.2f} | {r.gain_median:.2f} | "
        f"{r.gain_interval_coverage:.2f} |"
        for r in table.itertuples()
    ]
    (opts.out / "ppi_coverage_blocks.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
