"""Concurrency and crash safety of the collection server against a real uvicorn subprocess (spec §5.2).

Load: 200 simulated participants race for 180 slots (60 blocks × 3): exactly 3 complete per
block, 20 are told ``study_full``, every acknowledged screen is stored once. Crash: the server
is killed with SIGKILL while participants are answering, restarted on the same port, and the
participants retry; every screen acknowledged before the kill is present with its answers,
none twice. The benchmark ``benchmarks/bench_serve.py`` runs the 200-participant version.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import warnings

import pytest

from humaneval.collect.prolific import read_prolific
from humaneval.design import DesignSpec, generate_design
from humaneval.forms import placeholder_texts
from humaneval.forms.screens import design_frame
from humaneval.serve import create_study
from humaneval.serve.loadtest import LOAD_STUDY_ID, LoadReport, free_port, run_load, spawn_server

SCREENS = 8  # 2 documents × 3 systems + 2 checks


def make_study(folder, documents: int = 20):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = generate_design(
            DesignSpec(
                documents=documents,
                systems=["A", "B", "C"],
                method="likert",
                documents_per_block=2,
                annotators_per_block=3,
                checks_per_annotator=2,
                seed=3,
                platform="prolific",
            )
        )
    return create_study(
        design, folder, texts=placeholder_texts(design_frame(design)), prolific_study_id=LOAD_STUDY_ID
    )


def stored(db) -> dict[tuple[str, int], dict]:
    connection = sqlite3.connect(db)
    rows = connection.execute(
        "SELECT p.prolific_pid, r.screen_index, r.payload_json FROM response r "
        "JOIN participant p ON p.id = r.participant"
    ).fetchall()
    connection.close()
    out = {(pid, index): json.loads(payload)["answers"] for pid, index, payload in rows}
    assert len(out) == len(rows)  # (participant, screen) is unique
    return out


@pytest.fixture
def server(tmp_path):
    processes = []

    def start(study_dir, port):
        processes.append(spawn_server(study_dir, port))
        return processes[-1]

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_concurrent_participants_fill_each_block_exactly(tmp_path, server):
    study = make_study(tmp_path / "study", documents=120)
    port = free_port()
    server(study.study_dir, port)
    pids = [f"LOAD{i:03d}" for i in range(200)]
    report = asyncio.run(run_load(f"http://127.0.0.1:{port}", study.key, pids, deadline_s=120))
    assert (len(report.completed), len(report.refused), len(report.gave_up)) == (180, 20, 0)
    rows = stored(study.db_path)
    assert rows == report.acked and len(rows) == 180 * SCREENS  # zero lost, zero duplicated
    connection = sqlite3.connect(study.db_path)
    per_block = connection.execute(
        "SELECT block, SUM(state = 'complete') FROM slot GROUP BY block ORDER BY block"
    ).fetchall()
    assert per_block == [(b, 3) for b in range(60)]
    ratings = read_prolific(study.db_path).ratings.without_checks().data
    assert ratings.groupby(["document", "system"]).size().eq(3).all() and len(ratings) == 120 * 3 * 3


def test_sigkill_loses_no_acknowledged_screen(tmp_path, server):
    study = make_study(tmp_path / "study")
    port = free_port()
    first = server(study.study_dir, port)
    pids = [f"CRASH{i:03d}" for i in range(30)]
    report = LoadReport()
    acked_before_kill: dict = {}

    async def scenario() -> None:
        load = asyncio.create_task(
            run_load(f"http://127.0.0.1:{port}", study.key, pids, deadline_s=60, report=report)
        )
        while len(report.acked) < 60:
            await asyncio.sleep(0.01)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        acked_before_kill.update(report.acked)
        await asyncio.to_thread(server, study.study_dir, port)
        await load

    asyncio.run(scenario())
    assert first.returncode == -signal.SIGKILL
    assert len(acked_before_kill) >= 60 and report.retries > 0
    rows = stored(study.db_path)
    assert all(rows.get(key) == answers for key, answers in acked_before_kill.items())
    assert (len(report.completed), len(report.gave_up)) == (30, 0)
    assert len(rows) == 30 * SCREENS and rows == report.acked
