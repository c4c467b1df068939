"""Meta-evaluation: vectorised bootstrap and permutation test versus scipy loops and nlpstats.

Run: ``python benchmarks/bench_metaeval.py`` (needs the reference data and
``pip install 'humaneval[bench]'``). On the 17 × 100 SummEval matrix (``human.csv`` gold):

1. 1000 ``both`` bootstrap resamples of τ_sum, τ_pair and τ_intra (Kendall τ_b, BARTScore)
   against a plain loop over ``scipy.stats.kendalltau``; the loop runs ``--loop-resamples``
   resamples per level and is **extrapolated** to 1000 (it would take minutes).
2. The paired permutation test (1000 ``both`` permutations, Kendall τ_b) at the summary and
   document levels against ``nlpstats.correlations.permutation_test`` with the same number of
   permutations, for a pair of metrics with tied values (BARTScore vs GRUEN: τ_b's normaliser moves
   with the swaps, F(A*) from sorted block tallies) and a tie-free pair (random vs UniEval: a linear
   form). ``--sum-repeats`` sets the timed calls per side at the summary level (default 3).
3. The τ_sum bootstrap curve: 1000 resamples over pools of 1,700 to 13,600 summaries (SummEval
   with its documents repeated and the metric jittered) — ours (the path chosen by the cost
   model), one ``scipy.stats.kendalltau`` per resample, and ``nlpstats.correlations.bootstrap``.

Both sides of every comparison get one untimed warm-up call and the same number of timed calls;
times are CPU seconds (best of the timed calls). Run with one BLAS thread
(``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``) for figures comparable with RESULTS.md.
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial

import numpy as np
from _common import require, setting, shared_data, timed
from scipy import stats

from humaneval.metaeval import align, read_scores
from humaneval.metaeval.bootstrap import (
    draw_counts,
    level_samples,
    resample_indices,
    sum_by_pair_matrix,
)
from humaneval.metaeval.significance import permutation_test

METRICS = ("bartscore", "gruen", "random", "unified-cnndm")


def summeval():
    root = shared_data("summeval-coherence-scores")
    return align(read_scores(root / "human.csv"), {m: read_scores(root / f"{m}.csv") for m in METRICS})


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


def bootstrap_vs_loop(H, P, resamples: int, loop_resamples: int) -> None:
    rows, cols = resample_indices(*H.shape, "both", resamples, seed=0)
    n, m = draw_counts(rows, H.shape[0]), draw_counts(cols, H.shape[1])
    levels = ("sum", "pair", "intra")
    together = timed(lambda: level_samples(H, P, levels, n, m), repeats=3)
    print(f"\n1. bootstrap, {resamples} resamples: three levels in one call {together}")
    k = loop_resamples
    for level in levels:
        ours = timed(lambda lv=level: level_samples(H, P, (lv,), n, m), repeats=3)
        ref = timed(lambda lv=level: loop(H, P, rows[:k], cols[:k], lv), repeats=3)
        per_1000 = ref.best_cpu / k * resamples
        agree = np.max(np.abs(ref.value - ours.value[level][:k]))
        print(
            f"  tau_{level:<6} ours {ours.best_cpu:6.3f} s | scipy loop {per_1000:7.1f} s (EXTRAPOLATED from "
            f"{k} resamples) | {per_1000 / ours.best_cpu:6.0f}x | max |diff| {agree:.1e}"
        )


def permutations_vs_nlpstats(scores, permutations: int, sum_repeats: int = 3) -> None:
    from nlpstats.correlations.permutation import permutation_test as nlp_permutation

    H = scores.human
    print(f"\n2. permutation test, {permutations} 'both' permutations, Kendall tau_b")
    for a, b in (("bartscore", "gruen"), ("random", "unified-cnndm")):
        A, B = scores.metrics[a], scores.metrics[b]
        for level, nlp_level, repeats in (("sum", "global", sum_repeats), ("pair", "input", 1)):
            ours = timed(
                partial(permutation_test, H, A, B, level, n_permutations=permutations, seed=0), repeats
            )
            theirs = timed(
                partial(
                    nlp_permutation,
                    A,
                    B,
                    H,
                    nlp_level,
                    "kendall",
                    "both",
                    alternative="greater",
                    n_resamples=permutations,
                ),
                repeats,
            )
            ratio = theirs.best_cpu / ours.best_cpu
            print(
                f"  {a} vs {b}, {level}: ours {ours.best_cpu:.3f} s (p {ours.value.p_value:.4f}) | nlpstats "
                f"{theirs.best_cpu:.3f} s (p {theirs.value.pvalue:.4f}) | {ratio:.1f}x (n={repeats} each)"
            )


def enlarged(H, P, copies: int, rng: np.random.Generator):
    """SummEval with its documents repeated ``copies`` times; the metric jittered so that copies differ."""
    Hk = np.tile(H, (1, copies))
    Pk = np.tile(P, (1, copies)) + rng.normal(
        scale=1e-3 * np.nanstd(P), size=(H.shape[0], H.shape[1] * copies)
    )
    return Hk, Pk


def tau_sum_curve(H, P, resamples: int) -> None:
    from nlpstats.correlations.bootstrap import bootstrap as nlp_bootstrap

    print(f"\n3. tau_sum bootstrap curve, {resamples} 'both' resamples (1 warm-up + 1 timed call each side)")
    rng = np.random.default_rng(1)
    for copies in (1, 1.5, 2, 2.5, 4, 6, 8):
        whole = int(np.ceil(copies))
        Hk, Pk = enlarged(H, P, whole, rng)
        docs = round(H.shape[1] * copies)
        Hk, Pk = Hk[:, :docs], Pk[:, :docs]
        rows, cols = resample_indices(*Hk.shape, "both", resamples, seed=0)
        n, m = draw_counts(rows, Hk.shape[0]), draw_counts(cols, Hk.shape[1])
        path = "sign matrix" if sum_by_pair_matrix(Hk.size, resamples) else "scipy per resample"
        ours = timed(partial(level_samples, Hk, Pk, ("sum",), n, m), repeats=1)
        ref = timed(partial(loop, Hk, Pk, rows, cols, "sum"), repeats=1)
        theirs = timed(partial(nlp_bootstrap, Pk, Hk, "global", "kendall", "both", n_resamples=resamples), 1)
        print(
            f"  {Hk.size:6d} summaries: ours {ours.best_cpu:6.2f} s ({path}) | scipy loop "
            f"{ref.best_cpu:6.2f} s ({ref.best_cpu / ours.best_cpu:4.1f}x) | nlpstats "
            f"{theirs.best_cpu:6.2f} s "
            f"({theirs.best_cpu / ours.best_cpu:4.1f}x) | max |diff| vs loop "
            f"{np.max(np.abs(ref.value - ours.value['sum'])):.1e}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--loop-resamples", type=int, default=20)
    parser.add_argument(
        "--sum-repeats", type=int, default=3, help="timed calls per side of the tau_sum permutation test"
    )
    parser.add_argument("--skip", nargs="*", default=(), choices=("bootstrap", "permutation", "curve"))
    args = parser.parse_args()
    require("nlpstats")
    print(setting("nlpstats"))
    scores = summeval()
    H, P = scores.human, scores.metrics["bartscore"]
    print("data: SummEval 17 x 100, human.csv gold")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if "bootstrap" not in args.skip:
            bootstrap_vs_loop(H, P, args.resamples, args.loop_resamples)
        if "permutation" not in args.skip:
            permutations_vs_nlpstats(scores, args.resamples, args.sum_repeats)
        if "curve" not in args.skip:
            tau_sum_curve(H, P, args.resamples)


if __name__ == "__main__":
    main()
