"""The collection server's API (designs-and-forms spec §5.1–5.3) through Starlette's test client.

Slot assignment, resume, timeout release, idempotency, admin auth, hostile input and the
export are checked against values computed here from the design and the answers sent.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import stat
import warnings

import pandas as pd
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from humaneval.cli import main
from humaneval.collect.prolific import EXPORT_COLUMNS, read_prolific
from humaneval.forms import get_preset
from humaneval.forms.screens import block_payloads, design_frame, design_order
from humaneval.forms.write import default_preset_name
from humaneval.serve import create_app, create_study, slot_timeout
from humaneval.serve.limits import StartLimit
from humaneval.serve.loadtest import valid_answers
from humaneval.serve.store import connect
from humaneval.serve.validate import screen_problems
from tests._designs import cell_texts, tiny_design

NO_LIMIT = StartLimit(burst=0)  # these tests start many participants from one test client
TIMING = {
    "shown_at": 1.7e12,
    "answered_at": 1.7e12 + 4000,
    "seconds": 4.0,
    "visible_seconds": 3.5,
    "hidden_count": 1,
}
HOSTILE = "<script>alert(1)</script><img src=x onerror=alert(2)> & é"


def make_design(method: str = "likert", **spec):
    options = {"documents": 6, "documents_per_block": 2, "seed": 11, "checks_per_annotator": 2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tiny_design(method, **{**options, "platform": "prolific", **spec})


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def study(tmp_path):
    design = make_design()
    made = create_study(
        design,
        tmp_path / "study",
        texts=cell_texts(design),
        completion_code="CODE1234",
        prolific_study_id="STUDY",
    )
    clock = Clock()
    client = TestClient(create_app(made.study_dir, clock=clock, start_limit=NO_LIMIT))
    token = made.token_path.read_text().strip()
    return {"study": made, "design": design, "client": client, "clock": clock, "admin": token}


def start(s, pid: str, session: str = "SESSION"):
    return s["client"].post(
        f"/api/{s['study'].key}/start", json={"prolific_pid": pid, "study_id": "STUDY", "session_id": session}
    )


def save(s, token: str, index: int, answers: dict, comment: str = "", timing=None):
    body = {"token": token, "screen_index": index, "answers": answers, "timing": timing or TIMING}
    if comment:
        body["comment"] = comment
    return s["client"].post(f"/api/{s['study'].key}/screen", json=body)


def answers_of(started: dict, index: int, seed: int = 0) -> dict:
    form = started["form"]
    return valid_answers(form["method"], form["preset"], form["slots"][0]["screens"][index], seed + index)


def admin(s, path: str, **kwargs):
    headers = {"Authorization": f"Bearer {s['admin']}"}
    if "json" in kwargs:
        return s["client"].post(f"/admin/{s['study'].key}/{path}", headers=headers, **kwargs)
    return s["client"].get(f"/admin/{s['study'].key}/{path}", headers=headers)


def complete(s, pid: str) -> dict:
    started = start(s, pid).json()
    for index in range(started["next_screen"], started["total_screens"]):
        assert save(s, started["token"], index, answers_of(started, index)).status_code == 200
    return started


def test_study_folder_keeps_secrets_out_of_page_and_database(study):
    s = study
    made = s["study"]
    assert made.slots == 6 and made.blocks == 3
    assert stat.S_IMODE(made.token_path.stat().st_mode) == 0o600
    raw = made.db_path.read_bytes() + (
        made.db_path.with_name("study.sqlite-wal").read_bytes()
        if made.db_path.with_name("study.sqlite-wal").exists()
        else b""
    )
    assert s["admin"].encode() not in raw  # only its SHA-256 is stored
    page = s["client"].get(f"/s/{made.key}/?PROLIFIC_PID=X&STUDY_ID=Y&SESSION_ID=Z")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "CODE1234" not in page.text and "Summary of" not in page.text  # no code, no texts
    assert "nonce-" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    assert "access-control-allow-origin" not in page.headers
    assert made.url("https://h.example") == (
        f"https://h.example/s/{made.key}/?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}"
        "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )
    connection = connect(made.db_path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    connection.close()


def test_slot_timeout_default():
    assert slot_timeout(45, 10, 600) == 2700  # Prolific maximum time wins
    assert slot_timeout(None, 10, 600) == 1800  # 3 × the estimate
    assert slot_timeout(None, None, 600) == 1800  # 3 × the design's seconds per annotator
    assert slot_timeout(None, 2, None) == 1200  # never below 20 minutes


def test_blocks_fill_evenly_then_study_full(study):
    s = study
    slots = [start(s, f"P{i}").json()["slot"] for i in range(6)]
    # fewest reserved+complete first, ties to the lowest block, lowest free slot inside it
    assert slots == ["b000-a1", "b001-a1", "b002-a1", "b000-a2", "b001-a2", "b002-a2"]
    full = start(s, "P6")
    assert full.status_code == 409 and full.json()["error"] == "study_full"
    status = admin(s, "status").json()
    assert [(b["planned"], b["reserved"], b["complete"]) for b in status["blocks"]] == [(2, 2, 0)] * 3


def test_completed_slots_count_towards_block_balance(study):
    s = study
    complete(s, "P0")  # b000-a1 complete
    assert start(s, "P1").json()["slot"] == "b001-a1"
    assert start(s, "P2").json()["slot"] == "b002-a1"
    assert start(s, "P3").json()["slot"] == "b000-a2"


def test_excluded_pids_are_not_eligible(tmp_path):
    design = make_design()
    made = create_study(design, tmp_path / "s", texts=cell_texts(design), exclude_pids=["SIBLING1"])
    client = TestClient(create_app(made.study_dir, pilot=True))
    body = {"prolific_pid": "SIBLING1", "study_id": "S", "session_id": "X"}
    response = client.post(f"/api/{made.key}/start", json=body)
    assert response.status_code == 403 and response.json()["error"] == "not_eligible"


def test_reload_resumes_with_a_new_token_and_revokes_the_old(study):
    s = study
    first = start(s, "PID1").json()
    for index in range(3):
        assert save(s, first["token"], index, answers_of(first, index)).json() == {
            "stored": True,
            "duplicate": False,
            "next_screen": index + 1,
            "done": False,
        }
    again = start(s, "PID1", session="SESSION2").json()
    assert again["slot"] == first["slot"] and again["next_screen"] == 3 and again["token"] != first["token"]
    revoked = save(s, first["token"], 3, answers_of(first, 3))
    assert revoked.status_code == 401 and revoked.json()["error"] == "bad_token"
    assert save(s, again["token"], 3, answers_of(again, 3)).json()["next_screen"] == 4
    sessions = sqlite3.connect(s["study"].db_path).execute(
        "SELECT session_id_param FROM response ORDER BY screen_index"
    )
    assert [r[0] for r in sessions] == ["SESSION"] * 3 + ["SESSION2"]


def test_repeated_screens_are_idempotent_and_first_write_wins(study):
    s = study
    started = start(s, "PID1").json()
    answers = answers_of(started, 0)
    assert save(s, started["token"], 0, answers).json()["duplicate"] is False
    retry_timing = {**TIMING, "seconds": 9.0}  # a retry may carry other timings: same answers = duplicate
    repeat = save(s, started["token"], 0, answers, timing=retry_timing)
    assert repeat.status_code == 200 and repeat.json() == {
        "stored": True,
        "duplicate": True,
        "next_screen": 1,
        "done": False,
    }
    other = {k: str(int(v) % 7 + 1) for k, v in answers.items()}
    conflict = save(s, started["token"], 0, other)
    assert conflict.status_code == 409 and conflict.json()["error"] == "conflict"
    ahead = save(s, started["token"], 3, answers_of(started, 3))
    assert ahead.status_code == 409 and ahead.json() == {
        "error": "out_of_order",
        "details": ["screen 1 comes first"],
        "next_screen": 1,
    }
    rows = (
        sqlite3.connect(s["study"].db_path).execute("SELECT COUNT(*), MAX(seconds) FROM response").fetchone()
    )
    assert rows == (1, 4.0)  # one row, the first write's timing


def test_finish_only_after_the_last_screen(study):
    s = study
    started = start(s, "PID1").json()
    early = s["client"].post(f"/api/{s['study'].key}/finish", json={"token": started["token"]})
    assert early.status_code == 409 and early.json()["error"] == "incomplete"
    for index in range(started["total_screens"]):
        last = save(s, started["token"], index, answers_of(started, index)).json()
    assert last["done"] is True
    done = s["client"].post(f"/api/{s['study'].key}/finish", json={"token": started["token"]}).json()
    assert done == {
        "completion_url": "https://app.prolific.com/submissions/complete?cc=CODE1234",
        "completion_code": "CODE1234",
    }
    slot = (
        sqlite3.connect(s["study"].db_path)
        .execute("SELECT state FROM slot WHERE name = ?", (started["slot"],))
        .fetchone()
    )
    assert slot == ("complete",)


def test_expired_reservation_is_reassigned_and_the_late_one_is_surplus(tmp_path):
    design = make_design(documents=2, annotators_per_block=1)  # one block, one slot
    made = create_study(design, tmp_path / "s", texts=cell_texts(design), completion_code="CODE1234")
    clock = Clock()
    s = {
        "study": made,
        "client": TestClient(create_app(made.study_dir, clock=clock, pilot=True, start_limit=NO_LIMIT)),
    }
    s["admin"] = made.token_path.read_text().strip()
    slow = start(s, "SLOW").json()
    assert save(s, slow["token"], 0, answers_of(slow, 0)).status_code == 200
    assert start(s, "EARLY").json()["error"] == "study_full"
    clock.now += made.slot_timeout_s + 1
    fresh = start(s, "FRESH").json()
    assert fresh["slot"] == slow["slot"] and fresh["next_screen"] == 0
    status = admin(s, "status").json()["blocks"][0]
    assert (status["reserved"], status["released"], status["late"]) == (1, 1, 0)
    for index in range(fresh["total_screens"]):
        save(s, fresh["token"], index, answers_of(fresh, index, seed=5))
    clock.now += 60
    for index in range(1, slow["total_screens"]):  # the released participant keeps writing (late)
        assert save(s, slow["token"], index, answers_of(slow, index)).status_code == 200
    code = s["client"].post(f"/api/{made.key}/finish", json={"token": slow["token"]}).json()
    assert code["completion_code"] == "CODE1234"  # late work is paid
    people = read_prolific(made.db_path).participants.set_index("annotator_slot", append=True)
    flags = people[["complete", "late", "surplus"]].astype(bool).values.tolist()
    assert sorted(flags) == [[True, False, False], [True, True, True]]  # late SLOW finished last
    ratings = read_prolific(made.db_path).ratings
    assert ratings.data["annotator"].nunique() == 1  # exactly a = 1 per block for analysis


def test_admin_needs_the_token_and_release_frees_a_slot(study):
    s = study
    key = s["study"].key
    assert s["client"].get(f"/admin/{key}/status").status_code == 401
    assert admin(s, "export").json()["error"] == "no_data"  # nobody started yet: 409, not a crash
    wrong = s["client"].get(f"/admin/{key}/status", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403 and wrong.json()["error"] == "forbidden"
    started = start(s, "RETURNER").json()
    released = admin(s, "release", json={"prolific_pid": "RETURNER"})
    assert released.json() == {"released": True, "slot": started["slot"], "slot_freed": True}
    assert start(s, "NEXT").json()["slot"] == started["slot"]
    assert admin(s, "release", json={"prolific_pid": "NOBODY"}).status_code == 404
    assert admin(s, "status").json()["blocks"][0]["released"] == 1


def test_hostile_and_malformed_requests_get_their_codes_and_change_nothing(study):
    s = study
    key = s["study"].key
    client = s["client"]
    started = start(s, "PID1").json()
    token = started["token"]
    screen0 = started["form"]["slots"][0]["screens"][0]
    field = screen0["entries"][0]["field"]
    good = answers_of(started, 0)

    def post(body, **kw):
        return client.post(f"/api/{key}/screen", **(kw or {"json": body}))

    base = {"token": token, "screen_index": 0, "answers": good, "timing": TIMING}

    def chunks():  # no Content-Length: the limit is enforced while streaming
        yield b'{"comment": "'
        for _ in range(20):
            yield b"y" * 4096
        yield b'"}'

    cases = [
        (post(None, content=chunks(), headers={"content-type": "application/json"}), 413, "too_large"),
        (
            post(None, content=b"{" + b" " * 70_000 + b"}", headers={"content-type": "application/json"}),
            413,
            "too_large",
        ),
        (
            post(None, content=json.dumps(base), headers={"content-type": "text/plain"}),
            415,
            "unsupported_media_type",
        ),
        (post(None, content=b"{not json", headers={"content-type": "application/json"}), 400, "invalid_json"),
        (post([1, 2]), 400, "invalid_json"),
        (post({**base, "token": "forged"}), 401, "bad_token"),
        (post({**base, "screen_index": "0"}), 422, "validation_failed"),
        (post({**base, "screen_index": 99}), 422, "validation_failed"),
        (post({**base, "answers": [1]}), 422, "validation_failed"),
        (post({**base, "answers": {field: "8"}}), 422, "validation_failed"),
        (post({**base, "answers": {field: HOSTILE}}), 422, "validation_failed"),
        (post({**base, "answers": {**good, "lk_q0_d9_s9": "3"}}), 422, "validation_failed"),
        (post({**base, "answers": {}}), 422, "validation_failed"),
        (post({**base, "timing": {**TIMING, "seconds": -1}}), 422, "validation_failed"),
        (post({**base, "timing": {**TIMING, "seconds": "fast"}}), 422, "validation_failed"),
        (post({**base, "comment": "x" * 2001}), 422, "validation_failed"),
        (post({**base, "prolific_pid": "SOMEONE_ELSE"}), 422, "validation_failed"),
        (client.post("/api/nokey/screen", json=base), 404, "unknown_study"),
        (client.get(f"/api/{key}/screen"), 405, "method_not_allowed"),
    ]
    for response, status, code in cases:
        assert (response.status_code, response.json()["error"]) == (status, code), response.text
        assert isinstance(response.json()["details"], list)
        assert HOSTILE not in response.text and "x" * 2001 not in response.text  # never echoed
    details = cases[9][0].json()["details"]
    assert details == [f"{field}: must be a whole number from 1 to 7"]
    assert sqlite3.connect(s["study"].db_path).execute("SELECT COUNT(*) FROM response").fetchone() == (0,)


def test_one_participant_cannot_touch_another(study):
    s = study
    alice, bob = start(s, "ALICE").json(), start(s, "BOB").json()
    assert save(s, alice["token"], 0, answers_of(alice, 0)).status_code == 200
    # Bob's token writes Bob's screen 0 only; Alice's stored row is unchanged
    assert save(s, bob["token"], 0, answers_of(bob, 0, seed=3)).status_code == 200
    rows = sqlite3.connect(s["study"].db_path).execute(
        "SELECT p.prolific_pid, r.payload_json FROM response r JOIN participant p ON p.id = r.participant"
    )
    stored = {pid: json.loads(payload)["answers"] for pid, payload in rows}
    assert stored == {"ALICE": answers_of(alice, 0), "BOB": answers_of(bob, 0, seed=3)}


@pytest.mark.parametrize(
    ("method", "spec", "bad", "message"),
    [
        ("rank", {}, "duplicate", "ranks must use each of 1..3 exactly once"),
        ("rank", {}, "ties", "ranks must use each of 1..3 exactly once"),
        ("bws", {"systems": ["A", "B", "C", "D", "E"]}, "same", "best and worst must be different summaries"),
        ("pairwise", {}, "side", "must be one of A, B, tie"),
    ],
)
def test_screen_rules_of_each_widget(method, spec, bad, message):
    design = make_design(method, checks_per_annotator=0, **spec)
    preset = get_preset(default_preset_name(method, "coherence"))
    payload = next(
        iter(
            block_payloads(
                design_frame(design), cell_texts(design), preset, per_slot=True, order=design_order(design)
            ).values()
        )
    )
    screen = payload["slots"][0]["screens"][0]
    ok = valid_answers(method, preset.to_dict(), screen, 1)
    assert screen_problems(method, preset.to_dict(), screen, ok) == []
    wrong = dict(ok)
    if method == "rank":
        fields = [e["field"] for e in screen["entries"]]
        wrong[fields[0]], wrong[fields[1]] = (
            ("1", "1") if bad == "ties" else (wrong[fields[1]], wrong[fields[1]])
        )
    elif method == "bws":
        wrong[screen["field"] + "_worst"] = wrong[screen["field"] + "_best"]
    else:
        wrong[screen["field"]] = "C"
    problems = screen_problems(method, preset.to_dict(), screen, wrong)
    assert any(message in p for p in problems), problems


def test_export_equals_what_was_entered_with_check_outcomes(study):
    s = study
    design = s["design"]
    started = start(s, "PIDX").json()
    screens = started["form"]["slots"][0]["screens"]
    rows = design.table[design.table["annotator_slot"] == started["slot"]]
    entered = {}
    for index, screen in enumerate(screens):
        answers = answers_of(started, index)
        row = rows[rows["position"] == index].iloc[0]
        if row["is_check"]:
            answers = {screen["entries"][0]["field"]: "1"}  # instructed value is never 1: both IMCs fail
        else:
            entered[(row["document"], row["system"])] = int(next(iter(answers.values())))
        comment = HOSTILE if index == 1 else ""
        assert save(s, started["token"], index, answers, comment=comment).status_code == 200
    partial = start(s, "PARTIAL").json()
    save(s, partial["token"], 0, answers_of(partial, 0))
    results = read_prolific(s["study"].db_path)
    got = {(r.document, r.system): r.score for r in results.ratings.without_checks().data.itertuples()}
    assert got == entered and len(got) == 6  # the incomplete participant is not in the ratings
    table = results.table
    assert tuple(table.columns) == EXPORT_COLUMNS
    assert len(table) == started["total_screens"] + 1  # only stored screens
    checks = table[table["is_check"]]
    assert checks["check_passed"].tolist() == [False, False]
    mine = results.participants[results.participants["complete"]].iloc[0]
    assert (mine["checks_total"], mine["checks_failed"], mine["imc_failed"]) == (2, 2, 2)
    assert bool(mine["prolific_rejection_eligible"]) is True
    assert mine["total_seconds"] == pytest.approx(4.0 * started["total_screens"])
    assert (table["seconds"] == 4.0).all() and (table["visible_seconds"] == 3.5).all()
    assert (table["comment"] == HOSTILE).sum() == 1
    assert "PIDX" not in table.to_csv() and table["annotator"].str.fullmatch(r"w_[0-9a-f]{12}").all()
    with_pids = read_prolific(s["study"].db_path, include_pids=True).table
    assert set(with_pids["prolific_pid"]) == {"PIDX", "PARTIAL"} and set(with_pids["study_id"]) == {"STUDY"}
    # the admin export carries the same table; HTML in comments stays inert data
    exported = admin(s, "export?format=json")
    assert exported.headers["content-type"].startswith("application/json")
    assert exported.headers["x-content-type-options"] == "nosniff"
    assert sum(r["comment"] == HOSTILE for r in exported.json()) == 1
    csv = admin(s, "export?format=csv")
    assert (
        csv.headers["content-type"].startswith("text/csv")
        and "attachment" in csv.headers["content-disposition"]
    )
    assert len(pd.read_csv(pd.io.common.StringIO(csv.text))) == len(table)


def test_access_log_omits_query_strings(study, caplog):
    s = study
    with caplog.at_level(logging.INFO, logger="humaneval.serve"):
        s["client"].get(f"/s/{s['study'].key}/?PROLIFIC_PID=SECRETPID&STUDY_ID=Y&SESSION_ID=Z")
    assert any(f"/s/{s['study'].key}/ 200" in r.getMessage() for r in caplog.records)
    assert not any("SECRETPID" in r.getMessage() for r in caplog.records)


def test_cli_init_and_collect_prolific(tmp_path):
    design = make_design()
    paths = design.write(tmp_path / "design.csv")
    texts = tmp_path / "texts.json"
    texts.write_text(json.dumps(cell_texts(design).to_json()), encoding="utf-8")
    consent, pids = tmp_path / "consent.txt", tmp_path / "pids.txt"
    consent.write_text("I agree to **take part**.\n", encoding="utf-8")
    pids.write_text("SIB2\nSIB1\n\n", encoding="utf-8")
    runner = CliRunner()
    made = runner.invoke(
        main,
        [
            "serve",
            "init",
            str(paths["manifest"]),
            str(tmp_path / "st"),
            "--texts",
            str(texts),
            "--completion-code",
            "CODE9999",
            "--key",
            "mystudy",
            "--consent",
            str(consent),
            "--exclude-pids",
            str(pids),
            "--json",
        ],
    )
    assert made.exit_code == 0, made.output
    info = json.loads(made.output)
    assert (info["key"], info["slots"], info["completion_code"]) == ("mystudy", 6, "CODE9999")
    stored = connect(info["database"])
    config = json.loads(stored.execute("SELECT config_json FROM study").fetchone()["config_json"])
    payload = json.loads(stored.execute("SELECT payload_json FROM slot").fetchone()["payload_json"])
    stored.close()
    assert config["exclude_pids"] == ["SIB1", "SIB2"] and payload["consent"] == "I agree to **take part**.\n"
    again = runner.invoke(
        main, ["serve", "init", str(paths["manifest"]), str(tmp_path / "st"), "--texts", str(texts)]
    )
    assert again.exit_code == 2 and "already holds a study" in again.output
    client = TestClient(create_app(tmp_path / "st", pilot=True))
    s = {"study": type("S", (), {"key": "mystudy"}), "client": client}
    complete(s, "PID1")
    out = tmp_path / "ratings.csv"
    result = runner.invoke(
        main, ["collect", "prolific", str(tmp_path / "st" / "study.sqlite"), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    # 6 judgements + the 2 attention checks, kept as is_check rows for QC (as the MTurk parser does);
    # the checks are not counted as ratings (issue 29)
    assert (payload["participants"], payload["complete"], payload["ratings"]) == (1, 1, 6)
    assert payload["attention_checks"] == 2
    assert (
        "wrote 6 ratings and 2 attention-check answers"
        in runner.invoke(
            main, ["collect", "prolific", str(tmp_path / "st" / "study.sqlite"), "--out", str(out)]
        ).output
    )
    written = pd.read_csv(out)
    assert len(written) == 8 and written["is_check"].sum() == 2
    backup = runner.invoke(main, ["serve", "backup", str(tmp_path / "st"), str(tmp_path / "copy.sqlite")])
    assert backup.exit_code == 0, backup.output
    copied = read_prolific(tmp_path / "copy.sqlite")
    assert len(copied.table) == len(read_prolific(tmp_path / "st").table) == 8
    again = runner.invoke(main, ["serve", "backup", str(tmp_path / "st"), str(tmp_path / "copy.sqlite")])
    assert again.exit_code == 2 and "exists" in again.output
    empty = runner.invoke(main, ["collect", "prolific", str(tmp_path / "nowhere.sqlite"), "--out", str(out)])
    assert empty.exit_code == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["collect", "prolific", "{notes}", "--out", "{out}"], "notes.csv: not an SQLite database"),
        (["collect", "prolific", "{empty}", "--out", "{out}"], "empty.csv: not an SQLite database"),
        (["serve", "init", "{manifest}", "{notes}", "--texts", "{texts}"], "notes.csv: is a file"),
        (["serve", "init", "{tmp}/gone.json", "{tmp}/st"], "gone.json: no such file"),
        (["serve", "init", "{manifest}", "{tmp}/st", "--consent", "{tmp}"], "is a folder"),
        (["serve", "run", "{notes}"], "notes.csv: no study.sqlite here"),
    ],
)
def test_cli_bad_input_files_are_one_line(tmp_path, args, message):
    paths = make_design().write(tmp_path / "design.csv")
    files = {"notes": tmp_path / "notes.csv", "empty": tmp_path / "empty.csv", "texts": tmp_path / "t.json"}
    files["notes"].write_text("a,b\n", encoding="utf-8")
    files["empty"].write_bytes(b"")
    files["texts"].write_text(json.dumps(cell_texts(make_design()).to_json()), encoding="utf-8")
    names = {k: str(v) for k, v in files.items()} | {"manifest": paths["manifest"], "tmp": tmp_path}
    result = CliRunner().invoke(main, [a.format(out=tmp_path / "out.csv", **names) for a in args])
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1 and result.exception.__class__ is SystemExit
    assert files["empty"].read_bytes() == b""  # reading never writes into the given file


def test_direct_assessment_export_adds_annotator_z_scores(tmp_path):
    design = make_design("da", checks_per_annotator=0)
    made = create_study(design, tmp_path / "s", texts=cell_texts(design))
    s = {"study": made, "client": TestClient(create_app(made.study_dir, pilot=True))}
    started = complete(s, "DA1")
    table = read_prolific(made.db_path).table
    sent = [int(next(iter(answers_of(started, i).values()))) for i in range(started["total_screens"])]
    values = table["value"].astype(float).to_numpy()
    assert sorted(values) == sorted(sent)
    expected = (values - values.mean()) / values.std(ddof=1)
    assert table["z_value"].to_numpy() == pytest.approx(expected)


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def _design(tmp_path):
    out = _cli("design", "--documents", "10", "--systems", "A,B", "--out", str(tmp_path / "design.csv"))
    assert out.exit_code == 0, out.output
    return tmp_path / "design.csv"


def test_serve_init_has_the_placeholder_texts_it_suggests(tmp_path):
    design = _design(tmp_path).with_suffix(".json")
    bare = _cli("serve", "init", str(design), str(tmp_path / "s1"))
    assert bare.exit_code == 2 and "--placeholder-texts" in bare.output
    out = _cli("serve", "init", str(design), str(tmp_path / "s2"), "--placeholder-texts", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["slots"] > 0
