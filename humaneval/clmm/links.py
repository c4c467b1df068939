"""Per-observation log-likelihood of a cumulative link model and its derivatives.

docs/native-engine.md, dissertation eq. 3.22: for an observation in category y (0-based)
with linear predictor η,

    P = F(a) − F(c),   a = θ_y − η,   c = θ_{y−1} − η,   θ_{−1} = −∞, θ_{K−1} = +∞.

The Laplace approximation (docs/native-engine.md) needs, per observation, ℓ = log P, its derivatives with
respect to η (g = ∂ℓ/∂η and W = −∂²ℓ/∂η², the weight of the random-effect Hessian) and, for the
analytic gradient of the approximation, the third derivatives ∂W/∂η, ∂W/∂θ and ∂g/∂θ. They follow
from the partial derivatives of log P in (a, c), with ∂/∂η = −(∂/∂a + ∂/∂c).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from humaneval.clmm import fused
from humaneval.errors import OptionError

#: The links of ``ordinal::clmm``: the latent distribution F of the cumulative model.
CLMM_LINKS: tuple[str, ...] = ("logit", "probit", "cloglog", "loglog", "cauchit")


def check_link(link: str) -> str:
    """``link`` if the native engine knows it, else :class:`~humaneval.errors.ModelSpecError`."""
    if link not in CLMM_LINKS:
        raise OptionError(f"link must be one of {', '.join(CLMM_LINKS)}, not {link!r}")
    return link


def cdf(x: np.ndarray, link: str) -> np.ndarray:
    """F(x) of the link's latent distribution (logistic, normal, Gumbel min/max, Cauchy)."""
    x = np.asarray(x, dtype=float)
    if link == "logit":
        return special.expit(x)
    if link == "probit":
        return special.ndtr(x)
    if link == "cloglog":
        return -np.expm1(-np.exp(x))
    if link == "loglog":
        return np.exp(-np.exp(-x))
    return 0.5 + np.arctan(x) / np.pi


def survival(x: np.ndarray, link: str) -> np.ndarray:
    """1 − F(x), computed without cancellation in the upper tail."""
    x = np.asarray(x, dtype=float)
    if link == "cloglog":
        return np.exp(-np.exp(x))
    if link == "loglog":
        return -np.expm1(-np.exp(-x))
    return cdf(-x, link)  # the symmetric links


def quantile(p: np.ndarray, link: str) -> np.ndarray:
    """F⁻¹(p) (start values of the thresholds)."""
    p = np.asarray(p, dtype=float)
    if link == "logit":
        return special.logit(p)
    if link == "probit":
        return special.ndtri(p)
    if link == "cloglog":
        return np.log(-np.log1p(-p))
    if link == "loglog":
        return -np.log(-np.log(p))
    return np.tan(np.pi * (p - 0.5))


def _density_terms(x: np.ndarray, link: str, order: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """f, f′ and (``order`` 3) f″ of the link's latent density at x, all 0 at ±∞."""
    if link == "logit":
        cdf_x = special.expit(x)  # exactly 0 or 1 at ±∞, so every term below is 0 there
        f = cdf_x * (1.0 - cdf_x)
        f1 = f * (1.0 - 2.0 * cdf_x)
        return f, f1, f * (1.0 - 6.0 * cdf_x + 6.0 * cdf_x * cdf_x) if order > 2 else None
    if link == "probit":
        z = np.clip(x, -40.0, 40.0)  # φ(±40) underflows to 0, avoiding ∞·0 at ±∞
        f = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
        return f, -z * f, (z * z - 1.0) * f if order > 2 else None
    finite = np.isfinite(x)
    z = np.where(finite, x, 0.0)
    if link == "cauchit":
        s = 1.0 + z * z
        f = 1.0 / (np.pi * s)
        f1 = -2.0 * z / (np.pi * s * s)
        f2 = (6.0 * z * z - 2.0) / (np.pi * s**3) if order > 2 else None
    else:
        # cloglog: f = exp(z − eᶻ); loglog is its mirror image, f(x) = f_cloglog(−x)
        sign = 1.0 if link == "cloglog" else -1.0
        t = np.clip(sign * z, -700.0, 700.0)
        e = np.exp(np.minimum(t, 50.0))
        f = np.where(t > 50.0, 0.0, np.exp(t - e))
        f1 = sign * f * (1.0 - e)
        f2 = f * ((1.0 - e) ** 2 - e) if order > 2 else None
    f, f1 = np.where(finite, f, 0.0), np.where(finite, f1, 0.0)
    return f, f1, np.where(finite, f2, 0.0) if f2 is not None else None


def _logit_terms(upper: np.ndarray, lower: np.ndarray, order: int):
    """:func:`interval_probability` and :func:`_density_terms` of both bounds for the logit link from
    four ``expit`` calls (f = F(1 − F), f′ = f(1 − 2F), f″ = f(1 − 6F(1 − F)), each F and 1 − F
    evaluated directly so that neither tail cancels)."""
    terms = []
    for x in (upper, lower):
        cdf_x, surv_x = special.expit(x), special.expit(-x)
        f = cdf_x * surv_x
        terms.append((cdf_x, surv_x, (f, f * (surv_x - cdf_x), f * (1.0 - 6.0 * f) if order > 2 else None)))
    (fu, su, upper_terms), (fl, sl, lower_terms) = terms
    prob = np.where(lower > 0, sl - su, fu - fl)
    return prob, upper_terms, lower_terms


def interval_probability(upper: np.ndarray, lower: np.ndarray, link: str) -> np.ndarray:
    """F(upper) − F(lower), evaluated in the tail where it does not cancel."""
    flip = lower > 0
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(
            flip, survival(lower, link) - survival(upper, link), cdf(upper, link) - cdf(lower, link)
        )


@dataclass(frozen=True)
class ObsTerms:
    """Per-observation ℓ, g and W, plus (``order=3``) the third-order terms of the gradient.

    ``d_up``/``d_low`` are ∂ℓ/∂θ for the upper and lower threshold of the observation's category,
    ``dw`` is ∂W/∂η, ``dw_up``/``dw_low`` are ∂W/∂θ and ``dg_up``/``dg_low`` are ∂g/∂θ.
    """

    loglik: np.ndarray
    g: np.ndarray
    w: np.ndarray
    d_up: np.ndarray | None = None
    d_low: np.ndarray | None = None
    dw: np.ndarray | None = None
    dw_up: np.ndarray | None = None
    dw_low: np.ndarray | None = None
    dg_up: np.ndarray | None = None
    dg_low: np.ndarray | None = None


def obs_terms(theta_ext: np.ndarray, y: np.ndarray, eta: np.ndarray, link: str, order: int = 2) -> ObsTerms:
    """Derivatives of log P(y | η) (module docstring); ``theta_ext`` is [−∞, θ_1..θ_{K−1}, +∞].

    Observations with P ≤ 0 (only possible for non-increasing thresholds) get ℓ = −∞. Large logit
    fits run the same formulas compiled in one pass when numba is installed (:mod:`humaneval.clmm.fused`).
    """
    if link == "logit" and eta.ndim == 1 and np.shape(y) == eta.shape and fused.wanted(eta.size):
        return ObsTerms(*fused.logit_terms(theta_ext, y, eta, order))
    a = theta_ext[y + 1] - eta
    c = theta_ext[y] - eta
    with np.errstate(divide="ignore", invalid="ignore"):
        if link == "logit":  # F and 1 − F once per bound serve P and the density terms alike
            prob, (fa, fa1, fa2), (fc, fc1, fc2) = _logit_terms(a, c, order)
        else:
            prob = interval_probability(a, c, link)
            fa, fa1, fa2 = _density_terms(a, link, order)
            fc, fc1, fc2 = _density_terms(c, link, order)
        la = fa / prob
        lc = -fc / prob
        ra = fa1 / prob
        rc = -fc1 / prob
        l_aa = ra - la * la
        l_cc = rc - lc * lc
        l_ac = -la * lc
        loglik = np.log(prob)
    g = -(la + lc)
    w = -(l_aa + 2.0 * l_ac + l_cc)
    if order < 3:
        return ObsTerms(loglik, g, w)
    l_aaa = fa2 / prob - 3.0 * ra * la + 2.0 * la**3
    l_ccc = -fc2 / prob - 3.0 * rc * lc + 2.0 * lc**3
    l_aac = -ra * lc + 2.0 * la * la * lc
    l_acc = -rc * la + 2.0 * la * lc * lc
    return ObsTerms(
        loglik=loglik,
        g=g,
        w=w,
        d_up=la,
        d_low=lc,
        dw=l_aaa + 3.0 * l_aac + 3.0 * l_acc + l_ccc,
        dw_up=-(l_aaa + 2.0 * l_aac + l_acc),
        dw_low=-(l_aac + 2.0 * l_acc + l_ccc),
        dg_up=-(l_aa + l_ac),
        dg_low=-(l_ac + l_cc),
    )
