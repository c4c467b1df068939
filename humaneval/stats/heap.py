"""glibc's malloc thresholds, raised while numpy allocates many large temporary arrays.

Arrays above glibc's mmap threshold are mapped and page-faulted afresh on every allocation; a
stretch of work that allocates such arrays hundreds of times (a CLMM fit of 10^6 ratings, CLMM
replicates in a dask worker) spends as much system time on page faults as on arithmetic. Raising
the mmap and trim thresholds keeps them on the heap (measured in benchmarks/RESULTS.md).
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterator
from contextlib import contextmanager

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


@contextmanager
def malloc_thresholds(mmap: int, trim: int, *, restore: tuple[int, int]) -> Iterator[None]:
    """glibc's mmap and trim thresholds at ``mmap`` and ``trim`` bytes inside the block, then at
    ``restore`` = (mmap, trim); a no-op where there is no glibc."""
    if not sys.platform.startswith("linux"):
        yield
        return
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        yield
        return
    mallopt(_M_MMAP_THRESHOLD, mmap)
    mallopt(_M_TRIM_THRESHOLD, trim)
    try:
        yield
    finally:
        mallopt(_M_MMAP_THRESHOLD, restore[0])
        mallopt(_M_TRIM_THRESHOLD, restore[1])
