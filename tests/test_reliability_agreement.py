"""Observed agreement, Cohen's κ (weighted), Scott's π and Fleiss' κ (spec §2.1–§2.2, eqs. 3.1–3.7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humaneval.core.ratings import load_ratings
from humaneval.errors import InsufficientDataError, RatingsError, ReliabilityWarning
from humaneval.reliability.agreement import (
    cohen_kappa,
    fleiss_kappa,
    observed_agreement,
    pairwise_agreement,
    scott_pi,
    two_coder_agreement,
)
from tests.test_reliability_alpha import BINARY

A, B = BINARY[0], BINARY[1]


def test_binary_example():
    assert observed_agreement(A, B) == pytest.approx(0.6)
    assert round(cohen_kappa(A, B), 4) == 0.0909
    assert round(scott_pi(A, B), 4) == 0.0476
    assert round(fleiss_kappa(BINARY, orient="annotators_x_units").kappa, 4) == 0.0476


def test_weighted_kappa_against_direct_formula():
    rng = np.random.default_rng(4)
    a = rng.integers(1, 6, 80)
    b = np.clip(a + rng.integers(-2, 3, 80), 1, 5)
    n = len(a)
    for weights, power in (("linear", 1), ("quadratic", 2)):
        observed = np.mean(np.abs(a - b) ** power)
        expected = np.mean(np.abs(a[:, None] - b[None, :]) ** power)
        assert cohen_kappa(a, b, weights=weights) == pytest.approx(1 - observed / expected, abs=1e-12)
    # unweighted κ: the same formula with 0/1 disagreement
    expected = np.mean(a[:, None] != b[None, :])
    assert cohen_kappa(a, b) == pytest.approx(1 - np.mean(a != b) / expected, abs=1e-12)
    assert two_coder_agreement(a, b).n_units == n


def test_missing_values_and_labels():
    a = pd.Series(["x", "y", None, "x"], index=[1, 2, 3, 4])
    b = pd.Series(["x", "x", "y", "x", "y"], index=[1, 2, 3, 4, 5])
    result = two_coder_agreement(a, b)
    assert result.n_units == 3 and result.observed_agreement == pytest.approx(2 / 3)
    with pytest.raises(InsufficientDataError):
        observed_agreement([1, np.nan], [np.nan, 2])


def test_fleiss_equals_scott_pi_for_two_raters_and_rejects_unequal_counts():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, 50), rng.integers(0, 4, 50)
    fleiss = fleiss_kappa(np.vstack([a, b]).astype(float), orient="annotators_x_units")
    assert fleiss.kappa == pytest.approx(scott_pi(a, b), abs=1e-12)
    with pytest.raises(RatingsError, match="Krippendorff"):
        fleiss_kappa(np.array([[1.0, 2.0], [1.0, np.nan], [2.0, 2.0]]), orient="annotators_x_units")


@pytest.mark.parametrize(("fixture", "expected"), [("likert_path", 0.0464), ("rank_path", 0.1908)])
def test_fleiss_reference(fixture, expected, request):
    ratings = load_ratings(request.getfixturevalue(fixture))
    result = fleiss_kappa(ratings)
    assert result.kappa == pytest.approx(expected, abs=5e-5)
    assert (result.n_units, result.ratings_per_unit) == (500, 3)


def test_pairwise_agreement_in_blocks(likert_path):
    table = pairwise_agreement(load_ratings(likert_path))
    # 20 blocks × 3 annotator pairs share 25 units each; annotators of different blocks share none
    assert len(table) == 60 and (table["n_units"] == 25).all()
    first = table.iloc[0]
    assert first["observed_agreement"] == pytest.approx(0.08)


def test_weighted_kappa_weights_by_category_values_with_gaps():
    # categories 1, 2, 5: the weights are the value differences (|1-5| = 4), not the ranks (2)
    a = np.array([1, 2, 5, 5, 1, 2, 5, 1])
    b = np.array([2, 2, 5, 1, 1, 5, 5, 2])
    for weights, power in (("linear", 1), ("quadratic", 2)):
        observed = np.mean(np.abs(a - b) ** power)
        expected = np.mean(np.abs(a[:, None] - b[None, :]) ** power)
        assert cohen_kappa(a, b, weights=weights) == pytest.approx(1 - observed / expected, abs=1e-12)
    with pytest.warns(ReliabilityWarning, match="chance agreement is 1"):
        assert np.isnan(cohen_kappa([3, 3, 3], [3, 3, 3]))


def test_numeric_ratings_with_label_categories_get_one_clear_error():
    # was a bare ValueError from float('low')
    with pytest.raises(RatingsError, match=r"categories .* are not; give numeric categories"):
        two_coder_agreement([1, 2, 3], [1, 2, 2], categories=["low", "mid", "high"])
    # numeric categories given as strings still count as numbers: κ = (2/3 − 1/3) / (1 − 1/3) = 0.5
    kappa = two_coder_agreement([1, 2, 3], [1, 2, 2], categories=["1", "2", "3", "4"]).cohen_kappa
    assert kappa == pytest.approx(0.5)
