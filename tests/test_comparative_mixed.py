"""The mixed-effects Bradley–Terry model (humaneval.comparative.mixed) against independent fits."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from humaneval.clmm import fit_spec
from humaneval.clmm.spec import ClmmSpec, RandomEffect
from humaneval.comparative import analyze_comparative, build_judgements, mixed_design
from humaneval.comparative.mixed import fit_mixed_bt, mixed_spec
from humaneval.comparative.simulate import simulate_bws_study, simulate_pairwise_study
from humaneval.errors import AnalysisCaution, OptionError
from humaneval.report.cautions import model_cautions

DATA = Path(__file__).parent / "data"


def _identical_annotators(n: int = 6) -> pd.DataFrame:
    """Six annotators who give the very same 60 judgements: no between-annotator variance at all."""
    base = simulate_pairwise_study(
        [0.6, 0.2, 0.0, -0.8], blocks=1, docs_per_block=10, annotators_per_block=1, seed=4
    )
    return pd.concat([base.assign(annotator=f"w{k}") for k in range(n)], ignore_index=True)


def test_zero_variance_fit_is_the_fixed_logit_on_plus_minus_one_columns():
    judgements = build_judgements(_identical_annotators())
    fit = fit_mixed_bt(judgements, ("annotator",))
    assert not fit.failed
    assert fit.random_sd()["sd"].max() < 1e-4
    spec = mixed_spec(mixed_design(judgements), judgements.systems, ("annotator",))
    # independent: statsmodels' logistic regression on the same ±1 columns with an intercept (−τ)
    logit = sm.Logit(spec.y, np.column_stack([np.ones(spec.nobs), spec.x])).fit(disp=0, tol=1e-12)
    np.testing.assert_allclose(fit.beta, logit.params[1:], atol=1e-4)
    np.testing.assert_allclose(fit.thresholds, [-logit.params[0]], atol=1e-4)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.vcov)), logit.bse[1:], rtol=1e-3)
    # the comparisons alternate their orientation within each pair, so τ is a small nuisance
    assert abs(fit.thresholds[0]) < 0.3


def test_plus_minus_one_design_alternates_orientation_and_keeps_outcomes():
    judgements = build_judgements(_identical_annotators(2))
    design = mixed_design(judgements)
    spec = mixed_spec(design, judgements.systems)
    flipped = np.any(spec.x != design[list(judgements.systems[1:])].to_numpy(), axis=1)
    assert 0.4 < flipped.mean() < 0.6
    assert np.array_equal(spec.y[flipped], 1 - design["outcome"].to_numpy()[flipped].astype(int))
    # z holds the ±1 entries of all four systems and sums to zero per comparison
    z = spec.terms[0].z
    assert z.shape == (spec.nobs, 4) and np.allclose(z.sum(axis=1), 0)
    assert spec.terms[0].covariance == "diagonal"


def test_matches_ordinal_clmm_on_the_same_design():
    """Reference numbers from tests/r/mixed_bt.R (ordinal::clmm, R 4.2)."""
    d = pd.read_csv(DATA / "mixed_bt_design.csv")
    z = d[["z0", "z1", "z2", "z3"]].to_numpy()
    term = RandomEffect("annotator", d["annotator"].to_numpy(), z, ("z0", "z1", "z2", "z3"), (1, 1, 1, 1))
    spec = ClmmSpec.from_matrices(
        d["y"].to_numpy(), d[["x0", "x1", "x2"]].to_numpy(), [term], beta_names=["x0", "x1", "x2"]
    )
    fit = fit_spec(spec)
    assert not fit.diagnostics.failed
    assert fit.loglik == pytest.approx(-123.588453, abs=1e-4)
    np.testing.assert_allclose(fit.beta, [-0.396153, -0.016402, -1.491399], atol=2e-4)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.vcov)), [0.455324, 0.543747, 0.382398], rtol=2e-3)
    np.testing.assert_allclose(fit.thresholds, [0.150390], atol=2e-4)
    sd = np.sqrt(np.diag(fit.random_effects["annotator"]))
    np.testing.assert_allclose(sd, [0.743270, 0.950487, 1.363241, 0.0], atol=2e-3)


@pytest.mark.parametrize("true_sd", [0.0, 1.0])
def test_recovers_the_sd_of_annotator_deviations(true_sd):
    table = simulate_pairwise_study(
        [0.6, 0.2, 0.0, -0.3, -0.5],
        blocks=20,
        docs_per_block=5,
        annotators_per_block=3,
        annotator_sd=true_sd,
        seed=21,
    )
    fit = fit_mixed_bt(build_judgements(table))
    assert not fit.failed
    sds = fit.random_sd()
    sd = sds.loc[sds["factor"] == "annotator", "sd"].to_numpy()
    # no document deviations were simulated
    assert np.sqrt(np.mean(sds.loc[sds["factor"] == "document", "sd"] ** 2)) < 0.3
    if true_sd == 0:
        assert np.sqrt(np.mean(sd**2)) < 0.25
    else:
        # 60 annotators × 5 systems: the root mean square of the per-system SDs is close to 1
        assert 0.8 < np.sqrt(np.mean(sd**2)) < 1.2
        # β is the annotator-level θs − θs0 (not attenuated): within 2 SE of the truth
        truth = np.array([0.2, 0.0, -0.3, -0.5]) - 0.6
        assert np.all(np.abs(fit.beta - truth) < 2.5 * np.sqrt(np.diag(fit.vcov)))


def test_analyze_with_mixed_inference_gives_the_tables_and_json_of_the_other_models():
    table = simulate_pairwise_study(
        [0.5, 0.2, 0.0, -0.2, -0.5], annotator_sd=0.8, seed=1, blocks=4, docs_per_block=2
    )
    result = analyze_comparative(table, inference="mixed")
    fit = result.fit
    direct = fit_mixed_bt(build_judgements(table))
    np.testing.assert_allclose(fit.beta, direct.beta)
    assert result.test == "mixed-bradley-terry" and fit.inference == "mixed" and fit.nobs == 240
    payload = result.to_dict()
    assert payload["inference"] == "mixed" and not payload["diagnostics"]["failed"]
    assert [r["factor"] for r in payload["random_effects"]] == ["annotator"] * 5 + ["document"] * 5
    assert payload["thresholds"][0]["threshold"] == "first listed|won"
    # contrasts: θa − θb from β, normal reference (df ∞), win probability σ(estimate)
    row = result.contrasts.iloc[0]
    assert row["estimate"] == pytest.approx(-direct.beta[0])
    assert row["win_probability"] == pytest.approx(1 / (1 + np.exp(-row["estimate"])))
    assert {"letters", "estimate_ci_low", "estimate_ci_high"} <= set(result.systems.columns)
    assert "annotator deviation SD per system" in result.summary()


def test_ties_make_a_three_category_model():
    table = simulate_pairwise_study([0.5, 0.0, -0.5], annotator_sd=0.5, tie=0.8, seed=2, blocks=6)
    result = analyze_comparative(table, inference="mixed", mixed_terms=("annotator", "document"))
    names = [t["threshold"] for t in result.to_dict()["thresholds"]]
    assert names == ["lost|tie", "tie|won"]
    low, high = (t["estimate"] for t in result.to_dict()["thresholds"])
    assert low < 0 < high  # ties sit between the two thresholds
    assert {r["factor"] for r in result.to_dict()["random_effects"]} == {"annotator", "document"}


def test_a_failed_mixed_fit_is_not_shown_and_the_bootstrap_is_used(monkeypatch):
    from humaneval.comparative import mixed

    table = simulate_pairwise_study([0.5, 0.0, -0.5], annotator_sd=0.5, seed=3, blocks=4)
    real = mixed.fit_mixed_bt

    def failing(judgements, terms):
        fit = real(judgements, terms)
        from dataclasses import replace

        broken = replace(fit.clmm.diagnostics, code=1, message="iteration limit")
        return replace(fit, clmm=replace(fit.clmm, diagnostics=broken))

    monkeypatch.setattr(mixed, "fit_mixed_bt", failing)
    result = analyze_comparative(table, inference="mixed", n_resamples=100)
    assert result.fit.inference == "two-way" and result.test == "bradley-terry"
    assert result.fit.fallbacks[0].error == "convergence code 1: iteration limit"
    assert any("mixed-effects Bradley–Terry fit failed" in w for w in result.cautions)
    assert result.to_dict()["fallbacks"][0]["reason"] == "convergence code 1: iteration limit"


def test_mixed_inference_is_for_pairwise_tables_only():
    table = simulate_bws_study([0.5, 0.0, -0.5, -1.0], tuple_size=3, blocks=2, seed=1)
    with pytest.raises(OptionError, match="pairwise judgements, not bws"):
        analyze_comparative(table, inference="mixed")


def test_few_annotators_are_flagged_for_the_mixed_model():
    table = simulate_pairwise_study(
        [0.5, 0.0, -0.3], annotator_sd=0.8, seed=1, blocks=1, annotators_per_block=2
    )
    with pytest.warns(AnalysisCaution, match="only 2 annotators and 5 document clusters") as caught:
        result = analyze_comparative(table)
    assert result.fit.inference == "mixed"
    assert any(
        w.startswith("only 2 annotators and 5 document clusters: the variances") for w in result.cautions
    )
    # API users see the same cautions as warnings, and the report states them as sentences
    assert [str(w.message) for w in caught if w.category is AnalysisCaution] == list(result.cautions)
    texts = [c.text for c in model_cautions(result)]
    assert texts[0].startswith("Only 2 annotators and 5 document clusters: the variances")
    assert texts[0].endswith(".") and len(texts) == len(result.cautions)


def test_ties_model_matches_ordinal_clmm_on_the_same_design():
    """Reference numbers from tests/r/mixed_bt_ties.R (ordinal::clmm, three categories)."""
    d = pd.read_csv(DATA / "mixed_bt_ties_design.csv")
    z = d[["z0", "z1", "z2"]].to_numpy()
    term = RandomEffect("annotator", d["annotator"].to_numpy(), z, ("z0", "z1", "z2"), (1, 1, 1))
    spec = ClmmSpec.from_matrices(
        d["y"].to_numpy(), d[["x0", "x1"]].to_numpy(), [term], beta_names=["x0", "x1"]
    )
    fit = fit_spec(spec)
    assert not fit.diagnostics.failed
    assert fit.loglik == pytest.approx(-115.113964, abs=1e-4)
    np.testing.assert_allclose(fit.beta, [-0.937481, -1.705836], atol=2e-4)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.vcov)), [0.628552, 0.505956], rtol=2e-3)
    np.testing.assert_allclose(fit.thresholds, [-0.652866, 0.588879], atol=2e-4)
    sd = np.sqrt(np.diag(fit.random_effects["annotator"]))
    np.testing.assert_allclose(sd, [1.257785, 1.654340, 0.632535], atol=2e-3)


def test_annotators_without_noise_make_a_degenerate_fit_that_is_not_shown():
    """Each annotator ranks the systems consistently (separation within annotators): the variance runs off."""
    orders = {"w0": "ABC", "w1": "BCA", "w2": "CAB", "w3": "ACB"}
    rows = []
    for annotator, order in orders.items():
        for d in range(6):
            for a, b in (("A", "B"), ("A", "C"), ("B", "C")):
                won = float(order.index(a) < order.index(b))
                rows += [(annotator, f"d{d}", a, b, won), (annotator, f"d{d}", b, a, 1 - won)]
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score"])
    result = analyze_comparative(table)
    assert result.fit.inference == "two-way" and result.fit.random_sd is None
    reason = result.to_dict()["fallbacks"][0]["reason"]
    assert "degenerate fit" in reason and "random-effect variance above 400 for annotator" in reason
    assert result.cautions[0].startswith("the mixed-effects Bradley–Terry fit failed (degenerate fit")
