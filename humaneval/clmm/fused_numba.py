"""The compiled loops of :mod:`humaneval.clmm.fused` (imported only when numba is installed).

``order2`` writes ℓ, g and W of each observation into rows 0–2 of ``out``; ``order3`` also the
third-order terms d_up, d_low, dW/dη, dW/dθ_up, dW/dθ_low, dg/dθ_up, dg/dθ_low (rows 3–9), by the
formulas of :func:`humaneval.clmm.links.obs_terms` for the logit link.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, error_model="numpy")
def _expit_both(x):
    """F(x) and 1 − F(x) of the logistic distribution from one exp, neither by subtraction."""
    e = math.exp(-abs(x))
    big, small = 1.0 / (1.0 + e), e / (1.0 + e)
    return (big, small) if x >= 0 else (small, big)


@njit(cache=True, error_model="numpy")
def obs_terms2(lo, hi, eta):
    """ℓ, g, W of one observation with bounds θ_{y−1} = ``lo`` and θ_y = ``hi`` and linear predictor
    ``eta``, then what the third-order terms reuse (P, f(a), f(c), ℓ_a, ℓ_c, r_a, r_c, ℓ_aa, ℓ_cc, ℓ_ac)."""
    a = hi - eta
    c = lo - eta
    fu, su = _expit_both(a)
    fl, sl = _expit_both(c)
    prob = (sl - su) if c > 0 else (fu - fl)
    fa = fu * su
    fc = fl * sl
    la = fa / prob
    lc = -fc / prob
    ra = fa * (su - fu) / prob
    rc = -fc * (sl - fl) / prob
    l_aa = ra - la * la
    l_cc = rc - lc * lc
    l_ac = -la * lc
    loglik = math.log(prob) if prob > 0 else (-math.inf if prob == 0 else math.nan)
    return loglik, -(la + lc), -(l_aa + 2.0 * l_ac + l_cc), prob, fa, fc, la, lc, ra, rc, l_aa, l_cc, l_ac


@njit(cache=True, error_model="numpy")
def _second(theta_ext, y, eta, i, out):
    """Row ``i`` of orders 0–2 into ``out[0:3]``; returns what the third-order terms reuse."""
    terms = obs_terms2(theta_ext[y[i]], theta_ext[y[i] + 1], eta[i])
    out[0, i] = terms[0]
    out[1, i] = terms[1]
    out[2, i] = terms[2]
    return terms[3:]


@njit(cache=True, error_model="numpy")
def order2(theta_ext, y, eta, out):
    for i in range(eta.size):
        _second(theta_ext, y, eta, i, out)


@njit(cache=True, error_model="numpy")
def order3(theta_ext, y, eta, out):
    for i in range(eta.size):
        prob, fa, fc, la, lc, ra, rc, l_aa, l_cc, l_ac = _second(theta_ext, y, eta, i, out)
        l_aaa = fa * (1.0 - 6.0 * fa) / prob - 3.0 * ra * la + 2.0 * la * la * la
        l_ccc = -fc * (1.0 - 6.0 * fc) / prob - 3.0 * rc * lc + 2.0 * lc * lc * lc
        l_aac = -ra * lc + 2.0 * la * la * lc
        l_acc = -rc * la + 2.0 * la * lc * lc
        out[3, i] = la
        out[4, i] = lc
        out[5, i] = l_aaa + 3.0 * l_aac + 3.0 * l_acc + l_ccc
        out[6, i] = -(l_aaa + 2.0 * l_aac + l_acc)
        out[7, i] = -(l_aac + 2.0 * l_acc + l_ccc)
        out[8, i] = -(l_aa + l_ac)
        out[9, i] = -(l_ac + l_cc)
