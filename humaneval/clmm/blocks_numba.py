"""The compiled Laplace evaluation of :mod:`humaneval.clmm.blocks` (imported only when numba is installed).

:func:`laplace_blocks` evaluates one bucket of :mod:`humaneval.clmm.design` for the logit link:
per block, the Newton solve of its modes with a dense Cholesky factor of
H_b = I + Σ_i W_i m_i m_iᵀ (step halving as in :mod:`humaneval.clmm.laplace`), its share of ℓ_LA
and, when asked for, the per-observation parts of the gradient (module docstring of
:mod:`humaneval.clmm.laplace`). Observation i of block b has the p entries ``rows[pattern[i]]`` of
m_i at the block's columns ``cols[i]``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from humaneval.clmm.fused_numba import obs_terms2

#: Reassociation and fused multiply–adds let the compiler vectorise the sums of the dense linear
#: algebra (Cholesky 2×, inverse, solves): rounding-level differences only; NaN and ∞ checks stay.
LINALG_MATH = {"reassoc", "contract"}
#: A block whose mode gradient is already this small needs no polishing step.
FLOOR = 1e-13


@njit(cache=True, error_model="numpy")
def _block(theta_ext, y, eta_fix, rows, pattern, cols, lo, hi, u, grad, hess):
    """F_b(u) = Σ ℓ_i − ‖u‖²/2 of the observations lo..hi−1; ∂F/∂u into ``grad`` and the lower
    triangle of I + Σ W_i m_i m_iᵀ into ``hess`` (all that :func:`_cholesky` reads)."""
    d = u.size
    p = cols.shape[1]
    value = 0.0
    for j in range(d):
        value -= 0.5 * u[j] * u[j]
        grad[j] = -u[j]
        for k in range(j):
            hess[j, k] = 0.0
        hess[j, j] = 1.0
    for i in range(lo, hi):
        m = rows[pattern[i]]
        eta = eta_fix[i]
        for j in range(p):
            eta += m[j] * u[cols[i, j]]
        out = obs_terms2(theta_ext[y[i]], theta_ext[y[i] + 1], eta)
        value += out[0]
        for j in range(p):
            if m[j] == 0.0:
                continue
            cj = cols[i, j]
            grad[cj] += m[j] * out[1]
            wm = out[2] * m[j]
            for k in range(p):
                ck = cols[i, k]
                if ck <= cj:
                    hess[cj, ck] += wm * m[k]
    return value


@njit(cache=True, error_model="numpy", fastmath=LINALG_MATH)
def _cholesky(a, low):
    """Lower Cholesky factor of ``a`` (its lower triangle) into ``low``; False unless positive definite."""
    d = a.shape[0]
    for j in range(d):
        s = a[j, j]
        for k in range(j):
            s -= low[j, k] * low[j, k]
        if not s > 0:
            return False
        low[j, j] = math.sqrt(s)
        for i in range(j + 1, d):
            t = a[i, j]
            for k in range(j):
                t -= low[i, k] * low[j, k]
            low[i, j] = t / low[j, j]
    return True


@njit(cache=True, error_model="numpy", fastmath=LINALG_MATH)
def _solve(low, b, out):
    """(L Lᵀ)⁻¹ b into ``out``."""
    d = b.size
    for i in range(d):
        s = b[i]
        for k in range(i):
            s -= low[i, k] * out[k]
        out[i] = s / low[i, i]
    for i in range(d - 1, -1, -1):
        s = out[i]
        for k in range(i + 1, d):
            s -= low[k, i] * out[k]
        out[i] = s / low[i, i]


@njit(cache=True, error_model="numpy", fastmath=LINALG_MATH)
def _inverse(low):
    """(L Lᵀ)⁻¹ = XᵀX with X = L⁻¹ from the Cholesky factor; both loops run along rows (axpy and
    rank-one updates), which the compiler vectorises."""
    d = low.shape[0]
    x = np.zeros((d, d))  # L⁻¹, lower triangular, row by row
    for i in range(d):
        x[i, i] = 1.0
        for k in range(i):
            c = low[i, k]
            for j in range(k + 1):
                x[i, j] -= c * x[k, j]
        inv_diag = 1.0 / low[i, i]
        for j in range(i + 1):
            x[i, j] *= inv_diag
    out = np.zeros((d, d))
    for k in range(d):
        for i in range(k + 1):
            c = x[k, i]
            for j in range(i + 1):
                out[i, j] += c * x[k, j]
    for i in range(d):
        for j in range(i):
            out[j, i] = out[i, j]
    return out


@njit(cache=True, error_model="numpy")
def laplace_blocks(
    theta_ext,
    y,
    eta_fix,
    rows,
    pattern,
    starts,
    cols,
    u,
    n_thr,
    tol,
    max_iter,
    gradient,
    g_theta,
    kappa,
    g_rows,
):
    """ℓ_LA's share of one bucket (blocks ``starts[b]..starts[b+1]`` of the observations, modes ``u``
    of shape blocks × d solved in place). With ``gradient``: ∂ℓ/∂θ added to ``g_theta``, κ_i into
    ``kappa`` (∂ℓ/∂β = Xᵀκ) and the bracket of ∂ℓ/∂L summed per pattern into ``g_rows``
    (patterns × p). Returns ``(value, ok)``; ``ok`` False where θ is not finite and increasing, the
    likelihood is zero or some H_b is not positive definite."""
    for k in range(1, theta_ext.size - 1):
        if not (math.isfinite(theta_ext[k]) and theta_ext[k] > theta_ext[k - 1]):
            return -math.inf, False
    n_blocks, d = u.shape
    grad = np.empty(d)
    hess = np.empty((d, d))
    low = np.empty((d, d))
    step = np.empty(d)
    u_try = np.empty(d)
    grad_try = np.empty(d)
    hess_try = np.empty((d, d))
    total = 0.0
    for b in range(n_blocks):
        lo, hi = starts[b], starts[b + 1]
        ub = u[b]
        value = _block(theta_ext, y, eta_fix, rows, pattern, cols, lo, hi, ub, grad, hess)
        if not math.isfinite(value):
            ub[:] = 0.0
            value = _block(theta_ext, y, eta_fix, rows, pattern, cols, lo, hi, ub, grad, hess)
            if not math.isfinite(value):
                return -math.inf, False
        polished = factored = False
        for _ in range(max_iter):
            size = np.max(np.abs(grad))
            small = size < tol
            if small:
                if polished or size < FLOOR:
                    break
                # one more step, a chord step with this block's last factor where there is one:
                # Newton's error is then at the rounding floor (the stale factor's is second order)
                polished = True
            if not (small and factored):
                if not _cholesky(hess, low):
                    return -math.inf, False
                factored = True
            _solve(low, grad, step)
            factor = 1.0
            while True:
                for j in range(d):
                    u_try[j] = ub[j] + factor * step[j]
                value_try = _block(
                    theta_ext, y, eta_fix, rows, pattern, cols, lo, hi, u_try, grad_try, hess_try
                )
                if value_try >= value - 1e-12 * abs(value) or factor < 1e-8:
                    break
                factor *= 0.5
            ub[:] = u_try
            grad, grad_try = grad_try, grad
            hess, hess_try = hess_try, hess
            value = value_try
        if not _cholesky(hess, low):
            return -math.inf, False
        logdet = 0.0
        for j in range(d):
            logdet += 2.0 * math.log(low[j, j])
        total += value - 0.5 * logdet
        if gradient:
            _block_gradient(
                theta_ext, y, eta_fix, rows, pattern, cols, lo, hi, ub, low, n_thr, g_theta, kappa, g_rows
            )
    return total, True


@njit(cache=True, error_model="numpy")
def _block_gradient(
    theta_ext, y, eta_fix, rows, pattern, cols, lo, hi, u, low, n_thr, g_theta, kappa, g_rows
):
    """The gradient parts of one block at its modes ``u`` (H = L Lᵀ there)."""
    d = u.size
    p = cols.shape[1]
    inv = _inverse(low)
    n = hi - lo
    terms = np.empty((n, 10))  # g, W, W′, d_up, d_low, dW_up, dW_low, dg_up, dg_low, h
    cm = np.empty((n, p))  # (H⁻¹ m_i) at the observation's own columns
    r = np.zeros(d)
    for i in range(lo, hi):
        m = rows[pattern[i]]
        eta = eta_fix[i]
        for j in range(p):
            eta += m[j] * u[cols[i, j]]
        _, g, w, prob, fa, fc, la, lc, ra, rc, l_aa, l_cc, l_ac = obs_terms2(
            theta_ext[y[i]], theta_ext[y[i] + 1], eta
        )
        l_aaa = fa * (1.0 - 6.0 * fa) / prob - 3.0 * ra * la + 2.0 * la * la * la
        l_ccc = -fc * (1.0 - 6.0 * fc) / prob - 3.0 * rc * lc + 2.0 * lc * lc * lc
        l_aac = -ra * lc + 2.0 * la * la * lc
        l_acc = -rc * la + 2.0 * la * lc * lc
        t = terms[i - lo]
        t[0] = g
        t[1] = w
        t[2] = l_aaa + 3.0 * l_aac + 3.0 * l_acc + l_ccc
        t[3] = la
        t[4] = lc
        t[5] = -(l_aaa + 2.0 * l_aac + l_acc)
        t[6] = -(l_aac + 2.0 * l_acc + l_ccc)
        t[7] = -(l_aa + l_ac)
        t[8] = -(l_ac + l_cc)
        lev = 0.0
        for j in range(p):
            s = 0.0
            for k in range(p):
                s += inv[cols[i, j], cols[i, k]] * m[k]
            cm[i - lo, j] = s
            lev += m[j] * s
        t[9] = lev
        for j in range(p):
            r[cols[i, j]] += m[j] * t[2] * lev
    v = np.zeros(d)
    for j in range(d):
        s = 0.0
        for k in range(d):
            s += inv[j, k] * r[k]
        v[j] = s
    for i in range(lo, hi):
        m = rows[pattern[i]]
        t = terms[i - lo]
        g, w, dw, lev = t[0], t[1], t[2], t[9]
        mv = 0.0
        for j in range(p):
            mv += m[j] * v[cols[i, j]]
        k_i = g - 0.5 * (lev * dw - w * mv)
        kappa[i] = k_i
        if y[i] < n_thr:
            g_theta[y[i]] += t[3] - 0.5 * (lev * t[5] + mv * t[7])
        if y[i] > 0:
            g_theta[y[i] - 1] += t[4] - 0.5 * (lev * t[6] + mv * t[8])
        for j in range(p):
            c = cols[i, j]
            g_rows[pattern[i], j] += k_i * u[c] - w * cm[i - lo, j] - 0.5 * g * v[c]
