"""Simulated participants for load and crash tests of the collection server.

Each simulated participant opens the study (``/start``), answers its screens in order with
valid random answers (what the form widgets of ``templates/form.js`` would send; the answers
of a screen depend only on ``(seed, participant, screen)``, so a retry re-sends the identical
payload) and finishes. Network errors and 5xx answers are retried until a deadline, which is
how participants ride out a server that was killed and restarted. The loop is bounded: every
participant stops after ``deadline_s``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from humaneval.errors import DesignError
from humaneval.methods import get_method
from humaneval.methods.pairwise import SIDES

#: The Prolific STUDY_ID the simulated participants send; create load-test studies with it.
LOAD_STUDY_ID = "LOAD"


def valid_answers(method: str, preset: dict[str, Any], screen: dict[str, Any], seed: int) -> dict[str, str]:
    """Random answers for ``screen`` that pass :func:`humaneval.serve.validate.screen_problems`."""
    rng = np.random.default_rng(seed)
    entries = screen["entries"]
    kind = get_method(method)
    if kind.marks_spans:  # one random span of the first category (a text of at least one character)
        return {e["field"]: _span_answer(rng, e["length"], preset) for e in entries}
    if kind.rates_items:
        bounds = kind.value_range(int(preset["points"]))
        if bounds is None:
            raise DesignError(f"the {method} method rates items but declares no value range")
        low, high = bounds
        return {e["field"]: str(int(rng.integers(int(low), int(high) + 1))) for e in entries}
    if kind.unit == "document":
        order = rng.permutation(len(entries))
        real = [e for e in order if not entries[e].get("check")]
        out = {}
        for position, e in enumerate(order):
            entry = entries[e]
            out[entry["field"]] = str(position + 1 if entry.get("check") else real.index(e) + 1)
            if entry.get("raw_field"):
                out[entry["raw_field"]] = str(real.index(e) + 1)
        return out
    if kind.unit == "tuple":
        if screen["field"].startswith("ck_"):
            return {e["field"]: "best" for e in entries if e.get("check")}
        best, worst = rng.choice(len(entries), size=2, replace=False)
        return {
            screen["field"] + "_best": entries[best]["code"],
            screen["field"] + "_worst": entries[worst]["code"],
        }
    sides = list(SIDES) if preset.get("allow_tie", True) else list(SIDES[:2])
    return {screen["field"]: str(rng.choice(sides))}


def _span_answer(rng: np.random.Generator, length: int, preset: dict[str, Any]) -> str:
    start = int(rng.integers(0, max(length, 1)))
    spans = [[start, start + 1, "minor", preset["categories"][0]]] if length else []
    score = int(rng.integers(0, 101)) if preset.get("esa_score") else None
    return json.dumps({"spans": spans, "score": score})


@dataclass
class LoadReport:
    """What the simulated participants saw: acknowledged screens, latencies, refusals, completions."""

    acked: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    gave_up: list[str] = field(default_factory=list)
    retries: int = 0
    elapsed: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        lat = np.asarray(self.latencies)
        return {
            "requests": len(lat),
            "screens_acknowledged": len(self.acked),
            "completed": len(self.completed),
            "refused": len(self.refused),
            "gave_up": len(self.gave_up),
            "retries": self.retries,
            "elapsed_s": self.elapsed,
            "throughput_rps": len(lat) / self.elapsed if self.elapsed else float("nan"),
            "p50_ms": float(np.percentile(lat, 50) * 1000) if len(lat) else float("nan"),
            "p95_ms": float(np.percentile(lat, 95) * 1000) if len(lat) else float("nan"),
        }


async def run_load(
    base_url: str,
    key: str,
    pids: list[str],
    *,
    seed: int = 0,
    deadline_s: float = 60.0,
    retry_s: float = 0.05,
    report: LoadReport | None = None,
) -> LoadReport:
    """Run one simulated participant per PROLIFIC_PID in ``pids``, all at once."""
    import httpx

    report = report or LoadReport()
    limits = httpx.Limits(max_connections=len(pids), max_keepalive_connections=len(pids))
    started = time.perf_counter()
    stop = started + deadline_s
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=10.0) as client:

        async def call(path: str, body: dict[str, Any]) -> httpx.Response | None:
            while time.perf_counter() < stop:
                t0 = time.perf_counter()
                try:
                    response = await client.post(f"/api/{key}/{path}", json=body)
                except httpx.TransportError:
                    response = None
                if response is not None and response.status_code < 500:
                    report.latencies.append(time.perf_counter() - t0)
                    return response
                report.retries += 1
                await asyncio.sleep(retry_s)
            return None

        async def participant(pid: str) -> None:
            start = await call(
                "start", {"prolific_pid": pid, "study_id": LOAD_STUDY_ID, "session_id": f"S{pid}"}
            )
            if start is None or start.status_code != 200:
                (report.refused if start is not None else report.gave_up).append(pid)
                return
            data = start.json()
            form = data["form"]
            screens = form["slots"][0]["screens"]
            index = data["next_screen"]
            while index < len(screens):
                answers = valid_answers(
                    form["method"],
                    form["preset"],
                    screens[index],
                    zlib.crc32(f"{seed}|{pid}|{index}".encode()),
                )
                timing = {
                    "shown_at": 0,
                    "answered_at": 1000,
                    "seconds": 1.0,
                    "visible_seconds": 1.0,
                    "hidden_count": 0,
                }
                body = {"token": data["token"], "screen_index": index, "answers": answers, "timing": timing}
                response = await call("screen", body)
                if response is None or response.status_code not in (200, 409):
                    report.gave_up.append(pid)
                    return
                if response.status_code == 200:
                    report.acked[(pid, index)] = answers
                index = response.json()["next_screen"]
            done = await call("finish", {"token": data["token"]})
            (report.completed if done is not None and done.status_code == 200 else report.gave_up).append(pid)

        await asyncio.gather(*(participant(pid) for pid in pids))
    report.elapsed = time.perf_counter() - started
    return report


def free_port() -> int:
    """A currently unused TCP port on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spawn_server(
    study_dir: str | Path, port: int, timeout_s: float = 30.0, options: Sequence[str] = ()
) -> subprocess.Popen:
    """``humaneval serve STUDY_DIR [OPTIONS]`` as a subprocess on 127.0.0.1:``port``, returned once it
    answers."""
    import httpx

    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "humaneval",
            "serve",
            str(study_dir),
            "--port",
            str(port),
            "--quiet",
            "--start-limit",
            "off",  # every simulated participant comes from 127.0.0.1
            *options,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stop = time.monotonic() + timeout_s
    while time.monotonic() < stop:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1.0).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"the server did not answer on port {port} within {timeout_s:g} s")
