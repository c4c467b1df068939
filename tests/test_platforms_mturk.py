"""MTurk's requester API layer against recorded responses (botocore's Stubber; no network).

The Stubber checks every request against MTurk's service model and against the exact parameters
expected here, and answers with responses shaped like MTurk's.
"""

from __future__ import annotations

import datetime as dt
import json
import stat

import boto3
import numpy as np
import pandas as pd
import pytest
from botocore.stub import ANY, Stubber
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import DesignError, PlatformError
from humaneval.forms import placeholder_texts, write_forms
from humaneval.platforms import mturk
from humaneval.platforms.review import rejection_message
from tests import _designs
from tests._fake_mturk import FakeMTurk
from tests.test_mturk import synthesize

NS = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
T0 = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.timezone.utc)


def client(where: str = "sandbox"):
    return boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=mturk.ENDPOINTS[where],
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="secret",
    )


def design_with_checks():
    return _designs.small_design("likert", seed=5, checks_per_annotator=2)


@pytest.fixture
def package(tmp_path):
    design = design_with_checks()
    design.write(tmp_path / "design.csv")
    write_forms(design, placeholder_texts(design.table), tmp_path / "forms", reward="1.80")
    return {"design": design, "dir": tmp_path / "forms", "tmp": tmp_path}


def hit(hit_id: str) -> dict:
    return {"HIT": {"HITId": hit_id, "HITTypeId": "TYPE1", "CreationTime": T0, "MaxAssignments": 1}}


def test_create_hits_posts_each_slot_once_and_resumes(package):
    c = client()
    names = sorted(p.name for p in (package["dir"] / "hits").iterdir())
    assert names == ["b000-a1", "b000-a2", "b001-a1", "b001-a2"]
    with Stubber(c) as stub:
        for k, name in enumerate(names):
            params = json.loads((package["dir"] / "hits" / name / "hit_params.json").read_text())
            expected = {
                **params,
                "Reward": "1.80",
                "MaxAssignments": 1,
                "Question": (package["dir"] / "hits" / name / "question.xml").read_text(),
                "UniqueRequestToken": ANY,
                "QualificationRequirements": [
                    *params["QualificationRequirements"],
                    {
                        "QualificationTypeId": "EXCLUDE1",
                        "Comparator": "DoesNotExist",
                        "ActionsGuarded": "DiscoverPreviewAndAccept",
                    },
                ],
            }
            stub.add_response("create_hit", hit(f"HIT{k}"), expected)
        made = mturk.create_hits(package["dir"], c, exclusion_qualification="EXCLUDE1")
        stub.assert_no_pending_responses()
    assert made["hit_id"].tolist() == ["HIT0", "HIT1", "HIT2", "HIT3"] and made["created"].all()
    manifest = json.loads((package["dir"] / mturk.MANIFEST).read_text())
    assert manifest["environment"] == "sandbox" and manifest["hits"]["b001-a2"]["HITId"] == "HIT3"
    with Stubber(c) as stub:  # a second run calls nothing: every HIT is on record
        again = mturk.create_hits(package["dir"], c)
    assert not again["created"].any() and again["hit_id"].tolist() == made["hit_id"].tolist()


def test_reward_is_required_and_production_needs_the_flag(package, tmp_path):
    design = design_with_checks()
    write_forms(design, placeholder_texts(design.table), tmp_path / "free")
    with Stubber(client()) as stub, pytest.raises(DesignError, match="Reward None must be a positive amount"):
        mturk.create_hits(tmp_path / "free", stub.client)
    with pytest.raises(DesignError, match=r"Reward '0\.00' must be"):
        mturk.create_hits(package["dir"], client(), reward="0.00")
    live = client("production")
    with Stubber(live), pytest.raises(PlatformError, match="production site, where HITs cost money"):
        mturk.create_hits(package["dir"], live)
    with pytest.raises(PlatformError, match="client talks to the sandbox"):
        mturk.create_hits(package["dir"], client(), production=True)
    assert not (package["dir"] / mturk.MANIFEST).exists()
    assert mturk.mturk_client().meta.endpoint_url == mturk.ENDPOINTS["sandbox"]


def answer_xml(row: pd.Series) -> str:
    answers = {k[7:]: v for k, v in row.items() if k.startswith("Answer.") and isinstance(v, str) and v}
    body = "".join(
        f"<Answer><QuestionIdentifier>{k}</QuestionIdentifier><FreeText>{v}</FreeText></Answer>"
        for k, v in answers.items()
    )
    return f'<QuestionFormAnswers xmlns="{NS}">{body}</QuestionFormAnswers>'


def recorded_assignments(design):
    """Four submitted assignments: two pass, one fails both IMCs, one fails both but lost a field."""
    good, _ = synthesize(design, np.random.default_rng(1))
    bad, _ = synthesize(design, np.random.default_rng(1), fail_checks=True)
    rows = [good.iloc[0], good.iloc[1], bad.iloc[2], bad.iloc[3].copy()]
    lost = next(k for k, v in rows[3].items() if k.startswith("Answer.lk_") and isinstance(v, str) and v)
    rows[3][lost] = ""
    out = {}
    for k, row in enumerate(rows):
        out[row["Answer.slot"]] = {
            "AssignmentId": f"ASSIGN{k}",
            "WorkerId": f"WORKER{k}",
            "HITId": f"HIT{k}",
            "AssignmentStatus": "Submitted",
            "AcceptTime": T0,
            "SubmitTime": T0 + dt.timedelta(seconds=300 + k),
            "Answer": answer_xml(row),
        }
    return out


def stub_listing(stub, assignments: dict, statuses: list[str]) -> None:
    for k, slot in enumerate(sorted(assignments)):
        params = {"HITId": f"HIT{k}", "MaxResults": 100, "AssignmentStatuses": statuses}
        if k == 0:  # MTurk pages: the first HIT answers with a NextToken and an empty last page
            stub.add_response(
                "list_assignments_for_hit", {"Assignments": [assignments[slot]], "NextToken": "PAGE2"}, params
            )
            stub.add_response(
                "list_assignments_for_hit",
                {"Assignments": [], "NumResults": 0},
                {**params, "NextToken": "PAGE2"},
            )
        else:
            stub.add_response("list_assignments_for_hit", {"Assignments": [assignments[slot]]}, params)


def write_manifest(package) -> None:
    hits = {
        name: {"HITId": f"HIT{k}", "HITTypeId": "T", "Reward": "1.80", "MaxAssignments": 1}
        for k, name in enumerate(["b000-a1", "b000-a2", "b001-a1", "b001-a2"])
    }
    (package["dir"] / mturk.MANIFEST).write_text(json.dumps({"environment": "sandbox", "hits": hits}))


def test_fetch_review_and_act_by_the_qc_rules(package):
    write_manifest(package)
    assignments = recorded_assignments(package["design"])
    c = client()
    with Stubber(c) as stub:
        stub_listing(stub, assignments, ["Submitted"])
        rows = mturk.fetch_results(package["dir"], c, statuses=("Submitted",))
        stub.assert_no_pending_responses()
    assert rows["AssignmentId"].tolist() == ["ASSIGN0", "ASSIGN1", "ASSIGN2", "ASSIGN3"]
    plan = mturk.review_plan(rows, package["design"])
    assert plan[["assignment_id", "checks_total", "imc_failed", "action"]].values.tolist() == [
        ["ASSIGN0", 2, 0, "approve"],
        ["ASSIGN1", 2, 0, "approve"],
        ["ASSIGN2", 2, 2, "reject"],
        ["ASSIGN3", 2, 2, "review"],  # a lost answer: never rejected automatically
    ]
    message = rejection_message(2, 2)
    assert len(message) >= 100
    with Stubber(c) as stub:
        stub.add_response("approve_assignment", {}, {"AssignmentId": "ASSIGN0"})
        stub.add_response("approve_assignment", {}, {"AssignmentId": "ASSIGN1"})
        stub.add_response("reject_assignment", {}, {"AssignmentId": "ASSIGN2", "RequesterFeedback": message})
        done = mturk.apply_review(plan, c)
        stub.assert_no_pending_responses()
    assert done["done"].tolist() == [True, True, True, False]


def test_refused_calls_are_one_line_platform_errors(package):
    write_manifest(package)
    c = client()
    with (
        Stubber(c) as stub,
        pytest.raises(PlatformError, match="MTurk refused list_assignments_for_hit: Hit does"),
    ):
        stub.add_client_error("list_assignments_for_hit", "RequestError", "Hit does not exist. (1732000000)")
        mturk.fetch_results(package["dir"], c)


def test_bonuses_are_checked_before_any_payment_and_sent_once(package):
    c = FakeMTurk({"A1": "W1", "A2": "W2"})
    bad = pd.DataFrame(
        {"assignment_id": ["A1", "A2"], "amount": ["0.50", "0.5"], "reason": ["thanks", "thanks"]}
    )
    with pytest.raises(DesignError, match=r"bonus for A2 '0\.5' must be a positive amount"):
        mturk.pay_bonuses(bad, c)  # nothing is paid when any row is wrong
    assert c.calls == []
    bonuses = pd.DataFrame(
        {
            "assignment_id": ["A1", "A2"],
            "amount": ["0.50", "1.25"],
            "reason": ["careful work", "careful work"],
            "worker_id": ["W1", None],
        }
    )
    paid = mturk.pay_bonuses(bonuses, c)
    assert paid["worker_id"].tolist() == ["W1", "W2"] and paid["paid"].all()
    assert [(p["WorkerId"], p["AssignmentId"], p["BonusAmount"]) for p in c.payments] == [
        ("W1", "A1", "0.50"),
        ("W2", "A2", "1.25"),
    ]
    assert c.calls.count("get_assignment") == 1  # only for the row without a worker id


def test_exclusion_qualification_is_created_and_granted():
    c = client()
    with Stubber(c) as stub:
        stub.add_response(
            "create_qualification_type",
            {"QualificationType": {"QualificationTypeId": "QUAL9", "Name": "study-x"}},
            {"Name": "study-x", "Description": ANY, "QualificationTypeStatus": "Active"},
        )
        for worker in ("W1", "W2"):
            stub.add_response(
                "associate_qualification_with_worker",
                {},
                {
                    "QualificationTypeId": "QUAL9",
                    "WorkerId": worker,
                    "IntegerValue": 1,
                    "SendNotification": False,
                },
            )
        assert mturk.create_exclusion_qualification(c, "study-x") == "QUAL9"
        assert mturk.grant_qualification(c, "QUAL9", ["W1", " W2", "W1", ""]) == 2
        stub.assert_no_pending_responses()


def test_cli_fetch_writes_ratings_and_review_is_a_dry_run(package, monkeypatch):
    write_manifest(package)
    assignments = recorded_assignments(package["design"])
    c = client()
    stub = Stubber(c)
    monkeypatch.setattr(mturk, "mturk_client", lambda production=False, profile=None: c)
    stub_listing(stub, assignments, ["Submitted", "Approved", "Rejected"])
    stub_listing(stub, assignments, ["Submitted"])
    out, results = package["tmp"] / "ratings.csv", package["tmp"] / "results.csv"
    design = str(package["tmp"] / "design.csv")
    with stub:
        fetched = CliRunner().invoke(
            main,
            [
                "mturk",
                "fetch",
                str(package["dir"]),
                "--design",
                design,
                "--out",
                str(out),
                "--results",
                str(results),
            ],
        )
        assert fetched.exit_code == 0, fetched.output
        reviewed = CliRunner().invoke(
            main, ["mturk", "review", str(package["dir"]), "--design", design, "--json"]
        )
        assert reviewed.exit_code == 0, reviewed.output
        stub.assert_no_pending_responses()  # the dry run approved and rejected nothing
    assert pd.read_csv(results)["AssignmentId"].tolist() == ["ASSIGN0", "ASSIGN1", "ASSIGN2", "ASSIGN3"]
    assert stat.S_IMODE(results.stat().st_mode) == 0o600  # raw WorkerIds
    assert set(pd.read_csv(out)["annotator_slot"]) == {
        "b000-a1",
        "b000-a2",
        "b001-a1",
    }  # ASSIGN3 lost a field
    report = json.loads(reviewed.output)
    assert report["executed"] is False and report["counts"] == {"approve": 2, "reject": 1, "review": 1}


def test_a_bonus_run_that_failed_half_way_is_finished_by_running_it_again(tmp_path):
    """Issue 32: the first run pays A1, fails on A2 and still pays A3; the second run finds A1 and A3
    on MTurk's record (already paid) and pays A2 only."""
    c = FakeMTurk({"A1": "W1", "A2": "W2", "A3": "W3"})
    table = pd.DataFrame(
        {
            "assignment_id": ["A1", "A2", "A3"],
            "amount": ["0.50", "0.50", "1.00"],
            "reason": ["thanks"] * 3,
            "worker_id": ["W1", "W2", "W3"],
        }
    )
    c.busy.add("A2")
    first = mturk.pay_bonuses(table, c)
    assert first["outcome"].tolist()[0] == "paid" and first["outcome"].tolist()[2] == "paid"
    assert first["outcome"].tolist()[1].startswith("failed: MTurk refused send_bonus: Service busy")
    second = mturk.pay_bonuses(table, c)
    assert second["outcome"].tolist() == ["already paid", "paid", "already paid"] and second["paid"].all()
    assert sorted(p["AssignmentId"] for p in c.payments) == ["A1", "A2", "A3"]


def test_an_assignment_listed_twice_is_refused_unless_allowed(tmp_path):
    c = FakeMTurk({"A1": "W1"})
    table = pd.DataFrame(
        {
            "assignment_id": ["A1", "A1"],
            "amount": ["0.50", "0.50"],
            "reason": ["careful", "very careful"],
            "worker_id": ["W1", "W1"],
        }
    )
    with pytest.raises(DesignError, match=r"assignment A1 is listed more than once .* --allow-repeat"):
        mturk.pay_bonuses(table, c)
    assert c.calls == []
    path = tmp_path / "bonus.csv"
    table.to_csv(path, index=False)
    result = CliRunner().invoke(main, ["mturk", "bonus", str(path)])
    assert result.exit_code == 2 and "listed more than once" in result.output
    paid = mturk.pay_bonuses(table, c, allow_repeat=True)
    assert paid["outcome"].tolist() == ["paid", "paid"] and len(c.payments) == 2
    again = mturk.pay_bonuses(table, c, allow_repeat=True)
    assert again["outcome"].tolist() == ["already paid", "already paid"] and len(c.payments) == 2


def test_cli_bonus_reports_each_row(tmp_path, monkeypatch):
    c = FakeMTurk({"A1": "W1", "A2": "W2"})
    path = tmp_path / "bonus.csv"
    pd.DataFrame(
        {
            "assignment_id": ["A1", "A2"],
            "amount": ["0.50", "0.75"],
            "reason": ["thanks"] * 2,
            "worker_id": ["W1", "W2"],
        }
    ).to_csv(path, index=False)
    monkeypatch.setattr(mturk, "mturk_client", lambda production=False, profile=None: c)
    mturk.pay_bonuses(pd.read_csv(path, dtype=str).head(1), c)
    result = CliRunner().invoke(main, ["mturk", "bonus", str(path), "--execute", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["counts"] == {"already paid": 1, "paid": 1} and answer["total"] == 1.25
    assert [r["outcome"] for r in answer["rows"]] == ["already paid", "paid"]
    ledger = json.loads((tmp_path / "mturk_bonuses.json").read_text())
    assert [(b["assignment_id"], b["amount"], b["state"]) for b in ledger["bonuses"]] == [
        ("A2", "0.75", "paid")
    ]
