"""Benchmark of the study report and the end-to-end demo (issue 12 targets).

1. ``humaneval demo`` with its defaults (EACL design, native CLMM, 5000 KALPHA resamples, 1000
   splits, 200 ARTagg + 20 CLMM power replicates). Target: < 3 minutes on 2 cores.
2. The report on the reference Likert data, stage by stage (the calls ``build_report`` makes), with
   the demo's power settings.

    .venv/bin/python benchmarks/bench_report.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import setting, shared_data

from humaneval.core.ratings import load_ratings
from humaneval.demo import run_demo
from humaneval.report import ReportSettings, build_report, write_report

TARGET_SECONDS = 180.0


def main() -> None:
    likert = shared_data("steen2021", "likert_coherence_cnn_dm.csv")  # stop before the demo when absent
    print(setting(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        stages: list[tuple[float, str]] = []
        run_demo(Path(tmp) / "demo", progress=lambda msg: stages.append((time.perf_counter(), msg.strip())))
        total = time.perf_counter() - start
        print(
            f"demo: {total:.1f} s (target {TARGET_SECONDS:.0f} s: {total / TARGET_SECONDS:.2f} of the budget)"
        )
        previous = start
        for at, msg in stages:
            print(f"  +{at - previous:5.1f} s  {msg[:90]}")
            previous = at
        print(f"  +{time.perf_counter() - start - (previous - start):5.1f} s  (writing the report)")
        ratings = load_ratings(likert)
        for label, settings in [
            ("no power note", ReportSettings(engine="native", power_trials=0)),
            ("ARTagg power only", ReportSettings(engine="native", clmm_power_trials=0)),
            ("default power (200 ARTagg + 20 CLMM)", ReportSettings(engine="native")),
        ]:
            start = time.perf_counter()
            report = build_report(ratings, settings=settings)
            built = time.perf_counter() - start
            write_report(report, Path(tmp) / "likert")
            print(
                f"reference Likert report, {label}: {built:.1f} s to build, "
                f"{time.perf_counter() - start - built:.1f} s to write"
            )


if __name__ == "__main__":
    main()
