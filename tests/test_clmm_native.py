"""Native CLMM engine (issue 8) against the stored R ordinal::clmm fits of spec §5.7 and against
finite differences of its own likelihood. Live R comparisons are in test_clmm_native_r.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm import design as design_module
from humaneval.clmm import fit_native, links
from humaneval.clmm.design import random_design
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.links import obs_terms
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.clmm.params import ParamLayout
from humaneval.clmm.quadrature import QuadratureProblem
from humaneval.clmm.schur import SchurFactor
from humaneval.clmm.structures import structure_spec
from humaneval.core.ratings import load_ratings
from humaneval.design.blocks import block_design
from humaneval.errors import ModelSpecError, OptionError

# spec §5.7, systems in the order abssentrw, BART, onmt_pg, seneca
LIKERT_MAXIMAL = {
    "loglik": -2544.19,
    "thresholds": [-4.014743, -2.233997, -1.097302, 0.09727854, 1.307539, 2.809067],
    "beta": [-0.2453364, 1.3716004, 0.7276307, -1.1740901],
    "se": [0.2048, 0.2065, 0.1892, 0.2247],
    "vcov": [
        [0.041931, 0.017821, 0.019173, 0.015995],
        [0.017821, 0.042635, 0.022750, 0.020337],
        [0.019173, 0.022750, 0.035814, 0.019301],
        [0.015995, 0.020337, 0.019301, 0.050489],
    ],
}
LIKERT_INTERCEPTS = {
    "loglik": -2577.45,
    "thresholds": [-3.56767, -1.97128, -0.97748, 0.06741, 1.12752, 2.46917],
    "beta": [-0.2268, 1.1858, 0.6246, -1.0316],
    "se": [0.147, 0.150, 0.147, 0.148],
    "annotator": 1.2343,
    "document": 0.0155,
}
LIKERT_UNCORRELATED = {
    "loglik": -2560.63,
    "beta": [-0.2556, 1.2880, 0.6666, -1.1457],
    "se": [0.183, 0.171, 0.154, 0.197],
}
RANK_MAXIMAL = {
    "loglik": -2013.44,
    "thresholds": [-1.867202, -0.1412243, 1.289238, 3.032111],
    "beta": [0.254047, 3.553698, 1.163803, -1.984228],
    "se": [0.276, 0.337, 0.286, 0.395],
}
SPEC_ORDER = ["abssentrw", "BART", "onmt_pg", "seneca"]


def _by_name(fit, values) -> np.ndarray:
    """Values of systems[1:] in the spec's order."""
    position = {s: k for k, s in enumerate(fit.systems[1:])}
    values = np.asarray(values)
    idx = [position[s] for s in SPEC_ORDER]
    return values[np.ix_(idx, idx)] if values.ndim == 2 else values[idx]


@pytest.fixture(scope="module")
def likert_data():
    from tests.conftest import shared_file

    return prepare_clmm_data(load_ratings(shared_file("steen2021", "likert_coherence_cnn_dm.csv")))


@pytest.fixture(scope="module")
def likert_maximal(likert_data):
    return fit_native(likert_data, "maximal")


def _simulated(blocks: int, docs: int, annotators: int, seed: int, drop: float = 0.0):
    model = default_model()
    design = block_design(blocks, docs, annotators, model.system_names, seed=seed)
    if drop:
        keep = np.random.default_rng(seed).random(len(design)) >= drop
        design = design[keep]
    return prepare_clmm_data(sample_ratings(model, design, seed=seed))


# ---------------------------------------------------------------------------- likelihood pieces


@pytest.mark.parametrize("eta", [-16.8879866482902, -25.98558924089062, -30.0])
def test_logit_terms_stay_accurate_far_in_the_tails(eta):
    """The top category far below η: P = S(c), so g = F(c) and W = F(c)·S(c) > 0 exactly (issue 25:
    with the density computed as F(1 − F) W lost every digit there and came out negative, −1.4e-9 at
    the first η)."""
    theta_ext = np.r_[-np.inf, np.linspace(-2.0, 2.0, 6), np.inf]
    t = obs_terms(theta_ext, np.array([6]), np.array([eta]), "logit", 3)
    c = theta_ext[6] - eta
    assert t.g[0] == pytest.approx(special.expit(c), rel=1e-12)
    assert t.w[0] == pytest.approx(special.expit(c) * special.expit(-c), rel=1e-9)
    assert t.loglik[0] == pytest.approx(np.log(special.expit(-c)), rel=1e-12)


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_observation_terms_match_direct_differentiation(link):
    cdf = special.expit if link == "logit" else special.ndtr
    theta_ext = np.array([-np.inf, -1.0, 0.3, 1.7, np.inf])
    y = np.array([0, 1, 2, 3, 1])
    eta = np.array([0.4, -0.8, 2.5, 1.1, 9.0])
    got = obs_terms(theta_ext, y, eta, link, order=3)

    def loglik(e, up_shift=0.0, low_shift=0.0):
        up = theta_ext[y + 1] + up_shift - e
        low = theta_ext[y] + low_shift - e
        return np.log(cdf(up) - cdf(low))

    h = 1e-4
    g = (loglik(eta + h) - loglik(eta - h)) / (2 * h)
    w = -(loglik(eta + h) - 2 * loglik(eta) + loglik(eta - h)) / h**2
    np.testing.assert_allclose(got.loglik, loglik(eta), rtol=1e-12)
    np.testing.assert_allclose(got.g, g, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got.w, w, rtol=1e-4, atol=1e-7)
    dw = (obs_terms(theta_ext, y, eta + h, link).w - obs_terms(theta_ext, y, eta - h, link).w) / (2 * h)
    np.testing.assert_allclose(got.dw, dw, rtol=1e-5, atol=1e-8)
    d_up = (loglik(eta, up_shift=h) - loglik(eta, up_shift=-h)) / (2 * h)
    np.testing.assert_allclose(got.d_up, d_up, rtol=1e-6, atol=1e-9)
    assert got.w.min() > 0  # log-concave: the mode problem is concave


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_third_order_terms_from_the_second_order_call_are_the_fresh_ones(link):
    """links.third_order reuses what the order-2 call computed (issue 40): the same bits as order=3."""
    rng = np.random.default_rng(3)
    theta_ext = np.r_[-np.inf, -2.0, -0.5, 0.7, 2.2, np.inf]
    y = rng.integers(0, 5, 400)
    eta = np.r_[rng.normal(0, 4, 396), 40.0, -40.0, 800.0, -800.0]
    fresh = obs_terms(theta_ext, y, eta, link, order=3)
    reused = links.third_order(theta_ext, y, eta, link, obs_terms(theta_ext, y, eta, link))
    for name in ("loglik", "g", "w", "d_up", "d_low", "dw", "dw_up", "dw_low", "dg_up", "dg_low"):
        np.testing.assert_array_equal(getattr(reused, name), getattr(fresh, name), err_msg=name)


def test_logit_bounds_are_expit_to_the_bit():
    """The logit terms compute F as 1/(1 + e^(−x)) in numpy calls: scipy's expit, value for value."""
    x = np.r_[np.random.default_rng(4).normal(0, 30, 2000), 0.0, -0.0, 745.0, -745.0, np.inf, -np.inf]
    prob, (f_up, *_), _ = links._logit_terms(x, np.full_like(x, -np.inf), 2)
    np.testing.assert_array_equal(prob, special.expit(x))
    np.testing.assert_array_equal(f_up, special.expit(x) * special.expit(-x))


def test_design_patterns_are_numpys_unique_rows():
    z = np.array([[1.0, 0.0, 2.5], [1.0, -0.0, 2.5], [0.0, 1.0, -3.0], [1.0, 0.0, 2.5], [0.0, 1.0, 0.5]])
    z = np.vstack([z, z[::-1], np.ones((3, 3))])
    rows, codes = design_module._unique_rows(z)
    expected_rows, expected_codes = np.unique(z, axis=0, return_inverse=True)
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_array_equal(codes, np.ravel(expected_codes))


def test_schur_factor_of_scalar_groups_is_the_dense_one():
    """Random intercepts eliminate 1×1 groups, inverted elementwise (issue 40): log det H and H⁻¹r
    equal the dense matrix's; a non-positive group fails as LAPACK's Cholesky does."""
    rng = np.random.default_rng(6)
    nb, k, n = 3, 2, 4
    m = rng.normal(size=(nb, 12, k + n))
    h = np.eye(k + n) + np.swapaxes(m, 1, 2) @ m
    h[:, k:, k:] = np.eye(n) * (np.diagonal(h[:, k:, k:], axis1=1, axis2=2)[:, :, None] + 10.0)
    d = np.diagonal(h[:, k:, k:], axis1=1, axis2=2)[..., None, None]
    factor = SchurFactor(h[:, :k, :k], h[:, :k, k:], d)
    assert factor.logdet == pytest.approx(np.linalg.slogdet(h)[1].sum(), rel=1e-12)
    r = rng.normal(size=(nb, k + n))
    np.testing.assert_allclose(factor.solve(r), np.linalg.solve(h, r[..., None])[..., 0], rtol=1e-10)
    inverse = factor.inverse_blocks()
    np.testing.assert_allclose(inverse["kept"], np.linalg.inv(h)[:, :k, :k], rtol=1e-10)
    bad = d.copy()
    bad[1, 2] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        SchurFactor(h[:, :k, :k], h[:, :k, k:], bad)


@pytest.mark.parametrize(("structure", "link"), [("maximal", "logit"), ("uncorrelated", "probit")])
def test_laplace_gradient_matches_finite_differences(structure, link):
    data = _simulated(blocks=3, docs=4, annotators=3, seed=5, drop=0.1)
    design = random_design(structure_spec(data, structure).terms)
    problem = LaplaceProblem(data.y, data.dummies(), design, link, len(data.levels) - 1)
    rng = np.random.default_rng(0)
    theta = np.array([-2.5, -1.4, -0.5, 0.3, 1.0, 2.2])
    beta = rng.normal(0, 0.5, 4)
    factors = []
    for term in design.terms:
        mat = np.tril(rng.normal(0, 0.3, (term.size, term.size))) + 0.6 * np.eye(term.size)
        factors.append(mat if term.covariance == "unstructured" else np.diag(np.diag(mat)))
    value = problem.evaluate(theta, beta, tuple(factors))

    def f(th, be, fa):
        problem.reset()
        return problem.evaluate(th, be, fa, gradient=False).loglik

    h = 1e-5
    for j in range(theta.size):
        e = h * np.eye(theta.size)[j]
        fd = (f(theta + e, beta, tuple(factors)) - f(theta - e, beta, tuple(factors))) / (2 * h)
        assert value.grad_theta[j] == pytest.approx(fd, abs=1e-5)
    for j in range(beta.size):
        e = h * np.eye(beta.size)[j]
        fd = (f(theta, beta + e, tuple(factors)) - f(theta, beta - e, tuple(factors))) / (2 * h)
        assert value.grad_beta[j] == pytest.approx(fd, abs=1e-5)
    for k, term in enumerate(design.terms):
        for a, c in [(0, 0), (term.size - 1, 0), (term.size - 1, term.size - 1)]:
            if term.covariance != "unstructured" and a != c:
                continue
            step = np.zeros_like(factors[k])
            step[a, c] = h
            up = [*factors[:k], factors[k] + step, *factors[k + 1 :]]
            down = [*factors[:k], factors[k] - step, *factors[k + 1 :]]
            fd = (f(theta, beta, tuple(up)) - f(theta, beta, tuple(down))) / (2 * h)
            assert value.grad_factors[k][a, c] == pytest.approx(fd, abs=1e-5)


@pytest.mark.parametrize(
    ("name", "formula"),
    [
        ("wine", "rating ~ temp + contact + (1 + temp | judge)"),
        ("soup", "SURENESS ~ PROD + (1 | RESP) + (1 | RESP:PROD)"),
        ("likert", "score ~ system + (1 | annotator) + (1 | document)"),
    ],
)
def test_standard_errors_equal_central_differences_of_the_gradient(name, formula):
    """The fit's information matrix (forward differences, chord-step mode re-solves) against central
    differences of the analytic gradient with every mode solved from zero, at interior optima (one
    random slope; two crossed factors through the Schur complement): SEs of (θ, β) agree to 1e-4
    relative (measured 3–5e-5 with the step 1e-5; 3–4e-4 with the former 1e-4) and cond.H to 1e-3
    (issue 25)."""
    from humaneval.clmm import clmm_spec, fit_spec

    if name == "likert":
        model = default_model()
        frame = sample_ratings(model, block_design(8, 5, 3, model.system_names, seed=11), seed=11).data
    else:
        frame = pd.read_csv(Path(__file__).parent / "data" / f"{name}.csv")
    spec = clmm_spec(formula, frame)
    fit = fit_spec(spec)
    design = random_design(spec.terms)
    layout = ParamLayout(len(fit.thresholds), len(fit.beta), design.terms)
    factors = tuple(np.linalg.cholesky(fit.random_effects[t.factor]) for t in design.terms)
    x = layout.flatten(fit.thresholds, fit.beta, factors)
    assert np.all(x[layout.diagonal_mask()] > 1e-3)  # an interior optimum: every parameter is free
    problem = LaplaceProblem(spec.y, spec.x, design, "logit", len(fit.thresholds))

    def gradient(point):
        problem.reset()
        theta, beta, fac = layout.split(point)
        value = problem.evaluate(theta, beta, fac)
        return layout.flatten(value.grad_theta, value.grad_beta, value.grad_factors)

    hess = np.empty((x.size, x.size))
    for j in range(x.size):
        step = 1e-5 * max(1.0, abs(x[j]))
        e = np.zeros(x.size)
        e[j] = step
        hess[:, j] = (gradient(x + e) - gradient(x - e)) / (2 * step)
    info = -0.5 * (hess + hess.T)
    n_tb = layout.n_thresholds + layout.n_beta
    se = np.sqrt(np.diag(np.linalg.inv(info))[:n_tb])
    np.testing.assert_allclose(np.sqrt(np.diag(fit.vcov_theta_beta)), se, rtol=1e-4)
    eig = np.linalg.eigvalsh(info)
    assert fit.diagnostics.cond_h == pytest.approx(eig.max() / eig.min(), rel=1e-3)


def test_laplace_without_random_effects_is_the_fixed_effects_likelihood():
    data = _simulated(blocks=2, docs=3, annotators=2, seed=1)
    design = random_design(structure_spec(data, "intercepts").terms)
    problem = LaplaceProblem(data.y, data.dummies(), design, "logit", len(data.levels) - 1)
    theta = np.array([-2.0, -1.0, -0.2, 0.5, 1.3, 2.0])
    beta = np.array([0.1, -0.4, 0.3, 0.8])
    value = problem.evaluate(theta, beta, (np.zeros((1, 1)), np.zeros((1, 1))), gradient=False)
    eta = np.r_[0.0, beta][data.system]
    cum = special.expit(np.r_[-np.inf, theta, np.inf][None, :] - eta[:, None])
    direct = np.log(cum[np.arange(data.nobs), data.y + 1] - cum[np.arange(data.nobs), data.y]).sum()
    assert value.loglik == pytest.approx(direct, rel=1e-12)


def test_crossed_in_blocks_design_decouples_into_its_blocks(likert_data):
    maximal = random_design(structure_spec(likert_data, "maximal").terms)
    assert [(b.n_blocks, b.dim) for b in maximal.buckets] == [(20, 5 * (3 + 5))]
    nested = random_design(structure_spec(likert_data, "nested").terms)
    assert [(b.n_blocks, b.dim) for b in nested.buckets] == [(60, 5)]


# ---------------------------------------------------------------------------- stored R fits (spec §5.7)


def test_likert_intercepts_match_r(likert_data):
    fit = fit_native(likert_data, "intercepts")
    ref = LIKERT_INTERCEPTS
    assert fit.engine == "native" and fit.structure == "intercepts"
    assert fit.loglik == pytest.approx(ref["loglik"], abs=0.005)
    np.testing.assert_allclose(fit.thresholds, ref["thresholds"], atol=5e-5)
    np.testing.assert_allclose(_by_name(fit, fit.beta), ref["beta"], atol=1e-4)
    np.testing.assert_allclose(_by_name(fit, fit.se), ref["se"], atol=5e-4)
    assert fit.random_effects["annotator"][0, 0] == pytest.approx(ref["annotator"], abs=1e-4)
    assert fit.random_effects["document"][0, 0] == pytest.approx(ref["document"], abs=1e-4)
    assert fit.aic == pytest.approx(-2 * fit.loglik + 2 * 12)
    assert not fit.diagnostics.failed and fit.diagnostics.max_grad < 1e-3


def test_likert_maximal_matches_r(likert_maximal):
    fit, ref = likert_maximal, LIKERT_MAXIMAL
    assert fit.loglik >= ref["loglik"] - 0.05
    assert fit.loglik == pytest.approx(ref["loglik"], abs=0.01)
    assert fit.aic == pytest.approx(5168.38, abs=0.02)  # 40 parameters
    np.testing.assert_allclose(fit.thresholds, ref["thresholds"], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.beta), ref["beta"], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.se), ref["se"], rtol=0.01)
    np.testing.assert_allclose(_by_name(fit, fit.vcov), ref["vcov"], atol=5e-4)
    assert not fit.diagnostics.failed
    assert fit.diagnostics.singular  # Ψa has rank 3 (spec §1.3): flagged, not failed
    assert fit.diagnostics.cond_h < 1e4


def test_likert_maximal_random_effects_match_the_published_model(likert_maximal, model_json_path):
    from humaneval.clmm.model import OrdinalModel

    published = OrdinalModel.from_json(model_json_path)
    order = [likert_maximal.systems.index(s) for s in published.system_names]  # intercept = reference
    for factor in ("annotator", "document"):
        got = likert_maximal.random_effects[factor][np.ix_(order, order)]
        np.testing.assert_allclose(got, published.random_effects[factor], atol=5e-3)
    assert np.linalg.eigvalsh(likert_maximal.random_effects["annotator"])[:2].max() < 1e-6


def test_likert_maximal_tukey_decisions_match_r(likert_maximal):
    table = likert_maximal.contrasts(adjust="tukey")
    pairs = {frozenset((a, b)): p for a, b, p in table[["system_a", "system_b", "p_adj"]].itertuples(False)}
    assert pairs[frozenset(("__REFERENCE__", "abssentrw"))] == pytest.approx(0.7525, abs=0.003)
    assert pairs[frozenset(("__REFERENCE__", "onmt_pg"))] == pytest.approx(0.0011, abs=2e-4)
    assert pairs[frozenset(("BART", "onmt_pg"))] == pytest.approx(0.0036, abs=5e-4)
    assert sum(p < 0.05 for p in pairs.values()) == 9


def test_likert_uncorrelated_matches_r_and_is_singular_not_failed(likert_data):
    fit = fit_native(likert_data, "uncorrelated")
    ref = LIKERT_UNCORRELATED
    assert fit.loglik == pytest.approx(ref["loglik"], abs=0.01)
    np.testing.assert_allclose(_by_name(fit, fit.beta), ref["beta"], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.se), ref["se"], rtol=0.01)
    psi = fit.random_effects["annotator"]
    assert np.count_nonzero(np.diag(psi) < 1e-8) == 2  # two slope variances at exactly 0
    assert np.allclose(psi, np.diag(np.diag(psi)))
    assert fit.diagnostics.singular and not fit.diagnostics.failed


def test_rank_maximal_matches_r(rank_path):
    data = prepare_clmm_data(load_ratings(rank_path))
    fit = fit_native(data, "maximal")
    ref = RANK_MAXIMAL
    assert data.levels == (-4.0, -3.0, -2.0, -1.0, 0.0)
    assert fit.loglik >= ref["loglik"] - 0.05
    np.testing.assert_allclose(fit.thresholds, ref["thresholds"], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.beta), ref["beta"], atol=2e-3)
    np.testing.assert_allclose(_by_name(fit, fit.se), ref["se"], rtol=0.01)
    assert not fit.diagnostics.failed
    p = fit.contrasts(adjust="tukey")
    assert (p["p_adj"] < 0.05).sum() == 9


# ---------------------------------------------------------------------------- behaviour


def test_nested_design_fits_annotator_terms_only():
    data = _simulated(blocks=12, docs=4, annotators=1, seed=3)
    assert data.nested
    fit = fit_native(data, "nested")
    assert set(fit.random_effects) == {"annotator"}
    assert fit.random_effects["annotator"].shape == (5, 5)
    intercepts = fit_native(data, "intercepts")
    assert set(intercepts.random_effects) == {"annotator"}
    assert fit.loglik >= intercepts.loglik - 1e-6  # nested models: more terms never fit worse


def test_warm_start_reaches_the_same_optimum(likert_data):
    cold = fit_native(likert_data, "uncorrelated")
    warm = fit_native(likert_data, "uncorrelated", start=fit_native(likert_data, "intercepts"))
    assert warm.loglik == pytest.approx(cold.loglik, abs=1e-4)
    np.testing.assert_allclose(warm.beta, cold.beta, atol=1e-3)


def test_probit_fit_of_a_probit_model_recovers_the_effects():
    model = default_model()
    model = type(model)(
        system_names=model.system_names,
        coefficients=model.coefficients * 0.6,
        thresholds=model.thresholds * 0.6,
        random_effects={"annotator": np.array([[0.4]]), "document": np.array([[0.1]])},
        link="probit",
    )
    design = block_design(40, 5, 3, model.system_names)
    data = prepare_clmm_data(sample_ratings(model, design, seed=11), reference="__REFERENCE__")
    fit = fit_native(data, "intercepts", link="probit")
    truth = pd.Series(model.coefficients[1:], index=model.system_names[1:])
    z = (fit.beta - truth[list(fit.systems[1:])].to_numpy()) / fit.se
    assert np.all(np.abs(z) < stats.norm.ppf(0.999))
    assert fit.link == "probit" and fit.random_effects["annotator"][0, 0] == pytest.approx(0.4, abs=0.25)


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_adaptive_quadrature_equals_the_integral_and_its_gradient(link):
    data = _simulated(blocks=8, docs=3, annotators=1, seed=4)
    design = random_design(structure_spec(data, "intercepts").terms)
    laplace = LaplaceProblem(data.y, data.dummies(), design, link, len(data.levels) - 1)
    agq = QuadratureProblem(laplace, 15)
    theta = np.array([-3.0, -1.8, -0.9, 0.1, 1.0, 2.3])
    beta = np.array([1.0, -0.2, 0.6, -1.1])
    sigma = 1.3
    value = agq.evaluate(theta, beta, (np.array([[sigma]]),))
    # the marginal likelihood by brute force: a fine grid over the random intercept of each annotator
    cdf = special.expit if link == "logit" else special.ndtr
    cut = np.r_[-np.inf, theta, np.inf]
    eta = np.r_[0.0, beta][data.system]
    grid = np.linspace(-12, 12, 100_001)
    exact = 0.0
    for group in np.unique(data.groups["annotator"]):
        rows = data.groups["annotator"] == group
        shift = eta[rows][:, None] + sigma * grid[None, :]
        with np.errstate(divide="ignore"):
            log_p = np.log(
                cdf(cut[data.y[rows] + 1][:, None] - shift) - cdf(cut[data.y[rows]][:, None] - shift)
            )
        exact += np.log(np.trapezoid(np.exp(log_p.sum(0) - grid**2 / 2), grid) / np.sqrt(2 * np.pi))
    assert value.loglik == pytest.approx(exact, abs=1e-6)
    laplace_value = LaplaceProblem(data.y, data.dummies(), design, link, len(data.levels) - 1).evaluate(
        theta, beta, (np.array([[sigma]]),)
    )
    assert abs(laplace_value.loglik - exact) > 1e-4  # Laplace is an approximation, AGQ is not

    def f(th, be, s):
        agq.reset()
        return agq.evaluate(th, be, (np.array([[s]]),), gradient=False).loglik

    h = 1e-5
    for j in range(theta.size):
        e = h * np.eye(theta.size)[j]
        assert value.grad_theta[j] == pytest.approx(
            (f(theta + e, beta, sigma) - f(theta - e, beta, sigma)) / (2 * h), abs=1e-6
        )
    for j in range(beta.size):
        e = h * np.eye(beta.size)[j]
        assert value.grad_beta[j] == pytest.approx(
            (f(theta, beta + e, sigma) - f(theta, beta - e, sigma)) / (2 * h), abs=1e-6
        )
    fd_sigma = (f(theta, beta, sigma + h) - f(theta, beta, sigma - h)) / (2 * h)
    assert value.grad_factors[0][0, 0] == pytest.approx(fd_sigma, abs=1e-6)


def test_adaptive_quadrature_needs_one_random_intercept(likert_data):
    with pytest.raises(ModelSpecError, match="single grouping factor"):
        fit_native(likert_data, "intercepts", n_agq=7)
    with pytest.raises(OptionError, match="n_agq"):
        fit_native(likert_data, "intercepts", n_agq=0)


def test_complete_separation_is_flagged_not_hidden():
    model = default_model()
    ratings = sample_ratings(model, block_design(4, 5, 3, model.system_names, seed=1), seed=1).data
    ratings.loc[ratings["system"] == "BART", "score"] = 7  # BART always gets the top score: β_BART → ∞
    fit = fit_native(prepare_clmm_data(ratings), "intercepts")
    bart = fit.fixed_effects().set_index("system").loc["BART"]
    assert bart["estimate"] > 10 and bart["se"] > 100 and bart["p"] > 0.9
    assert any("not identifiable" in w for w in fit.diagnostics.warnings)


def test_bad_link_and_structure_are_one_line_errors(likert_data):
    with pytest.raises(OptionError, match="link"):
        fit_native(likert_data, "intercepts", link="logistic")
    with pytest.raises(OptionError, match="structure"):
        fit_native(likert_data, "crossed")
