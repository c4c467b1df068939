"""Benchmark of the Monte-Carlo simulation (issue 9 targets).

1. The full Fig. 3.6 sweep: 8 designs × 1000 trials under the null coherence model, paired t-test
   and ART (R = 1000) on judgements and on per-document means (4 tests), plus ARTagg, on 2 worker
   processes. Target: < 2 minutes on 2 cores. The reference is the straightforward implementation
   (``scipy.stats.ttest_rel`` per pair, ART with a fresh float64 ±1 matrix from ``rng.choice`` per
   pair, default BLAS threading), timed on a subset of trials and extrapolated.
2. One power design point (20×5×3) with the maximal CLMM (native engine) on 2 workers: wall time,
   CPU seconds (this process and its workers) and replicates per CPU-second, at full size (1000
   replicates) or extrapolated from ``--clmm-trials``; the time of sampling and coding one study is
   shown beside the time of one fit, and the load average before and after. Target (issue 19):
   1000 replicates in ≤ 2 minutes on 2 cores, i.e. ≥ 4.2 replicates per CPU-second. The R
   reference per replicate is one ``ordinal::clmm`` maximal fit (``--r-fits N`` times it here, wall
   and CPU; minutes each; ``--clmm-trials 0 --r-fits 1`` times R alone).
3. ``--dask-trials N``: the same power point, N replicates, on a process pool of 2 workers and then on
   a dask cluster of 2 single-threaded worker processes, same seed (results must be equal), ``--dask-rounds``
   times back to back. The cluster is a ``SubprocessCluster`` without nannies (scheduler and workers each
   in its own process, as ``dask scheduler`` and ``dask worker --no-nanny`` on one host), or with
   ``--dask-local`` a ``LocalCluster`` (nannies and scheduler in this process). CPU = user + system time
   of every process involved while the replicates run: this one and the pool's reaped children, or this
   one and the live scheduler and workers (psutil), printed per process. The cluster's start-up (its
   processes import numpy, scipy and humaneval afresh) and its idle CPU per second of wall time are
   reported apart: a cluster serving many runs pays the start-up once, and the idle cost (heartbeats,
   event-loop ticks, monitors) is paid per second of wall time whatever the tasks do. Every process
   reads the settings docs/simulation.md recommends (``humaneval.stats.replicates.LEAN_DASK`` as environment
   variables) unless ``--dask-defaults``. Target (issue 34): the run ≤ +10 % CPU vs the pool for 100+
   replicates.

    .venv/bin/python benchmarks/bench_simulate.py [--clmm-trials 1000] [--skip sweep clmm] [--r-fits 1]
        [--dask-trials 100 [--dask-rounds 2] [--dask-local] [--dask-defaults]]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings

import numpy as np
from scipy import stats

from humaneval.clmm.model import default_model, sample_scores
from humaneval.simulate import SimDesign, simulate, sweep
from humaneval.simulate.designs import pair_differences, system_pairs
from humaneval.simulate.procedures import clmm_available

DESIGNS = [
    SimDesign(b, d, 3) for b, d in [(1, 100), (2, 50), (4, 25), (5, 20), (10, 10), (20, 5), (50, 2), (100, 1)]
]


def reference_trial(model, design: SimDesign, rng: np.random.Generator) -> list[float]:
    """One trial the obvious way: scipy t-test and a per-pair float64 ART."""
    system, groups = design.group_codes(5)
    scores = sample_scores(model, system, groups, rng).reshape(
        design.blocks, design.annotators, design.docs, 5
    )
    pvalues = []
    for level in ("none", "document"):
        delta = pair_differences(scores.astype(float), level, system_pairs(5))
        for row in delta:
            pvalues.append(stats.ttest_1samp(row, 0.0).pvalue)
            signs = rng.choice([-1.0, 1.0], size=(1000, row.size))
            count = (np.abs(signs @ row) >= abs(row.sum()) * (1 - 1e-12)).sum()
            pvalues.append((count + 1) / 1001)
    return pvalues


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--reference-trials", type=int, default=20, help="trials per design for the reference")
    args.add_argument("--clmm-trials", type=int, default=1000)
    args.add_argument("--skip-sweep", action="store_true", help="the same as --skip sweep")
    args.add_argument("--skip", nargs="*", default=[], choices=["sweep", "clmm"], help="cases not to run")
    args.add_argument("--r-fits", type=int, default=0, help="time this many R maximal fits (minutes each)")
    args.add_argument("--dask-trials", type=int, default=0, help="pool vs dask LocalCluster, N replicates")
    args.add_argument("--dask-defaults", action="store_true", help="dask's own settings, not LEAN_DASK")
    args.add_argument("--dask-local", action="store_true", help="a LocalCluster (nannies) for the dask side")
    args.add_argument("--dask-rounds", type=int, default=1, help="pool then dask, this many times")
    opts = args.parse_args()
    skip = set(opts.skip) | ({"sweep"} if opts.skip_sweep else set())
    if "sweep" not in skip:
        sweep_benchmark(opts)
    if "clmm" not in skip and clmm_available("native") and (opts.clmm_trials or opts.r_fits):
        clmm_benchmark(opts.clmm_trials, opts.r_fits)
    if opts.dask_trials:
        dask_benchmark(opts.dask_trials, opts.dask_defaults, opts.dask_local, opts.dask_rounds)


def dask_benchmark(trials: int, defaults: bool = False, local: bool = False, rounds: int = 1) -> None:
    """The 20×5×3 maximal-CLMM point on a 2-process pool and on a 2-worker dask cluster, back to back.

    CPU on both sides is user + system time of every process involved while the replicates run: on the
    pool side this process and its reaped children, on the dask side this process (the client; with
    ``local`` also the scheduler and the nannies) and its live children (the workers; without ``local``
    also the scheduler). The cluster's start-up and its idle cost per second of wall time (measured
    after the run) are reported apart.
    """
    import dask
    import psutil
    from distributed import Client, LocalCluster
    from distributed.deploy.subprocess import SubprocessCluster

    from humaneval.stats.replicates import dask_environment

    if not defaults:  # the settings docs/simulation.md gives, as the environment every process reads
        os.environ.update(dask_environment())
        dask.config.refresh()
    model = default_model()
    me = psutil.Process()

    def cpu(process: psutil.Process) -> float:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            return 0.0
        return times.user + times.system

    def split(processes: dict[str, psutil.Process]) -> dict[str, float]:
        return {name: cpu(process) for name, process in processes.items()}

    kind = "LocalCluster with nannies" if local else "SubprocessCluster, no nannies"
    print(
        f"dask ({'default' if defaults else 'lean'} settings, {kind}) vs pool, 20x5x3 maximal CLMM, "
        f"{trials} replicates, 2 workers, {rounds} round(s)"
    )
    totals = dict.fromkeys(("pool", "dask", "pool wall", "dask wall", "start-up", "idle", "tasks"), 0.0)
    for round_ in range(1, rounds + 1):
        load = os.getloadavg()[0]
        before, start = _cpu_seconds(), time.perf_counter()
        pool = simulate(model, "20x5x3", ("clmm",), trials=trials, seed=1, workers=2)
        pool_cpu, pool_wall = _cpu_seconds() - before, time.perf_counter() - start
        before_startup = cpu(me) + sum(cpu(child) for child in me.children(recursive=True))
        if local:
            cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        else:
            cluster = SubprocessCluster(
                n_workers=2, threads_per_worker=1, worker_class="distributed.Worker", dashboard_address=None
            )
        with cluster, Client(cluster) as client:
            client.wait_for_workers(2)
            address = cluster.scheduler_address
            # the workers' imports, and the scheduler's: it unpickles the first tasks, which name
            # humaneval's functions, so it imports humaneval once (as a process-pool child never does)
            simulate(None, "6x5x2", ("ttest",), trials=2, seed=0, scheduler=address)
            processes = {"client": me, **_dask_processes(client, local)}
            startup = sum(split(processes).values()) - before_startup
            before, start, tasks = split(processes), time.perf_counter(), _task_cpu(client)
            on_dask = simulate(model, "20x5x3", ("clmm",), trials=trials, seed=1, scheduler=address)
            dask_wall = time.perf_counter() - start
            used = {name: value - before[name] for name, value in split(processes).items()}
            tasks = _task_cpu(client) - tasks
            idle_start, idle_wall = split(processes), time.perf_counter()
            time.sleep(10)
            idle = sum(split(processes).values()) - sum(idle_start.values())
            idle_rate = idle / (time.perf_counter() - idle_wall)
        dask_cpu = sum(used.values())
        same = pool.overall().equals(on_dask.overall())
        parts = ", ".join(f"{name} {value:.1f}" for name, value in used.items())
        print(
            f"  round {round_} (load average {load:.1f} → {os.getloadavg()[0]:.1f}): pool {pool_wall:.1f} s "
            f"wall, {pool_cpu:.1f} CPU-s | dask {dask_wall:.1f} s wall, {dask_cpu:.1f} CPU-s ({parts}) = "
            f"{100 * (dask_cpu / pool_cpu - 1):+.1f} % | dask outside the task threads "
            f"{dask_cpu - tasks:.1f} CPU-s ({100 * (dask_cpu / tasks - 1):+.1f} % of their {tasks:.1f}) | "
            f"idle cluster {1000 * idle_rate:.1f} ms CPU per s (× the run's wall: "
            f"{idle_rate * dask_wall:.1f} CPU-s) | start-up {startup:.1f} CPU-s | "
            f"same results: {'yes' if same else 'NO'}",
            flush=True,
        )
        for key, value in (("pool", pool_cpu), ("dask", dask_cpu), ("pool wall", pool_wall)):
            totals[key] += value
        for key, value in (("dask wall", dask_wall), ("idle", idle_rate * dask_wall), ("tasks", tasks)):
            totals[key] += value
        totals["start-up"] += startup / rounds
    outside = totals["dask"] - totals["tasks"]
    print(
        f"  all rounds: pool {totals['pool']:.1f} CPU-s ({totals['pool wall']:.0f} s wall), dask "
        f"{totals['dask']:.1f} CPU-s ({totals['dask wall']:.0f} s wall) = "
        f"{100 * (totals['dask'] / totals['pool'] - 1):+.1f} % vs the pool (target ≤ +10 %) | dask outside "
        f"the task threads {outside:.1f} CPU-s = {100 * outside / totals['tasks']:+.1f} % of their "
        f"{totals['tasks']:.1f}, the idle cost × wall {totals['idle']:.1f} of it | start-up "
        f"{totals['start-up']:.1f} CPU-s per cluster"
    )


def _task_cpu(client) -> float:
    """CPU seconds the workers' task threads spent in ``run_chunk`` so far (dask's own per-task metric)."""

    wanted = ("run_chunk", "thread-cpu", "seconds")

    def thread_cpu(dask_worker) -> float:
        digests = dask_worker.digests_total.items()
        return sum(v for k, v in digests if isinstance(k, tuple) and k[0] == "execute" and k[-3:] == wanted)

    return sum(client.run(thread_cpu).values())


def _dask_processes(client, local: bool) -> dict:
    """The cluster's processes by role: the workers (by the pids they report), unless the scheduler runs
    in this process (``local``) the scheduler, and any other live child of this process (e.g. a
    multiprocessing helper), so that nothing the cluster runs goes uncounted."""
    import psutil

    pids = client.run(os.getpid)
    processes = {f"worker {i + 1}": psutil.Process(pid) for i, pid in enumerate(sorted(pids.values()))}
    if not local:
        processes["scheduler"] = psutil.Process(client.run_on_scheduler(os.getpid))
    known = {process.pid for process in processes.values()}
    others = [child for child in psutil.Process().children(recursive=True) if child.pid not in known]
    processes.update({f"other {i + 1}": child for i, child in enumerate(others)})
    return processes


def sweep_benchmark(opts: argparse.Namespace) -> None:
    model = default_model().with_effects(0.0)

    start = time.perf_counter()
    table = sweep(DESIGNS, model, tests=("ttest", "art", "artagg"), trials=1000, seed=1, workers=2)
    ours = time.perf_counter() - start
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for design in DESIGNS:
        for _ in range(opts.reference_trials):
            reference_trial(model, design, rng)
    reference = (time.perf_counter() - start) / opts.reference_trials * 1000
    rates = table.pivot_table(index="total_annotators", columns=["test", "aggregate"], values="rate")
    print(rates.round(3).to_string())
    print(f"Fig. 3.6 sweep, 8 designs x 1000 trials, 2 workers: ours {ours:.1f} s (target < 120 s)")
    print(
        f"reference (1 process, extrapolated from {opts.reference_trials} trials/design): {reference:.0f} s"
    )
    print(f"ratio: {reference / ours:.1f}x faster")


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def clmm_benchmark(trials: int, r_fits: int) -> None:
    """One 20×5×3 power point with the maximal native CLMM on 2 workers, per CPU-second."""
    from humaneval.analysis.fit import fit_clmm
    from humaneval.simulate.experiment import SimulationConfig, _prepared
    from humaneval.simulate.procedures import expand_procedures
    from humaneval.simulate.table_design import clmm_data
    from humaneval.stats.replicates import replicate_seed

    model = default_model()
    config = SimulationConfig(model, SimDesign(20, 5, 3), expand_procedures(("clmm",), ("none",)))
    system, groups, template = _prepared(config)
    rng = np.random.default_rng(replicate_seed(1, 0))
    start = time.perf_counter()
    for _ in range(20):
        data = clmm_data(template, sample_scores(model, system, groups, rng))
    prep = (time.perf_counter() - start) / 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        fit_clmm(data, engine="native", structure="maximal")
        one_fit = time.perf_counter() - start
    print(f"per replicate: sampling + coding {prep * 1000:.1f} ms, one maximal native fit {one_fit:.2f} s")
    if trials:
        _clmm_point(model, trials)
    if r_fits:
        _r_fits(data, r_fits)


def _clmm_point(model, trials: int) -> None:
    load_before = os.getloadavg()[0]
    cpu = _cpu_seconds()
    start = time.perf_counter()
    result = simulate(model, "20x5x3", ("clmm",), trials=trials, seed=1, workers=2)
    wall = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu
    load_after = os.getloadavg()[0]
    rate = trials / cpu
    scale = 1000 / trials
    size = "full size" if trials >= 1000 else f"extrapolated from {trials}"
    row = result.overall().iloc[0]
    print(
        f"maximal CLMM power point 20x5x3, {trials} replicates on 2 workers: {wall:.1f} s wall, "
        f"{cpu:.1f} CPU-s, {rate:.2f} replicates per CPU-second; per 1000 replicates ({size}): "
        f"{wall * scale / 60:.1f} min wall (target ≤ 2 min), {1000 / rate / 2 / 60:.1f} min on 2 idle cores; "
        f"load average {load_before:.1f} → {load_after:.1f}"
    )
    print(f"power {row['rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}], rungs {result.rungs}")


def _r_fits(data, r_fits: int) -> None:
    """The R reference per replicate: ``r_fits`` maximal ``ordinal::clmm`` fits of one sampled study
    (R runs inside this process through rpy2, so its CPU time is this process's)."""
    from humaneval.analysis.fit import fit_clmm
    from humaneval.analysis.rbridge import r_available

    if not r_available():
        print("R is not available: no R reference timing")
        return
    load_before = os.getloadavg()[0]
    cpu, start = time.process_time(), time.perf_counter()
    for _ in range(r_fits):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit_clmm(data, engine="r", structure="maximal")
    wall = (time.perf_counter() - start) / r_fits
    cpu = (time.process_time() - cpu) / r_fits
    load_after = os.getloadavg()[0]
    print(
        f"R ordinal::clmm maximal fit: {wall:.1f} s wall, {cpu:.1f} CPU-s per replicate "
        f"({1 / cpu:.4f} replicates per CPU-second); load average {load_before:.1f} → {load_after:.1f}"
    )


if __name__ == "__main__":
    main()
