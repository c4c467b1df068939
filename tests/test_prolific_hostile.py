"""Hostile answers from Prolific's API (issue 32): each gives one PlatformError line, a bounded
number of requests and no loop, and nothing that spends money is repeated blindly."""

from __future__ import annotations

import httpx
import pandas as pd
import pytest

from humaneval.errors import DesignError, PayBelowMinimumError, PlatformError
from humaneval.platforms import prolific
from humaneval.platforms.prolific_bonus import pay_bonuses, read_ledger
from humaneval.platforms.prolific_study import reward_minor
from tests._fake_prolific import BASE, TOKEN, FakeProlific

STUDY = "S1"


@pytest.fixture
def waits(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr(prolific, "sleep", slept.append)
    return slept


def client_for(handler):
    seen: list[httpx.Request] = []

    def recording(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    return prolific.prolific_client(TOKEN, transport=httpx.MockTransport(recording), base_url=BASE), seen


def page(results, nxt=None):
    return httpx.Response(200, json={"results": results, "_links": {"next": {"href": nxt}}})


def sub(i: str, status: str = "AWAITING REVIEW") -> dict:
    return {"id": f"SUB{i}", "participant_id": f"P{i}", "status": status}


def test_a_next_link_to_itself_stops_at_once(waits):
    client, seen = client_for(lambda r: page([sub("1")], f"{BASE}studies/{STUDY}/submissions/"))
    with pytest.raises(PlatformError, match=r"next page .* was read before; stopping \(the list repeats\)"):
        prolific.list_submissions(client, STUDY)
    assert len(seen) == 1


def test_a_next_link_cycle_of_two_pages_stops(waits):
    def answer(request):
        second = request.url.params.get("page") == "2"
        return page(
            [sub("2" if second else "1")], f"{BASE}studies/{STUDY}/submissions/?page={1 if second else 2}"
        )

    client, seen = client_for(answer)
    with pytest.raises(PlatformError, match="read before"):
        prolific.list_submissions(client, STUDY)
    assert len(seen) == 3  # the first page, ?page=2, ?page=1 (a URL not read yet); then ?page=2 again


def test_endless_distinct_pages_stop_at_the_cap(waits, monkeypatch):
    monkeypatch.setattr(prolific, "MAX_PAGES", 5)

    def answer(request):
        n = int(request.url.params.get("page", "1"))
        return page([sub(str(n))], f"{BASE}studies/{STUDY}/submissions/?page={n + 1}")

    client, seen = client_for(answer)
    with pytest.raises(PlatformError, match="more than 5 pages; stopping"):
        prolific.list_submissions(client, STUDY)
    assert len(seen) == 5


def test_a_next_link_off_the_api_host_is_refused(waits):
    client, seen = client_for(lambda r: page([], "https://evil.example/api/v1/x"))
    with pytest.raises(
        PlatformError, match=r"not on https://prolific\.test/api/v1/; refusing to send the token"
    ):
        prolific.list_submissions(client, STUDY)
    assert [r.url.host for r in seen] == ["prolific.test"]


def test_an_html_page_with_status_200_is_one_line_after_bounded_retries(waits):
    html = "<!DOCTYPE html><html><body>Maintenance</body></html>"
    client, seen = client_for(lambda r: httpx.Response(200, text=html, headers={"content-type": "text/html"}))
    with pytest.raises(PlatformError) as error:
        prolific.list_submissions(client, STUDY)
    message = str(error.value)
    assert (
        "\n" not in message
        and "answered with text/html, not JSON" in message
        and "after 4 attempts" in message
    )
    assert len(seen) == prolific.ATTEMPTS == 4 and waits == [1.0, 2.0, 4.0]


def test_results_that_are_a_string_are_not_read_per_character(waits):
    client, seen = client_for(lambda r: httpx.Response(200, json={"results": "nope", "_links": {}}))
    with pytest.raises(PlatformError, match="'results' of type str, not a list of objects after 4 attempts"):
        prolific.list_submissions(client, STUDY)
    assert len(seen) == 4


def test_a_submission_on_two_pages_is_kept_once(waits):
    def answer(request):
        if request.url.params.get("page") == "2":
            return page([sub("2", "APPROVED"), sub("3")])
        return page([sub("1"), sub("2")], f"{BASE}studies/{STUDY}/submissions/?page=2")

    client, _ = client_for(answer)
    frame = prolific.list_submissions(client, STUDY)
    assert frame["id"].tolist() == ["SUB1", "SUB2", "SUB3"]
    assert frame.set_index("id").at["SUB2", "status"] == "APPROVED"  # the later answer


def test_429_waits_retry_after_then_succeeds_and_a_long_wait_is_one_line(waits):
    answers = iter([httpx.Response(429, headers={"Retry-After": "7"}), page([sub("1")])])
    client, seen = client_for(lambda r: next(answers))
    assert len(prolific.list_submissions(client, STUDY)) == 1 and waits == [7.0] and len(seen) == 2
    client, seen = client_for(lambda r: httpx.Response(429, headers={"Retry-After": "3600"}))
    with pytest.raises(PlatformError, match=r"asks to wait 3600 s before GET .* \(429\); try again later"):
        prolific.list_submissions(client, STUDY)
    assert len(seen) == 1


def test_5xx_and_timeouts_are_retried_a_bounded_number_of_times(waits):
    answers = iter([httpx.Response(502, text="Bad gateway"), page([sub("1")])])
    client, seen = client_for(lambda r: next(answers))
    assert len(prolific.list_submissions(client, STUDY)) == 1 and len(seen) == 2

    def timeout(request):
        raise httpx.ConnectTimeout("slow", request=request)

    client, seen = client_for(timeout)
    with pytest.raises(PlatformError, match=r"failed \(ConnectTimeout\) after 2 attempts"):
        prolific.list_submissions(client, STUDY)
    assert len(seen) == 2  # a stalled API costs two timeouts, not four (issue 47)
    timeout_ = client.timeout
    assert (timeout_.read, timeout_.connect) == (prolific.TIMEOUT, prolific.CONNECT_TIMEOUT) == (20.0, 5.0)


def test_creating_is_not_repeated_after_an_unclear_answer(waits):
    client, seen = client_for(lambda r: httpx.Response(503, json={"error": {"detail": "busy"}}))
    with pytest.raises(
        PlatformError, match=r"POST studies/ failed on Prolific's side \(503\): busy \(not repeated"
    ):
        prolific.call(client, "POST", "studies/", json={}, safe=False)
    assert len(seen) == 1


def test_error_bodies_in_each_documented_shape_give_their_detail():
    for body, detail in [
        (
            {"error": {"detail": {"reward": ["Ensure this value is greater than 0."]}}},
            "reward: Ensure this value",
        ),
        ({"detail": ["one", "two"]}, "one two"),
        ({"message": "flat form"}, "flat form"),
    ]:
        client, _ = client_for(lambda r, body=body: httpx.Response(400, json=body))
        with pytest.raises(PlatformError, match=f"refused GET x/ \\(400\\): {detail}"):
            prolific.call(client, "GET", "x/")


def test_reward_below_prolifics_minimum_is_refused_in_pence():
    # £6.00 an hour for 20 minutes is 200 pence; 199 is refused, 200 accepted
    assert reward_minor({}, 20, reward=200) == (200, "GBP")
    with pytest.raises(
        PayBelowMinimumError,
        match=r"reward 199 pence for 20 minutes is 5\.97 GBP an hour.*--reward-pence 200",
    ):
        reward_minor({}, 20, reward=199)
    # USD: $8.00 an hour minimum, in cents
    with pytest.raises(PayBelowMinimumError, match=r"below Prolific's minimum of 8\.00 USD"):
        reward_minor({"currency": "USD", "reward_per_annotator": 1.33}, 10)


@pytest.fixture
def bonus_setup(tmp_path):
    fake = FakeProlific()
    fake.studies[STUDY] = {"id": STUDY, "status": "ACTIVE"}
    for pid in ("P1", "P2"):
        fake.arrive(STUDY, pid, "APPROVED")
    client = prolific.prolific_client(TOKEN, transport=fake.transport(), base_url=BASE)
    return fake, client, tmp_path


def test_bonus_amounts_in_pence_by_mistake_are_refused_before_anything(bonus_setup):
    fake, client, folder = bonus_setup
    with pytest.raises(DesignError, match=r"amount '150' must be pounds .* at most 100"):
        pay_bonuses(
            pd.DataFrame({"participant_id": ["P1"], "amount": ["150"]}), client, folder, STUDY, execute=True
        )
    with pytest.raises(
        DesignError, match="P1 is listed 2 times in the bonus table; merge the rows or pass --allow-repeat"
    ):
        pay_bonuses(
            pd.DataFrame({"participant_id": ["P1", "P1"], "amount": ["1.00", "0.50"]}),
            client,
            folder,
            STUDY,
            execute=True,
        )
    assert fake.requests == []
    done = pay_bonuses(
        pd.DataFrame({"participant_id": ["P1", "P1"], "amount": ["1.00", "0.50"]}),
        client,
        folder,
        STUDY,
        execute=True,
        allow_repeat=True,
    )
    assert done["state"].tolist() == ["paid", "paid"] and fake.submissions["SUB0001"]["bonus_payments"] == [
        100,
        50,
    ]


def test_a_bulk_counted_in_another_unit_is_not_paid(bonus_setup):
    fake, client, folder = bonus_setup
    fake.faults.add("pounds")
    with pytest.raises(
        PlatformError, match=r"counts this bulk bonus as 1\.5 pence but the table as 150; not paying"
    ):
        pay_bonuses(
            pd.DataFrame({"participant_id": ["P1"], "amount": ["1.50"]}), client, folder, STUDY, execute=True
        )
    assert fake.pay_calls == [] and read_ledger(folder)["bulks"] == []


def test_a_pay_that_failed_before_paying_is_paid_again_only_when_confirmed(bonus_setup):
    fake, client, folder = bonus_setup
    table = pd.DataFrame({"participant_id": ["P1", "P2"], "amount": ["0.75", "0.75"]})
    fake.faults.add("error_before_paying")
    with pytest.raises(PlatformError, match=r"pay/ failed on Prolific's side \(500\).*not repeated"):
        pay_bonuses(table, client, folder, STUDY, execute=True)
    fake.faults.clear()
    with pytest.raises(PlatformError, match=r"shows 0 of 2 bonuses paid.*--confirm-unpaid BULK1"):
        pay_bonuses(table, client, folder, STUDY, execute=True)
    assert fake.pay_calls == ["BULK1"]  # checked, not paid blindly
    done = pay_bonuses(table, client, folder, STUDY, execute=True, confirm_unpaid=("BULK1",))
    assert done["state"].tolist() == ["paid", "paid"] and fake.pay_calls == ["BULK1", "BULK1"]
    assert [s["bonus_payments"] for s in fake.submissions.values()] == [[75], [75]]
    again = pay_bonuses(table, client, folder, STUDY, execute=True)
    assert again["state"].tolist() == ["already paid", "already paid"] and len(fake.pay_calls) == 2


def test_a_different_amount_for_someone_already_paid_is_refused(bonus_setup):
    fake, client, folder = bonus_setup
    pay_bonuses(
        pd.DataFrame({"participant_id": ["P1"], "amount": ["1.00"]}), client, folder, STUDY, execute=True
    )
    with pytest.raises(DesignError, match="P1 already has another bonus on record"):
        pay_bonuses(
            pd.DataFrame({"participant_id": ["P1"], "amount": ["2.00"]}), client, folder, STUDY, execute=True
        )
    assert fake.pay_calls == ["BULK1"]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda r: page([sub("1")], f"{BASE}studies/{STUDY}/submissions/"), "was read before"),
        (
            lambda r: httpx.Response(200, text="<html>login</html>", headers={"content-type": "text/html"}),
            "not JSON",
        ),
        (lambda r: httpx.Response(200, json={"results": "nope"}), "'results' of type str"),
        (lambda r: httpx.Response(503, text="down"), "failed on Prolific's side (503)"),
    ],
)
def test_the_cli_gives_one_line_for_each_hostile_answer(tmp_path, monkeypatch, waits, answer, message):
    from click.testing import CliRunner

    from humaneval.cli import main
    from humaneval.serve import create_study
    from tests._designs import cell_texts
    from tests.test_serve import make_design

    design = make_design()
    made = create_study(design, tmp_path / "study", texts=cell_texts(design), prolific_study_id=STUDY)
    monkeypatch.setenv("PROLIFIC_API_URL", BASE)
    monkeypatch.setenv("PROLIFIC_TOKEN", TOKEN)
    original = prolific.prolific_client
    monkeypatch.setattr(
        prolific, "prolific_client", lambda token=None: original(token, transport=httpx.MockTransport(answer))
    )
    result = CliRunner().invoke(main, ["prolific", "submissions", str(made.study_dir)])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert result.output.startswith("error: Prolific") and message in result.output


def test_the_base_url_comes_from_prolific_api_url(monkeypatch):
    monkeypatch.delenv("PROLIFIC_API_URL", raising=False)
    assert prolific.api_url() == "https://api.prolific.com/api/v1/"
    monkeypatch.setenv("PROLIFIC_API_URL", "http://127.0.0.1:9000/api/v1")
    assert str(prolific.prolific_client(TOKEN).base_url) == "http://127.0.0.1:9000/api/v1/"
    monkeypatch.setenv("PROLIFIC_API_URL", "ftp://x")
    with pytest.raises(DesignError, match="PROLIFIC_API_URL 'ftp://x' must be an http"):
        prolific.prolific_client(TOKEN)


@pytest.mark.parametrize(
    "text", ["{not json", "[]", '{"bulks": "nope"}', '{"bulks": [{"id": "b1"}]}', "[" * 100_000]
)
def test_an_unreadable_bonus_ledger_is_one_line_and_pays_nothing(tmp_path, text):
    from humaneval.platforms.prolific_bonus import LEDGER

    (tmp_path / LEDGER).write_text(text, encoding="utf-8")
    with pytest.raises(PlatformError, match="restore it from a backup") as caught:
        read_ledger(tmp_path)
    assert "\n" not in str(caught.value)


def test_an_unreadable_study_record_is_one_line(tmp_path):
    from humaneval.platforms.prolific_study import RECORD, read_record

    (tmp_path / RECORD).write_text('"a string"', encoding="utf-8")
    with pytest.raises(PlatformError, match="study record is not a readable JSON object"):
        read_record(tmp_path)


def test_an_html_page_is_not_saved_as_the_export(tmp_path, waits):
    page_ = b"<html><body>Down for maintenance</body></html>"
    client, _ = client_for(
        lambda r: httpx.Response(200, content=page_, headers={"content-type": "text/html"})
    )
    out = tmp_path / "demographics.csv"
    with pytest.raises(
        PlatformError, match=r"answered the export of study S1 with text/html, not CSV .*nothing saved"
    ):
        prolific.export_demographics(client, STUDY, out)
    assert not out.exists()


def test_the_export_replaces_an_open_file_at_0600_and_defuses_formulas(tmp_path, waits):
    import stat

    body = b'Participant id,Note,Age\r\nP1,=HYPERLINK("http://x"),31\r\nP2,-2,40\r\n'
    client, _ = client_for(lambda r: httpx.Response(200, content=body, headers={"content-type": "text/csv"}))
    out = tmp_path / "demographics.csv"
    out.write_text("old")
    out.chmod(0o644)
    prolific.export_demographics(client, STUDY, out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    saved = pd.read_csv(out, dtype=str)
    assert saved["Note"].tolist() == ['\'=HYPERLINK("http://x")', "-2"] and saved["Age"].tolist() == [
        "31",
        "40",
    ]
