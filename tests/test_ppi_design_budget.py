"""Choosing the human-rated documents from judge scores (humaneval design --judge-scores) and the
human/judge budget (humaneval budget --judge-correlation): issue 31, docs/ppi.md."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from humaneval.cli import main
from humaneval.design.judged import choose_documents
from humaneval.errors import DesignError, OptionError
from humaneval.ppi import ipw_mean, ppi_systems
from humaneval.ppi.budget import ppi_budget
from humaneval.ppi.simulate import judged_study

REFERENCE = json.loads((Path(__file__).parent / "ppi_reference" / "reference.json").read_text())


@pytest.fixture(scope="module")
def pool():
    return judged_study(n_documents=200, n_systems=3, human_share=1.0, seed=5)


def test_random_and_stratified_choices(pool):
    _, judge = pool
    random = choose_documents(judge, 40, strategy="random", seed=1)
    assert random["selected"].sum() == 40 and np.allclose(random["probability"], 0.2)
    strat = choose_documents(judge, 40, strategy="stratified", strata=4, seed=1)
    assert strat.groupby("stratum")["selected"].sum().tolist() == [10, 10, 10, 10]
    # strata follow the judge's mean score: each stratum's scores lie above the previous one's
    ranges = strat.groupby("stratum")["judge_mean"].agg(["min", "max"])
    assert (ranges["min"].to_numpy()[1:] > ranges["max"].to_numpy()[:-1]).all()


def test_active_choice_follows_judge_disagreement(pool):
    _, judge = pool
    rng = np.random.default_rng(0)
    second = judge.assign(judge="other", score=judge["score"] + rng.normal(0, 1, len(judge)))
    both = pd.concat([judge.assign(judge="first"), second])
    picks = choose_documents(both, 40, strategy="active", seed=2)
    assert picks["probability"].sum() == pytest.approx(40)
    assert picks["probability"].min() >= 0.2 * 40 / 200 - 1e-12
    assert stats.spearmanr(picks["uncertainty"], picks["probability"])[0] > 0.99
    with pytest.raises(DesignError, match="needs the judge's uncertainty"):
        choose_documents(judge, 40, strategy="active")


def test_ipw_estimates_are_unbiased_under_the_active_design():
    """Over many draws of an active design, the weighted PPI mean centres on the pool's human mean and
    its interval covers it; ppi_systems with the design's probabilities is that estimator."""
    human_all, judge = judged_study(n_documents=300, n_systems=2, human_share=1.0, seed=8)
    judge = judge.assign(uncertainty=np.abs(judge["score"] - judge["score"].mean()))
    s0 = judge[judge["system"] == "s0"].set_index("document")
    y_all = human_all[human_all["system"] == "s0"].set_index("document")["score"].reindex(s0.index)
    truth = y_all.mean()
    estimates, covered = [], []
    for seed in range(300):
        picks = choose_documents(judge, 45, strategy="active", seed=seed).set_index("document")
        y = np.where(picks["selected"].reindex(s0.index), y_all, np.nan)
        est = ipw_mean(y, s0["score"].to_numpy(), picks["probability"].reindex(s0.index).to_numpy())
        estimates.append(est.estimate)
        covered.append(est.ci_low <= truth <= est.ci_high)
    assert abs(np.mean(estimates) - truth) < 4 * np.std(estimates) / np.sqrt(len(estimates))
    assert np.mean(covered) > 0.88
    chosen = set(picks.index[picks["selected"]])
    result = ppi_systems(
        human_all[human_all["document"].isin(chosen)],
        judge,
        probabilities=picks.reset_index()[["document", "probability"]],
        adjust="none",
        n_resamples=0,
    )
    assert result.weighting == "inverse-probability"
    assert result.systems.set_index("system").loc["s0", "estimate"] == pytest.approx(est.estimate)


def test_design_cli_writes_the_chosen_documents_and_their_probabilities(tmp_path, pool):
    _, judge = pool
    judge.to_csv(tmp_path / "judge.csv", index=False)
    out = tmp_path / "design.csv"
    result = CliRunner().invoke(
        main,
        [
            "design",
            "--documents",
            "20",
            "--judge-scores",
            str(tmp_path / "judge.csv"),
            "--choose",
            "stratified",
            "--docs-per-block",
            "5",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    probabilities = pd.read_csv(tmp_path / "design.probabilities.csv")
    chosen = set(probabilities.loc[probabilities["selected"], "document"])
    design = pd.read_csv(out)
    assert set(design.loc[~design["is_check"], "document"]) == chosen and len(chosen) == 20
    assert set(design.loc[~design["is_check"], "system"]) == {"s0", "s1", "s2"}


@pytest.mark.parametrize("case", REFERENCE["power"], ids=lambda c: f"rho={c['correlation']}")
def test_budget_matches_ppi_power(case):
    """ppi-python's ppi_power (Broska, Howes & van Loon 2024) rounds its continuous optimum; ours is the
    cheapest integer pair reaching the same variance, so it costs at most as much (up to its rounding)."""
    z = stats.norm.ppf(0.975)
    plan = ppi_budget(
        1.0,
        case["correlation"],
        human_cost=case["human_cost"],
        judge_cost=case["judge_cost"],
        target_width=2 * z / np.sqrt(case["effective_n"]),
        trials=200,
    )
    assert abs(plan.n - case["n"]) <= 2
    assert plan.cost <= case["cost"] * 1.01
    assert plan.cost >= case["cost"] * 0.97
    assert plan.n_effective >= case["effective_n"] - 1e-6
    assert plan.human_only_n == case["effective_n"]


def test_budget_simulation_reaches_the_target():
    plan = ppi_budget(0.8, 0.7, human_cost=1.0, judge_cost=0.02, target_power=0.8, effect=0.2, trials=2000)
    assert plan.simulated_power == pytest.approx(0.8, abs=0.03)
    assert plan.n < plan.human_only_n and plan.cost < plan.human_only_cost
    useless = ppi_budget(0.8, 0.0, human_cost=1.0, judge_cost=0.02, target_power=0.8, effect=0.2, trials=200)
    assert (useless.n, useless.big_n) == (useless.human_only_n, 0)


def test_budget_cli_and_bad_options():
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "budget",
            "--judge-correlation",
            "0.8",
            "--sd",
            "1",
            "--target-width",
            "0.4",
            "--judge-cost",
            "0.01",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert (payload["n"], payload["N"], payload["human_only_n"]) == (39, 503, 97)
    result = runner.invoke(main, ["budget", "--judge-correlation", "0.8", "--target-width", "0.4"])
    assert result.exit_code == 2 and "needs --sd" in result.output
    with pytest.raises(OptionError, match="not both"):
        ppi_budget(1, 0.5, human_cost=1, judge_cost=0.1, target_width=0.2, target_power=0.8, effect=0.1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["design", "--documents", "x.csv"], "with --judge-scores, give how many documents the humans rate"),
        (["design", "--documents", "20", "--calibration-items", "40"], "or as --calibration-items"),
        (["design", "--documents", "500"], "cannot give the humans 500 of the 200 documents"),
        (["budget", "--judge-correlation", "1", "--sd", "1", "--target-width", "0.3"], "--judge-correlation"),
        (["budget", "--judge-correlation", "0.5", "--sd", "1", "--target", "0.8"], "positive --effect"),
    ],
)
def test_hostile_design_and_budget_options_are_one_line(tmp_path, pool, args, message):
    _, judge = pool
    judge.to_csv(tmp_path / "judge.csv", index=False)
    if args[0] == "design":
        args = [*args, "--judge-scores", str(tmp_path / "judge.csv"), "--out", str(tmp_path / "d.csv")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert message in result.output


def test_hostile_ppi_files_are_one_line(tmp_path, pool):
    human, judge = pool
    human = human[human["document"].isin(sorted(human["document"].unique())[:40])]
    human.to_csv(tmp_path / "h.csv", index=False)
    judge.assign(score=judge["score"].astype(str).where(judge.index != 5, "n/a")).to_csv(
        tmp_path / "j.csv", index=False
    )
    result = CliRunner().invoke(
        main, ["ppi", str(tmp_path / "h.csv"), "--judge-file", str(tmp_path / "j.csv")]
    )
    assert result.exit_code == 2 and "'n/a'" in result.output and result.output.count("\n") == 1
    judge.to_csv(tmp_path / "j.csv", index=False)
    pd.DataFrame({"document": ["d0000"], "probability": [0.2]}).to_csv(tmp_path / "p.csv", index=False)
    result = CliRunner().invoke(
        main,
        [
            "ppi",
            str(tmp_path / "h.csv"),
            "--judge-file",
            str(tmp_path / "j.csv"),
            "--probabilities",
            str(tmp_path / "p.csv"),
        ],
    )
    assert result.exit_code == 2 and "no probability for" in result.output and result.output.count("\n") == 1


def test_a_pilot_gives_the_within_system_sd_and_correlation(pool):
    """budget --judge-pilot: each summary's mean human score against the judge's, centred per system."""
    from humaneval.ppi.budget import judged_pilot_relation

    human, judge = pool
    sd, r, _ = judged_pilot_relation(human, None, judge)
    units = human.groupby(["document", "system"], as_index=False)["score"].mean()
    units = units.merge(
        judge[["document", "system", "score"]], on=["document", "system"], suffixes=("", "_j")
    )
    centred = units[["score", "score_j"]] - units.groupby("system")[["score", "score_j"]].transform("mean")
    assert sd == pytest.approx(np.std(centred["score"], ddof=1), rel=1e-12)
    assert r == pytest.approx(np.corrcoef(centred["score"], centred["score_j"])[0, 1], rel=1e-12)
    assert 0.2 < r < 1


def test_budget_judge_pilot_on_the_command_line_plans_from_the_pilot(pool, tmp_path):
    from click.testing import CliRunner

    from humaneval.cli import main
    from humaneval.ppi.budget import judged_pilot_relation

    human, judge = pool
    human.to_csv(tmp_path / "pilot.csv", index=False)
    judge.to_csv(tmp_path / "judge.csv", index=False)
    result = CliRunner().invoke(
        main,
        ["budget", "--judge-pilot", str(tmp_path / "pilot.csv"), "--judge-file", str(tmp_path / "judge.csv"),
         "--human-cost", "1", "--judge-cost", "0.01", "--target-width", "0.3", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    sd, r, _ = judged_pilot_relation(human, None, judge)
    assert (plan["sd"], plan["correlation"]) == pytest.approx((sd, r), rel=1e-12)
    assert plan["simulated_width"] <= 0.3 and plan["cost"] < plan["human_only_cost"]
