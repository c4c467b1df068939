"""Vectorised meta-evaluation bootstrap versus a plain Python loop over scipy (issue 10, spec §3.2).

1000 ``both`` resamples (systems and documents) of τ_sum, τ_pair and τ_intra (Kendall τ_b) on
the 17 × 100 SummEval matrix (``human.csv`` gold, ``bartscore.csv`` metric) when the shared data
is present, else on a random 17 × 100 matrix of the same kind. The loop reference evaluates
``--loop-resamples`` resamples per level with ``scipy.stats.kendalltau`` on the resampled matrix
and is extrapolated to 1000. Target: ours < 3 s for the three levels together; ≤ 2 s for one
level (τ_pair or τ_intra). Values of ours and the loop agree on the resamples the loop ran.

    .venv/bin/python benchmarks/bench_metaeval.py [--resamples 1000] [--loop-resamples 20]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy import stats

from humaneval.metaeval import align, read_scores
from humaneval.metaeval.bootstrap import draw_counts, level_samples, resample_indices

DATA = Path(__file__).resolve().parents[2] / "shared/data/summeval-coherence-scores"


def matrices() -> tuple[np.ndarray, np.ndarray, str]:
    if (DATA / "human.csv").exists():
        scores = align(read_scores(DATA / "human.csv"), {"b": read_scores(DATA / "bartscore.csv")})
        return scores.human, scores.metrics["b"], "SummEval human.csv × bartscore.csv"
    rng = np.random.default_rng(0)
    H = rng.integers(1, 6, (17, 100)).astype(float)
    return H, H + rng.normal(scale=2, size=H.shape), "random 17 × 100 (shared data absent)"


def loop(H, P, rows, cols, level: str) -> np.ndarray:
    out = []
    for r, c in zip(rows, cols, strict=True):
        Hb, Pb = H[r][:, c], P[r][:, c]
        if level == "sum":
            out.append(stats.kendalltau(Hb.ravel(), Pb.ravel()).statistic)
        elif level == "pair":
            out.append(
                np.nanmean([stats.kendalltau(Hb[:, d], Pb[:, d]).statistic for d in range(Hb.shape[1])])
            )
        else:
            out.append(np.nanmean([stats.kendalltau(Hb[s], Pb[s]).statistic for s in range(Hb.shape[0])]))
    return np.array(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=20)
    args = parser.parse_args()
    H, P, label = matrices()
    print(f"data: {label}; {args.resamples} resamples, mode both")
    rows, cols = resample_indices(*H.shape, "both", args.resamples, seed=0)
    n, m = draw_counts(rows, H.shape[0]), draw_counts(cols, H.shape[1])
    levels = ("sum", "pair", "intra")
    level_samples(H, P, levels, n[:10], m[:10])  # warm-up (imports, BLAS threads)
    start = time.perf_counter()
    ours_all = level_samples(H, P, levels, n, m)
    total = time.perf_counter() - start
    print(f"ours, three levels together: {total:.2f} s (target < 3 s)")
    k = args.loop_resamples
    loop_total = 0.0
    for level in levels:
        start = time.perf_counter()
        level_samples(H, P, (level,), n, m)
        ours = time.perf_counter() - start
        start = time.perf_counter()
        ref = loop(H, P, rows[:k], cols[:k], level)
        per = (time.perf_counter() - start) / k
        loop_total += per * args.resamples
        agree = np.max(np.abs(ref - ours_all[level][:k]))
        print(
            f"tau_{level:<6} ours {ours:6.2f} s | scipy loop {per * args.resamples:7.1f} s "
            f"(extrapolated from {k}) | {per * args.resamples / ours:6.0f}x | max |diff| {agree:.1e}"
        )
    print(f"all three: ours {total:.2f} s vs loop {loop_total:.1f} s -> {loop_total / total:.0f}x")


if __name__ == "__main__":
    main()
