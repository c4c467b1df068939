"""Inference for meta-evaluation: vectorised bootstrap = naive scipy loop (spec §3.1–3.2),
permutation test (§3.3), Williams (§3.5) and Fisher-z (§3.6) test vectors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from humaneval.errors import OptionError
from humaneval.metaeval import align, read_scores
from humaneval.metaeval.bootstrap import bootstrap, draw_counts, level_samples, resample_indices
from humaneval.metaeval.levels import measure
from humaneval.metaeval.report import per_system_intervals
from humaneval.metaeval.significance import (
    _SwapForms,
    fisher_ci,
    permutation_test,
    williams_compare,
    williams_test,
)
from tests.conftest import shared_file


@pytest.fixture(scope="module")
def scores():
    root = shared_file("summeval-coherence-scores")
    human = read_scores(root / "human.csv")
    names = ("bartscore", "gruen", "random")
    return align(human, {n: read_scores(root / f"{n}.csv") for n in names})


def _naive(H, P, rows, cols):
    """Resampled matrices and a plain scipy loop per measure."""
    out = {level: [] for level in ("sys", "sum", "pair", "intra", "acc")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r, c in zip(rows, cols, strict=True):
            Hb, Pb = H[r][:, c], P[r][:, c]
            out["sys"].append(stats.kendalltau(Hb.mean(1), Pb.mean(1)).statistic)
            out["sum"].append(stats.kendalltau(Hb.ravel(), Pb.ravel()).statistic)
            out["pair"].append(
                np.nanmean([stats.kendalltau(Hb[:, d], Pb[:, d]).statistic for d in range(Hb.shape[1])])
            )
            out["intra"].append(
                np.nanmean([stats.kendalltau(Hb[s], Pb[s]).statistic for s in range(Hb.shape[0])])
            )
            dh, dp = Hb[:, None] - Hb[None], Pb[:, None] - Pb[None]
            out["acc"].append(((dh > 0) & (dp > 0)).sum() / (dh > 0).sum())
    return {k: np.array(v) for k, v in out.items()}


@pytest.mark.parametrize("mode", ["both", "documents", "systems"])
def test_vectorised_bootstrap_equals_naive_loop(scores, mode):
    H, P = scores.human, scores.metrics["bartscore"]
    rows, cols = resample_indices(*H.shape, mode, 100 if mode == "both" else 15, seed=11)
    ours = level_samples(H, P, None, draw_counts(rows, 17), draw_counts(cols, 100))
    ref = _naive(H, P, rows, cols)
    for level, values in ref.items():
        np.testing.assert_allclose(ours[level], values, atol=1e-10, err_msg=f"{mode} {level}")


def test_weighted_pearson_spearman_equal_resampled_scipy(scores):
    H, P = scores.human, scores.metrics["gruen"]
    rows, cols = resample_indices(*H.shape, "both", 5, seed=2)
    for coefficient, f in (("pearson", stats.pearsonr), ("spearman", stats.spearmanr)):
        ours = level_samples(
            H, P, ("sum", "intra", "sys"), draw_counts(rows, 17), draw_counts(cols, 100), coefficient
        )
        for b in range(5):
            Hb, Pb = H[rows[b]][:, cols[b]], P[rows[b]][:, cols[b]]
            assert ours["sum"][b] == pytest.approx(f(Hb.ravel(), Pb.ravel()).statistic, abs=1e-10)
            assert ours["sys"][b] == pytest.approx(f(Hb.mean(1), Pb.mean(1)).statistic, abs=1e-10)
            intra = np.mean([f(Hb[s], Pb[s]).statistic for s in range(17)])
            assert ours["intra"][b] == pytest.approx(intra, abs=1e-10)


def test_bootstrap_is_seeded_paired_and_brackets_the_estimate(scores):
    metrics = {k: scores.metrics[k] for k in ("bartscore", "gruen")}
    first = bootstrap(scores.human, metrics, ("pair", "intra"), n_resamples=200, seed=5)
    again = bootstrap(scores.human, metrics, ("pair", "intra"), n_resamples=200, seed=5)
    assert first.table.equals(again.table)
    row = first.table.set_index(["metric", "level"]).loc[("bartscore", "pair")]
    assert row["estimate"] == pytest.approx(0.4325, abs=1e-4)
    assert row["ci_low"] < row["estimate"] < row["ci_high"] and row["n_valid"] == 200
    diff = first.difference("bartscore", "gruen").set_index("level")
    paired = first.samples["bartscore"]["pair"] - first.samples["gruen"]["pair"]
    assert diff.at["pair", "ci_low"] == pytest.approx(np.quantile(paired, 0.025))
    assert diff.at["pair", "estimate"] == pytest.approx(0.4325 - 0.3027, abs=2e-4)


def test_per_system_intervals_resample_documents_only(scores):
    H, P = scores.human, scores.metrics["bartscore"]
    table = per_system_intervals(H, P, n_resamples=50, seed=3)
    _, cols = resample_indices(*H.shape, "documents", 50, seed=3)
    s = 4
    ref = [stats.kendalltau(H[s, c], P[s, c]).statistic for c in cols]
    assert table["ci_low"].iloc[s] == pytest.approx(np.quantile(ref, 0.025), abs=1e-12)
    assert (table["ci_low"] <= table["estimate"]).all() and (table["estimate"] <= table["ci_high"]).all()


@pytest.mark.parametrize("level", ["pair", "intra", "sum", "acc"])
def test_permutation_swap_forms_equal_direct_evaluation(scores, level):
    H, A, B = scores.human, scores.metrics["bartscore"], scores.metrics["gruen"]
    rng = np.random.default_rng(0)
    z = (rng.random((3, 17, 1)) < 0.5) ^ (rng.random((3, 1, 100)) < 0.5)
    em_a, em_b = _SwapForms(H, A, B, level, "kendall")(z)
    for r in range(3):
        assert em_a[r] == pytest.approx(measure(H, np.where(z[r], B, A), level).estimate, abs=1e-10)
        assert em_b[r] == pytest.approx(measure(H, np.where(z[r], A, B), level).estimate, abs=1e-10)


def test_permutation_test(scores):
    H, A, R = scores.human, scores.metrics["bartscore"], scores.metrics["random"]
    better = permutation_test(H, A, R, "pair", n_permutations=200, seed=1)
    assert better.delta == pytest.approx(0.4325 - 0.0035, abs=2e-4)
    assert better.p_value == pytest.approx(1 / 201)
    worse = permutation_test(H, R, A, "pair", n_permutations=200, seed=1)
    assert worse.p_value > 0.9
    same = permutation_test(H, A, A, "sys", n_permutations=50, seed=1, coefficient="pearson")
    assert same.delta == 0 and same.p_value == 1.0


def test_williams_and_fisher_vectors():
    result = williams_test(0.6, 0.4, 0.5, 100)
    assert abs(result.K - 0.47) < 1e-12
    assert result.t == pytest.approx(2.448709, abs=1e-6)
    assert result.p_value == pytest.approx(0.008066, abs=1e-6)
    assert williams_test(0.6, 0.4, 0.5, 100, "two-sided").p_value == pytest.approx(0.016132, abs=1e-6)
    np.testing.assert_allclose(fisher_ci(0.5, 100, "pearson"), [0.336643, 0.634140], atol=1e-6)
    np.testing.assert_allclose(fisher_ci(0.5, 100, "kendall"), [0.394458, 0.592522], atol=1e-6)
    assert fisher_ci(1.0, 10) == (1.0, 1.0)
    assert np.isnan(fisher_ci(0.3, 4, "kendall")[0])


def test_williams_compare_at_system_level(scores):
    H, A, B = scores.human, scores.metrics["bartscore"], scores.metrics["gruen"]
    result = williams_compare(H, A, B, "sys")
    assert result.n == 17 and result.r12 == pytest.approx(0.7206, abs=1e-4)
    assert result.r13 == pytest.approx(0.7794, abs=1e-4)
    assert result.p_value > 0.5


def test_bootstrap_with_missing_cells_equals_naive_loop():
    rng = np.random.default_rng(8)
    H = rng.integers(1, 6, (6, 12)).astype(float)
    P = H + rng.normal(scale=2, size=H.shape)
    H[rng.random(H.shape) < 0.1] = np.nan
    P[rng.random(P.shape) < 0.1] = np.nan
    rows, cols = resample_indices(*H.shape, "both", 30, seed=1)
    ours = level_samples(H, P, None, draw_counts(rows, 6), draw_counts(cols, 12))

    def tau(x, y):
        keep = ~np.isnan(x + y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return stats.kendalltau(x[keep], y[keep]).statistic if keep.sum() >= 2 else np.nan

    for b in range(30):
        Hb, Pb = H[rows[b]][:, cols[b]], P[rows[b]][:, cols[b]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = {
                "sys": tau(np.nanmean(Hb, 1), np.nanmean(Pb, 1)),
                "sum": tau(Hb.ravel(), Pb.ravel()),
                "pair": np.nanmean([tau(Hb[:, d], Pb[:, d]) for d in range(12)]),
                "intra": np.nanmean([tau(Hb[s], Pb[s]) for s in range(6)]),
            }
        for level, value in ref.items():
            assert (np.isnan(value) and np.isnan(ours[level][b])) or ours[level][b] == pytest.approx(
                value, abs=1e-10
            ), (b, level)


def test_holm_matches_statsmodels():
    from statsmodels.stats.multitest import multipletests

    from humaneval.metaeval.significance import holm

    p = [0.01, 0.04, 0.03, 0.2, 0.001]
    np.testing.assert_allclose(holm(p), multipletests(p, method="holm")[1])


def test_compare_systems_and_approximate_randomisation():
    from humaneval.metaeval.classification import roc_auc
    from humaneval.metaeval.randomisation import approximate_randomisation, compare_systems

    rng = np.random.default_rng(5)
    x = rng.normal(size=200)
    y = x - 0.3 + rng.normal(scale=0.5, size=200)
    result = compare_systems(x, y, seed=1, n_permutations=2000)
    d = x - y
    assert result.difference == pytest.approx(d.mean())
    assert result.ci_low < d.mean() < result.ci_high
    half = 1.96 * d.std(ddof=1) / np.sqrt(200)  # the bootstrap CI is close to the normal one
    assert result.ci_high - result.ci_low == pytest.approx(2 * half, rel=0.15)
    assert result.p_bootstrap == 0.0 and result.p_randomisation == pytest.approx(1 / 2001)
    same = compare_systems(x, x + rng.normal(scale=1e-3, size=200), seed=1, n_permutations=2000)
    assert same.p_randomisation > 0.01
    labels = rng.random(300) < 0.5
    good, bad = labels + rng.normal(size=300), rng.normal(size=300)
    test = approximate_randomisation(good, bad, lambda s: roc_auc(s, labels), n_permutations=300, seed=0)
    assert test.delta == pytest.approx(roc_auc(good, labels) - roc_auc(bad, labels))
    assert test.p_value == pytest.approx(1 / 301)
    reverse = approximate_randomisation(bad, good, lambda s: roc_auc(s, labels), n_permutations=300, seed=0)
    assert reverse.p_value > 0.9


@pytest.mark.parametrize("coefficient", ["kendall", "kendall_a", "kendall_c"])
def test_large_tau_sum_fallback_equals_kernel(monkeypatch, coefficient):
    import importlib

    boot = importlib.import_module("humaneval.metaeval.bootstrap")  # the module, not the function
    rng = np.random.default_rng(6)
    H = rng.integers(1, 4, (5, 8)).astype(float)
    P = np.round(H + rng.normal(size=H.shape), 1)
    H[0, 0] = np.nan
    rows, cols = resample_indices(5, 8, "both", 20, seed=4)
    n, m = draw_counts(rows, 5), draw_counts(cols, 8)
    kernel = level_samples(H, P, ("sum",), n, m, coefficient)["sum"]
    monkeypatch.setattr(boot, "MAX_PAIR_MATRIX", 10)
    fallback = level_samples(H, P, ("sum",), n, m, coefficient)["sum"]
    np.testing.assert_allclose(fallback, kernel, atol=1e-12)


def test_large_sum_permutation_fallback_gives_the_same_p(monkeypatch):
    import importlib

    sig = importlib.import_module("humaneval.metaeval.significance")
    rng = np.random.default_rng(0)
    H = rng.integers(1, 5, (5, 8)).astype(float)
    A, B = H + rng.normal(size=H.shape), rng.normal(size=H.shape)
    quick = permutation_test(H, A, B, "sum", n_permutations=100, seed=3, alternative="two-sided")
    monkeypatch.setattr(sig, "MAX_PAIR_MATRIX", 10)
    slow = permutation_test(H, A, B, "sum", n_permutations=100, seed=3, alternative="two-sided")
    assert slow == quick


def _zscored(H, A, B):
    from humaneval.metaeval.significance import _zscore

    present = ~(np.isnan(H) | np.isnan(A) | np.isnan(B))
    return [np.where(present, _zscore(M), np.nan) for M in (H, A, B)]


@pytest.mark.parametrize(("a", "b"), [("bartscore", "gruen"), ("random", "bartscore")])
@pytest.mark.parametrize("level", ["sum", "pair", "intra", "acc"])
@pytest.mark.parametrize("coefficient", ["kendall", "kendall_a"])
def test_swap_difference_equals_the_swap_forms(scores, a, b, level, coefficient):
    """The linear / one-form δ* of ``humaneval.metaeval.swaps`` equals the six-form evaluation of
    ``_SwapForms`` on SummEval (metrics with tied values, one missing cell) to 1e-12."""
    from humaneval.metaeval.swaps import SwapDifference

    if level == "acc" and coefficient == "kendall_a":
        return
    H = scores.human.copy()
    H[3, 5] = np.nan
    H, A, B = _zscored(H, scores.metrics[a], scores.metrics[b])
    rng = np.random.default_rng(0)
    z = (rng.random((40, 17, 1)) < 0.5) ^ (rng.random((40, 1, 100)) < 0.5)
    shortcut = SwapDifference.build(H, A, B, level, coefficient)
    if level == "acc":  # bartscore and gruen have tied values: accuracy keeps the six forms
        assert shortcut is None
        return
    if level == "sum":  # pooled, both pairs of metrics hold tied values
        assert (shortcut.ties is not None) == (coefficient == "kendall")
    em_a, em_b = _SwapForms(H, A, B, level, coefficient)(z)
    np.testing.assert_allclose(shortcut(z), em_a - em_b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_swap_difference_on_continuous_gold_and_tie_free_metrics(seed):
    """Continuous gold values take the row-block and banded paths; metrics without ties the
    purely linear form (pairwise accuracy included)."""
    from humaneval.metaeval.swaps import SwapDifference

    rng = np.random.default_rng(seed)
    H = rng.normal(size=(12, 40))
    A, B = H + rng.normal(size=H.shape), rng.normal(size=H.shape)
    Bt = np.round(B, 1)  # tied values
    H[0, 0] = np.nan
    z = (rng.random((30, 12, 1)) < 0.5) ^ (rng.random((30, 1, 40)) < 0.5)
    for metric_b, linear in ((B, True), (Bt, False)):
        Hz, Az, Bz = _zscored(H, A, metric_b)
        for level in ("sum", "pair", "intra", "acc"):
            shortcut = SwapDifference.build(Hz, Az, Bz, level, "kendall")
            if shortcut is None:
                assert level == "acc" and not linear
                continue
            assert (shortcut.ties is None) == linear
            em_a, em_b = _SwapForms(Hz, Az, Bz, level, "kendall")(z)
            np.testing.assert_allclose(shortcut(z), em_a - em_b, rtol=0, atol=1e-12)


@pytest.mark.parametrize("level", ["sum", "pair", "intra"])
def test_permutation_p_values_unchanged_by_the_shortcut(scores, monkeypatch, level):
    import importlib

    sig = importlib.import_module("humaneval.metaeval.significance")
    H, A, B = scores.human, scores.metrics["bartscore"], scores.metrics["gruen"]
    fast = permutation_test(H, A, B, level, n_permutations=300, seed=7, alternative="two-sided")
    monkeypatch.setattr(sig.SwapDifference, "build", classmethod(lambda *args: None))
    old = permutation_test(H, A, B, level, n_permutations=300, seed=7, alternative="two-sided")
    assert fast == old


def test_tau_sum_path_follows_the_measured_costs():
    """The sign-matrix path wins for SummEval's 1,700 summaries; a few resamples of a larger pool
    go to scipy, and nothing above MAX_PAIR_MATRIX cells builds the matrix (issue 25)."""
    from humaneval.metaeval.bootstrap import MAX_PAIR_MATRIX, sum_by_pair_matrix

    assert sum_by_pair_matrix(1700, 1000) and sum_by_pair_matrix(1700, 100)
    assert sum_by_pair_matrix(2500, 1000) and not sum_by_pair_matrix(2500, 20)
    assert not sum_by_pair_matrix(5000, 1000)
    assert not sum_by_pair_matrix(MAX_PAIR_MATRIX + 1, 10**6)


def test_tied_tau_sum_permutations_equal_scipy_on_the_swapped_matrices(scores):
    """The tied τ_sum path (sparse tallies + within-block forms) against the plain definition:
    scipy's τ_b of each explicitly swapped matrix, on SummEval with a missing cell (issue 25)."""
    from humaneval.metaeval.swaps import SwapDifference, _SortedCounts

    H = scores.human.copy()
    H[3, 5] = H[-1, -1] = np.nan  # the last cell too: the form still spans every cell
    H, A, B = _zscored(H, scores.metrics["bartscore"], scores.metrics["gruen"])
    shortcut = SwapDifference.build(H, A, B, "sum", "kendall")
    assert shortcut.by_columns and isinstance(shortcut.ties["form"], _SortedCounts)
    rng = np.random.default_rng(3)
    z = (rng.random((25, 17, 1)) < 0.5) ^ (rng.random((25, 1, 100)) < 0.5)
    keep = ~np.isnan(H)
    reference = [
        stats.kendalltau(H[keep], np.where(zr, B, A)[keep]).statistic
        - stats.kendalltau(H[keep], np.where(zr, A, B)[keep]).statistic
        for zr in z
    ]
    np.testing.assert_allclose(shortcut(z), reference, rtol=0, atol=1e-12)


@pytest.mark.parametrize("block", [2, 4, 32])
def test_sorted_counts_equal_the_direct_pair_count(block):
    """F(A*) = Σ sign(h_u − h_v)·sign(A*_u − A*_v) over ordered pairs, exactly, for heavy ties in
    gold and metric values (tie classes longer than the block form blocks of their own)."""
    from humaneval.metaeval.swaps import _SortedCounts

    rng = np.random.default_rng(block)
    n = 60
    h = rng.integers(0, 4, n).astype(float)
    a, b = rng.integers(0, 9, n).astype(float), rng.integers(0, 9, n).astype(float)
    b[:5] = a[:5]  # cells where both metrics agree
    cells = np.sort(rng.choice(80, n, replace=False))  # the group's cells inside a larger layout
    form = _SortedCounts(h, a, b, cells, 80, block=block)
    z = rng.random((7, n)) < 0.5
    zt = np.zeros((81, 7), dtype=np.float32)
    zt[cells] = z.T
    expected = [
        (np.sign(h[:, None] - h[None]) * np.sign(x[:, None] - x[None])).sum() for x in np.where(z, b, a)
    ]
    np.testing.assert_array_equal(form(zt), expected)


def test_per_system_intervals_normalise_the_coefficient():
    # A coefficient alias reached the kernel unnormalised (KeyError 'value') and a callable
    # crashed on str.startswith; the alias now equals its canonical name, a callable is refused.
    rng = np.random.default_rng(0)
    H, P = rng.integers(1, 6, (3, 8)).astype(float), rng.random((3, 8))
    by_alias = per_system_intervals(H, P, coefficient="tau_b", n_resamples=20, seed=1)
    by_name = per_system_intervals(H, P, coefficient="kendall", n_resamples=20, seed=1)
    assert by_alias.equals(by_name)
    _, cols = resample_indices(3, 8, "documents", 20, seed=1)
    ref = [stats.kendalltau(H[0, c], P[0, c]).statistic for c in cols]
    assert by_alias["ci_low"].iloc[0] == pytest.approx(np.nanquantile(ref, 0.025), abs=1e-12)
    with pytest.raises(OptionError, match="named coefficient"):
        per_system_intervals(H, P, coefficient=lambda x, y: 0.0, n_resamples=20, seed=1)
