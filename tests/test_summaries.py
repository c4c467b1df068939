"""Results the CLI prints have ``summary()``: the text of ``humaneval qc``, ``budget``, ``power --along``,
``metaeval``."""

from __future__ import annotations

import pandas as pd

from humaneval.metaeval.report import MetaEvalResult
from humaneval.qc import QCReport
from humaneval.simulate.budget import BudgetPlan, CostModel
from humaneval.simulate.curve import PowerCurve
from humaneval.simulate.designs import SimDesign


def test_qc_summary_marks_the_flagged_annotators():
    table = pd.DataFrame(
        {
            "annotator": ["a1", "a2"],
            "n_judgements": [25, 25],
            "checks_total": [2, 2],
            "checks_failed": [0, 2],
            "imc_failed": [0, 2],
            "total_seconds": [600.0, 90.0],
            "prolific_rejection_eligible": [False, True],
            "too_fast": [False, True],
        }
    )
    lines = [line for line in QCReport(table).summary("study.csv").splitlines() if line]
    assert lines[0] == "study.csv: quality control of 2 annotators"
    assert lines[1].split() == [
        "annotator",
        "judgements",
        "checks",
        "passed",
        "failed",
        "IMCs",
        "minutes",
        "flags",
    ]
    assert lines[2].split() == ["a1", "25", "2/2", "0", "10.0"]  # 600 s = 10.0 min, no flag
    assert lines[3].split(None, 5) == ["a2", "25", "0/2", "2", "1.5", "failed checks, too fast"]
    assert lines[-1] == "1 of 2 annotators flagged"


def test_budget_plan_summary_names_the_cheapest_design():
    best = {
        "blocks": 30, "docs": 5, "annotators": 1, "total_annotators": 30, "judgements": 750, "cost": 100.0,
        "power": 0.8125, "ci_low": 0.7, "ci_high": 0.9,
    }  # fmt: skip
    plan = BudgetPlan(pd.DataFrame([best]), best, 0.8, "artagg", "mean", CostModel(), ("a note",))
    assert [line for line in plan.summary().splitlines() if line] == [
        "1 designs screened with artagg (mean), target power 0.8; cost at 15 USD/h, 32 s per judgement",
        "cheapest: 30 blocks × 5 docs × 1 annotators (30 annotators, 750 judgements, cost 100.00 USD), "
        "power 0.812 [0.700, 0.900]",
        "- note: a note",
    ]


def test_power_curve_summary_has_one_line_per_break_and_test():
    table = pd.DataFrame(
        {
            "break": [10, 20], "test": ["artagg", "artagg"], "aggregate": ["mean", "mean"],
            "rate": [0.31, 0.58], "ci_low": [0.22, 0.48], "ci_high": [0.41, 0.68], "n_failed": [0, 1],
        }
    )  # fmt: skip
    text = PowerCurve("blocks", table, ()).summary(SimDesign(20, 5, 3), ["pilot model"])
    lines = [line for line in text.splitlines() if line]
    assert lines[0] == "power curve along blocks of 20x5x3 (B×D×A, crossed_in_blocks)"
    assert lines[1] == "- pilot model"
    assert lines[2].split() == ["break", "test", "level", "power", "[95%", "CI]", "failed"]
    assert lines[3].split() == ["10", "artagg", "mean", "0.310", "[0.220,", "0.410]", "0"]
    assert lines[4].split()[-1] == "1" and len(lines) == 5


def test_metaeval_summary_is_the_results_table():
    table = pd.DataFrame(
        {
            "metric": ["ROUGE-1"], "level": ["sys"], "estimate": [0.4321], "ci_low": [0.1],
            "ci_high": [0.7], "n_valid": [1000], "n_groups_used": [16], "n_pairs": [120],
        }
    )  # fmt: skip
    result = MetaEvalResult(table, scores=None, coefficient="kendall", levels=("sys",))  # type: ignore[arg-type]
    text = result.summary("Kendall τ")
    assert text.splitlines()[0] == "Kendall τ" and "+0.43 (+0.10 +0.70)" in text
    assert result.summary().split() == ["metric", "τ_sys", "ROUGE-1", "+0.43", "(+0.10", "+0.70)"]
