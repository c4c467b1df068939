"""Rank confidence sets and the pairwise report at arena size (issue 41).

Cases (CPU seconds, one warm-up then ``--repeats`` timed calls; see benchmarks/_common.py):

- :func:`humaneval.ranks.rank_sets`, marginal and simultaneous, at the default 10,000 draws and at
  100,000, for 10, 50 and 100 systems (estimates 0, 0.05, … with standard errors 0.1, so that most
  neighbours are undecided and the stepdown runs several steps). No reference runs here: csranks (R)
  is not installable on this machine; its numbers are checked in tests/test_ranks.py instead.
- ``humaneval report --style-columns len_diff`` end to end on a simulated arena table: 10 systems,
  5,000 judgements (two rows each) by 200 annotators, one prompt per judgement, a verbosity covariate
  with γ = 1, every default (power step included, bounded by ``--power-minutes``); one timed run,
  CPU of the process and its children.

Usage: ``python benchmarks/bench_ranks.py [--repeats 3] [--skip report]``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks._common import setting, timed
from humaneval.ranks.estimates import rank_sets


def arena_table(path: Path, n: int = 5000, n_sys: int = 10, seed: int = 41) -> None:
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.9, -0.9, n_sys)
    a = rng.integers(0, n_sys, n)
    b = (a + rng.integers(1, n_sys, n)) % n_sys
    annotator = rng.integers(0, 200, n)
    deviation = rng.normal(0, 0.3, (200, n_sys))
    length = rng.normal(0, 1, n)
    eta = theta[a] - theta[b] + deviation[annotator, a] - deviation[annotator, b] + length
    won = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float)
    names = np.array([f"model-{k:02d}" for k in range(n_sys)])
    rows = pd.DataFrame(
        {
            "annotator": np.char.add("w", annotator.astype(str)),
            "document": np.char.add("p", np.arange(n).astype(str)),
            "system": names[a],
            "opponent": names[b],
            "score": won,
            "len_diff": length,
        }
    )
    mirror = rows.assign(system=rows["opponent"], opponent=rows["system"], score=1 - won, len_diff=-length)
    pd.concat([rows, mirror], ignore_index=True).to_csv(path, index=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip", nargs="*", default=[])
    args = parser.parse_args()
    print(setting())
    if "sets" not in args.skip:
        for n in (10, 50, 100):
            x = np.arange(n) * 0.05
            se = np.full(n, 0.1)
            for draws in (10_000, 100_000):
                if n == 100 and draws == 100_000:
                    continue  # 100 × 99 pairs × 1e5 draws per step: minutes, not a default
                for kind in ("marginal", "simultaneous"):
                    call = partial(rank_sets, x, se=se, kind=kind, draws=draws)
                    result = timed(call, args.repeats)
                    print(f"rank_sets {kind:<12} {n:>3} systems, {draws:>7} draws: {result}")
    if "report" not in args.skip:
        with tempfile.TemporaryDirectory() as folder:
            table = Path(folder) / "arena.csv"
            arena_table(table)
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wall = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "humaneval", "report", str(table), "--style-columns", "len_diff",
                 "--out", str(Path(folder) / "report")],
                check=True, capture_output=True,
            )  # fmt: skip
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            peak = after.ru_maxrss / 1024
            print(
                f"report --style-columns len_diff, arena 10 systems × 5,000 judgements: CPU {cpu:.1f} s, "
                f"wall {time.perf_counter() - wall:.1f} s, peak RSS {peak:.0f} MB"
            )


if __name__ == "__main__":
    main()
