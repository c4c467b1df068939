"""What the money-moving commands share: a file lock held for a whole plan → pay → record, and
the atomic 0600 write of a ledger (``prolific bonus``, ``mturk bonus``)."""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from humaneval.errors import PlatformError

#: How long a paying run waits for another one holding the same ledger (seconds).
LOCK_WAIT = 120.0


@contextmanager
def exclusive(lock: str | Path, *, busy: str, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold ``fcntl.flock`` on the file ``lock`` (created 0600): another process or thread waits up
    to ``wait`` seconds, then gets one :class:`~humaneval.errors.PlatformError` line, ``busy``."""
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise PlatformError(busy) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def write_json(path: str | Path, value: Any) -> None:
    """Write ``value`` to ``path`` as JSON, atomically (a temporary file, fsync, rename), mode 0600."""
    path = Path(path)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(value, indent=2, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    temporary.replace(path)
