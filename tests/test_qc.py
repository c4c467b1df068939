"""Quality control flags (designs-and-forms spec §6)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humaneval.errors import RatingsError
from humaneval.qc import QCRules, apply_exclusions, qc_report


def study() -> pd.DataFrame:
    rows = []
    answers = {
        "honest": [3, 5, 2, 6, 4, 7],
        "liner": [4, 4, 4, 4, 4, 4],
        "runner": [5, 5, 5, 5, 5, 2],
        "careless": [1, 7, 2, 6, 3, 5],
    }
    seconds = {"honest": 30.0, "liner": 28.0, "runner": 35.0, "careless": 4.0}
    for annotator, values in answers.items():
        for pos, value in enumerate(values):
            rows.append((annotator, f"d{pos}", "s", value, pos, seconds[annotator], False, np.nan))
        # two attention checks: instructed answers 2 and 6; the careless annotator fails both
        for k, expected in enumerate((2, 6)):
            given = 1 if annotator == "careless" else expected
            rows.append((annotator, f"check{k}", "__check__", given, 6 + k, 5.0, True, expected))
    return pd.DataFrame(
        rows,
        columns=[
            "annotator",
            "document",
            "system",
            "score",
            "position",
            "seconds",
            "is_check",
            "check_expected",
        ],
    )


def test_flags_per_annotator():
    table = qc_report(study()).table.set_index("annotator")
    assert table.loc["careless", "checks_failed"] == 2
    assert table.loc["careless", "check_pass_rate"] == 0.0
    assert table["prolific_rejection_eligible"].to_dict() == {
        "careless": True,
        "honest": False,
        "liner": False,
        "runner": False,
    }
    assert table["straight_line"].to_dict() == {
        "careless": False,
        "honest": False,
        "liner": True,
        "runner": False,
    }
    # runner: 5 of 6 answers in one run (83 % >= 80 %); liner trivially too
    assert table["long_run"].to_dict() == {"careless": False, "honest": False, "liner": True, "runner": True}
    # totals: honest 6*30+10 = 190, liner 178, runner 220, careless 34; median 184 -> threshold 61.3
    assert table.loc["honest", "total_seconds"] == 190.0
    assert table["too_fast"].to_dict() == {"careless": True, "honest": False, "liner": False, "runner": False}
    assert table.loc["careless", "median_seconds"] == 4.0


def test_min_seconds_rule_and_exclusion():
    report = qc_report(study(), QCRules(min_seconds_per_screen=29.0))
    assert set(report.flagged()["annotator"]) == {"careless", "liner", "runner"}
    result = apply_exclusions(study(), report, policy=("prolific_rejection_eligible", "too_fast"))
    assert sorted(result.ratings.annotators) == ["honest", "runner"]
    assert not result.ratings.data["is_check"].any()
    assert result.log.set_index("annotator")["reasons"].to_dict() == {
        "careless": "prolific_rejection_eligible, too_fast",
        "liner": "too_fast",
    }
    with pytest.raises(RatingsError, match="flags the QC report does not have: sleepy"):
        apply_exclusions(study(), report, policy=("sleepy",))


def test_checks_need_an_expected_answer():
    with pytest.raises(RatingsError, match="check_expected"):
        qc_report(study().drop(columns="check_expected"))


def test_only_failed_imcs_make_rejection_eligible():
    # spec §6.1: prolific_rejection_eligible = imc_failed >= 2; failed gold controls do not count
    data = study().assign(check_kind="imc")
    gold = data[data["is_check"]].assign(check_kind="gold", document=lambda d: "gold" + d["document"])
    gold["score"] = np.where(gold["annotator"] == "liner", 7, gold["check_expected"])
    table = qc_report(pd.concat([data, gold], ignore_index=True)).table.set_index("annotator")
    assert table.loc["liner", ["checks_total", "checks_failed", "imc_failed"]].tolist() == [4, 2, 0]
    assert table.loc["careless", ["checks_total", "checks_failed", "imc_failed"]].tolist() == [4, 2, 2]
    assert table["prolific_rejection_eligible"].to_dict() == {
        "careless": True,
        "honest": False,
        "liner": False,
        "runner": False,
    }
