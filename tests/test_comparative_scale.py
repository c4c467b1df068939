"""The arena-scale paths of the comparative models: sparse event evaluation, the vectorised pairwise
builder, the cluster bootstrap on sufficient statistics and style covariates, each checked against
a direct computation (the dense formulas, a loop over comparisons, multinomial moments, statsmodels)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm

from humaneval.comparative import analyze_comparative, build_judgements
from humaneval.comparative.bootstrap import event_weights
from humaneval.comparative.engine import _evaluate, _Support, fit_events
from humaneval.core.ratings import load_ratings
from humaneval.errors import RatingsError


def dense_evaluate(features, mask, chosen, weights, beta):
    """ℓ, gradient and information of a conditional logit written out over all alternatives."""
    eta = np.where(mask[None], np.einsum("eap,rp->rea", features, beta), -np.inf)
    prob = np.exp(eta - eta.max(axis=2, keepdims=True))
    prob /= prob.sum(axis=2, keepdims=True)
    rows = np.arange(len(chosen))
    loglik = (weights * np.log(prob[:, rows, chosen])).sum(axis=1)
    mean = np.einsum("rea,eap->rep", prob, features)
    grad = np.einsum("re,rep->rp", weights, features[rows, chosen][None] - mean)
    second = np.einsum("re,rea,eap,eaq->rpq", weights, prob, features, features)
    info = second - np.einsum("re,rep,req->rpq", weights, mean, mean)
    return loglik, grad, info


def pairs_from_rankings(path) -> pd.DataFrame:
    """Every pair of summaries an annotator ranked for a document, as a pairwise table (0 = best)."""
    ranks = pd.read_csv(path)
    pairs = ranks.merge(ranks, on=["annotator", "document"], suffixes=("", "_o"))
    pairs = pairs[pairs["system"] != pairs["system_o"]]
    score = np.where(
        pairs["rank"] < pairs["rank_o"], 1.0, np.where(pairs["rank"] > pairs["rank_o"], 0.0, 0.5)
    )
    return pd.DataFrame(
        {
            "annotator": pairs["annotator"].astype(str),
            "document": pairs["document"],
            "system": pairs["system"],
            "opponent": pairs["system_o"],
            "score": score,
        }
    )


@pytest.fixture(scope="module")
def steen_pairs(request):
    from tests.conftest import shared_file

    return pairs_from_rankings(shared_file("steen2021", "rank_coherence_cnn_dm.csv"))


def test_sparse_evaluation_equals_the_dense_formulas_on_shared_rankings(steen_pairs, rank_path):
    rng = np.random.default_rng(4)
    for judgements in (build_judgements(steen_pairs), build_judgements(load_ratings(rank_path))):
        weights = rng.poisson(1.0, (3, judgements.n_judgements)) @ judgements.incidence
        beta = rng.normal(0, 0.5, (3, judgements.n_params))
        support = _Support.of(judgements.features, judgements.mask, judgements.chosen)
        fast = _evaluate(support, weights, beta)
        dense = dense_evaluate(judgements.features, judgements.mask, judgements.chosen, weights, beta)
        for a, b in zip(fast, dense, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-8)


def test_pairwise_builder_pools_like_a_loop_over_comparisons(steen_pairs):
    judgements = build_judgements(steen_pairs)
    systems = judgements.systems
    assert judgements.model == "bradley-terry" and judgements.n_judgements == len(steen_pairs) // 2
    wins = np.zeros((len(systems), len(systems)))
    for row in steen_pairs.itertuples():
        if row.score == 1:
            wins[systems.index(row.system), systems.index(row.opponent)] += 1
    np.testing.assert_array_equal(judgements.beats, wins)
    # events: (first system wins | second system wins) per pair, counted once per comparison
    first = judgements.features[:, 0] - judgements.features[:, 1]
    counts = judgements.event_counts
    for event in range(len(counts)):
        i = int(np.flatnonzero(np.r_[0.0, first[event]] == 1)[0]) if (first[event] == 1).any() else 0
        j = int(np.flatnonzero(np.r_[0.0, first[event]] == -1)[0]) if (first[event] == -1).any() else 0
        winner, loser = (i, j) if judgements.chosen[event] == 0 else (j, i)
        assert counts[event] == wins[winner, loser]
    annotators = steen_pairs.drop_duplicates(["annotator", "document"])["annotator"].nunique()
    assert judgements.annotator.max() + 1 == annotators


def test_fits_at_scale_converge_to_the_rounding_level():
    rng = np.random.default_rng(0)
    n, theta = 60_000, np.array([0.0, 0.4, -0.3, 1.0, 0.2])
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    won = rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b])))
    table = pd.DataFrame(
        {
            "annotator": rng.integers(0, 300, n).astype(str),
            "document": np.arange(n).astype(str),
            "system": np.array(list("ABCDE"))[a],
            "opponent": np.array(list("ABCDE"))[b],
            "score": won.astype(float),
        }
    )
    judgements = build_judgements(table)
    fit = fit_events(judgements.features, judgements.mask, judgements.chosen, judgements.event_counts)
    assert fit.ok[0] and fit.max_grad[0] < 1e-8 and fit.n_iter < 10
    # the pooled fit is the logistic regression of "first listed won" on the ±1 design
    x = np.zeros((n, 5))
    x[np.arange(n), a], x[np.arange(n), b] = 1.0, -1.0
    glm = sm.Logit(won.astype(float), x[:, 1:]).fit(disp=False, tol=1e-12)
    np.testing.assert_allclose(fit.beta[0], glm.params, atol=1e-8)


def test_bootstrap_weights_have_multinomial_moments():
    from humaneval.comparative.simulate import simulate_pairwise_study

    judgements = build_judgements(simulate_pairwise_study([0.5, 0.0, -0.5], seed=3))
    counts = judgements.event_counts
    n = counts.sum()
    # single judgements: multinomial over the distinct events, shares = counts / n
    naive = np.vstack(list(event_weights(judgements, "naive", 4000, np.random.default_rng(1))))
    assert naive.shape == (4000, len(counts)) and (naive.sum(axis=1) == n).all()
    se = np.sqrt(n * (counts / n) * (1 - counts / n) / 4000)
    assert np.all(np.abs(naive.mean(axis=0) - counts) < 5 * se)
    np.testing.assert_allclose(naive.var(axis=0), n * (counts / n) * (1 - counts / n), rtol=0.1)
    # whole annotators: annotator g drawn c_g times weighs each of its judgements c_g
    by_annotator = np.vstack(list(event_weights(judgements, "annotator", 50, np.random.default_rng(2))))
    n_annotators = judgements.annotator.max() + 1
    draws = np.random.default_rng(2).integers(0, n_annotators, size=(50, n_annotators))
    multiplicity = np.stack([np.bincount(d, minlength=n_annotators) for d in draws])
    direct = multiplicity[:, judgements.annotator] @ judgements.incidence
    np.testing.assert_array_equal(by_annotator, direct)


def style_table(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta, gamma = np.array([0.0, 0.3, -0.2, 0.5]), 0.8
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    length = rng.normal(0, 1, n)
    won = rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b] + gamma * length)))
    names = np.array(["m0", "m1", "m2", "m3"])
    rows = pd.DataFrame(
        {
            "annotator": rng.integers(0, 40, n).astype(str),
            "document": np.arange(n).astype(str),
            "system": names[a],
            "opponent": names[b],
            "score": won.astype(float),
            "length_diff": length,
        }
    )
    mirror = rows.assign(
        system=rows["opponent"], opponent=rows["system"], score=1 - rows["score"], length_diff=-length
    )
    return pd.concat([rows, mirror], ignore_index=True), a, b, np.column_stack([length, won])


def test_style_covariates_match_a_logistic_regression_on_the_design():
    table, a, b, extra = style_table(3000, seed=5)
    result = analyze_comparative(table, inference="model", style=("length_diff",))
    x = np.zeros((len(a), 4))
    x[np.arange(len(a)), a], x[np.arange(len(a)), b] = 1.0, -1.0
    design = np.column_stack([x[:, 1:], extra[:, 0]])
    glm = sm.Logit(extra[:, 1], design).fit(disp=False, tol=1e-12)
    np.testing.assert_allclose(result.fit.beta, glm.params[:3], atol=1e-8)
    ((name, gamma, se),) = result.fit.covariates
    assert name == "length_diff" and gamma == pytest.approx(glm.params[3], abs=1e-8)
    assert se == pytest.approx(glm.bse[3], rel=1e-6)
    np.testing.assert_allclose(np.sqrt(np.diag(result.fit.vcov)), glm.bse[:3], rtol=1e-6)
    frame = result.fit.covariates_frame()
    assert frame.loc[0, "p"] == pytest.approx(glm.pvalues[3], rel=1e-5)
    assert "style covariates" in result.summary()


def test_style_covariates_in_the_mixed_model_and_the_bootstrap():
    table, *_ = style_table(600, seed=6)
    mixed = analyze_comparative(table, style=("length_diff",), mixed_terms=("annotator",))
    boot = analyze_comparative(table, inference="two-way", n_resamples=100, style=("length_diff",))
    assert mixed.test == "mixed-bradley-terry" and len(mixed.fit.beta) == 3
    assert boot.test == "bradley-terry" and len(boot.fit.beta) == 3
    for result in (mixed, boot):
        ((_, gamma, se),) = result.fit.covariates
        assert abs(gamma - 0.8) < 4 * se  # the simulated style effect


def test_style_columns_are_checked_with_one_line():
    table, *_ = style_table(50, seed=7)
    with pytest.raises(RatingsError, match="'words' is not in the table"):
        build_judgements(table, style=("words",))
    broken = table.assign(length_diff=table["length_diff"].abs())  # mirror rows not negated
    with pytest.raises(RatingsError, match="mirror row holds its negative"):
        build_judgements(broken, style=("length_diff",))


def test_cli_style_columns(tmp_path):
    table, *_ = style_table(400, seed=8)
    path = tmp_path / "pairs.csv"
    table.to_csv(path, index=False)
    command = [sys.executable, "-m", "humaneval", "analyze", str(path), "--inference", "model"]
    out = subprocess.run(
        [*command, "--style-columns", "length_diff", "--json"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)["criteria"][0]
    expected = analyze_comparative(table, inference="model", style=("length_diff",)).fit.covariates[0]
    assert payload["covariates"][0]["estimate"] == pytest.approx(expected[1], abs=1e-12)
    bad = subprocess.run([*command, "--style-columns", "words"], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "words" in bad.stderr


def test_ranking_builder_pools_like_a_loop_over_rankings(rank_path):
    table = pd.read_csv(rank_path)
    table["rank"] = np.minimum(table["rank"], 3)  # ties at the bottom: Breslow's choices
    judgements = build_judgements(load_ratings(table, allow_ties=True))
    systems = judgements.systems
    expected: dict[tuple[frozenset, str], int] = {}
    for _, ranking in table.groupby(["annotator", "document"]):
        ranks = dict(zip(ranking["system"], ranking["rank"], strict=True))
        for system, rank in ranks.items():
            if rank < max(ranks.values()):
                remaining = frozenset(s for s, r in ranks.items() if r >= rank)
                expected[(remaining, system)] = expected.get((remaining, system), 0) + 1
    found = {}
    for event, count in enumerate(judgements.event_counts):
        full = np.column_stack([1 - judgements.features[event].sum(axis=1), judgements.features[event]])
        members = [systems[int(np.argmax(row))] for row in full[judgements.mask[event]]]
        found[(frozenset(members), members[judgements.chosen[event]])] = count
    assert found == expected


def test_a_mixed_fit_too_large_for_memory_falls_back_with_its_reason(monkeypatch):
    import humaneval.comparative.mixed as mixed

    table, *_ = style_table(300, seed=9)
    monkeypatch.setattr(mixed, "MAX_BLOCK_ENTRIES", 100.0)
    with pytest.warns(Warning, match="dense blocks of its random-effect Hessian"):
        result = analyze_comparative(table, n_resamples=50)
    assert result.fit.inference == "two-way" and "limit 1e+02" in result.fit.fallbacks[0].error


def test_style_covariates_are_refused_outside_the_pairwise_model():
    from humaneval.analysis import analyze
    from humaneval.errors import OptionError

    likert = pd.DataFrame(
        {
            "annotator": ["w1", "w1", "w2", "w2"],
            "document": ["d1"] * 4,
            "system": ["A", "B", "A", "B"],
            "score": [3, 4, 2, 5],
            "length_diff": [0.1, -0.1, 0.2, -0.2],
        }
    )
    with pytest.raises(OptionError, match="for pairwise tables"):
        analyze(likert, style=("length_diff",))
    with pytest.raises(OptionError, match="not to a formula or classic test"):
        analyze(likert, "ttest", style=("length_diff",))
