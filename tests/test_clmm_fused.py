"""The compiled logit terms (humaneval.clmm.fused) give the numbers of the numpy path."""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm import fit_native, fused, links
from humaneval.core.ratings import load_ratings

pytest.importorskip("numba")


def terms(monkeypatch, setting: str, *args):
    monkeypatch.setenv("HUMANEVAL_FUSED", setting)
    return links.obs_terms(*args)


@pytest.mark.parametrize("order", [2, 3])
def test_terms_equal_the_numpy_path_in_both_tails(monkeypatch, order):
    rng = np.random.default_rng(1)
    theta = np.r_[-np.inf, -2.0, -0.5, 0.7, 2.2, np.inf]
    y = rng.integers(0, 5, 5000)
    eta = rng.normal(0, 4, 5000)
    eta[:6] = [40.0, -40.0, 800.0, -800.0, 0.0, 2.2]
    general = terms(monkeypatch, "0", theta, y, eta, "logit", order)
    compiled = terms(monkeypatch, "1", theta, y, eta, "logit", order)
    for name, value in vars(general).items():
        if name.startswith("_"):  # the numpy path's intermediate values, kept for third_order
            continue
        if value is None:
            assert getattr(compiled, name) is None
            continue
        other = getattr(compiled, name)
        np.testing.assert_array_equal(np.isfinite(value), np.isfinite(other))
        finite = np.isfinite(value)
        np.testing.assert_allclose(other[finite], value[finite], rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("structure", ["intercepts", "maximal"])
def test_laplace_likelihood_and_gradient_equal_the_numpy_path(likert_path, monkeypatch, structure):
    from humaneval.clmm.fit import _likelihood, _start_vector
    from humaneval.clmm.structures import structure_spec

    spec = structure_spec(prepare_clmm_data(load_ratings(likert_path)), structure)
    rng = np.random.default_rng(5)
    values = {}
    for setting in ("0", "1"):
        monkeypatch.setenv("HUMANEVAL_FUSED", setting)
        model = _likelihood(spec, "logit", 1)
        x = _start_vector(spec, model.layout, "logit", None)
        x = x + 0.05 * np.abs(rng.normal(size=x.size)) if setting == "0" else values["x"]
        values["x"] = x
        values[setting] = model.loglik_and_grad(x)
    assert values["1"][0] == pytest.approx(values["0"][0], abs=1e-8)
    np.testing.assert_allclose(values["1"][1], values["0"][1], atol=1e-8)


@pytest.mark.parametrize("structure", ["intercepts", "maximal"])
def test_fits_equal_the_numpy_path(likert_path, monkeypatch, structure):
    """Rounding-level differences move L-BFGS-B's path: the optima agree to the optimiser's tolerance
    (logLik to 1e-8; β to 1e-8 for intercepts, 1e-5 — the native-vs-R tolerance — for maximal)."""
    data = prepare_clmm_data(load_ratings(likert_path))
    monkeypatch.setenv("HUMANEVAL_FUSED", "0")
    general = fit_native(data, structure)
    monkeypatch.setenv("HUMANEVAL_FUSED", "1")
    compiled = fit_native(data, structure)
    tol = 1e-8 if structure == "intercepts" else 1e-5
    assert compiled.loglik == pytest.approx(general.loglik, abs=1e-8)
    np.testing.assert_allclose(compiled.beta, general.beta, atol=tol)
    np.testing.assert_allclose(compiled.thresholds, general.thresholds, atol=tol)
    np.testing.assert_allclose(np.sqrt(np.diag(compiled.vcov)), np.sqrt(np.diag(general.vcov)), rtol=1e-4)


def test_large_calls_use_the_kernel_chosen_for_the_fit_small_ones_when_asked(monkeypatch):
    from humaneval.clmm import compiled

    monkeypatch.delenv("HUMANEVAL_FUSED", raising=False)
    monkeypatch.setattr(fused, "_this_fit", [False])
    monkeypatch.setattr(compiled, "_loaded", [True])  # loaded by an earlier fit: no matter
    assert not fused.wanted(10**7)
    fused.choose(True)
    assert fused.wanted(fused.MIN_ROWS) and not fused.wanted(fused.MIN_ROWS - 1)
    monkeypatch.setenv("HUMANEVAL_FUSED", "0")
    assert not fused.wanted(10**7)
    fused.choose(False)
    monkeypatch.setenv("HUMANEVAL_FUSED", "1")
    assert fused.wanted(1)
