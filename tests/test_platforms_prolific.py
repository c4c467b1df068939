"""Prolific's API layer against recorded responses (httpx.MockTransport; no network).

A collection-server study is filled through the real app (one participant passes both attention
checks, one fails both, one stops half-way); Prolific's side is a mock that answers like its API
and records every request, so the test sees exactly what would be approved and rejected.
"""

from __future__ import annotations

import json
import stat

import httpx
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from humaneval.cli import main
from humaneval.errors import DesignError, PlatformError
from humaneval.platforms import prolific
from humaneval.platforms.review import rejection_message
from humaneval.serve import create_app, create_study
from tests._designs import cell_texts
from tests.test_serve import NO_LIMIT, TIMING, answers_of, make_design

STUDY_ID = "65f0c0ffee0123456789abcd"


def fill(tmp_path):
    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id=STUDY_ID)
    app = TestClient(create_app(made.study_dir, start_limit=NO_LIMIT))

    def take_part(pid: str, checks: str, screens: int | None = None) -> None:
        body = {"prolific_pid": pid, "study_id": STUDY_ID, "session_id": "SUB_" + pid}
        started = app.post(f"/api/{made.key}/start", json=body).json()
        rows = design.table[design.table["annotator_slot"] == started["slot"]]
        for index in range(screens if screens is not None else started["total_screens"]):
            answers = answers_of(started, index)
            row = rows[rows["position"] == index].iloc[0]
            if row["is_check"]:
                field = started["form"]["slots"][0]["screens"][index]["entries"][0]["field"]
                answers = {field: str(int(float(row["check_expected"]))) if checks == "pass" else "1"}
            body = {"token": started["token"], "screen_index": index, "answers": answers, "timing": TIMING}
            assert app.post(f"/api/{made.key}/screen", json=body).status_code == 200

    take_part("PGOOD", "pass")
    take_part("PFAIL", "fail")
    take_part("PHALF", "pass", screens=2)
    return made


SUBMISSIONS = [
    {
        "id": "SUB_PGOOD",
        "participant_id": "PGOOD",
        "status": "AWAITING REVIEW",
        "started_at": "2026-11-21T05:00:00Z",
    },
    {
        "id": "SUB_PFAIL",
        "participant_id": "PFAIL",
        "status": "AWAITING REVIEW",
        "started_at": "2026-11-21T05:01:00Z",
    },
    {
        "id": "SUB_PHALF",
        "participant_id": "PHALF",
        "status": "AWAITING REVIEW",
        "started_at": "2026-11-21T05:02:00Z",
    },
    {
        "id": "SUB_GHOST",
        "participant_id": "PGHOST",
        "status": "AWAITING REVIEW",
        "started_at": "2026-11-21T05:03:00Z",
    },
    {"id": "SUB_DONE", "participant_id": "POLD", "status": "APPROVED", "started_at": "2026-11-21T04:00:00Z"},
    {"id": "SUB_GONE", "participant_id": "PGONE", "status": "RETURNED", "started_at": "2026-11-21T04:30:00Z"},
]


class RecordedProlific:
    """Answers like Prolific's API (two pages of submissions, transitions, the export); records requests."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        assert request.headers["authorization"] == "Token secret-token"
        path = request.url.path
        if path == f"/api/v1/studies/{STUDY_ID}/submissions/":
            if request.url.params.get("page") == "2":
                return httpx.Response(
                    200, json={"results": SUBMISSIONS[4:], "_links": {"next": {"href": None}}}
                )
            nxt = f"{prolific.API}studies/{STUDY_ID}/submissions/?page=2"
            return httpx.Response(200, json={"results": SUBMISSIONS[:4], "_links": {"next": {"href": nxt}}})
        if path == "/api/v1/submissions/bulk-approve/":
            return httpx.Response(200, json="The request to bulk approve is being processed.")
        if path.startswith("/api/v1/submissions/") and path.endswith("/transition/"):
            body = json.loads(request.content)
            status = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}[body["action"]]
            return httpx.Response(200, json={"id": path.split("/")[4], "status": status})
        if path == f"/api/v1/studies/{STUDY_ID}/export/":
            return httpx.Response(
                200, content=b"Participant id,Age\r\nPGOOD,31\r\n", headers={"content-type": "text/csv"}
            )
        return httpx.Response(404, json={"error": {"detail": "Not found."}})


@pytest.fixture
def api():
    recorded = RecordedProlific()
    return recorded, prolific.prolific_client("secret-token", transport=httpx.MockTransport(recorded))


def test_review_rejects_only_complete_failed_checks(tmp_path, api):
    made = fill(tmp_path)
    recorded, client = api
    submissions = prolific.list_submissions(client, STUDY_ID)
    assert submissions["id"].tolist() == [s["id"] for s in SUBMISSIONS]  # both pages
    plan = prolific.review_plan(submissions, made.study_dir)
    assert plan[["submission_id", "checks_total", "imc_failed", "action"]].values.tolist() == [
        ["SUB_PGOOD", 2, 0, "approve"],
        ["SUB_PFAIL", 2, 2, "reject"],
        ["SUB_PHALF", 1, 0, "review"],  # incomplete (2 of 8 screens): a person decides
        ["SUB_GHOST", 0, 0, "review"],  # not in the database
    ]
    assert plan["screens_saved"].fillna(-1).tolist() == [8, 8, 2, -1] and plan["screens_total"].tolist()[
        :3
    ] == [
        8,
        8,
        8,
    ]
    # Prolific's participant id beside the submission id, as its web app shows them (issue 45)
    assert plan["participant_id"].tolist() == ["PGOOD", "PFAIL", "PHALF", "PGHOST"]
    recorded.requests.clear()
    done = prolific.apply_review(plan, client)
    assert done["done"].tolist() == [True, True, False, False]
    sent = [(r.method, r.url.path, json.loads(r.content)) for r in recorded.requests]
    assert sent == [
        ("POST", "/api/v1/submissions/bulk-approve/", {"submission_ids": ["SUB_PGOOD"]}),
        (
            "POST",
            "/api/v1/submissions/SUB_PFAIL/transition/",
            {"action": "REJECT", "message": rejection_message(2, 2), "rejection_category": "FAILED_CHECK"},
        ),
    ]
    assert len(sent[1][2]["message"]) >= 100  # Prolific's minimum for a rejection message


def test_errors_are_one_line_and_the_token_stays_on_prolific(tmp_path, api):
    _, client = api
    with pytest.raises(
        PlatformError, match=r"Prolific refused GET studies/NOPE/submissions/ \(404\): Not found\."
    ):
        prolific.list_submissions(client, "NOPE")

    def elsewhere(request):
        return httpx.Response(
            200, json={"results": [], "_links": {"next": {"href": "https://evil.example/x"}}}
        )

    other = prolific.prolific_client("secret-token", transport=httpx.MockTransport(elsewhere))
    with pytest.raises(PlatformError, match=r"not on https://api\.prolific\.com/api/v1/; refusing"):
        prolific.list_submissions(other, STUDY_ID)
    with pytest.raises(DesignError, match="no Prolific API token: set PROLIFIC_TOKEN"):
        prolific.prolific_client("")


def test_cli_review_is_a_dry_run_and_export_is_private(tmp_path, api, monkeypatch):
    made = fill(tmp_path)
    recorded, client = api
    monkeypatch.setattr(prolific, "prolific_client", lambda token=None, transport=None: client)
    token = tmp_path / "token.txt"
    token.write_text("secret-token\n")
    runner = CliRunner()
    listed = runner.invoke(
        main, ["prolific", "submissions", str(made.study_dir), "--token-file", str(token), "--json"]
    )
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.output)["counts"] == {"AWAITING REVIEW": 4, "APPROVED": 1, "RETURNED": 1}
    dry = runner.invoke(main, ["prolific", "review", str(made.study_dir), "--json"])
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.output)["counts"] == {"approve": 1, "reject": 1, "review": 2}
    assert all(r.method == "GET" for r in recorded.requests)  # nothing approved or rejected
    real = runner.invoke(main, ["prolific", "review", str(made.study_dir), "--execute"])
    assert real.exit_code == 0 and "1 approve, 1 reject, 2 to review by hand: done" in real.output
    assert sum(r.method == "POST" for r in recorded.requests) == 2
    out = tmp_path / "demographics.csv"
    saved = runner.invoke(main, ["prolific", "export", str(made.study_dir), "--out", str(out)])
    assert saved.exit_code == 0, saved.output
    assert (
        out.read_bytes() == b"Participant id,Age\r\nPGOOD,31\r\n"
        and stat.S_IMODE(out.stat().st_mode) == 0o600
    )
