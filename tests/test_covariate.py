"""A numeric covariate in a ratings file stays numeric through the CLI: one slope, as R fits it.

Reference: tests/data/covariate_reference.json, made by tests/r/covariate.R (ordinal::clmm) on the Likert
coherence data of Steen & Markert (2021) with each annotator's log working time (minutes, centred)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.core.ratings import load_ratings
from tests.conftest import shared_file

REFERENCE = json.loads((Path(__file__).parent / "data" / "covariate_reference.json").read_text())
FORMULA = "score ~ system + log_minutes_c + (1|annotator) + (1|document)"


def _with_covariate(tmp_path: Path) -> Path:
    """The Likert coherence file plus ``log_minutes_c``: log of each annotator's total minutes on the
    screens (times/ file), centred over annotators — the column tests/r/covariate.R derives."""
    ratings = pd.read_csv(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))
    times = pd.read_csv(shared_file("steen2021", "times", "likert_coherence_cnn_dm.csv"))
    log_minutes = np.log(times.groupby("annotator")["time_stamp"].sum() / 60)
    centred = (log_minutes - log_minutes.mean()).rename("log_minutes_c")
    expected = pd.Series(REFERENCE["covariate"]).rename(index=int)
    np.testing.assert_allclose(centred.reindex(expected.index), expected, atol=1e-12)
    path = tmp_path / "steen_cov.csv"
    ratings.merge(centred, left_on="annotator", right_index=True).to_csv(path, index=False)
    return path


def test_cli_fits_one_slope_for_a_numeric_covariate_as_r_does(tmp_path):
    path = _with_covariate(tmp_path)
    assert pd.api.types.is_float_dtype(load_ratings(path).data["log_minutes_c"])
    result = CliRunner().invoke(main, ["analyze", str(path), "--formula", FORMULA, "--json"])
    assert result.exit_code == 0, result.output
    [part] = json.loads(result.stdout)["criteria"]
    terms = {row["term"]: row for row in part["fixed_effects"]}
    assert [t for t in terms if "log_minutes" in t] == ["log_minutes_c"]  # one slope, not 59 dummies
    assert terms["log_minutes_c"]["estimate"] == pytest.approx(REFERENCE["beta"]["log_minutes_c"], abs=1e-4)
    assert terms["log_minutes_c"]["se"] == pytest.approx(REFERENCE["se"]["log_minutes_c"], rel=1e-3)
    for name, value in REFERENCE["beta"].items():
        assert terms[name]["estimate"] == pytest.approx(value, abs=1e-4), name
    assert part["diagnostics"]["loglik"] == pytest.approx(REFERENCE["loglik"], abs=1e-3)


def test_a_number_column_marked_c_is_a_factor(tmp_path):
    rows = [
        (f"a{a}", f"d{d}", s, 1 + (a + d + (s == "y") * 2) % 4, a % 3)
        for a in range(6)
        for d in range(6)
        for s in ("x", "y")
    ]
    path = tmp_path / "batch.csv"
    columns = ["annotator", "document", "system", "score", "batch"]
    pd.DataFrame(rows, columns=columns).to_csv(path, index=False)
    assert pd.api.types.is_integer_dtype(load_ratings(path).data["batch"])
    runner = CliRunner()
    fit = ["analyze", str(path), "--json", "--formula"]
    slope = runner.invoke(main, [*fit, "score ~ system + batch + (1|annotator)"])
    factor = runner.invoke(main, [*fit, "score ~ system + C(batch) + (1|annotator)"])
    assert slope.exit_code == 0 and factor.exit_code == 0, slope.output + factor.output
    slope_terms = [r["term"] for r in json.loads(slope.stdout)["criteria"][0]["fixed_effects"]]
    factor_terms = [r["term"] for r in json.loads(factor.stdout)["criteria"][0]["fixed_effects"]]
    assert [t for t in slope_terms if "batch" in t] == ["batch"]
    assert len([t for t in factor_terms if "batch" in t]) == 2  # three levels, two treatment dummies
