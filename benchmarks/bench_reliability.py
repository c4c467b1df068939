"""Benchmark Krippendorff's α against the PyPI ``krippendorff`` and ``evalica`` packages.

Run: ``python benchmarks/bench_reliability.py`` (needs ``pip install 'humaneval[bench]'``).

Every implementation is timed alike: in its own fresh interpreter under ``RLIMIT_AS`` (4 GiB, so
an implementation that needs an N×V×V tensor fails with ``MemoryError`` instead of taking the
machine down), one untimed warm-up call, then ``--repeats`` timed calls; the table gives the best
and median CPU time (``time.process_time``) and the peak of Python/numpy allocations
(``tracemalloc``) of one further call. Data generation is excluded.

Targets (issue 25): ordinal α on 1,000,000 units × 5 coders of Likert data at least 10× faster
than ``krippendorff`` and faster than ``evalica``, same value to 1e-12.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import textwrap

from _common import require, setting

LIMIT_BYTES = 4 * 1024**3

SETUP = {
    "likert_1m_x5": "data = rng.integers(1, 8, (5, 1_000_000)).astype(float)\n"
    "data[rng.random(data.shape) < 0.1] = np.nan",
    "continuous_20k_x3": "data = rng.normal(size=(3, 20_000)) + rng.normal(size=20_000)",
    "ordinal_1k_x3": "truth = rng.integers(1, 6, 1000)\n"
    "data = np.clip(truth + rng.integers(-1, 2, (3, 1000)), 1, 5).astype(float)",
}

CALLS = {
    "humaneval": "krippendorff_alpha(data, LEVEL, orient='annotators_x_units').alpha",
    "krippendorff": "krippendorff.alpha(data, level_of_measurement=LEVEL)",
    "evalica": "evalica.alpha(frame, distance=LEVEL).alpha",
    "kalpha": "kalpha_bootstrap(data, LEVEL, orient='annotators_x_units', n_resamples=5000, seed=1).ci[0]",
}
IMPORTS = {
    "humaneval": "from humaneval.reliability import krippendorff_alpha",
    "krippendorff": "import krippendorff",
    "evalica": "import evalica\nimport pandas as pd",
    "kalpha": "from humaneval.reliability.bootstrap import kalpha_bootstrap",
}

TEMPLATE = """
import json, statistics, time, tracemalloc
import numpy as np
{imports}
rng = np.random.default_rng(0)
LEVEL = {level!r}
{setup}
frame = None
if {evalica}:
    frame = pd.DataFrame(data)
try:
    value = {call}
    cpus, walls = [], []
    for _ in range({repeats}):
        cpu, wall = time.process_time(), time.perf_counter()
        value = {call}
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    tracemalloc.start()
    {call}
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(json.dumps({{"best_cpu": min(cpus), "median_cpu": statistics.median(cpus), "best_wall": min(walls),
                      "value": float(value), "peak_mib": peak / 2**20}}))
except MemoryError:
    print(json.dumps({{"error": "MemoryError under the 4 GiB address-space limit"}}))
"""


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def run_case(data: str, level: str, who: str, repeats: int) -> dict[str, object]:
    """Time one implementation in a fresh, memory-limited interpreter."""
    code = TEMPLATE.format(
        imports=IMPORTS[who],
        level=level,
        setup=SETUP[data],
        call=CALLS[who],
        repeats=repeats,
        evalica=who == "evalica",
    )
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        preexec_fn=_limit,
        timeout=1800,
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
    return (
        f"{result['best_cpu']:.3f} s (median {result['median_cpu']:.3f}), {result['peak_mib']:.0f} MiB, "
        f"α = {result['value']:.15f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per implementation (all alike)")
    args = parser.parse_args()
    require("krippendorff")
    require("evalica")
    print(setting("krippendorff", "evalica"))
    print(f"each: 1 warm-up + {args.repeats} timed calls in a fresh interpreter; best (median) CPU time")
    for data, level in (
        ("likert_1m_x5", "ordinal"),
        ("likert_1m_x5", "interval"),
        ("likert_1m_x5", "nominal"),
        ("continuous_20k_x3", "interval"),
    ):
        results = {
            who: run_case(data, level, who, args.repeats) for who in ("humaneval", "krippendorff", "evalica")
        }
        ours = results["humaneval"]
        print(f"\n{level} α, {data}")
        for who, result in results.items():
            line = f"  {who:<13} {describe(result)}"
            if who != "humaneval" and "best_cpu" in result and "best_cpu" in ours:
                ratio = result["best_cpu"] / ours["best_cpu"]
                line += f" | {ratio:.1f}x ours | |Δα| {abs(result['value'] - ours['value']):.1e}"
            print(line)
    kalpha = run_case("ordinal_1k_x3", "ordinal", "kalpha", args.repeats)
    print(f"\nKALPHA 5000 resamples, ordinal_1k_x3: {describe(kalpha)} (target < 1 s; no reference)")


if __name__ == "__main__":
    main()
