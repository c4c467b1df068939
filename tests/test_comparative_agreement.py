"""Agreement on comparative choices (humaneval.comparative.agreement) against a hand computation."""

from __future__ import annotations

import json
from collections import Counter
from itertools import permutations

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.comparative.agreement import choice_table, comparative_agreement
from humaneval.comparative.simulate import simulate_bws_study, simulate_pairwise_study


def nominal_alpha(units: list[list[str]]) -> float:
    """Krippendorff's nominal α from the coincidence matrix (Krippendorff 2004, ch. 11), by hand."""
    o: Counter = Counter()
    for values in units:
        m = len(values)
        if m < 2:
            continue
        for a, b in permutations(range(m), 2):
            o[values[a], values[b]] += 1 / (m - 1)
    n_c: Counter = Counter()
    for (c, _), w in o.items():
        n_c[c] += w
    n = sum(n_c.values())
    d_o = sum(w for (c, k), w in o.items() if c != k) / n
    d_e = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k) / (n * (n - 1))
    return 1 - d_o / d_e


def pairwise_rows(judgements: list[tuple[str, str, str]]) -> pd.DataFrame:
    """(annotator, document, winner among A/B or 'tie') → the two rows per comparison of a table."""
    rows = []
    for annotator, document, winner in judgements:
        score = {"A": 1.0, "B": 0.0, "tie": 0.5}[winner]
        rows += [(annotator, document, "A", "B", score), (annotator, document, "B", "A", 1 - score)]
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score"])


def test_pairwise_alpha_and_majority_share_match_the_hand_computation():
    choices = {
        "d1": ["A", "A", "A"],
        "d2": ["A", "B", "A"],
        "d3": ["B", "B", "tie"],
        "d4": ["tie", "tie", "B"],
        "d5": ["B", "B", "B"],
        "d6": ["A"],  # judged once: not pairable
    }
    table = pairwise_rows(
        [(f"w{k}", doc, w) for doc, winners in choices.items() for k, w in enumerate(winners)]
    )
    result = comparative_agreement(table, "pairwise", n_resamples=1000, seed=2)
    winner = result.choices[0]
    expected = nominal_alpha([v for v in choices.values()])
    assert winner.alpha == pytest.approx(expected, abs=1e-12)
    # o: D_o = 6/15, D_e = (15² − 5² − 7² − 3²)/(15 · 14) = 142/210, so α = 1 − 84/142 = 58/142
    assert winner.alpha == pytest.approx(58 / 142, abs=1e-12)
    # majority: 3 + 2 + 2 + 2 + 3 of 15 judgements in the five pairable comparisons
    assert winner.majority_share == pytest.approx(12 / 15)
    assert (winner.n_units, winner.n_judgements, winner.n_units_single) == (5, 15, 1)
    assert winner.ci[0] < winner.alpha < winner.ci[1]


def test_bws_units_pair_the_same_tuple_of_a_document_and_score_best_and_worst():
    table = simulate_bws_study([1.5, 0.5, 0.0, -0.5, -1.5], blocks=2, seed=4)
    choices = choice_table(table, "bws")
    # 5 documents × 10 tuples per block, 3 annotators each; every tuple set of a document appears twice
    assert len(choices) == 2 * 5 * 10 * 3 and choices.groupby("unit").size().eq(3).all()
    result = comparative_agreement(table, "bws", n_resamples=1000)
    for found, column in zip(result.choices, ("best", "worst"), strict=True):
        units = choices.groupby("unit")[column].apply(list).tolist()
        assert found.choice == column and found.alpha == pytest.approx(nominal_alpha(units), abs=1e-12)
    assert result.choices[0].alpha > 0.1  # strong systems: annotators agree beyond chance


def test_report_shows_agreement_for_a_pairwise_study(tmp_path):
    table = simulate_pairwise_study([0.8, 0.0, -0.8], blocks=4, annotator_sd=0.5, seed=5)
    table.to_csv(tmp_path / "ratings.csv", index=False)
    out = CliRunner().invoke(main, ["report", str(tmp_path / "ratings.csv"), "--out", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    report = json.loads((tmp_path / "r" / "report.json").read_text())
    part = report["criteria"][0]
    expected = comparative_agreement(table, "pairwise", n_resamples=1000).choices[0].alpha
    assert part["agreement"]["choices"][0]["alpha"] == pytest.approx(expected)
    assert part["analysis"]["inference"] == "mixed"
    html = (tmp_path / "r" / "index.html").read_text()
    assert "Krippendorff’s α on the winner (nominal)" in html and "Not computed" not in html
    # observed power on the study's own design: the fitted strengths taken as true
    power = part["comparative_power"]
    assert power["design"]["judgements"] == 4 * 5 * 3 * 3 and power["model"]["strengths"] == pytest.approx(
        [g["estimate"] for g in sorted(part["analysis"]["groups"], key=lambda g: g["system"])]
    )
    rates = {r["pair"]: r["rate"] for r in power["results"]}
    assert rates["s0 - s2"] > rates["s0 - s1"] and rates["s0 - s2"] > 0.9
    assert 'id="cpower1"' in html
