"""``humaneval power``: JSON schema, checkpoint/resume, budget mode, one-line errors; CLMM simulations."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.clmm.model import default_model
from humaneval.errors import FitFailedError
from humaneval.simulate import procedures as procedures_module
from humaneval.simulate import simulate


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_power_json_schema(tmp_path):
    model = default_model().to_json(tmp_path / "m.json")
    result = run(
        "power", "--model-file", str(model), "--design", "blocks=6,docs=5,annotators=2",
        "--tests", "ttest,artagg", "--trials", "40", "--seed", "3", "--out", str(tmp_path / "run"), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["kind"] == "power"
    assert payload["design"] == {
        "blocks": 6, "docs": 5, "annotators": 2, "family": "crossed_in_blocks",
        "total_annotators": 12, "total_documents": 30,
    }  # fmt: skip
    assert payload["model"]["system_names"][0] == "__REFERENCE__"
    rows = payload["results"]
    assert {(r["test"], r["aggregate"]) for r in rows} == {
        ("ttest", "none"), ("ttest", "document"), ("artagg", "cluster"),
    }  # fmt: skip
    overall = [r for r in rows if r["pair"] == "all"]
    assert len(overall) == 3 and len(rows) == 3 * 11
    for row in rows:
        assert {"test", "pair", "rate", "mc_se", "n_trials", "n_failed"} <= row.keys()
        assert row["n_trials"] == 40 and row["n_failed"] == 0
    # the same run through the API gives the same numbers
    api = simulate(None, "6x5x2", ("ttest", "artagg"), trials=40, seed=3).results
    assert [r["rate"] for r in rows] == api["rate"].tolist()
    assert (tmp_path / "run" / "results.csv").exists()
    assert len((tmp_path / "run" / "replicates.jsonl").read_text().splitlines()) == 41
    again = run(
        "power", "--model-file", str(model), "--design", "6x5x2", "--tests", "ttest,artagg",
        "--trials", "40", "--seed", "3", "--out", str(tmp_path / "run"), "--resume", "--json",
    )  # fmt: skip
    assert json.loads(again.output)["results"] == rows


def test_power_json_keys_are_the_result_columns_and_documented():
    """JSON keys equal the result frame's columns, and docs/simulation.md lists them in that order."""
    from pathlib import Path

    api = simulate(None, "6x5x2", ("ttest",), aggregates=("document",), trials=5, seed=2, calibrate=True)
    out = run("power", "--design", "6x5x2", "--tests", "ttest", "--aggregate", "document", "--trials", "5",
              "--seed", "2", "--json")  # fmt: skip
    payload = json.loads(out.output)
    assert list(payload["results"][0]) == list(api.results.columns)
    assert list(payload["calibration"]["results"][0]) == list(api.calibration.results.columns)
    assert payload["results"][0]["rate"] == api.results["rate"].iloc[0]
    assert set(payload["clmm"]) == {
        "structure",
        "engine",
        "failed_fits",
        "failure_rule",
        "fallback",
        "fit_timeout",
        "rungs",
    }
    doc = " ".join((Path(__file__).resolve().parents[1] / "docs" / "simulation.md").read_text().split())
    assert ", ".join(api.results.columns) in doc


def test_power_null_text_output():
    result = run(
        "power", "--design", "3x10x3", "--tests", "ttest", "--trials", "30", "--null", "--no-progress"
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("Type I error of 3x10x3")
    assert "ttest  none" in result.output


def test_budget_command(tmp_path):
    result = run(
        "budget", "--target", "0.6", "--blocks", "6,12", "--docs", "5", "--annotators", "1",
        "--trials", "40", "--wage", "20", "--seconds-per-judgement", "36", "--out", str(tmp_path), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    costs = [c["cost"] for c in payload["candidates"]]
    assert costs == pytest.approx([6 * 5 * 5 * 36 / 3600 * 20, 12 * 5 * 5 * 36 / 3600 * 20])
    assert payload["test"] == "artagg" and (tmp_path / "budget.png").exists()
    # ARTagg on 6 blocks is exact: it cannot reject below 2^(1-6) = 0.031, so it can reach 0.6 only at 12
    assert (
        payload["candidates"][0]["power"] < 0.6 <= payload["best"]["power"]
        and payload["best"]["blocks"] == 12
    )
    text = run(
        "budget", "--target", "0.6", "--blocks", "6,12", "--docs", "5", "--annotators", "1", "--trials", "40"
    )
    assert text.exit_code == 0 and "cheapest: 12 blocks × 5 docs × 1 annotators" in text.output


def test_power_target_is_a_deprecated_alias_of_budget(tmp_path):
    args = (
        "--target", "0.6", "--blocks", "6,12", "--docs", "5", "--annotators", "1", "--trials", "40", "--json",
    )  # fmt: skip
    new = CliRunner().invoke(main, ["budget", *args])
    old = CliRunner().invoke(main, ["power", *args])
    assert old.exit_code == 0, old.output
    assert json.loads(old.stdout) == json.loads(
        new.output
    )  # --tests ttest,art,artagg (power's default) → artagg
    [warning] = old.stderr.strip().splitlines()
    assert (
        warning.startswith("warning: 'humaneval power --target' is deprecated")
        and "humaneval budget" in warning
    )
    assert "--target" not in run("power", "--help").output  # hidden, the budget options too
    assert "--wage" not in run("power", "--help").output and "--wage" in run("budget", "--help").output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--target", "1.5"), "target power"),
        (("--target", "0.8", "--blocks", "6,x"), "whole numbers"),
        (("--target", "0.8", "--test", "anova"), "'--test'"),
        (("--blocks", "6"), "'--target'"),
        (("--target", "0.8", "--wage", "nan"), "'--wage'"),
        (("--target", "0.8", "--annotator-overhead", "-5"), "'--annotator-overhead'"),
    ],
)
def test_budget_errors_are_one_line(args, message):
    result = run("budget", "--trials", "2", *args)
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--design", "blocks=2"), "lacks"),
        (("--tests", "anova"), "unknown test"),
        (("--model-file", "missing.json"), "no such file"),
    ],
)
def test_power_errors_are_one_line(args, message):
    result = run("power", "--trials", "2", "--no-progress", *args)
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_failed_fits_are_counted_never_p_one(monkeypatch):
    """A fitter that fails every other replicate: failures are counted, not mapped to p = 1."""
    calls = {"n": 0}

    class Fit:
        structure = "maximal"
        diagnostics = type("D", (), {"failed": False, "reasons": (), "cond_h": 1e3, "cond_tol": 1e6})()

        def contrasts(self, adjust):
            from humaneval.analysis.contrasts import pairwise_contrasts

            names = default_model().system_names
            return pairwise_contrasts(
                names, np.array([-0.2, 1.4, 0.7, -1.2]), np.eye(4) * 0.04, adjust=adjust
            )

    def fake_fit(ratings, *, engine, structure, link, reference, fallback=True):
        calls["n"] += 1
        if calls["n"] % 2 == 0:
            raise FitFailedError("every CLMM fit failed: maximal: max.grad 0.5 > 0.01")
        return Fit()

    monkeypatch.setattr(procedures_module, "fit_clmm", fake_fit)
    monkeypatch.setattr(procedures_module, "clmm_available", lambda engine="native": True)
    result = simulate(None, "6x5x1", ("clmm",), trials=10, seed=1)
    overall = result.overall().iloc[0]
    assert overall["n_failed"] == 5
    # the fake fit finds the 9 pairs with |z| > 1.96 out of 10 every time it succeeds
    assert overall["rate_successful"] == pytest.approx(0.9)
    assert overall["rate"] == pytest.approx(0.45)
    assert result.rungs == {"maximal": 5, "failed": 5}


def test_clmm_power_nested_60x5x1_reaches_the_published_value():
    """Issue 9 acceptance: nested 60×5×1 power ≥ published 0.928 − Monte-Carlo error (spec §6.5)."""
    result = simulate(None, "60x5x1", ("clmm",), trials=24, seed=1)
    overall = result.overall().iloc[0]
    assert result.config.structure == "nested"
    se = np.sqrt(0.928 * 0.072 / 24)
    assert overall["rate_successful"] >= 0.928 - 3 * se
    per_pair = result.results.set_index("pair")
    assert per_pair.loc["BART - seneca", "rate"] >= 0.9
    assert per_pair["sign_error_rate"].max() <= 0.05
    assert sum(result.rungs.values()) == 24


@pytest.mark.filterwarnings("ignore::humaneval.errors.ConvergenceWarning")
def test_a_fitted_result_can_be_simulated():
    from humaneval.analysis import fit_clmm
    from humaneval.clmm.model import sample_ratings
    from humaneval.simulate.designs import SimDesign

    model = default_model()
    pilot = sample_ratings(model, SimDesign(30, 5, 1).table(model.system_names), seed=2)
    fit = fit_clmm(pilot, engine="native", structure="nested")
    result = simulate(fit, "10x5x1", ("ttest",), aggregates=("document",), trials=20, seed=1)
    assert result.config.model.system_names == fit.systems
    np.testing.assert_allclose(result.config.model.coefficients[1:], fit.beta)
    assert result.overall()["n_trials"].iloc[0] == 20


def test_power_labels_the_clmm_row_by_what_it_models():
    out = run("power", "--design", "1x10x3", "--tests", "clmm", "--trials", "2", "--no-calibration")
    assert out.exit_code == 0, out.output
    [row] = [line for line in out.output.splitlines() if line.strip().startswith("clmm ")]
    assert row.split()[:2] == ["clmm", "judgement"] and "none" not in row


def test_simulation_docs_say_which_model_each_power_belongs_to():
    from pathlib import Path

    text = " ".join((Path(__file__).parents[1] / "docs" / "simulation.md").read_text().split())
    assert "*not* reproduced" not in text
    sentence = text[text.index("A power of 0.799") :][:200]
    assert "*repetition* model" in sentence
    assert "are both the *coherence* model's power at 20 × 5 × 3" in text
