"""Prolific bonuses in two steps, paid once (Prolific's API reference, "Create bonus payments" and
"Pay bonus payments", https://docs.prolific.com/api-reference).

Prolific pays bonuses in two calls: ``POST submissions/bonus-payments/`` creates a bulk bonus
from ``"<participant or submission id>,<amount>"`` lines (amounts in **pounds / dollars**, while
study rewards are in pence / cents) and pays nothing; ``POST bulk-bonus-payments/<id>/pay/``
pays it, asynchronously, and is documented as *not idempotent*: a repeated pay request pays
again. The only record of what was paid that Prolific's public API shows is each submission's
``bonus_payments`` (``GET submissions/<id>/``, amounts in pence). So :func:`pay_bonuses`

- checks every id against the study's submissions and names each person by the study's
  participant id (a row by ``submission_id`` and one by ``participant_id`` are the same person);
- holds a lock on the study folder's ledger (``prolific_bonuses.json``) from reading it to
  recording the payment, so two runs at once cannot both pay;
- before creating a bulk, compares Prolific's record with the ledger: a bonus Prolific shows that
  the ledger does not (paid from the web app, or the ledger was replaced by an older copy) stops
  the run unless ``allow_repeat``;
- records the bulk's id, its rows and what Prolific showed paid just before, *before* paying, and
  marks it ``paying`` before the pay request goes out; the pay request is repeated only after a
  429 (Prolific answers it before doing anything);
- on a re-run, pays a bulk that was created but never sent, and settles one whose pay request got
  no clear answer by the bonuses Prolific shows *beyond* that snapshot, never by an earlier bonus
  of the same amount: everyone's new bonus shown → done; otherwise it stops with one line
  (payment takes minutes) and pays again only when told the bulk was not paid
  (``confirm_unpaid``, after checking Prolific's web app);
- skips rows already paid with the same amount, refuses a row whose participant already has a
  different bonus on record and a participant listed twice (``allow_repeat`` pays both), and
  refuses to pay a bulk whose total Prolific counts differently from the table (a unit mix-up).

References
----------
Prolific, "How to resolve an underpaying study with bonus payments" (researcher help centre):
bonuses carry the same service fee as rewards, about 33.33 %, plus VAT where applicable.
"""

from __future__ import annotations

import re
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.errors import DesignError, PlatformError
from humaneval.platforms.ledger import LOCK_WAIT, exclusive, write_json
from humaneval.platforms.prolific import ATTEMPTS, RateLimited, call, path_id, read_state

LEDGER = "prolific_bonuses.json"
LOCK = "prolific_bonuses.lock"
_AMOUNT = re.compile(r"\d{1,4}(\.\d{1,2})?")
#: The largest single bonus accepted, in pounds / dollars (a guard against pence typed as pounds).
MAX_BONUS = Decimal("100")
#: Column names read as the person to pay and as the amount, in this order of preference.
ID_COLUMNS = ("participant_id", "prolific_pid", "participant", "submission_id")
AMOUNT_COLUMNS = ("amount", "bonus")
#: Prolific's service fee on bonuses (about a third, plus VAT where applicable; see References).
FEE_RATE = Decimal(1) / Decimal(3)
PLAN_COLUMNS = ["id", "participant_id", "pence", "state", "bulk_id"]


def bonus_rows(table: pd.DataFrame, *, allow_repeat: bool = False) -> list[tuple[str, int]]:
    """``[(participant or submission id, amount in pence)]`` of a bonus table.

    The id is read from ``participant_id``, ``prolific_pid``, ``participant`` or
    ``submission_id``, the amount in pounds (dollars), e.g. ``1.50``, from ``amount`` or
    ``bonus``. Every row is checked before anything is paid.

    Examples
    --------
    >>> bonus_rows(pd.DataFrame({"participant_id": ["P1", "P2"], "amount": ["1.50", "0.3"]}))
    [('P1', 150), ('P2', 30)]
    >>> bonus_rows(pd.DataFrame({"prolific_pid": ["P1"], "bonus": [2.5]}))
    [('P1', 250)]
    """
    key = next((k for k in ID_COLUMNS if k in table), None)
    money = next((k for k in AMOUNT_COLUMNS if k in table), None)
    if key is None or money is None:
        raise DesignError(
            "the bonus table needs an id column (participant_id, prolific_pid or submission_id) and an "
            f"amount column (amount or bonus, in pounds); it has {', '.join(map(str, table.columns))}"
        )
    rows = []
    for n, (who, amount) in enumerate(zip(table[key], table[money], strict=True), start=2):
        text = "" if pd.isna(amount) else str(amount).strip()
        if not isinstance(who, str) or not who.strip():
            raise DesignError(f"bonus table row {n}: {key} is empty")
        if not _AMOUNT.fullmatch(text) or not Decimal("0") < Decimal(text) <= MAX_BONUS:
            raise DesignError(
                f"bonus table row {n} ({who}): {money} {amount!r} must be pounds (dollars) with at most two "
                f"decimals, above 0 and at most {MAX_BONUS}, e.g. 1.50 (Prolific's bonuses are not in pence)"
            )
        rows.append((who.strip(), int(Decimal(text) * 100)))
    _refuse_repeats([w for w, _ in rows], allow_repeat)
    return rows


def _refuse_repeats(ids: list[str], allow_repeat: bool) -> None:
    if allow_repeat:
        return
    counts = Counter(ids)
    repeated = next((w for w in ids if counts[w] > 1), None)
    if repeated is not None:
        raise DesignError(
            f"{repeated} is listed {counts[repeated]} times in the bonus table; merge the rows or pass "
            "--allow-repeat to pay each (a submission id counts as its participant)"
        )


def people(rows: list[tuple[str, int]], submissions: pd.DataFrame, study_id: str) -> list[str]:
    """The study's participant id of each row's id (a participant or one of their submissions);
    an id that did not take part in ``study_id`` is one :class:`DesignError` line."""
    by_submission = dict(zip(submissions["id"], submissions["participant_id"], strict=True))
    known = set(submissions["participant_id"])
    out = []
    for n, (who, _) in enumerate(rows, start=2):
        person = who if who in known else by_submission.get(who)
        if person is None:
            raise DesignError(
                f"bonus table row {n}: {who} did not take part in study {study_id} (none of its "
                f"{len(submissions)} submissions); check the id"
            )
        out.append(person)
    return out


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
    write_json(Path(study_dir) / LEDGER, ledger)


@contextmanager
def ledger_lock(study_dir: str | Path, *, wait: float = LOCK_WAIT) -> Iterator[None]:
    """Hold the study folder's bonus lock (:data:`LOCK`) for a whole plan → create → pay → record;
    another run waits up to ``wait`` seconds, then stops."""
    busy = (
        f"{study_dir}: another 'prolific bonus --execute' has been paying for {wait:.0f} s; run this again "
        "when it has finished"
    )
    with exclusive(Path(study_dir) / LOCK, busy=busy, wait=wait):
        yield


def _csv(rows: list[tuple[str, int]]) -> str:
    return "".join(f"{who},{pence // 100}.{pence % 100:02d}\n" for who, pence in rows)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def plan_bonuses(
    rows: list[tuple[str, int]],
    ledger: dict[str, Any],
    *,
    allow_repeat: bool,
    persons: list[str] | None = None,
    aliases: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Each row against the ledger: ``state`` ``already paid`` / ``pending`` (in a recorded bulk
    not known to be paid, ``bulk_id``) / ``new``.

    ``persons`` is each row's participant id (default: the row's id); ``aliases`` maps the
    submission ids of older ledger rows to participant ids. Linear in rows and ledger rows.
    """
    persons = persons if persons is not None else [who for who, _ in rows]
    aliases = aliases or {}
    unused: dict[str, dict[int, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for bulk in ledger["bulks"]:
        for who, pence in bulk["rows"]:
            unused[aliases.get(who, who)][int(pence)].append(bulk)
    out = []
    for (who, pence), person in zip(rows, persons, strict=True):
        on_record = unused[person]
        if on_record[pence]:
            bulk = on_record[pence].pop(0)
            state = "already paid" if bulk["state"] == "paid" else "pending"
        else:
            others = next((left[0] for left in on_record.values() if left), None)
            if others is not None and not allow_repeat:
                raise DesignError(
                    f"{who} already has another bonus on record (bulk {others['id']}); pass --allow-repeat "
                    "to pay this one as well"
                )
            bulk, state = {"id": None}, "new"
        out.append(
            {"id": who, "participant_id": person, "pence": pence, "state": state, "bulk_id": bulk["id"]}
        )
    return pd.DataFrame(out, columns=PLAN_COLUMNS)


def shown_bonuses(client: Any, submissions: pd.DataFrame, persons: list[str]) -> dict[str, list[int]]:
    """Bonus amounts (pence) Prolific shows paid to each of ``persons`` in this study, from each of
    their submissions' ``bonus_payments`` (``GET submissions/<id>/``)."""
    shown: dict[str, list[int]] = {}
    wanted = set(persons)
    for submission, person in zip(submissions["id"], submissions["participant_id"], strict=True):
        if person not in wanted:
            continue
        detail = call(client, "GET", f"submissions/{path_id(submission, 'submission id')}/")
        payments = detail.get("bonus_payments") or []
        shown.setdefault(person, []).extend(int(p) for p in payments if isinstance(p, int | float))
    return {person: shown.get(person, []) for person in persons}


def _unrecorded(shown: dict[str, list[int]], ledger: dict[str, Any], aliases: dict[str, str]) -> list[str]:
    """``"<participant> <pounds>"`` for each bonus Prolific shows that no sent bulk of the ledger
    accounts for (paid from the web app, or the ledger is missing or older than Prolific's record)."""
    sent: dict[str, Counter[int]] = defaultdict(Counter)
    for bulk in ledger["bulks"]:
        if bulk["state"] in ("paid", "paying"):
            for who, pence in bulk["rows"]:
                sent[aliases.get(who, who)][int(pence)] += 1
    extra = []
    for person, amounts in shown.items():
        for pence, n in (Counter(amounts) - sent[person]).items():
            extra += [f"{person} {pence / 100:.2f}"] * n
    return extra


def _sent_before(
    ledger: dict[str, Any], bulk: dict[str, Any], aliases: dict[str, str]
) -> dict[str, list[int]]:
    """For a bulk recorded without a snapshot (an older ledger): the amounts of the bulks paid before
    it, as the baseline its own bonuses must show beyond."""
    earlier = ledger["bulks"][: ledger["bulks"].index(bulk)]
    sent: dict[str, list[int]] = defaultdict(list)
    for other in earlier:
        if other["state"] == "paid":
            for who, pence in other["rows"]:
                sent[aliases.get(who, who)].append(int(pence))
    return dict(sent)


def _settle(
    client: Any,
    submissions: pd.DataFrame,
    bulk: dict[str, Any],
    aliases: dict[str, str],
    ledger: dict[str, Any],
    *,
    confirm: set[str],
) -> None:
    """Mark a bulk whose pay request got no clear answer paid when Prolific shows its bonuses beyond
    what it showed just before the pay request, or ready to pay again when the user confirmed it
    was not paid; otherwise stop with one line."""
    if bulk["id"] in confirm:
        bulk["state"] = "created"
        return
    persons = [aliases.get(who, who) for who, _ in bulk["rows"]]
    now = shown_bonuses(client, submissions, list(dict.fromkeys(persons)))
    before = bulk.get("shown_before") or _sent_before(ledger, bulk, aliases)
    new = {p: Counter(now[p]) - Counter(before.get(p, [])) for p in now}
    seen = 0
    for person, (_, pence) in zip(persons, bulk["rows"], strict=True):
        if new[person][int(pence)] > 0:
            new[person][int(pence)] -= 1
            seen += 1
    if seen == len(bulk["rows"]):
        bulk["state"], bulk["paid_at"] = "paid", _now()
        return
    raise PlatformError(
        f"bulk bonus {bulk['id']}: its pay request got no clear answer and Prolific shows {seen} of "
        f"{len(bulk['rows'])} bonuses paid (new since its pay request); payment takes a few minutes, so "
        "run this again later (nothing is paid twice); if Prolific's web app shows it unpaid, pass "
        f"--confirm-unpaid {bulk['id']}"
    )


def _pay(client: Any, study_dir: Path, ledger: dict[str, Any], bulk: dict[str, Any]) -> None:
    bulk["state"] = "paying"
    _write_ledger(study_dir, ledger)  # before the request: an unclear answer is never paid again blindly
    try:
        call(
            client,
            "POST",
            f"bulk-bonus-payments/{path_id(bulk['id'], 'bulk bonus id')}/pay/",
            shape=None,
            safe=False,
            attempts=ATTEMPTS,
        )
    except RateLimited as exc:
        bulk["state"] = "created"  # a 429 comes before anything is done
        _write_ledger(study_dir, ledger)
        raise PlatformError(
            f"{exc}; nothing was paid: run this again later to pay bulk {bulk['id']}"
        ) from None
    except PlatformError as exc:
        raise PlatformError(
            f"{exc}; the pay request is not repeated (it may have been carried out): run this again in a few "
            "minutes to check what Prolific paid"
        ) from None
    bulk["state"], bulk["paid_at"] = "paid", _now()
    _write_ledger(study_dir, ledger)


def fee_inclusive(pence: int) -> int:
    """Prolific's estimated charge for ``pence`` of bonuses: plus its service fee of a third
    (before VAT, where applicable), rounded to the penny.

    >>> fee_inclusive(150)
    200
    """
    return int((Decimal(pence) * (1 + FEE_RATE)).quantize(Decimal(1)))


@dataclass(frozen=True)
class BonusCheck:
    """What a bonus run costs: ``total_pence`` of bonuses, ``charge_pence`` with Prolific's
    estimated service fee (:func:`fee_inclusive`, before VAT), the study's ``reward_pence`` and
    ``above_reward`` (``"<id> <pounds>"`` of each bonus larger than the reward: likely pence typed
    as pounds)."""

    total_pence: int
    charge_pence: int
    reward_pence: int | None
    above_reward: tuple[str, ...]


def bonus_check(client: Any, study_id: str, rows: list[tuple[str, int]]) -> BonusCheck:
    """The :class:`BonusCheck` of :func:`bonus_rows` (the study's reward from ``GET studies/<id>/``)."""
    from humaneval.platforms.prolific_study import get_study

    reward = get_study(client, study_id).get("reward")
    reward = int(reward) if isinstance(reward, int | float) and reward > 0 else None
    total = sum(pence for _, pence in rows)
    above = tuple(f"{who} {pence / 100:.2f}" for who, pence in rows if reward is not None and pence > reward)
    return BonusCheck(total, fee_inclusive(total), reward, above)


def pay_bonuses(
    table: pd.DataFrame,
    client: Any,
    study_dir: str | Path,
    study_id: str,
    *,
    execute: bool = False,
    allow_repeat: bool = False,
    confirm_unpaid: tuple[str, ...] = (),
    submissions: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Pay the bonuses of ``table`` once (see the module docstring); a dry run unless ``execute``.

    ``submissions`` is the study's submission list (default: read from Prolific with
    :func:`~humaneval.platforms.prolific.list_submissions`); every id is checked against it, in a
    dry run too. Returns one row per table row: ``id``, ``participant_id``, ``pence``, ``state``
    (``paid`` now, ``already paid`` before, ``checked`` in a dry run; rows of a bulk still
    unsettled raise) and ``bulk_id``.
    """
    from humaneval.platforms.prolific import list_submissions

    study_dir = Path(study_dir)
    rows = bonus_rows(table, allow_repeat=allow_repeat)
    if submissions is None:
        submissions = list_submissions(client, study_id)
    persons = people(rows, submissions, study_id)
    _refuse_repeats(persons, allow_repeat)
    aliases = dict(zip(submissions["id"], submissions["participant_id"], strict=True))
    if not execute:
        plan = plan_bonuses(
            rows, _ledger_of(study_dir, study_id), allow_repeat=allow_repeat, persons=persons, aliases=aliases
        )
        return plan.assign(state=plan["state"].replace({"new": "checked", "pending": "checked"}))
    with ledger_lock(study_dir):
        ledger = _ledger_of(study_dir, study_id)
        plan = plan_bonuses(rows, ledger, allow_repeat=allow_repeat, persons=persons, aliases=aliases)
        _pay_pending(plan, client, submissions, study_dir, ledger, aliases, set(confirm_unpaid))
        new = plan[plan["state"] == "new"]
        if len(new):
            bulk_id = _create_and_pay(
                new, client, submissions, study_dir, study_id, ledger, aliases, allow_repeat
            )
            plan.loc[new.index, "bulk_id"] = bulk_id
    fresh = plan["state"] != "already paid"
    return plan.assign(state=plan["state"].where(~fresh, "paid"))


def _ledger_of(study_dir: Path, study_id: str) -> dict[str, Any]:
    ledger = read_ledger(study_dir)
    if ledger.get("study_id") not in (None, study_id):
        raise DesignError(f"{study_dir / LEDGER} belongs to study {ledger['study_id']}, not {study_id}")
    ledger["study_id"] = study_id
    return ledger


def _pay_pending(
    plan: pd.DataFrame,
    client: Any,
    submissions: pd.DataFrame,
    study_dir: Path,
    ledger: dict[str, Any],
    aliases: dict[str, str],
    confirm: set[str],
) -> None:
    bulks = {b["id"]: b for b in ledger["bulks"]}
    for bulk_id in dict.fromkeys(plan.loc[plan["state"] == "pending", "bulk_id"]):
        bulk = bulks[bulk_id]
        if bulk["state"] == "paying":
            _settle(client, submissions, bulk, aliases, ledger, confirm=confirm)
            _write_ledger(study_dir, ledger)
        if bulk["state"] == "created":
            _pay(client, study_dir, ledger, bulk)


def _create_and_pay(
    new: pd.DataFrame,
    client: Any,
    submissions: pd.DataFrame,
    study_dir: Path,
    study_id: str,
    ledger: dict[str, Any],
    aliases: dict[str, str],
    allow_repeat: bool,
) -> str:
    new_rows = [(who, int(p)) for who, p in zip(new["participant_id"], new["pence"], strict=True)]
    shown = shown_bonuses(client, submissions, list(dict.fromkeys(new["participant_id"])))
    extra = _unrecorded(shown, ledger, aliases)
    if extra and not allow_repeat:
        raise PlatformError(
            f"Prolific shows bonuses the ledger {study_dir / LEDGER} does not record "
            f"({', '.join(extra[:3])}{' …' if len(extra) > 3 else ''}; paid from the web app, or the ledger "
            "is older than Prolific's record): nothing paid; drop those rows or pass --allow-repeat to pay "
            "them again"
        )
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
        "shown_before": shown,
    }
    ledger["bulks"].append(bulk)
    _write_ledger(study_dir, ledger)  # the id is on record before anything is paid
    _pay(client, study_dir, ledger, bulk)
    return str(bulk["id"])
