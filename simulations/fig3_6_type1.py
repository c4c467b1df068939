"""Fig. 3.6: Type I error of the t-test and the ART vs total annotators (spec §6.4).

Coherence model with all β = 0; 100 documents × 3 judgements in the designs (B, D) of
``FIXED_BUDGET`` with 3 annotators per block (3 … 300 annotators); every pair of the 5 systems is
tested on judgements (no aggregation), on per-document means and on per-block means (ARTagg).
Writes ``fig3_6_type1.csv`` and ``fig3_6_type1.png``.

    python simulations/fig3_6_type1.py --trials 1000 --workers 2
"""

from __future__ import annotations

from common import FIXED_BUDGET, checkpoints, parser, plot_series

from humaneval.simulate import SimDesign, sweep

LABELS = {("ttest", "none"): "t-test", ("ttest", "document"): "t-test, per document"}
LABELS |= {
    ("art", "none"): "ART",
    ("art", "document"): "ART, per document",
    ("artagg", "cluster"): "ARTagg (blocks)",
}


def main() -> None:
    args = parser(__doc__.splitlines()[0], trials=1000).parse_args()
    designs = [SimDesign(b, d, 3) for b, d in FIXED_BUDGET]
    table = sweep(
        designs,
        tests=("ttest", "art", "artagg"),
        aggregates=("none", "document"),
        null=True,
        trials=args.trials,
        seed=args.seed,
        workers=args.workers,
        resume=args.resume,
        checkpoint_dir=checkpoints(args.out, "fig3_6"),
        progress=True,
    )
    table["series"] = [LABELS[(t, a)] for t, a in zip(table["test"], table["aggregate"], strict=True)]
    args.out.mkdir(parents=True, exist_ok=True)
    table.drop(columns=["pair", "true_difference"]).to_csv(args.out / "fig3_6_type1.csv", index=False)
    plot_series(
        table,
        "total_annotators",
        args.out / "fig3_6_type1.png",
        ylabel="Type I error (α = 0.05)",
        xlabel="total annotators (100 documents × 3 judgements)",
        title=f"Fig. 3.6: Type I error, coherence model, {args.trials} trials per design",
        hline=0.05,
    )
    print(table.pivot_table(index="total_annotators", columns="series", values="rate").round(3).to_string())


if __name__ == "__main__":
    main()
