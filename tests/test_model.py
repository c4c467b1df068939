"""The built-in CLMM description and its sampler (spec §6.1, §6.3)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special, stats

from humaneval.clmm.model import OrdinalModel, covariance_factor, default_model, sample_ratings
from humaneval.design import block_design
from humaneval.errors import ModelSpecError


def test_default_model_is_the_published_one(model_json_path):
    published = OrdinalModel.from_json(model_json_path)
    builtin = default_model()
    assert builtin.system_names == ("__REFERENCE__", "abssentrw", "BART", "onmt_pg", "seneca")
    np.testing.assert_array_equal(builtin.thresholds, published.thresholds)
    np.testing.assert_array_equal(builtin.coefficients, published.coefficients)
    for factor in ("annotator", "document"):
        np.testing.assert_array_equal(builtin.random_effects[factor], published.random_effects[factor])


def test_json_roundtrip(tmp_path):
    model = default_model()
    again = OrdinalModel.from_json(model.to_json(tmp_path / "m.json"))
    assert again.to_dict() == model.to_dict()


def test_latent_variances_and_expectations_from_spec():
    model = default_model()
    np.testing.assert_allclose(model.latent_variance(), [2.1854, 2.2721, 2.4198, 2.1955, 2.7685], atol=1e-4)
    probs = model.marginal_probabilities()
    expected = probs.to_numpy() @ np.arange(1, 8)
    np.testing.assert_allclose(expected, [4.355, 4.182, 5.266, 4.857, 3.539], atol=1e-3)
    np.testing.assert_allclose(
        probs.loc["BART"], [0.014, 0.050, 0.081, 0.146, 0.199, 0.244, 0.267], atol=1e-3
    )


def quad_probabilities(model: OrdinalModel) -> np.ndarray:
    """P(Y=k) per system by adaptive quadrature over the latent normal (independent of the package)."""
    theta = np.r_[-np.inf, model.thresholds, np.inf]
    out = np.zeros((len(model.system_names), len(theta) - 1))
    for s, beta in enumerate(model.coefficients):
        psi_a, psi_d = model.random_effects["annotator"], model.random_effects["document"]
        var = psi_a[0, 0] + psi_d[0, 0]
        if s:
            var += psi_a[s, s] + 2 * psi_a[0, s] + psi_d[s, s] + 2 * psi_d[0, s]
        sd = np.sqrt(var)
        for k in range(len(theta) - 1):

            def f(x, k=k, beta=beta, sd=sd):
                return (special.expit(theta[k + 1] - x) - special.expit(theta[k] - x)) * stats.norm.pdf(
                    x, beta, sd
                )

            out[s, k] = integrate.quad(f, beta - 12 * sd, beta + 12 * sd)[0]
    return out


def test_sampler_reproduces_model_frequencies():
    model = default_model()
    # 200 blocks x 20 docs x 10 annotators x 5 systems = 200,000 ratings; many levels so that
    # the random-effect draws average out
    design = block_design(200, 20, 10, model.system_names)
    ratings = sample_ratings(model, design, seed=7)
    assert len(ratings) == 200_000
    observed = (
        ratings.data.groupby("system")["score"]
        .value_counts(normalize=True)
        .unstack()
        .loc[list(model.system_names)]
        .to_numpy()
    )
    truth = quad_probabilities(model)
    # Monte-Carlo SE is inflated by the clustering of ratings in annotators and documents;
    # 0.012 absolute is > 4 SE for 4,000 documents x 2,000 annotators at these variances
    np.testing.assert_allclose(observed, truth, atol=0.012)
    np.testing.assert_allclose(model.marginal_probabilities().to_numpy(), truth, atol=1e-6)


def test_singular_covariance_factor_and_draws():
    psi = default_model().random_effects["annotator"]
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(psi)
    factor = covariance_factor(psi)
    np.testing.assert_allclose(factor @ factor.T, psi, atol=1e-12)
    draws = np.random.default_rng(0).standard_normal((200_000, 5)) @ factor.T
    np.testing.assert_allclose(np.cov(draws.T), psi, atol=0.02)


def test_sampler_is_deterministic_and_respects_design():
    model = default_model()
    design = block_design(3, 2, 2, model.system_names, seed=1)
    a = sample_ratings(model, design, seed=3).data
    b = sample_ratings(model, design, seed=3).data
    assert a.equals(b)
    cols = ["annotator", "document", "system", "position"]
    pd.testing.assert_frame_equal(a[cols], design[cols], check_dtype=False, check_categorical=False)
    assert a["score"].between(1, 7).all()


def test_null_model_and_bad_specs(tmp_path):
    null = default_model().with_effects(0)
    assert not null.coefficients.any()
    spec = default_model().to_dict()
    for key, value, message in [
        ("thresholds", [1, 0, 2, 3, 4, 5], "strictly increasing"),
        ("coefficients", [0, 1], "one per system"),
        ("coefficients", [1, 0, 0, 0, 0], "must be 0"),
    ]:
        with pytest.raises(ModelSpecError, match=message):
            OrdinalModel.from_dict({**spec, key: value})
    bad = dict(spec, random_effects={"annotator": (-np.eye(5)).ravel().tolist()})
    with pytest.raises(ModelSpecError, match="positive semi-definite"):
        OrdinalModel.from_dict(bad)
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"thresholds": [0]}))
    with pytest.raises(ModelSpecError, match=r"m.json: model is missing the key\(s\) system_names"):
        OrdinalModel.from_json(path)
