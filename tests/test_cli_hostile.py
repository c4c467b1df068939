"""Hostile input, command by command: every bad input gets exit code 2 and ONE stderr line that names the
file or option and the fix; never a traceback, a hang, or exit 0 with a wrong number.

Three parts: a corpus of explicit bad inputs for every command; a seeded mutator over the real Likert
CSV of Steen & Markert (2021) whose successful runs are checked against an independent reading of the
mutated file; and the R environment broken in the ways it breaks in practice (in subprocesses).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.cli._checks import check_output_path
from humaneval.errors import BackendUnavailableError, OptionError, RatingsError

#: No case may hang: every test of this module fails after five minutes.
pytestmark = pytest.mark.timeout(300)


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_line_error(result, *fragments: str) -> str:
    """Exit code 2, nothing on stdout, exactly one ``error:`` line on stderr holding every fragment."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert result.stdout == ""
    return lines[0]


def assert_clean_warnings(result) -> list[str]:
    """Every stderr line of a successful run is one clean ``warning:``/``note:`` line, no source path."""
    lines = result.stderr.splitlines()
    for line in lines:
        assert line.startswith(("warning: ", "note: ")), line
        assert ".py:" not in line and "Warning:" not in line
    return lines


# ---------------------------------------------------------------- small valid inputs


def ratings_text(n_docs: int = 10, systems: str = "ABC", annotators: int = 3) -> str:
    """A crossed study with deterministic scores 1-5 where A > B > C on average."""
    rows = ["annotator,document,system,score"]
    for a in range(annotators):
        for d in range(n_docs):
            for k, s in enumerate(systems):
                rows.append(f"a{a},d{d},{s},{1 + (len(systems) - k + d + a) % 5}")
    return "\n".join(rows) + "\n"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    paths = {"root": root}
    paths["ratings"] = root / "ratings.csv"
    paths["ratings"].write_text(ratings_text())
    design = run("design", "--documents", 10, "--systems", "A,B", "--out", root / "design.csv")
    assert design.exit_code == 0, design.output
    paths["design"] = root / "design.json"
    paths["empty"] = root / "empty.csv"
    paths["empty"].write_text("")
    paths["binary"] = root / "binary.json"
    paths["binary"].write_bytes(bytes(range(128, 256)) * 4)
    paths["human"] = root / "human.csv"
    paths["human"].write_text("document,system,human\nd1,A,1\nd1,B,2\nd2,A,3\nd2,B,4\nd3,A,2\nd3,B,5\n")
    paths["metric"] = root / "metric.csv"
    paths["metric"].write_text("document,system,m\nd1,A,1\nd1,B,2\nd2,A,3\nd2,B,5\nd3,A,1\nd3,B,4\n")
    paths["texts"] = root / "texts.csv"
    paths["texts"].write_text(
        "document,system,source,summary\nd1,A,The cat sat.,The cat sat.\nd1,B,The cat sat.,A dog ran.\n"
    )
    paths["file"] = root / "afile.txt"
    paths["file"].write_text("not a folder\n")
    return paths


def fill(template: list[str], paths: dict[str, Path]) -> list[str]:
    return [part.format(**{k: str(v) for k, v in paths.items()}) for part in template]


# ---------------------------------------------------------------- output paths, before any work

#: Every command that writes, with the option that names what it writes.
WRITERS = [
    (["design", "--documents", "10", "--systems", "A,B", "--out", "{out}/d.csv"], "--out"),
    (["power", "--tests", "ttest", "--trials", "5", "--out", "{out}/run"], "--out"),
    (["forms", "{design}", "--placeholder-texts", "--out", "{out}/forms"], "--out"),
    (["collect", "mturk", "{empty}", "--design", "{design}", "--out", "{out}/r.csv"], "--out"),
    (["collect", "mturk", "{empty}", "--design", "{design}", "--out", "{root}/r.csv", "--table",
      "{out}/t.csv"], "--table"),
    (["collect", "mturk", "{empty}", "--design", "{design}", "--out", "{root}/r.csv", "--grant-out",
      "{out}/g.txt"], "--grant-out"),
    (["collect", "prolific", "{root}", "--out", "{out}/r.csv"], "--out"),
    (["collect", "prolific", "{root}", "--out", "{root}/r.csv", "--participants", "{out}/p.csv"],
     "--participants"),
    (["report", "{ratings}", "--out", "{out}/report"], "--out"),
    (["metaeval", "--human", "{human}", "--metric", "M={metric}", "--bias-matrix", "{out}/b.png"],
     "--bias-matrix"),
    (["metaeval", "--human", "{human}", "--metric", "M={metric}", "--intra-plot", "{out}/i.png"],
     "--intra-plot"),
    (["score", "faithfulness", "{texts}", "--backend", "lexical", "--out", "{out}/f.csv"], "--out"),
    (["score", "coherence", "{texts}", "--measure", "repeated-ngrams", "--out", "{out}/c.csv"], "--out"),
    (["score", "bias", "{texts}", "--out", "{out}/b.csv"], "--out"),
    (["serve", "init", "{design}", "{out}/study"], "STUDY_DIR"),
    (["serve", "backup", "{root}", "{out}/b.sqlite"], "OUT"),
    (["demo", "--out", "{out}/demo"], "--out"),
]  # fmt: skip


@pytest.mark.parametrize("kind", ["missing", "file"])
@pytest.mark.parametrize("template,option", WRITERS, ids=[" ".join(w[0][:2]) + " " + w[1] for w in WRITERS])
def test_output_under_a_missing_folder_or_a_file_fails_first(inputs, template, option, kind):
    parent = inputs["root"] / "no" / "such" if kind == "missing" else inputs["file"]
    args = fill(template, {**inputs, "out": parent})
    line = assert_one_line_error(run(*args), option)
    if kind == "missing":
        assert f"the folder {parent} does not exist; create it first" in line
        assert not (inputs["root"] / "no").exists()  # nothing created on the way
    else:
        assert f"{inputs['file']} is a file, not a folder; choose another path" in line


def test_output_that_is_a_folder_or_a_file_in_the_wrong_place(inputs):
    line = assert_one_line_error(
        run("design", "--documents", 10, "--systems", "A,B", "--out", inputs["root"]), "--out"
    )
    assert "is a folder; give a file path" in line
    line = assert_one_line_error(
        run("forms", inputs["design"], "--placeholder-texts", "--out", inputs["file"])
    )
    assert line == f"error: --out {inputs['file']}: is a file, not a folder; give a folder path"


def test_check_output_path_api(tmp_path):
    assert check_output_path(tmp_path / "x.csv") == tmp_path / "x.csv"
    assert check_output_path(tmp_path / "new", folder=True) == tmp_path / "new"
    with pytest.raises(OptionError, match="does not exist"):
        check_output_path(tmp_path / "a" / "b.csv")
    os.chmod(tmp_path, 0o500)
    try:
        if os.access(tmp_path, os.W_OK):  # root writes anywhere
            return
        with pytest.raises(OptionError, match="not writable"):
            check_output_path(tmp_path / "x.csv")
    finally:
        os.chmod(tmp_path, 0o700)


def test_report_fails_before_the_analysis(inputs):
    """No progress line: a bad --out, --design or --power-trials stops report before it analyses."""
    base = ["report", inputs["ratings"], "--out", inputs["root"] / "rep"]
    assert_one_line_error(run(*base, "--design", inputs["ratings"]), "not a design table", "design.csv")
    assert_one_line_error(run(*base, "--design", inputs["binary"]), "not valid UTF-8")
    assert_one_line_error(run(*base, "--power-trials", "-1"), "'--power-trials'", "-1", "x>=0")
    assert_one_line_error(run(*base, "--preset", inputs["binary"]), "not valid UTF-8")
    assert not (inputs["root"] / "rep").exists()


# ---------------------------------------------------------------- the corpus of explicit bad inputs

CORPUS = [
    # design: sizes and options in range
    (["design", "--documents", "100000000", "--systems", "A,B", "--out", "{root}/d1.csv"],
     ["100000000 documents", "at most 20000", "split"]),
    (["design", "--documents", "0", "--systems", "A,B", "--out", "{root}/d1.csv"], ["at least 1"]),
    (["design", "--documents", "10", "--systems", "A", "--out", "{root}/d1.csv"], ["at least 2 systems"]),
    (["design", "--documents", "10", "--systems", "A,A", "--out", "{root}/d1.csv"], ["occurs twice"]),
    (["design", "--documents", "10", "--systems", "A,B", "--scale-points", "1", "--out", "{root}/d1.csv"],
     ["'--scale-points'", "2<=x<=1001"]),
    (["design", "--documents", "10", "--systems", "A,B", "--fee-rate", "2", "--out", "{root}/d1.csv"],
     ["'--fee-rate'", "0<=x<1"]),
    (["design", "--documents", "10", "--systems", "A,B", "--fee-rate", "nan", "--out", "{root}/d1.csv"],
     ["'--fee-rate'", "not a finite number"]),
    (["design", "--documents", "10", "--systems", "A,B", "--wage", "inf", "--out", "{root}/d1.csv"],
     ["'--wage'", "inf is not in the range 0<=x<=10000"]),
    (["design", "--documents", "10", "--systems", "A,B", "--seconds-overhead", "nan", "--out",
      "{root}/d1.csv"],
     ["'--seconds-overhead'", "not a finite number"]),
    (["design", "--documents", "10", "--systems", "A,B", "--docs-per-block", "0", "--out", "{root}/d1.csv"],
     ["'--docs-per-block'", "x>=1"]),
    (["design", "--documents", "10", "--systems", "A,B", "--overrecruit", "-0.5", "--out", "{root}/d1.csv"],
     ["'--overrecruit'"]),
    (["design", "--documents", "{empty}", "--systems", "A,B", "--out", "{root}/d1.csv"],
     ["empty.csv", "empty"]),
    (["design", "--documents", "10", "--summaries", "{root}", "--out", "{root}/d1.csv"], ["is a folder"]),
    # forms
    (["forms", "{design}", "--placeholder-texts", "--reward", "-1", "--out", "{root}/f1"],
     ["--reward '-1'", "positive amount", "1.80"]),
    (["forms", "{design}", "--placeholder-texts", "--reward", "1.805", "--out", "{root}/f1"], ["--reward"]),
    (["forms", "{design}", "--placeholder-texts", "--reward", "nan", "--out", "{root}/f1"], ["--reward"]),
    (["forms", "{design}", "--placeholder-texts", "--preset", "{binary}", "--out", "{root}/f1"],
     ["binary.json", "not valid UTF-8"]),
    (["forms", "{design}", "--placeholder-texts", "--preset", "{root}", "--out", "{root}/f1"],
     ["is a folder"]),
    (["forms", "{design}", "--placeholder-texts", "--preset", "nosuchpreset", "--out", "{root}/f1"],
     ["unknown preset"]),
    (["forms", "{empty}", "--placeholder-texts", "--out", "{root}/f1"], ["empty.csv", "empty"]),
    (["forms", "{binary}", "--placeholder-texts", "--out", "{root}/f1"], ["binary.json"]),
    (["forms", "{design}", "--placeholder-texts", "--minutes", "0", "--out", "{root}/f1"], ["'--minutes'"]),
    # collect
    (["collect", "mturk", "{empty}", "--design", "{design}", "--out", "{root}/r.csv"],
     ["empty.csv: the file is empty", "download"]),
    (["collect", "mturk", "{binary}", "--design", "{design}", "--out", "{root}/r.csv"], ["binary.json"]),
    (["collect", "mturk", "{root}", "--design", "{design}", "--out", "{root}/r.csv"], ["is a folder"]),
    (["collect", "prolific", "{empty}", "--out", "{root}/r.csv"], ["not an SQLite database"]),
    (["collect", "prolific", "{root}/nowhere", "--out", "{root}/r.csv"], ["no such study database"]),
    # validate / analyze / reliability: ratings that would give silently wrong numbers
    (["validate", "{ratings}", "--column", "document=nope"], ["no column 'nope' to use as 'document'"]),
    (["validate", "{ratings}", "--column", "doc=document"], ["'doc' is not a column humaneval reads"]),
    (["validate", "{ratings}", "--column", "annotator"], ["write CANONICAL=NAME"]),
    (["validate", "{ratings}", "--scale", "7-1"], ["low end must be below"]),
    (["validate", "{ratings}", "--scale", "1-3"], ["outside the declared scale 1-3"]),
    (["validate", "{empty}"], ["empty.csv: the file is empty"]),
    (["validate", "{binary}"], ["not valid UTF-8"]),
    (["analyze", "{root}"], ["is a folder"]),
    (["analyze", "{ratings}", "--column", "system=nope"], ["no column 'nope'"]),
    (["reliability", "{ratings}", "--scale", "2-5"], ["outside the declared scale 2-5"]),
    (["report", "{ratings}", "--clmm-power-trials", "-2", "--out", "{root}/rep"], ["'--clmm-power-trials'"]),
    # metaeval
    (["metaeval", "--human", "{human}", "--metric", "M={root}/allnan.csv"],
     ["metric 'M'", "scores 0 of the 6"]),
    (["metaeval", "--human", "{human}", "--metric", "M={root}/otherkeys.csv"],
     ["metric 'M'", "scores 0 of the 6", "2 with a key not in the human table"]),
    (["metaeval", "--human", "{human}", "--metric", "M={root}/infinite.csv"],
     ["infinite.csv, line 3", "'inf' is not a finite score"]),
    (["metaeval", "--human", "{root}/allnan.csv", "--metric", "M={metric}"], ["allnan.csv", "human score"]),
    (["metaeval", "--human", "{human}", "--metric", "M={empty}"], ["empty.csv"]),
    (["metaeval", "--human", "{human}", "--metric", "M"], ["write NAME=FILE"]),
    # negative seeds (numpy used to raise "expected non-negative integer" deep inside)
    (["analyze", "{ratings}", "--test", "art", "--seed", "-1"], ["'--seed'", "x>=0"]),
    (["reliability", "{ratings}", "--seed", "-1"], ["'--seed'", "x>=0"]),
    (["report", "{ratings}", "--seed", "-1", "--out", "{root}/rep"], ["'--seed'", "x>=0"]),
    (["power", "--seed", "-1"], ["'--seed'", "x>=0"]),
    (["metaeval", "--human", "{human}", "--metric", "M={metric}", "--seed", "-1"], ["'--seed'", "x>=0"]),
    (["score", "bias", "{texts}", "--seed", "-1"], ["'--seed'", "x>=0"]),
    (["demo", "--seed", "-1", "--out", "{root}/demo"], ["'--seed'", "x>=0"]),
    (["power", "--target", "0.8", "--seconds-per-judgement", "0"], ["'--seconds-per-judgement'"]),
    (["power", "--trials", "0"], ["'--trials'", "x>=1"]),
    (["power", "--model-file", "{binary}"], ["binary.json"]),
    (["power", "--design", "garbage"], ["garbage"]),
    (["power", "--tests", ""], ["--tests ''", "name at least one"]),
    (["power", "--aggregate", " , "], ["--aggregate ' , '", "name at least one"]),
    (["power", "--effect-scale", "inf"], ["'--effect-scale'", "not a finite number"]),
    # sizes that overflowed or exhausted memory (found by fuzzing every numeric option)
    (["design", "--documents", "10", "--systems", "A,B", "--annotators-per-block", "99999999999999999999",
      "--out", "{root}/d1.csv"], ["judgements; one design holds at most 500000"]),
    (["design", "--documents", "10", "--systems", "A,B", "--scale-points", "99999999999999999999", "--out",
      "{root}/d1.csv"], ["'--scale-points'"]),
    (["design", "--documents", "10", "--systems", "A,B", "--seconds-per-screen", "1e308", "--out",
      "{root}/d1.csv"], ["'--seconds-per-screen'", "0<x<=86400"]),
    (["design", "--documents", "10", "--systems", "A,B", "--wage", "1e308", "--out", "{root}/d1.csv"],
     ["'--wage'"]),
    (["design", "--documents", "10", "--systems", "A,B", "--overrecruit", "1e308", "--out", "{root}/d1.csv"],
     ["'--overrecruit'"]),
    (["forms", "{design}", "--placeholder-texts", "--minutes", "1e308", "--out", "{root}/f1"],
     ["'--minutes'"]),
    (["reliability", "{ratings}", "--resamples", "99999999999999999999"], ["'--resamples'"]),
    (["metaeval", "--human", "{human}", "--metric", "M={metric}", "--resamples", "99999999999999999999"],
     ["'--resamples'"]),
    (["metaeval", "--human", "{human}", "--metric", "M={metric}", "--levels", ""],
     ["--levels ''", "no level"]),
    (["metaeval", "--human", "{human}", "--metric", "M={metric}", "--bias-matrix", "{root}/plot.5"],
     ["--bias-matrix", "write a .png"]),
    # serve and score
    (["serve", "{root}/nowhere"], ["no study.sqlite here", "serve init"]),
    (["serve", "backup", "{root}/nowhere", "{root}/b.sqlite"], ["no study.sqlite here"]),
    (["score", "faithfulness", "{texts}", "--backend", "nli"], ["no NLI model configured", "lexical"]),
    (["score", "coherence", "{texts}", "--builder", "spacy", "--spacy-model", "nosuch"],
     ["'nosuch' is not installed"]),
    (["score", "bias", "{texts}", "--name-table", "{texts}"], ["needs columns name and group"]),
    (["score", "coherence", "{human}"], ["human.csv", "missing column(s)"]),
    # click usage errors, normally three lines
    (["validate"], ["missing argument 'RATINGS'", "--help"]),
    (["validate", "{ratings}", "--nosuch"], ["no such option", "--help"]),
    (["nosuchcommand"], ["no such command", "--help"]),
    (["design", "--documents", "10", "--systems", "A,B", "--docs-per-block", "x", "--out", "{root}/d.csv"],
     ["'--docs-per-block'", "not a valid integer"]),
    (["analyze", "{ratings}", "--engine", "julia"], ["'--engine'"]),
    # issue 47: one cluster, judge scores PPI cannot use, budgets past any study
    (["ppi", "{ppi_one_block}", "--judge-file", "{ppi_judge}", "--cluster", "block"],
     ["form 1 block(s)", "one cluster gives no variance", "--cluster document"]),
    (["ppi", "{ppi_human}", "--judge-file", "{ppi_judge_inf}"],
     ["ppi_judge_inf.csv", "inf", "not a finite number"]),
    (["ppi", "{ppi_human}", "--judge-file", "{ppi_judge_neginf}"],
     ["ppi_judge_neginf.csv", "-inf", "not a finite number"]),
    (["ppi", "{ppi_human}", "--judge-file", "{ppi_judge_flat}"], ["constant judge carries no information"]),
    (["ppi", "{ppi_human}", "--judge-file", "{ppi_judge_huge}"], ["beyond ±1e+12", "rescale"]),
    (["budget", "--judge-pilot", "{ppi_human}", "--judge-file", "{ppi_judge_inf}", "--target-width", "0.3"],
     ["ppi_judge_inf.csv", "inf", "not a finite number"]),
    (["budget", "--judge-correlation", "0.5", "--sd", "1", "--target-width", "1e-4"],
     ["needs more than 10,000,000 human-rated units"]),
    (["budget", "--judge-correlation", "0.5", "--sd", "1e200", "--target-width", "0.3"],
     ["--sd 1e+200 is out of range"]),
    (["budget", "--judge-correlation", "0.5", "--sd", "1", "--target", "0.8", "--effect", "1e200"],
     ["--effect 1e+200 is out of range"]),
    (["budget", "--judge-correlation", "0.5", "--sd", "1e-200", "--target-width", "0.3"],
     ["--sd 1e-200 is out of range"]),
    (["design", "--documents", "10", "--judge-scores", "{ppi_judge_formula}", "--docs-per-block", "5",
      "--out", "{root}/eq.csv"], ["document id '=d0000'"]),
    (["mturk", "bonus", "{mturk_no_amount}"], ["missing amount"]),
    (["mturk", "bonus", "{mturk_no_amount}", "--execute"], ["missing amount"]),
    # issue 45: every command of `humaneval --help` has cases (test_every_command_has_hostile_cases)
    (["compare-runs", "{empty}", "{ratings}"], ["empty.csv: the file is empty"]),
    (["compare-runs", "{one_system}", "{one_system}"], ["at least two systems"]),
    (["heds", "{deep_json}"], ["deep.json", "nested too deeply"]),
    (["heds", "{binary}"], ["binary.json", "not a readable JSON file"]),
    (["judge", "{empty}"], ["empty.csv: the file is empty"]),
    (["judge", "{ratings}"], ["no judge", "--judge-file"]),
    (["qc", "{empty}"], ["empty.csv: the file is empty"]),
    (["ranks", "{ranks_nan}"], ["ranks_nan.csv: row 3, column 'estimate'", "'nan' is not a finite number"]),
    (["ranks", "{ranks_inf}"], ["ranks_inf.csv: row 3, column 'se'", "'inf' is not a finite number"]),
    (["ranks", "{ranks_dup}"], ["ranks_dup.csv: row 3", "name 'A' appears twice"]),
    (["score", "ffci", "{empty}"], ["empty.csv: the file is empty"]),
    (["collect", "summeval", "{deep_json}", "--out", "{root}/s.csv"],
     ["deep.json: line 1", "nested too deeply"]),
    (["mturk", "create", "{root}/nowhere"], ["no hits/<hit>/hit_params.json here", "humaneval forms"]),
    (["mturk", "exclusion", "X", "--aws-profile", "nosuchprofile"],
     ["'nosuchprofile'", "no such AWS profile"]),
    (["mturk", "fetch", "{root}/nowhere", "--design", "{design}", "--out", "{root}/m.csv"],
     ["no mturk_hits.json", "mturk create"]),
    (["mturk", "grant", "Q1", "{root}/nowhere.txt"], ["nowhere.txt: no such file"]),
    (["mturk", "review", "{root}/nowhere", "--design", "{design}"], ["no mturk_hits.json"]),
    (["prolific", "create", "{root}/nowhere", "--serve-url", "https://x.org"],
     ["neither a study folder", "nor a design.json"]),
    (["prolific", "create", "{root}/nowhere", "--serve-url", "https://x.org", "--filter", "{{"],
     ["--filter: not JSON"]),
    (["prolific", "publish", "{root}/nowhere", "--execute"], ["no study.sqlite here", "serve init"]),
    (["prolific", "pause", "{root}/nowhere"], ["no study.sqlite here"]),
    (["prolific", "resume", "{root}/nowhere"], ["no study.sqlite here"]),
    (["prolific", "stop", "{root}/nowhere"], ["no study.sqlite here"]),
    (["prolific", "status", "{root}/nowhere"], ["no study.sqlite here"]),
    (["prolific", "submissions", "{root}/nowhere"], ["no study.sqlite here"]),
    (["prolific", "review", "{root}/nowhere", "--execute", "--reopen"], ["no study.sqlite here"]),
    (["prolific", "export", "{root}/nowhere", "--out", "{root}/demo.csv"], ["no study.sqlite here"]),
    (["prolific", "bonus", "{empty}", "{root}/nowhere"], ["empty.csv: the file is empty"]),
    (["serve", "init", "{binary}", "{root}/s1"], ["binary.json", "not valid UTF-8"]),
    (["serve", "run", "{root}/nowhere"], ["no study.sqlite here"]),
    (["serve", "set-study-id", "{root}/nowhere", "x"], ["no study.sqlite here"]),
]  # fmt: skip


@pytest.fixture(scope="module")
def corpus_inputs(inputs) -> dict[str, Path]:
    root = inputs["root"]
    (root / "allnan.csv").write_text("document,system,m\nd1,A,\nd1,B,\nd2,A,\n")
    (root / "otherkeys.csv").write_text("document,system,m\nx1,A,1\nx1,B,2\n")
    (root / "infinite.csv").write_text("document,system,m\nd1,A,1\nd1,B,inf\nd2,A,3\nd2,B,4\n")
    from humaneval.ppi.simulate import judged_study

    human, judge = judged_study(n_documents=20, n_systems=2, human_share=0.5, seed=1)
    ppi = {
        "ppi_human": human,
        "ppi_one_block": human.assign(annotator="a1"),
        "ppi_judge": judge,
        "ppi_judge_inf": judge.assign(score=judge["score"].where(judge.index != 0, math.inf)),
        "ppi_judge_neginf": judge.assign(score=judge["score"].where(judge.index != 1, -math.inf)),
        "ppi_judge_flat": judge.assign(score=3.0 + 1e-14 * (judge.index % 2)),
        "ppi_judge_huge": judge.assign(score=judge["score"] * 1e200),
        "ppi_judge_formula": judge.assign(document="=" + judge["document"]),
    }
    for name, frame in ppi.items():
        inputs[name] = root / f"{name}.csv"
        frame.to_csv(inputs[name], index=False)
    hostile = {
        "deep_json": ("deep.json", "[" * 100_000 + "\n"),
        "ranks_nan": ("ranks_nan.csv", "name,estimate,se\nA,1,0.1\nB,nan,0.1\n"),
        "ranks_inf": ("ranks_inf.csv", "name,estimate,se\n=A,1,0.1\nB,2,inf\n"),
        "ranks_dup": ("ranks_dup.csv", "name,estimate,se\nA,1,0.1\nA,2,0.1\n"),
        "one_system": ("one_system.csv", "annotator,document,system,score\na1,d1,A,3\na1,d2,A,4\n"),
    }
    for name, (file, text) in hostile.items():
        inputs[name] = root / file
        inputs[name].write_text(text)
    inputs["mturk_no_amount"] = root / "mturk_no_amount.csv"
    inputs["mturk_no_amount"].write_text("assignment_id,bonus,reason\nA1,1.00,thanks\n")
    return inputs


@pytest.mark.timeout(120)
@pytest.mark.parametrize("template,fragments", CORPUS, ids=[" ".join(c[0][:4]) for c in CORPUS])
def test_corpus(corpus_inputs, template, fragments):
    assert_one_line_error(run(*fill(template, corpus_inputs)), *fragments)
    assert not (corpus_inputs["root"] / "eq.probabilities.csv").exists()  # nothing written before a refusal


def test_scores_beyond_int64_are_refused_not_wrapped(tmp_path):
    """1e308, 1e19 and 12345678901234567890 used to wrap to -9.22e18 and become the lowest category."""
    for value in ("1e308", "1e19", "12345678901234567890", "-1e19"):
        path = tmp_path / "r.csv"
        lines = ratings_text().splitlines()
        lines[1] = f"a0,d0,A,{value}"
        path.write_text("\n".join(lines) + "\n")
        for command in ("validate", "analyze", "reliability"):
            assert_one_line_error(run(command, path), f"score {value} at line 2 is too large to be a rating")


@pytest.mark.parametrize("value", ["99", "0", "-3"])
def test_a_stray_value_warns_or_is_refused_with_a_declared_scale(tmp_path, value):
    lines = ratings_text().splitlines()
    lines[5] = lines[5].rsplit(",", 1)[0] + f",{value}"
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n")
    result = run("validate", path, "--json")
    assert result.exit_code == 0
    (warning,) = assert_clean_warnings(result)
    assert warning == (
        f"warning: {path}: score {value} at line 6 lies outside the range 1-5 of the other 89 scores and "
        "widens the inferred scale; fix the value, or declare the scale with --scale 1-5"
    )
    assert json.loads(result.stdout)["scale"] == sorted([1.0, 5.0, float(value)])[::2]
    assert_one_line_error(
        run("validate", path, "--scale", "1-5"), f"score {value} at line 6", "outside the declared"
    )


def test_a_corrupted_system_id_warns(tmp_path):
    lines = ratings_text().splitlines()
    lines[7] = lines[7].replace(",A,", ",AA,")
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n")
    result = run("validate", path)
    assert result.exit_code == 0
    (warning,) = assert_clean_warnings(result)
    assert "system 'AA' has only 1 rating(s) (at line 8) where the other systems have about" in warning


def test_clean_data_gets_no_warning(inputs):
    result = run("validate", inputs["ratings"])
    assert result.exit_code == 0 and result.stderr == ""


def test_python_warnings_are_one_clean_line(tmp_path):
    """A dropped missing rating used to print '.../cli/_common.py:64: ReliabilityWarning' and a code line."""
    lines = ratings_text().splitlines()
    lines[3] = lines[3].rsplit(",", 1)[0] + ","
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n")
    result = run("validate", path, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["n_ratings"] == 89
    assert assert_clean_warnings(result) == [f"warning: {path}: dropped 1 rows with a missing score"]
    proc = subprocess.run(
        [sys.executable, "-m", "humaneval", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and proc.stderr == f"warning: {path}: dropped 1 rows with a missing score\n"


def test_truncated_study_database(tmp_path, inputs):
    (tmp_path / "docs.csv").write_text("document,text\nn1,One.\nn2,Two.\n")
    (tmp_path / "sums.csv").write_text("document,system,text\nn1,A,a1.\nn1,B,b1.\nn2,A,a2.\nn2,B,b2.\n")
    files = ["--documents", tmp_path / "docs.csv", "--summaries", tmp_path / "sums.csv"]
    made = run(
        "design", *files, "--docs-per-block", 1, "--annotators-per-block", 1, "--out", tmp_path / "d.csv"
    )
    assert made.exit_code == 0, made.output
    assert run("serve", "init", tmp_path / "d.json", tmp_path / "st").exit_code == 0
    whole = (tmp_path / "st" / "study.sqlite").read_bytes()
    for size in (100, 4096, len(whole) // 2):
        (tmp_path / "cut.sqlite").write_bytes(whole[:size])
        line = assert_one_line_error(
            run("collect", "prolific", tmp_path / "cut.sqlite", "--out", tmp_path / "r.csv")
        )
        assert "cut.sqlite" in line and ("damaged" in line or "not an SQLite database" in line)


@pytest.mark.parametrize(
    "args",
    [
        ["design", "--documents", "100000000", "--systems", "A,B", "--out", "{root}/big.csv"],
        ["design", "--documents", "20001", "--systems", "A,B", "--out", "{root}/big.csv"],
    ],
)
def test_no_hang(inputs, args):
    """Sizes that used to hang are refused at once (in a subprocess, so a hang cannot take the suite)."""
    proc = subprocess.run(
        [sys.executable, "-m", "humaneval", *fill(args, inputs)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "one design holds at most 20000" in proc.stderr


# ---------------------------------------------------------------- seeded mutations of the real Likert CSV

HOSTILE_VALUES = [
    "99", "0", "-3", "1e308", "1e19", "12345678901234567890", "nan", "inf", "-inf", "", "abc", "3.5",
    " 7 ", "1e2", "0x10", "\u0663", "+5", "5e-1", "4.0", "NULL", "'4", "2,5",
]  # fmt: skip


def mutate(text: str, rng: random.Random) -> tuple[bytes, str]:
    """One hostile edit of the CSV text: the bytes to write and what was done."""
    lines = text.splitlines()
    i = rng.randrange(1, len(lines))
    fields = lines[i].split(",")
    kind = rng.choice(
        ["score", "score", "score", "system", "annotator", "short", "long", "truncate", "byte", "duplicate",
         "header", "semicolon", "header-only", "crlf-bom", "swap-columns", "blank-line"]
    )  # fmt: skip
    if kind == "score":
        fields[-1] = rng.choice(HOSTILE_VALUES)
        lines[i] = ",".join(fields)
    elif kind == "system":
        fields[2] = fields[2][: rng.randrange(1, len(fields[2]) + 1)] + rng.choice(["", "x", " ", "_"])
        lines[i] = ",".join(fields)
    elif kind == "annotator":
        fields[0] = ""
        lines[i] = ",".join(fields)
    elif kind == "short":
        lines[i] = ",".join(fields[: rng.randrange(1, len(fields))])
    elif kind == "long":
        lines[i] = lines[i] + ",extra"
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "header":
        lines[0] = lines[0].replace(rng.choice(["score", "system", "document", "annotator"]), "scroe")
    elif kind == "semicolon":
        lines[i] = lines[i].replace(",", ";", 1)
    elif kind == "header-only":
        lines = lines[:1]
    elif kind == "swap-columns":
        fields[1], fields[2] = fields[2], fields[1]
        lines[i] = ",".join(fields)
    elif kind == "blank-line":
        lines.insert(i, "")
    data = ("\n".join(lines) + "\n").encode()
    if kind == "truncate":
        data = data[: rng.randrange(len(lines[0]) + 2, len(data))]
    elif kind == "byte":
        at = rng.randrange(len(data))
        data = data[:at] + b"\xff" + data[at:]
    elif kind == "crlf-bom":
        data = b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")
    return data, kind


NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)


def expected(data: bytes, continuous: bool = False) -> pd.DataFrame | None:
    """An independent reading of a mutated file (csv module, no humaneval): the rows that must be analysed,
    or None when the file must be refused."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], [r for r in rows[1:] if r]
    if set(header) != {"annotator", "document", "system", "corpus", "score"} or not body:
        return None
    if any(len(r) > len(header) for r in body):
        return None
    padded = [[c.strip() for c in r] + [""] * (len(header) - len(r)) for r in body]
    records = [dict(zip(header, r, strict=True)) for r in padded]
    frame = pd.DataFrame(records)
    if (frame[["annotator", "document", "system"]] == "").any().any():
        return None
    frame = frame[frame["score"] != ""].copy()
    if not all(NUMBER.fullmatch(v) for v in frame["score"]):
        return None
    values = frame["score"] = frame["score"].astype(float)
    if frame.empty or not values.map(math.isfinite).all():
        return None
    if not continuous and ((values != values.round()).any() or (values.abs() > 2**53).any()):
        return None
    if frame.duplicated(["annotator", "document", "system"]).any():
        return None
    return frame


def check_mutant(result, path: Path, data: bytes, command: str) -> None:
    """The oracle: exit 2 with one line naming the file, or exit 0 with the right numbers (and a warning
    whenever the data look corrupted)."""
    continuous = command == "metaeval"  # human scores may be means or sliders
    want = expected(data, continuous)
    if result.exit_code == 2:
        line = assert_one_line_error(result)
        assert path.name in line or command == "analyze", line  # a failed fit names no file
        if want is not None and command == "validate":
            pytest.fail(f"refused a valid file: {line}")
        return
    assert result.exit_code == 0, (result.exit_code, result.output)
    assert want is not None, f"accepted a file that must be refused ({command})"
    warnings = "\n".join(assert_clean_warnings(result))
    counts = want["system"].value_counts()
    if command == "validate":
        payload = json.loads(result.stdout)
        assert payload["n_ratings"] == len(want)
        assert payload["scale"] == [want["score"].min(), want["score"].max()]
        assert payload["n_systems"] == want["system"].nunique()
        assert payload["n_annotators"] == want["annotator"].nunique()
    elif command == "analyze":
        groups = {g["system"]: g["mean"] for g in json.loads(result.stdout)["criteria"][0]["groups"]}
        means = want.groupby("system")["score"].mean()
        assert groups == pytest.approx(means.to_dict())
    if not continuous and (want["score"].min() < 1 or want["score"].max() > 7):
        assert "widens the inferred scale" in warnings
    if counts.min() <= 5:
        assert f"system {counts.idxmin()!r} has only" in warnings


@pytest.fixture
def likert_text(likert_path) -> str:
    """The shared Likert CSV (the test skips when it is absent)."""
    return likert_path.read_text(encoding="utf-8")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", range(60))
def test_mutated_likert_validate(likert_text, tmp_path, seed):
    data, _ = mutate(likert_text, random.Random(seed))
    path = tmp_path / f"mutant{seed}.csv"
    path.write_bytes(data)
    check_mutant(run("validate", path, "--json"), path, data, "validate")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", range(100, 116))
def test_mutated_likert_analyze(likert_text, tmp_path, seed):
    data, _ = mutate(likert_text, random.Random(seed))
    path = tmp_path / f"mutant{seed}.csv"
    path.write_bytes(data)
    result = run("analyze", path, "--engine", "native", "--structure", "intercepts", "--json")
    check_mutant(result, path, data, "analyze")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", range(200, 208))
def test_mutated_likert_reliability_and_metaeval(likert_text, tmp_path, seed):
    data, _ = mutate(likert_text, random.Random(seed))
    path = tmp_path / f"mutant{seed}.csv"
    path.write_bytes(data)
    check_mutant(run("reliability", path, "--resamples", 0, "--splits", 10), path, data, "reliability")
    metric = tmp_path / "metric.csv"
    frame = (
        pd.read_csv(io.StringIO(likert_text)).groupby(["document", "system"], as_index=False)["score"].mean()
    )
    frame.rename(columns={"score": "mean"}).to_csv(metric, index=False)
    result = run("metaeval", "--human", path, "--metric", f"MEAN={metric}", "--levels", "sys,sum", "--json")
    check_mutant(result, path, data, "metaeval")


# ---------------------------------------------------------------- the R environment, broken


def run_subprocess(env: dict[str, str], *args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "humaneval", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )


#: Ways R is missing or broken (None removes the variable), and the reason the one line must give.
BROKEN_R = [
    ({"R_HOME": "/nonexistent"}, "R_HOME=/nonexistent is not a folder"),
    ({"R_HOME": "/tmp"}, "R did not start (Fatal error: unable to open the base package)"),
    ({"PATH": "/nonexistent", "R_HOME": None}, "R did not start"),
]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("env,reason", BROKEN_R, ids=["R_HOME-missing", "R_HOME-not-R", "no-R-on-PATH"])
def test_broken_r_gives_the_hint_or_the_native_fallback(inputs, env, reason):
    full = {k: v for k, v in os.environ.items() if k != "HUMANEVAL_R_PROBED"}
    for key, value in env.items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value

    def go(*args):
        call = [sys.executable, "-m", "humaneval", *map(str, args)]
        return subprocess.run(call, capture_output=True, text=True, timeout=300, env=full)

    strict = go("analyze", inputs["ratings"], "--engine", "r")
    assert strict.returncode == 2 and strict.stdout == ""
    (line,) = strict.stderr.splitlines()
    assert line.startswith("error: R engine unavailable: ") and reason in line and "apt-get install" in line
    problem = line.removeprefix("error: R engine unavailable: ").split("; install R with")[0]
    auto = go("analyze", inputs["ratings"], "--structure", "intercepts")
    assert auto.returncode == 0, auto.stderr
    said = auto.stderr.splitlines()  # the default engine is native: R is not even looked for
    assert problem and all(line.startswith("warning: ") for line in said) and "R engine" not in auto.stderr
    assert "native engine" in auto.stdout
    report = go("report", inputs["ratings"], "--engine", "r", "--out", inputs["root"] / "rep-r")
    assert report.returncode == 2 and report.stderr.splitlines() == [
        line.replace('engine="native"', "--engine native")
    ]
    assert not (inputs["root"] / "rep-r").exists()


def test_r_probe_api(monkeypatch):
    from humaneval.clmm import renv

    monkeypatch.setenv("R_HOME", "/nonexistent")
    monkeypatch.delenv("HUMANEVAL_R_PROBED", raising=False)
    renv.r_problem.cache_clear()
    try:
        assert renv.r_problem() == "R_HOME=/nonexistent is not a folder"
        with pytest.raises(BackendUnavailableError, match="R engine unavailable: R_HOME=/nonexistent is not"):
            renv.require_r("install R")
    finally:
        renv.r_problem.cache_clear()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("seed", range(300, 304))
def test_mutated_likert_report(likert_text, tmp_path, seed):
    data, _ = mutate(likert_text, random.Random(seed))
    path = tmp_path / f"mutant{seed}.csv"
    path.write_bytes(data)
    args = ["--engine", "native", "--power-trials", 0, "--clmm-power-trials", 0, "--json"]
    result = run("report", path, *args, "--out", tmp_path / "report")
    check_mutant(result, path, data, "report")
    if result.exit_code == 0:
        assert (tmp_path / "report" / "index.html").exists()


def test_line_numbers_count_blank_lines(tmp_path):
    """pandas skips blank lines; messages still give the line of the file (was one too low)."""
    path = tmp_path / "r.csv"
    path.write_text("annotator,document,system,score\na,d1,A,3\n\na,d1,B,4\nb,d1,A,x\n")
    assert_one_line_error(run("validate", path), "non-numeric value 'x' at line 5")


@pytest.mark.parametrize(
    "error,line",
    [
        (OSError(28, "No space left on device", "out.csv"), "error: out.csv: No space left on device; check"),
        (
            UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
            "error: an input file is not valid UTF-8",
        ),
        (
            pd.errors.EmptyDataError("No columns to parse from file"),
            "error: an input table is empty or malformed",
        ),
        (MemoryError(), "error: out of memory; use a smaller input"),
    ],
)
def test_library_errors_that_escape_a_reader_are_one_line(inputs, monkeypatch, error, line):
    """The last safety net: input-caused library errors a reader let through are one line, exit 2."""

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr("humaneval.cli.validate.describe_structure", fail)
    assert assert_one_line_error(run("validate", inputs["ratings"])).startswith(line)


def test_a_bug_still_shows_its_traceback(inputs, monkeypatch):
    """Only input-caused errors are folded into one line; a programming error is not hidden."""

    def fail(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("humaneval.cli.validate.describe_structure", fail)
    result = run("validate", inputs["ratings"])
    assert result.exit_code == 1 and isinstance(result.exception, ZeroDivisionError)


@pytest.mark.parametrize("damage", ["check-id", "spec", "schema", "list"])
def test_damaged_design_manifest(inputs, tmp_path, damage):
    """A design.json edited by hand or cut short: one line naming it, never a KeyError traceback."""
    manifest = json.loads(inputs["design"].read_text())
    if damage == "check-id":
        del manifest["checks"][0]["id"]
    elif damage == "spec":
        del manifest["spec"]
    elif damage == "schema":
        manifest["schema_version"] = 99
    else:
        manifest = list(manifest)
    path = tmp_path / "design.json"
    path.write_text(json.dumps(manifest))
    line = assert_one_line_error(run("forms", path, "--placeholder-texts", "--out", tmp_path / "forms"))
    assert "design" in line and ("design.json" in line or damage == "schema")
    assert not (tmp_path / "forms").exists() or damage == "check-id"


@pytest.mark.parametrize(
    "damage,fragment",
    [
        (lambda m: m["random_effects"]["document"].__setitem__(0, float("nan")), "must hold finite numbers"),
        (lambda m: m["coefficients"].__setitem__(1, float("inf")), "coefficients must be finite"),
        (lambda m: m["thresholds"].__setitem__(0, "low"), "not a CLMM model JSON"),
        (lambda m: m.pop("thresholds"), "missing the key(s) thresholds"),
    ],
    ids=["nan-covariance", "inf-coefficient", "text-threshold", "no-thresholds"],
)
def test_damaged_model_json(model_json_path, tmp_path, damage, fragment):
    """power --model-file: NaN/inf or text in a model JSON (json.loads accepts NaN and Infinity) is one line;
    a NaN covariance used to end in numpy's LinAlgError."""
    model = json.loads(model_json_path.read_text())
    damage(model)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    assert_one_line_error(
        run("power", "--model-file", path, "--tests", "ttest", "--trials", 2), "model.json", fragment
    )


# ---------------------------------------------------------------- the API says the same


def test_api_raises_and_warns_like_the_cli():
    from humaneval import load_ratings
    from humaneval.design import DesignSpec
    from humaneval.errors import DataWarning, DesignError, RatingsError
    from humaneval.metaeval.data import align

    frame = pd.read_csv(io.StringIO(ratings_text()))
    with pytest.warns(DataWarning, match=r"score 99 at row 4 lies outside the range 1-5 of the other 89"):
        load_ratings(frame.assign(score=frame["score"].where(frame.index != 4, 99)))
    with pytest.raises(RatingsError, match="score 1e19 at row 0 is too large to be a rating"):
        load_ratings(frame.astype({"score": object}).assign(score=["1e19", *frame["score"][1:]]))
    with pytest.raises(RatingsError, match="no column 'item' to use as 'document'"):
        load_ratings(frame, columns={"item": "document"})
    with pytest.raises(DesignError, match="100000000 documents: one design holds at most 20000"):
        DesignSpec(documents=100_000_000, systems=["A", "B"], seed=1)
    with pytest.raises(DesignError, match="scale_points must be from 2 to 1001"):
        DesignSpec(documents=10, systems=["A", "B"], seed=1, scale_points=1)
    keys = pd.MultiIndex.from_tuples([("d1", "A"), ("d1", "B"), ("d2", "A")], names=["document", "system"])
    human = pd.Series([1.0, 2.0, 3.0], index=keys)
    with pytest.raises(RatingsError, match="metric 'M': scores 0 of the 3 human-scored summaries"):
        align(human, {"M": pd.Series([float("nan")] * 3, index=keys)})


def test_no_help_text_prints_an_unbounded_range_as_none():
    # click describes FloatRange() without bounds as "x<=None"; every command's --help must read cleanly
    for name in main.commands:
        result = run(name, "--help")
        assert result.exit_code == 0, result.output
        assert "None]" not in result.output and "x<=None" not in result.output, (name, result.output)


# ---------------------------------------------------------------- formulas cannot run code (issue 33, item 1)

#: Terms that would run code if formulaic (or R) evaluated them; each would create the file ``pwned``.
INJECTIONS = [
    "I(__import__('os').system('touch pwned'))",
    "I(x.__class__.__init__.__globals__['os'].system('touch pwned'))",
    "I((lambda: __import__('os').system('touch pwned'))())",
    "I(globals()['__builtins__'].open('pwned', 'w'))",
    "log(exp(system(paste0('touch ', 'pwned'))))",
    "I(open(chr(112) + chr(119) + chr(110) + chr(101) + chr(100), chr(119)))",
    "C(eval(compile(chr(49), chr(120), chr(101))))",
    "score[0]",
]
#: Where the term goes: the fixed part, a random-effect term, the response.
PLACES = [
    "score ~ system + {term} + (1|annotator)",
    "score ~ system + ({term} | annotator)",
    "{term} ~ system + (1|annotator)",
]


@pytest.mark.parametrize("place", PLACES, ids=["fixed", "random", "response"])
@pytest.mark.parametrize("term", INJECTIONS)
def test_a_formula_cannot_run_code_in_the_api(tmp_path, monkeypatch, term, place):
    from humaneval.analysis import analyze, fit_clmm, fit_formula
    from humaneval.clmm import clmm_spec, parse_formula
    from humaneval.errors import ModelSpecError

    monkeypatch.chdir(tmp_path)
    formula = place.format(term=term)
    frame = pd.read_csv(io.StringIO(ratings_text())).assign(x=1.0)
    for call in (
        lambda: parse_formula(formula),
        lambda: clmm_spec(formula, frame),
        lambda: fit_clmm(frame, formula=formula),
        lambda: fit_formula(frame, formula),
        lambda: analyze(frame, formula=formula),
    ):
        with pytest.raises(ModelSpecError, match=r"is not allowed|must be a column name") as caught:
            call()
        assert "\n" not in str(caught.value)
    assert not (tmp_path / "pwned").exists()


ENGINES = ("native", "r", "both")


@pytest.mark.parametrize("term", INJECTIONS[:5])
def test_a_formula_cannot_run_code_on_the_command_line(inputs, tmp_path, monkeypatch, term):
    """Every command that takes a formula: analyze (each engine; --compare) and power --pilot."""
    monkeypatch.chdir(tmp_path)
    formula = f"score ~ system + {term} + (1|annotator)"
    good = "score ~ system + (1|annotator)"
    commands = [
        *(
            ["analyze", inputs["ratings"], "--formula", formula, "--engine", e]
            for e in ("native", "r", "both")
        ),
        ["analyze", inputs["ratings"], "--formula", good, "--compare", formula],
        ["power", "--pilot", inputs["ratings"], "--formula", formula, "--tests", "ttest", "--trials", 2],
    ]
    for args in commands:
        line = assert_one_line_error(run(*args))
        assert "is not allowed" in line and term.split("(")[0] in line, line
    assert not (tmp_path / "pwned").exists()


def test_allowed_formula_functions_still_fit():
    """The documented functions pass the check and fit: the log-likelihood of the columns made by hand."""
    from humaneval.analysis import fit_formula

    frame = pd.read_csv(io.StringIO(ratings_text(n_docs=12))).assign(
        x=lambda d: d["document"].str[1:].astype(float) + 1
    )
    frame["logx"], frame["x2"] = frame["x"].map(math.log), frame["x"] ** 2
    by_hand = fit_formula(frame, "score ~ system + logx + x2 + (1|annotator)")
    written = fit_formula(frame, "score ~ C(system) + log(x) + I(x ** 2) + (1|annotator)")
    assert written.loglik == pytest.approx(by_hand.loglik, abs=1e-6)
    assert written.loglik < 0


# ---------------------------------------------------------------- power checkpoints cannot lie (issue 33)


def _simulate(path: Path, **options):
    from humaneval.simulate import simulate

    settings = {"tests": ("ttest",), "trials": 12, "seed": 7, **options}
    return simulate(None, "6x5x1", settings.pop("tests"), checkpoint=path, **settings)


@pytest.mark.parametrize(
    "header", ["{not json", "[]", '{"header": []}', '"text"', '{"head": {}}', "[" * 100_000]
)
def test_a_checkpoint_header_that_does_not_parse_is_refused(tmp_path, header):
    from humaneval.errors import DesignError

    path = tmp_path / "replicates.jsonl"
    _simulate(path)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([header, *lines[1:]]) + "\n")
    with pytest.raises(DesignError, match="checkpoint header unreadable"):
        _simulate(path, resume=True)
    with pytest.raises(DesignError, match="checkpoint header unreadable"):
        _simulate(path, resume=True, seed=8)  # the seed-7 records are never taken for seed 8


def test_an_unreadable_checkpoint_header_is_one_line_on_the_command_line(tmp_path):
    args = ["power", "--tests", "ttest", "--trials", 3, "--seed", 7, "--design", "6x5x1", "--out", tmp_path]
    assert run(*args).exit_code == 0
    path = tmp_path / "replicates.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0][:40], *lines[1:]]) + "\n")
    line = assert_one_line_error(run(*args, "--seed", 8, "--resume"), "checkpoint header unreadable")
    assert str(path) in line


CHECKPOINT_DAMAGE = {
    "list": lambda r: [r],
    "no-replicate": lambda r: {k: v for k, v in r.items() if k != "replicate"},
    "no-p": lambda r: {k: v for k, v in r.items() if k != "p"},
    "replicate-abc": lambda r: {**r, "replicate": "abc"},
    "replicate-float": lambda r: {**r, "replicate": 2.5},
    "replicate-negative": lambda r: {**r, "replicate": -1},
    "p-text": lambda r: {**r, "p": "abc"},
    "p-edited": lambda r: {**r, "p": {name: [0.0] * len(v) for name, v in r["p"].items()}},
    "number": lambda r: 17,
}


@pytest.mark.parametrize("damage", list(CHECKPOINT_DAMAGE))
def test_malformed_checkpoint_records_are_run_again(tmp_path, damage):
    """A record that is not what the run wrote is re-run like a torn line: the results equal a fresh run."""
    whole = _simulate(tmp_path / "whole.jsonl")
    path = tmp_path / "replicates.jsonl"
    lines = (tmp_path / "whole.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines[1:]]
    for k in (2, 5):
        records[k] = CHECKPOINT_DAMAGE[damage](records[k])
    path.write_text("\n".join([lines[0], *map(json.dumps, records)]) + "\n")
    resumed = _simulate(path, resume=True)
    pd.testing.assert_frame_equal(resumed.results, whole.results)
    kept = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert sorted(r["replicate"] for r in kept) == list(range(12))


def test_experiments_never_mix(tmp_path):
    """Seed-7 records under a seed-8 header (a copied or edited header) are not reused for seed 8."""
    seed7, seed8 = _simulate(tmp_path / "seed7.jsonl"), _simulate(tmp_path / "seed8.jsonl", seed=8)
    assert not seed7.results.equals(seed8.results)
    lines7 = (tmp_path / "seed7.jsonl").read_text().splitlines()
    lines8 = (tmp_path / "seed8.jsonl").read_text().splitlines()
    path = tmp_path / "replicates.jsonl"
    path.write_text("\n".join([lines8[0], *lines7[1:7]]) + "\n")
    pd.testing.assert_frame_equal(_simulate(path, seed=8, resume=True).results, seed8.results)
    path.write_text("\n".join(lines7[:7]) + "\n")
    from humaneval.errors import DesignError

    with pytest.raises(DesignError, match=r"different experiment \(seed differ\)"):
        _simulate(path, seed=8, resume=True)


# ---------------------------------------------------------------- model weights cannot run code (issue 33)


@pytest.fixture(scope="module")
def weights(tmp_path_factory) -> dict[str, Path]:
    """A tiny NLI model three ways: safetensors; the same tensors as a pickle only; a pickle that would
    create the file ``pwned`` when unpickled (beside safetensors, and alone)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import pickle
    import shutil

    import torch
    from safetensors.torch import load_file

    from tests._tiny_models import build_nli

    root = tmp_path_factory.mktemp("weights")
    safe = build_nli(root / "safe")
    paths = {"root": root, "safe": safe}
    paths["pickle"] = root / "pickle"
    shutil.copytree(safe, paths["pickle"])
    torch.save(load_file(safe / "model.safetensors"), paths["pickle"] / "pytorch_model.bin")
    (paths["pickle"] / "model.safetensors").unlink()

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {root / 'pwned'}",))

    for name, keep_safe in (("both", True), ("evil", False)):
        paths[name] = root / name
        shutil.copytree(safe, paths[name])
        (paths[name] / "pytorch_model.bin").write_bytes(pickle.dumps(Payload()))
        if not keep_safe:
            (paths[name] / "model.safetensors").unlink()
    return paths


def test_pickled_weights_are_refused_unless_allowed(weights, inputs):
    from humaneval.errors import ModelSpecError
    from humaneval.scorers.embeddings import embedding_similarity
    from humaneval.scorers.ffci import BertScore, NextSentenceScorer
    from humaneval.scorers.nli import NLIScorer

    for load in (NLIScorer, NextSentenceScorer, embedding_similarity, lambda p: BertScore(p, 1)):
        with pytest.raises(ModelSpecError, match=r"the weights are a pickle \(pytorch_model.bin\)"):
            load(weights["pickle"])
    pairs = (["the cat sat on the mat"] * 2, ["the cat sat", "a dog ran"])
    trusted = NLIScorer(weights["pickle"], allow_pickle=True).probabilities(*pairs)[0]
    safe = NLIScorer(weights["safe"]).probabilities(*pairs)[0]
    assert trusted.shape == (1, 2, 3) and abs(trusted - safe).max() < 1e-6  # the same tensors
    line = assert_one_line_error(
        run("score", "faithfulness", inputs["texts"], "--model", weights["pickle"]), "--allow-pickle"
    )
    assert "pytorch_model.bin" in line and "can run code" in line
    allowed = run("score", "faithfulness", inputs["texts"], "--model", weights["pickle"], "--allow-pickle")
    assert allowed.exit_code == 0, allowed.output


def test_a_malicious_pickle_never_runs(weights, inputs):
    """Safetensors are preferred over a pickle beside them; a pickle alone is refused, and even when
    allowed, torch ≥ 2.6 loads tensors only (weights_only), so the payload never runs."""
    from humaneval.errors import ModelSpecError
    from humaneval.scorers.nli import NLIScorer

    pairs = (["the cat sat on the mat"], ["the cat sat"])
    assert NLIScorer(weights["both"]).probabilities(*pairs)[0].shape == (1, 1, 3)
    with pytest.raises(ModelSpecError, match="can run code"):
        NLIScorer(weights["evil"])
    with pytest.raises(ModelSpecError, match="the weights did not load"):
        NLIScorer(weights["evil"], allow_pickle=True)
    result = run("score", "faithfulness", inputs["texts"], "--model", weights["evil"], "--allow-pickle")
    assert_one_line_error(result, "the weights did not load")
    assert not (weights["root"] / "pwned").exists()


# ---------------------------------------------------------------- invalid values refused (issue 33)

INVALID_VALUES = [
    (["reliability", "{ratings}", "--alpha-min", "nan"], ["'--alpha-min'", "not a finite number"]),
    (["reliability", "{ratings}", "--alpha-min", "1.5"], ["'--alpha-min'"]),
    (["validate", "{ratings}", "--scale", "-inf-inf"], ["scale '-inf-inf'", "finite numbers within ±2^53"]),
    (["validate", "{ratings}", "--scale", "1-99999999999999999999"], ["finite numbers within ±2^53"]),
    (["reliability", "{ratings}", "--scale", "nan-5"], ["scale 'nan-5'", "finite"]),
    (["analyze", "{ratings}", "--by", "annotator"], ["--by annotator", "add --emmeans"]),
    (["power", "--effect", "1e308", "--tests", "ttest", "--trials", "2"], ["effect '1e308'", "within ±50"]),
    (["power", "--effect", "BART=-1e308", "--tests", "ttest", "--trials", "2"], ["within ±50"]),
    (["power", "--effect-scale", "1e308", "--tests", "ttest", "--trials", "2"], ["--effect-scale", "±50"]),
    (["design", "--documents", "10", "--systems", "A,B", "--currency", "<script>", "--out", "{root}/c.csv"],
     ["--currency '<script>'", "not an ISO 4217 code"]),
    (["design", "--documents", "10", "--systems", "A,B", "--currency", "", "--out", "{root}/c.csv"],
     ["--currency ''", "ISO 4217"]),
    (["report", "{ratings}", "--out", "/proc/humaneval-report"], ["--out /proc/humaneval-report", "/proc"]),
]  # fmt: skip


@pytest.mark.parametrize(
    "template,fragments", INVALID_VALUES, ids=[" ".join(c[0][:3]) for c in INVALID_VALUES]
)
def test_invalid_values_are_refused(inputs, template, fragments):
    if template[0] == "report" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    assert_one_line_error(run(*fill(template, inputs)), *fragments)
    assert not (inputs["root"] / "c.csv").exists()


def test_the_currency_is_checked_in_the_api():
    from humaneval.design.summary import CostSettings
    from humaneval.simulate import CostModel

    assert CostSettings(currency="eur").currency == "EUR" and CostModel(currency="gbp").currency == "GBP"
    for make in (CostSettings, CostModel):
        with pytest.raises(OptionError, match="'<script>' is not an ISO 4217 code"):
            make(currency="<script>")


@pytest.mark.parametrize(
    "damage,fragment",
    [
        (lambda m: m["coefficients"].__setitem__(1, 1e308), "coefficients must lie within ±50"),
        (lambda m: m["thresholds"].__setitem__(0, -1e308), "thresholds must lie within ±50"),
        (lambda m: m["random_effects"].__setitem__("judge", [1.0]), "random effects of judge"),
        (lambda m: m["random_effects"].__setitem__("document", [1e300]), "variances of at most 2500"),
    ],
    ids=["coefficient-1e308", "threshold-1e308", "extra-group", "huge-variance"],
)
def test_model_files_beyond_the_latent_scale_or_with_other_groups(tmp_path, damage, fragment):
    from humaneval.clmm.model import default_model

    model = default_model().to_dict()
    damage(model)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's overflow warning was all there was
        result = run("power", "--model-file", path, "--tests", "ttest", "--trials", 2)
    assert_one_line_error(result, fragment)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, '{"coefficients": ' + "[" * 100_000 + "}"])
def test_a_model_file_nested_too_deeply(tmp_path, text):
    path = tmp_path / "deep.json"
    path.write_text(text)
    assert_one_line_error(
        run("power", "--model-file", path, "--tests", "ttest"), "deep.json", "nested too deeply"
    )


@pytest.mark.parametrize("value", ["-100", "1e308", "nan", "31536001"])
def test_mturk_work_times_that_cannot_be(tmp_path, value):
    """A WorkTimeInSeconds below 0 or beyond a year is a problem row and unknown, not shown as is; the
    answers are kept."""
    from humaneval.clmm.model import default_model
    from humaneval.collect.mturk import parse_mturk_results
    from humaneval.demo import simulate_annotators
    from humaneval.design import DesignSpec, generate_design

    model = default_model()
    design = generate_design(
        DesignSpec(documents=10, systems=list(model.system_names), seed=1, platform="mturk")
    )
    batch, _ = simulate_annotators(design, model, seed=1)
    clean = parse_mturk_results(batch, design)
    batch = batch.astype({"WorkTimeInSeconds": str})
    batch.loc[batch.index[0], "WorkTimeInSeconds"] = value
    parsed = parse_mturk_results(batch, design)
    work = parsed.workers["work_time_seconds"]
    assert (
        math.isnan(work.iloc[0]) and work.iloc[1:].tolist() == clean.workers["work_time_seconds"][1:].tolist()
    )
    (problem,) = parsed.problems.itertuples()
    assert problem.kind == "bad_work_time" and repr(value) in problem.detail
    assert len(parsed.ratings.data) == len(clean.ratings.data)


# ---------------------------------------------------------------- files named for what they are (issue 33)


def _workbook(path: Path) -> Path:
    """A minimal .xlsx: the zip layout Excel writes (content types, workbook, one sheet)."""
    import zipfile

    with zipfile.ZipFile(path, "w") as book:
        book.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        book.writestr("xl/workbook.xml", '<?xml version="1.0"?><workbook/>')
        book.writestr("xl/worksheets/sheet1.xml", '<?xml version="1.0"?><worksheet/>')
    return path


ENCODED = {
    "xlsx": (lambda text, path: _workbook(path), "this is an Excel workbook: export it as CSV UTF-8"),
    "utf-16-bom": (lambda text, path: path.write_bytes(text.encode("utf-16")), "this file is UTF-16: "),
    "utf-16-be-bom": (
        lambda text, path: path.write_bytes(b"\xfe\xff" + text.encode("utf-16-be")),
        "UTF-16: ",
    ),
    "utf-16-le": (lambda text, path: path.write_bytes(text.encode("utf-16-le")), "this file is UTF-16 (LE, "),
    "utf-16-be": (lambda text, path: path.write_bytes(text.encode("utf-16-be")), "this file is UTF-16 (BE, "),
}


@pytest.mark.parametrize("kind", list(ENCODED))
def test_files_are_named_for_what_they_are(inputs, tmp_path, kind):
    write, fragment = ENCODED[kind]
    path = tmp_path / ("ratings.xlsx" if kind == "xlsx" else "ratings.csv")
    write(ratings_text(), path)
    for command in (["validate"], ["analyze"], ["reliability"], ["report", "--out", tmp_path / "rep"]):
        line = assert_one_line_error(run(command[0], path, *command[1:]), str(path), fragment)
        assert "save it as UTF-8" in line or "export it as CSV UTF-8" in line
    line = assert_one_line_error(
        run("collect", "mturk", path, "--design", inputs["design"], "--out", tmp_path / "r.csv"), fragment
    )
    assert str(path) in line
    assert_one_line_error(run("power", "--pilot", path, "--tests", "ttest", "--trials", 2), fragment)


def test_a_zip_that_is_not_a_workbook_and_plain_bad_bytes(tmp_path, inputs):
    import zipfile

    with zipfile.ZipFile(tmp_path / "data.csv", "w") as archive:
        archive.writestr("ratings.csv", ratings_text())
    assert_one_line_error(run("validate", tmp_path / "data.csv"), "zip archive, not a table: unpack it")
    assert_one_line_error(run("validate", inputs["binary"]), "byte 0 is not valid UTF-8")


# ---------------------------------------------------------------- bounds on the biggest jobs (issue 33)

CEILINGS = [
    (["power", "--trials", "1000000000000"], ["--trials 1,000,000,000,000", "more than 100,000", "--force"]),
    (["power", "--trials", "100001", "--tests", "ttest"], ["--trials 100,001", "--force"]),
    (["power", "--calibration-trials", "100001"], ["--calibration-trials 100,001", "--force"]),
    (["power", "--workers", "100000"], ["--workers 100,000", "CPU(s)", "--force"]),
    (["power", "--workers", "0"], ["'--workers'", "x>=1"]),
    (["budget", "--target", "0.8", "--trials", "1000000"], ["--trials 1,000,000", "--force"]),
    (["budget", "--target", "0.8", "--workers", "100000"], ["--workers 100,000", "--force"]),
]  # fmt: skip


@pytest.mark.parametrize("args,fragments", CEILINGS, ids=[" ".join(c[0][:3]) for c in CEILINGS])
@pytest.mark.timeout(60)  # a run that starts would end the test, not the suite
def test_run_sizes_have_a_ceiling(args, fragments):
    """Refused at once, before any work."""
    assert_one_line_error(run(*args), *fragments)


def test_force_lifts_the_ceilings():
    from humaneval.stats.replicates import MAX_TRIALS, available_cpus, check_run_size

    check_run_size(MAX_TRIALS, available_cpus())
    check_run_size(10 * MAX_TRIALS, 1000 * available_cpus(), force=True)
    with pytest.raises(OptionError, match="--force"):
        check_run_size(MAX_TRIALS + 1, 1)


def test_power_states_its_size_and_an_estimate_first(tmp_path):
    result = run("power", "--tests", "ttest", "--trials", 30, "--design", "6x5x1", "--no-calibration")
    assert result.exit_code == 0, result.output
    err = result.stderr
    statement = re.search(
        r"power: 30 trials \(design 6x5x1, 150 judgements each, ttest:none, ttest:document\); "
        r"the first took [\d.e-]+ s, "
        r"so about [\d.e-]+ s more on 1 worker",
        err,
    )
    assert statement is not None, err
    assert statement.start() < err.index("30/30")  # before the run ends, with progress after it


def _wide(tmp_path: Path, n_columns: int = 100_000, rows: int = 20, edit=None) -> Path:
    """A ratings table with ``n_columns`` columns (4 ratings columns and filler), about 5 MB."""
    header = ["annotator", "document", "system", "score"] + [f"x{k}" for k in range(n_columns - 4)]
    lines = [",".join(header)]
    for r in range(rows):
        lines.append(",".join([f"a{r % 3}", f"d{r}", "AB"[r % 2], str(1 + r % 5)] + ["1"] * (n_columns - 4)))
    if edit is not None:
        edit(lines)
    path = tmp_path / "wide.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.timeout(120)
def test_validate_reads_a_file_of_100000_columns_in_seconds(tmp_path):
    """Was > 74 s of CPU (~1 ms per column); now the cost of the cells, as for a long table."""
    path = _wide(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "humaneval", "validate", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert (payload["n_ratings"], payload["n_annotators"], payload["n_systems"]) == (20, 3, 2)
    assert payload["scale"] == [1.0, 5.0]


def test_a_wide_file_is_read_as_pandas_reads_a_narrow_one(tmp_path):
    """Short rows padded, blank lines skipped (the same frame as pandas reads), a long row refused with its
    line, a name repeated in the header refused (pandas would read the second as 'x6.1')."""
    from humaneval.io.tables import read_table_lines

    def damage(lines):
        lines[3] = lines[3].rsplit(",", 2)[0]  # two fields short
        lines.insert(5, "")

    path = _wide(tmp_path, 2_000, 6, damage)
    frame, lines = read_table_lines(path)
    by_pandas = pd.read_csv(path, dtype=str, keep_default_na=False).replace("", pd.NA)
    pd.testing.assert_frame_equal(frame, by_pandas.astype(object), check_dtype=False)
    assert frame.shape == (6, 2_000) and lines.tolist() == [2, 3, 4, 5, 7, 8]
    assert list(frame.columns[4:12]) == ["x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"]
    assert frame.iloc[2, -2:].isna().all() and frame.iloc[1, -1] == "1"
    assert frame["score"].tolist() == ["1", "2", "3", "4", "5", "1"]
    from humaneval import load_ratings

    data = load_ratings(_wide(tmp_path, 2_000, 6)).data  # number columns are numbers, as pandas reads them
    assert data["x0"].dtype == "int64" and (data.filter(like="x") == 1).all().all()
    too_long = _wide(tmp_path, 2_000, 6, lambda lines: lines.__setitem__(4, lines[4] + ",extra"))
    with pytest.raises(RatingsError, match="cannot parse as comma-separated: line 5 has 2001 fields but"):
        read_table_lines(too_long)
    twice = _wide(tmp_path, 2_000, 6, lambda lines: lines.__setitem__(0, lines[0].replace("x7,", "x6,")))
    with pytest.raises(RatingsError, match="the header names column 'x6' twice"):
        read_table_lines(twice)


@pytest.mark.timeout(120)
def test_collect_mturk_reads_a_forged_batch_of_834_assignments_per_slot(tmp_path):
    """10,008 rows, every one of the 12 slots filled 834 times: was > 180 s of CPU (pandas work per screen
    and assignment); now each slot's screens are read once. Every assignment is kept and counted."""
    from humaneval.clmm.model import default_model
    from humaneval.demo import simulate_annotators
    from humaneval.design import DesignSpec, generate_design

    model = default_model()
    spec = DesignSpec(documents=20, systems=list(model.system_names), seed=1, platform="mturk")
    design = generate_design(spec)
    design.write(tmp_path / "design.csv")
    batch, _ = simulate_annotators(design, model, seed=1)
    assert len(batch) == 12 and batch["Answer.slot"].nunique() == 12
    copies = [
        batch.assign(AssignmentId=batch["AssignmentId"] + f"x{k}", WorkerId=batch["WorkerId"] + f"w{k}")
        for k in range(834)
    ]
    pd.concat(copies).to_csv(tmp_path / "batch.csv", index=False)
    one = run("collect", "mturk", tmp_path / "batch.csv", "--design", tmp_path / "design.json", "--out",
              tmp_path / "r.csv", "--json")  # fmt: skip
    assert one.exit_code == 0, one.output
    payload = json.loads(one.stdout)
    assert payload["assignments"] == 10_008
    assert [c["assignments"] for c in payload["collisions"]] == [834] * 12
    ratings = pd.read_csv(tmp_path / "r.csv", dtype=str)
    batch.to_csv(tmp_path / "one.csv", index=False)
    single = run("collect", "mturk", tmp_path / "one.csv", "--design", tmp_path / "design.json", "--out",
                 tmp_path / "r1.csv")  # fmt: skip
    assert single.exit_code == 0, single.output
    assert len(ratings) == 834 * len(pd.read_csv(tmp_path / "r1.csv", dtype=str))
    assert ratings["annotator"].nunique() == 10_008


# ---------------------------------------------------------------- money (issues 45 and 47)

#: ``prolific`` cases against the stand-in API: (arguments after the command, bonus table, fragments).
PROLIFIC_CASES = [
    (["bonus", "{bonus}", "{study}"], "who,pay\nP1,1.00\n", ["needs an id column", "amount or bonus"]),
    (["bonus", "{bonus}", "{study}"], "participant_id,amount\nP1,1.00\nP9,1.00\n",
     ["row 3: P9 did not take part in study"]),
    (["bonus", "{bonus}", "{study}"], "participant_id,amount\nP1,150\n", ["must be pounds", "not in pence"]),
    (["bonus", "{bonus}", "{study}", "--study-id", "../../x"], "participant_id,amount\nP1,1\n",
     ["--study-id '../../x' is not a Prolific id"]),
    (["status", "{study}", "--study-id", "a/../../b"], "", ["is not a Prolific id"]),
    (["export", "{study}", "--out", "{out}"], "", ["with text/html, not CSV", "nothing saved"]),
    (["create", "{study}", "--serve-url", "https://x.org", "--reward-pence", str(10**30)], "",
     ["--reward-pence 1000000000000000000000000000000 is more than 100000"]),
    (["create", "{study}", "--serve-url", "https://x.org", "--estimated-minutes", "100000"], "",
     ["--estimated-minutes 100000 is more than 1440"]),
]  # fmt: skip


@pytest.mark.parametrize(
    "args,table,fragments", PROLIFIC_CASES, ids=[" ".join(c[0][:1] + c[0][3:4]) for c in PROLIFIC_CASES]
)
def test_prolific_money_and_paths(tmp_path, monkeypatch, args, table, fragments):
    import httpx

    from humaneval.platforms import prolific
    from humaneval.serve import create_study
    from tests._designs import cell_texts
    from tests._fake_prolific import BASE, TOKEN, FakeProlific
    from tests.test_serve import make_design

    fake = FakeProlific()
    fake.studies["S1"] = {"id": "S1", "status": "ACTIVE", "reward": 360}
    fake.arrive("S1", "P1", "APPROVED")
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id="S1")
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    original = prolific.prolific_client

    def html_export(request):
        if request.url.path.endswith("/export/"):
            return httpx.Response(
                200, content=b"<html>maintenance</html>", headers={"content-type": "text/html"}
            )
        return fake(request)

    monkeypatch.setattr(
        prolific,
        "prolific_client",
        lambda token=None: original(token, transport=httpx.MockTransport(html_export), base_url=BASE),
    )
    (tmp_path / "bonus.csv").write_text(table)
    paths = {"bonus": tmp_path / "bonus.csv", "study": made.study_dir, "out": tmp_path / "demo.csv"}
    assert_one_line_error(run("prolific", *fill(args, paths)), *fragments)
    assert fake.pay_calls == [] and not (tmp_path / "demo.csv").exists()


def test_every_command_has_hostile_cases():
    """Issue 45: no command of `humaneval --help` (each subcommand of a group) lacks a corpus case."""
    import click

    context = click.Context(main)
    commands = []
    for name in main.list_commands(context):
        command = main.get_command(context, name)
        if isinstance(command, click.Group):
            commands += [(name, sub) for sub in command.list_commands(context)]
        else:
            commands.append((name,))
    covered = {tuple(template[: len(c)]) for template, _ in CORPUS for c in commands}
    assert [" ".join(c) for c in commands if c not in covered] == []
