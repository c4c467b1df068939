"""Prolific bonuses in two steps, paid once (Prolific's API reference, "Create bonus payments" and
"Pay bonus payments", https://docs.prolific.com/api-reference).

Prolific pays bonuses in two calls: ``POST submissions/bonus-payments/`` creates a bulk bonus
from ``"<participant or submission id>,<amount>"`` lines (amounts in **pounds / dollars**, while
study rewards are in pence / cents) and pays nothing; ``POST bulk-bonus-payments/<id>/pay/``
pays it, asynchronously, and is documented as *not idempotent*: a repeated pay request pays
again. So :func:`pay_bonuses` keeps a ledger (``prolific_bonuses.json`` in the study folder)
and

- records each bulk bonus's id and rows *before* paying, and marks it ``paying`` before the pay
  request goes out; the pay request is never repeated automatically;
- on a re-run, pays a bulk that was created but never sent, and for one whose pay request got no
  clear answer looks at what Prolific shows as paid (``GET submissions/<id>/``,
  ``bonus_payments`` in pence) instead of paying again: everyone shown paid → done; otherwise it
  stops with one line (payment takes minutes) and pays again only when told the bulk was not
  paid (``confirm_unpaid``, after checking Prolific's web app);
- skips rows already paid with the same amount, refuses a row whose participant already has a
  different bonus on record and a participant listed twice (``allow_repeat`` pays both), and
  refuses to pay a bulk whose total Prolific counts differently from the table (a unit mix-up).
"""

from __future__ import annotations

import json
import os
import re
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.errors import DesignError, PlatformError
from humaneval.platforms.prolific import call, list_submissions, read_state

LEDGER = "prolific_bonuses.json"
_AMOUNT = re.compile(r"\d{1,4}(\.\d{1,2})?")
#: The largest single bonus accepted, in pounds / dollars (a guard against pence typed as pounds).
MAX_BONUS = Decimal("100")
KEYS = ("participant_id", "submission_id")


def bonus_rows(table: pd.DataFrame, *, allow_repeat: bool = False) -> list[tuple[str, int]]:
    """``[(participant or submission id, amount in pence)]`` of a bonus table.

    The table has ``participant_id`` or ``submission_id`` and ``amount`` in pounds (dollars),
    e.g. ``1.50``. Every row is checked before anything is paid.

    Examples
    --------
    >>> bonus_rows(pd.DataFrame({"participant_id": ["P1", "P2"], "amount": ["1.50", "0.3"]}))
    [('P1', 150), ('P2', 30)]
    """
    key = next((k for k in KEYS if k in table), None)
    if key is None or "amount" not in table:
        raise DesignError(
            "the bonus table needs a participant_id (or submission_id) column and amount in pounds"
        )
    rows = []
    for n, (who, amount) in enumerate(zip(table[key], table["amount"], strict=True), start=2):
        text = "" if pd.isna(amount) else str(amount).strip()
        if not isinstance(who, str) or not who.strip():
            raise DesignError(f"bonus table row {n}: {key} is empty")
        if not _AMOUNT.fullmatch(text) or not Decimal("0") < Decimal(text) <= MAX_BONUS:
            raise DesignError(
                f"bonus table row {n} ({who}): amount {amount!r} must be pounds (dollars) with at most two "
                f"decimals, above 0 and at most {MAX_BONUS}, e.g. 1.50 (Prolific's bonuses are not in pence)"
            )
        rows.append((who.strip(), int(Decimal(text) * 100)))
    repeated = sorted({w for w, _ in rows if sum(1 for x, _ in rows if x == w) > 1})
    if repeated and not allow_repeat:
        raise DesignError(
            f"{repeated[0]} is listed {sum(w == repeated[0] for w, _ in rows)} times in the bonus table; "
            "merge the rows or pass --allow-repeat to pay each"
        )
    return rows


def read_ledger(study_dir: str | Path) -> dict[str, Any]:
    """The bonus ledger of a study folder; an unreadable one stops everything (never pay blind)."""
    path = Path(study_dir) / LEDGER
    if not path.exists():
        return {"bulks": []}
    ledger = read_state(path, "bonus ledger")
    bulks = ledger.get("bulks")
    if not isinstance(bulks, list) or not all(
        isinstance(b, dict) and "id" in b and isinstance(b.get("rows"), list) for b in bulks
    ):
        raise PlatformError(f"{path}: the bonus ledger's bulks are not as written; restore it from a backup")
    return ledger


def _write_ledger(study_dir: str | Path, ledger: dict[str, Any]) -> None:
    path = Path(study_dir) / LEDGER
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(ledger, indent=2, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    temporary.replace(path)


def _csv(rows: list[tuple[str, int]]) -> str:
    return "".join(f"{who},{pence // 100}.{pence % 100:02d}\n" for who, pence in rows)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def plan_bonuses(rows: list[tuple[str, int]], ledger: dict[str, Any], *, allow_repeat: bool) -> pd.DataFrame:
    """Each row against the ledger: ``state`` ``already paid`` / ``pending`` (in a recorded bulk
    not known to be paid, ``bulk_id``) / ``new``."""
    unused = [(bulk, tuple(row)) for bulk in ledger["bulks"] for row in bulk["rows"]]
    out = []
    for who, pence in rows:
        match = next((i for i, (_, row) in enumerate(unused) if row == (who, pence)), None)
        if match is not None:
            bulk, _ = unused.pop(match)
            state = "already paid" if bulk["state"] == "paid" else "pending"
            out.append({"id": who, "pence": pence, "state": state, "bulk_id": bulk["id"]})
            continue
        earlier = [b["id"] for b, row in unused if row[0] == who]
        if earlier and not allow_repeat:
            raise DesignError(
                f"{who} already has another bonus on record (bulk {earlier[0]}); pass --allow-repeat to pay "
                "this one as well"
            )
        out.append({"id": who, "pence": pence, "state": "new", "bulk_id": None})
    return pd.DataFrame(out, columns=["id", "pence", "state", "bulk_id"])


def _paid_amounts(client: Any, study_id: str, ids: list[str]) -> dict[str, list[int]]:
    """Bonus amounts (pence) Prolific shows as paid, by the participant or submission id used."""
    submissions = list_submissions(client, study_id)
    by_participant = dict(zip(submissions["participant_id"], submissions["id"], strict=True))
    shown = {}
    for who in ids:
        submission = by_participant.get(who, who)
        detail = call(client, "GET", f"submissions/{submission}/")
        payments = detail.get("bonus_payments") or []
        shown[who] = [int(p) for p in payments if isinstance(p, int | float)]
    return shown


def _settle(client: Any, study_id: str, bulk: dict[str, Any], *, confirm_unpaid: set[str]) -> None:
    """Mark a bulk whose pay request got no clear answer paid when Prolific shows it, or ready to
    pay again when the user confirmed it was not paid; otherwise stop with one line."""
    if bulk["id"] in confirm_unpaid:
        bulk["state"] = "created"
        return
    shown = _paid_amounts(client, study_id, [who for who, _ in bulk["rows"]])
    seen = sum(1 for who, pence in bulk["rows"] if pence in shown.get(who, []))
    if seen == len(bulk["rows"]):
        bulk["state"], bulk["paid_at"] = "paid", _now()
        return
    raise PlatformError(
        f"bulk bonus {bulk['id']}: its pay request got no clear answer and Prolific shows {seen} of "
        f"{len(bulk['rows'])} bonuses paid; payment takes a few minutes, so run this again later (nothing "
        f"is paid twice); if Prolific's web app shows it unpaid, pass --confirm-unpaid {bulk['id']}"
    )


def _pay(client: Any, study_dir: Path, ledger: dict[str, Any], bulk: dict[str, Any]) -> None:
    bulk["state"] = "paying"
    _write_ledger(study_dir, ledger)  # before the request: an unclear answer is never paid again blindly
    try:
        call(client, "POST", f"bulk-bonus-payments/{bulk['id']}/pay/", shape=None, attempts=1)
    except PlatformError as exc:
        raise PlatformError(
            f"{exc}; the pay request is not repeated (it may have been carried out): run this again in a few "
            "minutes to check what Prolific paid"
        ) from None
    bulk["state"], bulk["paid_at"] = "paid", _now()
    _write_ledger(study_dir, ledger)


def pay_bonuses(
    table: pd.DataFrame,
    client: Any,
    study_dir: str | Path,
    study_id: str,
    *,
    execute: bool = False,
    allow_repeat: bool = False,
    confirm_unpaid: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Pay the bonuses of ``table`` once (see the module docstring); a dry run unless ``execute``.

    Returns one row per table row: ``id``, ``pence``, ``state`` (``paid`` now, ``already paid``
    before, ``checked`` in a dry run; rows of a bulk still unsettled raise) and ``bulk_id``.
    """
    study_dir = Path(study_dir)
    rows = bonus_rows(table, allow_repeat=allow_repeat)
    ledger = read_ledger(study_dir)
    if ledger.get("study_id") not in (None, study_id):
        raise DesignError(f"{study_dir / LEDGER} belongs to study {ledger['study_id']}, not {study_id}")
    ledger["study_id"] = study_id
    plan = plan_bonuses(rows, ledger, allow_repeat=allow_repeat)
    if not execute:
        return plan.assign(state=plan["state"].replace({"new": "checked", "pending": "checked"}))
    bulks = {b["id"]: b for b in ledger["bulks"]}
    for bulk_id in dict.fromkeys(plan.loc[plan["state"] == "pending", "bulk_id"]):
        bulk = bulks[bulk_id]
        if bulk["state"] == "paying":
            _settle(client, study_id, bulk, confirm_unpaid=set(confirm_unpaid))
            _write_ledger(study_dir, ledger)
        if bulk["state"] == "created":
            _pay(client, study_dir, ledger, bulk)
    new = plan[plan["state"] == "new"]
    if len(new):
        new_rows = [(who, int(p)) for who, p in zip(new["id"], new["pence"], strict=True)]
        answer = call(
            client,
            "POST",
            "submissions/bonus-payments/",
            json={"study_id": study_id, "csv_bonuses": _csv(new_rows)},
            safe=False,
        )
        expected = sum(p for _, p in new_rows)
        if not isinstance(answer.get("id"), str) or answer.get("amount") != expected:
            raise PlatformError(
                f"Prolific counts this bulk bonus as {answer.get('amount')!r} pence but the table as "
                f"{expected}; not paying it (bonus amounts are in pounds, rewards in pence)"
            )
        bulk = {
            "id": answer["id"],
            "rows": [list(r) for r in new_rows],
            "state": "created",
            "amount": expected,
            "total_amount": answer.get("total_amount"),
            "created_at": _now(),
        }
        ledger["bulks"].append(bulk)
        _write_ledger(study_dir, ledger)  # the id is on record before anything is paid
        plan.loc[new.index, "bulk_id"] = bulk["id"]
        _pay(client, study_dir, ledger, bulk)
    fresh = plan["state"] != "already paid"
    return plan.assign(state=plan["state"].where(~fresh, "paid"))
