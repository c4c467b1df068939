"""The shared cluster bootstrap and the rule for when an interval or a split-half value means nothing."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from humaneval.clmm.model import default_model, sample_ratings
from humaneval.design import block_design
from humaneval.errors import InsufficientDataError, ReliabilityWarning
from humaneval.reliability.bootstrap import unit_bootstrap
from humaneval.reliability.splithalf import split_half_reliability
from humaneval.stats.resampling import (
    cluster_bootstrap,
    cluster_caveat,
    distinct_resamples,
    percentile_interval,
)


def test_distinct_resamples_and_caveats():
    # multisets of C clusters drawn C times: 2 -> {11, 12, 22}; 4 -> C(7, 4)
    assert [distinct_resamples(c) for c in (1, 2, 3, 4)] == [1, 3, 10, 35]
    assert "35 distinct resamples" in cluster_caveat(4) and "no interval is given" in cluster_caveat(4)
    assert "rough" in cluster_caveat(5) and "rough" in cluster_caveat(14)
    assert cluster_caveat(15) is None


def test_bca_interval_matches_the_textbook_formula():
    rng = np.random.default_rng(5)
    values = rng.gamma(2.0, size=30)  # skewed, so BCa differs from the percentile interval

    def mean(idx):
        return values[idx].mean(axis=-1)[None]

    ci = cluster_bootstrap(mean, 30, n_resamples=4000, method="bca", rng=np.random.default_rng(9))
    boot = ci.distribution[0]
    theta = values.mean()
    z0 = stats.norm.ppf(np.mean(boot < theta))
    jack = np.array([np.delete(values, i).mean() for i in range(30)])
    d = jack.mean() - jack
    a = (d**3).sum() / (6 * ((d**2).sum()) ** 1.5)
    z = stats.norm.ppf([0.025, 0.975])
    levels = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    assert [ci.low[0], ci.high[0]] == pytest.approx(np.percentile(boot, levels * 100), rel=1e-9)
    plain = cluster_bootstrap(mean, 30, n_resamples=4000, rng=np.random.default_rng(9))
    assert [plain.low[0], plain.high[0]] == pytest.approx(np.percentile(boot, [2.5, 97.5]), rel=1e-12)
    assert ci.caveat is None and ci.computed


def test_percentile_interval_leaves_out_undefined_resamples():
    samples = np.array([[1.0, np.nan, 3.0, 2.0, 5.0]])
    low, high = percentile_interval(samples, 0.5, axis=1)
    assert (low[0], high[0]) == (np.percentile([1, 3, 2, 5], 25), np.percentile([1, 3, 2, 5], 75))


def test_split_half_with_few_blocks_is_flagged():
    model = default_model()
    four = sample_ratings(model, block_design(4, 5, 2, model.system_names, seed=2), seed=2)
    result = split_half_reliability(four, seed=1)
    # 4 blocks halve in C(4, 2) / 2 = 3 ways
    assert result.enumerated and result.n_splits == 3
    assert result.caveat.startswith("split-half reliability rests on all 3 possible splits of 4 blocks")
    two = sample_ratings(model, block_design(2, 5, 2, model.system_names, seed=2), seed=2)
    single = split_half_reliability(two, seed=1)
    assert single.n_splits == 1 and np.isnan(single.sd) and "only possible split" in single.caveat
    five = sample_ratings(model, block_design(5, 5, 2, model.system_names, seed=2), seed=2)
    assert split_half_reliability(five, seed=1).n_splits == 10
    assert split_half_reliability(five, seed=1).caveat is None


def test_document_bootstrap_of_alpha_needs_enough_documents():
    model = default_model()
    few = sample_ratings(model, block_design(2, 2, 3, model.system_names, seed=1), seed=1)
    with pytest.raises(InsufficientDataError, match="only 4 independent documents"):
        unit_bootstrap(few, resample="document", n_resamples=1000, seed=1)
    some = sample_ratings(model, block_design(2, 4, 3, model.system_names, seed=1), seed=1)
    with pytest.warns(ReliabilityWarning, match="only 8 independent documents to resample"):
        unit_bootstrap(some, resample="document", n_resamples=1000, seed=1)
