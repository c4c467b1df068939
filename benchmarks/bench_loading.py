"""Loading benchmark: ``load_ratings`` + ``prepare_clmm_data`` against the floor of reading the file.

The reference Likert study (1,500 ratings) is repeated 64 and 256 times with annotators and
documents renamed per copy (96,000 and 384,000 rows, written once to a temporary folder). Ours is
validation plus CLMM coding; the floor is ``pandas.read_csv`` plus ``pandas.factorize`` of the three
id columns. Both get one warm-up and ``--repeats`` timed calls (CPU seconds, best and median).

A wide file (20 ratings, 100,000 columns, 4.7 MB) is timed the same way against the floor of reading it
with the csv module; before issue 33 it took over a minute.

    python benchmarks/bench_loading.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import csv
import tempfile
from pathlib import Path

import pandas as pd
from _common import setting, shared_data, timed

from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.core.ratings import load_ratings


def enlarged(source: pd.DataFrame, copies: int, folder: Path) -> Path:
    parts = [
        source.assign(
            annotator=source["annotator"].astype(str) + f"_{i}", document=source["document"] + f"_{i}"
        )
        for i in range(copies)
    ]
    path = folder / f"likert_{len(source) * copies}.csv"
    pd.concat(parts).to_csv(path, index=False)
    return path


def ours(path: Path):
    return prepare_clmm_data(load_ratings(path))


def floor(path: Path):
    frame = pd.read_csv(path)
    return [pd.factorize(frame[c]) for c in ("annotator", "document", "system")]


def wide(folder: Path, columns: int = 100_000, rows: int = 20) -> Path:
    header = ["annotator", "document", "system", "score"] + [f"x{k}" for k in range(columns - 4)]
    lines = [",".join(header)] + [
        ",".join([f"a{r % 3}", f"d{r}", "AB"[r % 2], str(1 + r % 5)] + ["1"] * (columns - 4))
        for r in range(rows)
    ]
    path = folder / "wide.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def csv_floor(path: Path):
    with path.open(newline="") as handle:
        return list(csv.reader(handle))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(setting())
    source = pd.read_csv(shared_data("steen2021", "likert_coherence_cnn_dm.csv"))
    with tempfile.TemporaryDirectory() as tmp:
        for copies in (64, 256):
            path = enlarged(source, copies, Path(tmp))
            a = timed(lambda p=path: ours(p), args.repeats)
            b = timed(lambda p=path: floor(p), args.repeats)
            print(
                f"{len(source) * copies:7d} rows: load_ratings + prepare_clmm_data {a} | read_csv + "
                f"factorize {b} | ratio {a.best_cpu / b.best_cpu:.1f}x the floor"
            )
        path = wide(Path(tmp))
        a = timed(lambda: load_ratings(path), args.repeats)
        b = timed(lambda: csv_floor(path), args.repeats)
        print(f"100,000 columns: load_ratings {a} | csv.reader {b} | ratio {a.best_cpu / b.best_cpu:.1f}x")


if __name__ == "__main__":
    main()
