"""Comparative models checked against closed forms and independent fits (statsmodels, choix, scipy)."""

from __future__ import annotations

import choix
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy.optimize import minimize
from statsmodels.discrete.conditional_models import ConditionalLogit

from humaneval.analysis import Analysis
from humaneval.comparative import analyze_comparative, build_judgements, bws_scores, detect_kind, mixed_design
from humaneval.comparative.simulate import (
    simulate_bws_study,
    simulate_pairwise_study,
    simulate_ranking_study,
)
from humaneval.core.ratings import load_ratings
from humaneval.errors import InsufficientDataError, RatingsError


def pairwise_table(outcomes: list[tuple[str, str, float]], annotators: int = 1) -> pd.DataFrame:
    """Two rows per comparison (system, opponent, score) from (a, b, score of a)."""
    rows = []
    for k, (a, b, s) in enumerate(outcomes):
        annotator, document = f"w{k % annotators}", f"d{k}"
        rows.append((annotator, document, a, b, s))
        rows.append((annotator, document, b, a, 1 - s))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score"])


def worked_example() -> list[tuple[str, str, float]]:
    wins = {("A", "B"): 3, ("B", "A"): 1, ("A", "C"): 2, ("C", "A"): 2, ("B", "C"): 3, ("C", "B"): 1}
    return [(w, lo, 1.0) for (w, lo), k in wins.items() for _ in range(k)]


# -- kinds and loading ---------------------------------------------------------------------------


def test_detect_kind_of_every_table():
    assert detect_kind(simulate_pairwise_study([0, 1], blocks=1, seed=1)) == "pairwise"
    assert detect_kind(simulate_bws_study([0, 1, 2], tuple_size=2, blocks=1, seed=1)) == "bws"
    assert detect_kind(load_ratings(simulate_ranking_study([0, 1], blocks=1, seed=1))) == "ranking"
    likert = pd.DataFrame(
        {"annotator": ["w"] * 2, "document": ["d"] * 2, "system": ["A", "B"], "score": [3, 5]}
    )
    assert detect_kind(likert) == "likert"


def test_pairwise_and_bws_tables_load_without_options(tmp_path):
    pairwise = simulate_pairwise_study([0.5, 0.0, -0.5], blocks=1, tie=1.0, seed=2)
    assert (pairwise["score"] == 0.5).any()
    path = tmp_path / "pairwise.csv"
    pairwise.to_csv(path, index=False)
    loaded = load_ratings(path)  # ties (0.5) and one summary meeting several opponents are fine
    assert len(loaded) == len(pairwise) and not loaded.continuous
    bws = simulate_bws_study([0.5, 0.0, -0.5, -1.0], tuple_size=3, blocks=1, seed=2)
    assert len(load_ratings(bws)) == len(bws)
    # a 0.5 is still an error in a rating-scale table, and a duplicate in a pairwise one
    with pytest.raises(RatingsError, match=r"non-integer score 0\.5"):
        load_ratings(pairwise.drop(columns="opponent").drop_duplicates(["annotator", "document", "system"]))
    with pytest.raises(RatingsError, match="duplicate rating"):
        load_ratings(pd.concat([pairwise.head(1), pairwise.head(1)]))


def test_attention_checks_are_left_out():
    table = pairwise_table(worked_example())
    checks = pairwise_table([("A", "C", 0.0)] * 5).assign(is_check=True)
    checks["document"] = "check" + checks["document"]
    with_checks = pd.concat([table.assign(is_check=False), checks], ignore_index=True)
    fit = analyze_comparative(with_checks, inference="model")
    assert fit.fit.nobs == 12
    assert fit.systems.set_index("system").loc["A", "estimate"] == pytest.approx(0.3430, abs=5e-5)


# -- Bradley–Terry and Davidson ------------------------------------------------------------------


def test_bradley_terry_worked_example_against_choix_and_a_logistic_glm():
    table = pairwise_table(worked_example())
    result = analyze_comparative(table, inference="model")
    assert result.test == "bradley-terry"
    theta = result.systems.set_index("system")["estimate"]
    np.testing.assert_allclose(theta[["A", "B", "C"]], [0.3430, 0.0, -0.3430], atol=5e-5)
    ab = result.contrasts.set_index(["system_a", "system_b"]).loc[("A", "B")]
    assert ab["win_probability"] == pytest.approx(0.5849, abs=5e-5)
    # choix's maximum-likelihood optimiser (not the ILSR start the fit uses)
    data = [(ord(w) - 65, ord(lo) - 65) for w, lo, _ in worked_example()]
    reference = choix.opt_pairwise(3, data, alpha=1e-12, method="Newton-CG", tol=1e-10)
    np.testing.assert_allclose(theta[["A", "B", "C"]], reference - reference.mean(), atol=1e-5)
    # a logistic GLM without intercept on the ±1 design is Bradley–Terry: same β and SE
    design = pd.DataFrame({"B": 0.0, "C": 0.0}, index=range(12))
    for k, (w, lo, _) in enumerate(worked_example()):
        for name, sign in ((w, 1.0), (lo, -1.0)):
            if name != "A":
                design.loc[k, name] = sign
    glm = sm.GLM(np.ones(12), design, family=sm.families.Binomial()).fit()
    fixed = result.fit.fixed_effects().set_index("system")
    np.testing.assert_allclose(fixed["estimate"], glm.params[["B", "C"]], atol=1e-7)
    np.testing.assert_allclose(fixed["se"], glm.bse[["B", "C"]], atol=1e-6)


def test_davidson_ties_match_the_two_system_closed_form():
    # W = 6 wins, L = 3 losses, T = 3 ties: θa − θb = log(W/L), ν = T / √(W L)
    outcomes = [("A", "B", 1.0)] * 6 + [("A", "B", 0.0)] * 3 + [("A", "B", 0.5)] * 3
    result = analyze_comparative(pairwise_table(outcomes), inference="model")
    assert result.test == "davidson"
    assert result.contrasts.loc[0, "estimate"] == pytest.approx(np.log(2.0), abs=1e-8)
    assert result.fit.log_nu == pytest.approx(np.log(3 / np.sqrt(18)), abs=1e-8)


def test_davidson_with_several_systems_matches_a_direct_likelihood():
    table = simulate_pairwise_study([0.8, 0.1, -0.2, -0.7], blocks=2, tie=0.6, seed=4)
    result = analyze_comparative(table, inference="model")
    rows = table[table["system"] < table["opponent"]]
    idx = {s: i for i, s in enumerate(sorted(set(table["system"])))}
    a, b = rows["system"].map(idx).to_numpy(), rows["opponent"].map(idx).to_numpy()
    s = rows["score"].to_numpy()

    def nll(params):
        theta, log_nu = np.r_[0.0, params[:3]], params[3]
        ua, ub, ut = theta[a], theta[b], log_nu + (theta[a] + theta[b]) / 2
        norm = np.logaddexp(np.logaddexp(ua, ub), ut)
        return -np.sum(np.select([s == 1, s == 0], [ua, ub], ut) - norm)

    direct = minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-9})
    np.testing.assert_allclose(result.fit.beta, direct.x[:3], atol=1e-5)
    assert result.fit.log_nu == pytest.approx(direct.x[3], abs=1e-5)
    assert result.fit.loglik == pytest.approx(-direct.fun, abs=1e-8)


def test_perfect_separation_and_disconnected_systems_are_refused_with_the_reason():
    separated = pairwise_table([("A", "B", 1.0), ("A", "C", 1.0), ("B", "C", 1.0), ("C", "B", 1.0)])
    with pytest.raises(InsufficientDataError, match="A was preferred in every judgement"):
        analyze_comparative(separated)
    apart = pairwise_table([("A", "B", 1.0), ("B", "A", 1.0), ("C", "D", 1.0), ("D", "C", 1.0)])
    with pytest.raises(InsufficientDataError, match=r"never compared with each other \(A, B \| C, D\)"):
        analyze_comparative(apart)


def test_an_ordinary_study_converges_without_a_prior():
    # 240 judgements of 5 systems, the size that needed prior > 0 before
    table = simulate_pairwise_study([0.3, 0.1, 0.0, -0.2, -0.4], blocks=4, docs_per_block=2, seed=11)
    result = analyze_comparative(table, inference="two-way", n_resamples=200)
    assert result.fit.nobs == 240 and result.fit.n_resamples_failed == 0
    assert result.fit.diagnostics.converged and result.fit.diagnostics.max_grad < 1e-8
    # the default for pairwise tables, the mixed-effects model, converges on it too
    mixed = analyze_comparative(table)
    assert mixed.fit.inference == "mixed" and not mixed.fit.diagnostics.failed
    assert mixed.fit.diagnostics.max_grad < 1e-4


# -- MaxDiff and Plackett–Luce against statsmodels' conditional logit ----------------------------


def conditional_logit(groups, chosen, features) -> np.ndarray:
    model = ConditionalLogit(
        np.asarray(chosen, float), np.asarray(features, float), groups=np.asarray(groups)
    )
    return model.fit(method="newton", disp=False, maxiter=100, tol=1e-12).params


def test_maxdiff_matches_a_conditional_logit_over_best_worst_pairs():
    table = simulate_bws_study([0.7, 0.2, 0.0, -0.4, -0.6], tuple_size=4, blocks=1, annotator_sd=0.5, seed=5)
    result = analyze_comparative(table, inference="model")
    assert result.test == "maxdiff"
    systems = sorted(table["system"].unique())
    groups, chosen, features = [], [], []
    for g, (_, part) in enumerate(table.groupby(["annotator", "tuple_id"])):
        members, scores = list(part["system"]), list(part["score"])
        for i, si in enumerate(members):
            for j, sj in enumerate(members):
                if i != j:
                    x = np.zeros(len(systems))
                    x[systems.index(si)] += 1
                    x[systems.index(sj)] -= 1
                    groups.append(g)
                    chosen.append(scores[i] == 1 and scores[j] == -1)
                    features.append(x[1:])
    np.testing.assert_allclose(result.fit.beta, conditional_logit(groups, chosen, features), atol=1e-4)


def test_plackett_luce_matches_a_conditional_logit_over_exploded_rankings():
    table = simulate_ranking_study([0.6, 0.1, -0.2, -0.5], blocks=2, annotator_sd=0.5, seed=6)
    result = analyze_comparative(load_ratings(table), inference="model")
    assert result.test == "plackett-luce"
    systems = sorted(table["system"].unique())
    groups, chosen, features, g = [], [], [], 0
    for _, part in table.groupby(["annotator", "document"]):
        order = list(part.sort_values("rank")["system"])
        for r in range(len(order) - 1):
            for s in order[r:]:
                groups.append(g)
                chosen.append(s == order[r])
                features.append(np.eye(len(systems))[systems.index(s)][1:])
            g += 1
    np.testing.assert_allclose(result.fit.beta, conditional_logit(groups, chosen, features), atol=1e-4)
    # the mean-rank column is 1-based, lower = better
    means = result.systems.set_index("system")["mean"]
    assert means.to_dict() == pytest.approx(table.groupby("system")["rank"].mean().to_dict())


# -- inference ------------------------------------------------------------------------------------


def test_two_way_cluster_bootstrap_widens_intervals_only_when_annotators_differ():
    ratios = {}
    for sd in (0.0, 1.0):
        table = simulate_pairwise_study([0.5, 0.0, -0.2, -0.5], annotator_sd=sd, seed=5)
        model = analyze_comparative(table, inference="model").contrasts["se"]
        clustered = analyze_comparative(table, n_resamples=500, seed=3).contrasts["se"]
        ratios[sd] = (clustered / model).to_numpy()
    # floored at the model-based SE; close to it without heterogeneity, far above it with SD 1
    assert ratios[0.0].min() >= 1.0 - 1e-9 and np.median(ratios[0.0]) < 1.2
    assert np.median(ratios[1.0]) > 1.5


def test_mixed_design_has_plus_minus_one_columns_per_comparison():
    table = pairwise_table(worked_example(), annotators=3)
    frame = mixed_design(build_judgements(table))
    assert list(frame.columns) == ["annotator", "document", "outcome", "B", "C"] and len(frame) == 12
    assert set(frame["annotator"]) == {0, 1, 2}
    assert frame[["B", "C"]].abs().sum(axis=1).between(1, 2).all()


def test_json_has_every_key_of_the_likert_analysis():
    empty = pd.DataFrame()
    likert_keys = set(Analysis("ttest", "none", "holm", "score", empty, empty).to_dict())
    table = simulate_bws_study([0.5, 0.0, -0.5, -1.0], tuple_size=3, blocks=2, seed=1)
    payload = analyze_comparative(table, n_resamples=100).to_dict()
    assert likert_keys <= set(payload)
    contrast = payload["contrasts"][0]
    assert {"estimate", "ci_low", "ci_high", "p_adj", "win_probability"} <= set(contrast)
    assert {"rank_group", "letters", "estimate_ci_low", "se", "label"} <= set(payload["groups"][0])


def test_judgements_pool_identical_events():
    judgements = build_judgements(pairwise_table(worked_example()))
    # 3 pairs × 2 outcomes are the only distinct events of 12 comparisons
    assert judgements.features.shape == (6, 2, 2) and judgements.event_counts.sum() == 12


# -- counting scores ------------------------------------------------------------------------------


def bws_example() -> pd.DataFrame:
    rows = []
    for t, (items, best, worst) in enumerate([("abcd", "a", "d"), ("abce", "b", "e"), ("bcde", "b", "d")]):
        for item in items:
            value = 1 if item == best else -1 if item == worst else 0
            rows.append({"annotator": "w1", "tuple_id": t, "system": item, "score": value})
    return pd.DataFrame(rows)


def test_bws_counting_scores_of_the_worked_example():
    table = bws_scores(bws_example(), n_resamples=300, seed=0, cluster="tuple").set_index("system")
    np.testing.assert_allclose(
        table.loc[["a", "b", "c", "d", "e"], "score"], [0.5, 2 / 3, 0.0, -1.0, -0.5], atol=1e-12
    )
    assert table.loc["b", "n_shown"] == 3 and table.loc["d", "n_worst"] == 2
    assert table.loc["d", ["ci_low", "ci_high"]].tolist() == [-1.0, -1.0]
    assert table.loc["c", ["ci_low", "ci_high"]].tolist() == [0.0, 0.0]
    # with one annotator, resampling annotators cannot vary anything
    by_annotator = bws_scores(bws_example(), n_resamples=50, seed=0).set_index("system")
    assert (by_annotator["ci_low"] == by_annotator["score"]).all()
    with pytest.raises(RatingsError, match="BWS values"):
        bws_scores(bws_example().assign(score=2))


def test_power_of_a_pairwise_design():
    from humaneval.comparative.calibration import Scenario, power

    table = power(Scenario("pairwise", (1.0, 1.0, -1.0), 0.5), studies=30, n_resamples=100, seed=2)
    by_pair = table.set_index(["system_a", "system_b"])
    assert by_pair.loc[("s0", "s2"), "true_difference"] == 2.0
    assert by_pair.loc[("s0", "s2"), "power"] >= 0.9 and by_pair.loc[("s1", "s2"), "power"] >= 0.9
    assert by_pair.loc[("s0", "s1"), "power"] <= 0.15  # no difference: the Tukey-adjusted error rate


def test_bradley_terry_is_the_pairwise_comparative_analysis():
    from humaneval.analysis import bradley_terry
    from humaneval.comparative import analyze_comparative
    from humaneval.comparative.simulate import simulate_pairwise_study

    table = simulate_pairwise_study({"a": 0.0, "b": 0.8, "c": 1.6}, blocks=6, seed=3)
    shortcut = bradley_terry(table, n_resamples=200, seed=5)
    full = analyze_comparative(table, kind="pairwise", n_resamples=200, seed=5)
    pd.testing.assert_frame_equal(shortcut.contrasts, full.contrasts)
    assert shortcut.systems["system"].iloc[0] == "c"
