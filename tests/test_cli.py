"""The CLI: subcommand discovery, one-line errors with exit code 2, validate and demo."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from humaneval import __version__
from humaneval.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_help_lists_every_subcommand_with_one_line():
    result = run("--help")
    assert result.exit_code == 0
    commands = result.output.split("Commands:")[1].strip().splitlines()
    names = {line.split()[0] for line in commands}
    assert {"validate", "demo"} <= names
    assert all(len(line.split(maxsplit=1)) == 2 for line in commands)


def test_version():
    assert run("--version").output.strip().endswith(__version__)


def test_validate_reference_files(likert_path, rank_path):
    result = run("validate", str(likert_path))
    assert result.exit_code == 0
    text = result.output
    for fragment in ("1500", "60", "100", "crossed within blocks", "20 (3 annotators × 5 documents)"):
        assert fragment in text
    payload = json.loads(run("validate", str(rank_path), "--json").output)
    assert payload["response"] == "rank" and payload["rank_base"] == 0
    assert payload["n_blocks"] == 20 and payload["family"] == "crossed_in_blocks"
    assert payload["judgements_per_summary"] == {"min": 3, "mean": 3.0, "max": 3}


@pytest.mark.parametrize(
    "content,fragment",
    [
        ("annotator,document,system\na,d,s\n", "no score or rank column"),
        ("annotator,document,system,score\na,d,s,9\n", "outside the declared scale 1-7"),
    ],
)
def test_errors_are_one_line_exit_2_no_traceback(tmp_path, content, fragment):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    proc = subprocess.run(
        [sys.executable, "-m", "humaneval", "validate", str(path), "--scale", "1-7"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and fragment in proc.stderr
    assert "Traceback" not in proc.stderr


def test_column_mapping_option(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("judge,doc_id,system,score\nj,d,a,1\nj,d,b,2\n")
    result = run(
        "validate", str(path), "--column", "annotator=judge", "--column", "document=doc_id", "--json"
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    counts = [payload[k] for k in ("n_ratings", "n_annotators", "n_documents", "n_systems")]
    assert counts == [2, 1, 1, 2]
    bad = run("validate", str(path), "--column", "annotator")
    assert bad.exit_code == 2
    assert "--column 'annotator': write CANONICAL=NAME" in bad.output


def test_demo_writes_a_valid_study(tmp_path):
    result = run("demo", "--out", str(tmp_path / "demo"), "--seed", "3")
    assert result.exit_code == 0, result.output
    again = run("validate", str(tmp_path / "demo" / "ratings.csv"), "--json")
    payload = json.loads(again.output)
    assert payload["n_ratings"] == 1500 and payload["n_annotators"] == 60
    assert payload["family"] == "crossed_in_blocks" and payload["n_blocks"] == 20


def test_validate_a_folder_is_one_line(tmp_path):
    result = run("validate", str(tmp_path))
    assert result.exit_code == 2
    assert result.output.strip() == f"error: {tmp_path}: is a folder; give the path of a file"


def test_a_mistyped_command_gets_a_did_you_mean(tmp_path):
    out = CliRunner().invoke(main, ["analyse", str(tmp_path / "r.csv")], prog_name="humaneval")
    assert out.exit_code == 2
    assert out.output.strip() == (
        "error: no such command 'analyse' (did you mean 'analyze'?); see 'humaneval --help'"
    )
    unknown = CliRunner().invoke(main, ["zzz"])
    assert unknown.exit_code == 2 and "did you mean" not in unknown.output


def test_validate_on_a_design_says_to_collect_ratings_first(tmp_path):
    runner = CliRunner()
    made = runner.invoke(
        main, ["design", "--documents", "10", "--systems", "A,B", "--out", str(tmp_path / "d.csv")]
    )
    assert made.exit_code == 0, made.output
    for name in ("d.csv", "d.json"):
        out = runner.invoke(main, ["validate", str(tmp_path / name)])
        assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1
        assert "this is a study design, not ratings; collect the ratings first" in out.output


def test_forms_of_a_prolific_design_are_preview_pages_not_hits(tmp_path):
    runner = CliRunner()
    runner.invoke(main, ["design", "--documents", "10", "--systems", "A,B", "--out", str(tmp_path / "d.csv")])
    args = ["forms", str(tmp_path / "d.json"), "--placeholder-texts", "--out"]
    prolific = runner.invoke(main, [*args, str(tmp_path / "p")])
    assert prolific.exit_code == 0, prolific.output
    assert prolific.output.startswith("wrote 2 preview page(s) to ") and "HIT" not in prolific.output
    mturk = runner.invoke(main, [*args, str(tmp_path / "m"), "--platform", "mturk"])
    assert mturk.output.startswith("wrote ") and " HIT(s) to " in mturk.output.splitlines()[0]
