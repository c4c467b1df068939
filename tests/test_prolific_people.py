"""Who is who on Prolific (issue 45, item 4) and what becomes of a rejected participant (item 5):
the review plan and `status` name Prolific's participant id and the server's slot beside each
submission id."""

from __future__ import annotations

import functools
import json
import sqlite3

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from humaneval.cli import main
from humaneval.collect.prolific import read_prolific
from humaneval.platforms import prolific
from humaneval.serve import create_app, create_study
from tests._designs import cell_texts
from tests._fake_prolific import BASE, TOKEN, FakeProlific
from tests.test_prolific_life import take_part
from tests.test_serve import NO_LIMIT, make_design


@pytest.fixture
def fake(monkeypatch):
    api = FakeProlific()
    monkeypatch.setenv("PROLIFIC_API_URL", BASE)
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    monkeypatch.setattr(
        prolific, "prolific_client", functools.partial(prolific.prolific_client, transport=api.transport())
    )
    monkeypatch.setattr(prolific, "sleep", lambda seconds: None)
    return api


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def live(tmp_path, fake):
    """A published study: P1 passed the checks, P2 failed both, P3 returned after one screen."""
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design))
    created = run("prolific", "create", made.study_dir, "--serve-url", "https://x.org", "--execute", "--json")
    study_id = json.loads(created.output)["study_id"]
    run("prolific", "publish", made.study_dir, "--execute")
    app = TestClient(create_app(made.study_dir, start_limit=NO_LIMIT))
    subs, slots = {}, {}
    for pid, checks, screens, status in [
        ("P1", "pass", None, "AWAITING REVIEW"),
        ("P2", "fail", None, "AWAITING REVIEW"),
        ("P3", "pass", 1, "RETURNED"),
    ]:
        subs[pid] = fake.arrive(study_id, pid)
        slots[pid] = take_part(app, made.key, design, study_id, pid, checks=checks, screens=screens)
        fake.set_status(subs[pid], status)
    return made, study_id, subs, slots, app


def test_the_review_plan_names_prolific_ids_and_slots(live):
    made, _, subs, slots, _ = live
    people = read_prolific(made.study_dir, include_pids=True).participants.set_index("prolific_pid")
    plan = json.loads(run("prolific", "review", made.study_dir, "--json").output)["plan"]
    rows = {r["participant_id"]: r for r in plan}
    assert sorted(rows) == ["P1", "P2"]
    for pid in ("P1", "P2"):
        assert rows[pid]["submission_id"] == subs[pid]
        assert rows[pid]["slot"] == people.loc[pid, "annotator_slot"] == slots[pid]
    assert (rows["P1"]["action"], rows["P2"]["action"]) == ("approve", "reject")
    text = run("prolific", "review", made.study_dir).output
    row = next(line.split() for line in text.splitlines() if subs["P2"] in line)
    assert row[:4] == ["reject", subs["P2"], "P2", rows["P2"]["slot"]]


def test_status_names_prolific_ids_and_the_freed_slot(live):
    made, _, subs, slots, _ = live
    answer = run("prolific", "status", made.study_dir, "--json")
    released = json.loads(answer.output)["released"]
    assert len(released) == 1
    row = released[0]
    assert (row["submission_id"], row["participant_id"], row["outcome"]) == (subs["P3"], "P3", "freed")
    assert row["slot"] == slots["P3"]
    fake_text = run("prolific", "status", made.study_dir, "--no-release").output
    assert "P3" not in fake_text  # nothing released twice, nothing listed as released


def test_a_rejected_participant_is_left_out_and_their_place_reopened(live, fake):
    made, study_id, subs, slots, app = live
    places = fake.studies[study_id]["total_available_places"]
    done = run("prolific", "review", made.study_dir, "--execute")
    assert done.exit_code == 0, done.output
    assert fake.submissions[subs["P2"]]["status"] == "REJECTED"
    assert "1 rejected participant(s) (P2) still hold their places" in done.output
    assert "left out of the ratings" in done.output
    assert fake.studies[study_id]["total_available_places"] == places  # only offered, not done

    results = read_prolific(made.study_dir, include_pids=True)
    people = results.participants.set_index("prolific_pid")
    assert people["rejected"].to_dict() == {"P1": False, "P2": True, "P3": False}
    kept = set(results.ratings.data["annotator"])
    assert people.loc["P1", "annotator"] in kept and people.loc["P2", "annotator"] not in kept
    table = results.table
    assert table.loc[table["prolific_pid"] == "P2", "rejected"].all()
    assert not table.loc[table["prolific_pid"] == "P1", "rejected"].any()
    written = run("collect", "prolific", made.study_dir, "--out", made.study_dir / "ratings.csv", "--json")
    assert json.loads(written.output)["rejected"] == 1
    said = run("collect", "prolific", made.study_dir, "--out", made.study_dir / "again.csv").output
    assert "1 participant(s) rejected on Prolific (prolific.json) left out of" in said

    reopened = run("prolific", "review", made.study_dir, "--execute", "--reopen", "--json")
    assert reopened.exit_code == 0, reopened.output
    answer = json.loads(reopened.output)["reopened"]
    assert answer == {"participants": ["P2"], "slots": [slots["P2"]], "places": places + 1, "done": True}
    assert fake.studies[study_id]["total_available_places"] == places + 1
    with sqlite3.connect(made.study_dir / "study.sqlite") as db:
        state = db.execute("SELECT state, participant FROM slot WHERE name = ?", (slots["P2"],)).fetchone()
    assert state == ("free", None)
    # the next participant takes a free slot and completes it; the rejected one stays rejected
    fake.arrive(study_id, "P7")
    assert take_part(app, made.key, make_design(), study_id, "P7") == slots["P2"]  # the first free slot
    again = json.loads(run("prolific", "review", made.study_dir, "--execute", "--reopen", "--json").output)
    assert (
        again["reopened"]["participants"] == []
        and fake.studies[study_id]["total_available_places"] == places + 1
    )
    after = read_prolific(made.study_dir, include_pids=True).participants.set_index("prolific_pid")
    assert not after.loc["P7", "surplus"] and after.loc["P7", "complete"] and after.loc["P2", "rejected"]


def test_the_plan_file_neutralises_a_participant_id_a_spreadsheet_would_run(live, fake, tmp_path):
    made, study_id, *_ = live
    fake.set_status(fake.arrive(study_id, "=HYPERLINK(1)"), "AWAITING REVIEW")
    plan = tmp_path / "plan.csv"
    assert run("prolific", "review", made.study_dir, "--plan", plan).exit_code == 0
    cells = [line.split(",")[1] for line in plan.read_text().splitlines()[1:]]
    assert "'=HYPERLINK(1)" in cells and "=HYPERLINK(1)" not in cells
