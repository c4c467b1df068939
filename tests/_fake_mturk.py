"""A stand-in for the boto3 MTurk client's bonus operations, following AWS's documented rules
(MTurk API reference: SendBonus, ListBonusPayments, GetAssignment): a ``UniqueRequestToken`` repeated
within 24 hours is refused ("already been used"), after 24 hours it pays again; ListBonusPayments
pages with ``NextToken`` at most ``MaxResults`` (1-100) a page. Every payment is recorded."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

from botocore.exceptions import ClientError

from humaneval.platforms.mturk import ENDPOINTS

TOKEN_LIFETIME = dt.timedelta(hours=24)


def _error(operation: str, code: str, message: str, status: int = 400) -> ClientError:
    return ClientError(
        {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": status}},
        operation,
    )


class FakeMTurk:
    def __init__(self, workers: dict[str, str], where: str = "sandbox") -> None:
        self.meta = SimpleNamespace(endpoint_url=ENDPOINTS[where])
        self.workers = workers  # assignment id -> worker id
        self.now = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.timezone.utc)
        self.payments: list[dict[str, Any]] = []
        self.tokens: dict[str, dt.datetime] = {}
        self.busy: set[str] = set()  # assignments whose next SendBonus fails (503), once
        self.calls: list[str] = []

    def get_assignment(self, AssignmentId: str) -> dict[str, Any]:
        self.calls.append("get_assignment")
        if AssignmentId not in self.workers:
            raise _error("GetAssignment", "RequestError", f"Assignment {AssignmentId} does not exist.")
        return {"Assignment": {"AssignmentId": AssignmentId, "WorkerId": self.workers[AssignmentId]}}

    def send_bonus(self, **p: Any) -> dict[str, Any]:
        self.calls.append("send_bonus")
        if p["AssignmentId"] in self.busy:
            self.busy.discard(p["AssignmentId"])
            raise _error("SendBonus", "ServiceUnavailable", "Service busy, try again", 503)
        token = p.get("UniqueRequestToken")
        if token in self.tokens and self.now - self.tokens[token] < TOKEN_LIFETIME:
            raise _error(
                "SendBonus",
                "RequestError",
                "The value of the UniqueRequestToken parameter has already been used.",
            )
        if token:
            self.tokens[token] = self.now
        self.payments.append(
            {
                "WorkerId": p["WorkerId"],
                "BonusAmount": p["BonusAmount"],
                "AssignmentId": p["AssignmentId"],
                "Reason": p["Reason"],
                "GrantTime": self.now,
            }
        )
        return {}

    def list_bonus_payments(self, **p: Any) -> dict[str, Any]:
        self.calls.append("list_bonus_payments")
        if ("HITId" in p) == ("AssignmentId" in p):
            raise _error(
                "ListBonusPayments", "ValidationException", "Either HITId or AssignmentId is required."
            )
        size = int(p.get("MaxResults", 100))
        if not 1 <= size <= 100:
            raise _error("ListBonusPayments", "ValidationException", "MaxResults must be 1 to 100.")
        rows = [r for r in self.payments if r["AssignmentId"] == p.get("AssignmentId")]
        start = int(p.get("NextToken", "0"))
        page = rows[start : start + size]
        answer: dict[str, Any] = {"NumResults": len(page), "BonusPayments": page}
        if start + size < len(rows):
            answer["NextToken"] = str(start + size)
        return answer
