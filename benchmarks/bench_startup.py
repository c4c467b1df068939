"""Start-up benchmark (issue 34, goal 6): ``humaneval --help`` against ``python -c "import click"``.

Each command runs ``--repeats`` times in a fresh interpreter, alternating with the reference; CPU =
user + system time of the child (``RUSAGE_CHILDREN``), best and median. Also shown: a subcommand's
``--help`` (which imports that command's module and what its options name) and the import of
numpy + pandas + scipy.stats for scale. Target: ``humaneval --help`` within 1.5× of ``import click``.

    python benchmarks/bench_startup.py [--repeats 10]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys

from _common import setting

CASES = {
    "import click": [sys.executable, "-c", "import click"],
    "humaneval --help": [sys.executable, "-m", "humaneval", "--help"],
    "humaneval analyze --help": [sys.executable, "-m", "humaneval", "analyze", "--help"],
    "import numpy, pandas, scipy.stats": [sys.executable, "-c", "import numpy, pandas, scipy.stats"],
}


def cpu_of(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    print(setting("click"))
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for command in CASES.values():  # warm-up: the file cache
        cpu_of(command)
    for _ in range(args.repeats):
        for name, command in CASES.items():
            times[name].append(cpu_of(command))
    base = min(times["import click"])
    for name, found in times.items():
        median = statistics.median(found)
        print(
            f"{name:34s} CPU best {min(found) * 1e3:6.0f} ms, median {median * 1e3:6.0f} ms "
            f"| {min(found) / base:.2f}x import click"
        )


if __name__ == "__main__":
    main()
