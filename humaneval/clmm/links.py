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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, overload

import numpy as np
from scipy import special

from humaneval.clmm import fused
from humaneval.errors import OptionError

DensityTerms = tuple[np.ndarray, np.ndarray, np.ndarray | None]


@dataclass(frozen=True)
class Link:
    """One link of the cumulative model: the latent distribution F and what the engines need of it.

    ``cdf`` is F, ``survival`` 1 − F without cancellation in the upper tail, ``quantile`` F⁻¹ (start
    values of the thresholds), ``density(x, order)`` the density f and its derivatives f′ and (for
    ``order`` 3) f″, all 0 at ±∞; ``r_name`` is the name under which ``ordinal::clmm`` fits this
    distribution, and ``r_name_single_intercept`` the name it needs when the model's only random
    term is one random intercept (:func:`humaneval.clmm.rbridge.r_link`; default ``r_name``). A new
    link is one more record in :data:`LINKS` (docs/native-engine.md, "Adding a link").
    """

    name: str
    distribution: str
    cdf: Callable[[np.ndarray], np.ndarray]
    survival: Callable[[np.ndarray], np.ndarray]
    quantile: Callable[[np.ndarray], np.ndarray]
    density: Callable[[np.ndarray, int], DensityTerms]
    r_name: str
    r_name_single_intercept: str | None = None


def _finite(
    x: np.ndarray, terms: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]], order: int
):
    """Density terms at the finite points of x, 0 at ±∞."""
    finite = np.isfinite(x)
    f, f1, f2 = terms(np.where(finite, x, 0.0))
    return (
        np.where(finite, f, 0.0),
        np.where(finite, f1, 0.0),
        np.where(finite, f2, 0.0) if order > 2 else None,
    )


def _logistic_density(x: np.ndarray, order: int) -> DensityTerms:
    cdf_x = special.expit(x)  # exactly 0 or 1 at ±∞, so every term below is 0 there
    f = cdf_x * (1.0 - cdf_x)
    f1 = f * (1.0 - 2.0 * cdf_x)
    return f, f1, f * (1.0 - 6.0 * cdf_x + 6.0 * cdf_x * cdf_x) if order > 2 else None


def _normal_density(x: np.ndarray, order: int) -> DensityTerms:
    z = np.clip(x, -40.0, 40.0)  # φ(±40) underflows to 0, avoiding ∞·0 at ±∞
    f = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    return f, -z * f, (z * z - 1.0) * f if order > 2 else None


def _cauchy_terms(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = 1.0 + z * z
    return 1.0 / (np.pi * s), -2.0 * z / (np.pi * s * s), (6.0 * z * z - 2.0) / (np.pi * s**3)


def _gumbel_terms(sign: float) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """cloglog (sign 1): f = exp(z − eᶻ); loglog (sign −1) is its mirror image, f(x) = f_cloglog(−x)."""

    def terms(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        t = np.clip(sign * z, -700.0, 700.0)
        e = np.exp(np.minimum(t, 50.0))
        f = np.where(t > 50.0, 0.0, np.exp(t - e))
        return f, sign * f * (1.0 - e), f * ((1.0 - e) ** 2 - e)

    return terms


#: The links of ``ordinal::clmm``, by name: the latent distribution F of the cumulative model.
LINKS: dict[str, Link] = {
    link.name: link
    for link in (
        Link(
            "logit", "logistic", special.expit, lambda x: special.expit(-x), special.logit,
            _logistic_density, r_name="logit",
        ),
        Link(
            "probit", "standard normal", special.ndtr, lambda x: special.ndtr(-x), special.ndtri,
            _normal_density, r_name="probit",
        ),
        Link(
            "cloglog", "Gumbel (minimum)", lambda x: -np.expm1(-np.exp(x)), lambda x: np.exp(-np.exp(x)),
            lambda p: np.log(-np.log1p(-p)), lambda x, order: _finite(x, _gumbel_terms(1.0), order),
            r_name="cloglog", r_name_single_intercept="loglog",
        ),
        Link(
            "loglog", "Gumbel (maximum)", lambda x: np.exp(-np.exp(-x)), lambda x: -np.expm1(-np.exp(-x)),
            lambda p: -np.log(-np.log(p)), lambda x, order: _finite(x, _gumbel_terms(-1.0), order),
            r_name="loglog", r_name_single_intercept="cloglog",
        ),
        Link(
            "cauchit", "Cauchy", lambda x: 0.5 + np.arctan(x) / np.pi, lambda x: 0.5 - np.arctan(x) / np.pi,
            lambda p: np.tan(np.pi * (p - 0.5)), lambda x, order: _finite(x, _cauchy_terms, order),
            r_name="cauchit",
        ),
    )
}  # fmt: skip
#: The link names, in the order the CLI offers them.
CLMM_LINKS: tuple[str, ...] = tuple(LINKS)


def get_link(link: str | Link) -> Link:
    """The :class:`Link` record named ``link``; :class:`~humaneval.errors.OptionError` if there is none."""
    if isinstance(link, Link):
        return link
    try:
        return LINKS[link]
    except (KeyError, TypeError):
        raise OptionError(f"link must be one of {', '.join(CLMM_LINKS)}, not {link!r}") from None


def check_link(link: str) -> str:
    """``link`` if it is a known link, else :class:`~humaneval.errors.OptionError`."""
    return get_link(link).name


def cdf(x: np.ndarray, link: str) -> np.ndarray:
    """F(x) of the link's latent distribution (logistic, normal, Gumbel min/max, Cauchy)."""
    return get_link(link).cdf(np.asarray(x, dtype=float))


def survival(x: np.ndarray, link: str) -> np.ndarray:
    """1 − F(x), computed without cancellation in the upper tail."""
    return get_link(link).survival(np.asarray(x, dtype=float))


def quantile(p: np.ndarray, link: str) -> np.ndarray:
    """F⁻¹(p) (start values of the thresholds)."""
    return get_link(link).quantile(np.asarray(p, dtype=float))


def _density_terms(x: np.ndarray, link: str, order: int) -> DensityTerms:
    """f, f′ and (``order`` 3) f″ of the link's latent density at x, all 0 at ±∞."""
    return get_link(link).density(x, order)


def _logit_terms(upper: np.ndarray, lower: np.ndarray, order: int):
    """:func:`interval_probability` and :func:`_density_terms` of both bounds for the logit link from
    F and 1 − F of each bound (f = F(1 − F), f′ = f(1 − 2F), f″ = f(1 − 6F(1 − F)), each evaluated
    directly so that neither tail cancels). F is ``expit``'s own formula 1/(1 + e^(−x)) in numpy
    calls: the same values, in half the time of the ufunc on a few thousand rows."""
    terms = []
    with np.errstate(over="ignore"):  # e^(±x) = ∞ gives F = 0 or 1 − F = 0, as expit does
        for x in (upper, lower):
            cdf_x, surv_x = 1.0 / (1.0 + np.exp(-x)), 1.0 / (1.0 + np.exp(x))
            f = cdf_x * surv_x
            terms.append(
                (cdf_x, surv_x, (f, f * (surv_x - cdf_x), f * (1.0 - 6.0 * f) if order > 2 else None))
            )
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
    # the intermediate values a second-order call computed, for :func:`third_order` to reuse
    _known: tuple | None = field(default=None, repr=False, compare=False, kw_only=True)


@dataclass(frozen=True)
class ThirdOrderTerms(ObsTerms):
    """:class:`ObsTerms` of ``order=3``, every third-order term present."""

    d_up: np.ndarray
    d_low: np.ndarray
    dw: np.ndarray
    dw_up: np.ndarray
    dw_low: np.ndarray
    dg_up: np.ndarray
    dg_low: np.ndarray


@overload
def obs_terms(
    theta_ext: np.ndarray, y: np.ndarray, eta: np.ndarray, link: str, order: Literal[3]
) -> ThirdOrderTerms: ...
@overload
def obs_terms(
    theta_ext: np.ndarray, y: np.ndarray, eta: np.ndarray, link: str, order: int = 2
) -> ObsTerms: ...
def obs_terms(theta_ext: np.ndarray, y: np.ndarray, eta: np.ndarray, link: str, order: int = 2) -> ObsTerms:
    """Derivatives of log P(y | η) (module docstring); ``theta_ext`` is [−∞, θ_1..θ_{K−1}, +∞].

    Observations with P ≤ 0 (only possible for non-increasing thresholds) get ℓ = −∞. Large logit
    fits run the same formulas compiled in one pass when numba is installed (:mod:`humaneval.clmm.fused`).
    """
    if link == "logit" and eta.ndim == 1 and np.shape(y) == eta.shape and fused.wanted(eta.size):
        return (ObsTerms if order < 3 else ThirdOrderTerms)(*fused.logit_terms(theta_ext, y, eta, order))
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
        known = (prob, fa, fc, la, lc, ra, rc, l_aa, l_cc, l_ac) if link == "logit" else None
        return ObsTerms(loglik, g, w, _known=known)
    return _with_third_order(ObsTerms(loglik, g, w), prob, fa2, fc2, la, lc, ra, rc, l_aa, l_cc, l_ac)


def third_order(
    theta_ext: np.ndarray, y: np.ndarray, eta: np.ndarray, link: str, terms: ObsTerms
) -> ThirdOrderTerms:
    """:func:`obs_terms` of ``order=3`` at the η where ``terms`` (of order 2) were computed: the numpy
    logit path adds only the third-order terms to the values it kept (the same numbers as computing
    them afresh, without the four ``expit`` calls and the second-order arithmetic again)."""
    if isinstance(terms, ThirdOrderTerms):
        return terms
    if terms._known is None:
        return obs_terms(theta_ext, y, eta, link, order=3)
    prob, fa, fc, la, lc, ra, rc, l_aa, l_cc, l_ac = terms._known
    return _with_third_order(
        terms, prob, fa * (1.0 - 6.0 * fa), fc * (1.0 - 6.0 * fc), la, lc, ra, rc, l_aa, l_cc, l_ac
    )


def _with_third_order(terms: ObsTerms, prob, fa2, fc2, la, lc, ra, rc, l_aa, l_cc, l_ac) -> ThirdOrderTerms:
    """``terms`` (ℓ, g, W) with the third-order terms (:class:`ObsTerms`) from the partial derivatives."""
    with np.errstate(divide="ignore", invalid="ignore"):
        l_aaa = fa2 / prob - 3.0 * ra * la + 2.0 * la**3
        l_ccc = -fc2 / prob - 3.0 * rc * lc + 2.0 * lc**3
    l_aac = -ra * lc + 2.0 * la * la * lc
    l_acc = -rc * la + 2.0 * la * lc * lc
    return ThirdOrderTerms(
        loglik=terms.loglik,
        g=terms.g,
        w=terms.w,
        d_up=la,
        d_low=lc,
        dw=l_aaa + 3.0 * l_aac + 3.0 * l_acc + l_ccc,
        dw_up=-(l_aaa + 2.0 * l_aac + l_acc),
        dw_low=-(l_aac + 2.0 * l_acc + l_ccc),
        dg_up=-(l_aa + l_ac),
        dg_low=-(l_ac + l_cc),
    )
