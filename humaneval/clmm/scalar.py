"""The Laplace approximation for a single scalar random term, e.g. ``(1 | judge)``.

With one grouping factor and one random effect per group (ordinal::clmm's single random
intercept, or a lone ``(0 + x | g)``), M_i = z_i L is a scalar per observation and
H = I + MᵀWM is diagonal: H_j = 1 + Σ_{i∈j} a_i² W_i with a_i = z_i L. The mode problem
separates into one-dimensional Newton solves per group, and every quantity of the general
gradient (:mod:`humaneval.clmm.laplace`) becomes a sum per group:

    C_j = 1/H_j,   h_i = a_i² C_j,   r_j = Σ_{i∈j} a_i W′_i h_i,   v_j = C_j r_j,
    κ_i = g_i − ½(h_i W′_i − W_i a_i v_j),
    ∂ℓ/∂L = Σ_i z_i [κ_i u_j − W_i C_j a_i − ½ g_i v_j],

and ∂ℓ/∂β, ∂ℓ/∂θ as in the general path. What took a general evaluation ≈ 0.45 ms of per-call
overhead on a 72-row model (bucket assembly, Schur factor, solves) is then a handful of
``bincount`` calls, or, with numba installed (``pip install 'humaneval[fast]'``) and the logit
link, one compiled function (:mod:`humaneval.clmm.scalar_numba`). Each group's Newton step is
halved until its F_j does not fall, and the modes are solved one step past the general path's
tolerance, to the rounding floor; the fits are the general path's (tests/test_clmm_scalar.py:
logLik and estimates to 1e-8, SEs to 1e-8 against the general path with its modes solved as
tightly).

Chosen by :mod:`humaneval.clmm.dispatch`; ``HUMANEVAL_FUSED=0`` keeps it on numpy.
"""

from __future__ import annotations

import os
from functools import cache

import numpy as np

from humaneval.clmm import compiled as compiled_kernels
from humaneval.clmm.design import RandomDesign
from humaneval.clmm.laplace import NEWTON_MAX_ITER, NEWTON_TOL, LaplaceProblem, LaplaceValue
from humaneval.clmm.links import obs_terms


def scalar_applies(design: RandomDesign) -> bool:
    """One random-effect term of one column."""
    return len(design.terms) == 1 and design.terms[0].size == 1


@cache
def _kernel():
    """The compiled evaluation (:func:`humaneval.clmm.scalar_numba.laplace_logit`), or None."""
    try:
        from humaneval.clmm import scalar_numba
    except ImportError:
        return None
    compiled_kernels.mark_loaded()
    return scalar_numba.laplace_logit


class ScalarLaplaceProblem(LaplaceProblem):
    """:class:`~humaneval.clmm.laplace.LaplaceProblem` of a single scalar random term (module docstring).

    The modes keep the general layout (one bucket, one block per group: ``modes[0]`` is
    groups × 1), so warm starts, the Hessian's resets and adaptive quadrature work unchanged.
    ``compiled`` None uses the numba kernel for the logit link when it is installed (unless
    ``HUMANEVAL_FUSED=0``); False always the numpy version.
    """

    def __init__(
        self,
        y: np.ndarray,
        x: np.ndarray,
        design: RandomDesign,
        link: str,
        n_thresholds: int,
        compiled: bool | None = None,
    ) -> None:
        super().__init__(y, x, design, link, n_thresholds)
        bucket = design.buckets[0]
        self.group = np.empty(self.y.size, dtype=np.int64)
        self.group[bucket.obs] = bucket.block
        self.n_groups = bucket.n_blocks
        self.z = np.ascontiguousarray(design.terms[0].zs[self.pattern, 0], dtype=float)
        self.x = np.ascontiguousarray(self.x)
        if compiled is None:
            compiled = link == "logit" and os.environ.get("HUMANEVAL_FUSED", "") != "0"
        self._kernel = _kernel() if compiled and link == "logit" else None
        self._theta_ext = np.full(self.n_thresholds + 2, np.inf)
        self._theta_ext[0] = -np.inf
        self._up = self.y < self.n_thresholds
        self._low = self.y > 0

    def evaluate(
        self, theta: np.ndarray, beta: np.ndarray, factors: tuple[np.ndarray, ...], gradient: bool = True
    ) -> LaplaceValue:
        """ℓ_LA at (θ, β, L); −∞ when some P(y_i | u) vanishes, some H_j ≤ 0 or θ is unordered."""
        theta_ext = self._theta_ext
        theta_ext[1:-1] = theta
        sigma = float(factors[0][0, 0])
        u = self._modes[0][:, 0].copy()
        g_theta = np.zeros(self.n_thresholds)
        g_beta = np.zeros(self.x.shape[1])
        if self._kernel is not None:
            loglik, g_sigma, ok = self._kernel(
                theta_ext, self.y, self.x, np.asarray(beta, dtype=float), self.z, sigma, self.group, u,
                self.n_thresholds, NEWTON_TOL, NEWTON_MAX_ITER, gradient, g_theta, g_beta,
            )  # fmt: skip
        else:
            loglik, g_sigma, ok = self._numpy(theta_ext.copy(), beta, sigma, u, gradient, g_theta, g_beta)
        if not ok:
            return LaplaceValue(-np.inf)
        self._modes[0] = u[:, None]
        if not gradient:
            return LaplaceValue(loglik)
        return LaplaceValue(loglik, g_theta, g_beta, (np.array([[g_sigma]]),))

    def _groups(self, theta_ext, eta_fix, a, u):
        """Per group at the modes ``u``: F_j, ∂F/∂u_j and H_j."""
        t = obs_terms(theta_ext, self.y, eta_fix + a * u[self.group], self.link)
        n = self.n_groups
        with np.errstate(invalid="ignore"):
            f = np.bincount(self.group, t.loglik, minlength=n) - 0.5 * u * u
        s = np.bincount(self.group, a * t.g, minlength=n) - u
        h = 1.0 + np.bincount(self.group, a * a * t.w, minlength=n)
        return f, s, h

    def _numpy(self, theta_ext, beta, sigma, modes, gradient, g_theta, g_beta):
        """:func:`humaneval.clmm.scalar_numba.laplace_logit` in numpy, for every link (``modes``
        solved in place)."""
        theta = theta_ext[1:-1]
        if np.any(np.diff(theta) <= 0) or not np.all(np.isfinite(theta)):
            return -np.inf, 0.0, False
        eta_fix = self.x @ beta if self.x.shape[1] else np.zeros(self.y.size)
        a = self.z * sigma
        u = modes
        f, s, h = self._groups(theta_ext, eta_fix, a, u)
        if not np.isfinite(f.sum()):
            u = np.zeros_like(u)
            f, s, h = self._groups(theta_ext, eta_fix, a, u)
            if not np.isfinite(f.sum()):
                return -np.inf, 0.0, False
        polished = False
        for _ in range(NEWTON_MAX_ITER):
            if np.max(np.abs(s)) < NEWTON_TOL:
                if polished:
                    break
                polished = True
            if not np.all(h > 0):
                return -np.inf, 0.0, False
            step = s / h
            factor = np.ones_like(u)
            pending = np.ones(u.size, dtype=bool)
            while True:
                u_try = np.where(pending, u + factor * step, u)
                f_try, s_try, h_try = self._groups(theta_ext, eta_fix, a, u_try)
                accept = pending & ((f_try >= f - 1e-12 * np.abs(f)) | (factor < 1e-8))
                u = np.where(accept, u_try, u)
                f, s, h = (np.where(accept, new, old) for new, old in ((f_try, f), (s_try, s), (h_try, h)))
                pending &= ~accept
                if not pending.any():
                    break
                factor[pending] *= 0.5
        if not np.all(h > 0):
            return -np.inf, 0.0, False
        modes[:] = u
        loglik = float(f.sum() - 0.5 * np.sum(np.log(h)))
        if not gradient:
            return loglik, 0.0, True
        group = self.group
        t = obs_terms(theta_ext, self.y, eta_fix + a * u[group], self.link, order=3)
        c = (1.0 / h)[group]
        lev = a * a * c
        v = (np.bincount(group, a * t.dw * lev, minlength=self.n_groups) / h)[group]
        mv = a * v
        kappa = t.g - 0.5 * (lev * t.dw - t.w * mv)
        g_beta += self.x.T @ kappa
        up, low = self._up, self._low
        n_thr = self.n_thresholds
        g_theta += np.bincount(self.y[up], (t.d_up - 0.5 * (lev * t.dw_up + mv * t.dg_up))[up], n_thr)
        g_theta += np.bincount(
            self.y[low] - 1, (t.d_low - 0.5 * (lev * t.dw_low + mv * t.dg_low))[low], n_thr
        )
        g_sigma = float(np.sum(self.z * (kappa * u[group] - t.w * a * c - 0.5 * t.g * v)))
        return loglik, g_sigma, True
