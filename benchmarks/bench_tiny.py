"""Benchmark of tiny CLMM fits and a small power point (issue 34, goal 5).

1. Wine, ``rating ~ temp + contact + (1 | judge)`` (72 ratings): CPU time of one fit, best of
   ``--repeats``, through the general path (``HUMANEVAL_FASTPATH=0 HUMANEVAL_FUSED=0``), the scalar
   path on numpy (``HUMANEVAL_FUSED=0``) and the scalar path compiled (the default with numba).
   Target: ≤ 5 ms. R's ``clmm`` takes ≈ 0.1 s for this fit.
2. A power point of a 300-rating design (the published model, 5 systems, 4 blocks × 5 documents ×
   3 annotators): CPU per replicate (sampling, coding, the CLMM fit with its fallback ladder and
   the contrasts) over ``--replicates`` replicates in this process, for the intercepts and maximal
   structures, general path vs the default; extrapolated to 1,000 replicates on 2 cores (CPU/2).
   Target: ≤ 30 s. The p-values of both paths are compared replicate by replicate.
3. ``--pool N``: N replicates of the maximal point through ``simulate(..., workers=2)``, wall and
   CPU of this process and its workers, to check the extrapolation.

Both paths run in the same process, one after the other; the load average is printed before and
after.

    .venv/bin/python benchmarks/bench_tiny.py [--repeats 30] [--replicates 40] [--pool 200]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.clmm import clmm_spec, fit_spec
from humaneval.clmm.model import default_model
from humaneval.simulate import SimDesign, simulate
from humaneval.simulate.experiment import SimulationConfig, simulate_replicate
from humaneval.simulate.procedures import expand_procedures

WINE = Path(__file__).resolve().parent.parent / "tests" / "data" / "wine.csv"
PATHS = {
    "general": {"HUMANEVAL_FASTPATH": "0", "HUMANEVAL_FUSED": "0"},
    "fast, numpy": {"HUMANEVAL_FASTPATH": "", "HUMANEVAL_FUSED": "0"},
    "fast": {"HUMANEVAL_FASTPATH": "", "HUMANEVAL_FUSED": ""},
}


def use(path: str) -> None:
    os.environ.update(PATHS[path])


def cpu_best(call, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        call()
        best = min(best, time.process_time() - start)
    return best


def wine_fit(repeats: int) -> None:
    spec = clmm_spec("rating ~ temp + contact + (1|judge)", pd.read_csv(WINE))
    print("wine, rating ~ temp + contact + (1 | judge), 72 ratings: CPU per fit, best of", repeats)
    times, logliks = {}, {}
    for path in PATHS:
        use(path)
        fit = fit_spec(spec)  # warm-up (numba's import and cached kernels)
        logliks[path] = fit.loglik
        times[path] = cpu_best(lambda: fit_spec(spec), repeats)
        print(
            f"  {path:12s} {1000 * times[path]:6.2f} ms   ×{times['general'] / times[path]:5.1f} vs general"
            f"   target 5 ms: {'met' if times[path] <= 0.005 else 'not met'}   logLik {fit.loglik:.10f}"
        )
    spread = max(logliks.values()) - min(logliks.values())
    print(f"  logLik spread across paths {spread:.1e}; {fit.diagnostics.n_iter} iterations")


def power_point(replicates: int) -> None:
    model = default_model()
    print(f"power point, 300 ratings (4 blocks × 5 documents × 3 annotators), {replicates} replicates")
    for structure in ("intercepts", "maximal"):
        config = SimulationConfig(
            model,
            SimDesign(4, 5, 3),
            expand_procedures(("clmm",), ("none",)),
            requested_structure=structure,
        )
        per, pvalues = {}, {}
        for path in ("general", "fast"):
            use(path)
            simulate_replicate(config, 0)  # warm-up
            start = time.process_time()
            records = [simulate_replicate(config, i) for i in range(replicates)]
            per[path] = (time.process_time() - start) / replicates
            pvalues[path] = [next(iter(r["p"].values())) for r in records]
            rungs = sorted({str(r["clmm"]["rung"]) for r in records})
            print(
                f"  {structure:10s} {path:8s} {1000 * per[path]:6.1f} ms CPU per replicate → 1,000 replicates"
                f" on 2 cores ≈ {per[path] * 500:5.1f} s (target 30 s); rungs {', '.join(rungs)}"
            )
        diffs = [
            abs(a - b)
            for ra, rb in zip(pvalues["general"], pvalues["fast"], strict=True)
            if ra is not None and rb is not None
            for a, b in zip(ra, rb, strict=True)
        ]
        same = sum(
            (ra is None) == (rb is None) for ra, rb in zip(pvalues["general"], pvalues["fast"], strict=True)
        )
        print(
            f"  {structure:10s} speed-up ×{per['general'] / per['fast']:.1f}; same outcome in"
            f" {same}/{replicates} replicates, max |Δp| {max(diffs, default=0.0):.1e}"
        )


def pool_run(trials: int) -> None:
    use("fast")
    model = default_model()
    start, wall = _cpu(), time.perf_counter()
    simulate(model, SimDesign(4, 5, 3), ("clmm",), trials=trials, seed=1, workers=2, structure="maximal")
    cpu, wall = _cpu() - start, time.perf_counter() - wall
    print(
        f"pool: {trials} maximal replicates on 2 workers: wall {wall:.1f} s, CPU {cpu:.1f} s"
        f" → 1,000 replicates ≈ {1000 * wall / trials:.0f} s wall, {500 * cpu / trials:.0f} s CPU/2"
    )


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--replicates", type=int, default=40)
    parser.add_argument("--pool", type=int, default=0, help="replicates through simulate() on 2 workers")
    opts = parser.parse_args()
    warnings.simplefilter("ignore")
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    wine_fit(opts.repeats)
    power_point(opts.replicates)
    if opts.pool:
        pool_run(opts.pool)
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
