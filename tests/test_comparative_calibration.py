"""Calibration of the comparative intervals when annotators have their own preferences (slow).

A reduced version of ``simulations/comparative_coverage.py``: annotator × system deviations of SD
1.0 on the logit scale; the two-way cluster bootstrap must cover the pooled model's difference in
about 95 % of studies, while treating judgements as independent covers far less often. The full
run (500 studies per scenario) is in docs/analysis.md.
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
    results = coverage(scenario, studies=150, n_boot=200, seed=3, variants=VARIANTS, population_blocks=400)
    table = coverage_table(results)["coverage"]
    # 150 studies × all pairs: Monte-Carlo SE about 1.5 points
    assert 0.91 <= table["two-way"] <= 0.985
    assert table["naive"] < naive_max
