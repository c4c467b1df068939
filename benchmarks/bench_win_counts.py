"""Pairwise comparisons beyond memory: a Parquet (or CSV) file of 10⁷ comparisons read in chunks into win
counts and fitted (``humaneval analyze FILE --win-counts``), with its peak memory.

Writes a simulated arena history (LMArena-style: random pairs of 20 systems, 1,000 annotators, one prompt
per comparison, a tenth of the comparisons also written as mirror rows) chunk by chunk, then runs
:func:`~humaneval.comparative.counts.read_pair_counts` and
:func:`~humaneval.comparative.counts.analyze_counts` in a fresh process and reports its CPU time and peak
RSS (``ru_maxrss``; the goal is < 2 GB). ``--check N`` also compares, on the first N rows written to a
file of their own, the counts path with the in-memory analysis (``analyze_comparative(inference="model")``
of the table read whole): max |Δβ| (goal 1e-10).

Usage: ``nice python benchmarks/bench_win_counts.py [--rows 10000000] [--format parquet|csv]
[--check 1000000]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks._common import setting

CHUNK = 1_000_000
SYSTEMS = 20


def chunk_of(start: int, n: int, rng: np.random.Generator, theta: np.ndarray) -> pd.DataFrame:
    """Comparisons ``start … start + n − 1`` (one prompt each), a tenth also as mirror rows."""
    a = rng.integers(0, SYSTEMS, n)
    b = (a + rng.integers(1, SYSTEMS, n)) % SYSTEMS
    won = (rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))).astype(float)
    names = np.array([f"model-{k:02d}" for k in range(SYSTEMS)])
    rows = pd.DataFrame(
        {
            "annotator": np.char.add("w", rng.integers(0, 1000, n).astype(str)),
            "document": np.char.add("p", np.arange(start, start + n).astype(str)),
            "system": names[a],
            "opponent": names[b],
            "score": won,
        }
    )
    some = rows.iloc[: n // 10]
    mirror = some.assign(system=some["opponent"], opponent=some["system"], score=1 - some["score"])
    return pd.concat([rows, mirror], ignore_index=True)


def write(path: Path, rows: int, fmt: str, seed: int = 1) -> int:
    """Write about ``rows`` rows (comparisons plus mirrors) chunk by chunk; returns the rows written."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, SYSTEMS)
    comparisons = round(rows / 1.1)
    written, writer = 0, None
    for start in range(0, comparisons, CHUNK):
        part = chunk_of(start, min(CHUNK, comparisons - start), rng, theta)
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = pa.Table.from_pandas(part, preserve_index=False)
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
        else:
            part.to_csv(path, mode="a", header=written == 0, index=False)
        written += len(part)
        print(f"  written {written:,} rows", file=sys.stderr, flush=True)
    if writer is not None:
        writer.close()
    return written


CHILD = """
import json, resource, sys, time
from humaneval.comparative.counts import analyze_counts, read_pair_counts
cpu, wall = time.process_time(), time.perf_counter()
counts = read_pair_counts(sys.argv[1], progress=True)
read_cpu = time.process_time() - cpu
result = analyze_counts(counts)
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "read_cpu": read_cpu,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rows": counts.n_rows, "comparisons": counts.n_comparisons,
                  "beta": result.fit.beta.tolist()}))
"""


def run_child(path: Path) -> dict:
    """The counts path in a fresh process (its own peak RSS); the progress bar passes through stderr."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True, check=True
    )
    return json.loads(done.stdout)


def check(rows: int, fmt: str, folder: Path) -> None:
    """Counts from the file against the in-memory analysis of the same table."""
    from humaneval.comparative import analyze_comparative

    path = folder / f"check.{fmt}"
    written = write(path, rows, fmt, seed=2)
    found = run_child(path)
    table = pd.read_parquet(path) if fmt == "parquet" else pd.read_csv(path)
    start = time.process_time()
    memory = analyze_comparative(table, inference="model")
    memory_cpu = time.process_time() - start
    gap = float(np.abs(np.array(found["beta"]) - memory.fit.beta).max())
    print(
        f"check at {written:,} rows: counts from the file {found['cpu']:.2f} s CPU, peak RSS "
        f"{found['rss_mb']:,.0f} MB; in memory (table already read) {memory_cpu:.2f} s CPU; "
        f"max |Δβ| {gap:.1e} (goal 1e-10)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--format", choices=["parquet", "csv"], default="parquet")
    parser.add_argument(
        "--check", type=int, default=1_000_000, help="rows of the in-memory comparison (0: none)"
    )
    parser.add_argument("--keep", type=Path, default=None, help="write the file here and keep it")
    args = parser.parse_args()
    print(setting("pyarrow"), flush=True)
    with tempfile.TemporaryDirectory() as folder:
        path = args.keep or Path(folder) / f"battles.{args.format}"
        per_row = 12 if args.format == "parquet" else 40
        print(
            f"writing about {args.rows:,} rows ({args.rows / 1.1:,.0f} comparisons, a tenth with mirror "
            f"rows) to {path}; about {args.rows * per_row / 2**20:,.0f} MB of {args.format}",
            flush=True,
        )
        start = time.perf_counter()
        written = write(path, args.rows, args.format)
        print(
            f"written {written:,} rows, {path.stat().st_size / 2**20:,.0f} MB, in "
            f"{time.perf_counter() - start:.0f} s",
            flush=True,
        )
        found = run_child(path)
        print(
            f"win counts of {found['rows']:,} rows ({found['comparisons']:,} comparisons, {args.format}): "
            f"{found['cpu']:.1f} s CPU (reading and counting {found['read_cpu']:.1f} s), wall "
            f"{found['wall']:.1f} s, peak RSS {found['rss_mb']:,.0f} MB (goal < 2,048 MB)",
            flush=True,
        )
        if args.check:
            check(args.check, args.format, Path(folder))
    print(setting("pyarrow"), flush=True)


if __name__ == "__main__":
    main()
