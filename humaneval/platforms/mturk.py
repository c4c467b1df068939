"""MTurk's requester API on boto3 (extra ``humaneval[mturk]``): HITs, assignments, pay, qualifications.

Everything starts from a forms package written by ``humaneval forms`` (``hits/<hit>/question.xml``
and ``hit_params.json``). :func:`create_hits` posts them and records the HIT ids in
``mturk_hits.json`` next to them, so a re-run skips what exists and every later step knows its
HITs and whether they live in the sandbox (the default) or on the production site (only with
``production=True``, checked against the client's endpoint). :func:`fetch_results` pages through
``ListAssignmentsForHIT`` into the rows of a batch results CSV, which
:func:`humaneval.collect.parse_mturk_results` reads like a download from the requester site.
:func:`review_plan` decides approve / reject / review by :mod:`humaneval.platforms.review`
and :func:`apply_review` carries it out; :func:`pay_bonuses` and :func:`grant_qualification`
do what their names say. Money-moving calls carry a ``UniqueRequestToken``, so a retry after a
network error never pays twice.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.design.load import DesignLike
from humaneval.errors import BackendUnavailableError, DesignError, PlatformError
from humaneval.platforms.ledger import exclusive, write_json
from humaneval.platforms.review import APPROVE, REJECT, decide, rejection_message
from humaneval.qc import QCRules

ENDPOINTS = {
    "sandbox": "https://mturk-requester-sandbox.us-east-1.amazonaws.com",
    "production": "https://mturk-requester.us-east-1.amazonaws.com",
}
REGION = "us-east-1"
MANIFEST = "mturk_hits.json"
STATUSES = ("Submitted", "Approved", "Rejected")
_MONEY = re.compile(r"\d{1,4}\.\d{2}")
#: Pages of ``ListBonusPayments`` read for one assignment at most.
MAX_PAGES = 100
#: MTurk's refusal of a repeated ``UniqueRequestToken`` (the bonus was sent by an earlier request).
_TOKEN_USED = re.compile(r"(?i)unique ?request ?token|token .*already|already (been )?(used|processed|sent)")


def mturk_client(production: bool = False, *, profile: str | None = None) -> Any:
    """A boto3 MTurk client for the sandbox, or for the production site when ``production``.

    Credentials come from boto3's usual chain (environment, ``~/.aws/credentials``, ``profile``).
    """
    try:
        import boto3
    except ImportError:
        raise BackendUnavailableError(
            "the MTurk API layer needs boto3: pip install 'humaneval[mturk]'"
        ) from None
    from botocore.exceptions import ProfileNotFound

    try:
        session = boto3.Session(profile_name=profile) if profile else boto3.Session()
    except ProfileNotFound:
        raise PlatformError(
            f"--aws-profile {profile!r}: no such AWS profile in ~/.aws/config or ~/.aws/credentials"
        ) from None
    return session.client(
        "mturk", region_name=REGION, endpoint_url=ENDPOINTS["production" if production else "sandbox"]
    )


def environment(client: Any) -> str:
    """``"sandbox"`` or ``"production"``, from the client's endpoint."""
    return "sandbox" if "sandbox" in str(client.meta.endpoint_url) else "production"


def _guard(client: Any, production: bool) -> str:
    where = environment(client)
    if where == "production" and not production:
        raise PlatformError(
            "this MTurk client talks to the production site, where HITs cost money; "
            "pass production=True (--production) to mean it"
        )
    if where == "sandbox" and production:
        raise PlatformError("production=True but the client talks to the sandbox; use a production client")
    return where


def _call(client: Any, operation: str, **params: Any) -> dict[str, Any]:
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return getattr(client, operation)(**params)
    except ClientError as exc:
        message = exc.response.get("Error", {}).get("Message", str(exc))
        raise PlatformError(f"MTurk refused {operation}: {message}") from None
    except BotoCoreError as exc:
        raise PlatformError(f"MTurk {operation} failed: {exc}") from None


def _token(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:64]


def check_money(amount: Any, what: str) -> str:
    """``amount`` as MTurk's USD string (``"1.80"``); refuses missing, zero or malformed amounts."""
    text = "" if amount is None else str(amount).strip()
    if not _MONEY.fullmatch(text) or float(text) <= 0:
        raise DesignError(f"{what} {amount!r} must be a positive amount in USD with two decimals, e.g. 1.80")
    return text


# -- HITs -------------------------------------------------------------------------------------------


def read_manifest(package: str | Path) -> dict[str, Any]:
    path = Path(package) / MANIFEST
    if not path.exists():
        return {"environment": None, "hits": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def _write_manifest(package: Path, manifest: dict[str, Any]) -> None:
    path = package / MANIFEST
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    temporary.replace(path)


def create_hits(
    package: str | Path,
    client: Any,
    *,
    production: bool = False,
    reward: str | None = None,
    exclusion_qualification: str | None = None,
) -> pd.DataFrame:
    """Create every HIT of the forms package ``package`` that does not exist yet.

    ``reward`` (USD, e.g. ``"1.80"``) overrides the ``Reward`` of ``hit_params.json``; one of the
    two is required. ``exclusion_qualification`` adds a ``DoesNotExist`` requirement on that
    qualification type, so workers granted it (those of earlier batches) cannot take part again.
    Returns one row per HIT: ``hit``, ``hit_id``, ``hit_type_id``, ``reward``,
    ``max_assignments`` and ``created`` (False when it already existed).
    """
    package = Path(package)
    folders = sorted(p for p in (package / "hits").glob("*") if (p / "hit_params.json").exists())
    if not folders:
        raise DesignError(
            f"{package}: no hits/<hit>/hit_params.json here; write the forms with "
            "'humaneval forms DESIGN --route api' (or both) first"
        )
    where = _guard(client, production)
    manifest = read_manifest(package)
    if manifest["environment"] not in (None, where):
        raise PlatformError(
            f"{package / MANIFEST}: these HITs were created on the {manifest['environment']} site; "
            f"this client talks to the {where} site — use a new forms folder for the other site"
        )
    manifest["environment"] = where
    plans = []
    for folder in folders:
        params = json.loads((folder / "hit_params.json").read_text(encoding="utf-8"))
        params["Reward"] = check_money(reward if reward is not None else params.get("Reward"), "Reward")
        if exclusion_qualification:
            params["QualificationRequirements"] = [
                *params.get("QualificationRequirements", []),
                {
                    "QualificationTypeId": exclusion_qualification,
                    "Comparator": "DoesNotExist",
                    "ActionsGuarded": "DiscoverPreviewAndAccept",
                },
            ]
        plans.append((folder.name, params, (folder / "question.xml").read_text(encoding="utf-8")))
    rows = []
    for name, params, question in plans:
        known = manifest["hits"].get(name)
        if known is None:
            token = _token(where, params.get("RequesterAnnotation", ""), name)
            hit = _call(client, "create_hit", Question=question, UniqueRequestToken=token, **params)["HIT"]
            known = manifest["hits"][name] = {
                "HITId": hit["HITId"],
                "HITTypeId": hit.get("HITTypeId", ""),
                "Reward": params["Reward"],
                "MaxAssignments": params["MaxAssignments"],
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            _write_manifest(package, manifest)  # after every HIT: an interrupted run resumes
            created = True
        else:
            created = False
        rows.append(
            {
                "hit": name,
                "hit_id": known["HITId"],
                "hit_type_id": known["HITTypeId"],
                "reward": known["Reward"],
                "max_assignments": known["MaxAssignments"],
                "created": created,
            }
        )
    return pd.DataFrame(rows)


# -- assignments ------------------------------------------------------------------------------------


def fetch_results(
    package: str | Path, client: Any, *, production: bool = False, statuses: Sequence[str] = STATUSES
) -> pd.DataFrame:
    """Every assignment of the package's HITs as rows of a batch results CSV (raw ``WorkerId``\\ s:
    personal data), ready for :func:`humaneval.collect.parse_mturk_results`."""
    from humaneval.collect.mturk import assignment_row

    package = Path(package)
    manifest = read_manifest(package)
    if not manifest["hits"]:
        raise DesignError(f"{package}: no {MANIFEST}; create the HITs first ('humaneval mturk create')")
    where = _guard(client, production)
    if manifest["environment"] != where:
        raise PlatformError(
            f"{package / MANIFEST}: the HITs are on the {manifest['environment']} site, the client on {where}"
        )
    rows = []
    for name in sorted(manifest["hits"]):
        hit_id = manifest["hits"][name]["HITId"]
        params: dict[str, Any] = {"HITId": hit_id, "MaxResults": 100, "AssignmentStatuses": list(statuses)}
        while True:
            page = _call(client, "list_assignments_for_hit", **params)
            for assignment in page.get("Assignments", []):
                rows.append(assignment_row({"HITId": hit_id, **assignment}))
            if not page.get("NextToken") or not page.get("Assignments"):
                break
            params["NextToken"] = page["NextToken"]
    columns = ["HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "SubmitTime", "WorkTimeInSeconds"]
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=columns)


def review_plan(
    results: pd.DataFrame, design: DesignLike, *, rules: QCRules | None = None, **parse: Any
) -> pd.DataFrame:
    """Approve / reject / review for every ``Submitted`` assignment of ``results``.

    ``results`` are batch-CSV rows (:func:`fetch_results` or a download); ``parse`` goes to
    :func:`~humaneval.collect.parse_mturk_results`. Columns: ``assignment_id``, ``hit_id``,
    ``annotator`` (pseudonym), ``annotator_slot``, ``checks_total``, ``imc_failed``,
    ``action`` and ``reason``.
    """
    from humaneval.collect.mturk import INFORMATIONAL, parse_mturk_results

    columns = ["assignment_id", "hit_id", "annotator", "annotator_slot", "checks_total", "imc_failed"]
    if results.empty:
        return pd.DataFrame(columns=[*columns, "action", "reason"])
    rules = rules or QCRules()
    parsed = parse_mturk_results(results, design, statuses=("Submitted",), **parse)
    problems = parsed.problems[~parsed.problems["kind"].isin(INFORMATIONAL)]
    missing = set(problems.loc[problems["kind"] == "missing_field", "assignment_id"])
    unreadable = set(problems["assignment_id"]) - missing
    rows = []
    for worker in parsed.workers.itertuples(index=False):
        action, reason = decide(
            known=not pd.isna(worker.block),
            complete=worker.assignment_id not in missing,
            readable=worker.assignment_id not in unreadable,
            imc_failed=int(worker.imc_failed),
            checks_total=int(worker.checks_total),
            rules=rules,
        )
        rows.append(
            {
                "assignment_id": worker.assignment_id,
                "hit_id": worker.hit_id,
                "annotator": worker.annotator,
                "annotator_slot": worker.annotator_slot,
                "checks_total": int(worker.checks_total),
                "imc_failed": int(worker.imc_failed),
                "action": action,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows, columns=[*columns, "action", "reason"])


def apply_review(plan: pd.DataFrame, client: Any, *, production: bool = False) -> pd.DataFrame:
    """Approve and reject as ``plan`` says (``review`` rows are left alone); adds ``done``."""
    _guard(client, production)
    done = []
    for row in plan.itertuples(index=False):
        if row.action == APPROVE:
            _call(client, "approve_assignment", AssignmentId=row.assignment_id)
        elif row.action == REJECT:
            message = rejection_message(row.imc_failed, row.checks_total)
            _call(client, "reject_assignment", AssignmentId=row.assignment_id, RequesterFeedback=message)
        done.append(row.action in (APPROVE, REJECT))
    return plan.assign(done=done)


# -- bonuses and qualifications ----------------------------------------------------------------------


def _money(amount: Any) -> str:
    return f"{Decimal(str(amount)):.2f}"


def paid_bonuses(client: Any, assignment: str) -> Counter[str]:
    """The bonus amounts (USD strings) MTurk's ``ListBonusPayments`` shows for ``assignment``, all pages."""
    amounts: Counter[str] = Counter()
    params: dict[str, Any] = {"AssignmentId": assignment, "MaxResults": 100}
    for _ in range(MAX_PAGES):
        answer = _call(client, "list_bonus_payments", **params)
        amounts.update(_money(p["BonusAmount"]) for p in answer.get("BonusPayments") or [])
        if not answer.get("NextToken"):
            return amounts
        params["NextToken"] = answer["NextToken"]
    raise PlatformError(f"MTurk lists more than {MAX_PAGES} pages of bonuses for assignment {assignment}")


def _plan(frame: pd.DataFrame, client: Any, allow_repeat: bool) -> list[bool]:
    """Which rows MTurk's record already shows paid (matched by assignment and amount, never by the
    reason); refuses a new bonus for an assignment with another bonus on record unless ``allow_repeat``."""
    record = {a: paid_bonuses(client, a) for a in dict.fromkeys(frame["assignment_id"])}
    paid = []
    for assignment, amount in zip(frame["assignment_id"], frame["amount"], strict=True):
        shown = record[assignment]
        paid.append(shown[amount] > 0)
        shown[amount] -= 1
    for assignment, amount, done in zip(frame["assignment_id"], frame["amount"], paid, strict=True):
        other = +record[assignment]
        if not done and other and not allow_repeat:
            raise PlatformError(
                f"assignment {assignment} already has a bonus of {next(iter(other))} USD on MTurk's record "
                f"(ListBonusPayments); not paying {amount} USD; pass --allow-repeat to pay it as well"
            )
    return paid


def read_bonus_ledger(path: str | Path) -> dict[str, Any]:
    """The MTurk bonus ledger at ``path`` (``{"bonuses": [...]}``); an unreadable one stops everything."""
    from humaneval.platforms.prolific import read_state

    path = Path(path)
    if not path.exists():
        return {"bonuses": []}
    ledger = read_state(path, "bonus ledger")
    if not isinstance(ledger.get("bonuses"), list):
        raise PlatformError(
            f"{path}: the bonus ledger's bonuses are not as written; restore it from a backup"
        )
    return ledger


def pay_bonuses(
    bonuses: pd.DataFrame,
    client: Any,
    *,
    production: bool = False,
    allow_repeat: bool = False,
    ledger: str | Path | None = None,
) -> pd.DataFrame:
    """Pay one bonus per row of ``bonuses`` (``assignment_id``, ``amount`` in USD, ``reason``;
    ``worker_id`` optional, else looked up with ``GetAssignment``), each once.

    Every row is checked before anything is paid, and an assignment listed twice is refused
    unless ``allow_repeat``. MTurk's own record (``ListBonusPayments``) decides what was paid: a
    row whose assignment shows a bonus of that amount is ``already paid`` (whatever the reason
    says, and however long ago: the ``UniqueRequestToken`` that also guards each ``SendBonus``
    expires after 24 hours), and a new bonus for an assignment paid another amount is refused
    unless ``allow_repeat``. With ``ledger`` (a JSON file) the run holds a lock on it from
    checking to recording, and records each bonus before sending it and once sent. One failed row
    does not stop the others. Returns the rows with ``worker_id``, ``outcome`` (``paid``,
    ``already paid`` or ``failed: …``) and ``paid`` (paid now or before).
    """
    _guard(client, production)
    missing = [c for c in ("assignment_id", "amount", "reason") if c not in bonuses]
    if missing:
        raise DesignError(
            f"the bonus table needs columns assignment_id, amount, reason; missing {', '.join(missing)}"
        )
    frame = bonuses.copy()
    frame["amount"] = [
        check_money(a, f"bonus for {i}") for a, i in zip(frame["amount"], frame["assignment_id"], strict=True)
    ]
    empty = frame.index[frame["reason"].fillna("").astype(str).str.strip() == ""]
    if len(empty):
        raise DesignError(
            f"bonus for {frame.at[empty[0], 'assignment_id']}: a reason is required (workers see it)"
        )
    check_repeats(frame, allow_repeat)
    if ledger is None:
        return _send_bonuses(frame, client, allow_repeat, None, None)
    path = Path(ledger)
    busy = f"{path}: another 'mturk bonus --execute' holds this ledger; run this again when it has finished"
    with exclusive(path.with_name(path.name + ".lock"), busy=busy):
        return _send_bonuses(frame, client, allow_repeat, path, read_bonus_ledger(path))


def _send_bonuses(
    frame: pd.DataFrame, client: Any, allow_repeat: bool, path: Path | None, ledger: dict[str, Any] | None
) -> pd.DataFrame:
    before = _plan(frame, client, allow_repeat)
    seen: Counter[tuple[str, str]] = Counter()
    workers, outcomes = [], []
    for row, done in zip(frame.itertuples(index=False), before, strict=True):
        worker = getattr(row, "worker_id", None)
        occurrence = seen[(row.assignment_id, row.amount)]
        seen[(row.assignment_id, row.amount)] += 1
        if done:
            workers.append(worker)
            outcomes.append("already paid")
            continue
        entry: dict[str, Any] | None = None
        try:
            if not isinstance(worker, str) or not worker:
                worker = _call(client, "get_assignment", AssignmentId=row.assignment_id)["Assignment"][
                    "WorkerId"
                ]
            if ledger is not None and path is not None:
                entry = {"assignment_id": row.assignment_id, "amount": row.amount, "worker_id": worker}
                ledger["bonuses"].append({**entry, "state": "sending", "at": _now()})
                entry = ledger["bonuses"][-1]
                write_json(path, ledger)  # on record before the request
            _call(
                client,
                "send_bonus",
                WorkerId=worker,
                BonusAmount=row.amount,
                AssignmentId=row.assignment_id,
                Reason=str(row.reason),
                UniqueRequestToken=_token("bonus", row.assignment_id, row.amount, str(occurrence)),
            )
            outcome = "paid"
        except PlatformError as exc:
            outcome = "already paid" if _TOKEN_USED.search(str(exc)) else f"failed: {exc}"
        if entry is not None and path is not None:
            entry["state"] = "failed" if outcome.startswith("failed") else "paid"
            write_json(path, ledger)
        workers.append(worker)
        outcomes.append(outcome)
    return frame.assign(
        worker_id=workers, outcome=outcomes, paid=[o in ("paid", "already paid") for o in outcomes]
    )


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def check_repeats(bonuses: pd.DataFrame, allow_repeat: bool) -> None:
    """Refuse a bonus table listing an assignment twice (each row would be paid) unless ``allow_repeat``."""
    ids = bonuses["assignment_id"] if "assignment_id" in bonuses else pd.Series(dtype=object)
    repeated = ids[ids.duplicated()]
    if len(repeated) and not allow_repeat:
        raise DesignError(
            f"assignment {repeated.iloc[0]} is listed more than once in the bonus table (each row would be "
            "paid); merge the rows or pass --allow-repeat"
        )


def create_exclusion_qualification(client: Any, name: str, *, production: bool = False) -> str:
    """A new qualification type to grant to every worker of a study (its HITs then require that
    workers do not have it); returns its ``QualificationTypeId``."""
    _guard(client, production)
    answer = _call(
        client,
        "create_qualification_type",
        Name=name,
        Description="Granted to workers who already took part in this study, so they are not asked twice.",
        QualificationTypeStatus="Active",
    )
    return answer["QualificationType"]["QualificationTypeId"]


def grant_qualification(
    client: Any,
    qualification_type_id: str,
    worker_ids: Iterable[str],
    *,
    value: int = 1,
    production: bool = False,
) -> int:
    """Grant ``qualification_type_id`` to each worker (no notification); returns how many."""
    _guard(client, production)
    count = 0
    for worker in dict.fromkeys(w.strip() for w in worker_ids if w.strip()):
        _call(
            client,
            "associate_qualification_with_worker",
            QualificationTypeId=qualification_type_id,
            WorkerId=worker,
            IntegerValue=int(value),
            SendNotification=False,
        )
        count += 1
    return count
