"""budget plans for your study as power does (--design, --pilot, --effect) and prices it in the design's
currency and wage."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from humaneval.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_budget_prices_in_the_designs_currency_and_wage(tmp_path):
    design = tmp_path / "design.csv"
    made = run(
        "design", "--documents", "100", "--systems", "ref,A,B,C", "--reference", "ref",
        "--wage", "9", "--currency", "GBP", "--out", str(design),
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    grid = ("--blocks", "6,10", "--docs", "5", "--annotators", "3", "--trials", "10")
    out = run("budget", "--design", str(design), "--effect-points", "0.5", "--target", "0.8", *grid, "--json")
    assert out.exit_code == 0, out.output
    plan = json.loads(out.stdout)
    assert plan["cost_model"]["currency"] == "GBP" and plan["cost_model"]["wage_per_hour"] == 9
    seconds = plan["cost_model"]["seconds_per_judgement"]
    for row in plan["candidates"]:
        assert row["cost"] == pytest.approx(row["judgements"] * seconds / 3600 * 9, abs=0.01)
    assert any("effects set in expected-score points: 0.5" in n for n in plan["notes"])
    assert any("simulated effects (latent, vs ref)" in n for n in plan["notes"])  # the design's systems
    text = run("budget", "--design", str(design), "--effect-points", "0.5", "--target", "0.8", *grid).output
    assert "cost at 9 GBP/h" in text


def test_budget_takes_an_effect_like_power():
    grid = ("--blocks", "6", "--docs", "5", "--annotators", "3", "--trials", "10")
    plan = json.loads(run("budget", "--effect", "0.0", "--target", "0.8", *grid, "--json").stdout)
    # no effect at all: nothing to detect, so power stays near 0 (correct-direction detections only)
    assert plan["candidates"][0]["power"] < 0.2 and plan["cost_model"]["currency"] == "USD"
