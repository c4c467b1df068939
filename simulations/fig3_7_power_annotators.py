"""Fig. 3.7: power vs number of annotators at a fixed 100 documents × 3 judgements (spec §6.5).

Coherence model with its fitted β ("observed power"); designs (B, D) with 3 annotators per block.
Series: ARTagg (ART on block means), the maximal CLMM (native engine, failed fits counted as
non-significant and, separately, excluded), and the reference study's R results read from the
obspower files when available. Writes ``fig3_7_power_annotators.csv`` and ``.png``.

    python simulations/fig3_7_power_annotators.py --trials 1000 --clmm-trials 100 --workers 2
"""

from __future__ import annotations

import pandas as pd
from common import checkpoints, parser, plot_series, published_power, reference_series, without_failures

from humaneval.simulate import SimDesign, sweep

DESIGNS = [(1, 100), (2, 50), (4, 25), (5, 20), (10, 10), (20, 5), (25, 4)]


def main() -> None:
    args = parser(__doc__.splitlines()[0], trials=1000, clmm_trials=40).parse_args()
    designs = [SimDesign(b, d, 3) for b, d in DESIGNS]
    common = dict(seed=args.seed, workers=args.workers, resume=args.resume, progress=True)
    frames = [
        sweep(
            designs,
            tests=("artagg",),
            trials=args.trials,
            **common,
            checkpoint_dir=checkpoints(args.out, "fig3_7_artagg"),
        ).assign(series="ARTagg (blocks)")
    ]
    if not args.no_clmm:
        clmm = sweep(
            designs,
            tests=("clmm",),
            trials=args.clmm_trials,
            **common,
            checkpoint_dir=checkpoints(args.out, "fig3_7_clmm"),
        )
        frames += [clmm.assign(series="CLMM (native)"), without_failures(clmm, "CLMM, failed fits excluded")]
    reference = published_power(args.obspower)
    if reference is not None:
        ref = reference[(reference["annotators"] == 3) & (reference["judgements_per_system"] == 300)]
        frames.append(reference_series(ref, "CLMM (R), reference study"))
    table = pd.concat(frames, ignore_index=True)
    args.out.mkdir(parents=True, exist_ok=True)
    table.drop(columns=["pair", "true_difference"], errors="ignore").to_csv(
        args.out / "fig3_7_power_annotators.csv", index=False
    )
    plot_series(
        table,
        "total_annotators",
        args.out / "fig3_7_power_annotators.png",
        ylabel="power (correct direction, α = 0.05)",
        xlabel="total annotators (100 documents × 3 judgements)",
        title="Fig. 3.7: power vs annotators, coherence model",
    )
    print(table.pivot_table(index="total_annotators", columns="series", values="rate").round(3).to_string())


if __name__ == "__main__":
    main()
