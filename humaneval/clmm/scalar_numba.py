"""The compiled Laplace evaluation of :mod:`humaneval.clmm.scalar` (imported only when numba is installed).

:func:`laplace_logit` runs the whole evaluation for the logit link in loops over the observations
and groups: the Newton solve of every group's mode (with the step halving of the numpy path), ℓ_LA
and, when asked for, its gradient. Per observation the terms are those of
:func:`humaneval.clmm.fused_numba.obs_terms2` (shared with the fused terms and the block path) and the
third-order block of ``order3``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from humaneval.clmm.fused_numba import obs_terms2


@njit(cache=True, error_model="numpy")
def _groups(theta_ext, y, eta_fix, a, group, u, f, s, h):
    """Per group at the modes ``u``: F_j = Σ ℓ_i − u_j²/2 into ``f``, ∂F/∂u_j into ``s`` and the
    Hessian 1 + Σ a_i² W_i into ``h``; returns Σ_j F_j."""
    f[:] = -0.5 * u * u
    s[:] = -u
    h[:] = 1.0
    for i in range(y.size):
        j = group[i]
        out = obs_terms2(theta_ext[y[i]], theta_ext[y[i] + 1], eta_fix[i] + a[i] * u[j])
        f[j] += out[0]
        s[j] += a[i] * out[1]
        h[j] += a[i] * a[i] * out[2]
    return f.sum()


@njit(cache=True, error_model="numpy")
def laplace_logit(theta_ext, y, x, beta, z, sigma, group, u, n_thr, tol, max_iter, gradient, g_theta, g_beta):
    """ℓ_LA of a single scalar random term (logit link) at thresholds ``theta_ext`` = [−∞, θ, ∞], β and
    L = ``sigma``; the modes ``u`` are solved in place from their warm start. Gradients go into
    ``g_theta`` and ``g_beta`` (zeroed by the caller); returns ``(ℓ_LA, ∂ℓ/∂L, ok)`` with ``ok``
    False where θ is not finite and increasing, the likelihood is zero or some H_j ≤ 0."""
    for k in range(1, theta_ext.size - 1):
        if not (math.isfinite(theta_ext[k]) and theta_ext[k] > theta_ext[k - 1]):
            return -math.inf, 0.0, False
    n = y.size
    eta_fix = np.zeros(n)
    a = np.empty(n)
    for i in range(n):
        for k in range(beta.size):
            eta_fix[i] += x[i, k] * beta[k]
        a[i] = z[i] * sigma
    n_groups = u.size
    f = np.empty(n_groups)
    s = np.empty(n_groups)
    h = np.empty(n_groups)
    total = _groups(theta_ext, y, eta_fix, a, group, u, f, s, h)
    if not math.isfinite(total):
        u[:] = 0.0
        total = _groups(theta_ext, y, eta_fix, a, group, u, f, s, h)
        if not math.isfinite(total):
            return -math.inf, 0.0, False
    f_try = np.empty(n_groups)
    s_try = np.empty(n_groups)
    h_try = np.empty(n_groups)
    u_try = np.empty(n_groups)
    step = np.empty(n_groups)
    factor = np.empty(n_groups)
    pending = np.empty(n_groups, dtype=np.bool_)
    polished = False
    for _ in range(max_iter):
        if np.max(np.abs(s)) < tol:
            if polished:
                break
            polished = True  # one more step: Newton's error is then at the rounding floor
        for j in range(n_groups):
            if not h[j] > 0:
                return -math.inf, 0.0, False
            step[j] = s[j] / h[j]
        factor[:] = 1.0
        pending[:] = True
        while True:
            for j in range(n_groups):
                u_try[j] = u[j] + factor[j] * step[j] if pending[j] else u[j]
            _groups(theta_ext, y, eta_fix, a, group, u_try, f_try, s_try, h_try)
            done = True
            for j in range(n_groups):
                if not pending[j]:
                    continue
                if f_try[j] >= f[j] - 1e-12 * abs(f[j]) or factor[j] < 1e-8:
                    pending[j] = False
                    u[j], f[j], s[j], h[j] = u_try[j], f_try[j], s_try[j], h_try[j]
                else:
                    factor[j] *= 0.5
                    done = False
            if done:
                break
    logdet = 0.0
    for j in range(n_groups):
        if not h[j] > 0:
            return -math.inf, 0.0, False
        logdet += math.log(h[j])
    loglik = f.sum() - 0.5 * logdet
    if not gradient:
        return loglik, 0.0, True
    # r_j = Σ a_i W′_i h_i with h_i = a_i² / H_j, then v = r / H
    terms = np.empty((n, 9))
    r = np.zeros(n_groups)
    for i in range(n):
        j = group[i]
        lo, hi = theta_ext[y[i]], theta_ext[y[i] + 1]
        _, g, w, prob, fa, fc, la, lc, ra, rc, l_aa, l_cc, l_ac = obs_terms2(lo, hi, eta_fix[i] + a[i] * u[j])
        l_aaa = fa * (1.0 - 6.0 * fa) / prob - 3.0 * ra * la + 2.0 * la * la * la
        l_ccc = -fc * (1.0 - 6.0 * fc) / prob - 3.0 * rc * lc + 2.0 * lc * lc * lc
        l_aac = -ra * lc + 2.0 * la * la * lc
        l_acc = -rc * la + 2.0 * la * lc * lc
        dw = l_aaa + 3.0 * l_aac + 3.0 * l_acc + l_ccc
        terms[i, 0] = g
        terms[i, 1] = w
        terms[i, 2] = dw
        terms[i, 3] = la
        terms[i, 4] = lc
        terms[i, 5] = -(l_aaa + 2.0 * l_aac + l_acc)
        terms[i, 6] = -(l_aac + 2.0 * l_acc + l_ccc)
        terms[i, 7] = -(l_aa + l_ac)
        terms[i, 8] = -(l_ac + l_cc)
        r[j] += a[i] * dw * a[i] * a[i] / h[j]
    g_sigma = 0.0
    for i in range(n):
        j = group[i]
        g, w, dw = terms[i, 0], terms[i, 1], terms[i, 2]
        lev = a[i] * a[i] / h[j]
        v = r[j] / h[j]
        mv = a[i] * v
        kappa = g - 0.5 * (lev * dw - w * mv)
        for k in range(g_beta.size):
            g_beta[k] += x[i, k] * kappa
        if y[i] < n_thr:
            g_theta[y[i]] += terms[i, 3] - 0.5 * (lev * terms[i, 5] + mv * terms[i, 7])
        if y[i] > 0:
            g_theta[y[i] - 1] += terms[i, 4] - 0.5 * (lev * terms[i, 6] + mv * terms[i, 8])
        g_sigma += z[i] * (kappa * u[j] - w * a[i] / h[j] - 0.5 * g * v)
    return loglik, g_sigma, True
