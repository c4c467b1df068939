"""What every benchmark shares: the reference data (or a loud stop), equal timing, and the setting.

- :func:`shared_data` finds ``../shared/data`` next to the repository (or ``$HUMANEVAL_SHARED``)
  and stops with one clear line when it is absent; no benchmark substitutes random data.
- :func:`timed` runs a call the same number of times for every side of a comparison (after one
  untimed warm-up call) and reports the best and median of wall and CPU time.
- :func:`setting` prints the machine, its load and the versions of every library involved, so that
  a figure in RESULTS.md can be read with the conditions it was measured under.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def shared_data(*parts: str) -> Path:
    """A file or folder under the reference data, or a clean exit saying how to provide it."""
    root = Path(os.environ.get("HUMANEVAL_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    path = root.joinpath("data", *parts)
    if not path.exists():
        sys.exit(
            f"benchmark data missing: {path} does not exist. The benchmarks run on the reference data "
            "(shared/data next to the repository); point HUMANEVAL_SHARED at the folder that holds data/."
        )
    return path


def require(module: str) -> None:
    """Stop with an install hint when a comparison library is missing (``pip install humaneval[bench]``)."""
    try:
        importlib.import_module(module)
    except ImportError:
        sys.exit(f"benchmark needs {module!r} for the comparison: pip install 'humaneval[bench]'")


@dataclass(frozen=True)
class Timing:
    """Best and median wall and CPU seconds over ``repeats`` timed calls, and the last value."""

    best_wall: float
    median_wall: float
    best_cpu: float
    median_cpu: float
    repeats: int
    value: object

    def __str__(self) -> str:
        return (
            f"CPU best {self.best_cpu:.4f} s / median {self.median_cpu:.4f} s, wall best "
            f"{self.best_wall:.4f} s (n={self.repeats})"
        )


def timed(fn: Callable[[], object], repeats: int = 5, warmup: bool = True) -> Timing:
    """Time ``fn`` ``repeats`` times (after one untimed call when ``warmup``)."""
    if warmup:
        fn()
    walls, cpus, value = [], [], None
    for _ in range(repeats):
        cpu, wall = time.process_time(), time.perf_counter()
        value = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return Timing(min(walls), statistics.median(walls), min(cpus), statistics.median(cpus), repeats, value)


def versions(*names: str) -> str:
    out = [f"Python {platform.python_version()}"]
    for name in ("humaneval", "numpy", "scipy", "pandas", *names):
        try:
            out.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{name} (not installed)")
    return ", ".join(out)


def setting(*libraries: str) -> str:
    """One line: machine, load average now, BLAS threads, and library versions."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    blas = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    return (
        f"machine: {os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}; load average "
        f"{load}; BLAS threads {blas}; {versions(*libraries)}"
    )
