"""Collection-server load benchmark: 200 concurrent simulated participants against uvicorn.

A study of 40 blocks × 5 annotators (200 slots, 12 screens each: 2 documents × 5 systems + 2
attention checks) is served by ``humaneval serve`` in a subprocess on 127.0.0.1; 200
participants start at once and answer every screen. Reported: requests, throughput, p50/p95
latency, lost or duplicated rows, and whether every block holds exactly 5 completions. The
reference is the bare durable-commit rate of SQLite on the same disk (WAL, synchronous=FULL,
one row per transaction): every acknowledged screen costs one such commit, so the ratio
"screens stored per second / bare commits per second" shows how close the server is to that floor.

Run: ``.venv/bin/python benchmarks/bench_serve.py [participants]``
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import tempfile
import time
import warnings
from pathlib import Path

from humaneval.design import DesignSpec, generate_design
from humaneval.forms import placeholder_texts
from humaneval.forms.screens import design_frame
from humaneval.serve import create_study
from humaneval.serve.loadtest import LOAD_STUDY_ID, free_port, run_load, spawn_server
from humaneval.serve.store import connect


def bare_commit_rate(folder: Path, n: int = 300) -> float:
    """Durable single-row transactions per second of plain sqlite3 with the server's pragmas."""
    connection = connect(folder / "bare.sqlite")
    connection.execute("CREATE TABLE t (x INTEGER)")
    started = time.perf_counter()
    for i in range(n):
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT INTO t VALUES (?)", (i,))
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - started
    connection.close()
    return n / elapsed


def main(participants: int = 200) -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench_serve_"))
    annotators = 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = generate_design(
            DesignSpec(
                documents=2 * participants // annotators,
                systems=["A", "B", "C", "D", "E"],
                method="likert",
                documents_per_block=2,
                annotators_per_block=annotators,
                checks_per_annotator=2,
                seed=1,
                platform="prolific",
            )
        )
    study = create_study(
        design,
        folder / "study",
        texts=placeholder_texts(design_frame(design)),
        prolific_study_id=LOAD_STUDY_ID,
    )
    port = free_port()
    process = spawn_server(study.study_dir, port)
    try:
        pids = [f"BENCH{i:04d}" for i in range(participants)]
        report = asyncio.run(run_load(f"http://127.0.0.1:{port}", study.key, pids, deadline_s=300))
    finally:
        process.kill()
        process.wait()
    connection = sqlite3.connect(study.db_path)
    rows = connection.execute(
        "SELECT COUNT(*), COUNT(DISTINCT participant || '/' || screen_index) FROM response"
    )
    total, distinct = rows.fetchone()
    blocks = connection.execute("SELECT SUM(state = 'complete') FROM slot GROUP BY block").fetchall()
    connection.close()
    summary = report.to_dict()
    screens_per_s = total / report.elapsed
    bare = bare_commit_rate(folder)
    print(f"participants: {participants}, slots: {study.slots}, screens per slot: 12")
    print(f"completed: {summary['completed']}, refused: {summary['refused']}, gave up: {summary['gave_up']}")
    print(
        f"requests: {summary['requests']} in {report.elapsed:.2f} s = {summary['throughput_rps']:.0f} req/s"
    )
    print(
        f"latency p50: {summary['p50_ms']:.0f} ms, p95: {summary['p95_ms']:.0f} ms "
        f"(all {participants} at once)"
    )
    print(f"lost: {len(report.acked) - total}, duplicated: {total - distinct}")
    print(
        f"blocks with exactly {annotators} completions: "
        f"{sum(b[0] == annotators for b in blocks)} of {len(blocks)}"
    )
    print(
        f"screens stored: {screens_per_s:.0f}/s; bare SQLite durable commits: {bare:.0f}/s; "
        f"ratio {screens_per_s / bare:.2f}"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
