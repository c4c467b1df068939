"""Benchmark of the Monte-Carlo simulation (issue 9 targets).

1. The full Fig. 3.6 sweep: 8 designs × 1000 trials under the null coherence model, paired t-test
   and ART (R = 1000) on judgements and on per-document means (4 tests), plus ARTagg, on 2 worker
   processes. Target: < 2 minutes on 2 cores. The reference is the straightforward implementation
   (``scipy.stats.ttest_rel`` per pair, ART with a fresh float64 ±1 matrix from ``rng.choice`` per
   pair, default BLAS threading), timed on a subset of trials and extrapolated.
2. One power design point (20×5×3) with the maximal CLMM (native engine): a few replicates on
   2 workers, extrapolated to 1000. Target: < 30 minutes on 2 cores.

    .venv/bin/python benchmarks/bench_simulate.py [--clmm-trials 8]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from humaneval.model import default_model, sample_scores
from humaneval.simulate import SimDesign, simulate, sweep
from humaneval.simulate.designs import pair_differences, system_pairs
from humaneval.simulate.procedures import clmm_available

DESIGNS = [
    SimDesign(b, d, 3) for b, d in [(1, 100), (2, 50), (4, 25), (5, 20), (10, 10), (20, 5), (50, 2), (100, 1)]
]


def reference_trial(model, design: SimDesign, rng: np.random.Generator) -> list[float]:
    """One trial the obvious way: scipy t-test and a per-pair float64 ART."""
    system, groups = design.group_codes(5)
    scores = sample_scores(model, system, groups, rng).reshape(
        design.blocks, design.annotators, design.docs, 5
    )
    pvalues = []
    for level in ("none", "document"):
        delta = pair_differences(scores.astype(float), level, system_pairs(5))
        for row in delta:
            pvalues.append(stats.ttest_1samp(row, 0.0).pvalue)
            signs = rng.choice([-1.0, 1.0], size=(1000, row.size))
            count = (np.abs(signs @ row) >= abs(row.sum()) * (1 - 1e-12)).sum()
            pvalues.append((count + 1) / 1001)
    return pvalues


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--reference-trials", type=int, default=20, help="trials per design for the reference")
    args.add_argument("--clmm-trials", type=int, default=8)
    opts = args.parse_args()
    model = default_model().with_effects(0.0)

    start = time.perf_counter()
    table = sweep(DESIGNS, model, tests=("ttest", "art", "artagg"), trials=1000, seed=1, workers=2)
    ours = time.perf_counter() - start
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for design in DESIGNS:
        for _ in range(opts.reference_trials):
            reference_trial(model, design, rng)
    reference = (time.perf_counter() - start) / opts.reference_trials * 1000
    rates = table.pivot_table(index="total_annotators", columns=["test", "aggregate"], values="rate")
    print(rates.round(3).to_string())
    print(f"Fig. 3.6 sweep, 8 designs x 1000 trials, 2 workers: ours {ours:.1f} s (target < 120 s)")
    print(
        f"reference (1 process, extrapolated from {opts.reference_trials} trials/design): {reference:.0f} s"
    )
    print(f"ratio: {reference / ours:.1f}x faster")

    if clmm_available("native") and opts.clmm_trials:
        start = time.perf_counter()
        result = simulate(default_model(), "20x5x3", ("clmm",), trials=opts.clmm_trials, seed=1, workers=2)
        elapsed = time.perf_counter() - start
        per_1000 = elapsed / opts.clmm_trials * 1000 / 60
        print(
            f"maximal CLMM power point 20x5x3, {opts.clmm_trials} replicates on 2 workers: {elapsed:.1f} s "
            f"-> {per_1000:.1f} min per 1000 replicates (target < 30 min); rungs {result.rungs}"
        )


if __name__ == "__main__":
    main()
