"""Adaptive Gauss–Hermite quadrature (AGQ) for a CLMM with one scalar random intercept.

docs/native-engine.md: ``ordinal::clmm`` offers quadrature (``nAGQ`` > 1) only for a single random-effects
term; the groups are then independent one-dimensional integrals

    ℓ_g = log ∫ exp F_g(u) du / √(2π),   F_g(u) = Σ_{i∈g} log P(y_i | η_i + σu) − u²/2.

AGQ centres the rule at the Laplace mode u*_g and scales it by s_g = H_g^{-1/2},
H_g = 1 + σ² Σ_{i∈g} W_i:  ℓ_g ≈ log Σ_k ω_k exp F_g(u*_g + s_g z_k) + log s_g, with z_k, w_k the
probabilists' Gauss–Hermite rule and ω_k = w_k e^{z_k²/2}/√(2π). One node is the Laplace value.

Gradient (exact for the rule, derived for this package): with π_k the normalised terms,
F′ = ∂F/∂u and the implicit derivatives du*/dφ = ∂_φF′(u*)/H and dH/dφ = ∂_φH + ∂_uH·du*/dφ,

    dℓ_g/dφ = Σ_k π_k [∂_φF(u_k) + F′(u_k)(du*/dφ + z_k ds/dφ)] − ½ (dH/dφ)/H,   ds/dφ = −½ s (dH/dφ)/H.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from humaneval.clmm.laplace import LaplaceProblem, LaplaceValue
from humaneval.clmm.links import obs_terms
from humaneval.errors import ModelSpecError


class QuadratureProblem:
    """AGQ log-likelihood of a single scalar random-intercept model (module docstring)."""

    def __init__(self, laplace: LaplaceProblem, n_nodes: int) -> None:
        design = laplace.design
        if len(design.terms) != 1 or design.terms[0].size != 1:
            raise ModelSpecError(
                "adaptive quadrature (n_agq > 1) needs a single grouping factor with a random intercept "
                "only, as in ordinal::clmm; use the intercepts structure on a nested design, or n_agq=1"
            )
        self.laplace = laplace
        self.bucket = design.buckets[0]
        self.nodes, weights = np.polynomial.hermite_e.hermegauss(n_nodes)
        self.log_omega = np.log(weights) + 0.5 * self.nodes**2 - 0.5 * np.log(2 * np.pi)
        n_thr = laplace.n_thresholds
        self.n_params = n_thr + laplace.x.shape[1] + 1
        self._theta_up = np.where(laplace.y < n_thr, laplace.y, -1)
        self._theta_low = np.where(laplace.y > 0, laplace.y - 1, -1)

    def reset(self) -> None:
        self.laplace.reset()

    def evaluate(
        self, theta: np.ndarray, beta: np.ndarray, factors: tuple[np.ndarray, ...], gradient: bool = True
    ) -> LaplaceValue:
        """ℓ_AGQ at (θ, β, σ) and, when asked for, its gradient (same layout as the Laplace one)."""
        if not np.isfinite(self.laplace.evaluate(theta, beta, factors, gradient=False).loglik):
            return LaplaceValue(-np.inf)
        lp = self.laplace
        group = self.bucket.block  # one block per group
        n_groups = self.bucket.n_blocks
        sigma = float(factors[0][0, 0])
        mode = lp.modes[0][:, 0]
        theta_ext = np.r_[-np.inf, theta, np.inf]
        eta_fix = lp.x @ beta if lp.x.shape[1] else np.zeros(lp.y.size)
        at_mode = obs_terms(theta_ext, lp.y, eta_fix + sigma * mode[group], lp.link, order=3)
        curv = 1.0 + sigma**2 * np.bincount(group, at_mode.w, minlength=n_groups)
        scale = 1.0 / np.sqrt(curv)
        points = mode[None, :] + self.nodes[:, None] * scale[None, :]  # (nodes, groups)
        at_nodes = obs_terms(theta_ext, lp.y[None, :], eta_fix + sigma * points[:, group], lp.link, order=3)
        sums = np.stack([np.bincount(group, row, minlength=n_groups) for row in at_nodes.loglik])
        log_terms = self.log_omega[:, None] + sums - 0.5 * points**2
        per_group = logsumexp(log_terms, axis=0) + np.log(scale)
        total = float(per_group.sum())
        if not gradient:
            return LaplaceValue(total)
        weights = np.exp(log_terms - logsumexp(log_terms, axis=0)[None, :])  # π_k per group
        u_mode = mode[group]
        # implicit derivatives of the mode and of the curvature
        d_mode = (
            self._per_group(
                sigma * at_mode.dg_up,
                sigma * at_mode.dg_low,
                -sigma * at_mode.w,
                at_mode.g - sigma * at_mode.w * u_mode,
                n_groups,
            )
            / curv[:, None]
        )
        d_curv = self._per_group(
            sigma**2 * at_mode.dw_up,
            sigma**2 * at_mode.dw_low,
            sigma**2 * at_mode.dw,
            2 * sigma * at_mode.w + sigma**2 * at_mode.dw * u_mode,
            n_groups,
        )
        d_curv += sigma**3 * np.bincount(group, at_mode.dw, minlength=n_groups)[:, None] * d_mode
        d_scale = -0.5 * scale[:, None] * d_curv / curv[:, None]
        grad = -0.5 * d_curv / curv[:, None]
        for k in range(self.nodes.size):
            g_k = at_nodes.g[k]
            u_k = points[k][group]
            direct = self._per_group(at_nodes.d_up[k], at_nodes.d_low[k], g_k, g_k * u_k, n_groups)
            slope = sigma * np.bincount(group, g_k, minlength=n_groups) - points[k]
            grad += weights[k][:, None] * (direct + slope[:, None] * (d_mode + self.nodes[k] * d_scale))
        grad = grad.sum(axis=0)
        n_thr = lp.n_thresholds
        return LaplaceValue(total, grad[:n_thr], grad[n_thr:-1], (np.array([[grad[-1]]]),))

    def _per_group(
        self, up: np.ndarray, low: np.ndarray, eta: np.ndarray, sigma: np.ndarray, n_groups: int
    ) -> np.ndarray:
        """(groups × parameters) sums of per-observation derivatives: ``up``/``low`` for the
        observation's thresholds, ``eta`` for its β (chain rule through η) and ``sigma`` for σ."""
        group = self.bucket.block
        out = np.zeros((n_groups, self.n_params))
        for index, coef in ((self._theta_up, up), (self._theta_low, low)):
            ok = index >= 0
            np.add.at(out, (group[ok], index[ok]), coef[ok])
        x = self.laplace.x
        n_thr = self.laplace.n_thresholds
        for j in range(x.shape[1]):
            out[:, n_thr + j] = np.bincount(group, eta * x[:, j], minlength=n_groups)
        out[:, -1] = np.bincount(group, sigma, minlength=n_groups)
        return out
