"""Prolific's REST API on httpx (extra ``humaneval[prolific]``): submissions, review, export.

The study's answers live in the collection server's database (``humaneval serve``); Prolific
knows who submitted. :func:`list_submissions` pages through a study's submissions,
:func:`review_plan` matches them to the database by ``PROLIFIC_PID`` and decides approve /
reject / review by :mod:`humaneval.platforms.review` (reject only for ≥ 2 failed instructed
checks on a complete record; anyone without a complete record is left to a person), and
:func:`apply_review` carries the plan out with ``POST /submissions/<id>/transition/``.
:func:`export_demographics` downloads Prolific's own export of the study. The API token comes
from ``PROLIFIC_TOKEN`` (or is passed in); it is sent only to ``api.prolific.com``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.errors import BackendUnavailableError, DesignError, PlatformError
from humaneval.platforms.review import APPROVE, REJECT, decide, rejection_message
from humaneval.qc import QCRules

API = "https://api.prolific.com/api/v1/"
TOKEN_VARIABLE = "PROLIFIC_TOKEN"
AWAITING_REVIEW = "AWAITING REVIEW"
REJECTION_CATEGORY = "FAILED_CHECK"
SUBMISSION_COLUMNS = ["id", "participant_id", "status", "started_at", "completed_at", "study_code"]
PLAN_COLUMNS = [
    "submission_id",
    "participant",
    "annotator",
    "status",
    "screens_saved",
    "screens_total",
    "checks_total",
    "imc_failed",
    "action",
    "reason",
]


def prolific_client(token: str | None = None, *, transport: Any = None) -> Any:
    """An ``httpx.Client`` for Prolific's API with ``Authorization: Token …``.

    ``token`` defaults to the ``PROLIFIC_TOKEN`` environment variable; ``transport`` is for tests
    (``httpx.MockTransport``).
    """
    try:
        import httpx
    except ImportError:
        raise BackendUnavailableError(
            "the Prolific API layer needs httpx: pip install 'humaneval[prolific]'"
        ) from None
    token = token or os.environ.get(TOKEN_VARIABLE, "")
    if not token.strip():
        raise DesignError(
            f"no Prolific API token: set {TOKEN_VARIABLE} (Prolific → Settings → API tokens) "
            "or pass --token-file"
        )
    return httpx.Client(
        base_url=API,
        headers={"Authorization": f"Token {token.strip()}", "Accept": "application/json"},
        timeout=30.0,
        transport=transport,
        follow_redirects=False,
    )


def _request(client: Any, method: str, url: str, **kwargs: Any) -> Any:
    import httpx

    try:
        response = client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        raise PlatformError(f"Prolific {method} {url} failed: {exc.__class__.__name__}: {exc}") from None
    if response.status_code >= 400:
        try:
            detail = response.json().get("error", {})
            detail = detail.get("detail", detail) if isinstance(detail, dict) else detail
        except ValueError:
            detail = response.text[:200]
        raise PlatformError(f"Prolific refused {method} {url} ({response.status_code}): {str(detail)[:300]}")
    return response


def list_submissions(client: Any, study_id: str) -> pd.DataFrame:
    """Every submission of ``study_id`` (columns ``id``, ``participant_id``, ``status``,
    ``started_at``, ``completed_at``, ``study_code``), following the API's ``next`` links."""
    url: str | None = f"studies/{study_id}/submissions/"
    rows: list[dict[str, Any]] = []
    while url:
        page = _request(client, "GET", url).json()
        rows += page.get("results", [])
        url = ((page.get("_links") or {}).get("next") or {}).get("href")
        if url and not url.startswith(API):
            raise PlatformError(
                f"Prolific's next page {url!r} is not on {API}; refusing to send the token there"
            )
    frame = pd.DataFrame(rows)
    for column in SUBMISSION_COLUMNS:
        if column not in frame:
            frame[column] = None
    return frame[SUBMISSION_COLUMNS]


def review_plan(
    submissions: pd.DataFrame, study_dir: str | Path, *, rules: QCRules | None = None
) -> pd.DataFrame:
    """Approve / reject / review for each submission ``AWAITING REVIEW``, from the study database.

    Columns: ``submission_id``, ``participant`` (the server's participant number),
    ``annotator`` (pseudonym), ``status``, ``screens_saved``, ``screens_total``,
    ``checks_total``, ``imc_failed``, ``action``, ``reason``. No Prolific id is in the plan.
    """
    from humaneval.collect.prolific import read_prolific

    rules = rules or QCRules()
    people = read_prolific(study_dir, include_pids=True).participants.set_index("prolific_pid")
    rows = []
    for submission in submissions.itertuples(index=False):
        if submission.status != AWAITING_REVIEW:
            continue
        person = people.loc[submission.participant_id] if submission.participant_id in people.index else None
        action, reason = decide(
            known=person is not None,
            complete=person is not None and bool(person["complete"]),
            readable=True,  # the server stored only validated screens
            imc_failed=0 if person is None else int(person["imc_failed"]),
            checks_total=0 if person is None else int(person["checks_total"]),
            rules=rules,
        )
        rows.append(
            {
                "submission_id": submission.id,
                "participant": None if person is None else person["participant"],
                "annotator": None if person is None else person["annotator"],
                "status": submission.status,
                "screens_saved": None if person is None else int(person["screens_saved"]),
                "screens_total": None if person is None else int(person["screens_total"]),
                "checks_total": 0 if person is None else int(person["checks_total"]),
                "imc_failed": 0 if person is None else int(person["imc_failed"]),
                "action": action,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows, columns=PLAN_COLUMNS).astype(
        {"screens_saved": "Int64", "screens_total": "Int64"}
    )


def apply_review(plan: pd.DataFrame, client: Any) -> pd.DataFrame:
    """Approve and reject as ``plan`` says (``review`` rows are left alone); adds ``done``.

    Prolific's transition endpoint is idempotent, so re-running after an interruption is safe.
    """
    done = []
    for row in plan.itertuples(index=False):
        if row.action == APPROVE:
            body: dict[str, Any] = {"action": "APPROVE"}
        elif row.action == REJECT:
            body = {
                "action": "REJECT",
                "message": rejection_message(row.imc_failed, row.checks_total),
                "rejection_category": REJECTION_CATEGORY,
            }
        else:
            done.append(False)
            continue
        _request(client, "POST", f"submissions/{row.submission_id}/transition/", json=body)
        done.append(True)
    return plan.assign(done=done)


def export_demographics(client: Any, study_id: str, path: str | Path) -> Path:
    """Save Prolific's demographic export of ``study_id`` (CSV, as Prolific sends it) to ``path``.

    It holds Prolific ids and personal data: the file is created 0600.
    """
    response = _request(client, "GET", f"studies/{study_id}/export/")
    path = Path(path)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(response.content)
    return path
