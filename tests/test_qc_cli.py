"""``humaneval qc``: the per-annotator table, explicit exclusions with their log, one-line errors."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from humaneval.cli import main
from tests.test_qc import study


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_qc_table_per_annotator(tmp_path):
    path = tmp_path / "ratings.csv"
    study().to_csv(path, index=False)
    result = run("qc", str(path))
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.output.splitlines()[3:7]}
    # careless: both checks failed, both are IMCs (no check_kind column), 6*4 + 2*5 = 34 s
    assert lines["careless"].split()[1:5] == ["6", "0/2", "2", "0.6"]
    assert lines["careless"].endswith("failed checks, too fast")
    assert lines["liner"].endswith("same answer throughout, long run of one answer")
    assert "3 of 4 annotators flagged; nobody excluded" in result.output
    payload = json.loads(run("qc", str(path), "--json").output)
    assert payload["flagged"] == ["careless", "liner", "runner"] and payload["excluded"] is None
    row = {r["annotator"]: r for r in payload["annotators"]}["careless"]
    assert (row["imc_failed"], row["total_seconds"], row["too_fast"]) == (2, 34.0, True)
    assert payload["rules"]["min_failed_checks_for_rejection"] == 2


def test_exclude_writes_cleaned_ratings_and_log(tmp_path):
    path = tmp_path / "ratings.csv"
    study().to_csv(path, index=False)
    result = run(
        "qc", str(path), "--exclude", "prolific_rejection_eligible", "--exclude", "too_fast", "--json"
    )
    assert result.exit_code == 0, result.output
    excluded = json.loads(result.output)["excluded"]
    assert excluded["policy"] == ["prolific_rejection_eligible", "too_fast"]
    cleaned = pd.read_csv(tmp_path / "ratings-cleaned.csv")
    assert excluded["ratings"] == str(tmp_path / "ratings-cleaned.csv")
    # three annotators × six judgements, attention checks dropped
    assert sorted(cleaned["annotator"].unique()) == ["honest", "liner", "runner"]
    assert len(cleaned) == 18 == excluded["n_rows_kept"] and not cleaned["is_check"].any()
    log = pd.read_csv(tmp_path / "ratings-exclusions.csv")
    assert log.to_dict(orient="records") == [
        {
            "annotator": "careless",
            "reasons": "prolific_rejection_eligible, too_fast",
            "n_judgements": 6,
            "checks_total": 2,
            "checks_failed": 2,
            "imc_failed": 2,
            "total_seconds": 34.0,
        }
    ]
    # a stricter speed rule: the liner's median 28 s per screen is below 29 s
    out, log_path = tmp_path / "clean.csv", tmp_path / "why.csv"
    result = run(
        "qc", str(path), "--exclude", "too_fast", "--min-seconds-per-screen", "29", "--out", str(out),
        "--log", str(log_path),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert sorted(pd.read_csv(log_path)["annotator"]) == ["careless", "liner"]
    assert sorted(pd.read_csv(out)["annotator"].unique()) == ["honest", "runner"]
    assert "excluded 2 of 4 annotators (too_fast)" in result.output


def test_bad_exclusions_are_one_line_errors(tmp_path):
    path = tmp_path / "ratings.csv"
    study().to_csv(path, index=False)
    untimed = tmp_path / "untimed.csv"
    study().drop(columns=["seconds"]).to_csv(untimed, index=False)
    for args, message in (
        ([str(path), "--exclude", "sleepy"], "--exclude sleepy: not a QC flag"),
        ([str(untimed), "--exclude", "too_fast"], "flags the QC report does not have: too_fast"),
        ([str(path), "--fast-fraction", "2"], "--fast-fraction must lie in (0, 1)"),
    ):
        result = run("qc", *args)
        assert result.exit_code == 2, result.output
        assert result.output.count("\n") == 1 and message in result.output
    assert not (tmp_path / "untimed-cleaned.csv").exists()
