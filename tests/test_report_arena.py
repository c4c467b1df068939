"""The pairwise report at arena size (issue 41, item 2): style control in the report, P(a ≻ b), the
model's strength intervals, a bounded power step, and judgements counted as judgements."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.core.ratings import load_ratings
from humaneval.report.build import ReportSettings, build_report, power_budget
from humaneval.report.render import write_report


def arena(n: int = 800, seed: int = 41) -> pd.DataFrame:
    """Random pairs of 5 systems, one prompt per comparison, a verbosity effect γ = 1 (two rows each)."""
    rng = np.random.default_rng(seed)
    theta = np.array([0.6, 0.3, 0.0, -0.3, -0.6])
    a = rng.integers(0, 5, n)
    b = (a + rng.integers(1, 5, n)) % 5
    length = rng.normal(0, 1, n)
    won = (rng.random(n) < 1 / (1 + np.exp(-(theta[a] - theta[b] + length)))).astype(float)
    names = np.array([f"m{k}" for k in range(5)])
    rows = pd.DataFrame(
        {
            "annotator": np.char.add("w", rng.integers(0, 40, n).astype(str)),
            "document": np.char.add("p", np.arange(n).astype(str)),
            "system": names[a],
            "opponent": names[b],
            "score": won,
            "len_diff": length,
        }
    )
    mirror = rows.assign(system=rows["opponent"], opponent=rows["system"], score=1 - won, len_diff=-length)
    return pd.concat([rows, mirror], ignore_index=True)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena")
    settings = ReportSettings(
        n_resamples=200, n_splits=10, mean_resamples=100, power_trials=0, style=("len_diff",)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = build_report(load_ratings(arena()), settings=settings)
        files = write_report(report, out / "report")
    return report, files


def test_report_shows_style_coefficient_p_better_and_model_intervals(written):
    report, files = written
    analysis = report.criteria[0].analysis
    gamma = analysis.fit.covariates_frame().iloc[0]
    assert abs(gamma["estimate"] - 1.0) < 3 * gamma["se"]  # the simulated verbosity effect
    md = files["markdown"].read_text()
    assert f"| len\\_diff | {gamma['estimate']:.3f} | {gamma['se']:.3f} |" in md
    contrasts = analysis.contrasts
    first = contrasts.iloc[0]
    p_better = 1 / (1 + np.exp(-first["estimate"]))  # P(a ≻ b) = σ(θa − θb), style held equal
    assert first["win_probability"] == pytest.approx(p_better, rel=1e-9)
    line = next(s for s in md.splitlines() if s.startswith(f"| {first['system_a']} − {first['system_b']} |"))
    assert f"| {p_better:.2f} |" in line
    systems = analysis.systems
    assert systems["estimate_ci_low"].notna().all()
    top = systems.iloc[0]
    row = next(s for s in md.splitlines() if s.startswith(f"| {top['system']} |"))
    assert row.rstrip(" |").endswith(f"[{top['estimate_ci_low']:.3f}, {top['estimate_ci_high']:.3f}]")
    assert "win rate" in md


def test_qc_and_validate_count_judgements_not_rows(written, tmp_path):
    report, _ = written
    assert int(report.qc.table["n_judgements"].sum()) == 800
    path = tmp_path / "arena.csv"
    arena().to_csv(path, index=False)
    out = CliRunner().invoke(main, ["validate", str(path)])
    assert out.exit_code == 0
    assert "judgements: pairwise, 800" in " ".join(out.output.split())
    payload = json.loads(CliRunner().invoke(main, ["validate", str(path), "--json"]).output)
    assert (payload["kind"], payload["n_judgements"], payload["n_ratings"]) == ("pairwise", 800, 1600)


def test_power_step_is_bounded_by_its_estimated_time():
    assert power_budget(ReportSettings(power_minutes=1.0), 0.25) == (200, None)
    assert power_budget(ReportSettings(power_minutes=1.0), 2.0) == (30, None)  # 60 s / 2 s
    trials, why = power_budget(ReportSettings(power_minutes=1.0), 8.0)
    assert trials == 0 and "about 27 CPU-min (8.0 s each)" in why and "--power-minutes" in why
    assert power_budget(ReportSettings(power_trials=0), 100.0) == (0, None)


def test_report_cli_refuses_unknown_style_column(tmp_path):
    path = tmp_path / "arena.csv"
    arena(100).to_csv(path, index=False)
    out = CliRunner().invoke(
        main,
        [
            "report",
            str(path),
            "--style-columns",
            "words",
            "--power-trials",
            "0",
            "--out",
            str(tmp_path / "r"),
        ],
    )
    assert out.exit_code == 2
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("error: style column 'words' is not in the table")
    assert "Traceback" not in out.stderr


def test_report_times_one_study_then_skips_power_that_does_not_fit():
    settings = ReportSettings(n_resamples=50, n_splits=5, mean_resamples=50, power_minutes=0.001)
    said: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = build_report(load_ratings(arena(200)), settings=settings, progress=said.append)
    part = report.criteria[0]
    assert part.comparative_power is None
    assert part.power_error.startswith("200 simulated studies of this design would take about")
    assert any("timing one simulated study" in line for line in said)
    assert any("Power note not computed: 200 simulated studies" in w for w in report.warnings)
