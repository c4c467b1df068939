"""``humaneval demo --judge``: the humans-and-a-judge path end to end, and its numbers are the CLI's."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from humaneval.cli import main


def test_demo_judge_runs_the_whole_path_and_agrees_with_ppi(tmp_path):
    out = tmp_path / "demo"
    runner = CliRunner()
    result = runner.invoke(main, ["demo", "--judge", "--out", str(out), "--seed", "2"])
    assert result.exit_code == 0, result.output
    for step in ("1. pool", "2. calibration design", "3. humans", "4. judge", "5. ppi", "6. report"):
        assert step in result.output
    pool = pd.read_csv(out / "pool.csv")
    ratings = pd.read_csv(out / "ratings.csv")
    assert list(pool.columns) == ["document", "system", "score", "judge"] and len(pool) == 600
    assert ratings["annotator"].str.fullmatch(r"[0-9a-f]{24}").all()  # Prolific participant ids
    assert ratings.groupby("annotator").size().min() >= 30  # enough items per human for the alt-test
    chosen = pd.read_csv(out / "design.probabilities.csv")
    assert set(ratings["document"]) == set(chosen.loc[chosen["selected"], "document"])
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["judges"]["epsilon"] == 0.1 and len(report["ppi"]) == 1
    # the report's PPI numbers are humaneval ppi's on the demo's own files
    ppi = runner.invoke(
        main, ["ppi", str(out / "ratings.csv"), "--judge-file", str(out / "pool.csv"), "--json"]
    )
    assert ppi.exit_code == 0, ppi.output
    mine, theirs = pd.DataFrame(json.loads(ppi.stdout)["groups"]), pd.DataFrame(report["ppi"][0]["groups"])
    np.testing.assert_allclose(mine["estimate"], theirs["estimate"], rtol=1e-12)
    # the simulated effects (0, 0.35, 0.7) come out in order
    assert list(mine["system"]) == ["gpt", "pegasus", "extractive"]


def test_report_takes_the_alt_test_profile_and_puts_the_judges_in_results_tex(tmp_path):
    from humaneval.demo.judged import run_judged_demo

    demo = run_judged_demo(tmp_path / "demo", seed=3)
    assert (
        "LLM judges beside the humans: alternative-annotator test (ε = 0.1,"
        in demo.files["latex"].read_text()
    )
    out = tmp_path / "expert"
    args = [
        "report",
        str(demo.files["ratings"]),
        "--judge-file",
        str(demo.files["pool"]),
        "--profile",
        "expert",
    ]
    result = CliRunner().invoke(
        main, [*args, "--out", str(out), "--power-trials", "0", "--clmm-power-trials", "0"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["judges"]["epsilon"] == 0.2
    assert "(ε = 0.2," in (out / "results.tex").read_text()
    assert "Bias audit" in (out / "index.html").read_text() or demo.judges is None or demo.judges.bias is None
