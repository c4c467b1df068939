"""Run Monte-Carlo replicates in parallel, reproducibly, with a resumable checkpoint.

Replicate i always draws from ``SeedSequence(seed, spawn_key=(i,))`` — the i-th child that
``SeedSequence(seed).spawn`` would give — so its result does not depend on how replicates are
spread over workers, on the chunk size, or on the total number of trials (a run can be extended).
Replicates run in-process, in a local process pool (``workers``) or on a dask.distributed cluster
(``scheduler="tcp://host:port"``). Each finished replicate is appended as one JSON line to the
checkpoint, whose first line is a header describing the experiment; ``resume=True`` skips the
replicates already there and refuses a checkpoint written for a different experiment or whose header
cannot be read. Each record carries a digest of its content and of the header, so a torn, malformed,
edited or foreign record is never trusted: its replicate runs again.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from humaneval.errors import BackendUnavailableError, DesignError, OptionError
from humaneval.stats.heap import malloc_thresholds

Record = dict[str, Any]
#: The key of each checkpoint record's digest (of the record and the experiment's header).
_DIGEST = "digest"
ReplicateFn = Callable[[Any, int], Record]


#: dask.distributed settings for a cluster that runs replicates (docs/simulation.md, "Running on several
#: machines"; environment variables from :func:`dask_environment`). dask's defaults suit interactive
#: analytics: each worker samples its running task every 10 ms, every process checks its event loop every
#: 20 ms and its host every 0.5 s, workers and nannies check memory every 0.1 s, and the scheduler steals
#: work and runs the active memory manager. A replicate batch is long, CPU-bound and holds little memory,
#: so these are turned off or down; what remains (heartbeats, which dask schedules itself) costs a
#: 2-worker cluster about 13 ms of CPU per second of wall time (benchmarks/RESULTS.md).
LEAN_DASK: dict[str, object] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "2s",
    "distributed.scheduler.work-stealing": False,
    "distributed.scheduler.active-memory-manager.start": False,
}


def dask_environment(settings: dict[str, object] | None = None) -> dict[str, str]:
    """``settings`` (default :data:`LEAN_DASK`) as the environment variables dask reads at start-up.

    Examples
    --------
    >>> dask_environment({"distributed.admin.tick.interval": "1s"})
    {'DASK_DISTRIBUTED__ADMIN__TICK__INTERVAL': '1s'}
    """
    settings = LEAN_DASK if settings is None else settings
    return {
        "DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
        for key, value in settings.items()
    }


#: Most replicates one command-line run takes unless ``--force`` lifts the ceiling: 100,000 studies give
#: a Monte-Carlo SE of ±0.13 percentage points for a power near 0.8, far below any planning need.
MAX_TRIALS = 100_000


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, else the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_run_size(trials: int, workers: int = 1, *, force: bool = False, option: str = "--trials") -> None:
    """Refuse more than :data:`MAX_TRIALS` replicates or more worker processes than CPUs (at least
    2) unless ``force``: a typo such as ``--trials 1000000000000`` or ``--workers 100000`` fails at
    once instead of starting.

    Raises
    ------
    OptionError
        With the ceiling and the flag that lifts it.
    """
    if force:
        return
    if trials > MAX_TRIALS:
        raise OptionError(
            f"{option} {trials:,}: more than {MAX_TRIALS:,} simulated studies; {MAX_TRIALS:,} already give "
            "a Monte-Carlo SE below 0.2 points; pass --force to run them anyway"
        )
    cpus = available_cpus()
    if workers > max(cpus, 2):
        raise OptionError(
            f"--workers {workers:,}: this machine has {cpus} CPU(s), and more worker processes only compete "
            f"for them; use --workers {cpus}, or pass --force to start them anyway"
        )


def replicate_seed(seed: int, index: int) -> np.random.SeedSequence:
    """The seed sequence of replicate ``index``: the ``index``-th spawned child of ``seed``."""
    return np.random.SeedSequence(seed, spawn_key=(index,))


def run_chunk(fn: ReplicateFn, config: Any, indices: Sequence[int]) -> list[Record]:
    """Run the replicates ``indices`` one after another (the unit of work sent to a worker).

    BLAS is held to one thread: the many small products of a replicate are several times
    slower when OpenBLAS threads compete with each other and with the other workers.
    """
    with threadpool_limits(limits=1, user_api="blas"), _heap_for_numpy():
        return [fn(config, int(i)) for i in indices]


@contextmanager
def _heap_for_numpy() -> Iterator[None]:
    """Keep numpy's temporaries on the heap while replicates run in a dask worker.

    dask starts its workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also pins glibc's mmap
    threshold at 128 KiB, so every temporary array above that is mapped and page-faulted afresh:
    13× the page faults and about 35 % more CPU per CLMM replicate (measured; benchmarks/RESULTS.md). The
    thresholds are raised for the batch and set back to dask's afterwards; elsewhere a no-op.
    """
    trim = os.environ.get("MALLOC_TRIM_THRESHOLD_")
    if trim is None:
        yield
        return
    with malloc_thresholds(64 << 20, 256 << 20, restore=(128 << 10, int(trim))):
        yield


def read_checkpoint(path: Path, header: Record) -> dict[int, Record]:
    """Records already in ``path``, keyed by replicate.

    A record is kept only when it is a JSON object with a whole-number ``replicate`` and the digest
    written with it matches its content and this experiment's header; anything else (a torn last line
    from an interrupted write, a hand-edited or foreign line) is run again.

    Raises :class:`DesignError` when the header cannot be read or belongs to another experiment.
    """
    done: dict[int, Record] = {}
    with path.open(errors="replace") as handle:
        first = handle.readline()
        if not first.strip():
            return done  # interrupted before the header was written: nothing to keep
        try:
            item = json.loads(first)
        except (json.JSONDecodeError, RecursionError):
            item = None
        found = item.get("header") if isinstance(item, dict) else None
        if not isinstance(found, dict):
            raise DesignError(
                f"{path}: checkpoint header unreadable (the first line is not a checkpoint header); "
                "use another --out folder or drop --resume to start over"
            )
        found, wanted = _comparable(found), _comparable(header)
        if found != wanted:
            differ = sorted(k for k in found.keys() | wanted.keys() if found.get(k) != wanted.get(k))
            raise DesignError(
                f"{path}: this checkpoint was written for a different experiment "
                f"({', '.join(differ)} differ); "
                "use another --out folder or drop --resume to start over"
            )
        key = _experiment_key(header)
        for line in handle:
            record = _checked(line, key)
            if record is not None:
                done[record["replicate"]] = record
    return done


def _experiment_key(header: Record) -> bytes:
    return json.dumps(_comparable(header), sort_keys=True, default=str).encode()


def _digest(key: bytes, record: Record) -> str:
    body = json.dumps(record, sort_keys=True).encode()
    return hashlib.sha256(key + b"\0" + body).hexdigest()[:32]


def _checked(line: str, key: bytes) -> Record | None:
    """The record on ``line`` without its digest, or None when it is torn, malformed or foreign."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    digest = record.pop(_DIGEST, None)
    index = record.get("replicate")
    if type(index) is not int or index < 0 or digest != _digest(key, record):
        return None
    return record


def _line(key: bytes, record: Record) -> str:
    return json.dumps({**record, _DIGEST: _digest(key, json.loads(json.dumps(record)))}) + "\n"


def _comparable(header: Record) -> Record:
    # checkpoints written before the rename of ``rounds`` to ``n_permutations`` still resume
    renamed = {"rounds": "n_permutations"}
    return {renamed.get(k, k): v for k, v in header.items() if k != "trials"}


def _chunks(indices: list[int], size: int) -> Iterator[list[int]]:
    for start in range(0, len(indices), size):
        yield indices[start : start + size]


def run_replicates(
    fn: ReplicateFn,
    config: Any,
    trials: int,
    *,
    header: Record,
    workers: int = 1,
    scheduler: str | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    progress: bool = False,
    max_chunk: int = 50,
    desc: str = "simulating",
    size: str = "",
) -> list[Record]:
    """Run replicates 0..trials−1 of ``fn(config, index)`` and return their records in order.

    ``fn`` must be a module-level function and ``config`` picklable when ``workers > 1`` or a
    ``scheduler`` is given. One task runs about a quarter of a worker's share of the replicates, at
    most ``max_chunk`` (small for slow replicates such as CLMM fits, so that the workers stay
    balanced and the checkpoint grows steadily); on dask, chunks are joined into about four tasks
    per worker thread. ``desc`` labels the progress bar. With ``progress``, the first replicate runs
    alone and is timed, and one line on stderr states the run's size (``size`` describes one replicate)
    and the time it will take, before the others start.
    """
    if trials < 1:
        raise DesignError(f"trials must be at least 1, not {trials}")
    if workers < 1:
        raise DesignError(f"workers must be at least 1, not {workers}")
    path = Path(checkpoint) if checkpoint is not None else None
    done: dict[int, Record] = {}
    if path is not None and resume and path.exists():
        done = {i: r for i, r in read_checkpoint(path, header).items() if i < trials}
    todo = [i for i in range(trials) if i not in done]
    n_workers = workers if scheduler is None else max(workers, 2)
    handle = _open_checkpoint(path, header, done) if path is not None else None
    key = _experiment_key(header)
    resumed = len(done)

    def keep(records: list[Record]) -> None:
        for record in records:
            done[record["replicate"]] = record
            if handle is not None:
                handle.write(_line(key, record))
        if handle is not None:
            handle.flush()
        bar.update(len(records))

    bar = tqdm(total=trials, initial=len(done), disable=not progress, unit="trial", desc=desc)
    try:
        if progress and todo:
            start = time.perf_counter()
            keep(run_chunk(fn, config, todo[:1]))
            _announce(desc, trials, resumed, size, time.perf_counter() - start, len(todo) - 1, n_workers)
            todo = todo[1:]
        chunk = max(1, min(max_chunk, -(-len(todo) // (4 * n_workers))))
        chunks = list(_chunks(todo, chunk))
        for records in _execute(fn, config, chunks, workers, scheduler):
            keep(records)
    finally:
        bar.close()
        if handle is not None:
            handle.close()
    return [done[i] for i in range(trials)]


def _announce(
    desc: str, trials: int, resumed: int, size: str, seconds: float, remaining: int, workers: int
) -> None:
    """One line on stderr: how many replicates, of what size, and how long the rest will take."""
    again = f", {resumed:,} from the checkpoint" if resumed else ""
    what = f" ({size})" if size else ""
    rest = seconds * remaining / max(1, workers)
    tqdm.write(
        f"{desc}: {trials:,} trials{what}{again}; the first took {_duration(seconds)}, "
        f"so about {_duration(rest)} more on {workers} worker{'s' if workers > 1 else ''}",
        file=sys.stderr,
    )


def _duration(seconds: float) -> str:
    """``0.04 s``, ``12 s``, ``3.5 min``, ``2.1 h`` or ``4.0 days``."""
    if seconds < 10:
        return f"{seconds:.2g} s"
    for unit, length in (("days", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= 2 * length:
            return f"{seconds / length:.1f} {unit}"
    return f"{seconds:.0f} s"


def _open_checkpoint(path: Path, header: Record, done: dict[int, Record]):
    """Start the checkpoint afresh with the header and the records kept from a resumed run
    (rewriting drops a torn last line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = path.open("w")
    handle.write(json.dumps({"header": header}) + "\n")
    key = _experiment_key(header)
    for index in sorted(done):
        handle.write(_line(key, done[index]))
    handle.flush()
    return handle


def _execute(
    fn: ReplicateFn, config: Any, chunks: list[list[int]], workers: int, scheduler: str | None
) -> Iterator[list[Record]]:
    if scheduler is not None:
        yield from _execute_dask(fn, config, chunks, scheduler)
    elif workers == 1 or len(chunks) <= 1:
        for chunk in chunks:
            yield run_chunk(fn, config, chunk)
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
            futures = [pool.submit(run_chunk, fn, config, chunk) for chunk in chunks]
            for future in as_completed(futures):
                yield future.result()


def _batches(chunks: list[list[int]], n_tasks: int) -> list[list[int]]:
    """Consecutive chunks joined into about ``n_tasks`` dask tasks: a dask task costs far more
    than a process-pool task, so one replicate per task (as for slow CLMM replicates) is batched."""
    per_task = max(1, -(-len(chunks) // n_tasks))
    starts = range(0, len(chunks), per_task)
    return [[i for chunk in chunks[lo : lo + per_task] for i in chunk] for lo in starts]


def _execute_dask(
    fn: ReplicateFn, config: Any, chunks: list[list[int]], scheduler: str
) -> Iterator[list[Record]]:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:
        raise BackendUnavailableError(
            "--scheduler needs dask.distributed: pip install 'humaneval[dask]'"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as exc:
        raise BackendUnavailableError(f"cannot reach the dask scheduler {scheduler}: {exc}") from None
    try:
        [remote_config] = client.scatter([config], broadcast=True)
        batches = _batches(chunks, 4 * max(1, sum(client.nthreads().values())))
        futures = [client.submit(run_chunk, fn, remote_config, batch, pure=False) for batch in batches]
        for future in dask_completed(futures):
            yield future.result()
    finally:
        client.close()
