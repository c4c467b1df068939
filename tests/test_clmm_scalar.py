"""The scalar random-term path (humaneval.clmm.scalar) gives the general path's fits.

On the wine data (ordinal::clmm's numbers in tests/data/clmm_formulas_reference.json, made by
tests/r/clmm_formulas.R) and the shared Likert study, both with the numba kernel and the numpy
fallback. The scalar path solves each group's mode to the rounding floor (Newton, one step past
the tolerance); the general path stops its chord steps at |∂F/∂u| < 1e-9, an error that the
forward-difference Hessian divides by its step 1e-5. So SEs are compared to 1e-8 against the
general path with its modes solved to 1e-13, and to its own accuracy (rel 1e-4) at the default;
logLik and estimates to 1e-8 against both. R's own numbers are met as closely as by the general
path (logLik 1e-5, β 5e-5, SEs and variances rel 1e-4: R stops its optimiser a little short).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humaneval.clmm.laplace as laplace
from humaneval.clmm import clmm_spec, fit_spec, scalar
from humaneval.clmm.design import random_design
from humaneval.clmm.fit import _likelihood
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.scalar import ScalarLaplaceProblem
from tests.conftest import shared_file

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "clmm_formulas_reference.json").read_text())["fits"]
KERNELS = [
    "numpy",
    pytest.param("numba", marks=pytest.mark.skipif(scalar._kernel() is None, reason="no numba")),
]
WINE = {
    "wine_additive": ("rating ~ temp + contact + (1|judge)", "logit", "flexible"),
    "wine_interaction": ("rating ~ temp * contact + (1|judge)", "logit", "flexible"),
    "wine_probit": ("rating ~ temp + contact + (1|judge)", "probit", "flexible"),
    "wine_equidistant": ("rating ~ temp + contact + (1|judge)", "logit", "equidistant"),
    "wine_symmetric": ("rating ~ temp + contact + (1|judge)", "logit", "symmetric"),
    "wine_null": ("rating ~ contact + (1|judge)", "logit", "flexible"),
}


@pytest.fixture(scope="module")
def wine() -> pd.DataFrame:
    return pd.read_csv(DATA / "wine.csv")


def use(monkeypatch, path: str) -> None:
    """Fit through ``path``: general, numba (the scalar path's default) or numpy."""
    monkeypatch.setenv("HUMANEVAL_FASTPATH", "0" if path == "general" else "")
    monkeypatch.setenv("HUMANEVAL_FUSED", "0" if path in ("numpy", "general") else "1")


def fits(monkeypatch, spec, link: str, kernel: str, **options):
    """The scalar path's fit, the general path's and the general path's with modes solved to 1e-13."""
    use(monkeypatch, kernel)
    fast = fit_spec(spec, link, **options)
    use(monkeypatch, "general")
    general = fit_spec(spec, link, **options)
    monkeypatch.setattr(laplace, "NEWTON_TOL", 1e-13)
    tight = fit_spec(spec, link, **options)
    return fast, general, tight


def se(fit) -> np.ndarray:
    return np.sqrt(np.diag(fit.vcov_theta_beta))


def assert_same_fit(fast, general, tight, estimates: float = 1e-8) -> None:
    """Same logLik (1e-8), estimates and variances (``estimates``), flags and SEs (module docstring)."""
    for other in (general, tight):
        assert fast.loglik == pytest.approx(other.loglik, abs=1e-8)
        np.testing.assert_allclose(fast.beta, other.beta, atol=estimates)
        np.testing.assert_allclose(fast.thresholds, other.thresholds, atol=estimates)
        for factor, psi in fast.random_effects.items():
            np.testing.assert_allclose(psi, other.random_effects[factor], atol=max(estimates, 1e-8) * 10)
        assert fast.diagnostics.reasons == other.diagnostics.reasons
        assert fast.diagnostics.warnings == other.diagnostics.warnings
    np.testing.assert_allclose(se(fast), se(tight), atol=max(estimates, 1e-8))
    # the general path's own SE accuracy (forward differences over modes solved to 1e-9: 4–5e-5
    # relative against central differences, docs of humaneval.clmm.fit._hessian)
    np.testing.assert_allclose(se(fast), se(general), rtol=1e-4)


def test_dispatch_takes_the_scalar_path_for_one_scalar_term(wine, monkeypatch):
    monkeypatch.delenv("HUMANEVAL_FASTPATH", raising=False)
    monkeypatch.setenv("HUMANEVAL_FUSED", "0")

    def problem(formula: str):
        return _likelihood(clmm_spec(formula, wine.assign(b=wine["bottle"] / 4)), "logit", 1).problem

    assert type(problem("rating ~ temp + contact + (1|judge)")) is ScalarLaplaceProblem
    assert type(problem("rating ~ temp + (0 + b|judge)")) is ScalarLaplaceProblem  # a continuous slope
    assert type(problem("rating ~ temp + contact + (1|judge) + (1|bottle)")) is LaplaceProblem
    assert type(problem("rating ~ temp + contact + (1 + temp|judge)")) is LaplaceProblem
    assert type(_likelihood(clmm_spec("rating ~ temp + (1|judge)", wine), "logit", 5).problem.laplace) is (
        ScalarLaplaceProblem
    )
    monkeypatch.setenv("HUMANEVAL_FASTPATH", "0")
    assert type(problem("rating ~ temp + contact + (1|judge)")) is LaplaceProblem


@pytest.mark.parametrize("kernel", KERNELS)
def test_likelihood_and_gradient_equal_the_general_path(wine, monkeypatch, kernel):
    """At parameters away from the optimum and from a cold start, both solved to 1e-13."""
    monkeypatch.setattr(laplace, "NEWTON_TOL", 1e-13)
    monkeypatch.setenv("HUMANEVAL_FUSED", "0" if kernel == "numpy" else "")
    spec = clmm_spec("rating ~ temp + contact + (1|judge)", wine)
    design = random_design(spec.terms)
    fast = ScalarLaplaceProblem(spec.y, spec.x, design, "logit", 4)
    assert (fast._kernel is None) == (kernel == "numpy")
    general = LaplaceProblem(spec.y, spec.x, design, "logit", 4)
    rng = np.random.default_rng(3)
    for sigma in (0.0, 0.4, 1.1, 3.0):
        theta = np.sort(rng.normal(0, 2, 4))
        beta = rng.normal(0, 1, 2)
        one, two = (p.evaluate(theta, beta, (np.array([[sigma]]),)) for p in (fast, general))
        assert one.loglik == pytest.approx(two.loglik, abs=1e-10)
        np.testing.assert_allclose(one.grad_theta, two.grad_theta, atol=1e-9)
        np.testing.assert_allclose(one.grad_beta, two.grad_beta, atol=1e-9)
        np.testing.assert_allclose(one.grad_factors[0], two.grad_factors[0], atol=1e-9)
        np.testing.assert_allclose(fast.modes[0], general.modes[0], atol=1e-10)
    unordered = fast.evaluate(np.array([0.0, -1.0, 1.0, 2.0]), np.zeros(2), (np.array([[1.0]]),))
    assert unordered.loglik == -np.inf


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name", list(WINE))
def test_wine_fits_equal_the_general_path_and_r(wine, monkeypatch, kernel, name):
    formula, link, threshold = WINE[name]
    spec = clmm_spec(formula, wine, threshold=threshold)
    fast, general, tight = fits(monkeypatch, spec, link, kernel)
    assert_same_fit(fast, general, tight)
    ref = REFERENCE[name]
    assert fast.loglik == pytest.approx(ref["loglik"], abs=1e-5)
    for beta_name, value, value_se in zip(fast.beta_names, fast.beta, fast.se, strict=True):
        assert value == pytest.approx(ref["beta"][beta_name], abs=5e-5)
        assert value_se == pytest.approx(ref["se"][beta_name], rel=1e-4)
    assert fast.random_effects["judge"][0, 0] == pytest.approx(ref["varcorr"]["judge"][0][0], rel=1e-4)


@pytest.mark.parametrize("kernel", KERNELS)
def test_adaptive_quadrature_equals_the_general_path(wine, monkeypatch, kernel):
    spec = clmm_spec("rating ~ temp + contact + (1|judge)", wine)
    assert_same_fit(*fits(monkeypatch, spec, "logit", kernel, n_agq=7))


@pytest.mark.parametrize("kernel", KERNELS)
def test_shared_likert_annotator_intercepts_equal_the_general_path(monkeypatch, kernel):
    frame = pd.read_csv(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))
    spec = clmm_spec("score ~ system + (1|annotator)", frame.astype({"annotator": str}))
    fast, general, tight = fits(monkeypatch, spec, "logit", kernel)
    assert_same_fit(fast, general, tight)


@pytest.mark.parametrize("kernel", KERNELS)
def test_hostile_designs_get_the_general_paths_flags(wine, monkeypatch, kernel):
    """A fixed-effect level whose ratings all fall in the top category (β runs off), and a single
    judge (no variance to estimate)."""
    extreme = wine.assign(rating=np.where(wine["temp"] == "warm", 5, wine["rating"]))
    one_judge = wine.assign(judge=1)
    for frame in (extreme, one_judge):
        spec = clmm_spec("rating ~ temp + contact + (1|judge)", frame)
        fast, general, _ = fits(monkeypatch, spec, "logit", kernel)
        assert fast.diagnostics.failed == general.diagnostics.failed
        assert flags(fast.diagnostics.reasons) == flags(general.diagnostics.reasons)
        assert flags(fast.diagnostics.warnings) == flags(general.diagnostics.warnings)
        assert fast.loglik == pytest.approx(general.loglik, abs=1e-8)
    assert flags(fast.diagnostics.warnings) == ("singular random-effect covariance (boundary fit) for judge",)
    assert general.random_effects["judge"][0, 0] == fast.random_effects["judge"][0, 0] == 0.0


def flags(texts: tuple[str, ...]) -> tuple[str, ...]:
    """Diagnostics without their numbers (cond.H of a separated fit is 1e16 or inf, β drifts in the
    flat direction: the same flag either way)."""
    return tuple(re.sub(r"-?\binf\b|-?\d[\d.]*(e[+-]?\d+)?", "#", text) for text in texts)
