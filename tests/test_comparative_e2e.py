"""Comparative studies end to end: design → forms → simulated answers → collect → analyze → report.

Each study is made with the CLI as a user would, answered by simulated annotators with their own
preferences (:func:`humaneval.comparative.simulate.simulate_answers`), and analysed without options.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.comparative.simulate import simulate_answers
from humaneval.forms import load_design

STRENGTHS = {"A": 1.2, "B": 0.3, "C": 0.0, "D": -0.3, "E": -1.2}


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def make_study(tmp: Path, method: str, systems: str, fail: tuple[str, ...] = ()) -> Path:
    run(
        "design", "--documents", "20", "--systems", systems, "--method", method,
        "--platform", "mturk", "--attention-checks", "2", "--out", str(tmp / "design.csv"),
    )  # fmt: skip
    route = ("--route", "batch") if method == "bws" else ()  # BWS HITs of 5 documents exceed 64 KB
    run("forms", str(tmp / "design.csv"), "--placeholder-texts", *route, "--out", str(tmp / "forms"))
    design = load_design(tmp / "design.csv")
    strengths = {s: STRENGTHS[s] for s in systems.split(",")}
    results = simulate_answers(design, strengths, annotator_sd=0.5, tie=0.2, seed=7, fail_checks=fail)
    results.to_csv(tmp / "Batch_results.csv", index=False)
    run("collect", "mturk", str(tmp / "Batch_results.csv"), "--design", str(tmp / "design.csv"),
        "--out", str(tmp / "ratings.csv"))  # fmt: skip
    return tmp / "ratings.csv"


def check_analysis(payload: dict, systems: list[str]) -> None:
    groups = pd.DataFrame(payload["groups"]).set_index("system")
    assert sorted(groups.index) == systems
    # the strongest and the weakest simulated systems come first and last, in separate rank groups
    assert groups.index[0] == "A" and groups.index[-1] == systems[-1]
    assert groups.loc["A", "rank_group"].split("/")[0] == "1"
    assert "1" not in groups.iloc[-1]["rank_group"].split("/") and groups.iloc[-1]["letters"] != "a"
    assert groups["estimate"].sum() == pytest.approx(0.0, abs=1e-9)
    assert (groups["estimate_ci_low"] < groups["estimate"]).all()
    contrasts = pd.DataFrame(payload["contrasts"])
    assert len(contrasts) == len(systems) * (len(systems) - 1) // 2
    top = contrasts[(contrasts["system_a"] == "A") & (contrasts["system_b"] == systems[-1])].iloc[0]
    assert top["better"] == "A" and top["p_adj"] < 0.01 and top["win_probability"] > 0.75
    assert top["df"] == 11  # t reference with min(12 annotators, 20 documents) − 1 degrees of freedom
    assert payload["inference"] == "two-way" and payload["n_resamples"] == 3000
    for key in ("test", "response", "engine", "structure", "fixed_effects", "diagnostics", "groups"):
        assert key in payload


def check_report(tmp: Path, ratings: Path, model: str) -> None:
    # 20 power replicates: the power note's numbers are checked in tests/test_comparative_power.py
    run("report", str(ratings), "--out", str(tmp / "report"), "--power-trials", "20")
    report = json.loads((tmp / "report" / "report.json").read_text())
    analysis = report["criteria"][0]["analysis"]
    assert analysis["structure"].startswith(model)
    assert report["criteria"][0]["means"][0]["system"] == "A"
    html = (tmp / "report" / "index.html").read_text()
    assert model in html and "cumulative link" not in html


def test_pairwise_study_end_to_end(tmp_path):
    systems = ["A", "B", "C", "D"]
    ratings = make_study(tmp_path, "pairwise", ",".join(systems), fail=("b000-a1",))
    everything = pd.read_csv(ratings)
    # the attention checks travel as is_check rows (2 per slot); the failing slot failed both
    checks = everything[everything["is_check"]]
    assert len(checks) == 4 * 3 * 2
    assert checks.groupby("annotator_slot")["check_passed"].all().loc["b000-a1"] == False  # noqa: E712
    assert checks["check_passed"].sum() == len(checks) - 2
    table = everything[~everything["is_check"]]
    # one row per summary and comparison: 4 blocks × 3 slots × 5 docs × 6 pairs
    assert {"opponent", "score"} <= set(table.columns) and len(table) == 2 * 4 * 3 * 5 * 6
    assert set(table["score"]) == {0.0, 0.5, 1.0}
    # default: the mixed-effects Bradley–Terry model, ties as a middle category
    payload = json.loads(run("analyze", str(ratings), "--json"))["criteria"][0]
    assert payload["test"] == "mixed-bradley-terry" and payload["kind"] == "pairwise"
    assert payload["inference"] == "mixed" and not payload["diagnostics"]["failed"]
    assert [t["threshold"] for t in payload["thresholds"]] == ["lost|tie", "tie|won"]
    assert {r["term_a"] for r in payload["random_effects"]} == set(systems)
    groups = pd.DataFrame(payload["groups"]).set_index("system")
    assert groups.index[0] == "A" and groups.index[-1] == "D"
    assert groups.loc["A", "rank_group"].split("/")[0] == "1" and groups.iloc[-1]["letters"] != "a"
    text = run("analyze", str(ratings))
    assert "mixed-effects Bradley–Terry" in text and "annotator deviation SD" in text
    # the two-way cluster bootstrap of the Davidson model on request
    payload = json.loads(run("analyze", str(ratings), "--inference", "two-way", "--json"))["criteria"][0]
    assert payload["test"] == "davidson" and payload["thresholds"][0]["threshold"] == "log_nu"
    check_analysis(payload, systems)
    assert "Davidson" in run("analyze", str(ratings), "--inference", "two-way")
    check_report(tmp_path, ratings, "mixed-effects Bradley–Terry")


def test_bws_study_end_to_end(tmp_path):
    systems = ["A", "B", "C", "D", "E"]
    ratings = make_study(tmp_path, "bws", ",".join(systems))
    everything = pd.read_csv(ratings)
    assert everything["is_check"].sum() == 4 * 3 * 2 and everything["check_passed"].dropna().all()
    table = everything[~everything["is_check"]]
    assert {"tuple_id", "score"} <= set(table.columns) and set(table["score"]) == {-1, 0, 1}
    # 10 tuples of 4 per document (factor 2 × 5 summaries), every tuple one best and one worst
    assert len(table) == 4 * 3 * 5 * 10 * 4
    assert (table.groupby(["annotator", "tuple_id"])["score"].sum() == 0).all()
    payload = json.loads(run("analyze", str(ratings), "--json"))["criteria"][0]
    assert payload["test"] == "maxdiff" and payload["kind"] == "bws"
    check_analysis(payload, systems)
    # the descriptive column is the counting score: (#best − #worst) / #shown
    counting = table.groupby("system")["score"].mean()
    groups = pd.DataFrame(payload["groups"]).set_index("system")
    assert groups["mean"].to_dict() == pytest.approx(counting.to_dict())
    check_report(tmp_path, ratings, "MaxDiff")


def test_ranking_study_end_to_end(tmp_path):
    systems = ["A", "B", "C", "E"]
    ratings = make_study(tmp_path, "rank", ",".join(systems))
    payload = json.loads(run("analyze", str(ratings), "--json", "--test", "plackett-luce"))["criteria"][0]
    assert payload["test"] == "plackett-luce" and payload["kind"] == "ranking"
    check_analysis(payload, systems)
    groups = pd.DataFrame(payload["groups"]).set_index("system")
    assert groups.loc["A", "mean"] < groups.loc["E", "mean"]  # mean rank, 1 = best
    # without options a ranking table keeps the CLMM on ranks (the recommended analysis)
    default = json.loads(run("analyze", str(ratings), "--json", "--engine", "native"))["criteria"][0]
    assert default["test"] == "clmm" and default["groups"][0]["system"] == "A"
