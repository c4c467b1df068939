"""Calibration of the comparative intervals when annotators have their own preferences (slow).

A reduced version of ``simulations/comparative_coverage.py``: annotator × system deviations of SD
1.0 on the logit scale; the two-way cluster bootstrap must cover the pooled model's difference in
about 95 % of studies, while treating judgements as independent covers far less often; so must the
mixed-effects Bradley–Terry model (annotator and document deviations) cover the simulated
annotator-level difference. The full run (500 studies per scenario) is in docs/analysis.md.
"""

from __future__ import annotations

import pytest

from humaneval.comparative.calibration import Scenario, coverage, coverage_table

VARIANTS = (("two-way", "two-way", True), ("naive", "naive", False))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scenario", "naive_max"),
    [
        (Scenario("pairwise", (0.6, 0.2, 0.0, -0.8), 1.0), 0.85),
        (Scenario("bws", (0.6, 0.2, 0.0, -0.3, -0.5), 1.0), 0.6),
    ],
)
def test_two_way_intervals_cover_when_annotators_differ(scenario, naive_max):
    results = coverage(
        scenario, studies=150, n_resamples=200, seed=3, variants=VARIANTS, population_blocks=400
    )
    table = coverage_table(results)["coverage"]
    # 150 studies × all pairs: Monte-Carlo SE about 1.5 points
    assert 0.91 <= table["two-way"] <= 0.985
    assert table["naive"] < naive_max


@pytest.mark.slow
@pytest.mark.parametrize("document_sd", [0.0, 0.5])
def test_mixed_model_intervals_cover_the_annotator_level_difference(document_sd):
    scenario = Scenario("pairwise", (0.6, 0.2, 0.0, -0.8), 1.0, document_sd=document_sd)
    variants = (("mixed, + document", "mixed+document", False), ("naive", "naive", False))
    results = coverage(
        scenario, studies=150, n_resamples=100, seed=4, variants=variants, population_blocks=300
    )
    table = coverage_table(results)
    # the mixed model's target is the simulated θa − θb, not the attenuated pooled difference
    mixed = results[results["variant"] == "mixed, + document"]
    assert mixed["target"].iloc[:6].tolist() == pytest.approx([0.4, 0.6, 1.4, 0.2, 1.0, 0.8])
    assert 0.91 <= table.loc["mixed, + document", "coverage"] <= 0.985
    assert table.loc["mixed, + document", "failed"] == 0
    assert table.loc["naive", "coverage"] < 0.8
