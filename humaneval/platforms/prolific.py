"""Prolific's REST API on httpx (extra ``humaneval[prolific]``): the robust request layer,
submissions, review and export.

The study's answers live in the collection server's database (``humaneval serve``); Prolific
knows who submitted. :func:`list_submissions` pages through a study's submissions,
:func:`review_plan` matches them to the database by ``PROLIFIC_PID`` and decides approve /
reject / review by :mod:`humaneval.platforms.review` (reject only for ≥ 2 failed instructed
checks on a complete record; anyone without a complete record is left to a person), and
:func:`apply_review` carries the plan out (``POST /submissions/bulk-approve/`` and
``POST /submissions/<id>/transition/``). :func:`export_demographics` downloads Prolific's own
export. Creating and running the study lives in :mod:`humaneval.platforms.prolific_study`,
bonuses in :mod:`humaneval.platforms.prolific_bonus`.

Every call goes through :func:`call`: the base URL is ``PROLIFIC_API_URL`` (default Prolific's
``https://api.prolific.com/api/v1/``; for proxies and test servers), the token
``PROLIFIC_TOKEN``, sent only to that base URL. A 429 (after ``Retry-After``), a 5xx, a timeout,
a body that is not JSON or has the wrong shape is retried a bounded number of times when the
call is safe to repeat, then becomes one :class:`~humaneval.errors.PlatformError` line;
pagination follows ``_links.next`` only on the same base URL, stops on a page seen before and
after :data:`MAX_PAGES` pages. Endpoints, shapes and units: Prolific's API reference,
https://docs.prolific.com/api-reference.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.errors import BackendUnavailableError, DesignError, PlatformError
from humaneval.platforms.review import APPROVE, REJECT, decide, rejection_message
from humaneval.qc import QCRules

API = "https://api.prolific.com/api/v1/"
URL_VARIABLE = "PROLIFIC_API_URL"
TOKEN_VARIABLE = "PROLIFIC_TOKEN"
AWAITING_REVIEW = "AWAITING REVIEW"
REJECTION_CATEGORY = "FAILED_CHECK"
SUBMISSION_COLUMNS = ["id", "participant_id", "status", "started_at", "completed_at", "study_code"]
#: Attempts of a call that is safe to repeat; a call that is not (creating, paying) is only
#: repeated after a 429, which Prolific answers before doing anything.
ATTEMPTS = 4
#: The longest ``Retry-After`` waited for, and the back-off between other attempts (seconds).
MAX_WAIT = 60.0
BACKOFF = (1.0, 2.0, 4.0)
#: Seconds to connect and to wait for each answer; a call that timed out is tried at most
#: :data:`TIMEOUT_ATTEMPTS` times, so a stalled API costs well under a minute, not minutes.
TIMEOUT = 20.0
CONNECT_TIMEOUT = 5.0
TIMEOUT_ATTEMPTS = 2
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Pagination stops with an error after this many pages (200,000 submissions at 200 a page).
MAX_PAGES = 1000
#: Submission ids per ``bulk-approve`` request (Prolific's limit: 1,000).
BULK_APPROVE = 1000
PLAN_COLUMNS = [
    "submission_id",
    "participant_id",
    "slot",
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

sleep: Callable[[float], None] = time.sleep
"""How the layer waits between attempts (tests replace it)."""


class RateLimited(PlatformError):
    """Prolific kept answering 429: the request was not carried out (Prolific rate-limits before
    doing anything), so it is safe to send again later."""


def path_id(value: str, what: str = "Prolific id") -> str:
    """``value`` if it is an id that can go into an API path (letters, digits, ``_``, ``-``; at
    most 64), else one :class:`~humaneval.errors.DesignError` line (``../x`` never leaves
    ``/api/v1/``).

    >>> path_id("65f0c0ffee0123456789abcd")
    '65f0c0ffee0123456789abcd'
    """
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise DesignError(
            f"{what} {value!r} is not a Prolific id (letters and digits, e.g. 65f0c0ffee0123456789abcd)"
        )
    return value


def api_url(url: str | None = None) -> str:
    """The API's base URL: ``url``, else ``PROLIFIC_API_URL``, else Prolific's; ends with ``/``."""
    url = (url or os.environ.get(URL_VARIABLE, "") or API).strip()
    if not url.startswith(("https://", "http://")):
        raise DesignError(f"{URL_VARIABLE} {url!r} must be an http(s) URL such as {API}")
    return url if url.endswith("/") else url + "/"


def prolific_client(
    token: str | None = None,
    *,
    transport: Any = None,
    base_url: str | None = None,
    timeout: float = TIMEOUT,
) -> Any:
    """An ``httpx.Client`` for Prolific's API with ``Authorization: Token …``.

    ``token`` defaults to ``PROLIFIC_TOKEN``, ``base_url`` to :func:`api_url`; ``transport`` is
    for tests (``httpx.MockTransport``).
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
        base_url=api_url(base_url),
        headers={"Authorization": f"Token {token.strip()}", "Accept": "application/json"},
        timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
        transport=transport,
        follow_redirects=False,
    )


def _detail(response: Any) -> str:
    """The message of an error answer, in any of Prolific's documented error shapes."""
    try:
        body = response.json()
    except ValueError:
        return " ".join(response.text.split())[:200]
    error = body.get("error", body) if isinstance(body, dict) else body
    detail = error.get("detail", error.get("message", error)) if isinstance(error, dict) else error
    if isinstance(detail, dict):
        detail = "; ".join(
            f"{k}: {' '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in detail.items()
        )
    elif isinstance(detail, list):
        detail = " ".join(map(str, detail))
    return str(detail)[:300]


def _retry_after(response: Any) -> float | None:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None


def call(
    client: Any,
    method: str,
    url: str,
    *,
    shape: type | None = dict,
    check: Callable[[Any], str] | None = None,
    safe: bool = True,
    attempts: int = ATTEMPTS,
    **kwargs: Any,
) -> Any:
    """One API call: the parsed JSON body (``shape=None``: the ``httpx.Response``).

    ``shape`` is the type the body must have and ``check`` returns what else is wrong with it
    (``""``: nothing); a body that fails either counts as a failed attempt. ``safe=False``
    marks a call that must not be repeated after an answer that may mean it was carried out (a
    5xx, a timeout, a garbled body); it is repeated only after a 429. ``attempts=1`` never
    repeats.

    Raises
    ------
    PlatformError
        One line: what was asked, what went wrong, after how many attempts.
    """
    import httpx

    base = str(client.base_url)
    url = url[len(base) :] if url.startswith(base) else url
    problem, limited, timeouts = "", False, 0
    for attempt in range(1, attempts + 1):
        wait = BACKOFF[min(attempt, len(BACKOFF)) - 1]
        repeatable, limited = safe, False
        try:
            response = client.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            problem = f"failed ({exc.__class__.__name__})"
            if isinstance(exc, httpx.TimeoutException):
                timeouts += 1
                repeatable = safe and timeouts < TIMEOUT_ATTEMPTS
        else:
            code = response.status_code
            if code == 429:
                retry_after = _retry_after(response)
                if retry_after is not None and retry_after > MAX_WAIT:
                    raise RateLimited(
                        f"Prolific asks to wait {retry_after:.0f} s before {method} {url} (429); "
                        "try again later"
                    )
                wait, repeatable, limited = (wait if retry_after is None else retry_after), True, True
                problem = "was rate-limited (429)"
            elif code >= 500:
                problem = f"failed on Prolific's side ({code}): {_detail(response)}"
            elif code >= 400:
                raise PlatformError(f"Prolific refused {method} {url} ({code}): {_detail(response)}")
            elif shape is None:
                return response
            else:
                try:
                    body = response.json()
                except ValueError:
                    kind = response.headers.get("content-type", "no content type").split(";")[0]
                    problem = f"answered with {kind}, not JSON ({' '.join(response.text.split())[:60]!r})"
                else:
                    if not isinstance(body, shape):
                        problem = f"answered with a JSON {type(body).__name__}, not a {shape.__name__}"
                    elif check is None or not (problem := check(body)):
                        return body
        if not repeatable or attempt == attempts:
            break
        sleep(wait)
    if attempt > 1:
        tries = f" after {attempt} attempts"
    elif not repeatable and attempts > 1:
        tries = " (not repeated: it may have been carried out)"
    else:
        tries = ""
    raise (RateLimited if limited else PlatformError)(f"Prolific {method} {url} {problem}{tries}")


def pages(client: Any, url: str, *, params: dict[str, Any] | None = None) -> Iterator[list[dict[str, Any]]]:
    """The ``results`` of every page of a list answer, following ``_links.next``.

    Refuses a ``next`` off the client's base URL (the token would go there), a page seen
    before and more than :data:`MAX_PAGES` pages; each refusal is one ``PlatformError`` line.
    """
    base = str(client.base_url)
    current = str(client.build_request("GET", url, params=params).url)
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        seen.add(current)
        page = call(client, "GET", current, check=_list_problem)
        yield page["results"]
        links = page.get("_links") or {}
        nxt = links.get("next") if isinstance(links, dict) else None
        href = nxt.get("href") if isinstance(nxt, dict) else nxt
        if href is None:
            return
        if not isinstance(href, str):
            raise PlatformError(f"Prolific's answer to GET {url} has a next link that is not a URL")
        current = str(client.base_url.join(href))
        if not current.startswith(base):
            raise PlatformError(
                f"Prolific's next page {href!r} is not on {base}; refusing to send the token there"
            )
        if current in seen:
            raise PlatformError(f"Prolific's next page {href!r} was read before; stopping (the list repeats)")
    raise PlatformError(f"Prolific's list {url} has more than {MAX_PAGES} pages; stopping")


def _list_problem(page: dict[str, Any]) -> str:
    results = page.get("results")
    if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
        return f"answered with 'results' of type {type(results).__name__}, not a list of objects"
    return ""


def list_submissions(client: Any, study_id: str) -> pd.DataFrame:
    """Every submission of ``study_id`` once (columns ``id``, ``participant_id``, ``status``,
    ``started_at``, ``completed_at``, ``study_code``), following the API's ``next`` links.

    A submission listed on two pages (the list moved while it was read) is kept once, with the
    later answer.
    """
    rows: dict[str, dict[str, Any]] = {}
    for results in pages(client, f"studies/{path_id(study_id, 'study id')}/submissions/"):
        for row in results:
            if not isinstance(row.get("id"), str) or not isinstance(row.get("participant_id"), str):
                raise PlatformError(
                    f"Prolific listed a submission of study {study_id} without a string id and participant_id"
                )
            rows[row["id"]] = row
    frame = pd.DataFrame(list(rows.values()))
    for column in SUBMISSION_COLUMNS:
        if column not in frame:
            frame[column] = None
    return frame[SUBMISSION_COLUMNS]


def review_plan(
    submissions: pd.DataFrame, study_dir: str | Path, *, rules: QCRules | None = None
) -> pd.DataFrame:
    """Approve / reject / review for each submission ``AWAITING REVIEW``, from the study database.

    Columns: ``submission_id`` and ``participant_id`` (Prolific's, as its web app shows them),
    ``slot`` (the server's annotator slot), ``participant`` (the server's participant number),
    ``annotator`` (pseudonym), ``status``, ``screens_saved``, ``screens_total``,
    ``checks_total``, ``imc_failed``, ``action``, ``reason``.
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
                "participant_id": submission.participant_id,
                "slot": None if person is None else person["annotator_slot"],
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

    Approvals go in ``POST submissions/bulk-approve/`` requests of up to 1,000 ids; each
    rejection is ``POST submissions/<id>/transition/`` with the message and category Prolific
    requires. Both are idempotent on Prolific's side, so re-running after an interruption is safe.
    """
    approve = [row.submission_id for row in plan.itertuples(index=False) if row.action == APPROVE]
    for start in range(0, len(approve), BULK_APPROVE):
        call(
            client,
            "POST",
            "submissions/bulk-approve/",
            json={"submission_ids": approve[start : start + BULK_APPROVE]},
            shape=None,
        )
    for row in plan.itertuples(index=False):
        if row.action == REJECT:
            body = {
                "action": "REJECT",
                "message": rejection_message(row.imc_failed, row.checks_total),
                "rejection_category": REJECTION_CATEGORY,
            }
            submission = path_id(row.submission_id, "submission id")
            call(client, "POST", f"submissions/{submission}/transition/", json=body)
    return plan.assign(done=plan["action"].isin([APPROVE, REJECT]))


def export_demographics(client: Any, study_id: str, path: str | Path) -> Path:
    """Save Prolific's demographic export of ``study_id`` (CSV) to ``path``.

    Refuses an answer that is not CSV (an HTML maintenance or login page) before anything is
    written; text cells that a spreadsheet would run as formulas get a leading ``'``. It holds
    Prolific ids and personal data: the file is written 0600, an existing one replaced.
    """
    import io

    from humaneval.collect.spreadsheet import safe_csv_text

    response = call(client, "GET", f"studies/{path_id(study_id, 'study id')}/export/", shape=None)
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    start = response.content.lstrip()[:1]
    if kind in ("text/html", "application/xhtml+xml", "application/json") or start in (b"<", b"{", b"["):
        raise PlatformError(
            f"Prolific answered the export of study {study_id} with {kind or 'no content type'}, not CSV "
            f"({' '.join(response.text.split())[:60]!r}); nothing saved; try again later"
        )
    try:
        frame = pd.read_csv(io.BytesIO(response.content), dtype=str, keep_default_na=False)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PlatformError(
            f"Prolific's export of study {study_id} is not a readable CSV ({exc}); nothing saved"
        ) from None
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as handle:
        os.fchmod(handle.fileno(), 0o600)
        handle.write(safe_csv_text(frame))
    temporary.replace(path)
    return path


def read_state(path: Path, what: str) -> dict[str, Any]:
    """A JSON object this package wrote into a study folder (study record, bonus ledger), checked:
    a file that is not one JSON object is one :class:`PlatformError` line, never a guess about what
    was created or paid."""
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        state = None
    if not isinstance(state, dict):
        raise PlatformError(f"{path}: the {what} is not a readable JSON object; restore it from a backup")
    return state
