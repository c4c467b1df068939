"""Design summary, time and cost (designs-and-forms spec §2.11 worked example) and the datasheet (§7)."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.design import DesignSpec, generate_design
from humaneval.design.summary import ceil_minor
from humaneval.errors import PayBelowMinimumError

SYSTEMS = ["BART", "PG", "ref", "rw", "seneca"]
NO_EXTRAS = {"seconds_overhead": 0, "overrecruit_rate": 0}


def study(method: str = "likert", checks: int = 2, platform: str = "prolific", **kw):
    spec = DesignSpec(
        documents=100,
        systems=SYSTEMS,
        reference_system="ref",
        method=method,
        checks_per_annotator=checks,
        seed=11,
        platform=platform,
        **kw,
    )
    return generate_design(spec)


def test_worked_example_likert_coherence_two_imcs() -> None:
    summary = study().with_cost(**NO_EXTRAS).summary()
    assert (summary.blocks, summary.block_sizes, summary.annotators) == (20, [5], 60)
    assert (summary.analysed_judgements, summary.judgements_per_summary, summary.independent_units) == (
        1500,
        [3, 3],
        20,
    )
    assert summary.screens_per_annotator == [27, 27]
    cost = summary.cost
    assert cost.seconds_per_screen == 32.0
    assert cost.seconds_per_annotator == 864.0 and cost.minutes_per_annotator == pytest.approx(14.4)
    assert (cost.currency, cost.hourly_wage) == ("GBP", 9.0)  # Prolific's recommended rate
    # 864 s and 800 s without the two 32-s check screens, at £9.00/h
    assert (cost.reward_per_annotator, cost.reward_without_checks) == (2.16, 2.00)
    assert cost.total_before_fees == 129.60 and cost.total == 129.60
    assert summary.nested_alternative == {"blocks": 60, "documents_per_block": 5, "documents": 300}
    markdown = summary.to_markdown()
    assert "2.16 GBP (2.00 without checks)" in markdown and "129.60 GBP before fees" in markdown


def test_worked_example_ranking_coherence_no_checks() -> None:
    summary = study("rank", checks=0, platform="standalone").with_cost(**NO_EXTRAS).summary()
    cost = summary.cost
    assert summary.screens_per_annotator == [5, 5] and summary.analysed_judgements == 1500
    assert cost.seconds_per_annotator == 677.5
    assert (
        cost.reward_per_annotator == ceil_minor(9.0 * 677.5 / 3600) == 1.70
        and cost.total_before_fees == 102.00
    )
    assert summary.nested_alternative["documents"] == 300


def test_fees_overrecruitment_overhead_and_embedded_checks() -> None:
    summary = study().with_cost(platform_fee_rate=0.33, overrecruit_rate=0.10).summary()
    cost = summary.cost
    assert cost.seconds_per_annotator == 864 + 60
    assert cost.reward_per_annotator == ceil_minor(9.0 * 924 / 3600) == 2.31
    assert cost.total == ceil_minor(2.31 * 60 * 1.33 * 1.10) == 202.78
    assert cost.effective_hourly_wage >= 9.0
    rank = study("rank").with_cost(**NO_EXTRAS, seconds_per_check=15).summary().cost
    assert rank.seconds_per_annotator == 677.5 + 2 * 15


@pytest.mark.parametrize(
    ("method", "systems", "kw", "seconds"),
    [
        ("likert", SYSTEMS, {"dimension": "repetition"}, 27.1),
        ("rank", SYSTEMS, {"dimension": "repetition"}, 102.4),
        ("rank", SYSTEMS[:4], {}, 135.5 * 4 / 5),
        ("da", SYSTEMS, {}, 18.0),
        ("da", SYSTEMS, {"show_source": True}, 30.0),
    ],
)
def test_study_seconds_per_screen(method, systems, kw, seconds) -> None:
    spec = DesignSpec(documents=20, systems=systems, method=method, seed=1, platform="mturk", **kw)
    assert generate_design(spec).summary().cost.seconds_per_screen == pytest.approx(seconds)


def test_unknown_time_for_bws_and_pilot_override() -> None:
    design = generate_design(
        DesignSpec(documents=20, systems=SYSTEMS, method="bws", seed=1, platform="mturk")
    )
    summary = design.summary()
    assert summary.cost is None and "no study timing for bws" in summary.cost_note
    assert "time and cost: unknown" in summary.to_markdown()
    priced = design.with_cost(seconds_per_screen=20, seconds_overhead=0).summary().cost
    # 20 documents → 4 blocks of 5; 10 tuples per document + 2 check screens = 52 screens
    assert priced.seconds_per_annotator == 52 * 20
    assert (priced.currency, priced.hourly_wage) == ("USD", 12.0)


def test_pay_below_minimum_is_refused() -> None:
    # Prolific's published minimum (£6.00 / $8.00 per hour) is the floor; £9.00 / $12.00 the default
    with pytest.raises(PayBelowMinimumError, match=r"5\.50 GBP is below the minimum 6\.00 GBP for prolific"):
        study().with_cost(hourly_wage=5.5).summary()
    assert study().with_cost(hourly_wage=6.0).summary().cost.hourly_wage == 6.0
    assert study().with_cost(currency="USD").summary().cost.hourly_wage == 12.0
    with pytest.raises(PayBelowMinimumError, match=r"7\.50 USD is below the minimum 8\.00 USD for prolific"):
        study().with_cost(currency="USD", hourly_wage=7.5).summary()
    with pytest.raises(PayBelowMinimumError, match=r"below the minimum 12\.00 USD"):
        study(platform="mturk").with_cost(hourly_wage=10).summary()
    assert (
        study(platform="mturk").with_cost(hourly_wage=10, min_hourly_wage=9).summary().cost.hourly_wage == 10
    )


def test_design_rule_warnings() -> None:
    crossed = DesignSpec(documents=30, systems=SYSTEMS, family="crossed", seed=1, platform="mturk")
    warnings = generate_design(crossed).summary().warnings
    assert any(w.startswith("few independent blocks (1)") for w in warnings)
    assert any(w.startswith("only 3 annotators in total") for w in warnings)
    assert any(w.startswith("only 30 documents") for w in warnings)
    nested = generate_design(DesignSpec(documents=300, systems=SYSTEMS, family="nested", seed=1)).summary()
    assert nested.warnings == [] and nested.annotators == 60 and nested.judgements_per_summary == [1, 1]


def test_datasheet_fills_known_fields_and_marks_unknown_ones(tmp_path) -> None:
    design = study("rank", checks=2)
    form = {"preset": "coherence-rank", "question": "Order the summaries by coherence.", "allow_ties": False}
    sheet = design.datasheet(
        form=form, recruitment={"filters": ["native English speakers"]}, sampling="random"
    )
    data = sheet.to_dict()["sections"]
    assert list(data) == ["resources", "systems", "sample_evaluators_design", "quality_criteria", "ethics"]
    assert data["systems"]["reference_system"] == "ref"
    design_section = data["sample_evaluators_design"]
    assert design_section["annotators_planned"] == 60 and design_section["independent_units"] == 20
    assert design_section["recruitment_filters"] == ["native English speakers"]
    assert design_section["annotators_analysed"] is None
    assert "annotators_analysed" in design_section["todo"]
    assert data["quality_criteria"]["question"] == "Order the summaries by coherence."
    assert data["quality_criteria"]["ties_allowed"] is False
    assert data["quality_criteria"]["attention_checks"]["per_annotator"] == 2
    assert data["ethics"]["ethics_approval"] is None and "ethics_approval" in data["ethics"]["todo"]
    assert data["resources"]["design_id"] == design.design_id
    paths = sheet.write(tmp_path / "study")
    markdown = paths["datasheet_md"].read_text()
    assert "## Sample, evaluators and design" in markdown
    assert "- **ethics approval**: TODO — name the approving body" in markdown
    assert json.loads(paths["datasheet_json"].read_text())["sections"]["ethics"]["ethics_approval"] is None


def test_cli_summary_and_json(tmp_path) -> None:
    args = [
        "design",
        "--documents",
        "100",
        "--systems",
        ",".join(SYSTEMS),
        "--reference",
        "ref",
        "--seconds-overhead",
        "0",
        "--overrecruit",
        "0",
        "--out",
        str(tmp_path / "d.csv"),
    ]
    result = CliRunner().invoke(main, [*args, "--json", "--datasheet"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["summary"]["cost"]["reward_per_annotator"] == 2.16
    assert payload["summary"]["cost"]["total"] == 129.6
    assert set(payload["files"]) == {"csv", "manifest", "datasheet_md", "datasheet_json"}
    assert payload["rows"] == 1620
    text = CliRunner().invoke(main, [*args, "--summary"]).output
    assert "- annotators: 3 per block, 60 in total" in text
    assert "equal-cost nested alternative: 60 blocks × 5 documents = 300 documents" in text


def test_ceil_minor_ignores_float_noise() -> None:
    assert ceil_minor(7.5 * 864 / 3600) == 1.80
    assert ceil_minor(1.801) == 1.81
    assert math.isclose(ceil_minor(0.0), 0.0)
