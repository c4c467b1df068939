"""Power of pairwise and best–worst designs (humaneval.comparative.power) against exact computations."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats
from scipy.special import expit, logit

from humaneval.cli import main
from humaneval.comparative.power import ComparativeDesign, comparative_power, parse_design, parse_effects
from humaneval.errors import DesignError


def exact_wald_power(n: int, theta: float, alpha: float = 0.05) -> float:
    """Power of the Wald test of one Bradley–Terry difference from n independent comparisons.

    With two systems the MLE is logit(k/n) with SE 1/√(n p̂(1 − p̂)) for k wins of the first; k = 0 or
    n has no estimate (counted as not significant). Summed over the binomial distribution of k.
    """
    k = np.arange(1, n)
    p_hat = k / n
    z = logit(p_hat) * np.sqrt(n * p_hat * (1 - p_hat))
    # the first system is the reference: the contrast s0 − s1 = −θ is detected when z < −1.96 (θ > 0)
    detected = z < -stats.norm.ppf(1 - alpha / 2)
    return float(stats.binom.pmf(k[detected], n, expit(-theta)).sum())


def test_two_systems_without_annotator_deviations_match_the_binomial_computation():
    design = ComparativeDesign.from_blocks("pairwise", 2, blocks=4, docs=5, annotators=3)
    assert design.n_judgements == 60
    result = comparative_power(
        design, np.array([0.0, 0.6]), annotator_sd=0.0, inference="model", trials=400, calibrate=False, seed=3
    )
    row = result.overall().iloc[0]
    exact = exact_wald_power(60, 0.6)
    assert exact == pytest.approx(0.6353, abs=1e-4)
    assert row["ci_low"] <= exact <= row["ci_high"]
    assert abs(row["rate"] - exact) < 3 * np.sqrt(exact * (1 - exact) / 400)


def test_type1_error_of_the_default_models_is_near_the_nominal_level():
    pairwise = ComparativeDesign.from_blocks("pairwise", 4, blocks=6, docs=4, annotators=3)
    result = comparative_power(pairwise, annotator_sd=1.0, null=True, trials=200, seed=5)
    row = result.overall().iloc[0]
    assert row["test"] == "mixed-bradley-terry" and row["aggregate"] == "mixed"
    assert 0.02 <= row["rate"] <= 0.085 and result.fits == {"mixed": 200}
    bws = ComparativeDesign.from_blocks("bws", 5, blocks=6, docs=4, annotators=3)
    result = comparative_power(bws, annotator_sd=1.0, null=True, trials=80, n_resamples=150, seed=6)
    row = result.overall().iloc[0]
    assert row["test"] == "maxdiff" and row["aggregate"] == "two-way"
    assert 0.01 <= row["rate"] <= 0.10


def test_power_rises_with_annotators():
    rates = []
    for annotators in (1, 4):
        design = ComparativeDesign.from_blocks("pairwise", 3, blocks=6, docs=3, annotators=annotators)
        result = comparative_power(
            design, np.array([0.0, 0.4, 0.8]), annotator_sd=0.5, trials=100, calibrate=False, seed=7
        )
        rates.append(result.overall()["rate"].iloc[0])
    assert rates[1] > rates[0] + 0.15


def test_effects_and_block_specs_are_parsed_with_one_line_errors():
    design = parse_design("bws:systems=5,blocks=2,docs=3,annotators=2,tuple_size=3,bws_factor=1")
    assert design.kind == "bws" and design.members.shape == (2 * 3 * 2 * 5, 3)
    assert parse_effects("0.3", design.systems).tolist() == [0.0, 0.3, 0.3, 0.3, 0.3]
    assert parse_effects("s2=1,s3-s0=-1", design.systems).tolist() == [0.0, 0.0, 1.0, -1.0, 0.0]
    with pytest.raises(DesignError, match="against the reference 's0'"):
        parse_effects("s2-s3=1", design.systems)
    with pytest.raises(DesignError, match="unknown key 'doc'"):
        parse_design("pairwise:doc=3")
    assert parse_design("blocks=3,docs=2,annotators=1") is None  # a Likert block design


def test_cli_power_of_a_pairwise_design_file(tmp_path):
    runner = CliRunner()
    design = tmp_path / "design.csv"
    made = runner.invoke(
        main,
        ["design", "--documents", "8", "--systems", "A,B,C", "--method", "pairwise", "--out", str(design)],
    )
    assert made.exit_code == 0, made.output
    found = parse_design(str(design))
    # attention checks left out: 8 documents × 3 pairs × 3 annotator slots per block
    assert found.kind == "pairwise" and found.n_judgements == 8 * 3 * 3
    out = runner.invoke(
        main,
        ["power", "--design", str(design), "--effect", "B=0.8,C=0.4", "--annotator-sd", "0.8",
         "--trials", "30", "--no-progress", "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert {"kind", "design", "model", "seed", "alpha", "results", "calibration"} <= set(payload)
    assert payload["kind"] == "power" and payload["model"]["strengths"] == [0.0, 0.8, 0.4]
    assert payload["model"]["annotator_sd"] == 0.8
    rows = {r["pair"]: r for r in payload["results"]}
    assert set(rows) == {"all", "A - B", "A - C", "B - C"} and rows["A - B"]["true_difference"] == -0.8
    assert rows["all"]["n_trials"] == 30 and payload["calibration"]["results"][0]["n_trials"] == 30
    bad = runner.invoke(main, ["power", "--design", str(design), "--effect", "Z=1"])
    assert bad.exit_code == 2 and "unknown system 'Z'" in bad.output
    bad = runner.invoke(main, ["power", "--design", str(design), "--along", "annotators", "--breaks", "1,2"])
    assert bad.exit_code == 2 and "a power curve needs a block design" in bad.output
    bad = runner.invoke(main, ["power", "--design", str(design), "--pilot", str(design)])
    assert bad.exit_code == 2 and "--pilot does not apply to a pairwise design" in bad.output


def test_cli_power_curve_of_a_block_design():
    out = CliRunner().invoke(
        main,
        ["power", "--design", "pairwise:systems=3,blocks=6,docs=3", "--along", "annotators",
         "--breaks", "1,4", "--effect", "0.6", "--trials", "40", "--no-calibration", "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    assert (
        payload["kind"] == "power_curve" and payload["along"] == "annotators" and payload["breaks"] == [1, 4]
    )
    table = payload["table"]
    assert [row["break"] for row in table] == [1, 4] and all(row["n_trials"] == 40 for row in table)
    assert table[1]["rate"] > table[0]["rate"]  # 4 annotators per block detect more than 1


def _resumable_run(checkpoint=None, resume=False, **options):
    design = ComparativeDesign.from_blocks("pairwise", 3, blocks=4, docs=3, annotators=2)
    settings = dict(annotator_sd=0.5, trials=12, calibration_trials=6, seed=4)
    return comparative_power(
        design, np.array([0.0, 0.4, 0.8]), checkpoint=checkpoint, resume=resume, **{**settings, **options}
    )


def _same_run(a, b):
    for x, y in ((a, b), (a.calibration, b.calibration)):
        pd.testing.assert_frame_equal(x.results, y.results)
        assert x.fits == y.fits


def test_an_interrupted_run_resumed_equals_the_uninterrupted_run(tmp_path, monkeypatch, capsys):
    import humaneval.comparative.power as power

    whole = _resumable_run()
    assert whole.overall()["n_trials"].iloc[0] == 12 and whole.calibration.overall()["n_trials"].iloc[0] == 6
    replicate = power.comparative_replicate

    def stop_at_seven(config, index):
        if index == 7:
            raise KeyboardInterrupt
        return replicate(config, index)

    monkeypatch.setattr(power, "comparative_replicate", stop_at_seven)
    checkpoint = tmp_path / "replicates.jsonl"
    with pytest.raises(KeyboardInterrupt):
        _resumable_run(checkpoint)
    monkeypatch.undo()
    lines = checkpoint.read_text().splitlines()
    # chunks of 3 studies: 0–2 and 3–5 were written, 6–8 was lost with the interruption
    assert json.loads(lines[0])["header"]["seed"] == 4
    assert [json.loads(line)["replicate"] for line in lines[1:]] == [0, 1, 2, 3, 4, 5]
    with checkpoint.open("a") as handle:
        handle.write('{"replicate": 6, "fit": "mi')  # a torn last line is ignored
    resumed = _resumable_run(checkpoint, resume=True, progress=True)
    _same_run(resumed, whole)
    assert "power: 100%" in capsys.readouterr().err
    assert len(checkpoint.read_text().splitlines()) == 13
    assert len((tmp_path / "replicates-null.jsonl").read_text().splitlines()) == 7
    # a shorter run extended with --resume: the same studies again
    short = tmp_path / "short.jsonl"
    _resumable_run(short, trials=5, calibration_trials=2)
    _same_run(_resumable_run(short, resume=True), whole)


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
    checkpoint = tmp_path / "replicates.jsonl"
    _resumable_run(checkpoint, trials=3, calibrate=False)
    with pytest.raises(DesignError, match=r"different experiment \(annotator_sd differ\)") as error:
        _resumable_run(checkpoint, resume=True, annotator_sd=0.7, calibrate=False)
    assert "\n" not in str(error.value)
    with pytest.raises(DesignError, match=r"different experiment \(seed differ\)"):
        _resumable_run(checkpoint, resume=True, seed=5, calibrate=False)
    # the same size of design, but each pair shown the other way round
    design = ComparativeDesign.from_blocks("pairwise", 3, blocks=4, docs=3, annotators=2)
    other = dataclasses.replace(design, members=design.members[:, ::-1])
    assert other.to_dict() == design.to_dict()
    with pytest.raises(DesignError, match=r"\(design differ\)"):
        comparative_power(
            other,
            np.array([0.0, 0.4, 0.8]),
            trials=3,
            calibrate=False,
            seed=4,
            checkpoint=checkpoint,
            resume=True,
        )


def test_cli_resume_of_a_pairwise_design_file(tmp_path):
    runner = CliRunner()
    design = tmp_path / "design.csv"
    made = runner.invoke(
        main,
        ["design", "--documents", "5", "--systems", "A,B,C", "--method", "pairwise", "--out", str(design)],
    )
    assert made.exit_code == 0, made.output
    out = tmp_path / "run"
    args = ["power", "--design", str(design), "--effect", "0.6", "--trials", "8", "--calibration-trials", "4",
            "--seed", "9", "--no-progress", "--json", "--out", str(out)]  # fmt: skip
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    whole = json.loads(first.stdout)
    # interrupted after 3 studies of power and 1 of the Type I error
    for name, keep in (("replicates.jsonl", 4), ("replicates-null.jsonl", 2)):
        path = out / name
        path.write_text("\n".join(path.read_text().splitlines()[:keep]) + "\n")
    again = runner.invoke(main, [*args, "--resume"])
    assert again.exit_code == 0, again.output
    resumed = json.loads(again.stdout)
    assert resumed["results"] == whole["results"] and resumed["fits"] == whole["fits"]
    assert resumed["calibration"] == whole["calibration"]
    assert (
        whole["results"][0]["n_trials"] == 8 and len((out / "replicates.jsonl").read_text().splitlines()) == 9
    )
    bad = runner.invoke(main, [*args, "--resume", "--annotator-sd", "0.9"])
    assert bad.exit_code == 2 and "different experiment (annotator_sd differ)" in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    bad = runner.invoke(main, ["power", "--design", str(design), "--resume", "--no-progress"])
    assert bad.exit_code == 2 and "give the --out folder" in bad.output


def test_cli_curve_checkpoints_one_file_per_size_and_resumes(tmp_path):
    args = ["power", "--design", "pairwise:systems=3,blocks=6,docs=3", "--along", "annotators",
            "--breaks", "1,2", "--trials", "6", "--no-calibration", "--no-progress", "--json",
            "--out", str(tmp_path)]  # fmt: skip
    runner = CliRunner()
    whole = runner.invoke(main, args)
    assert whole.exit_code == 0, whole.output
    folder = tmp_path / "checkpoints"
    assert sorted(p.name for p in folder.iterdir()) == ["annotators-1.jsonl", "annotators-2.jsonl"]
    path = folder / "annotators-2.jsonl"
    path.write_text("\n".join(path.read_text().splitlines()[:3]) + "\n")  # 2 of 6 studies kept
    resumed = runner.invoke(main, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["table"] == json.loads(whole.stdout)["table"]
    assert len(path.read_text().splitlines()) == 7
