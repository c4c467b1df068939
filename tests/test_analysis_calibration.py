"""analyze flags a design whose CLMM is known to be mis-calibrated (few annotators), judged by the
interval of the simulated Type I error, and names the command that checks it; calibration lines judge by
the interval."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import analyze
from humaneval.analysis.calibration import CLMM_TYPE1, CLMM_TYPE1_TRIALS
from humaneval.cli import main
from humaneval.clmm.model import default_model
from humaneval.errors import AnalysisCaution
from humaneval.simulate.designs import SimDesign
from humaneval.stats.proportions import calibration_status, calibration_warnings, clopper_pearson

NULL = default_model().with_effects(0)


def _null_study(design: str, seed: int = 1):
    return NULL.sample(SimDesign.parse(design).table(NULL.system_names), seed=seed)


def test_three_annotators_get_the_simulated_rate_and_the_command():
    with pytest.warns(AnalysisCaution, match="with 3 annotators the CLMM's contrasts reject") as caught:
        result = analyze(_null_study("1x40x3"))
    [caution] = result.cautions
    assert caution in [str(w.message) for w in caught if w.category is AnalysisCaution]
    low, high = clopper_pearson(0.159, CLMM_TYPE1_TRIALS)
    assert low > 0.08  # the whole interval lies above the calibration range
    assert f"0.159 [{low:.3f}, {high:.3f}]" in caution
    assert "humaneval power --null --design 1x40x3 --tests clmm --trials 200" in caution
    assert result.to_dict()["cautions"] == [caution]


def test_the_eacl_2021_layout_gets_no_calibration_caution():
    with warnings.catch_warnings():
        warnings.simplefilter("error", AnalysisCaution)
        result = analyze(_null_study("20x5x3"))
    assert result.cautions == ()


def test_six_annotators_are_not_shown_to_be_calibrated_but_not_called_inflated():
    from humaneval.analysis.calibration import clmm_calibration
    from humaneval.core.structure import describe_structure

    text = clmm_calibration(describe_structure(_null_study("2x5x3")))
    assert text is not None and "not shown to be calibrated" in text and "too often" not in text
    assert [row[0] for row in CLMM_TYPE1][:3] == [3, 6, 12]


def test_the_cli_prints_the_caution(tmp_path):
    path = tmp_path / "null.csv"
    _null_study("1x40x3").write(path)
    out = CliRunner().invoke(main, ["analyze", str(path)])
    assert out.exit_code == 0, out.output
    assert "warning: with 3 annotators the CLMM's contrasts reject true null pairs too often" in out.output


def test_calibration_lines_judge_by_the_interval_not_the_point():
    rows = pd.DataFrame(
        {
            "test": ["clmm", "art", "ttest"],
            "aggregate": ["none", "cluster", "none"],
            "rate": [0.020, 0.010, 0.140],
            "ci_low": [0.000, 0.004, 0.110],
            "ci_high": [0.124, 0.020, 0.170],
        }
    )
    undetermined, deflated, inflated = calibration_warnings(rows, 0.05)
    assert "deflated" not in undetermined and "not determined" in undetermined
    assert deflated.endswith("deflated") and inflated.endswith("inflated")
    assert calibration_status(0.05, 0.0, 0.2) is None


def test_the_report_states_the_caution_once_as_a_model_caution():
    from humaneval.report import ReportSettings, build_report

    settings = ReportSettings(n_resamples=200, n_splits=20, mean_resamples=200, power_trials=0)
    report = build_report(_null_study("1x40x3"), settings=settings)
    mine = [w for w in report.warnings if "reject true null pairs too often" in w]
    assert len(mine) == 1 and "humaneval power --null --design 1x40x3" in mine[0]
    assert not any("Mixed-model warning: with 3 annotators" in w for w in report.warnings)
