"""Coverage of the comparative models' 95 % intervals when annotators have their own preferences.

Pairwise (Bradley–Terry) and best–worst (MaxDiff) studies of 10 blocks × 5 documents × 3 annotators
(30 annotators, 50 documents; every pair of 4 systems per document, or 10 tuples of 4 of 5 systems
per document) are simulated with annotator × system deviations of SD 0.5 or 1.0 on the logit scale
(and, in one scenario, document × system deviations of SD 0.5). Every study is fitted once and the
Wald interval of every pair is checked under each standard-error scheme against the pooled model's
probability limit (see :mod:`humaneval.comparative.calibration`). Writes
``comparative_coverage.csv`` (per scenario and variant) and ``comparative_coverage.md``.

    python simulations/comparative_coverage.py --studies 400 --n-boot 300

The mixed-effects Bradley–Terry columns (pairwise scenarios only; its target is the simulated
θa − θb) come from

    python simulations/comparative_coverage.py --studies 500 --variants "mixed,mixed, + document,naive" \
        --kinds pairwise --out simulations/output/mixed
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from humaneval.comparative.calibration import VARIANTS, Scenario, coverage, coverage_table

HERE = Path(__file__).resolve().parent
PAIRWISE = (0.6, 0.2, 0.0, -0.8)
BWS = (0.6, 0.2, 0.0, -0.3, -0.5)
SCENARIOS = [
    Scenario("pairwise", PAIRWISE, 0.5),
    Scenario("pairwise", PAIRWISE, 1.0),
    Scenario("pairwise", PAIRWISE, 1.0, document_sd=0.5),
    Scenario("bws", BWS, 0.5),
    Scenario("bws", BWS, 1.0),
    Scenario("bws", BWS, 1.0, document_sd=0.5),
]


def label(s: Scenario) -> str:
    return f"{s.kind}, annotator SD {s.annotator_sd:g}, document SD {s.document_sd:g}"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--studies", type=int, default=400)
    args.add_argument("--n-boot", type=int, default=300)
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--out", type=Path, default=HERE / "output")
    args.add_argument("--resume", action="store_true", help="keep scenarios finished by an earlier run")
    args.add_argument(
        "--variants",
        default=None,
        help="comma-separated variant names (default: all): " + ", ".join(v[0] for v in VARIANTS),
    )
    args.add_argument("--kinds", default="pairwise,bws", help="scenario kinds to run")
    opts = args.parse_args()
    names = [v[0] for v in VARIANTS]
    chosen = VARIANTS
    if opts.variants:
        wanted = _split_variants(opts.variants, names)
        chosen = tuple(v for v in VARIANTS if v[0] in wanted)
    parts = opts.out / "checkpoints" / "comparative_coverage"
    parts.mkdir(parents=True, exist_ok=True)
    tables = []
    scenarios = [(k, s) for k, s in enumerate(SCENARIOS) if s.kind in opts.kinds.split(",")]
    for k, scenario in scenarios:
        path = parts / f"scenario{k}.csv"
        if not (opts.resume and path.exists()):
            results = coverage(
                scenario, opts.studies, opts.n_boot, seed=opts.seed + k, variants=chosen, progress=True
            )
            coverage_table(results).reset_index().assign(scenario=label(scenario)).to_csv(path, index=False)
        tables.append(pd.read_csv(path))
    table = pd.concat(tables, ignore_index=True)
    table.to_csv(opts.out / "comparative_coverage.csv", index=False)
    wide = table.pivot(index="scenario", columns="variant", values="coverage")
    wide = wide[[c for c in table["variant"].unique()]].reindex([label(s) for _, s in scenarios])
    lines = [
        f"Coverage of nominal 95 % intervals, {opts.studies} studies per scenario, "
        f"{opts.n_boot} bootstrap replicates (Monte-Carlo SE about "
        f"{(0.95 * 0.05 / opts.studies) ** 0.5:.3f} at 95 %).",
        "",
        "| scenario | " + " | ".join(wide.columns) + " |",
        "|---|" + "---|" * len(wide.columns),
    ]
    lines += [f"| {name} | " + " | ".join(f"{v:.3f}" for v in row) + " |" for name, row in wide.iterrows()]
    (opts.out / "comparative_coverage.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def _split_variants(text: str, names: list[str]) -> set[str]:
    """Variant names from a comma-separated list (names may contain ", ": matched greedily)."""
    found, rest = set(), text
    while rest:
        match = max((n for n in names if rest.startswith(n)), key=len, default=None)
        if match is None:
            raise SystemExit(f"unknown variant at {rest!r}; use {', '.join(names)}")
        found.add(match)
        rest = rest[len(match) :].lstrip(",").lstrip()
    return found


if __name__ == "__main__":
    main()
