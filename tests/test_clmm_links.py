"""Links are a registry: one :class:`Link` record per link, used by both engines, the simulator and
the CLI."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import humaneval.clmm.model
from humaneval.clmm import links
from humaneval.clmm.links import LINKS, Link, get_link, obs_terms
from humaneval.errors import ModelSpecError, OptionError

#: The latent distribution of each link in scipy: an independent reference for every record.
SCIPY = {
    "logit": stats.logistic,
    "probit": stats.norm,
    "cloglog": stats.gumbel_l,  # F(x) = 1 − exp(−eˣ), the minimum extreme value (ordinal::clm's cloglog)
    "loglog": stats.gumbel_r,  # F(x) = exp(−e⁻ˣ)
    "cauchit": stats.cauchy,
}


def test_the_registry_holds_the_links_of_ordinal_clmm():
    assert tuple(LINKS) == ("logit", "probit", "cloglog", "loglog", "cauchit") == links.CLMM_LINKS
    assert all(link.r_name == name for name, link in LINKS.items())
    # the installed clmm's one-random-intercept code path swaps the Gumbel names (rbridge.r_link)
    swapped = {
        name: link.r_name_single_intercept for name, link in LINKS.items() if link.r_name_single_intercept
    }
    assert swapped == {"cloglog": "loglog", "loglog": "cloglog"}


@pytest.mark.parametrize("name", list(LINKS))
def test_each_record_is_its_scipy_distribution(name):
    link, dist = LINKS[name], SCIPY[name]
    x = np.linspace(-6, 6, 121)
    np.testing.assert_allclose(link.cdf(x), dist.cdf(x), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(link.survival(x), dist.sf(x), rtol=1e-10, atol=1e-300)
    p = np.linspace(0.01, 0.99, 99)
    np.testing.assert_allclose(link.quantile(p), dist.ppf(p), rtol=1e-10, atol=1e-12)
    f, f1, f2 = link.density(x, 3)
    np.testing.assert_allclose(f, dist.pdf(x), rtol=1e-10, atol=1e-300)
    h = 1e-5  # f′ and f″ against central differences of scipy's density
    np.testing.assert_allclose(f1, (dist.pdf(x + h) - dist.pdf(x - h)) / (2 * h), atol=1e-7)
    np.testing.assert_allclose(f2, (dist.pdf(x + h) - 2 * dist.pdf(x) + dist.pdf(x - h)) / h**2, atol=1e-4)
    ends = link.density(np.array([-np.inf, np.inf]), 3)
    assert all(np.array_equal(t, [0.0, 0.0]) for t in ends)


def test_unknown_links_fail_in_one_line_everywhere():
    with pytest.raises(OptionError, match="link must be one of logit, probit, cloglog, loglog, cauchit"):
        get_link("identity")
    with pytest.raises(OptionError):
        links.cdf(np.zeros(1), "identity")  # no silent fall-through to the Cauchy distribution
    with pytest.raises(ModelSpecError, match="link must be one of"):
        humaneval.clmm.model.default_model().__class__(("a", "b"), [0.0, 1.0], [0.0], link="identity")


def test_one_list_for_the_engines_the_simulator_and_the_cli():
    from humaneval.cli.analyze import command

    assert not hasattr(humaneval.clmm.model, "LINKS") and not hasattr(humaneval.clmm.model, "link_cdf")
    [option] = [p for p in command.params if p.name == "link"]
    assert tuple(option.type.choices) == tuple(LINKS)


def _ratings(link: str, seed: int = 4, blocks: int = 10):
    from humaneval.design import block_design

    model = humaneval.clmm.model.default_model()
    model = type(model)(
        model.system_names, model.coefficients, model.thresholds, model.random_effects, link=link
    )
    return model, model.sample(block_design(blocks, 5, 2, model.system_names, seed=seed), seed=seed)


def test_the_simulator_samples_from_any_link():
    model, _ = _ratings("cloglog")
    probabilities = model.marginal_probabilities()
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    logit = type(model)(model.system_names, model.coefficients, model.thresholds, model.random_effects)
    assert not np.allclose(probabilities.to_numpy(), logit.marginal_probabilities().to_numpy())


def test_a_new_link_is_one_record(monkeypatch):
    """A Student t(5) latent distribution: one record, and the native engine fits it."""
    t5 = stats.t(5)

    def density(x, order):
        f = t5.pdf(x)
        f1 = -6.0 * x / (5.0 + x * x) * f
        f2 = f * ((6.0 * x / (5.0 + x * x)) ** 2 - 6.0 * (5.0 - x * x) / (5.0 + x * x) ** 2)
        finite = np.isfinite(x)
        out = [np.where(finite, v, 0.0) for v in (f, f1, f2)]
        return out[0], out[1], out[2] if order > 2 else None

    record = Link("t5", "Student t, 5 df", t5.cdf, t5.sf, t5.ppf, density, r_name="t5")
    monkeypatch.setitem(LINKS, "t5", record)
    _, ratings = _ratings("t5")
    from humaneval.analysis.fit import fit_clmm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = fit_clmm(ratings, structure="intercepts", link="t5")
        logit = fit_clmm(ratings, structure="intercepts", link="logit")
    assert fit.link == "t5" and not fit.diagnostics.failed
    assert fit.loglik != pytest.approx(logit.loglik, abs=1e-3)
    # the analytic gradient terms of the record agree with finite differences of ℓ
    theta = np.r_[-np.inf, fit.thresholds, np.inf]
    y, eta = np.array([0, 3, 6]), np.array([0.2, -0.4, 1.1])
    terms = obs_terms(theta, y, eta, "t5", order=3)
    h = 1e-6
    numeric = (obs_terms(theta, y, eta + h, "t5").loglik - obs_terms(theta, y, eta - h, "t5").loglik) / (
        2 * h
    )
    np.testing.assert_allclose(terms.g, numeric, atol=1e-6)


@pytest.mark.r
def test_r_engine_fits_cloglog_with_a_named_structure_and_a_formula():
    """``engine="r"`` and cloglog: the fit of the native engine (same F), with two random intercepts
    (named structure) and with one (a formula on the wine data, where clmm needs the other name)."""
    from humaneval.analysis.fit import fit_clmm
    from humaneval.clmm import clmm_spec, fit_spec
    from humaneval.clmm.rbridge import fit_r_spec
    from humaneval.io.datasets import wine

    _, ratings = _ratings("cloglog", seed=7, blocks=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fit_clmm(ratings, engine="r", structure="intercepts", link="cloglog")
        native = fit_clmm(ratings, engine="native", structure="intercepts", link="cloglog")
    assert r.engine == "r" and r.link == "cloglog"
    assert r.loglik == pytest.approx(native.loglik, abs=1e-4) == pytest.approx(-305.916, abs=1e-3)
    np.testing.assert_allclose(r.beta, native.beta, atol=2e-3)
    spec = clmm_spec("rating ~ temp + contact + (1|judge)", wine())
    for link, loglik in (("cloglog", -81.5414), ("loglog", -82.7294)):  # clm-defined F (tests/r)
        assert fit_r_spec(spec, link).loglik == pytest.approx(loglik, abs=1e-3)
        assert fit_spec(spec, link).loglik == pytest.approx(loglik, abs=1e-3)
