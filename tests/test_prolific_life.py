"""A Prolific study's whole life through the CLI, against a stand-in for Prolific's public API
(tests/_fake_prolific.py, reached through PROLIFIC_API_URL) and a real collection server app:
create → publish → submissions arriving, returned and timed out (their slots freed on the
server) → review → bonus → a re-run after an interrupted pay (nothing paid twice) → export.

The money asserted is computed here from the design's cost and Prolific's published rules:
rewards in pence (the design's wage for the minutes Prolific is told), at least £6.00 an hour
(£9.00 recommended, the design's default); bonus amounts in pounds in the request and in pence in
every answer.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from humaneval.cli import main
from humaneval.design.plan import DesignTexts
from humaneval.platforms import prolific
from humaneval.platforms.prolific_study import FULL_REASON, feed_back, http_releaser, read_record
from humaneval.serve import create_app, create_study, open_study
from humaneval.serve.study import URL_QUERY
from tests._designs import cell_texts, summary_text
from tests._fake_prolific import BASE, TOKEN, FakeProlific
from tests.test_serve import NO_LIMIT, TIMING, answers_of, make_design


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


def run(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def take_part(
    app, key: str, design, study_id: str, pid: str, *, checks: str = "pass", screens: int | None = None
):
    body = {"prolific_pid": pid, "study_id": study_id, "session_id": "S_" + pid}
    started = app.post(f"/api/{key}/start", json=body).json()
    rows = design.table[design.table["annotator_slot"] == started["slot"]]
    for index in range(screens if screens is not None else started["total_screens"]):
        answers = answers_of(started, index)
        row = rows[rows["position"] == index].iloc[0]
        if row["is_check"]:
            field = started["form"]["slots"][0]["screens"][index]["entries"][0]["field"]
            answers = {field: str(int(float(row["check_expected"]))) if checks == "pass" else "1"}
        saved = app.post(
            f"/api/{key}/screen",
            json={"token": started["token"], "screen_index": index, "answers": answers, "timing": TIMING},
        )
        assert saved.status_code == 200
    return started["slot"]


def test_the_whole_life_of_a_study(tmp_path, fake):
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), full_code="FULL2026")
    folder = made.study_dir

    # -- create: a dry run sends nothing; --execute posts the draft once and records its id
    dry = run(
        "prolific",
        "create",
        folder,
        "--serve-url",
        "https://annotate.example.org",
        "--group",
        "summ-eval-2026",
        "--exclude-study",
        "OLDSTUDY1",
        "--json",
    )
    assert dry.exit_code == 0, dry.output
    assert fake.posts() == [] and not fake.groups
    created = run(
        "prolific",
        "create",
        folder,
        "--serve-url",
        "https://annotate.example.org",
        "--group",
        "summ-eval-2026",
        "--exclude-study",
        "OLDSTUDY1",
        "--device",
        "desktop",
        "--execute",
        "--json",
    )
    assert created.exit_code == 0, created.output
    answer = json.loads(created.output)
    study_id = answer["study_id"]
    posted = [b for p, b in fake.posts() if p == "studies/"]
    assert len(posted) == 1 and answer["created"] and answer["group_created"]
    body = posted[0]
    cost = design.summary().cost
    minutes = math.ceil(cost.minutes_per_annotator)
    # reward: the design's £9.00 an hour for the whole minutes Prolific is told (5.27 → 6), in pence:
    # 90 pence, so Prolific shows £9.00 an hour; the design's own reward for 316 s is 79 pence
    assert (cost.seconds_per_annotator, minutes, cost.reward_per_annotator) == (316.0, 6, 0.79)
    assert body["reward"] == math.ceil(9.00 * 100 * minutes / 60) == 90
    assert body["reward"] >= math.ceil(6.00 * 100 * minutes / 60) == 60  # Prolific's minimum
    assert body["estimated_completion_time"] == minutes
    assert body["maximum_allowed_time"] == math.ceil(made.slot_timeout_s / 60) >= 20
    assert body["total_available_places"] == made.slots == 6
    assert body["external_study_url"] == f"https://annotate.example.org/s/{made.key}/?{URL_QUERY}"
    assert (
        "{{%PROLIFIC_PID%}}" in body["external_study_url"]
        and "{{%SESSION_ID%}}" in body["external_study_url"]
    )
    assert body["prolific_id_option"] == "url_parameters" and body["device_compatibility"] == ["desktop"]
    group = next(iter(fake.groups))
    assert body["completion_codes"] == [
        {
            "code": made.completion_code,
            "code_type": "COMPLETED",
            "actions": [
                {"action": "MANUALLY_REVIEW"},
                {"action": "ADD_TO_PARTICIPANT_GROUP", "participant_group": group},
            ],
        },
        {
            "code": "FULL2026",
            "code_type": "OTHER",
            "actions": [{"action": "REQUEST_RETURN", "return_reason": FULL_REASON}],
        },
    ]
    assert {"filter_id": "previous_studies_blocklist", "selected_values": ["OLDSTUDY1"]} in body["filters"]
    assert {"filter_id": "participant_group_blocklist", "selected_values": [group]} in body["filters"]
    assert open_study(folder).prolific_study_id == study_id == read_record(folder)["study_id"]
    again = run("prolific", "create", folder, "--serve-url", "https://annotate.example.org", "--execute")
    assert again.exit_code == 0 and "already created" in again.output
    assert len([p for p, _ in fake.posts() if p == "studies/"]) == 1

    # -- publish
    assert (
        run("prolific", "publish", folder).exit_code == 0
        and fake.studies[study_id]["status"] == "UNPUBLISHED"
    )
    published = run("prolific", "publish", folder, "--execute")
    assert published.exit_code == 0 and "status now ACTIVE" in published.output
    assert fake.posts("transition") == [(f"studies/{study_id}/transition/", {"action": "PUBLISH"})]

    # -- participants arrive through the server; two leave without finishing
    app = TestClient(create_app(folder, start_limit=NO_LIMIT))
    subs = {}
    for pid, checks, screens in [
        ("P1", "pass", None),
        ("P2", "fail", None),
        ("P3", "pass", 2),
        ("P4", "pass", 1),
    ]:
        subs[pid] = fake.arrive(study_id, pid)
        take_part(app, made.key, design, study_id, pid, checks=checks, screens=screens)
    fake.set_status(subs["P1"], "AWAITING REVIEW")
    fake.set_status(subs["P2"], "AWAITING REVIEW")
    fake.set_status(subs["P3"], "RETURNED")
    fake.set_status(subs["P4"], "TIMED-OUT")
    fake.arrive(study_id, "P9", "RETURNED")  # returned before ever reaching the server
    admin = {"Authorization": "Bearer " + made.token_path.read_text().strip()}

    status = run("prolific", "status", folder, "--json")
    assert status.exit_code == 0, status.output
    report = json.loads(status.output)
    assert report["status"] == "ACTIVE" and report["counts"] == {
        "AWAITING REVIEW": 2,
        "RETURNED": 2,
        "TIMED-OUT": 1,
    }
    assert sorted((r["status"], r["outcome"]) for r in report["released"]) == [
        ("RETURNED", "freed"),
        ("RETURNED", "not on the server"),
        ("TIMED-OUT", "freed"),
    ]
    dashboard = app.get(f"/admin/{made.key}/dashboard", headers=admin).json()
    assert dashboard["totals"]["returned"] == 2 and dashboard["totals"]["complete"] == 2
    assert dashboard["totals"]["free"] == 6 - 4 + 2
    again = json.loads(run("prolific", "status", folder, "--json").output)
    assert again["released"] == []  # each place is fed back once
    # the freed slots go to newcomers
    assert take_part(app, made.key, design, study_id, "P5", screens=0) in {
        r["slot"] for r in dashboard["participants"] if r["state"] == "returned"
    }

    # -- review: approve in bulk, reject the failed checks with Prolific's required message
    dry = run("prolific", "review", folder, "--json")
    assert json.loads(dry.output)["counts"] == {"approve": 1, "reject": 1}
    assert run("prolific", "review", folder, "--execute").exit_code == 0
    assert fake.posts("bulk-approve") == [("submissions/bulk-approve/", {"submission_ids": [subs["P1"]]})]
    assert (
        fake.submissions[subs["P1"]]["status"] == "APPROVED"
        and fake.submissions[subs["P2"]]["status"] == "REJECTED"
    )

    # -- bonus: pounds in the table and the request, pence in Prolific's answers; the pay request
    # is carried out but its answer is lost: the re-run checks what was paid and pays nothing again
    table = tmp_path / "bonus.csv"
    table.write_text("participant_id,amount\nP1,1.50\nP2,0.25\n")
    checked = run("prolific", "bonus", table, folder, "--json")
    assert checked.exit_code == 0 and not fake.pay_calls
    dry = json.loads(checked.stdout)
    # the study pays 90 pence: a 1.50 bonus is flagged; 1.75 with a third on top is 2.33
    assert (dry["total_pence"], dry["charge_pence"], dry["reward_pence"]) == (175, 233, 90)
    assert dry["above_reward"] == ["P1 1.50"] and checked.stderr.startswith("warning: 1 bonus(es) exceed")
    fake.faults.add("timeout_after_paying")
    first = run("prolific", "bonus", table, folder, "--execute")
    errors = [line for line in first.stderr.splitlines() if not line.startswith("warning: ")]
    assert first.exit_code == 2 and len(errors) == 1 and "not repeated" in errors[0]
    assert fake.posts("bonus-payments/")[0][1] == {"study_id": study_id, "csv_bonuses": "P1,1.50\nP2,0.25\n"}
    fake.faults.clear()
    second = run("prolific", "bonus", table, folder, "--execute", "--json")
    assert second.exit_code == 0, second.output
    assert json.loads(second.stdout)["counts"] == {"paid": 2}
    third = json.loads(run("prolific", "bonus", table, folder, "--execute", "--json").stdout)
    assert third["counts"] == {"already paid": 2}
    assert fake.pay_calls == ["BULK1"] and len(fake.bulks) == 1
    assert fake.submissions[subs["P1"]]["bonus_payments"] == [150] and fake.submissions[subs["P2"]][
        "bonus_payments"
    ] == [25]
    # a new row is paid in a new bulk; the old rows are not paid again
    table.write_text("participant_id,amount\nP1,1.50\nP2,0.25\nP3,0.40\n")
    fourth = json.loads(run("prolific", "bonus", table, folder, "--execute", "--json").stdout)
    assert fourth["counts"] == {"already paid": 2, "paid": 1} and fake.pay_calls == ["BULK1", "BULK2"]
    assert fake.submissions[subs["P3"]]["bonus_payments"] == [40]

    # -- stop and export
    assert (
        run("prolific", "stop", folder, "--execute").exit_code == 0
        and fake.studies[study_id]["status"] == "COMPLETED"
    )
    out = tmp_path / "demographics.csv"
    assert run("prolific", "export", folder, "--out", out).exit_code == 0 and out.read_bytes().startswith(
        b"Participant id"
    )


def test_status_frees_slots_through_a_running_servers_admin_api(tmp_path, fake):
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id="S1")
    fake.studies["S1"] = {"id": "S1", "status": "ACTIVE"}
    app = TestClient(create_app(made.study_dir, start_limit=NO_LIMIT))
    slot = take_part(app, made.key, design, "S1", "PX", screens=1)
    fake.set_status(fake.arrive("S1", "PX"), "TIMED-OUT")
    done = take_part(app, made.key, design, "S1", "PY")
    fake.set_status(fake.arrive("S1", "PY"), "REJECTED")
    frame = prolific.list_submissions(prolific.prolific_client(), "S1")
    fed = feed_back(frame, open_study(made.study_dir), http_releaser(app, made))
    assert fed[["status", "outcome"]].values.tolist() == [
        ["TIMED-OUT", "freed"],
        ["REJECTED", "complete on the server"],
    ]
    admin = {"Authorization": "Bearer " + made.token_path.read_text().strip()}
    states = {
        r["slot"]: r["state"]
        for r in app.get(f"/admin/{made.key}/dashboard", headers=admin).json()["participants"]
    }
    assert states[slot] == "returned" and states[done] == "complete"


def test_create_from_a_design_plans_without_a_folder_then_makes_it(tmp_path, fake):
    design = make_design()
    cells = design.table.loc[design.table["system"] != "", ["document", "system"]].drop_duplicates()
    summaries = {f"{d}|{s}": summary_text(d, s) for d, s in cells.itertuples(index=False)}
    design = dataclasses.replace(design, texts=DesignTexts(summaries=summaries))
    manifest = design.write(tmp_path / "design.csv")["manifest"]
    dry = run("prolific", "create", manifest, "--serve-url", "https://annotate.example.org", "--json")
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.output)
    assert plan["study_id"] is None and plan["study"]["total_available_places"] == 6
    assert not (tmp_path / "design_study").exists() and fake.requests == []
    made = run(
        "prolific", "create", manifest, "--serve-url", "https://annotate.example.org", "--execute", "--json"
    )
    assert made.exit_code == 0, made.output
    study = open_study(tmp_path / "design_study")
    assert study.prolific_study_id == json.loads(made.output)["study_id"]
    assert fake.studies[study.prolific_study_id]["external_study_url"].startswith(
        f"https://annotate.example.org/s/{study.key}/?"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--serve-url", "http://annotate.example.org"], "must be the https:// address"),
        (["--serve-url", "https://a.example", "--reward-pence", "10"], "below Prolific's minimum"),
        (["--serve-url", "https://a.example", "--filter", "{nope"], "--filter: not JSON"),
        (["--serve-url", "https://a.example", "--device", "watch"], "device 'watch' is unknown"),
    ],
)
def test_create_refuses_bad_options_in_one_line(tmp_path, fake, args, message):
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design))
    result = run("prolific", "create", made.study_dir, *args)
    assert result.exit_code == 2 and result.output.count("\n") == 1 and message in result.output
    assert fake.requests == []


def test_create_never_replaces_a_study_id_set_by_hand(tmp_path, fake):
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id="HANDMADE1")
    result = run("prolific", "create", made.study_dir, "--serve-url", "https://a.example", "--execute")
    assert result.exit_code == 0 and "draft HANDMADE1 already created" in result.output
    assert fake.requests == [] and open_study(made.study_dir).prolific_study_id == "HANDMADE1"
