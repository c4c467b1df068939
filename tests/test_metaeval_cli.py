"""``humaneval metaeval`` and the results-table presentations (spec §9.1)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.metaeval import read_scores
from humaneval.metaeval.report import format_cell, meta_evaluate, results_table, to_latex, to_markdown
from tests.conftest import shared_file


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def root():
    return shared_file("summeval-coherence-scores")


def test_format_cell():
    assert format_cell(0.2582, 0.19, 0.331) == "+0.26 (+0.19 +0.33)"
    assert format_cell(-0.004, -0.06, 0.05) == "-0.00 (-0.06 +0.05)"
    assert format_cell(float("nan")) == "-"
    assert format_cell(0.5) == "+0.50"


def test_cli_json_with_bootstrap(root):
    result = run(
        "metaeval",
        "--human", str(root / "human.csv"),
        "--metric", f"BAS={root / 'bartscore.csv'}:0",
        "--metric", f"GRN={root / 'gruen.csv'}:Qgruen",
        "--resamples", "100", "--seed", "3", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    bas = payload["metrics"]["BAS"]
    assert set(bas) == {"tau_sys", "tau_sum", "tau_pair", "tau_intra", "acc_pair"}
    assert bas["tau_intra"]["estimate"] == pytest.approx(0.2065, abs=1e-4)
    assert payload["metrics"]["GRN"]["tau_sys"]["estimate"] == pytest.approx(0.7794, abs=1e-4)
    for entry in bas.values():
        assert entry["ci_low"] <= entry["estimate"] <= entry["ci_high"] and entry["n_valid"] == 100
    assert bas["tau_pair"]["n_pairs"] == 13_600
    assert payload["bootstrap"] == {"mode": "both", "n_resamples": 100, "confidence_level": 0.95}
    assert payload["alignment"]["n_systems"] == 17 and payload["alignment"]["dropped"] == {"BAS": 0, "GRN": 0}


def test_cli_table_compare_and_bias_plot(root, tmp_path):
    out = tmp_path / "bias.png"
    result = run(
        "metaeval",
        "--human", str(root / "human.csv"),
        "--metric", f"RND={root / 'random.csv'}",
        "--metric", f"BAS={root / 'bartscore.csv'}",
        "--levels", "pair,acc", "--compare", "BAS,RND", "--permutations", "100", "--seed", "1",
        "--bias-matrix", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[2].split()[0] == "metric" and "τ_pair" in lines[2] and "Acc_pair" in lines[2]
    assert lines[4].split()[:3] == ["BAS", "+0.43", "+0.75"]
    assert "BAS vs RND" in result.output and "p ≤ 0.0099" in result.output  # no permutation beat it: 1/(R+1)
    assert out.stat().st_size > 10_000
    assert out.with_suffix(".svg").exists() and out.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"


def test_cli_custom_key_columns_and_mismatch_note(tmp_path):
    human = pd.DataFrame({"item": ["d1", "d1", "d1", "d2", "d2", "d2"], "engine": list("ABCABC")})
    human["gold"] = [5, 3, 1, 4, 5, 2]
    metric = human.rename(columns={"gold": "m"}).assign(m=[0.9, 0.4, 0.6, 0.5, 0.6, 0.5])
    metric.loc[len(metric)] = ["d3", "A", 0.1]
    human.to_csv(tmp_path / "h.csv", index=False)
    metric.to_csv(tmp_path / "m.csv", index=False)
    args = ["metaeval", "--human", str(tmp_path / "h.csv"), "--metric", f"M={tmp_path / 'm.csv'}"]
    args += ["--document-col", "item", "--system-col", "engine", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "note: metric 'M': 1 key(s) not in the human table were dropped" in result.stderr
    payload = json.loads(result.stdout)
    assert payload["metrics"]["M"]["tau_pair"]["estimate"] == pytest.approx(0.574915, abs=1e-6)
    strict = CliRunner().invoke(main, [*args, "--strict"])
    assert strict.exit_code == 2 and "strict" in strict.stderr


def test_cli_errors_are_one_line(root, tmp_path):
    result = run("metaeval", "--human", str(root / "human.csv"), "--metric", "BAS")
    assert result.exit_code == 2 and "NAME=FILE" in result.output
    result = run(
        "metaeval", "--human", str(root / "human.csv"), "--metric", f"B={root / 'bartscore.csv'}:nope"
    )
    assert result.exit_code == 2 and "no score column 'nope'" in result.output
    result = run(
        "metaeval",
        "--human",
        str(root / "human.csv"),
        "--metric",
        f"B={root / 'bartscore.csv'}",
        "--levels",
        "x",
    )
    assert result.exit_code == 2 and "unknown level" in result.output


def test_markdown_and_latex_bold_the_best_non_human(root):
    human = read_scores(root / "human.csv")
    metrics = {
        "HUM": human,
        "BAS": read_scores(root / "bartscore.csv"),
        "RND": read_scores(root / "random.csv"),
    }
    result = meta_evaluate(human, metrics, ("intra", "sys"))
    frame = results_table(result.table)
    assert list(frame.columns) == ["τ_intra", "τ_sys"] and list(frame.index) == ["HUM", "BAS", "RND"]
    assert frame.loc["HUM", "τ_sys"] == "+1.00"
    markdown = to_markdown(result.table)
    assert "| BAS | **+0.21** | **+0.72** |" in markdown and "| HUM | +1.00 | +1.00 |" in markdown
    latex = to_latex(result.table, caption="Kendall")
    assert r"\textbf{+0.21}" in latex and r"\caption{Kendall}" in latex
    assert np.isnan(result.table["ci_low"]).all()


def test_cli_per_system_constant_metric_is_undefined_within_systems(root, tmp_path):
    human = pd.read_csv(root / "human.csv")
    means = human.groupby("summarizer")["Qcoherence"].transform("mean")
    human.assign(ub=means)[["doc", "summarizer", "ub"]].to_csv(tmp_path / "ub.csv", index=False)
    args = ["metaeval", "--human", str(root / "human.csv"), "--metric", f"UB={tmp_path / 'ub.csv'}"]
    payload = json.loads(run(*args, "--json").output)["metrics"]["UB"]
    assert payload["tau_sys"]["estimate"] == pytest.approx(1.0)
    assert payload["tau_intra"]["estimate"] is None and payload["tau_intra"]["n_groups_used"] == 0
    table = run(*args).output.splitlines()
    assert table[3].split()[:2] == ["UB", "-"]


def test_cli_holm_adjusts_across_compared_pairs(root):
    args = ["metaeval", "--human", str(root / "human.csv"), "--levels", "sys", "--json", "--seed", "2"]
    for name, file in (("BAS", "bartscore"), ("GRN", "gruen"), ("RND", "random")):
        args += ["--metric", f"{name}={root / f'{file}.csv'}"]
    args += ["--compare", "BAS,RND", "--compare", "GRN,RND", "--permutations", "50", "--adjust", "holm"]
    payload = json.loads(run(*args).output)
    rows = [c["levels"][0] for c in payload["comparisons"]]
    low, high = sorted(rows, key=lambda r: r["p_unadj"])
    assert low["p_adj"] == pytest.approx(min(1, 2 * low["p_unadj"]))
    assert high["p_adj"] == pytest.approx(max(low["p_adj"], high["p_unadj"]))
    assert payload["comparisons"][0]["adjust"] == "holm"
