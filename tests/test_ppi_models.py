"""Prediction-powered Bradley–Terry (Boyeau et al. 2025) and proportional-odds contrasts (issue 31):
at λ = 0 they are statsmodels' maximum-likelihood fits with cluster-robust covariances; with a judge
they stay centred on the truth and are tighter."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.discrete.discrete_model import Logit
from statsmodels.miscmodels.ordinal_model import OrderedModel

from humaneval.comparative.simulate import simulate_pairwise_study
from humaneval.errors import RatingsError
from humaneval.ppi.ordinal import judge_categories, ppi_ordinal
from humaneval.ppi.pairwise import comparisons, ppi_pairwise
from humaneval.ppi.simulate import judged_study


def _pairwise(seed: int, judge_error: float = 0.15, human_blocks: int = 12, docs_per_block: int = 5):
    table = simulate_pairwise_study(
        [0.5, 0.1, 0.0, -0.4],
        blocks=200 // docs_per_block,
        docs_per_block=docs_per_block,
        annotators_per_block=1,
        seed=seed,
    )
    judge = table.drop(columns="annotator").copy()
    first = judge["system"] < judge["opponent"]
    flip = pd.Series(np.random.default_rng(seed).random(len(judge)) < judge_error, index=judge.index)
    flip = flip[first].reindex(judge.index)
    # flip both rows of a comparison together
    key = (
        judge["document"]
        + "|"
        + np.minimum(judge["system"], judge["opponent"])
        + np.maximum(judge["system"], judge["opponent"])
    )
    flip = key.map(dict(zip(key[first], flip[first], strict=True)))
    judge.loc[flip.to_numpy(dtype=bool), "score"] = 1 - judge.loc[flip.to_numpy(dtype=bool), "score"]
    return table[table["block"] < human_blocks], judge


def test_pairwise_human_only_is_the_bradley_terry_mle_with_cluster_robust_se():
    human, judge = _pairwise(1)
    result = ppi_pairwise(human, judge)
    units = comparisons(human)
    systems = sorted(set(units["a"]) | set(units["b"]))
    x = np.zeros((len(units), len(systems)))
    x[np.arange(len(units)), units["a"].map(systems.index)] = 1
    x[np.arange(len(units)), units["b"].map(systems.index)] = -1
    block = human.drop_duplicates("document").set_index("document")["block"].reindex(units["document"])
    fit = Logit(units["y"].to_numpy(), x[:, 1:]).fit(
        disp=False, cov_type="cluster", cov_kwds={"groups": block.to_numpy(), "use_correction": False}
    )
    strengths = result.human_systems.set_index("system")
    assert strengths.loc[systems[1:], "estimate"].to_numpy() == pytest.approx(fit.params, abs=1e-6)
    assert strengths.loc[systems[1:], "se"].to_numpy() == pytest.approx(fit.bse, rel=1e-4)


def test_pairwise_tables_have_the_comparative_columns():
    from humaneval.comparative import analyze_comparative

    human, judge = _pairwise(2)
    result = ppi_pairwise(human, judge)
    reference = analyze_comparative(human.drop(columns="block"), inference="model")
    assert set(reference.systems.columns) <= set(result.systems.columns)
    assert set(reference.contrasts.columns) - {"df"} <= set(result.contrasts.columns)


def test_pairwise_ppi_is_centred_and_tighter_with_a_good_judge():
    estimates, ses, human_ses, covered = [], [], [], []
    for seed in range(40):
        human, judge = _pairwise(100 + seed, human_blocks=60, docs_per_block=1)
        result = ppi_pairwise(human, judge)
        row = result.contrasts.iloc[2]  # s0 - s3, true log-odds 0.9
        estimates.append(row["estimate"])
        ses.append(row["se"])
        human_ses.append(result.human_contrasts.iloc[2]["se"])
        covered.append(abs(row["estimate"] - 0.9) <= 1.96 * row["se"])
    assert abs(np.mean(estimates) - 0.9) < 4 * np.std(estimates) / np.sqrt(40)
    assert np.median(ses) < np.median(human_ses)
    assert np.mean(covered) >= 0.85


def test_pairwise_judge_missing_on_a_human_comparison():
    human, judge = _pairwise(3)
    doc = human["document"].iloc[0]
    with pytest.raises(RatingsError, match="has no verdict on"):
        ppi_pairwise(human, judge[judge["document"] != doc])


@pytest.fixture(scope="module")
def ordinal_study():
    human, judge = judged_study(n_documents=300, n_systems=3, human_share=0.3, judge_noise=0.4, seed=4)
    return human, judge.assign(score=judge["score"].round().clip(1, 5).astype(int))


@pytest.mark.filterwarnings("ignore:Maximum Likelihood optimization failed")
def test_ordinal_human_only_is_statsmodels_ordered_logit_with_cluster_robust_se(ordinal_study):
    human, judge = ordinal_study
    result = ppi_ordinal(human, judge)
    x = pd.get_dummies(human["system"], drop_first=True).astype(float)
    fit = OrderedModel(human["score"].astype(int), x, distr="logit").fit(
        method="bfgs",
        disp=False,
        maxiter=5000,
        gtol=1e-10,
        cov_type="cluster",
        cov_kwds={"groups": pd.factorize(human["document"])[0], "use_correction": False},
    )
    reference = result.human_contrasts.iloc[:2]  # s0 - s1, s0 - s2 = −β
    assert -reference["estimate"].to_numpy() == pytest.approx(fit.params.to_numpy()[:2], abs=1e-5)
    assert reference["se"].to_numpy() == pytest.approx(fit.bse.to_numpy()[:2], rel=1e-4)


def test_ordinal_ppi_with_lambda_zero_is_the_human_fit_and_tuned_is_tighter(ordinal_study):
    human, judge = ordinal_study
    zero = ppi_ordinal(human, judge, lam=0.0)
    assert zero.contrasts["estimate"].to_numpy() == pytest.approx(
        zero.human_contrasts["estimate"].to_numpy(), abs=1e-6
    )
    tuned = ppi_ordinal(human, judge)
    assert 0 < tuned.lam <= 1 and (tuned.contrasts["gain"] > 1).all()


def test_judge_categories_ignore_the_humans():
    scores = pd.Series([0.3, -1.0, 2.0, 0.1, 5.0, 0.0])
    assert judge_categories(scores, 3).tolist() == [2, 1, 3, 2, 3, 1]


def test_ordinal_rejects_a_continuous_judge(ordinal_study):
    human, judge = ordinal_study
    with pytest.raises(RatingsError, match="whole-number scores"):
        ppi_ordinal(human, judge.assign(score=judge["score"] + 0.5))


def test_cli_ordinal_and_pairwise_models(tmp_path):
    import json

    from click.testing import CliRunner

    from humaneval.cli import main

    reference = Path(__file__).parent / "ppi_reference"
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "ppi",
            str(reference / "study.csv"),
            "--judge-file",
            str(reference / "study_judge.csv"),
            "--judge-model",
            "ordinal",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert (payload["n"], payload["N"], len(payload["contrasts"])) == (200, 400, 10)
    human, judge = _pairwise(5)
    table = pd.concat([human.assign(rater_kind="human"), judge.assign(annotator="gpt", rater_kind="judge")])
    table.drop(columns="block").to_csv(tmp_path / "pairwise.csv", index=False)
    result = runner.invoke(main, ["ppi", str(tmp_path / "pairwise.csv"), "--judge", "gpt", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["n"] == 360 and payload["contrasts"][0]["test"] == "ppi-bradley-terry"
