"""KALPHA and document bootstraps of α (spec §2.5–§2.6, reference rows of §2.8)."""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.core.ratings import load_ratings
from humaneval.errors import InsufficientDataError, OptionError
from humaneval.reliability.bootstrap import kalpha_bootstrap, unit_bootstrap
from tests.test_reliability_alpha import HAYES, KRIPP_2011, ROWS


def test_kalpha_hayes_krippendorff_reference():
    boot = kalpha_bootstrap(HAYES, "ordinal", orient=ROWS, n_resamples=10_000, seed=3)
    assert boot.n_draws == 237
    assert boot.alpha == pytest.approx(0.7598, abs=5e-5)
    assert boot.ci == pytest.approx((0.71, 0.81), abs=0.015)
    assert boot.q[0.8] == pytest.approx(0.95, abs=0.02)
    assert boot.q[0.667] < 0.005
    # D_o* is an unbiased resample of D_o, so the bootstrap mean sits at α (clipping at −1 never bites)
    assert boot.samples.mean() == pytest.approx(boot.alpha, abs=0.002)


def test_kalpha_is_seeded_and_reports_its_seed():
    a = kalpha_bootstrap(KRIPP_2011, "interval", orient=ROWS, n_resamples=1000, seed=7)
    b = kalpha_bootstrap(KRIPP_2011, "interval", orient=ROWS, n_resamples=1000, seed=7)
    np.testing.assert_array_equal(a.samples, b.samples)
    assert a.to_dict()["seed"] == 7 and a.to_dict()["n_resamples"] == 1000
    assert kalpha_bootstrap(KRIPP_2011, orient=ROWS, n_resamples=1000).seed is not None


def test_kalpha_many_distinct_values_matches_small_domain_path():
    # continuous values take the pair-sampling path; its mean distance must equal D_o
    rng = np.random.default_rng(0)
    data = rng.normal(size=(3, 300)) + rng.normal(size=300)
    boot = kalpha_bootstrap(data, "interval", orient=ROWS, n_resamples=2000, seed=1)
    assert boot.samples.mean() == pytest.approx(boot.alpha, abs=0.01)
    assert boot.ci[0] < boot.alpha < boot.ci[1]


def test_bootstrap_arguments_are_checked():
    with pytest.raises(OptionError, match="at least 1000"):
        kalpha_bootstrap(KRIPP_2011, orient=ROWS, n_resamples=500)
    with pytest.raises(InsufficientDataError, match="undefined"):
        kalpha_bootstrap(np.ones((2, 5)), orient=ROWS, n_resamples=1000)
    with pytest.raises(OptionError, match="resample"):
        unit_bootstrap(KRIPP_2011, orient=ROWS, resample="document", n_resamples=1000)


def test_likert_reference_intervals(likert_path):
    ratings = load_ratings(likert_path)
    boot = kalpha_bootstrap(ratings, n_resamples=5000, seed=11)
    assert boot.n_draws == 1500
    assert boot.ci == pytest.approx((0.17, 0.27), abs=0.015)
    assert boot.q[0.667] == 1.0 and boot.q[0.8] == 1.0
    docs = unit_bootstrap(ratings, resample="document", n_resamples=1000, seed=11)
    assert docs.method == "document" and docs.n_undefined == 0
    assert docs.ci == pytest.approx((0.16, 0.28), abs=0.015)
    assert docs.alpha == boot.alpha


def test_rank_reference_interval(rank_path):
    boot = kalpha_bootstrap(load_ratings(rank_path), n_resamples=5000, seed=5)
    assert boot.ci == pytest.approx((0.39, 0.48), abs=0.015)
    assert boot.q[0.667] == 1.0


def test_unit_bootstrap_on_units_recovers_alpha():
    # resampling units of a large simulated study centres the bootstrap distribution at α
    rng = np.random.default_rng(2)
    truth = rng.integers(1, 6, 400)
    data = np.clip(truth + rng.integers(-1, 2, (3, 400)), 1, 5).astype(float)
    boot = unit_bootstrap(data, "ordinal", orient=ROWS, resample="unit", n_resamples=1000, seed=2)
    assert np.median(boot.samples) == pytest.approx(boot.alpha, abs=0.01)
    assert boot.ci[1] - boot.ci[0] < 0.15


def test_alias_table_reproduces_the_pair_probabilities():
    from humaneval.reliability.bootstrap import _alias_table

    probs = np.random.default_rng(3).random(200) ** 3
    probs /= probs.sum()
    accept, alias = _alias_table(probs)
    k = len(probs)
    implied = accept / k + np.bincount(alias, (1 - accept) / k, minlength=k)
    np.testing.assert_allclose(implied, probs, atol=1e-15)
