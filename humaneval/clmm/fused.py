"""The logit link's per-observation terms (:func:`humaneval.clmm.links.obs_terms`) in one compiled pass.

The numpy version makes about 40 passes over the observations (four ``expit`` calls, then each
derivative as its own array); per observation the work is a few dozen flops, so large fits are
bound by memory traffic and small ones by per-call overhead. With numba installed (``pip install
'humaneval[fast]'``) the same formulas run as one loop per call, element by element, with the
same tail-safe evaluation (F and 1 − F of each bound computed directly, P from whichever tail does
not cancel). Results equal the numpy path to rounding (tests/test_clmm_fused.py asserts 1e-12 on
the terms and 1e-8 on whole fits).

Used for calls over at least :data:`MIN_ROWS` observations once the compiled kernels are loaded in
the process: a fit on the general or sparse path of that size loads them when its expected saving
pays for numba's load (:mod:`humaneval.clmm.compiled`; the compiled code is cached on disk). Smaller
fits keep the numpy terms, so that they give the same numbers in every process.
``HUMANEVAL_FUSED=1`` uses the kernel at every size and ``HUMANEVAL_FUSED=0`` never (e.g. to
compare). Without numba nothing changes.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from humaneval.clmm import compiled

#: Observations from which the general and sparse paths use the compiled terms (once loaded).
MIN_ROWS = 20_000


_this_fit = [False]


def choose(use: bool) -> None:
    """Set whether the fit being set up uses the compiled terms (the dispatch's decision, made once
    per fit from its size: never from what earlier fits in the process did)."""
    _this_fit[0] = use


def wanted(n: int) -> bool:
    """Whether a call over ``n`` observations should use the compiled kernel: asked for, or chosen
    for this fit and at least ``MIN_ROWS`` observations."""
    mode = compiled.setting()
    if mode == "never" or (mode == "cost" and (n < MIN_ROWS or not _this_fit[0])):
        return False
    return load() is not None


@cache
def load():
    """The compiled kernels (:mod:`humaneval.clmm.fused_numba`), or None without numba."""
    try:
        from humaneval.clmm import fused_numba
    except ImportError:
        return None
    compiled.mark_loaded()
    return fused_numba.order2, fused_numba.order3


def logit_terms(theta_ext: np.ndarray, y: np.ndarray, eta: np.ndarray, order: int) -> tuple[np.ndarray, ...]:
    """ℓ, g, W (``order=2``) and also d_up, d_low, dw, dw_up, dw_low, dg_up, dg_low (``order=3``)."""
    order2, order3 = load()
    theta_ext = np.ascontiguousarray(theta_ext, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    eta = np.ascontiguousarray(eta, dtype=np.float64)
    n = eta.size
    if order < 3:
        out = np.empty((3, n))
        order2(theta_ext, y, eta, out)
    else:
        out = np.empty((10, n))
        order3(theta_ext, y, eta, out)
    return tuple(out)
