"""``humaneval reliability``: JSON schema and values on the reference data, criteria, errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from tests.conftest import shared_file


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_json_on_likert_reference(likert_path):
    times = shared_file("steen2021", "times", "likert_coherence_cnn_dm.csv")
    result = run("reliability", str(likert_path), "--json", "--seed", "1", "--times", str(times))
    assert result.exit_code == 0, result.output
    [payload] = json.loads(result.output)["criteria"]
    assert payload["alpha"] == pytest.approx(0.2211, abs=5e-4)
    assert payload["level_of_measurement"] == "ordinal"
    assert payload["alpha_ci"] == pytest.approx([0.17, 0.27], abs=0.015)
    assert payload["alpha_q"] == {"0.667": 1.0}
    assert 0.95 <= payload["shr"] <= 0.965
    assert payload["shr_sd"] == pytest.approx(0.032, abs=0.004)
    assert payload["shr_spearman_brown"] == pytest.approx(2 * payload["shr"] / (1 + payload["shr"]))
    assert payload["n_pairable"] == 1500
    assert payload["design_family"] == "crossed_in_blocks"
    assert payload["fleiss_kappa"] == pytest.approx(0.0464, abs=5e-5)
    bucket = next(b for b in payload["time_curve"] if b["minutes_from"] == 120)
    assert bucket["mean_r"] == pytest.approx(0.943, abs=0.01)


def test_text_output_and_options(rank_path):
    result = run(
        "reliability",
        str(rank_path),
        "--level-of-measurement",
        "interval",
        "--resamples",
        "0",
        "--splits",
        "200",
    )
    assert result.exit_code == 0, result.output
    assert any(line.split()[-1] == "0.434" for line in result.output.splitlines() if "α (interval)" in line)
    assert "over 200 splits" in result.output and "CI" not in result.output


def test_criteria_and_unsplittable_design(tmp_path):
    rng = np.random.default_rng(0)
    rows = [
        (a, d, s, c, int(rng.integers(1, 6)))
        for a in range(3)
        for d in range(4)
        for s in "ABC"
        for c in ("coherence", "fluency")
    ]
    path = tmp_path / "crossed.csv"
    pd.DataFrame(rows, columns=["annotator", "document", "system", "criterion", "score"]).to_csv(
        path, index=False
    )
    payload = json.loads(run("reliability", str(path), "--json", "--resamples", "1000").output)
    assert [c["criterion"] for c in payload["criteria"]] == ["coherence", "fluency"]
    first = payload["criteria"][0]
    assert first["shr"] is None and first["design_family"] == "fully_crossed"
    assert "single block" in first["notes"][0]
    assert first["n_pairable"] == 36


def test_errors_are_one_line(tmp_path):
    path = tmp_path / "one.csv"
    pd.DataFrame({"annotator": [1, 1], "document": ["d", "e"], "system": ["A", "A"], "score": [1, 2]}).to_csv(
        path, index=False
    )
    result = run("reliability", str(path))
    assert result.exit_code == 2
    assert "one annotator" in result.output and len(result.output.strip().splitlines()) == 1
    result = run("reliability", str(path), "--resamples", "10")
    assert result.exit_code == 2
    for args, message in [
        ([str(tmp_path)], "is a folder"),
        ([str(path), "--times", str(tmp_path)], "is a folder"),
        ([str(path), "--times", str(tmp_path / "gone.csv")], "gone.csv: no such file"),
    ]:
        result = run("reliability", *args)
        assert result.exit_code == 2 and message in result.output
        assert len(result.output.strip().splitlines()) == 1
