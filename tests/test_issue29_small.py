"""The smaller items of issue 29, each with its test."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from humaneval.analysis import analyze, fit_clmm
from humaneval.cli import main
from humaneval.errors import OptionError
from humaneval.io.datasets import wine, wine_ratings

WINE = "rating ~ temp + contact + (1|judge)"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# --- reference= in fit_clmm and analyze --------------------------------------------------------------


def test_fit_clmm_takes_a_reference_level_per_factor():
    fit = fit_clmm(wine(), formula=WINE, reference={"temp": "warm"})
    effects = fit.fixed_effects().set_index("term")["estimate"]
    assert effects["tempcold"] == pytest.approx(-3.0630, abs=2e-3)  # R: tempwarm 3.0630


def test_analyze_takes_a_reference_level_per_factor_and_the_cli_factor_equals_level(tmp_path):
    result = analyze(wine(), formula=WINE, reference={"temp": "warm"}, emm="temp")
    assert result.fit.reference is None and "tempcold" in result.fit.terms
    path = tmp_path / "wine.csv"
    wine().to_csv(path, index=False)
    out = run("analyze", str(path), "--formula", WINE, "--reference", "temp=warm", "--json")
    assert out.exit_code == 0, out.output
    terms = [r["term"] for r in json.loads(out.stdout)["criteria"][0]["fixed_effects"]]
    assert terms == ["tempcold", "contactyes"]


def test_a_factor_reference_without_a_formula_is_refused():
    with pytest.raises(OptionError, match="reference level for temp needs a formula"):
        fit_clmm(wine_ratings(), reference={"temp": "warm"})


# --- design: --summaries without --documents, --family nested with --annotators-per-block -------------


def test_design_reads_the_documents_from_the_summaries(tmp_path):
    summaries = tmp_path / "summaries.csv"
    rows = [f"d{d},{s},text {d}{s}" for d in range(4) for s in ("A", "B", "C")]
    summaries.write_text("document,system,text\n" + "\n".join(rows) + "\n")
    out = run(
        "design", "--summaries", str(summaries), "--docs-per-block", "2", "--out", str(tmp_path / "d.csv")
    )
    assert out.exit_code == 0, out.output
    design = json.loads((tmp_path / "d.json").read_text())
    documents = [d["id"] for d in design["spec"]["documents"]]
    assert documents == ["d0", "d1", "d2", "d3"]


def test_design_without_documents_or_summaries_says_what_to_give(tmp_path):
    out = run("design", "--out", str(tmp_path / "d.csv"))
    assert out.exit_code == 2 and "give --documents" in out.output


def test_nested_design_refuses_several_annotators_per_block(tmp_path):
    args = ("design", "--documents", "10", "--systems", "A,B", "--family", "nested", "--out")
    out = run(*args, str(tmp_path / "d.csv"), "--annotators-per-block", "3")
    assert out.exit_code == 2
    assert "--family nested has one annotator per block, not 3; use --family blocks" in out.output
    assert run(*args, str(tmp_path / "e.csv")).exit_code == 0
    assert run(*args, str(tmp_path / "f.csv"), "--annotators-per-block", "1").exit_code == 0


# --- collect mturk without a usable assignment, serve init with placeholder texts -------------------


def _design(tmp_path):
    out = run("design", "--documents", "10", "--systems", "A,B", "--out", str(tmp_path / "design.csv"))
    assert out.exit_code == 0, out.output
    return tmp_path / "design.csv"


def test_collect_mturk_names_the_first_problem_when_nothing_is_usable(tmp_path):
    design = _design(tmp_path)
    results = tmp_path / "batch.csv"
    results.write_text(
        "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,Answer.slot\n"
        "H1,A1,W1,Submitted,100,0\nH1,A2,W2,Submitted,100,0\n"
    )
    out = run("collect", "mturk", str(results), "--design", str(design), "--out", str(tmp_path / "r.csv"))
    assert out.exit_code == 2
    assert "no usable assignment; first problem: line 2 (A1): unknown_slot slot" in out.output
    assert "(and 1 more)" in out.output and "--json" not in out.output


def test_serve_init_has_the_placeholder_texts_it_suggests(tmp_path):
    design = _design(tmp_path).with_suffix(".json")
    bare = run("serve", "init", str(design), str(tmp_path / "s1"))
    assert bare.exit_code == 2 and "--placeholder-texts" in bare.output
    out = run("serve", "init", str(design), str(tmp_path / "s2"), "--placeholder-texts", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["slots"] > 0


# --- power's CLMM row, the 0.799 sentence of docs/simulation.md --------------------------------------


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
