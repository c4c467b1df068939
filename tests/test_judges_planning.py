"""Planning a judge calibration (the authors' appendix C simulation, the calibration subset) and the
bias audit on tables built so that each bias has a known value."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from humaneval.core.ratings import load_ratings
from humaneval.design.judged import choose_documents
from humaneval.errors import DesignError, InsufficientDataError, OptionError, RatingsError
from humaneval.judges import load_annotations
from humaneval.judges.alttest import alt_test
from humaneval.judges.bias import bias_audit
from humaneval.judges.planning import plan_calibration
from humaneval.judges.simulation import (
    alt_test_arrays,
    assignment,
    numeric_labels,
    simulate_alt_test,
    simulated_labels,
)


def test_simulated_studies_give_what_alt_test_gives_on_each():
    h, j = simulated_labels(np.random.default_rng(3), 4, 60, 4, 3, 0.3, 0.2)
    omega, rho = alt_test_arrays(h, j, 0.15)
    for t in range(4):
        humans = {f"h{a}": {f"i{i}": str(h[t, i, a]) for i in range(60)} for a in range(4)}
        judge = {"j": {f"i{i}": str(j[t, i, 0]) for i in range(60)}}
        row = alt_test(load_annotations(humans, judge), epsilon=0.15, scoring="accuracy").table.iloc[0]
        assert row["winning_rate"] == pytest.approx(omega[t]) and row[
            "advantage_probability"
        ] == pytest.approx(rho[t])


def _study(h, j, present, t):
    """Study ``t`` of simulated arrays as the alt-test's JSON layout (each human only its own items)."""
    n, humans = present.shape
    people = {f"h{a}": {f"i{i}": float(h[t, i, a]) for i in range(n) if present[i, a]} for a in range(humans)}
    return people, {"j": {f"i{i}": float(j[t, i, 0]) for i in range(n)}}


def test_numeric_labels_with_items_per_human_give_what_alt_test_gives():
    """Ratings scored by −RMSE, 6 humans of whom 3 label each item: the simulation's ω and ρ are those of
    alt_test run on each simulated study (humans with fewer than 30 items left out, as there)."""
    present = assignment(80, 3, 6)
    assert (present.sum(axis=1) == 3).all() and present.sum(axis=0).tolist() == [40] * 6
    h, j = numeric_labels(np.random.default_rng(5), 4, 80, 6, 5, 0.8, 0.6)
    assert set(np.unique(h)) == {1.0, 2.0, 3.0, 4.0, 5.0}
    omega, rho = alt_test_arrays(h, j, 0.15, present=present, numeric=True, min_items=30)
    for t in range(4):
        people, judge = _study(h, j, present, t)
        row = alt_test(load_annotations(people, judge), epsilon=0.15, calibration="off").table.iloc[0]
        assert row["scoring"] == "neg_rmse" and row["n_humans"] == 6
        assert row["winning_rate"] == pytest.approx(omega[t], abs=1e-12)
        assert row["advantage_probability"] == pytest.approx(rho[t], abs=1e-12)
    assert omega.mean() > 0 and 0.5 < rho.mean() < 1  # a judge a little better than the humans
    # 50 items over the same 6 humans: 25 each, below the authors' 30, so no t-test at all
    few = assignment(50, 3, 6)
    omega, rho = alt_test_arrays(h[:, :50], j[:, :50], 0.15, present=few, numeric=True, min_items=30)
    assert (omega == 0).all() and np.isnan(rho).all()
    people, judge = _study(h[:, :50], j[:, :50], few, 0)
    with pytest.raises(InsufficientDataError, match="no human has 30 items"):
        alt_test(load_annotations(people, judge), epsilon=0.15, calibration="off")


def test_items_per_human_decide_the_plan():
    """The same 100 items pass with 3 humans who label all of them, and never when 12 humans share them
    (25 items each); the table says why."""
    all_items = simulate_alt_test([100], epsilons=[0.2], n_trials=100, labels="numeric").table.iloc[0]
    shared = simulate_alt_test([100, 160], pool_size=12, epsilons=[0.2], n_trials=100, labels="numeric")
    assert (all_items.items_per_human, all_items.humans_tested) == (100, 3) and all_items.pass_rate > 0.5
    assert shared.table["items_per_human"].tolist() == [25, 40]
    assert shared.table["humans_tested"].tolist() == [0, 12]
    assert shared.table.at[0, "pass_rate"] == 0.0 and shared.table.at[1, "pass_rate"] > 0
    assert "fewer than 30 items and are left out of the t-tests" in shared.summary()
    with pytest.raises(OptionError, match="pool of 2 humans is smaller than the 3 humans per item"):
        simulate_alt_test([50], pool_size=2)


def test_simulation_follows_the_noise_model():
    # human agreement: Cohen's κ of two humans is (1 − noise)², the README's 0.3 → 0.48 (sampled)
    h, _ = simulated_labels(np.random.default_rng(1), 1, 20000, 2, 4, 0.3, 0.3)
    observed = np.mean(h[0, :, 0] == h[0, :, 1])
    assert (observed - 0.25) / 0.75 == pytest.approx(0.49, abs=0.02)
    perfect = simulate_alt_test([100], noise_judge=0.0, epsilons=[0.1], n_trials=100).table.iloc[0]
    useless = simulate_alt_test([100], noise_judge=1.0, epsilons=[0.2], n_trials=100).table.iloc[0]
    assert perfect.pass_rate == 1.0 and useless.pass_rate == 0.0
    curve = simulate_alt_test([30, 100, 200], epsilons=[0.2], n_trials=300).table
    assert curve["pass_rate"].is_monotonic_increasing and curve["pass_rate"].iloc[-1] > 0.95
    with pytest.raises(OptionError, match="at least 2 humans"):
        simulate_alt_test([50], n_humans=1)


def test_power_alt_test_mode_prints_json():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "humaneval",
            "power",
            "--alt-test",
            "noise_judge=0,epsilon=0.2",
            "--breaks",
            "40",
            "--trials",
            "50",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    assert result["results"][0]["pass_rate"] == 1.0 and result["human_kappa"] == pytest.approx(0.49)
    spec = "humans=3,pool=9,labels=numeric,epsilon=0.2"
    spread = [sys.executable, "-m", "humaneval", "power", "--alt-test", spec, "--breaks", "60,90",
              "--trials", "20", "--json"]  # fmt: skip
    result = json.loads(subprocess.run(spread, capture_output=True, text=True, check=True).stdout)
    assert (result["labels"], result["pool_size"], result["human_kappa"]) == ("numeric", 9, None)
    assert [r["items_per_human"] for r in result["results"]] == [20, 30]
    assert [r["humans_tested"] for r in result["results"]] == [0, 9]


def pool() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = [("gpt", f"d{d}", f"s{s}", float(rng.integers(1, 6))) for d in range(30) for s in range(4)]
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "score"]).assign(rater_kind="judge")


def test_calibration_subset_takes_whole_documents_across_the_judge_range(tmp_path):
    plan = plan_calibration(load_ratings(pool()), 40, seed=2)
    assert len(plan.documents) == 10 and len(plan.items) == 40
    assert set(plan.items["system"].value_counts()) == {10}  # balanced over systems
    assert plan.items["stratum"].nunique() == 5  # every fifth of the judge's range
    with pytest.raises(DesignError, match="fewer than the 500 items"):
        plan_calibration(load_ratings(pool()), 500)
    pool().to_csv(tmp_path / "pool.csv", index=False)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "humaneval",
            "design",
            "--judge-scores",
            str(tmp_path / "pool.csv"),
            "--calibration-items",
            "40",
            "--docs-per-block",
            "10",  # 10 documents × 4 systems: the 30 items per human the alt-test needs
            "--out",
            str(tmp_path / "d.csv"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(out.stdout)
    design = pd.read_csv(tmp_path / "d.csv")
    assert set(design["document"].dropna().astype(str)) - {""} <= set(result["calibration"]["documents"])
    assert result["calibration"]["n_items"] == 40
    picks = pd.read_csv(tmp_path / "d.probabilities.csv")
    assert sorted(picks.loc[picks["selected"], "document"]) == result["calibration"]["documents"]


def test_calibration_and_the_judge_informed_design_choose_the_same_documents():
    """One pool, one seed, one draw: 40 items of 4 systems are the 10 documents that
    ``choose_documents(..., 10, strategy="stratified")`` picks, and each stratum gets its share."""
    frame = pool()
    plan = plan_calibration(frame, 40, seed=7)
    picks = choose_documents(frame, 10, strategy="stratified", seed=7)
    assert list(plan.documents) == sorted(picks.loc[picks["selected"], "document"])
    assert plan.probabilities.equals(picks)
    assert plan.items.groupby("stratum")["document"].nunique().tolist() == [2, 2, 2, 2, 2]
    assert plan_calibration(load_ratings(frame), 40, seed=7).documents == plan.documents


def test_a_judge_table_without_scores_or_with_text_scores_is_one_error():
    frame = pool()
    with pytest.raises(RatingsError, match="no column score"):
        plan_calibration(frame.drop(columns="score"), 40)
    with pytest.raises(RatingsError, match="score 'good' at row 0 is not a finite number"):
        plan_calibration(
            frame.astype({"score": object}).assign(score=lambda f: f["score"].where(f.index > 0, "good")), 40
        )


def test_calibration_items_needs_a_judge_scored_pool():
    from click.testing import CliRunner

    from humaneval.cli import main

    result = CliRunner().invoke(main, ["design", "--calibration-items", "40", "--out", "d.csv"])
    assert result.exit_code == 2 and "--calibration-items needs --judge-scores" in result.output


# -- bias audit ------------------------------------------------------------------------------------


def pairwise_with_order() -> pd.DataFrame:
    """Two humans compare a and b once per document (always preferring a); a judge sees both orders on
    20 documents and always prefers the system shown first (flip rate 1). b is the longer output."""
    rows = []
    for d in range(20):
        for who in ("h1", "h2"):
            first = "ab"[(d + int(who[1])) % 2]
            rows += [
                (who, f"d{d}", "a", "b", 1.0, first, 10, "human"),
                (who, f"d{d}", "b", "a", 0.0, first, 30, "human"),
            ]
        for first in ("a", "b"):
            a_wins = 1.0 if first == "a" else 0.0
            rows += [
                ("gpt", f"d{d}", "a", "b", a_wins, first, 10, "judge"),
                ("gpt", f"d{d}", "b", "a", 1 - a_wins, first, 30, "judge"),
            ]
    columns = ["annotator", "document", "system", "opponent", "score", "shown_first", "length", "rater_kind"]
    return pd.DataFrame(rows, columns=columns)


def test_position_verbosity_and_self_preference_of_a_pairwise_judge():
    table = load_ratings(pairwise_with_order())
    audit = bias_audit(table, self_systems={"gpt": ["b"]}).table.set_index("check")
    position = audit.loc["position_flip_rate"]
    assert (position.judge_value, position.n) == (1.0, 20) and np.isnan(
        position.human_value
    )  # one order each
    assert position.judge_low == pytest.approx(0.8389, abs=1e-4)  # Wilson interval of 20/20
    longer = audit.loc["longer_wins"]  # b (longer) wins half of the judge's choices, none of the humans'
    assert (longer.judge_value, longer.human_value) == (0.5, 0.0)
    self_pref = audit.loc["self_win_rate"]
    assert (self_pref.judge_value, self_pref.human_value) == (0.5, 0.0)


def test_rating_table_verbosity_and_self_preference():
    rows = []
    for d in range(10):
        for s, length in (("x", 10), ("y", 20), ("z", 30)):
            for who, kind in (("h1", "human"), ("h2", "human"), ("j", "judge")):
                score = {"x": 2, "y": 3, "z": 4}[s] if kind == "judge" else 3
                rows.append((who, f"d{d}", s, score, length, kind))
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "score", "length", "rater_kind"])
    audit = bias_audit(load_ratings(table), self_systems={"j": ["z"]}).table.set_index("check")
    assert audit.loc["length_tau", "judge_value"] == pytest.approx(1.0)
    assert np.isnan(audit.loc["length_tau", "human_value"])  # the humans' constant 3 has no τ
    assert audit.loc["self_mean_difference", "judge_value"] == pytest.approx(4 - 2.5)
    assert audit.loc["self_mean_difference", "human_value"] == pytest.approx(0.0)
    assert bias_audit(load_ratings(table.drop(columns="length"))) is None


def test_a_ratings_table_as_judge_file_gives_its_judge_rows(tmp_path):
    from humaneval.ppi.judged import read_judge_scores

    frame = pool()
    humans = frame.head(8).assign(annotator="h1", rater_kind="human", score=3.0)
    pd.concat([frame, humans]).to_csv(tmp_path / "both.csv", index=False)
    scores = read_judge_scores(tmp_path / "both.csv")
    assert len(scores) == len(frame) and set(scores["judge"]) == {"gpt"}  # the annotator names the judge
    humans.to_csv(tmp_path / "humans.csv", index=False)
    with pytest.raises(RatingsError, match="no row has rater_kind 'judge'"):
        read_judge_scores(tmp_path / "humans.csv")
