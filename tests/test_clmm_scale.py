"""Cumulative link (mixed) models with scale effects (issue 43).

References: tests/data/scale_reference.json, made by tests/r/scale.R (``ordinal::clm`` with
``scale = ~judge``/``~annotator`` and ``ordinal::clmm2`` with ``scale =`` and ``random =``, Laplace) on the
wine data and on the Likert coherence data of Steen & Markert (2021). The gradient of the joint Laplace
approximation is checked against central differences of the likelihood itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import integrate, optimize, stats

from humaneval.cli import main
from humaneval.clmm import fit_spec
from humaneval.clmm.formula import clmm_spec
from humaneval.clmm.scale import _Model, fit_scale, scale_lr_test
from humaneval.clmm.scale_laplace import ScaleLaplace, Slot, local_terms
from humaneval.errors import ModelSpecError, OptionError
from humaneval.io.datasets import wine
from humaneval.simulate.scale import ScaleDesign, simulate_scale_study
from tests.conftest import shared_file

REFERENCE = json.loads((Path(__file__).parent / "data" / "scale_reference.json").read_text())


def _steen() -> pd.DataFrame:
    return pd.read_csv(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))


def _r_reference_system(ref: dict, data: pd.DataFrame) -> dict[str, str]:
    """R's reference system (its factor order): the one without a coefficient."""
    [level] = [s for s in data["system"].unique() if f"system{s}" not in ref["beta"]]
    return {"system": level}


def _check(fit, ref: dict, tol: float, loglik_tol: float) -> None:
    assert fit.loglik == pytest.approx(ref["loglik"], abs=loglik_tol)
    beta = dict(zip(fit.beta_names, fit.beta, strict=True))
    for name, value in ref["beta"].items():
        assert beta[name] == pytest.approx(value, abs=tol), name
    zeta = dict(zip(fit.scale.names, fit.scale.zeta, strict=True))
    assert set(zeta) == set(ref["zeta"])
    for name, value in ref["zeta"].items():
        assert zeta[name] == pytest.approx(value, abs=tol), name
    alpha = list(ref["alpha"].values()) if isinstance(ref["alpha"], dict) else ref["alpha"]
    np.testing.assert_allclose(fit.thresholds, alpha, atol=tol)


@pytest.mark.parametrize("link", ["logit", "probit"])
def test_the_laplace_gradient_is_exact(link):
    rng = np.random.default_rng(1)
    n, n_ann, n_doc = 300, 6, 20
    ann, doc = rng.integers(0, n_ann, n), rng.integers(0, n_doc, n)
    x = rng.normal(size=(n, 2))
    w = (ann[:, None] == np.arange(1, 3)[None]).astype(float)
    slots = (Slot(0, ann), Slot(0, n_ann + doc), Slot(1, n_ann + n_doc + ann))
    problem = ScaleLaplace(rng.integers(0, 4, n), x, w, slots, 2 * n_ann + n_doc, link, 3)
    par = np.array([-1.0, 0.2, 1.1, 0.3, -0.2, 0.2, -0.1, 0.6, 0.4, 0.3])
    value = problem.evaluate(par[:3], par[3:5], par[5:7], par[7:])
    grad = np.concatenate([value.grad_theta, value.grad_beta, value.grad_zeta, value.grad_sd])
    base = problem.state()

    def loglik(p):
        problem.restore(base)
        return problem.evaluate(p[:3], p[3:5], p[5:7], p[7:], gradient=False).loglik

    step = 1e-5
    numeric = [(loglik(par + e) - loglik(par - e)) / (2 * step) for e in np.eye(par.size) * step]
    np.testing.assert_allclose(grad, numeric, atol=1e-6)


def test_closed_form_second_derivatives_match_the_general_ones():
    rng = np.random.default_rng(2)
    theta_ext = np.array([-np.inf, -1.0, 0.5, 2.0, np.inf])
    y, mu, vs = rng.integers(0, 4, 50), rng.normal(size=50), rng.normal(0, 0.5, 50)
    second, third = local_terms(theta_ext, y, mu, vs, "logit"), local_terms(theta_ext, y, mu, vs, "logit", 3)
    np.testing.assert_allclose(second.grad, third.grad, atol=1e-12)
    np.testing.assert_allclose(second.hess, third.hess, atol=1e-12)


def test_clm_with_scale_equals_r_on_wine():
    fit = fit_spec(clmm_spec("rating ~ temp + contact", wine(), scale="~ judge"))
    ref = REFERENCE["wine_clm"]
    _check(fit, ref, 1e-6, 1e-6)  # the 1e-6 in logLik, θ, β and ζ
    se = dict(zip(fit.beta_names, fit.se, strict=True))
    assert se["tempwarm"] == pytest.approx(ref["se"]["tempwarm"], rel=1e-4)
    zeta_se = dict(zip(fit.scale.names, fit.scale.se, strict=True))
    assert zeta_se["judge2"] == pytest.approx(ref["se"]["judge2"], rel=1e-4)


def test_clm_with_scale_equals_r_on_likert_data():
    data, ref = _steen(), REFERENCE["steen_clm"]
    spec = clmm_spec(
        "score ~ system + annotator", data, scale="~ annotator", reference=_r_reference_system(ref, data)
    )
    fit = fit_spec(spec)
    _check(fit, ref, 1e-5, 1e-6)  # logLik to 1e-6; 130 parameters of a flat optimum to 8e-6
    # R's LR test of the scale term (issue 43: 163.5 on 59 df), from the same two fits
    test = scale_lr_test(fit)
    assert test.df == 59 and not test.boundary
    assert test.statistic == pytest.approx(2 * (ref["loglik"] - ref["loglik_no_scale"]), abs=1e-5)
    assert test.p < 1e-10


def _clmm2_style_laplace(spec, ref: dict) -> tuple[float, float]:
    """At R's clmm2 estimates: this engine's Laplace ℓ, and the same with R's random-effect curvature.

    clmm2 (ordinal's C function ``hess``) weights each observation's curvature by 1/σ_i, where the
    second derivative of log P in u is (σ_b/σ_i)² ∂²ℓ/∂η²: with scale effects (σ_i ≠ 1) its Laplace
    approximation differs from the Laplace approximation of the model it fits.
    """
    model = _Model(spec, "logit")
    theta = np.array(list(ref["alpha"].values()))
    beta = np.array([ref["beta"][n] for n in spec.beta_names])
    zeta = np.array([ref["zeta"][n] for n in spec.scale.names])
    sd = np.array([ref["stdev"]])
    exact = model.loglik_and_grad(np.r_[theta, beta, zeta, sd])[0]
    problem, u = model.problem, model.problem.mode
    mu, vs = problem._predictors(beta, zeta, sd, u)
    terms = local_terms(np.r_[-np.inf, theta, np.inf], problem.y, mu, vs, "logit")
    weights = -terms.hess[:, 2, 2] * np.exp(vs)  # R: (σ_b²/σ_i) ∂²ℓ/∂η² instead of (σ_b/σ_i)²
    curvature = 1.0 + sd[0] ** 2 * np.bincount(spec.terms[0].codes, weights)
    return exact, terms.loglik.sum() - 0.5 * u @ u - 0.5 * np.log(curvature).sum()


def _per_group_integral(spec, ref: dict) -> float:
    """The marginal log-likelihood at R's estimates by numerical integration over each judge."""
    theta_ext = np.r_[-np.inf, list(ref["alpha"].values()), np.inf]
    beta = np.array([ref["beta"][n] for n in spec.beta_names])
    zeta = np.array([ref["zeta"][n] for n in spec.scale.names])
    codes, total = spec.terms[0].codes, 0.0
    for g in range(codes.max() + 1):
        rows = codes == g

        def density(u, rows=rows):
            mu = spec.x[rows] @ beta + ref["stdev"] * u
            logp = local_terms(theta_ext, spec.y[rows], mu, spec.scale.w[rows] @ zeta, "logit").loglik
            return np.exp(logp.sum()) * stats.norm.pdf(u)

        total += np.log(integrate.quad(density, -10, 10, epsabs=1e-14)[0])
    return total


def test_clmm2_wine_differs_from_r_only_by_rs_random_effect_curvature():
    """R's clmm2(rating ~ temp + contact, scale = ~judge, random = judge): with R's curvature this
    engine reproduces R's logLik at R's estimates (data part and modes agree); its own Laplace value
    is much nearer the exact integral than R's."""
    ref = REFERENCE["wine_clmm2"]
    spec = clmm_spec("rating ~ temp + contact + (1 | judge)", wine(), scale="~ judge")
    exact_laplace, r_style = _clmm2_style_laplace(spec, ref)
    assert r_style == pytest.approx(ref["loglik"], abs=1e-5)
    integral = _per_group_integral(spec, ref)
    assert abs(exact_laplace - integral) < 0.1 < abs(ref["loglik"] - integral)
    fit = fit_spec(spec)
    assert not fit.diagnostics.failed and fit.loglik > exact_laplace


def _r_curvature_loglik(model: _Model, x: np.ndarray) -> float:
    """clmm2's Laplace log-likelihood (R's random-effect curvature, see above) at x = (θ, β, ζ, σ);
    −1e10 where the likelihood vanishes (the optimiser steps back)."""
    layout, problem = model.layout, model.problem
    theta, beta, zeta, sd = layout.split(x)
    if np.any(np.diff(theta) <= 0) or sd[0] < 0 or not np.isfinite(model.loglik_and_grad(x)[0]):
        return -1e10
    u = problem.mode  # the mode of F(u) does not depend on the curvature: R's and this engine's agree
    mu, vs = problem._predictors(beta, zeta, sd, u)
    terms = local_terms(np.r_[-np.inf, theta, np.inf], problem.y, mu, vs, "logit")
    weights = -terms.hess[:, 2, 2] * np.exp(vs)
    curvature = 1.0 + sd[0] ** 2 * np.bincount(model.spec.terms[0].codes, weights)
    return terms.loglik.sum() - 0.5 * u @ u - 0.5 * np.log(curvature).sum()


def test_clmm2_wine_estimates_are_the_optimum_of_rs_laplace_approximation():
    """The issue's check "clmm2(rating ~ temp + contact, scale = ~judge, random = judge): logLik, β and ζ
    to 1e-3": maximising R's approximation from this engine's own optimum lands on R's estimates.
    This engine's optimum is the better fit of the exact likelihood (per-judge numerical integration)."""
    ref = REFERENCE["wine_clmm2"]
    spec = clmm_spec("rating ~ temp + contact + (1 | judge)", wine(), scale="~ judge")
    fit = fit_spec(spec)
    model = _Model(spec, "logit")
    start = np.r_[fit.thresholds, fit.beta, fit.scale.zeta, np.sqrt(fit.random_effects["judge"][0, 0])]
    res = optimize.minimize(
        lambda x: -_r_curvature_loglik(model, x),
        start,
        method="BFGS",
        options={"gtol": 1e-7},
    )
    assert -res.fun == pytest.approx(ref["loglik"], abs=1e-3)
    theta, beta, zeta, sd = model.layout.split(res.x)
    np.testing.assert_allclose(theta, list(ref["alpha"].values()), atol=1e-3)
    np.testing.assert_allclose(beta, [ref["beta"][n] for n in spec.beta_names], atol=1e-3)
    np.testing.assert_allclose(zeta, [ref["zeta"][n] for n in spec.scale.names], atol=1e-3)
    assert sd[0] == pytest.approx(ref["stdev"], abs=1e-3)
    assert np.abs(start - res.x).max() > 1.0  # the two approximations' optima are far apart
    ours = {
        "alpha": dict(zip(ref["alpha"], fit.thresholds, strict=True)),
        "beta": dict(zip(spec.beta_names, fit.beta, strict=True)),
        "zeta": dict(zip(spec.scale.names, fit.scale.zeta, strict=True)),
        "stdev": float(start[-1]),
    }
    exact_ours, exact_r = _per_group_integral(spec, ours), _per_group_integral(spec, ref)
    assert exact_ours == pytest.approx(fit.loglik, abs=0.1) and exact_ours > exact_r + 1.0


@pytest.mark.slow
def test_clmm2_likert_differs_from_r_only_by_rs_random_effect_curvature():
    if "steen_clmm2" not in REFERENCE:
        pytest.skip("the stored reference lacks the Likert clmm2 fit")
    ref = REFERENCE["steen_clmm2"]
    data = _steen().astype({"annotator": str})
    spec = clmm_spec(
        "score ~ system + (1 | document)", data, scale="~ annotator", reference=_r_reference_system(ref, data)
    )
    # 5e-3 apart, not 1e-5 as on wine: R's fit (4,078 s) ended with 50+ warnings from its mode updates
    assert _clmm2_style_laplace(spec, ref)[1] == pytest.approx(ref["loglik"], abs=1e-2)
    fit = fit_spec(spec)  # the proper Laplace optimum: BART ≈ 1.0 as in clm, where clmm2 reports 0.15
    assert not fit.diagnostics.failed and fit.beta[list(fit.beta_names).index("systemBART")] > 0.9


def test_random_log_scale_with_crossed_intercepts_is_found_on_simulated_data():
    design = ScaleDesign(n_annotators=40, docs_per_annotator=8, sd_log_scale=0.6)
    table = simulate_scale_study(design, seed=3)
    spec = clmm_spec("score ~ system + (1 | annotator) + (1 | document)", table, scale="~ (1 | annotator)")
    fit = fit_spec(spec)
    assert not fit.diagnostics.failed
    lo, hi = fit.scale.sd - 1.96 * fit.scale.sd_se, fit.scale.sd + 1.96 * fit.scale.sd_se
    assert lo < 0.6 < hi and lo > 0.2
    test = scale_lr_test(fit)
    assert test.boundary and test.df == 1 and test.p < 1e-3
    groups = fit.scale.groups
    assert list(groups.columns) == ["annotator", "shift", "shift_se", "log_spread", "log_spread_se"]
    assert len(groups) == 40 and (groups["log_spread_se"] > 0).all()
    payload = fit.to_dict()
    assert payload["scale_sd"]["factor"] == "annotator" and payload["scale_effects"] == []


def test_without_scale_heterogeneity_the_random_log_scale_is_small_and_not_significant():
    design = ScaleDesign(n_annotators=30, sd_log_scale=0.0)
    table = simulate_scale_study(design, seed=5)
    spec = clmm_spec("score ~ system + (1 | annotator) + (1 | document)", table, scale="~ (1 | annotator)")
    fit = fit_spec(spec)
    assert fit.scale.sd < 0.3
    assert scale_lr_test(fit).p > 0.05
    # and the location part then equals the standard CLMM's
    standard = fit_spec(clmm_spec("score ~ system + (1 | annotator) + (1 | document)", table))
    assert fit.loglik >= standard.loglik - 1e-4


@pytest.mark.parametrize(
    ("scale", "message"),
    [
        ("annotator", "one-sided"),
        ("~ (1 + system | annotator)", "only a random intercept"),
        ("~ (1 | annotator) + (1 | document)", "at most one random term"),
        ("~ nothere", "not in the data"),
        ("~ 1", "has no term"),
    ],
)
def test_bad_scale_formulas_are_one_clear_error(scale, message):
    with pytest.raises(ModelSpecError, match=message):
        clmm_spec("rating ~ temp + (1 | judge)", wine().rename(columns={"bottle": "annotator"}), scale=scale)


def test_random_slopes_with_scale_effects_are_refused():
    spec = clmm_spec("rating ~ temp + (1 + temp | judge)", wine(), scale="~ judge")
    with pytest.raises(ModelSpecError, match="only random intercepts"):
        fit_scale(spec)


def test_adaptive_quadrature_with_scale_is_refused():
    with pytest.raises(OptionError, match="n_agq"):
        fit_spec(clmm_spec("rating ~ temp + (1 | judge)", wine(), scale="~ judge"), n_agq=5)


def test_cli_reports_scale_effects_and_the_lr_test(tmp_path):
    path = tmp_path / "wine.csv"
    wine().to_csv(path, index=False)
    args = ["analyze", str(path), "--formula", "rating ~ temp + contact", "--scale-effects", "~ judge"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    [part] = json.loads(result.stdout)["criteria"]
    ref = REFERENCE["wine_clm"]
    effects = {row["term"]: row for row in part["scale_effects"]}
    assert effects["judge2"]["estimate"] == pytest.approx(ref["zeta"]["judge2"], abs=1e-5)
    assert effects["judge2"]["se"] == pytest.approx(ref["se"]["judge2"], rel=1e-4)
    assert part["scale_sd"] is None
    assert part["scale_test"]["df"] == 8 and 0 < part["scale_test"]["p"] < 1
    text = CliRunner().invoke(main, args)
    assert "does scale use differ between annotators?" in text.output


def test_cli_refuses_scale_effects_with_the_r_engine(tmp_path):
    path = tmp_path / "wine.csv"
    wine().to_csv(path, index=False)
    result = CliRunner().invoke(
        main,
        ["analyze", str(path), "--formula", "rating ~ temp + (1|judge)", "--scale-effects", "~ judge",
         "--engine", "r"],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "native engine only" in result.output and "Traceback" not in result.output


def test_scale_use_figure_and_sentence(tmp_path):
    from humaneval.analysis.scale import scale_use
    from humaneval.report.figures import scale_use_figure

    table = simulate_scale_study(ScaleDesign(n_annotators=24, sd_log_scale=0.6), seed=8)
    use = scale_use(table)
    assert use.test.p < 0.05 and 0.3 < use.sd < 1.0
    assert use.sentence().startswith("Scale use differs between annotators (log-spread SD")
    assert use.max_change >= 0 and use.term == "systems1"
    path = scale_use_figure(use.groups, tmp_path / "scale-use.png")
    assert path.exists() and path.with_suffix(".svg").exists()


def test_cli_refuses_scale_effects_for_a_classic_test(tmp_path):
    path = tmp_path / "wine.csv"
    wine().to_csv(path, index=False)
    args = [
        "analyze",
        str(path),
        "--formula",
        "rating ~ temp",
        "--scale-effects",
        "~ judge",
        "--test",
        "ttest",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "--scale-effects" in result.output and "Traceback" not in result.output


def test_without_scale_terms_the_scale_engine_equals_the_location_engine():
    """An independent check of the joint Laplace code: with no scale term it is the ordinary CLMM."""
    from dataclasses import replace

    from humaneval.clmm.scale_spec import ScaleSpec

    spec = clmm_spec("rating ~ temp + contact + (1 | judge) + (1 | bottle)", wine())
    empty = replace(spec, scale=ScaleSpec("", np.zeros((spec.nobs, 0)), ()))
    standard, joint = fit_spec(spec), fit_scale(empty)
    assert joint.loglik == pytest.approx(standard.loglik, abs=1e-6)
    np.testing.assert_allclose(joint.beta, standard.beta, atol=1e-4)
    np.testing.assert_allclose(joint.se, standard.se, rtol=1e-3)
