"""Prolific bonuses paid exactly once under every fault (issue 47, items 1-3 and 5) and bonus tables as
researchers write them (issue 45, items 2-3), against the stand-in API that records every payment."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter

import httpx
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import DesignError, PlatformError
from humaneval.platforms import prolific
from humaneval.platforms.prolific_bonus import LEDGER, bonus_rows, fee_inclusive, pay_bonuses, read_ledger
from tests._fake_prolific import BASE, TOKEN, FakeProlific

STUDY = "S1"


@pytest.fixture
def waits(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(prolific, "sleep", slept.append)
    return slept


@pytest.fixture
def fake():
    fake = FakeProlific(page_size=50)
    fake.studies[STUDY] = {"id": STUDY, "status": "ACTIVE", "reward": 360}
    for pid in ("P1", "P2", "P3"):
        fake.arrive(STUDY, pid, "APPROVED")
    return fake


def client(fake):
    return prolific.prolific_client(TOKEN, transport=fake.transport(), base_url=BASE)


def table(**columns):
    return pd.DataFrame(columns)


def ledger_payments(folder) -> Counter:
    """(participant, pence) of every bulk the ledger records as paid."""
    return Counter(
        (who, pence)
        for bulk in read_ledger(folder)["bulks"]
        if bulk["state"] == "paid"
        for who, pence in bulk["rows"]
    )


def prolific_payments(fake) -> Counter:
    return Counter(
        (fake.submissions[s]["participant_id"], p) for bulk, s, p in fake.payments if bulk != "web app"
    )


def test_two_runs_at_once_pay_each_person_once(fake, tmp_path):
    fake.create_delay = 0.5  # on main both runs created and paid a bulk every time
    bonuses = table(participant_id=["P1", "P2", "P3"], amount=["1.00", "0.50", "0.25"])
    results, errors = [], []

    def run_once():
        try:
            results.append(pay_bonuses(bonuses, client(fake), tmp_path, STUDY, execute=True))
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run_once) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(tuple(r["state"]) for r in results) == [("already paid",) * 3, ("paid",) * 3]
    assert len(fake.bulks) == 1 and fake.pay_calls == ["BULK1"]
    assert (
        prolific_payments(fake)
        == ledger_payments(tmp_path)
        == Counter({("P1", 100): 1, ("P2", 50): 1, ("P3", 25): 1})
    )


def test_the_lock_holds_across_processes(tmp_path):
    """The lock is a file lock: a second process waits for the first one's whole run."""
    import subprocess
    import sys

    from humaneval.platforms.prolific_bonus import ledger_lock

    holder = (
        "import sys, time\nfrom humaneval.platforms.prolific_bonus import ledger_lock\n"
        "with ledger_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(1.0)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout.readline().strip() == "held"
    started = time.monotonic()
    with ledger_lock(tmp_path):
        waited = time.monotonic() - started
    process.wait(timeout=30)
    assert waited > 0.3
    with pytest.raises(PlatformError, match="another 'prolific bonus --execute' has been paying"):
        blocker = subprocess.Popen(
            [sys.executable, "-c", holder, str(tmp_path)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert blocker.stdout.readline().strip() == "held"
            with ledger_lock(tmp_path, wait=0.1):
                pass
        finally:
            blocker.wait(timeout=30)


def test_an_earlier_bonus_of_the_same_amount_is_no_proof_of_payment(fake, tmp_path):
    pay_bonuses(table(participant_id=["P1"], amount=["1.00"]), client(fake), tmp_path, STUDY, execute=True)
    fake.faults.add("error_before_paying")
    repeat = table(participant_id=["P1", "P1"], amount=["1.00", "1.00"])
    with pytest.raises(PlatformError, match="not repeated"):
        pay_bonuses(repeat, client(fake), tmp_path, STUDY, execute=True, allow_repeat=True)
    fake.faults.clear()
    # on main the earlier 1.00 counted as proof: exit 0 and ledger "paid" for a bonus never paid
    with pytest.raises(PlatformError, match=r"shows 0 of 1 bonuses paid .*--confirm-unpaid BULK2"):
        pay_bonuses(repeat, client(fake), tmp_path, STUDY, execute=True, allow_repeat=True)
    assert [b["state"] for b in read_ledger(tmp_path)["bulks"]] == ["paid", "paying"]
    assert prolific_payments(fake) == ledger_payments(tmp_path) == Counter({("P1", 100): 1})


def test_a_bulk_of_an_older_ledger_is_settled_beyond_the_bulks_paid_before(fake, tmp_path):
    pay_bonuses(table(participant_id=["P1"], amount=["1.00"]), client(fake), tmp_path, STUDY, execute=True)
    fake.faults.add("error_before_paying")
    repeat = table(participant_id=["P1", "P1"], amount=["1.00", "1.00"])
    with pytest.raises(PlatformError, match="not repeated"):
        pay_bonuses(repeat, client(fake), tmp_path, STUDY, execute=True, allow_repeat=True)
    fake.faults.clear()
    ledger = read_ledger(tmp_path)
    del ledger["bulks"][1]["shown_before"]  # as written before snapshots were kept
    (tmp_path / LEDGER).write_text(json.dumps(ledger))
    with pytest.raises(PlatformError, match="shows 0 of 1 bonuses paid"):
        pay_bonuses(repeat, client(fake), tmp_path, STUDY, execute=True, allow_repeat=True)
    assert prolific_payments(fake) == Counter({("P1", 100): 1})


def test_a_web_app_bonus_is_no_proof_either(fake, tmp_path):
    fake.pay_from_web_app("SUB0002", 75)
    bonuses = table(participant_id=["P2"], amount=["0.75"])
    with pytest.raises(
        PlatformError, match=r"Prolific shows bonuses the ledger .* does not record \(P2 0\.75"
    ):
        pay_bonuses(bonuses, client(fake), tmp_path, STUDY, execute=True)
    assert fake.bulks == {}
    fake.faults.add("error_before_paying")
    with pytest.raises(PlatformError, match="not repeated"):
        pay_bonuses(bonuses, client(fake), tmp_path, STUDY, execute=True, allow_repeat=True)
    fake.faults.clear()
    with pytest.raises(PlatformError, match="shows 0 of 1 bonuses paid"):
        pay_bonuses(bonuses, client(fake), tmp_path, STUDY, execute=True, allow_repeat=True)
    done = pay_bonuses(bonuses, client(fake), tmp_path, STUDY, execute=True, confirm_unpaid=("BULK1",))
    assert done["state"].tolist() == ["paid"] and fake.submissions["SUB0002"]["bonus_payments"] == [75, 75]


def test_a_person_is_one_person_under_two_ids_and_without_the_ledger(fake, tmp_path):
    pay_bonuses(table(participant_id=["P1"], amount=["1.00"]), client(fake), tmp_path, STUDY, execute=True)
    by_submission = pay_bonuses(
        table(submission_id=["SUB0001"], amount=["1.00"]), client(fake), tmp_path, STUDY, execute=True
    )
    assert by_submission[["participant_id", "state"]].values.tolist() == [["P1", "already paid"]]
    with pytest.raises(DesignError, match="P1 is listed 2 times"):
        pay_bonuses(
            table(participant_id=["P1", "SUB0001"], amount=["1.00", "1.00"]), client(fake), tmp_path, STUDY
        )
    (tmp_path / LEDGER).unlink()  # lost, or replaced by an older copy
    with pytest.raises(PlatformError, match=r"does not record \(P1 1\.00.*nothing paid"):
        pay_bonuses(
            table(submission_id=["SUB0001"], amount=["1.00"]), client(fake), tmp_path, STUDY, execute=True
        )
    assert fake.pay_calls == ["BULK1"] and prolific_payments(fake) == Counter({("P1", 100): 1})


def test_a_429_on_the_pay_call_is_waited_out_not_left_unsettled(fake, tmp_path, waits):
    fake.rate_limited_pays, fake.retry_after = 2, "3"
    done = pay_bonuses(
        table(participant_id=["P1"], amount=["1.00"]), client(fake), tmp_path, STUDY, execute=True
    )
    assert done["state"].tolist() == ["paid"] and waits == [3.0, 3.0] and fake.pay_calls == ["BULK1"] * 3
    fake.rate_limited_pays = 10  # still limited after every attempt: nothing was paid, nothing to confirm
    with pytest.raises(PlatformError, match=r"rate-limited \(429\) after 4 attempts; nothing was paid"):
        pay_bonuses(
            table(participant_id=["P2"], amount=["0.50"]), client(fake), tmp_path, STUDY, execute=True
        )
    assert read_ledger(tmp_path)["bulks"][-1]["state"] == "created"
    fake.rate_limited_pays = 0
    again = pay_bonuses(
        table(participant_id=["P2"], amount=["0.50"]), client(fake), tmp_path, STUDY, execute=True
    )
    assert again["state"].tolist() == ["paid"] and len(fake.bulks) == 2
    assert prolific_payments(fake) == ledger_payments(tmp_path) == Counter({("P1", 100): 1, ("P2", 50): 1})


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({"participant_id": ["P1"], "amount": ["1.5"]}, [("P1", 150)]),
        ({"prolific_pid": ["P1"], "bonus": [1.5]}, [("P1", 150)]),
        ({"participant": ["P1"], "bonus": ["0.25"]}, [("P1", 25)]),
        ({"submission_id": ["SUB0001"], "amount": [2]}, [("SUB0001", 200)]),
    ],
)
def test_bonus_tables_with_the_obvious_column_names(columns, expected):
    assert bonus_rows(table(**columns)) == expected


def test_a_bonus_table_without_the_columns_says_which_it_needs():
    with pytest.raises(
        DesignError,
        match=r"needs an id column \(participant_id, prolific_pid or submission_id\) "
        r"and an amount column \(amount or bonus, in pounds\); it has who, pay",
    ):
        bonus_rows(table(who=["P1"], pay=["1.00"]))


def test_the_fee_inclusive_total_is_a_third_on_top():
    assert [fee_inclusive(p) for p in (0, 3, 150, 175, 10_000)] == [0, 4, 200, 233, 13_333]


def test_a_dry_run_of_100000_rows_is_linear(tmp_path):
    n = 100_000
    submissions = pd.DataFrame(
        {"id": [f"S{i}" for i in range(n)], "participant_id": [f"P{i}" for i in range(n)]}
    )
    half = [[f"P{i}", 100] for i in range(n // 2)]
    (tmp_path / LEDGER).write_text(json.dumps({"bulks": [{"id": "B1", "state": "paid", "rows": half}]}))
    bonuses = table(participant_id=[f"P{i}" for i in range(n)], amount=["1.00"] * n)
    started = time.process_time()
    plan = pay_bonuses(bonuses, None, tmp_path, STUDY, submissions=submissions)
    assert time.process_time() - started < 15  # 124 s on main (quadratic)
    assert plan["state"].value_counts().to_dict() == {"already paid": n // 2, "checked": n // 2}


# -- the command line ------------------------------------------------------------------------------


@pytest.fixture
def cli(fake, tmp_path, monkeypatch):
    from humaneval.serve import create_study
    from tests._designs import cell_texts
    from tests.test_serve import make_design

    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id=STUDY)
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    original = prolific.prolific_client
    monkeypatch.setattr(
        prolific,
        "prolific_client",
        lambda token=None: original(token, transport=fake.transport(), base_url=BASE),
    )

    def run(rows: str, *args: str):
        path = tmp_path / "bonus.csv"
        path.write_text(rows)
        return CliRunner().invoke(main, ["prolific", "bonus", str(path), str(made.study_dir), *args])

    return run


def test_cli_reads_participant_and_bonus_columns(cli, fake):
    result = cli("participant,bonus\nP1,1.50\nP2,0.30\n", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["total_pence"], answer["charge_pence"], answer["counts"]) == (180, 240, {"checked": 2})


def test_cli_bonus_table_without_the_columns_is_one_line(cli, fake):
    result = cli("participant,pay\nP1,1.50\n")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "needs an id column" in result.output and "Traceback" not in result.output


def test_cli_dry_run_checks_every_id_and_the_reward(cli, fake):
    unknown = cli("participant_id,amount\nP1,1.00\nP9,1.00\n")
    assert unknown.exit_code == 2 and unknown.output.count("\n") == 1 and not fake.pay_calls
    assert "row 3: P9 did not take part in study S1 (none of its 3 submissions)" in unknown.output
    big = cli("participant_id,amount\nP1,50.00\nP2,1.00\n")
    assert big.exit_code == 0 and not fake.pay_calls
    assert big.stderr.splitlines() == [
        "warning: 1 bonus(es) exceed the study's reward of 3.60 (e.g. P1 50.00); pence typed as pounds?"
    ]
    assert "51.00 in total (pounds); with Prolific's service fee about 68.00" in big.stdout


def test_cli_study_id_that_is_a_path_is_refused(cli, fake):
    result = cli("participant_id,amount\nP1,1.00\n", "--study-id", "../../x")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "--study-id '../../x' is not a Prolific id" in result.output
    assert fake.requests == []


def test_a_stalled_api_is_given_up_on_after_two_timeouts(waits):
    seen = []

    def stalled(request):
        seen.append(request)
        raise httpx.ReadTimeout("stalled", request=request)

    stalling = prolific.prolific_client(TOKEN, transport=httpx.MockTransport(stalled), base_url=BASE)
    with pytest.raises(PlatformError, match=r"failed \(ReadTimeout\) after 2 attempts"):
        prolific.call(stalling, "GET", "studies/S1/")
    assert len(seen) == 2 and waits == [1.0]
