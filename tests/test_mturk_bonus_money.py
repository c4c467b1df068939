"""MTurk bonuses paid exactly once (issue 47, item 4): MTurk's record (ListBonusPayments) decides,
not the request token that AWS documents as expiring after 24 hours, and not the reason's wording."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import PlatformError
from humaneval.platforms import mturk
from tests._fake_mturk import FakeMTurk


def table(reason: str = "thanks", amounts=("0.50", "1.00")) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "assignment_id": ["A1", "A2"],
            "amount": list(amounts),
            "reason": [reason] * 2,
            "worker_id": ["W1", "W2"],
        }
    )


def paid(c: FakeMTurk) -> list[tuple[str, str]]:
    return sorted((p["AssignmentId"], p["BonusAmount"]) for p in c.payments)


def test_a_rerun_25_hours_later_pays_nothing_again(tmp_path):
    c = FakeMTurk({"A1": "W1", "A2": "W2"})
    mturk.pay_bonuses(table(), c, ledger=tmp_path / "ledger.json")
    c.now += dt.timedelta(hours=25)  # the request tokens have expired; on main every row was paid again
    again = mturk.pay_bonuses(table(), c, ledger=tmp_path / "ledger.json")
    assert again["outcome"].tolist() == ["already paid", "already paid"]
    assert paid(c) == [("A1", "0.50"), ("A2", "1.00")]


def test_editing_the_reason_pays_nothing_again(tmp_path):
    c = FakeMTurk({"A1": "W1", "A2": "W2"})
    mturk.pay_bonuses(table("thanks"), c)
    again = mturk.pay_bonuses(table("thanks!"), c)  # a new token on main: paid twice
    assert again["outcome"].tolist() == ["already paid", "already paid"] and len(c.payments) == 2


def test_another_amount_for_a_paid_assignment_needs_allow_repeat(tmp_path):
    c = FakeMTurk({"A1": "W1", "A2": "W2"})
    mturk.pay_bonuses(table(), c)
    with pytest.raises(
        PlatformError, match=r"assignment A1 already has a bonus of 0\.50 USD on MTurk's record"
    ):
        mturk.pay_bonuses(table(amounts=("0.75", "1.00")), c)
    assert len(c.payments) == 2
    more = mturk.pay_bonuses(table(amounts=("0.75", "1.00")), c, allow_repeat=True)
    assert more["outcome"].tolist() == ["paid", "already paid"]
    assert paid(c) == [("A1", "0.50"), ("A1", "0.75"), ("A2", "1.00")]


def test_the_record_is_read_across_pages(tmp_path):
    c = FakeMTurk({"A1": "W1"})
    rows = pd.DataFrame({"assignment_id": ["A1"] * 150, "amount": ["0.10"] * 150, "reason": ["x"] * 150})
    mturk.pay_bonuses(rows, c, allow_repeat=True)
    assert mturk.paid_bonuses(c, "A1") == {"0.10": 150}
    again = mturk.pay_bonuses(rows, c, allow_repeat=True)
    assert set(again["outcome"]) == {"already paid"} and len(c.payments) == 150


def test_two_runs_at_once_pay_once_and_the_ledger_agrees(tmp_path):
    c = FakeMTurk({"A1": "W1", "A2": "W2"})
    send = c.send_bonus

    def slow_send(**p):  # both runs overlap here unless the ledger lock holds one back
        time.sleep(0.3)
        return send(**p)

    c.send_bonus = slow_send
    results = []
    threads = [
        threading.Thread(
            target=lambda reason=reason: results.append(
                mturk.pay_bonuses(table(reason), c, ledger=tmp_path / "ledger.json")
            )
        )
        for reason in ("thanks", "thanks a lot")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(tuple(r["outcome"]) for r in results) == [("already paid",) * 2, ("paid",) * 2]
    ledger = json.loads((tmp_path / "ledger.json").read_text())
    assert sorted(
        (b["assignment_id"], b["amount"]) for b in ledger["bonuses"] if b["state"] == "paid"
    ) == paid(c)
    assert paid(c) == [("A1", "0.50"), ("A2", "1.00")]


@pytest.mark.parametrize(
    ("header", "missing"), [("assignment_id,reason", "amount"), ("assignment_id,bonus,reason", "amount")]
)
@pytest.mark.parametrize("execute", [[], ["--execute"]])
def test_cli_bonus_table_without_amount_is_one_line(tmp_path, header, missing, execute):
    path = tmp_path / "bonus.csv"
    path.write_text(
        f"{header}\n"
        + ",".join(
            ["A1"] + ["x"] * (header.count(",")),
        )
        + "\n"
    )
    result = CliRunner().invoke(main, ["mturk", "bonus", str(path), *execute])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"needs columns assignment_id, amount (USD), reason; missing {missing}" in result.output
