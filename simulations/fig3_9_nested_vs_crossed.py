"""Fig. 3.9: nested vs crossed designs at an equal judgement budget (spec §6.5).

Coherence model with its fitted β; nested designs have 1 annotator per block and 3B blocks,
crossed designs 3 annotators per block and B blocks, both with 5 documents per block, so both
collect 5·B·3 judgements per system. The nested analysis fits (system|annotator), the crossed one
the maximal CLMM (native engine); ARTagg runs on block means. The reference study's R results are
overlaid when the obspower files are available. Writes ``fig3_9_nested_vs_crossed.csv`` and ``.png``.

    python simulations/fig3_9_nested_vs_crossed.py --trials 1000 --clmm-trials 100 --workers 2
"""

from __future__ import annotations

import pandas as pd
from common import checkpoints, parser, plot_series, published_power, reference_series

from humaneval.simulate import SimDesign, sweep

CROSSED_BLOCKS = [1, 5, 10, 15, 20]


def main() -> None:
    args = parser(__doc__.splitlines()[0], trials=1000, clmm_trials=40).parse_args()
    families = {
        "nested": [SimDesign(3 * b, 5, 1) for b in CROSSED_BLOCKS],
        "crossed": [SimDesign(b, 5, 3) for b in CROSSED_BLOCKS],
    }
    common = dict(seed=args.seed, workers=args.workers, resume=args.resume, progress=True)
    frames = []
    for family, designs in families.items():
        frames.append(
            sweep(
                designs,
                tests=("artagg",),
                trials=args.trials,
                **common,
                checkpoint_dir=checkpoints(args.out, f"fig3_9_artagg_{family}"),
            ).assign(series=f"ARTagg, {family}")
        )
        if not args.no_clmm:
            frames.append(
                sweep(
                    designs,
                    tests=("clmm",),
                    trials=args.clmm_trials,
                    **common,
                    checkpoint_dir=checkpoints(args.out, f"fig3_9_clmm_{family}"),
                ).assign(series=f"CLMM (native), {family}")
            )
    reference = published_power(args.obspower)
    if reference is not None:
        ref = reference[reference["docs"] == 5]
        for annotators, family in ((1, "nested"), (3, "crossed")):
            part = ref[ref["annotators"] == annotators]
            frames.append(reference_series(part, f"CLMM (R) reference study, {family}"))
    table = pd.concat(frames, ignore_index=True)
    table["judgements_per_system"] = table["blocks"] * table["docs"] * table["annotators"]
    args.out.mkdir(parents=True, exist_ok=True)
    table.drop(columns=["pair", "true_difference"], errors="ignore").to_csv(
        args.out / "fig3_9_nested_vs_crossed.csv", index=False
    )
    plot_series(
        table,
        "judgements_per_system",
        args.out / "fig3_9_nested_vs_crossed.png",
        ylabel="power (correct direction, α = 0.05)",
        xlabel="judgements per system",
        title="Fig. 3.9: nested vs crossed at equal budget, coherence model",
    )
    print(
        table.pivot_table(index="judgements_per_system", columns="series", values="rate").round(3).to_string()
    )


if __name__ == "__main__":
    main()
