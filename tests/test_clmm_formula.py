"""Formula interface and the native engine on any clmm formula, against stored R fits (issue 16).

Reference numbers: ``tests/data/clmm_formulas_reference.json``, made by ``tests/r/clmm_formulas.R``
(ordinal::clmm, Laplace) from R's ``wine`` and ``soup`` data (exported to ``tests/data/*.csv``) and
the shared Likert file with a position covariate. Targets: logLik within 2e-3, β within 2e-3,
random-effect variances within 1 % (absolute 1e-3 for variances at the boundary).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humaneval.clmm import ClmmSpec, RandomEffect, clmm_spec, fit_spec, parse_formula
from humaneval.clmm.emmeans import emm_contrasts, emmeans, lr_test, wald_omnibus
from humaneval.clmm.spec import threshold_jacobian
from humaneval.errors import InsufficientDataError, ModelSpecError

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "clmm_formulas_reference.json").read_text())["fits"]


@pytest.fixture(scope="module")
def wine() -> pd.DataFrame:
    return pd.read_csv(DATA / "wine.csv")


@pytest.fixture(scope="module")
def soup() -> pd.DataFrame:
    frame = pd.read_csv(DATA / "soup.csv")
    frame["DAY"] = frame["DAY"].astype(str)  # a factor in R
    return frame


def _variances(fit) -> dict[str, np.ndarray]:
    return {f: np.diag(psi) for f, psi in fit.random_effects.items()}


def _r_variances(ref: dict) -> dict[str, np.ndarray]:
    """R's VarCorr by grouping factor; separate bars of one factor (R: judge, judge.1) are merged."""
    out: dict[str, list[float]] = {}
    for name, matrix in ref["varcorr"].items():
        factor = name.rsplit(".", 1)[0] if name.rsplit(".", 1)[-1].isdigit() else name
        factor = ref.get("rename", {}).get(factor, factor)
        out.setdefault(factor, []).extend(np.diag(np.atleast_2d(matrix)).tolist())
    return {f: np.array(v) for f, v in out.items()}


def assert_matches_r(fit, ref: dict, loglik_tol: float = 2e-3, beta_tol: float = 2e-3) -> None:
    assert fit.loglik == pytest.approx(ref["loglik"], abs=loglik_tol)
    assert set(fit.beta_names) == set(ref["beta"])
    for name, value in zip(fit.beta_names, fit.beta, strict=True):
        assert value == pytest.approx(ref["beta"][name], abs=beta_tol), name
    for name, se in zip(fit.beta_names, fit.se, strict=True):
        assert se == pytest.approx(ref["se"][name], rel=0.01), name
    r_var = _r_variances(ref)
    native = _variances(fit)
    assert set(native) == set(r_var)
    for factor, values in native.items():
        np.testing.assert_allclose(values, r_var[factor], rtol=0.01, atol=1e-3, err_msg=factor)
    assert not fit.diagnostics.failed


CASES = {
    "wine_additive": ("rating ~ temp + contact + (1|judge)", {}),
    "wine_interaction": ("rating ~ temp * contact + (1|judge)", {}),
    "wine_slope": ("rating ~ temp + contact + (1 + temp|judge)", {}),
    "wine_uncorrelated": ("rating ~ temp + contact + (temp||judge)", {}),
    "wine_crossed": ("rating ~ temp + contact + (1|judge) + (1|bottle)", {}),
    "wine_three": ("rating ~ temp + contact + (1|judge) + (1|bottle) + (1|judge:temp)", {}),
    "wine_probit": ("rating ~ temp + contact + (1|judge)", {"link": "probit"}),
    "wine_cauchit": ("rating ~ temp + contact + (1|judge)", {"link": "cauchit"}),
    "wine_equidistant": ("rating ~ temp + contact + (1|judge)", {"threshold": "equidistant"}),
    "wine_symmetric": ("rating ~ temp + contact + (1|judge)", {"threshold": "symmetric"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_wine_formulas_match_r(wine, name):
    formula, options = CASES[name]
    spec = clmm_spec(formula, wine, threshold=options.get("threshold", "flexible"))
    fit = fit_spec(spec, options.get("link", "logit"))
    assert_matches_r(fit, REFERENCE[name])


def test_continuous_random_slope_matches_r(wine):
    """A continuous slope has one pattern per distinct value (here 8 bottles), not one per factor level."""
    frame = wine.assign(b=wine["bottle"] / 4)
    spec = clmm_spec("rating ~ temp + contact + b + (1 + b|judge)", frame)
    assert np.unique(spec.terms[0].z, axis=0).shape[0] == 8
    assert_matches_r(fit_spec(spec), REFERENCE["wine_continuous_slope"])


def test_slopes_only_and_no_fixed_effects_match_r(wine):
    slopes = fit_spec(clmm_spec("rating ~ temp + (0 + temp|judge)", wine))
    assert slopes.random_columns["judge"] == ("tempcold", "tempwarm")
    assert_matches_r(slopes, REFERENCE["wine_slopes_only"])
    np.testing.assert_allclose(
        slopes.random_effects["judge"], REFERENCE["wine_slopes_only"]["varcorr"]["judge"], rtol=0.01
    )
    empty = fit_spec(clmm_spec("rating ~ 1 + (1|judge)", wine))
    assert empty.beta.size == 0 and not empty.diagnostics.failed
    # native finds a slightly higher likelihood than R here (R stops 1e-3 short)
    assert empty.loglik == pytest.approx(REFERENCE["wine_no_fixed"]["loglik"], abs=2e-3)
    assert empty.loglik >= REFERENCE["wine_no_fixed"]["loglik"] - 1e-6


@pytest.mark.parametrize(
    "formula", ["rating ~ 0 + temp + contact + (1|judge)", "rating ~ temp + contact - 1 + (1|judge)"]
)
def test_the_intercept_is_absorbed_by_the_thresholds(wine, formula):
    fit = fit_spec(clmm_spec(formula, wine))
    assert fit.beta_names == ("tempwarm", "contactyes")
    assert fit.loglik == pytest.approx(REFERENCE["wine_additive"]["loglik"], abs=2e-3)


def test_summary_prints_the_fit(wine_additive):
    text = wine_additive.summary()
    assert "Laplace): rating ~ temp + contact + (1 | judge); link logit" in text
    assert "logLik -81.57" in text and "tempwarm" in text and "1|2" in text


def test_done_when_numbers(wine):
    fit = fit_spec(clmm_spec("rating ~ temp + contact + (1|judge)", wine))
    assert fit.loglik == pytest.approx(-81.5654, abs=1e-4)
    assert dict(zip(fit.beta_names, fit.beta, strict=True)) == {
        "tempwarm": pytest.approx(3.0630, abs=1e-3),
        "contactyes": pytest.approx(1.8349, abs=1e-3),
    }
    assert fit.thresholds_frame()["threshold"].tolist() == ["1|2", "2|3", "3|4", "4|5"]
    np.testing.assert_allclose(fit.thresholds, list(REFERENCE["wine_additive"]["alpha"].values()), atol=2e-3)


@pytest.mark.parametrize(("native", "r_name"), [("cloglog", "wine_loglog"), ("loglog", "wine_cloglog")])
def test_asymmetric_links_follow_clm_definitions(wine, native, r_name):
    """cloglog is F(x) = 1 − exp(−eˣ) as in ordinal::clm (checked against clm in tests/r); the
    installed ordinal::clmm names the two Gumbel links the other way round, so native cloglog
    equals R clmm's "loglog" fit and vice versa."""
    fit = fit_spec(clmm_spec("rating ~ temp + contact + (1|judge)", wine), native)
    assert_matches_r(fit, REFERENCE[r_name])


def test_reference_level_changes_names_and_signs(wine):
    fit = fit_spec(clmm_spec("rating ~ temp + contact + (1|judge)", wine, reference={"contact": "yes"}))
    ref = REFERENCE["wine_reference"]
    assert fit.beta_names == ("tempwarm", "contactno")
    assert fit.beta[1] == pytest.approx(ref["beta"]["contact2no"], abs=2e-3)
    assert fit.loglik == pytest.approx(ref["loglik"], abs=2e-3)


def test_soup_nested_terms_match_r(soup):
    fit = fit_spec(clmm_spec("SURENESS ~ PROD + (1|RESP) + (1|RESP:PROD)", soup))
    assert_matches_r(fit, REFERENCE["soup_nested"])


def test_soup_slash_expands_to_nested_terms(soup):
    fit = fit_spec(clmm_spec("SURENESS ~ PROD + DAY + (1|RESP/PROD)", soup))
    ref = REFERENCE["soup_slash"]
    # R names the nested term PROD:RESP; ours keeps the written order RESP:PROD
    ref = {**ref, "rename": {"PROD:RESP": "RESP:PROD"}}
    assert_matches_r(fit, ref)


def test_likert_with_position_covariate_matches_r(likert_path):
    frame = pd.read_csv(likert_path)
    frame["position"] = frame.groupby("annotator").cumcount() / 10
    spec = clmm_spec(
        "score ~ system + position + (1|annotator) + (1|document)", frame, reference={"system": "BART"}
    )
    fit = fit_spec(spec)
    assert "position" in fit.beta_names
    assert_matches_r(fit, REFERENCE["likert_position"])


# ------------------------------------------------------------------------------------ parsing


def test_parse_formula_splits_bars():
    f = parse_formula("y ~ a*b + x + (1 + a | g) + (x || h) + (1 | p/q) + (1 | g:h)")
    assert f.response == "y" and f.fixed == "a*b + x"
    assert [str(b) for b in f.bars] == ["(1 + a | g)", "(x || h)", "(1 | p)", "(1 | p:q)", "(1 | g:h)"]
    assert parse_formula("y ~ (1|g)").fixed == "1"


@pytest.mark.parametrize(
    "bad",
    ["y ~ x + (1 | )", "y ~ x | g", "y x", "y ~ (1 | g", "y ~ x + (1 | g + h)", "~ x + (1|g)"],
)
def test_malformed_formulas_are_one_line_errors(bad):
    with pytest.raises(ModelSpecError):
        parse_formula(bad)


def test_spec_errors_name_the_problem(wine):
    with pytest.raises(ModelSpecError, match="'colour' of the formula is not in the data"):
        clmm_spec("rating ~ colour + (1|judge)", wine)
    with pytest.raises(ModelSpecError, match="random-effect term"):
        clmm_spec("rating ~ temp", wine)
    with pytest.raises(ModelSpecError, match="not a level of 'temp'"):
        clmm_spec("rating ~ temp + (1|judge)", wine, reference={"temp": "hot"})
    with pytest.raises(ModelSpecError, match="must be ordered"):
        clmm_spec("temp ~ contact + (1|judge)", wine)
    aliased = wine.assign(t2=wine["temp"])
    with pytest.raises(ModelSpecError, match="not identifiable: t2warm"):
        clmm_spec("rating ~ temp + t2 + (1|judge)", aliased)
    with pytest.raises(InsufficientDataError):
        clmm_spec("rating ~ temp + (1|judge)", wine.assign(rating=3))


def test_ordered_categorical_response_and_missing_rows(wine):
    frame = wine.copy()
    frame["rating"] = pd.Categorical(
        frame["rating"].map({1: "bad", 2: "poor", 3: "ok", 4: "good", 5: "great"}),
        categories=["bad", "poor", "ok", "good", "great"],
        ordered=True,
    )
    frame.loc[0, "temp"] = None
    spec = clmm_spec("rating ~ temp + contact + (1|judge)", frame)
    assert spec.levels == ("bad", "poor", "ok", "good", "great") and spec.nobs == 71


def test_threshold_jacobians_are_ordinals():
    # ordinal:::makeThresholds(1:6, "symmetric")$tJac and (1:7, "symmetric")
    np.testing.assert_array_equal(
        threshold_jacobian(5, "symmetric"),
        [[1, 0, -1], [1, -1, 0], [1, 0, 0], [1, 1, 0], [1, 0, 1]],
    )
    np.testing.assert_array_equal(
        threshold_jacobian(6, "symmetric"),
        [[1, 0, 0, -1], [1, 0, -1, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]],
    )
    np.testing.assert_array_equal(threshold_jacobian(3, "equidistant"), [[1, 0], [1, 1], [1, 2]])


def test_matrix_level_entry_point_equals_the_formula_fit(wine):
    """The same model built from y, X and Z by hand (as a Bradley–Terry model would) fits the same."""
    y = wine["rating"].to_numpy() - 1
    x = np.column_stack([(wine["temp"] == "warm"), (wine["contact"] == "yes")]).astype(float)
    judge = RandomEffect("judge", wine["judge"].to_numpy() - 1, np.ones(len(wine)), ("(Intercept)",))
    spec = ClmmSpec.from_matrices(y, x, [judge], beta_names=["tempwarm", "contactyes"])
    fit = fit_spec(spec)
    assert fit.loglik == pytest.approx(REFERENCE["wine_additive"]["loglik"], abs=2e-3)
    np.testing.assert_allclose(fit.beta, [3.0630, 1.8349], atol=2e-3)


# ------------------------------------------------------------------- EMMs, contrasts, LR tests

EMM_REFERENCE = json.loads((DATA / "clmm_formulas_reference.json").read_text())["emmeans"]


def _frame(records: list[dict], value: str) -> pd.DataFrame:
    return pd.DataFrame(records).rename(columns={value: "emmean", "SE": "se"})


@pytest.fixture(scope="module")
def wine_interaction(wine):
    return fit_spec(clmm_spec("rating ~ temp * contact + (1|judge)", wine))


@pytest.fixture(scope="module")
def wine_additive(wine):
    return fit_spec(clmm_spec("rating ~ temp + contact + (1|judge)", wine))


@pytest.mark.parametrize(
    ("mode", "key", "column"), [("latent", "latent", "emmean"), ("mean.class", "mean_class", "mean.class")]
)
def test_emmeans_by_factor_match_r(wine_interaction, mode, key, column):
    """emmeans(m, ~ temp | contact, mode = ...) of R; SEs by the delta method."""
    got = emmeans(wine_interaction, "temp", by="contact", mode=mode)
    ref = _frame(EMM_REFERENCE[key], column)
    merged = got.merge(ref, on=["temp", "contact"], suffixes=("", "_r"))
    assert len(merged) == 4
    np.testing.assert_allclose(merged["emmean"], merged["emmean_r"], atol=2e-4)
    np.testing.assert_allclose(merged["se"], merged["se_r"], rtol=2e-3)
    np.testing.assert_allclose(merged["ci_low"], merged["asymp.LCL"], atol=2e-3)
    assert got["contact"].tolist() == ["no", "no", "yes", "yes"]  # by groups, factor within


def test_mean_class_averages_over_the_other_factor(wine_additive):
    got = emmeans(wine_additive, "temp", mode="mean.class")
    ref = _frame(EMM_REFERENCE["mean_class_additive"], "mean.class")
    np.testing.assert_allclose(got["emmean"], ref["emmean"], atol=2e-4)
    np.testing.assert_allclose(got["se"], ref["se"], rtol=2e-3)


def test_category_probabilities_sum_to_one_and_mean_class_agrees(wine_additive):
    probs = emmeans(wine_additive, "temp", mode="prob")
    sums = probs.groupby("temp")["emmean"].sum()
    np.testing.assert_allclose(sums, 1.0, atol=1e-12)
    expected = probs.assign(k=probs["category"].astype(int) * probs["emmean"]).groupby("temp")["k"].sum()
    mean_class = emmeans(wine_additive, "temp", mode="mean.class").set_index("temp")["emmean"]
    np.testing.assert_allclose(expected.loc[mean_class.index], mean_class, atol=1e-9)


def test_pairwise_contrast_with_odds_ratio_matches_r(wine_additive):
    got = emm_contrasts(wine_additive, "temp", adjust="none").iloc[0]
    ref = EMM_REFERENCE["pairs_temp"][0]
    assert (got["level_a"], got["level_b"]) == ("cold", "warm")
    assert got["estimate"] == pytest.approx(ref["estimate"], abs=2e-3)
    assert got["se"] == pytest.approx(ref["SE"], rel=2e-3)
    assert got["p_unadj"] == pytest.approx(ref["p.value"], rel=0.02)
    assert got["odds_ratio"] == pytest.approx(np.exp(ref["estimate"]), rel=3e-3)
    assert got["or_low"] == pytest.approx(np.exp(ref["asymp.LCL"]), rel=3e-3)
    assert got["better"] == "warm"


def test_holm_and_bonferroni_adjust_within_each_by_group(wine_interaction):
    none = emm_contrasts(wine_interaction, "temp", by="contact", adjust="none")
    bonf = emm_contrasts(wine_interaction, "temp", by="contact", adjust="bonferroni")
    assert len(none) == 2  # one pair per contact level: families of size 1
    np.testing.assert_allclose(bonf["p_adj"], none["p_unadj"])


def test_likelihood_ratio_test_matches_r_anova(wine, wine_additive):
    restricted = fit_spec(clmm_spec("rating ~ contact + (1|judge)", wine))
    got = lr_test(restricted, wine_additive)
    ref = EMM_REFERENCE["lr"]
    assert got["statistic"] == pytest.approx(ref["statistic"], abs=4e-3)
    assert got["df"] == ref["df"] == 1
    assert got["p"] == pytest.approx(ref["p"], rel=0.01)
    assert got["aic_full"] == pytest.approx(REFERENCE["wine_additive"]["aic"], abs=4e-3)
    with pytest.raises(ModelSpecError, match="nested"):
        lr_test(wine_additive, restricted)


def test_wald_omnibus_covers_interactions(wine_interaction):
    got = wald_omnibus(wine_interaction, "temp")
    assert got["df"] == 2  # tempwarm and tempwarm:contactyes
    idx = [0, 2]
    beta = wine_interaction.beta[idx]
    direct = beta @ np.linalg.solve(wine_interaction.vcov[np.ix_(idx, idx)], beta)
    assert got["statistic"] == pytest.approx(direct)


# -------------------------------------------------------------- predict, simulate, OrdinalModel

GRID = pd.DataFrame({"temp": ["cold", "cold", "warm", "warm"], "contact": ["no", "yes", "no", "yes"]})


def test_predict_at_zero_random_effects_averages_to_the_emmeans(wine_additive):
    probs = wine_additive.predict(GRID)
    assert list(probs.columns) == ["1", "2", "3", "4", "5"]
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-12)
    emm = emmeans(wine_additive, "temp", mode="prob")
    cold = probs.iloc[:2].mean().to_numpy()
    np.testing.assert_allclose(cold, emm.loc[emm["temp"] == "cold", "emmean"], atol=1e-10)
    # by hand: P(Y ≤ j) = expit(θ_j − x'β) at temp = warm, contact = yes
    eta = wine_additive.beta.sum()
    cum = 1 / (1 + np.exp(-(wine_additive.thresholds - eta)))
    np.testing.assert_allclose(probs.iloc[3].to_numpy(), np.diff(np.r_[0.0, cum, 1.0]), atol=1e-12)
    mean = wine_additive.predict(GRID, type="mean")
    np.testing.assert_allclose(mean["mean_class"], probs.to_numpy() @ np.arange(1, 6))


def test_marginal_predictions_integrate_the_judge_effect(wine_additive):
    marginal = wine_additive.predict(GRID, random="marginal").to_numpy()
    sigma = np.sqrt(wine_additive.random_effects["judge"][0, 0])
    s = np.linspace(-8 * sigma, 8 * sigma, 20001)
    density = np.exp(-0.5 * (s / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))
    cut = np.r_[-np.inf, wine_additive.thresholds, np.inf]
    eta = 0.0  # cold, no contact
    cum = 1 / (1 + np.exp(-(cut[:, None] - eta - s[None, :])))
    exact = np.diff(np.trapezoid(cum * density[None, :], s, axis=1))
    np.testing.assert_allclose(marginal[0], exact, atol=1e-6)
    assert marginal[0, 0] > wine_additive.predict(GRID).iloc[0, 0]  # spread moves mass to the tails


def test_simulate_draws_match_the_marginal_probabilities(wine_additive):
    rows = pd.concat([GRID.assign(judge=j) for j in range(3000)], ignore_index=True)
    sim = wine_additive.simulate(rows, seed=3)
    assert set(sim["sim_1"]) <= {"1", "2", "3", "4", "5"}
    observed = pd.crosstab(sim["temp"] + sim["contact"], sim["sim_1"], normalize="index")
    expected = wine_additive.predict(GRID, random="marginal")
    for k, key in enumerate(["coldno", "coldyes", "warmno", "warmyes"]):
        # 3000 draws per cell, but judges are shared across cells: allow 4 binomial SEs
        np.testing.assert_allclose(
            observed.loc[key].reindex(expected.columns, fill_value=0), expected.iloc[k], atol=0.04
        )
    again = wine_additive.simulate(rows.head(50), n=2, seed=3)
    assert again.filter(like="sim_").shape == (50, 2)
    pd.testing.assert_frame_equal(again, wine_additive.simulate(rows.head(50), n=2, seed=3))


def test_ordinal_model_from_a_formula_fit(likert_path):
    frame = pd.read_csv(likert_path)
    fit = fit_spec(
        clmm_spec("score ~ system + (1|annotator) + (1|document)", frame, reference={"system": "BART"})
    )
    model = fit.to_model()
    assert model.system_names[0] == "BART" and model.coefficients[0] == 0
    np.testing.assert_allclose(model.coefficients[1:], fit.beta)
    assert set(model.random_effects) == {"annotator", "document"}
    position = frame.assign(position=frame.groupby("annotator").cumcount())
    with_covariate = fit_spec(clmm_spec("score ~ system + position + (1|annotator)", position))
    with pytest.raises(ModelSpecError, match="fixed part 'system' only"):
        with_covariate.to_model()


# the first: three factors with slopes (kept-kept pieces); the second: continuous slopes and a diagonal term
@pytest.mark.parametrize(
    "formula",
    [
        "rating ~ temp * contact + (1 + temp|judge) + (1|bottle) + (1 + contact|judge:temp)",
        "rating ~ temp + b + (1 + b|judge) + (b||bottle)",
    ],
)
def test_laplace_gradient_of_general_designs_matches_finite_differences(wine, formula):
    from humaneval.clmm.design import random_design
    from humaneval.clmm.laplace import LaplaceProblem

    spec = clmm_spec(formula, wine.assign(b=wine["bottle"] / 4))
    design = random_design(spec.terms)
    problem = LaplaceProblem(spec.y, spec.x, design, "logit", len(spec.levels) - 1)
    rng = np.random.default_rng(1)
    theta = np.array([-1.5, 1.2, 3.8, 5.9])
    beta = rng.normal(0, 0.5, spec.x.shape[1])
    factors = []
    for term in design.terms:
        mat = np.tril(rng.normal(0, 0.3, (term.size, term.size))) + 0.7 * np.eye(term.size)
        factors.append(mat if term.covariance == "unstructured" or term.size == 1 else np.diag(np.diag(mat)))
    value = problem.evaluate(theta, beta, tuple(factors))

    def f(th, be, fa):
        problem.reset()
        return problem.evaluate(th, be, fa, gradient=False).loglik

    h = 1e-5
    for j in range(theta.size):
        e = h * np.eye(theta.size)[j]
        assert value.grad_theta[j] == pytest.approx(
            (f(theta + e, beta, factors) - f(theta - e, beta, factors)) / (2 * h), abs=2e-5
        )
    for j in range(beta.size):
        e = h * np.eye(beta.size)[j]
        assert value.grad_beta[j] == pytest.approx(
            (f(theta, beta + e, factors) - f(theta, beta - e, factors)) / (2 * h), abs=2e-5
        )
    for k, term in enumerate(design.terms):
        for a in range(term.size):
            for c in range(term.size):
                if c > a or (term.covariance != "unstructured" and c != a):
                    continue
                step = np.zeros_like(factors[k])
                step[a, c] = h
                up = [*factors[:k], factors[k] + step, *factors[k + 1 :]]
                down = [*factors[:k], factors[k] - step, *factors[k + 1 :]]
                fd = (f(theta, beta, tuple(up)) - f(theta, beta, tuple(down))) / (2 * h)
                assert value.grad_factors[k][a, c] == pytest.approx(fd, abs=2e-5), (term.factor, a, c)
    assert len(design.terms) >= 2 and design.elim is not None


def test_compact_bins_equal_the_dense_grid(wine, monkeypatch):
    """Large (unit, pattern) grids keep only the occurring bins; both layouts give the same answer."""
    from humaneval.clmm import design as design_module
    from humaneval.clmm.laplace import LaplaceProblem

    spec = clmm_spec(
        "rating ~ temp + b + (1 + b|judge) + (1|bottle) + (1 + contact|judge:temp)",
        wine.assign(b=wine["bottle"] / 4),
    )
    rng = np.random.default_rng(7)
    theta, beta = np.array([-1.5, 1.2, 3.8, 5.9]), rng.normal(0, 0.5, spec.x.shape[1])
    values = []
    for limit in (10**9, 0):
        monkeypatch.setattr(design_module, "DENSE_BINS_MIN", limit)
        monkeypatch.setattr(design_module, "DENSE_BINS_PER_OBS", limit)
        design = design_module.random_design(spec.terms)
        compact = [isinstance(p, design_module.CompactPiece) for b in design.buckets for p in b.pieces]
        assert all(compact) if limit == 0 else not any(compact)
        factors = tuple(0.6 * np.eye(t.size) + 0.1 * np.tri(t.size, k=-1) for t in design.terms)
        problem = LaplaceProblem(spec.y, spec.x, design, "logit", 4)
        values.append(problem.evaluate(theta, beta, factors))
    dense, compact = values
    assert compact.loglik == pytest.approx(dense.loglik, abs=1e-10)
    np.testing.assert_allclose(compact.grad_beta, dense.grad_beta, atol=1e-9)
    np.testing.assert_allclose(compact.grad_theta, dense.grad_theta, atol=1e-9)
    for a, b in zip(compact.grad_factors, dense.grad_factors, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)
    fit = fit_spec(
        clmm_spec("rating ~ temp + contact + b + (1 + b|judge)", wine.assign(b=wine["bottle"] / 4))
    )
    assert_matches_r(fit, REFERENCE["wine_continuous_slope"])  # fitted with compact bins
