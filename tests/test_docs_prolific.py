"""docs/prolific.md's commands, run verbatim and in the page's order against the stand-in for
Prolific's public API (tests/_fake_prolific.py): design → study folder → create → pilot and serve →
publish → status → review → bonus → stop → collect and export. Only what the page leaves to the
researcher is supplied here: the texts, the participants, the bonus table and a server process (the
server's app is built as `serve` builds it; uvicorn is not started)."""

from __future__ import annotations

import functools
import json
import re
import shlex
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from humaneval.cli import main
from humaneval.forms.write import load_design
from humaneval.platforms import prolific
from humaneval.serve import create_app, open_study
from tests._designs import cell_texts
from tests._fake_prolific import BASE, TOKEN, FakeProlific
from tests.test_prolific_life import take_part
from tests.test_serve import NO_LIMIT

DOC = Path(__file__).resolve().parents[1] / "docs" / "prolific.md"


def documented_commands() -> list[list[str]]:
    """Every ``humaneval`` line of the page's code blocks, in order (continuations joined, comments cut)."""
    commands = []
    for block in re.findall(r"```\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words and words[0] == "humaneval":
                commands.append(words[1:])
    return commands


def test_the_page_lists_the_whole_life_in_order():
    heads = [
        " ".join(c[:2]) if c[0] in {"serve", "prolific", "collect"} else c[0] for c in documented_commands()
    ]
    order = [
        "design",
        "serve init",
        "prolific create",
        "serve study/",
        "prolific publish",
        "prolific status",
        "prolific review",
        "prolific bonus",
        "prolific stop",
        "collect prolific",
        "prolific export",
    ]
    assert [h for h in dict.fromkeys(heads) if h in order] == order


def test_docs_prolific_commands_run_in_order(tmp_path, monkeypatch):
    api = FakeProlific()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PROLIFIC_API_URL", BASE)
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setattr(
        prolific, "prolific_client", functools.partial(prolific.prolific_client, transport=api.transport())
    )
    monkeypatch.setattr(prolific, "sleep", lambda seconds: None)
    served = []
    monkeypatch.setattr("uvicorn.run", lambda app, **options: served.append(options))
    real_client = httpx.Client

    def client(*args, **kwargs):  # the documented --server-url reaches the app `serve` would run
        if kwargs.get("base_url") == "http://127.0.0.1:8000":
            return TestClient(create_app("study", start_limit=NO_LIMIT), base_url="http://127.0.0.1:8000")
        return real_client(*args, **kwargs)

    monkeypatch.setattr(httpx, "Client", client)
    outputs = []
    for words in documented_commands():
        if words[:2] == ["serve", "init"]:  # the researcher's texts for the design of step 1
            texts = cell_texts(load_design("design.json"))
            summaries = {f"{d}|{s}": text for (d, s), text in texts.summaries.items()}
            Path("texts.json").write_text(json.dumps({"summaries": summaries}))
        if words[:2] == ["prolific", "status"] and not api.submissions:
            people(api)
        if words[:2] == ["prolific", "bonus"]:
            Path("bonuses.csv").write_text("participant_id,amount\nP1,1.50\n")
        result = CliRunner().invoke(main, words)
        assert result.exit_code == 0, (words, result.output)
        outputs.append((words, result.output))
    study_id = open_study("study").prolific_study_id
    assert study_id and api.studies[study_id]["status"] == "COMPLETED"
    assert len(served) == 2  # the pilot and the real server both started (no STUDY_ID refusal)
    assert [s["status"] for s in api.submissions.values()] == ["APPROVED", "REJECTED"]
    assert api.pay_calls == ["BULK1"]
    assert Path("ratings.csv").exists() and Path("demographics.csv").exists()
    init_output = next(out for words, out in outputs if words[:2] == ["serve", "init"])
    assert "set-study-id" not in init_output and "humaneval prolific create study" in init_output


def people(api: FakeProlific) -> None:
    """Two participants through the served study: one passes the checks, one fails both."""
    study = open_study("study")
    design = load_design("design.json")
    app = TestClient(create_app("study", start_limit=NO_LIMIT))
    for pid, checks in (("P1", "pass"), ("P2", "fail")):
        submission = api.arrive(study.prolific_study_id, pid)
        take_part(app, study.key, design, study.prolific_study_id, pid, checks=checks)
        api.set_status(submission, "AWAITING REVIEW")


@pytest.mark.parametrize("words", documented_commands(), ids=lambda w: " ".join(w[:2]))
def test_every_documented_command_parses(words):
    assert CliRunner().invoke(main, [*words, "--help"]).exit_code == 0
