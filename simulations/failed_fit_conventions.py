"""Power of the maximal CLMM under the three failed-fit conventions, beside the reference study's R runs.

Coherence model, crossed designs B × 5 × 3 (the reference power files' crossed series). One run per
design with the fallback ladder (``--failed-fits rescue``) gives all three conventions: ``rescue``
(rescued fits count with the simpler rung), ``miss`` (a failed maximal fit counts as not significant,
the convention of the reference files) and ``exclude`` (power among successful maximal fits). The
reference series are the power files' "power" (failed R fits as p = 1) and "among successful fits".
Writes ``failed_fit_conventions.csv`` and ``.png``.

    python simulations/failed_fit_conventions.py --clmm-trials 200 --workers 2
"""

from __future__ import annotations

import pandas as pd
from common import checkpoints, parser, plot_series, published_power

from humaneval.simulate import SimDesign, sweep

BLOCKS = (5, 10, 15, 20)


def main() -> None:
    args = parser(__doc__.splitlines()[0], trials=0, clmm_trials=200).parse_args()
    designs = [SimDesign(b, 5, 3) for b in BLOCKS]
    table = sweep(
        designs,
        tests=("clmm",),
        trials=args.clmm_trials,
        seed=args.seed,
        workers=args.workers,
        resume=args.resume,
        progress=True,
        checkpoint_dir=checkpoints(args.out, "failed_fit_conventions"),
    )
    n = table["n_trials"]
    frames = [
        table.assign(
            series=f"native, {name}", rate=table[f"rate_{name}"], mc_se=_se(table[f"rate_{name}"], n)
        )
        for name in ("rescue", "miss", "exclude")
    ]
    reference = published_power(args.obspower)
    if reference is not None:
        ref = reference[(reference["annotators"] == 3) & (reference["docs"] == 5)]
        ref = ref[ref["blocks"].isin(BLOCKS)]
        for column, label in (("power", "miss"), ("power_successful", "exclude")):
            frames.append(
                ref.assign(
                    series=f"R reference, {label}",
                    rate=ref[column],
                    mc_se=_se(ref[column], ref["iterations"]),
                    n_trials=ref["iterations"],
                    n_failed=ref["failed_iterations"],
                )
            )
    columns = ["blocks", "total_annotators", "series", "rate", "mc_se", "n_trials", "n_failed"]
    out = pd.concat([f[columns] for f in frames], ignore_index=True)
    args.out.mkdir(parents=True, exist_ok=True)
    out.to_csv(args.out / "failed_fit_conventions.csv", index=False)
    plot_series(
        out,
        "total_annotators",
        args.out / "failed_fit_conventions.png",
        ylabel="power (correct direction, α = 0.05)",
        xlabel="total annotators (B blocks × 5 documents × 3 annotators)",
        title="Maximal CLMM: failed fits rescued, missed or excluded",
    )
    print(out.pivot_table(index="blocks", columns="series", values="rate").round(3).to_string())


def _se(rate: pd.Series, n: pd.Series) -> pd.Series:
    return (rate * (1 - rate) / n) ** 0.5


if __name__ == "__main__":
    main()
