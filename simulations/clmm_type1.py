"""The Type I error of the CLMM analysis itself on the Fig. 3.6 designs (never shown in the dissertation).

Coherence model with all β = 0, 100 documents × 3 judgements, 3 annotators per block; each replicate
fits the maximal CLMM with the native engine and the fallback ladder and tests every pair with an
unadjusted z test (spec §5.4, §6.4). Failed fits are counted separately. Writes ``clmm_type1.csv``
and ``clmm_type1.png``.

    python simulations/clmm_type1.py --clmm-trials 200 --workers 2
"""

from __future__ import annotations

from common import FIXED_BUDGET, checkpoints, parser, plot_series, without_failures

from humaneval.simulate import SimDesign, sweep


def main() -> None:
    args = parser(__doc__.splitlines()[0], trials=0, clmm_trials=60).parse_args()
    designs = [SimDesign(b, d, 3) for b, d in FIXED_BUDGET]
    table = sweep(
        designs,
        tests=("clmm",),
        null=True,
        trials=args.clmm_trials,
        seed=args.seed,
        workers=args.workers,
        resume=args.resume,
        checkpoint_dir=checkpoints(args.out, "clmm_type1"),
        progress=True,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    table.drop(columns=["pair", "true_difference"]).to_csv(args.out / "clmm_type1.csv", index=False)
    plot_series(
        without_failures(table, "CLMM, failed fits excluded"),
        "total_annotators",
        args.out / "clmm_type1.png",
        ylabel="Type I error (α = 0.05, unadjusted)",
        xlabel="total annotators (100 documents × 3 judgements)",
        title=f"CLMM Type I error, native maximal fits, {args.clmm_trials} trials per design",
        hline=0.05,
    )
    print(table[["total_annotators", "rate", "mc_se", "n_failed", "rate_successful", "rungs"]].to_string())


if __name__ == "__main__":
    main()
