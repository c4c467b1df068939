"""Whether a fit uses the compiled (numba) kernels: by their estimated saving against their load cost.

The compiled paths (:mod:`humaneval.clmm.scalar`, :mod:`humaneval.clmm.blocks`,
:mod:`humaneval.clmm.fused`) evaluate the Laplace likelihood 2.5–3× faster than numpy, but the
first of them in a process costs :data:`LOAD_SECONDS` of CPU: importing numba and initialising its
compiler target, even when the compiled code is read from numba's on-disk cache. A one-shot
``humaneval analyze`` of 1,500 ratings saves less than that (0.05 s for the intercepts model,
0.3 s for the maximal one), a 6,000-rating maximal fit or a power run of many small fits saves
more. So a fit uses the kernels when the saving they are expected to bring it (:func:`saving`)
exceeds the load cost, and every fit inside :func:`warm_kernels` uses them (the replicates of a power
run, whose summed saving pays the load). The decision depends only on the fit's size and on whether
it runs inside a power run — never on timings or on the fits before it in the process — so a table
gets the same numbers whichever door it comes through (the paths agree to 1e-8 in the estimates,
tests/test_clmm_scalar.py, tests/test_clmm_blocks.py, tests/test_clmm_fused.py, but their
finite-difference standard errors only to about 1e-5).

``HUMANEVAL_FUSED=1`` uses the kernels for every fit they apply to, ``HUMANEVAL_FUSED=0`` never
(e.g. to compare); without numba nothing changes. The constants are CPU seconds measured with
``benchmarks/bench_clmm.py --cold`` and ``--paths`` (benchmarks/RESULTS.md, "First fit in a
process").
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

#: CPU seconds of the first use of a compiled kernel in a process (numba's import and target set-up;
#: the kernels themselves come from numba's cache).
LOAD_SECONDS = 0.5
#: Per-evaluation CPU of the numpy paths ≈ OVERHEAD + rows × (PER_ROW + PER_EFFECT × q), q the random
#: effects per observation.
OVERHEAD = 1e-3
PER_ROW = 1e-7
PER_EFFECT = 2e-7
#: Share of an evaluation's CPU that a compiled path saves: the whole evaluation (scalar and block
#: kernels), or the per-observation link terms only (fused terms on the general path).
SAVED_SHARE = {"evaluation": 0.65, "terms": 0.18}

_loaded = [False]
_warm = [0]  # depth of warm_kernels() blocks


def setting() -> str:
    """``always``, ``never`` or ``cost`` (the default), from ``HUMANEVAL_FUSED``."""
    value = os.environ.get("HUMANEVAL_FUSED", "")
    return {"0": "never", "1": "always"}.get(value, "cost")


@cache
def available() -> bool:
    """Whether numba is installed (found without importing it)."""
    return importlib.util.find_spec("numba") is not None


def loaded() -> bool:
    """Whether a compiled kernel has already been loaded in this process (then using one is free)."""
    return _loaded[0]


def mark_loaded() -> None:
    """Record that a kernel module was imported (called by the modules' loaders)."""
    _loaded[0] = True


def saving(nobs: int, effects: int, n_params: int, share: str = "evaluation") -> float:
    """Estimated CPU seconds a compiled path saves on a fit of ``nobs`` rows, ``effects`` random
    effects per row and ``n_params`` parameters (about 30 + 2 per parameter likelihood evaluations:
    the optimiser's and one per free parameter for the Hessian)."""
    per_evaluation = OVERHEAD + nobs * (PER_ROW + PER_EFFECT * effects)
    return SAVED_SHARE[share] * per_evaluation * (30 + 2 * n_params)


@contextmanager
def warm_kernels() -> Iterator[None]:
    """Within this block every fit uses the compiled kernels where they apply: many fits (a power
    run's replicates) pay their load together."""
    _warm[0] += 1
    try:
        yield
    finally:
        _warm[0] -= 1


def worth(expected: float) -> bool:
    """Whether a fit expected to save ``expected`` CPU seconds with the kernels should use them: when
    that pays their load, inside :func:`warm_kernels`, or when ``HUMANEVAL_FUSED=1``."""
    mode = setting()
    if mode == "never" or not available():
        return False
    return mode == "always" or _warm[0] > 0 or expected >= LOAD_SECONDS
