"""Done when: a Likert study with judge rows runs through validate → reliability → analyze → report with
the judges left out of the human statistics, and ``humaneval judge`` on it gives the verdict table."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from tests.test_judges_alttest import likert_with_judges


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "humaneval", *args], capture_output=True, text=True)


def without_file(payload: dict) -> str:
    """The JSON without the file name and wall-clock times, for comparing two runs."""

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k != "file" and "seconds" not in k}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return json.dumps(clean(payload), sort_keys=True)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judged")
    table = likert_with_judges(n_documents=24)
    table.to_csv(folder / "with_judges.csv", index=False)
    table[table["rater_kind"] == "human"].drop(columns="rater_kind").to_csv(
        folder / "humans.csv", index=False
    )
    return folder


def test_validate_names_the_judges_and_counts_the_humans(study):
    validate = run("validate", str(study / "with_judges.csv"), "--json")
    assert json.loads(validate.stdout)["judges"] == ["noisy", "reversed"]
    assert json.loads(validate.stdout)["n_ratings"] == 432


@pytest.mark.parametrize("command", [["reliability", "--resamples", "1000", "--splits", "50"], ["analyze"]])
def test_reliability_and_analyze_leave_the_judges_out(study, command):
    a, b = (
        run(*command, str(study / "with_judges.csv"), "--json"),
        run(*command, str(study / "humans.csv"), "--json"),
    )
    assert a.returncode == 0 and b.returncode == 0, a.stderr
    assert without_file(json.loads(a.stdout)) == without_file(json.loads(b.stdout))


def test_report_has_the_judges_beside_the_human_statistics(study):
    judged = str(study / "with_judges.csv")
    out = study / "report"
    report = run("report", judged, "--engine", "native", "--power-trials", "0", "--out", str(out), "--json")
    assert report.returncode == 0, report.stderr
    saved = json.loads((out / "report.json").read_text())
    assert saved["study"]["n_ratings"] == 432 and [r["judge"] for r in saved["judges"]["judges"]] == [
        "noisy",
        "reversed",
    ]
    assert "LLM judges" in (out / "index.html").read_text()


def test_judge_prints_the_verdict_table(tmp_path):
    likert_with_judges().to_csv(tmp_path / "study.csv", index=False)
    out = run("judge", str(tmp_path / "study.csv"), "--epsilon", "0.2", "--resamples", "1000")
    assert out.returncode == 0, out.stderr
    assert "Verdict (judges side by side):" in out.stdout
    assert (
        "Flag: reversed: passes the alt-test, but its system-level τ interval reaches below 0.5" in out.stdout
    )
    rows = [
        line.split() for line in out.stdout.splitlines() if line.strip().startswith(("noisy", "reversed"))
    ]
    # judge, rank, ω [interval], ρ [interval], passed (P(pass))
    assert [rows[0][k] for k in (0, 1, 2, 5, 8, 9)] == ["noisy", "2", "0.00", "0.56", "no", "(0.00)"]
    assert [rows[1][k] for k in (0, 1, 2, 5, 8, 9)] == ["reversed", "1", "1.00", "0.86", "yes", "(1.00)"]
    # the better-ranking judge is named only because the paired τ difference excludes 0
    assert (
        "but noisy ranks the systems better" in out.stdout
        and "paired difference interval [0.13" in out.stdout
    )


def test_judges_option_and_bad_epsilon_on_the_command_line(tmp_path):
    table = likert_with_judges(n_documents=24).drop(columns="rater_kind")
    table.to_csv(tmp_path / "plain.csv", index=False)
    named = run(
        "judge", str(tmp_path / "plain.csv"), "--mark-judges", "noisy,reversed", "--resamples", "0", "--json"
    )
    assert [r["judge"] for r in json.loads(named.stdout)["judges"]] == ["noisy", "reversed"]
    for bad, message in (
        (["--epsilon", "1"], "outside [0, 1)"),
        (["--mark-judges", "gpt"], "not an annotator"),
    ):
        out = run("judge", str(tmp_path / "plain.csv"), *bad)
        assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1
    assert pd.read_csv(tmp_path / "plain.csv").shape[0] == 720
