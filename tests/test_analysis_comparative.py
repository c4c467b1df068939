"""Best–worst counting and Bradley–Terry (spec metaeval-and-scorers §8.7 worked examples)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humaneval.analysis.comparative import bradley_terry, bws_scores, pairwise_outcomes
from humaneval.errors import InsufficientDataError, RatingsError


def _bws_example() -> pd.DataFrame:
    rows = []
    for t, (items, best, worst) in enumerate([("abcd", "a", "d"), ("abce", "b", "e"), ("bcde", "b", "d")]):
        for item in items:
            value = 1 if item == best else -1 if item == worst else 0
            rows.append({"annotator": "w1", "tuple_id": t, "system": item, "score": value})
    return pd.DataFrame(rows)


def test_bws_counting_scores_of_the_worked_example():
    table = bws_scores(_bws_example(), n_boot=300, seed=0).set_index("system")
    np.testing.assert_allclose(
        table.loc[["a", "b", "c", "d", "e"], "score"], [0.5, 2 / 3, 0.0, -1.0, -0.5], atol=1e-12
    )
    assert table.loc["b", "n_shown"] == 3 and table.loc["d", "n_worst"] == 2
    # bootstrap over the three tuples: d is worst whenever shown, c never best or worst
    assert table.loc["d", ["ci_low", "ci_high"]].tolist() == [-1.0, -1.0]
    assert table.loc["c", ["ci_low", "ci_high"]].tolist() == [0.0, 0.0]
    assert (table["ci_low"] <= table["score"]).all() and (table["score"] <= table["ci_high"]).all()


def test_bws_rejects_values_other_than_best_worst_other():
    bad = _bws_example().assign(score=2)
    with pytest.raises(RatingsError, match="BWS values"):
        bws_scores(bad)


def _bt_example() -> pd.DataFrame:
    wins = {("A", "B"): 3, ("B", "A"): 1, ("A", "C"): 2, ("C", "A"): 2, ("B", "C"): 3, ("C", "B"): 1}
    rows = [{"item_a": w, "item_b": lo, "outcome": "a"} for (w, lo), k in wins.items() for _ in range(k)]
    return pd.DataFrame(rows)


def test_bradley_terry_worked_example():
    fit = bradley_terry(_bt_example(), n_boot=200, seed=1)
    theta = fit.strengths.set_index("system")["theta"]
    np.testing.assert_allclose(theta[["A", "B", "C"]], [0.3430, 0.0, -0.3430], atol=5e-5)
    assert fit.win_probability.loc["A", "B"] == pytest.approx(0.5849, abs=5e-5)
    assert fit.converged
    elo = fit.strengths.set_index("system")["elo"]
    assert elo["A"] == pytest.approx(1000 + 400 * theta["A"] / np.log(10))


def test_bradley_terry_from_the_expanded_pairwise_table_with_ties():
    rows = []
    for doc, (x, y, value) in enumerate([("A", "B", 1), ("A", "B", 0.5), ("B", "A", 1), ("A", "B", 1)]):
        rows.append({"annotator": "w", "document": f"d{doc}", "system": x, "opponent": y, "score": value})
        rows.append({"annotator": "w", "document": f"d{doc}", "system": y, "opponent": x, "score": 1 - value})
    frame = pd.DataFrame(rows)
    outcomes = pairwise_outcomes(frame)
    assert outcomes["score_a"].tolist() == [1.0, 0.5, 0.0, 1.0]
    fit = bradley_terry(frame, n_boot=0)
    # A has 2.5 wins of 4: θ_A − θ_B = log(2.5 / 1.5)
    theta = fit.strengths.set_index("system")["theta"]
    assert theta["A"] - theta["B"] == pytest.approx(np.log(2.5 / 1.5), abs=1e-9)


def test_bradley_terry_needs_a_strongly_connected_win_graph_unless_a_prior_is_given():
    data = pd.DataFrame({"item_a": ["A", "A", "B"], "item_b": ["B", "C", "C"], "outcome": ["a", "a", "a"]})
    with pytest.raises(InsufficientDataError, match="prior"):
        bradley_terry(data, n_boot=0)
    fit = bradley_terry(data, prior=0.5, n_boot=0)
    order = fit.strengths["system"].tolist()
    assert order == ["A", "B", "C"]
