"""Batch kernels (spec §4.2–4.3) against scipy and a plain loop implementation of Noreen's ART."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humaneval.clmm.model import default_model, sample_ratings, sample_scores
from humaneval.design import block_design
from humaneval.errors import DesignError
from humaneval.simulate.designs import SimDesign, pair_differences, system_pairs
from humaneval.simulate.kernels import (
    art_exact_pvalues,
    art_pvalues,
    art_pvalues_from_signs,
    min_attainable_p,
    paired_t_pvalues,
    random_signs,
)


def test_paired_t_matches_scipy_on_a_batch():
    rng = np.random.default_rng(3)
    x = rng.integers(1, 8, size=(6, 10, 40)).astype(float)
    y = rng.integers(1, 8, size=(6, 10, 40)).astype(float) + 0.3
    expected = stats.ttest_rel(x, y, axis=-1).pvalue
    np.testing.assert_allclose(paired_t_pvalues(x - y), expected, rtol=1e-10)


def test_paired_t_degenerate_cases_follow_the_spec():
    p = paired_t_pvalues(np.array([[0.0, 0.0, 0.0], [2.0, 2.0, 2.0], [-1.0, -1.0, -1.0], [1.0, 2.0, 3.0]]))
    assert p[0] == 1.0 and p[1] == 0.0 and p[2] == 0.0
    assert p[3] == pytest.approx(stats.ttest_1samp([1.0, 2.0, 3.0], 0).pvalue)


def loop_art(x: np.ndarray, y: np.ndarray, swaps: np.ndarray) -> float:
    """Spec §4.3 written out: swap x_i and y_i where swaps[r, i], count rounds with T* ≥ T."""
    observed = abs(x.sum() - y.sum())
    count = 0
    for row in swaps:
        xs = np.where(row, y, x)
        ys = np.where(row, x, y)
        if abs(xs.sum() - ys.sum()) >= observed * (1 - 1e-12):
            count += 1
    return (count + 1) / (len(swaps) + 1)


@pytest.mark.parametrize("scale", [1.0, 1 / 3])
def test_art_with_given_signs_equals_the_loop(scale):
    rng = np.random.default_rng(5)
    x = rng.integers(1, 8, size=(4, 30)) * scale
    y = rng.integers(1, 8, size=(4, 30)) * scale
    signs = random_signs(rng, 200, 30)
    got = art_pvalues_from_signs(x - y, signs)
    expected = [loop_art(x[k], y[k], signs < 0) for k in range(4)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_random_signs_are_fair_and_independent():
    signs = random_signs(np.random.default_rng(0), 2000, 50)
    assert signs.shape == (2000, 50) and set(np.unique(signs)) == {-1.0, 1.0}
    assert abs(signs.mean()) < 4 * (1 / np.sqrt(signs.size))
    corr = np.corrcoef(signs[:, 0], signs[:, 1])[0, 1]
    assert abs(corr) < 4 / np.sqrt(2000)


def test_exact_art_equals_brute_force_enumeration():
    rng = np.random.default_rng(7)
    delta = rng.normal(size=(5, 8)).round(1)
    for row, p in zip(delta, art_exact_pvalues(delta), strict=True):
        patterns = itertools.product((1, -1), repeat=8)
        hits = sum(abs(np.dot(s, row)) >= abs(row.sum()) * (1 - 1e-12) for s in patterns)
        assert p == hits / 256
    with pytest.raises(DesignError, match="2\\^21 sign patterns"):
        art_exact_pvalues(np.ones(21))


def test_art_floor_with_five_clusters_never_rejects():
    """Spec §4.3 / checklist 15: with n = 5 the exact p is at least 2^(1−5) = 0.0625 for any data."""
    assert min_attainable_p(5) == 0.0625
    rng = np.random.default_rng(11)
    extreme = np.array([[1.0, 2.0, 3.0, 4.0, 5.0], [-9.0, -1.0, -2.0, -8.0, -3.0]])
    random = rng.normal(size=(2000, 5))
    p = art_exact_pvalues(np.vstack([extreme, random]))
    assert p[:2].tolist() == [0.0625, 0.0625]
    assert p.min() == 0.0625
    # art_pvalues switches to exact enumeration for so few pairs, so Monte-Carlo noise cannot dip below
    assert art_pvalues(random, n_permutations=1000, seed=1).min() == 0.0625


def test_monte_carlo_art_is_close_to_exact():
    rng = np.random.default_rng(2)
    delta = rng.normal(0.3, 1, size=(3, 14))
    exact = art_exact_pvalues(delta)
    mc = art_pvalues(delta, n_permutations=20000, seed=4)
    np.testing.assert_allclose(mc, exact, atol=4 * np.sqrt(0.25 / 20000))


def test_array_sampler_matches_the_table_sampler():
    model = default_model()
    design = SimDesign(4, 5, 3)
    system, groups = design.group_codes(5)
    scores = sample_scores(model, system, groups, np.random.default_rng(9))
    table = sample_ratings(model, block_design(4, 5, 3, model.system_names), seed=9)
    np.testing.assert_array_equal(scores, table.data["score"].to_numpy())


def test_pair_differences_match_groupby_means():
    model = default_model()
    design = SimDesign(3, 4, 2)
    ratings = sample_ratings(model, design.table(model.system_names), seed=1).data
    scores = ratings["score"].to_numpy().reshape(3, 2, 4, 5).astype(float)
    pairs = system_pairs(5)
    k = pairs.index((1, 3))
    a, b = model.system_names[1], model.system_names[3]
    for level, keys in (("document", ["document"]), ("cluster", ["block"])):
        means = ratings.groupby([*keys, "system"])["score"].mean().unstack()
        expected = (means[a] - means[b]).to_numpy()
        np.testing.assert_allclose(pair_differences(scores, level, pairs)[k], expected)
        totals = pair_differences(scores, level, pairs, totals=True)[k]
        np.testing.assert_allclose(totals / design.unit_size(level), expected)
    wide = ratings.pivot_table(index=["annotator", "document"], columns="system", values="score")
    np.testing.assert_allclose(pair_differences(scores, "none", pairs)[k], (wide[a] - wide[b]).to_numpy())
    assert pd.Series(pair_differences(scores, "none", pairs).shape).tolist() == [10, 24]
