"""Benchmark Krippendorff's α and the KALPHA bootstrap against the PyPI ``krippendorff`` package.

Run: ``.venv/bin/python benchmarks/bench_reliability.py``. Every case runs in its own subprocess
under ``RLIMIT_AS`` (4 GiB), so a reference implementation that needs a V×V or N×V×V tensor fails
with ``MemoryError`` instead of taking the machine down; time is the best of ``REPEATS`` runs
(data generation excluded) and memory the peak of Python/numpy allocations (``tracemalloc``).

Targets (issue 6): ordinal α on 1,000,000 units × 5 coders of Likert data at least as fast as
``krippendorff``; interval α on 20,000 units × 3 coders of continuous scores in < 2 s with
bounded memory; KALPHA with 5,000 resamples on 1,000 × 3 ordinal data in < 1 s.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap

LIMIT_BYTES = 4 * 1024**3
REPEATS = 3

SETUP = {
    "likert_1m_x5": "data = rng.integers(1, 8, (5, 1_000_000)).astype(float)\n"
    "data[rng.random(data.shape) < 0.1] = np.nan",
    "continuous_20k_x3": "data = rng.normal(size=(3, 20_000)) + rng.normal(size=20_000)",
    "ordinal_1k_x3": "truth = rng.integers(1, 6, 1000)\n"
    "data = np.clip(truth + rng.integers(-1, 2, (3, 1000)), 1, 5).astype(float)",
}

CALLS = {
    "ours_alpha": "krippendorff_alpha(data, LEVEL, orient=ORIENT).alpha",
    "theirs_alpha": "krippendorff.alpha(data, level_of_measurement=LEVEL)",
    "ours_kalpha": "kalpha_bootstrap(data, LEVEL, orient=ORIENT, n_resamples=5000, seed=1).ci[0]",
}

TEMPLATE = """
import json, time, tracemalloc
import numpy as np
import krippendorff
from humaneval.reliability import krippendorff_alpha
from humaneval.reliability.bootstrap import kalpha_bootstrap
rng = np.random.default_rng(0)
LEVEL = {level!r}
ORIENT = "annotators_x_units"
{setup}
best, value, peak = float("inf"), None, 0
try:
    for _ in range({repeats}):
        tracemalloc.start()
        start = time.perf_counter()
        value = {call}
        best = min(best, time.perf_counter() - start)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    print(json.dumps({{"seconds": best, "value": float(value), "peak_mib": peak / 2**20}}))
except MemoryError:
    print(json.dumps({{"error": "MemoryError under the 4 GiB address-space limit"}}))
"""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def run_case(data: str, level: str, call: str, repeats: int = REPEATS) -> dict[str, object]:
    """Time one call in a fresh, memory-limited interpreter."""
    code = TEMPLATE.format(level=level, setup=SETUP[data], call=CALLS[call], repeats=repeats)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        preexec_fn=_limit,
        timeout=600,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {proc.returncode}: {last}"}
    return json.loads(lines[-1])


def describe(result: dict[str, object]) -> str:
    if "error" in result:
        return str(result["error"])
    return f"{result['seconds']:.3f} s, peak {result['peak_mib']:.0f} MiB, value {result['value']:.6f}"


def main() -> None:
    print("case | ours | krippendorff | ratio (theirs / ours)")
    for data, level in (
        ("likert_1m_x5", "ordinal"),
        ("likert_1m_x5", "interval"),
        ("continuous_20k_x3", "interval"),
    ):
        ours = run_case(data, level, "ours_alpha")
        theirs = run_case(data, level, "theirs_alpha", repeats=1)
        ratio = (
            f"{theirs['seconds'] / ours['seconds']:.1f}×"
            if "seconds" in ours and "seconds" in theirs
            else "n/a"
        )
        print(f"{level} α, {data} | {describe(ours)} | {describe(theirs)} | {ratio}")
    kalpha = run_case("ordinal_1k_x3", "ordinal", "ours_kalpha")
    print(f"KALPHA 5000 resamples, ordinal_1k_x3 | {describe(kalpha)} | (no reference) | target < 1 s")


if __name__ == "__main__":
    main()
