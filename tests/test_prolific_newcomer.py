"""A new researcher's small stumbles on Prolific (issue 45, item 6): the extra that holds httpx is named
where they look, `create` on a design without texts offers an option `create` has, and two studies of
one project get different names."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.platforms.prolific_study import draft_body
from humaneval.serve import create_study, open_study
from tests._designs import cell_texts
from tests.test_serve import make_design

ROOT = Path(__file__).resolve().parents[1]


def test_the_prolific_extra_is_named_in_the_docs():
    assert "humaneval[prolific]" in (ROOT / "docs" / "prolific.md").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_names_the_prolific_extra():
    printed = subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", "demo"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    assert ".[prolific]" in printed


def test_create_on_a_design_without_texts_suggests_an_option_create_has(tmp_path):
    made = CliRunner().invoke(
        main,
        [
            "design",
            "--documents",
            "10",
            "--systems",
            "A,B",
            "--annotators-per-block",
            "1",
            "--attention-checks",
            "2",
            "--out",
            str(tmp_path / "design.csv"),
        ],
    )
    assert made.exit_code == 0, made.output
    path = str(tmp_path / "design.json")
    bare = CliRunner().invoke(main, ["prolific", "create", path, "--serve-url", "https://x.org"])
    assert bare.exit_code == 2 and "--placeholder-texts" in bare.output
    assert "--placeholder-texts" in CliRunner().invoke(main, ["prolific", "create", "--help"]).output
    dry = CliRunner().invoke(
        main, ["prolific", "create", path, "--serve-url", "https://x.org", "--placeholder-texts", "--json"]
    )
    assert dry.exit_code == 0, dry.output
    body = json.loads(dry.output)["study"]
    assert body["total_available_places"] == open_design_slots(path)
    assert not (tmp_path / "design_study").exists()  # a dry run makes no folder


def open_design_slots(path: str) -> int:
    from humaneval.forms.write import load_design

    return int(load_design(path).table["annotator_slot"].nunique())


def test_two_studies_of_a_project_are_named_apart(tmp_path):
    first, second = make_design(), make_design(seed=12)
    names = []
    for i, design in enumerate((first, second)):
        made = create_study(design, tmp_path / f"s{i}", texts=cell_texts(design))
        names.append(draft_body(open_study(made.study_dir), "https://x.org")["name"])
    assert first.design_id != second.design_id
    assert names == [f"Judge summaries ({first.design_id})", f"Judge summaries ({second.design_id})"]
