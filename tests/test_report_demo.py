"""``humaneval demo``: design → forms → simulated annotators → ratings → report, on a small study."""

from __future__ import annotations

import json

import pandas as pd
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.demo import DemoSettings, run_demo

SMALL = DemoSettings(
    documents=30,
    docs_per_block=5,
    annotators_per_block=2,
    careless=1,
    n_resamples=1000,
    n_splits=100,
    power_trials=20,
    clmm_power_trials=0,
)


def test_demo_runs_the_whole_pipeline(tmp_path):
    lines: list[str] = []
    result = run_demo(tmp_path, seed=3, settings=SMALL, progress=lines.append)
    assert [line[:5] for line in lines if line.startswith("[")] == [
        "[1/5]",
        "[2/5]",
        "[3/5]",
        "[4/5]",
        "[5/5]",
    ]
    # design: 6 blocks × 2 slots; forms carry labelled placeholder texts
    assert len(result.design.slots) == 12
    previews = list((tmp_path / "forms" / "preview").glob("*.html"))
    assert len(previews) == 12 and "PLACEHOLDER" in previews[0].read_text()  # one HIT per slot
    # ratings: 30 documents × 5 systems × 2 judgements plus 2 checks per annotator, times from the forms
    data = pd.read_csv(result.files["ratings"])
    assert (~data["is_check"]).sum() == 300 and data["is_check"].sum() == 24
    assert data["seconds"].notna().all()
    # QC finds exactly the careless slot: both checks failed and far too fast
    report = json.loads(result.files["json"].read_text())
    flagged = {r["annotator"] for r in report["qc"]["annotators"] if r["prolific_rejection_eligible"]}
    fast = {r["annotator"] for r in report["qc"]["annotators"] if r["too_fast"]}
    careless = set(data.loc[data["annotator_slot"].isin(result.careless), "annotator"])
    assert flagged == fast == careless and len(careless) == 1
    [part] = report["criteria"]
    assert part["criterion"] == "coherence" and part["analysis"]["engine"] == "native"
    assert part["reliability"]["time_curve"]  # times came through the forms' tm_ fields
    assert report["datasheet"]["sections"]["sample_evaluators_design"]["blocks"] == 6
    assert result.files["html"].exists() and (tmp_path / "report" / "time_curve-coherence.png").exists()

    # the files on disk make the same report through the CLI, with the design's datasheet
    out = tmp_path / "again"
    cli = CliRunner().invoke(
        main,
        [
            "report",
            str(result.files["ratings"]),
            "--design",
            str(result.files["csv"]),
            "--preset",
            "coherence-likert7",
            "--engine",
            "native",
            "--power-trials",
            "0",
            "--seed",
            "3",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert cli.exit_code == 0, cli.output
    again = json.loads((out / "report.json").read_text())
    assert again["qc"] == report["qc"]
    assert again["criteria"][0]["means"] == report["criteria"][0]["means"]
    assert again["datasheet"] == report["datasheet"]  # the demo's preset filled the same form fields
    assert again["datasheet"]["sections"]["quality_criteria"]["question"] == "How coherent is this summary?"
    assert (out / "datasheet.md").exists() and again["criteria"][0]["power"] is None


def test_demo_cli_help_names_the_engine():
    result = CliRunner().invoke(main, ["demo", "--help"])
    assert result.exit_code == 0 and "--engine" in result.output
