"""Laplace likelihood of a cumulative link model with scale effects, and its analytic gradient.

docs/native-engine.md, "Scale effects". For an observation in category y (0-based) with location
μ = xᵀβ + Σ_f σ_f u_{f,g_f} and log-scale ς = wᵀζ + σ_s u_{s,a} (a the annotator),

    P(y) = F(a) − F(c),   a = (θ_y − μ) e^{−ς},   c = (θ_{y−1} − μ) e^{−ς}

(``ordinal::clm``'s ``scale = ~w``; Christensen 2019, eq. 2). The random effects u ~ N(0, I) are the
location intercepts of every grouping factor and, optionally, the annotators' log-scales; all of
them are integrated out jointly by one Laplace approximation

    ℓ_LA = F(u*) − ½ log det H,   F(u) = Σ_i ℓ_i − ½‖u‖²,   H = I − Σ_i J_iᵀ D_i J_i,

with J_i = ∂(μ_i, ς_i)/∂u and D_i the 2 × 2 second derivative of ℓ_i in (μ, ς). Unlike the
location-only model, ℓ_i is not concave in ς, so the mode search damps H until it is positive definite.

Gradient (derived for this package, the same adjoint argument as :mod:`humaneval.clmm.laplace`).
With local variables v_i = (θ_y, θ_{y−1}, μ_i, ς_i), C = H⁻¹, P_i = J_i C J_iᵀ and the adjoint
v = C Σ_i J_iᵀ τ_i, τ_{i,a} = Σ_bc P_{i,bc} ∂³ℓ_i/∂r_b∂r_c∂r_a (r = (μ, ς)), every parameter that
moves v_i at fixed u by δv_i has

    dℓ_LA = Σ_i κ_i·δv_i (+ Σ_i ⟨D_i, J_i C δJ_iᵀ⟩ + ½ g_iᵀ δJ_i v  for the SDs, which move J),
    κ_i = ∂ℓ_i/∂v + ½ Σ_bc P_{i,bc} ∂³ℓ_i/∂r_b∂r_c∂v + ½ (J_i v)ᵀ ∂²ℓ_i/∂r∂v.

The random-effect system is dense (q = all groups of all terms), which suits studies of a few hundred
annotators and documents; :data:`MAX_RANDOM` bounds it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

from humaneval.clmm.links import get_link
from humaneval.errors import ModelSpecError

NEWTON_TOL = 1e-10
NEWTON_MAX_ITER = 60
MAX_RANDOM = 4000  # dense q × q system: 128 MB at this size


@dataclass(frozen=True)
class Slot:
    """One random effect every observation touches: the row of (μ, ς) it enters and its column of u."""

    row: int  # 0 location, 1 log-scale
    cols: np.ndarray  # column of u per observation


@dataclass(frozen=True)
class LocalTerms:
    """Derivatives of ℓ_i in v = (θ_y, θ_{y−1}, μ, ς) per observation (order 1, 2 and, if asked, 3)."""

    loglik: np.ndarray
    grad: np.ndarray  # n × 4
    hess: np.ndarray  # n × 4 × 4
    third: np.ndarray | None  # n × 4 × 4 × 4 (order 3 only)


def local_terms(
    theta_ext: np.ndarray, y: np.ndarray, mu: np.ndarray, vs: np.ndarray, link: str, order: int = 2
) -> LocalTerms:
    """ℓ_i = log(F(a) − F(c)) and its derivatives in (θ_y, θ_{y−1}, μ, ς) (module docstring).

    ``order`` 3 adds the third derivatives (for the gradient of the Laplace approximation).
    """
    lk = get_link(link)
    s = np.exp(-vs)
    a = (theta_ext[y + 1] - mu) * s
    c = (theta_ext[y] - mu) * s
    upper = c > 0  # both points in the upper tail: difference of survivals keeps the digits
    with np.errstate(invalid="ignore"):
        prob = np.where(upper, lk.survival(c) - lk.survival(a), lk.cdf(a) - lk.cdf(c))
    fa, fa1, fa2 = lk.density(a, 3)
    fc, fc1, fc2 = lk.density(c, 3)
    with np.errstate(divide="ignore", invalid="ignore"):  # P = 0 gives ℓ = −∞: the caller refuses it
        loglik = np.log(prob)
        inv = 1.0 / prob
        la, lc = fa * inv, -fc * inv
        laa, lcc, lac = fa1 * inv - la * la, -fc1 * inv - lc * lc, -la * lc
    a0, c0 = np.where(np.isfinite(a), a, 0.0), np.where(np.isfinite(c), c, 0.0)
    n = y.size
    if order < 3:  # closed forms of the first and second derivatives
        grad = np.zeros((n, 4))
        hess = np.zeros((n, 4, 4))
        grad[:, 0], grad[:, 1] = s * la, s * lc
        hess[:, 0, 0], hess[:, 1, 1] = s * s * laa, s * s * lcc
        hess[:, 0, 1] = hess[:, 1, 0] = s * s * lac
        hess[:, 0, 2] = hess[:, 2, 0] = -s * s * (laa + lac)
        hess[:, 1, 2] = hess[:, 2, 1] = -s * s * (lac + lcc)
        hess[:, 0, 3] = hess[:, 3, 0] = -s * (a0 * laa + c0 * lac + la)
        hess[:, 1, 3] = hess[:, 3, 1] = -s * (a0 * lac + c0 * lcc + lc)
        grad[:, 2] = -s * (la + lc)
        grad[:, 3] = -(a0 * la + c0 * lc)
        hess[:, 2, 2] = s * s * (laa + 2.0 * lac + lcc)
        hess[:, 2, 3] = hess[:, 3, 2] = s * (a0 * laa + (a0 + c0) * lac + c0 * lcc + la + lc)
        hess[:, 3, 3] = a0 * a0 * laa + 2.0 * a0 * c0 * lac + c0 * c0 * lcc + a0 * la + c0 * lc
        return LocalTerms(loglik, grad, hess, None)
    l1 = np.stack([la, lc], axis=1)
    l2 = np.stack([np.stack([laa, lac], 1), np.stack([lac, lcc], 1)], axis=1)
    m1 = np.zeros((n, 2, 4))
    m1[:, 0, 0], m1[:, 1, 1] = s, s
    m1[:, :, 2] = -s[:, None]
    m1[:, 0, 3], m1[:, 1, 3] = -a0, -c0
    m2 = np.zeros((n, 2, 4, 4))
    for k, e in ((0, a0), (1, c0)):
        m2[:, k, k, 3] = m2[:, k, 3, k] = -s
        m2[:, k, 2, 3] = m2[:, k, 3, 2] = s
        m2[:, k, 3, 3] = e
    grad = np.einsum("na,nap->np", l1, m1)
    hess = np.einsum("nbp,nbq->npq", np.einsum("nab,nap->nbp", l2, m1), m1) + np.einsum(
        "na,napq->npq", l1, m2
    )
    laaa = fa2 * inv - la * fa1 * inv - 2.0 * la * laa
    laac = -fa1 * inv * lc - 2.0 * la * lac
    lacc = -(lac * lc + la * lcc)
    assert fa2 is not None and fc2 is not None  # density(x, 3) gives f″
    lccc = -fc2 * inv + lc * fc1 * inv - 2.0 * lc * lcc
    l3 = np.zeros((n, 2, 2, 2))
    l3[:, 0, 0, 0], l3[:, 1, 1, 1] = laaa, lccc
    l3[:, 0, 0, 1] = l3[:, 0, 1, 0] = l3[:, 1, 0, 0] = laac
    l3[:, 0, 1, 1] = l3[:, 1, 0, 1] = l3[:, 1, 1, 0] = lacc
    m3 = np.zeros((n, 2, 4, 4, 4))
    for k, e in ((0, a0), (1, c0)):
        for p, val in ((k, s), (2, -s)):
            m3[:, k, p, 3, 3] = m3[:, k, 3, p, 3] = m3[:, k, 3, 3, p] = val
        m3[:, k, 3, 3, 3] = -e
    cross = np.einsum("nab,napq,nbr->npqr", l2, m2, m1)
    l3m = np.einsum("nabc,ncr->nabr", l3, m1)
    l3m = np.einsum("nabr,nbq->naqr", l3m, m1)
    third = (
        np.einsum("naqr,nap->npqr", l3m, m1)
        + cross
        + cross.transpose(0, 1, 3, 2)
        + cross.transpose(0, 3, 2, 1)
        + np.einsum("na,napqr->npqr", l1, m3)
    )
    return LocalTerms(loglik, grad, hess, third)


@dataclass(frozen=True)
class ScaleValue:
    """ℓ_LA and its gradient in θ, β, ζ and the random-effect SDs (location terms, then scale)."""

    loglik: float
    grad_theta: np.ndarray | None = None
    grad_beta: np.ndarray | None = None
    grad_zeta: np.ndarray | None = None
    grad_sd: np.ndarray | None = None


class ScaleLaplace:
    """Data and warm-start modes of one location–scale fit (module docstring).

    ``x`` is the location design without intercept, ``w`` the scale design without intercept,
    ``slots`` the random intercepts: one :class:`Slot` per location term, then (optional) the
    log-scale term, with the columns of u numbered across all of them (``n_random`` in all).
    """

    def __init__(
        self,
        y: np.ndarray,
        x: np.ndarray,
        w: np.ndarray,
        slots: tuple[Slot, ...],
        n_random: int,
        link: str,
        n_thresholds: int,
    ) -> None:
        if n_random > MAX_RANDOM:
            raise ModelSpecError(
                f"the scale model integrates {n_random} random effects jointly; at most {MAX_RANDOM} "
                "are supported (fewer groups, or fixed scale effects)"
            )
        self.y, self.x, self.w = np.asarray(y, dtype=np.int64), np.asarray(x, float), np.asarray(w, float)
        self.slots, self.q, self.link = slots, int(n_random), link
        self.n_thresholds = int(n_thresholds)
        self.mode = np.zeros(self.q)
        self.inverse: np.ndarray | None = None  # C = H⁻¹ at the last mode

    def state(self) -> np.ndarray:
        return self.mode.copy()

    def restore(self, mode: np.ndarray) -> None:
        self.mode = mode.copy()

    def _predictors(self, beta, zeta, sd, u):
        mu = self.x @ beta if self.x.shape[1] else np.zeros(self.y.size)
        vs = self.w @ zeta if self.w.shape[1] else np.zeros(self.y.size)
        for slot, s in zip(self.slots, sd, strict=True):
            part = s * u[slot.cols]
            if slot.row == 0:
                mu = mu + part
            else:
                vs = vs + part
        return mu, vs

    def _system(self, t: LocalTerms, sd) -> tuple[np.ndarray, np.ndarray]:
        """Σ J_iᵀ g_i (the data part of ∂F/∂u) and H."""
        q = self.q
        score = np.zeros(q)
        hmat = np.eye(q)
        for slot, s in zip(self.slots, sd, strict=True):
            score += np.bincount(slot.cols, s * t.grad[:, 2 + slot.row], minlength=q)
            for other, s2 in zip(self.slots, sd, strict=True):
                key = slot.cols * q + other.cols
                weight = -s * s2 * t.hess[:, 2 + slot.row, 2 + other.row]
                hmat += np.bincount(key, weight, minlength=q * q).reshape(q, q)
        return score, hmat

    def evaluate(
        self, theta: np.ndarray, beta: np.ndarray, zeta: np.ndarray, sd: np.ndarray, gradient: bool = True
    ) -> ScaleValue:
        """ℓ_LA at (θ, β, ζ, SDs); −∞ when thresholds are unordered or the likelihood vanishes."""
        if np.any(np.diff(theta) <= 0) or not np.all(np.isfinite(theta)):
            return ScaleValue(-np.inf)
        theta_ext = np.r_[-np.inf, theta, np.inf]
        found = self._find_mode(theta_ext, beta, zeta, sd)
        if found is None:
            return ScaleValue(-np.inf)
        u, value = found
        mu, vs = self._predictors(beta, zeta, sd, u)
        t = local_terms(theta_ext, self.y, mu, vs, self.link, order=3 if gradient and self.q else 2)
        logdet = 0.0
        chol = None
        if self.q:
            _, hmat = self._system(t, sd)
            try:
                chol = linalg.cho_factor(hmat, lower=True)
            except linalg.LinAlgError:
                return ScaleValue(-np.inf)
            logdet = 2.0 * float(np.sum(np.log(np.diag(chol[0]))))
            self.inverse = linalg.cho_solve(chol, np.eye(self.q))
        loglik = value - 0.5 * logdet
        if not gradient:
            return ScaleValue(loglik)
        return self._gradient(loglik, t, u, sd)

    def _find_mode(self, theta_ext, beta, zeta, sd):
        """u* by damped Newton steps from the last mode; (u*, F(u*)) or None."""

        def objective(u):
            mu, vs = self._predictors(beta, zeta, sd, u)
            t = local_terms(theta_ext, self.y, mu, vs, self.link)
            return t, float(t.loglik.sum() - 0.5 * u @ u)

        u = self.mode if self.mode.size == self.q else np.zeros(self.q)
        t, value = objective(u)
        if not np.isfinite(value):
            u = np.zeros(self.q)
            t, value = objective(u)
            if not np.isfinite(value):
                return None
        if not self.q:
            return u, value
        for _ in range(NEWTON_MAX_ITER):
            score, hmat = self._system(t, sd)
            grad = score - u
            if np.max(np.abs(grad)) < NEWTON_TOL:
                break
            step = _damped_solve(hmat, grad)
            factor = 1.0
            while True:
                u_try = u + factor * step
                t_try, v_try = objective(u_try)
                if v_try >= value - 1e-12 * abs(value) or factor < 1e-8:
                    break
                factor /= 2
            if factor < 1e-8 and v_try < value:
                break
            u, t, value = u_try, t_try, v_try
        self.mode = u
        return u, value

    def _gradient(self, loglik: float, t: LocalTerms, u: np.ndarray, sd: np.ndarray) -> ScaleValue:
        n, q, slots = self.y.size, self.q, self.slots
        kappa = t.grad.copy()
        grad_sd = np.zeros(len(slots))
        if q:  # without random effects ℓ is exact and κ = ∂ℓ/∂v
            cinv = self.inverse
            assert cinv is not None and t.third is not None
            # P_i = J_i C J_iᵀ (2 × 2) and (J_i C)[b, col_t(i)] per slot t
            p_mat = np.zeros((n, 2, 2))
            jc = np.zeros((n, len(slots), 2))
            for sk, s in zip(slots, sd, strict=True):
                for j, (sj, s2) in enumerate(zip(slots, sd, strict=True)):
                    cc = cinv[sk.cols, sj.cols]
                    p_mat[:, sk.row, sj.row] += s * s2 * cc
                    jc[:, j, sk.row] += s * cc
            rr = t.third[:, 2:, 2:, :]  # ∂³ℓ/∂r_b∂r_c∂v
            tau = np.einsum("nbc,nbca->na", p_mat, rr[:, :, :, 2:])
            rhs = np.zeros(q)
            for slot, s in zip(slots, sd, strict=True):
                rhs += np.bincount(slot.cols, s * tau[:, slot.row], minlength=q)
            adj = cinv @ rhs
            jv = np.zeros((n, 2))
            for slot, s in zip(slots, sd, strict=True):
                jv[:, slot.row] += s * adj[slot.cols]
            kappa += 0.5 * np.einsum("nbc,nbcp->np", p_mat, rr)
            kappa += 0.5 * np.einsum("nb,nbp->np", jv, t.hess[:, 2:, :])
            for k, slot in enumerate(slots):
                d_col = t.hess[:, 2:, 2 + slot.row]  # D_i[b, row]
                grad_sd[k] = (
                    kappa[:, 2 + slot.row] @ u[slot.cols]
                    + np.sum(d_col * jc[:, k, :])
                    + 0.5 * t.grad[:, 2 + slot.row] @ adj[slot.cols]
                )
        k_thr, y = self.n_thresholds, self.y
        up, low = y < k_thr, y > 0
        g_theta = np.bincount(y[up], kappa[up, 0], minlength=k_thr) + np.bincount(
            y[low] - 1, kappa[low, 1], minlength=k_thr
        )
        return ScaleValue(loglik, g_theta, self.x.T @ kappa[:, 2], self.w.T @ kappa[:, 3], grad_sd)

    def information(self, theta, beta, zeta, jac: np.ndarray) -> np.ndarray:
        """The exact Hessian of ℓ in (τ, β, ζ) without random effects (every parameter enters v linearly)."""
        theta_ext = np.r_[-np.inf, theta, np.inf]
        mu, vs = self._predictors(beta, zeta, (), np.zeros(0))
        t = local_terms(theta_ext, self.y, mu, vs, self.link)
        n = self.y.size
        jac_ext = np.vstack([np.zeros(jac.shape[1]), jac, np.zeros(jac.shape[1])])
        dv = np.zeros((n, 4, jac.shape[1] + self.x.shape[1] + self.w.shape[1]))
        dv[:, 0, : jac.shape[1]] = jac_ext[self.y + 1]
        dv[:, 1, : jac.shape[1]] = jac_ext[self.y]
        dv[:, 2, jac.shape[1] : jac.shape[1] + self.x.shape[1]] = self.x
        dv[:, 3, jac.shape[1] + self.x.shape[1] :] = self.w
        return np.einsum("npk,npq,nql->kl", dv, t.hess, dv, optimize=True)

    def conditional(self, theta, beta, zeta, sd) -> tuple[np.ndarray, np.ndarray]:
        """The conditional modes u* and their conditional variances diag(H⁻¹) at these parameters."""
        self.evaluate(theta, beta, zeta, sd, gradient=False)
        var = np.diag(self.inverse) if self.q and self.inverse is not None else np.zeros(self.q)
        return self.mode.copy(), var.copy()


def _damped_solve(hmat: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """H⁻¹g, with H + λI (λ growing tenfold) where H is not positive definite."""
    lam = 0.0
    scale = max(1.0, float(np.max(np.abs(np.diag(hmat)))))
    for _ in range(30):
        try:
            chol = linalg.cho_factor(hmat + lam * np.eye(hmat.shape[0]), lower=True)
            return linalg.cho_solve(chol, grad)
        except linalg.LinAlgError:
            lam = 1e-6 * scale if lam == 0.0 else lam * 10.0
    return grad / scale
