"""A stand-in for Prolific's public API v1 (https://docs.prolific.com/api-reference), for httpx's
MockTransport: the paths, JSON shapes, statuses and money units of the documented endpoints a
study's life uses, with a record of every request and switches for hostile answers."""

from __future__ import annotations

import json
import threading
import time
from decimal import Decimal
from typing import Any

import httpx

BASE = "https://prolific.test/api/v1/"
TOKEN = "secret-token"


class FakeProlific:
    """Studies, submissions, participant groups and bulk bonuses held in memory."""

    def __init__(self, *, page_size: int = 2) -> None:
        self.requests: list[httpx.Request] = []
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, dict[str, Any]] = {}
        self.groups: dict[str, dict[str, Any]] = {}
        self.bulks: dict[str, dict[str, Any]] = {}
        self.page_size = page_size
        self.pay_calls: list[str] = []
        #: Every bonus paid, in order: ``(bulk id or "web app", submission id, pence)``.
        self.payments: list[tuple[str, str, int]] = []
        #: "timeout_after_paying": the pay request is carried out, then the connection drops;
        #: "error_before_paying": 500 without paying; "pounds": bulk amounts answered in pounds.
        self.faults: set[str] = set()
        #: Seconds creating a bulk bonus takes (two runs at once overlap in it).
        self.create_delay = 0.0
        #: How many pay requests are answered 429 (with ``Retry-After: retry_after``) before one is served.
        self.rate_limited_pays = 0
        self.retry_after = "1"
        self._lock = threading.Lock()

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    # -- the participants' side -----------------------------------------------------------------

    def arrive(self, study_id: str, participant: str, status: str = "ACTIVE") -> str:
        submission = f"SUB{len(self.submissions) + 1:04d}"
        self.submissions[submission] = {
            "id": submission,
            "participant_id": participant,
            "study_id": study_id,
            "status": status,
            "started_at": "2026-11-27T10:00:00Z",
            "completed_at": None,
            "study_code": None,
            "bonus_payments": [],
        }
        return submission

    def pay_from_web_app(self, submission: str, pence: int) -> None:
        """A bonus paid in Prolific's web app: in Prolific's record, not in any ledger."""
        self.submissions[submission]["bonus_payments"].append(pence)
        self.payments.append(("web app", submission, pence))

    def set_status(self, submission: str, status: str) -> None:
        self.submissions[submission]["status"] = status

    def posts(self, fragment: str = "") -> list[tuple[str, Any]]:
        return [
            (r.url.path.removeprefix("/api/v1/"), json.loads(r.content) if r.content else None)
            for r in self.requests
            if r.method == "POST" and fragment in r.url.path
        ]

    # -- the API --------------------------------------------------------------------------------

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if self.create_delay and request.url.path.endswith("/bonus-payments/"):
            time.sleep(self.create_delay)
        with self._lock:
            return self._serve(request)

    def _serve(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.headers.get("authorization") != f"Token {TOKEN}":
            return _error(401, "Authentication credentials were not provided.")
        path = request.url.path.removeprefix("/api/v1/")
        body = json.loads(request.content) if request.content else {}
        parts = path.strip("/").split("/")
        handler = getattr(self, f"_{request.method.lower()}_{parts[0].replace('-', '_')}", None)
        if handler is None:
            return _error(404, "Not found.")
        return handler(parts[1:], body, request)

    def _post_studies(self, parts, body, request):
        if not parts:
            missing = [
                k
                for k in (
                    "name",
                    "description",
                    "external_study_url",
                    "prolific_id_option",
                    "total_available_places",
                    "estimated_completion_time",
                    "reward",
                )
                if k not in body
            ]
            if missing or not isinstance(body["reward"], int):
                return _error(400, {k: ["This field is required."] for k in missing} or "reward: integer")
            study_id = f"{len(self.studies) + 1:024x}"
            self.studies[study_id] = {**body, "id": study_id, "status": "UNPUBLISHED"}
            return httpx.Response(201, json=self.studies[study_id])
        study = self.studies.get(parts[0])
        if study is None or parts[1:] != ["transition"]:
            return _error(404, "Not found.")
        moves = {
            ("UNPUBLISHED", "PUBLISH"): "ACTIVE",
            ("ACTIVE", "PAUSE"): "PAUSED",
            ("PAUSED", "START"): "ACTIVE",
            ("ACTIVE", "STOP"): "COMPLETED",
            ("PAUSED", "STOP"): "COMPLETED",
        }
        new = moves.get((study["status"], body.get("action")))
        if new is None:
            return _error(400, f"cannot {body.get('action')} a study that is {study['status']}")
        study["status"] = new
        return httpx.Response(200, json=study)

    def _get_studies(self, parts, body, request):
        study = self.studies.get(parts[0]) if parts else None
        if study is None:
            return _error(404, "Not found.")
        if parts[1:] == []:
            return httpx.Response(200, json=study)
        if parts[1:] == ["export"]:
            return httpx.Response(
                200, content=b"Participant id,Age\r\nP1,31\r\n", headers={"content-type": "text/csv"}
            )
        if parts[1:] == ["submissions"]:
            rows = [
                {
                    k: s[k]
                    for k in ("id", "participant_id", "status", "started_at", "completed_at", "study_code")
                }
                for s in self.submissions.values()
                if s["study_id"] == parts[0]
            ]
            page = int(request.url.params.get("page", "1"))
            chunk = rows[(page - 1) * self.page_size : page * self.page_size]
            more = page * self.page_size < len(rows)
            href = f"{BASE}studies/{parts[0]}/submissions/?page={page + 1}" if more else None
            return httpx.Response(
                200,
                json={
                    "results": chunk,
                    "_links": {"next": {"href": href, "title": "Next"}},
                    "meta": {"count": len(rows)},
                },
            )
        return _error(404, "Not found.")

    def _patch_studies(self, parts, body, request):
        study = self.studies.get(parts[0]) if parts else None
        if study is None or parts[1:] != []:
            return _error(404, "Not found.")
        places = body.get("total_available_places")
        shrinks = places is not None and places < study["total_available_places"]
        if study["status"] != "UNPUBLISHED" and shrinks:
            return _error(400, "Places can only be increased once published.")
        study.update(body)
        return httpx.Response(200, json=study)

    def _get_submissions(self, parts, body, request):
        submission = self.submissions.get(parts[0]) if parts else None
        if submission is None:
            return _error(404, "Not found.")
        detail = {
            "id": submission["id"],
            "participant": submission["participant_id"],
            "study_id": submission["study_id"],
            "status": submission["status"],
            "bonus_payments": list(submission["bonus_payments"]),
        }
        return httpx.Response(200, json=detail)

    def _post_submissions(self, parts, body, request):
        if parts == ["bulk-approve"]:
            for submission in body["submission_ids"]:
                if self.submissions[submission]["status"] == "AWAITING REVIEW":
                    self.submissions[submission]["status"] = "APPROVED"
            return httpx.Response(200, json="The request to bulk approve is being processed.")
        if parts == ["bonus-payments"]:
            study = body.get("study_id")
            ids, total = [], 0
            for line in body["csv_bonuses"].strip().splitlines():
                who, amount = line.split(",")
                match = [
                    s["id"]
                    for s in self.submissions.values()
                    if s["study_id"] == study and who in (s["id"], s["participant_id"])
                ]
                if not match:
                    return _error(400, f"{who} did not take part in this study")
                pence = int(Decimal(amount) * 100)
                ids.append((match[0], pence))
                total += pence
            bulk = f"BULK{len(self.bulks) + 1}"
            self.bulks[bulk] = {"rows": ids, "paid": 0}
            amount = total / 100 if "pounds" in self.faults else total
            return httpx.Response(
                201,
                json={
                    "id": bulk,
                    "study": study,
                    "amount": amount,
                    "fees": total // 3,
                    "vat": 0,
                    "total_amount": total + total // 3,
                },
            )
        if len(parts) == 2 and parts[1] == "transition":
            submission = self.submissions[parts[0]]
            action = body["action"]
            if action == "REJECT" and (
                len(body.get("message", "")) < 100 or "rejection_category" not in body
            ):
                return _error(400, "A rejection needs a message of 100 characters and a category")
            submission["status"] = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}[action]
            return httpx.Response(200, json={"id": parts[0], "status": submission["status"]})
        return _error(404, "Not found.")

    def _post_bulk_bonus_payments(self, parts, body, request):
        bulk = self.bulks.get(parts[0])
        if bulk is None or parts[1:] != ["pay"]:
            return _error(404, "Not found.")
        self.pay_calls.append(parts[0])
        if self.rate_limited_pays > 0:
            self.rate_limited_pays -= 1
            response = _error(429, "Request was throttled.")
            response.headers["Retry-After"] = self.retry_after
            return response
        if "error_before_paying" in self.faults:
            return _error(500, "Internal server error")
        bulk["paid"] += 1  # not idempotent: every request pays again
        for submission, pence in bulk["rows"]:
            self.submissions[submission]["bonus_payments"].append(pence)
            self.payments.append((parts[0], submission, pence))
        if "timeout_after_paying" in self.faults:
            raise httpx.ReadTimeout("timed out", request=request)
        return httpx.Response(202, json="The bonuses will be paid in the following minutes.")

    def _get_workspaces(self, parts, body, request):
        return httpx.Response(
            200, json={"results": [{"id": "WS1", "title": "Lab"}], "_links": {"next": {"href": None}}}
        )

    def _get_participant_groups(self, parts, body, request):
        workspace = request.url.params.get("workspace_id")
        rows = [g for g in self.groups.values() if g["workspace_id"] == workspace]
        return httpx.Response(200, json={"results": rows, "_links": {"next": {"href": None}}})

    def _post_participant_groups(self, parts, body, request):
        group = f"GRP{len(self.groups) + 1}"
        self.groups[group] = {
            "id": group,
            "name": body["name"],
            "workspace_id": body["workspace_id"],
            "description": body.get("description", ""),
            "participant_count": 0,
            "is_deleted": False,
        }
        return httpx.Response(201, json=self.groups[group])


def _error(status: int, detail: Any) -> httpx.Response:
    return httpx.Response(
        status, json={"error": {"status": status, "error_code": 0, "title": "Error", "detail": detail}}
    )
