"""EMMs and contrasts under a CLM with fixed scale effects (issue 43), against R's emmeans.

Reference: tests/data/scale_emmeans_reference.json, made by tests/r/scale_emmeans.R (emmeans on
``ordinal::clm(rating ~ temp + contact, scale = ~judge)``, the wine data).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats
from scipy.special import expit

from humaneval.cli import main
from humaneval.clmm import fit_spec
from humaneval.clmm.emmeans import emm_contrasts, emmeans
from humaneval.clmm.formula import clmm_spec
from humaneval.io.datasets import wine

REFERENCE = json.loads((Path(__file__).parent / "data" / "scale_emmeans_reference.json").read_text())


@pytest.fixture(scope="module")
def fit():
    return fit_spec(clmm_spec("rating ~ temp + contact", wine(), scale="~ judge"))


def test_the_fit_is_rs(fit):
    assert fit.loglik == pytest.approx(REFERENCE["loglik"], abs=1e-6)


@pytest.mark.parametrize(("mode", "key"), [("latent", "latent"), ("mean.class", "mean_class")])
def test_emms_equal_emmeans(fit, mode, key):
    ref = REFERENCE[key]
    table = emmeans(fit, "temp", mode=mode)
    assert table["temp"].tolist() == ref["level"]
    np.testing.assert_allclose(table["emmean"], ref["emmean"], atol=1e-5)
    np.testing.assert_allclose(table["se"], ref["se"], rtol=1e-3)


def test_category_probabilities_equal_emmeans(fit):
    ref = REFERENCE["prob"]
    table = emmeans(fit, "temp", mode="prob")
    assert table["temp"].tolist() == ref["temp"] and table["category"].tolist() == ref["rating"]
    np.testing.assert_allclose(table["emmean"], ref["prob"], atol=1e-6)
    np.testing.assert_allclose(table["se"], ref["se"], rtol=1e-3, atol=1e-6)


def test_expected_score_averages_each_judges_own_spread(fit):
    """An independent computation: every (contact, judge) cell with its own spread exp(ζ_judge)."""
    theta = fit.thresholds
    zeta = np.r_[0.0, fit.scale.zeta]
    beta = dict(zip(fit.beta_names, fit.beta, strict=True))
    expected = emmeans(fit, "temp", mode="expected").set_index("temp")["emmean"]
    for temp, warm in (("cold", 0.0), ("warm", 1.0)):
        cells = []
        for contact in (0.0, 1.0):
            eta = beta["tempwarm"] * warm + beta["contactyes"] * contact
            for z in zeta:
                probs = np.diff(np.r_[0.0, expit((theta - eta) / np.exp(z)), 1.0])
                cells.append(probs @ np.arange(1.0, 6.0))
        assert expected[temp] == pytest.approx(np.mean(cells), abs=1e-10)


def test_contrasts_are_differences_of_the_emms_and_independent_of_the_reference_judge(fit):
    """emmeans' pairs() leaves x̄ᵀΔβ unscaled (the reference judge's units); here the contrast is the
    difference of the latent EMMs, R's pairs estimate times exp(−mean ζ), whichever judge is the reference."""
    table = emm_contrasts(fit, "temp")
    ref_emm, ref_pair = REFERENCE["latent"]["emmean"], REFERENCE["pairs_latent"]
    [row] = table.to_dict(orient="records")
    assert row["estimate"] == pytest.approx(ref_emm[0] - ref_emm[1], abs=1e-5)
    mean_zeta = np.mean(np.r_[0.0, fit.scale.zeta])
    assert row["estimate"] == pytest.approx(ref_pair["estimate"] * np.exp(-mean_zeta), abs=1e-5)
    data = wine().assign(judge=lambda d: pd.Categorical(d["judge"].astype(str)))
    other = fit_spec(clmm_spec("rating ~ temp + contact", data, scale="~ judge", reference={"judge": "8"}))
    [again] = emm_contrasts(other, "temp").to_dict(orient="records")
    assert again["estimate"] == pytest.approx(row["estimate"], abs=1e-4)
    assert again["z"] == pytest.approx(row["z"], rel=1e-3)


def test_a_random_log_scale_leaves_the_emms_at_the_median_annotator():
    """Random effects enter at 0: with only a random log-scale the EMMs are the location model's formulas."""
    spec = clmm_spec("rating ~ temp + contact + (1 | bottle)", wine(), scale="~ (1 | judge)")
    fit = fit_spec(spec)
    latent = emmeans(fit, "temp").set_index("temp")["emmean"]
    beta = dict(zip(fit.beta_names, fit.beta, strict=True))
    assert latent["warm"] - latent["cold"] == pytest.approx(beta["tempwarm"], abs=1e-10)
    assert latent["cold"] == pytest.approx(0.5 * beta["contactyes"] - np.mean(fit.thresholds), abs=1e-10)


def test_analyze_reports_rs_lr_test_of_scale_use_in_json_and_text(tmp_path):
    """`analyze --scale-effects "~ judge"`: the LR test from R's two clm fits, emmeans' EMMs."""
    path = tmp_path / "wine.csv"
    wine().to_csv(path, index=False)
    args = ["analyze", str(path), "--formula", "rating ~ temp + contact", "--scale-effects", "~ judge",
            "--emmeans", "temp"]  # fmt: skip
    out = CliRunner().invoke(main, [*args, "--json"])
    assert out.exit_code == 0, out.output
    [part] = json.loads(out.stdout)["criteria"]
    statistic = 2.0 * (REFERENCE["loglik"] - REFERENCE["loglik_no_scale"])
    test = part["scale_test"]
    assert test["statistic"] == pytest.approx(statistic, abs=1e-5) and test["df"] == 8
    assert test["p"] == pytest.approx(stats.chi2.sf(statistic, 8), rel=1e-4) and not test["boundary"]
    assert test["loglik_null"] == pytest.approx(REFERENCE["loglik_no_scale"], abs=1e-6)
    mean_class = {r["temp"]: r["emmean"] for r in part["emmeans"] if r["mode"] == "mean.class"}
    ref = REFERENCE["mean_class"]["emmean"]
    assert [mean_class["cold"], mean_class["warm"]] == pytest.approx(ref, abs=1e-5)
    text = CliRunner().invoke(main, args).output
    assert f"does scale use differ between annotators? LR χ²(8) = {statistic:.3f}, p = 0.2" in text
