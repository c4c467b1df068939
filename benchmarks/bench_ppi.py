"""Benchmark prediction-powered inference (``humaneval.ppi.ppi_systems``) against a loop over ppi-python.

Run: ``python benchmarks/bench_ppi.py`` (reference side: ``PPI_PYTHON=/tmp/ppivenv/bin/python``, a
scratch environment with ``pip install ppi-python``; it is never installed beside humaneval because
its wheel ships a top-level ``tests`` package).

Data: SummEval coherence (``summeval-coherence-scores``: 17 systems × 100 documents, one human rating
per summary, BARTScore as the judge), its documents repeated 16 times to 1,600 documents per system
(27,200 summaries); the humans' ratings are kept on a seeded 20 % of the documents.

Target (issue 31): system means with 1,000 PPBoot resamples for 17 systems × 1,600 items in < 1 s.
humaneval does the 17 system means and the 136 paired differences, CLT and PPBoot intervals, in one
call; the reference side loops over ``ppi_mean_ci`` for the 17 systems and over
``ppi_mean_pointestimate`` for 1,000 resamples of each (the systems only).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _common import setting, shared_data, timed

from humaneval.ppi import ppi_systems

REFERENCE = r"""
import json, sys, time
import numpy as np, pandas as pd
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
data = pd.read_csv(sys.argv[1]); n_resamples = int(sys.argv[2])
rng = np.random.default_rng(0)
times = []
for repeat in range(int(sys.argv[3])):
    start = time.process_time()
    out = {}
    for system, part in data.groupby("system"):
        lab = part["human"].notna().to_numpy()
        y, f, g = part["human"].to_numpy()[lab], part["judge"].to_numpy()[lab], part["judge"].to_numpy()[~lab]
        low, high = ppi_mean_ci(y, f, g, alpha=0.05)
        boot = [ppi_mean_pointestimate(y[i], f[i], g[j]).item()
                for i, j in ((rng.integers(0, len(y), len(y)), rng.integers(0, len(g), len(g)))
                             for _ in range(n_resamples))]
        out[system] = [float(low[0]), float(high[0]), *np.quantile(boot, [0.025, 0.975]).tolist()]
    times.append(time.process_time() - start)
print(json.dumps({"cpu": times, "systems": out}))
"""


def pool(copies: int, share: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    folder = shared_data("summeval-coherence-scores")
    human = pd.read_csv(folder / "human.csv").rename(columns={"doc": "document", "summarizer": "system"})
    judge = pd.read_csv(folder / "bartscore.csv").rename(columns={"doc": "document", "summarizer": "system"})
    judge = judge.rename(columns={judge.columns[2]: "score"})
    human = human.rename(columns={"Qcoherence": "score"})
    tiles = [
        (h.assign(document=h["document"] + f"#{k}"), j.assign(document=j["document"] + f"#{k}"))
        for k, (h, j) in enumerate([(human, judge)] * copies)
    ]
    human, judge = pd.concat([t[0] for t in tiles]), pd.concat([t[1] for t in tiles])
    docs = np.sort(human["document"].unique())
    rated = np.random.default_rng(seed).choice(docs, round(share * len(docs)), replace=False)
    human = human[human["document"].isin(rated)].assign(annotator=lambda d: "a-" + d["document"])
    return human.reset_index(drop=True), judge.reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=16)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(setting("numpy", "pandas", "scipy"))
    human, judge = pool(args.copies, 0.2, seed=1)
    n_docs = judge["document"].nunique()
    print(
        f"data: {judge['system'].nunique()} systems x {n_docs} documents, humans on "
        f"{human['document'].nunique()} documents (20 %), {args.resamples} PPBoot resamples"
    )
    ours = timed(lambda: ppi_systems(human, judge, n_resamples=args.resamples, seed=0), repeats=args.repeats)
    result = ours.value
    print(f"humaneval ppi_systems (17 systems + 136 pairs, CLT + PPBoot): {ours}")
    python = os.environ.get("PPI_PYTHON", "/tmp/ppivenv/bin/python")
    if not Path(python).exists():
        print(f"reference skipped: no ppi-python interpreter at {python} (set PPI_PYTHON)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        items = judge.merge(
            human.groupby(["document", "system"], as_index=False)["score"].mean(),
            on=["document", "system"],
            how="left",
            suffixes=("_judge", "_human"),
        )
        items = items.rename(columns={"score_judge": "judge", "score_human": "human"})
        items.to_csv(Path(tmp) / "items.csv", index=False)
        repeats = max(1, args.repeats // 5)
        proc = subprocess.run(
            [python, "-c", REFERENCE, str(Path(tmp) / "items.csv"), str(args.resamples), str(repeats)],
            capture_output=True,
            text=True,
            check=True,
        )
    ref = json.loads(proc.stdout)
    best = min(ref["cpu"])
    print(
        f"ppi-python loop (17 x ppi_mean_ci + 17 x {args.resamples} ppi_mean_pointestimate): CPU best "
        f"{best:.3f} s (n={len(ref['cpu'])})"
    )
    print(f"ratio: {best / ours.best_cpu:.0f}x")
    table = result.systems.set_index("system")
    diff = max(
        abs(table.loc[s, "ci_low"] - v[0]) + abs(table.loc[s, "ci_high"] - v[1])
        for s, v in ref["systems"].items()
    )
    print(f"max |Δ CI bound| against ppi_mean_ci: {diff:.1e}")
    boot = max(abs(table.loc[s, "boot_ci_low"] - v[2]) for s, v in ref["systems"].items())
    print(f"max |Δ PPBoot lower bound| (different resampling streams and schemes): {boot:.3f}")


if __name__ == "__main__":
    sys.exit(main())
