"""Pairwise studies speak pairwise: judgements counted as comparisons, the scale named as preferences with
ties, and "preference" as the default dimension of a pairwise design."""

from __future__ import annotations

import json

from click.testing import CliRunner

from humaneval.cli import main
from humaneval.comparative.simulate import simulate_bws_study, simulate_pairwise_study
from humaneval.core.ratings import as_ratings
from humaneval.design import DesignSpec
from humaneval.methods import get_method
from humaneval.methods.kinds import count_judgements
from humaneval.report import ReportSettings, build_report

LAYOUT = {"blocks": 4, "docs_per_block": 3, "annotators_per_block": 3, "seed": 2}


def test_judgements_are_comparisons_not_rows():
    pairwise = simulate_pairwise_study([0.5, 0.0, -0.5], **LAYOUT)
    assert len(pairwise) == 216 and count_judgements(pairwise) == 108  # 4 × 3 × 3 × 3 pairs, 2 rows each
    bws = simulate_bws_study([0.5, 0.2, 0.0, -0.2, -0.5], **LAYOUT)
    tuples = bws.drop_duplicates(["annotator", "tuple_id"])
    assert count_judgements(bws) == len(tuples) < len(bws)


def test_the_report_counts_comparisons_and_names_the_scale_as_preferences():
    from humaneval.report.sections.study import facts

    table = as_ratings(simulate_pairwise_study([0.5, 0.0, -0.5], **LAYOUT))
    report = build_report(table, settings=ReportSettings(power_trials=0, n_resamples=100, mean_resamples=100))
    shown = dict(facts(report))
    assert shown["judgements analysed"] == "108"
    assert shown["response"].startswith("preferences between two summaries, with ties")
    assert "continuous" not in json.dumps(shown)


def test_a_pairwise_design_asks_for_preference_by_default(tmp_path):
    assert get_method("pairwise").default_dimension == "preference"
    assert DesignSpec(documents=5, systems=["A", "B"], method="pairwise", seed=1).dimension == "preference"
    assert DesignSpec(documents=5, systems=["A", "B"], seed=1).dimension == "coherence"
    out = CliRunner().invoke(
        main,
        [
            "design",
            "--documents",
            "10",
            "--systems",
            "A,B,C",
            "--method",
            "pairwise",
            "--out",
            str(tmp_path / "d.csv"),
        ],
    )
    assert out.exit_code == 0, out.output
    assert json.loads((tmp_path / "d.json").read_text())["spec"]["dimension"] == "preference"
    forms = CliRunner().invoke(
        main, ["forms", str(tmp_path / "d.json"), "--placeholder-texts", "--out", str(tmp_path / "f")]
    )
    assert forms.exit_code == 0, forms.output
