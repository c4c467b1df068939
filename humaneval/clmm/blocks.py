"""The Laplace approximation compiled per block, for small designs (numba, logit link).

The general path (:mod:`humaneval.clmm.laplace`) evaluates ℓ_LA with a few dozen numpy calls per
bucket and Newton step, whatever the size: on a 300-rating study (4 blocks of 3 annotators × 5
documents, maximal structure: blocks of 40 effects) a likelihood evaluation is ≈ 1 ms of per-call
overhead for ≈ 0.3 M flops, and a power simulation pays it some 180 times per replicate. Here each
block's H_b = I + Σ_i W_i m_i m_iᵀ is assembled and factorised densely in one compiled loop
(:func:`humaneval.clmm.blocks_numba.laplace_blocks`): the same matrices, modes and gradient
formulas, in the general path's layout of blocks, buckets and modes, so warm starts, the Hessian's
mode resets and the optimum checks of :mod:`humaneval.clmm.fit` work unchanged; each block's modes
are solved to the rounding floor (Newton with the general path's step halving, one step past its
tolerance). Fits equal the general path's (tests/test_clmm_blocks.py).

Taken for the logit link when numba is installed (``pip install 'humaneval[fast]'``), every block
has at most :data:`MAX_DIM` effects, the sparse path does not apply and the fit is expected to
save more than the kernels cost to load (:mod:`humaneval.clmm.compiled`); ``HUMANEVAL_FUSED=0``
turns it off, ``HUMANEVAL_FUSED=1`` on whatever the size. Dense blocks cost O(d³) per Newton step,
so large blocks (a fully crossed study with many documents) stay with the Schur elimination of the
general path.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from humaneval.clmm import compiled
from humaneval.clmm.design import RandomDesign
from humaneval.clmm.laplace import NEWTON_MAX_ITER, NEWTON_TOL, LaplaceProblem, LaplaceValue

#: Largest block (effects per block) the dense compiled path takes.
MAX_DIM = 64


@cache
def _kernel():
    """The compiled evaluation (:func:`humaneval.clmm.blocks_numba.laplace_blocks`), or None."""
    try:
        from humaneval.clmm import blocks_numba
    except ImportError:
        return None
    compiled.mark_loaded()
    return blocks_numba.laplace_blocks


def blocks_apply(design: RandomDesign, link: str) -> bool:
    """The logit link, numba installed and not turned off, and blocks of at most ``MAX_DIM`` effects
    (whether the kernel pays for its load is :func:`humaneval.clmm.compiled.worth`'s decision)."""
    if link != "logit" or compiled.setting() == "never" or not compiled.available():
        return False
    return max(b.dim for b in design.buckets) <= MAX_DIM


class BlockLaplaceProblem(LaplaceProblem):
    """:class:`~humaneval.clmm.laplace.LaplaceProblem` evaluated block by block in compiled code.

    Per bucket the observations are ordered by block (``starts`` are the first of each), with
    their local columns, patterns, categories and rows of X in that order.
    """

    def __init__(self, y, x, design: RandomDesign, link: str, n_thresholds: int) -> None:
        super().__init__(y, x, design, link, n_thresholds)
        self._buckets = []
        for bucket in design.buckets:
            order = np.argsort(bucket.block, kind="stable")
            obs = bucket.obs[order]
            starts = np.searchsorted(bucket.block[order], np.arange(bucket.n_blocks + 1))
            self._buckets.append(
                (
                    obs,
                    np.ascontiguousarray(self.y[obs]),
                    np.ascontiguousarray(self.pattern[obs]),
                    starts.astype(np.int64),
                    np.ascontiguousarray(bucket.cols[order], dtype=np.int64),
                    np.ascontiguousarray(self.x[obs]),
                )
            )
        self._theta_ext = np.full(self.n_thresholds + 2, np.inf)
        self._theta_ext[0] = -np.inf

    def evaluate(
        self, theta: np.ndarray, beta: np.ndarray, factors: tuple[np.ndarray, ...], gradient: bool = True
    ) -> LaplaceValue:
        """ℓ_LA at (θ, β, L_1..L_F); −∞ when some P(y_i | u) vanishes or θ is unordered."""
        kernel = _kernel()
        theta_ext = self._theta_ext
        theta_ext[1:-1] = theta
        rows = np.ascontiguousarray(
            np.concatenate([t.zs @ f for t, f in zip(self.design.terms, factors, strict=True)], axis=1)
        )
        beta = np.asarray(beta, dtype=float)
        g_theta = np.zeros(self.n_thresholds)
        g_beta = np.zeros(beta.size)
        g_rows = np.zeros(rows.shape)
        total, modes = 0.0, []
        for (_, y, pattern, starts, cols, x), u in zip(self._buckets, self._modes, strict=True):
            eta_fix = x @ beta if beta.size else np.zeros(y.size)
            u = u.copy()
            kappa = np.empty(y.size)
            value, ok = kernel(
                theta_ext, y, eta_fix, rows, pattern, starts, cols, u, self.n_thresholds,
                NEWTON_TOL, NEWTON_MAX_ITER, gradient, g_theta, kappa, g_rows,
            )  # fmt: skip
            if not ok:
                return LaplaceValue(-np.inf)
            total += value
            modes.append(u)
            if gradient and beta.size:
                g_beta += x.T @ kappa
        self._modes[:] = modes
        if not gradient:
            return LaplaceValue(total)
        grads = tuple(
            t.zs.T @ g_rows[:, sl] for t, sl in zip(self.design.terms, self.design.slices, strict=True)
        )
        return LaplaceValue(total, g_theta, g_beta, grads)
