"""Meta-evaluation measures: spec §2.8 worked example, §6.2 regression targets on the bundled
SummEval scores, and independent scipy computations of every level."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humaneval.errors import RatingsError
from humaneval.metaeval import (
    AlignmentWarning,
    align,
    correlate,
    correlation_levels,
    human_scores,
    pairwise_accuracy,
    per_system_intra,
    read_human,
    read_scores,
    tau_intra,
    tau_pair,
    tau_sum,
    tau_sys,
    tie_calibrated_accuracy,
)
from humaneval.metaeval.probes import upper_bound_probe
from tests.conftest import shared_file

# §2.8: systems A, B, C × documents d1, d2.
H_EX = np.array([[5, 4], [3, 5], [1, 2]], dtype=float)
P_EX = np.array([[0.9, 0.5], [0.4, 0.6], [0.6, 0.5]])

# §6.2 regression targets: file (column) → τ_intra, τ_pair, τ_sum, τ_sys, Acc_pair.
TARGETS = {
    "random": (0.0089, 0.0035, 0.0078, 0.1176, 0.5019),
    "entity-graph": (-0.0588, -0.1437, -0.1253, -0.3382, 0.3811),
    "eegrid-cnndm": (0.0290, 0.0257, 0.0539, -0.2500, 0.5139),
    "eegrid-wsj": (0.0286, -0.0165, 0.0253, -0.2500, 0.4897),
    "cnn-coherence-cnndm": (-0.0821, -0.0491, -0.0656, -0.0588, 0.4696),
    "cnn-coherence-duc03": (-0.0627, -0.0259, -0.0437, 0.0294, 0.4844),
    "cnn-coherence-wsj": (-0.0217, -0.0862, -0.0658, -0.3676, 0.4496),
    "unified-cnndm": (0.0233, 0.0409, 0.0419, 0.2206, 0.5224),
    "unified-wsj": (0.0298, -0.1084, -0.0392, -0.1176, 0.4385),
    "neural-entity-graph-duc03": (-0.0570, -0.0527, -0.0690, -0.1324, 0.4705),
    "neural-entity-graph-cnndm": (0.0734, 0.1112, 0.1104, 0.3382, 0.5650),
    "neural-entity-graph-wsj": (0.0686, -0.0376, -0.0188, -0.1471, 0.4773),
    "ccl-roberta-large-ours-cnndm": (0.2582, 0.4477, 0.4183, 0.6765, 0.7575),
    "ccl-roberta-large-ours-wsj": (0.2118, 0.3848, 0.3520, 0.7353, 0.7216),
    "ccl-orig-wsj": (0.0173, 0.0945, 0.0646, 0.0441, 0.5549),
    "bartscore": (0.2065, 0.4325, 0.3858, 0.7206, 0.7488),
    "gruen": (0.1903, 0.3027, 0.3050, 0.7794, 0.6729),
    "sumqe": (0.1806, 0.2636, 0.2324, 0.4559, 0.6513),
}


def test_worked_example_section_2_8():
    levels = correlation_levels(H_EX, P_EX)
    assert levels["tau_sys"].estimate == pytest.approx(1 / 3, abs=1e-12)
    assert levels["tau_pair"].estimate == pytest.approx((1 / 3 + 2 / np.sqrt(6)) / 2, abs=1e-12)
    assert levels["tau_pair"].estimate == pytest.approx(0.574915, abs=1e-6)
    assert levels["acc_pair"].estimate == pytest.approx(4 / 6, abs=1e-12)
    assert levels["tau_intra"].estimate == pytest.approx(1 / 3, abs=1e-12)
    assert levels["tau_sum"].estimate == pytest.approx(4 / np.sqrt(14 * 13), abs=1e-12)
    assert tau_sum(H_EX, P_EX, "pearson").estimate == pytest.approx(0.450343, abs=1e-6)
    assert tau_sum(H_EX, P_EX, "spearman").estimate == pytest.approx(0.403030, abs=1e-6)
    np.testing.assert_allclose(per_system_intra(H_EX, P_EX), [1, 1, -1])
    assert levels["acc_pair"].n_pairs == 6


def test_kendall_variants_match_definitions():
    rng = np.random.default_rng(4)
    for _ in range(50):
        n = int(rng.integers(2, 15))
        x, y = rng.integers(0, 4, n).astype(float), rng.integers(0, 3, n).astype(float)
        ref_b = stats.kendalltau(x, y).statistic
        ref_c = stats.kendalltau(x, y, variant="c").statistic
        sign = np.sign(x[:, None] - x[None]) * np.sign(y[:, None] - y[None])
        ref_a = np.triu(sign, 1).sum() / (n * (n - 1) / 2)
        for name, ref in (("kendall", ref_b), ("kendall_c", ref_c), ("kendall_a", ref_a)):
            ours = correlate(x, y, name)
            assert (np.isnan(ours) and np.isnan(ref)) or ours == pytest.approx(ref, abs=1e-12), name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref_s, ref_p = (
                stats.spearmanr(x, y).statistic,
                stats.pearsonr(x, y).statistic if n > 2 else np.nan,
            )
        for name, ref in (("spearman", ref_s), ("pearson", ref_p)):
            ours = correlate(x, y, name)
            if n > 2:
                assert (np.isnan(ours) and np.isnan(ref)) or ours == pytest.approx(ref, abs=1e-12), name


def test_undefined_groups_are_dropped_and_counted():
    H = np.array([[1.0, 2, 3], [2, 2, 1], [3, 2, 2]])
    P = np.array([[1.0, 5, 3], [2, 5, 2], [3, 5, 1]])  # document 2 is constant in both H and P
    value = tau_pair(H, P)
    assert value.n_groups_used == 2 and value.n_groups == 3
    expected = np.mean([stats.kendalltau(H[:, d], P[:, d]).statistic for d in (0, 2)])
    assert value.estimate == pytest.approx(expected, abs=1e-12)
    assert np.isnan(tau_pair(H, P, nan_policy="propagate").estimate)
    assert np.isnan(correlate([1, 2, np.nan], [1, np.nan, 3]))


def test_tie_calibrated_accuracy_by_brute_force():
    rng = np.random.default_rng(0)
    H = rng.integers(1, 4, size=(5, 6)).astype(float)
    P = np.round(rng.normal(size=(5, 6)), 1)
    i, j = np.triu_indices(5, 1)
    dh, dp = (H[i] - H[j]).ravel(), (P[i] - P[j]).ravel()

    def acc(eps):
        tied = np.abs(dp) <= eps
        right = ((np.sign(dh) * np.sign(dp) > 0) & ~tied) | ((dh == 0) & tied)
        return right.mean()

    grid = np.r_[0, np.unique(np.abs(dp))]
    best = max(acc(e) for e in grid)
    result = tie_calibrated_accuracy(H, P)
    assert result.accuracy == pytest.approx(best, abs=1e-12)
    assert acc(result.epsilon) == pytest.approx(best, abs=1e-12)
    assert result.n_pairs == len(dh) and result.n_gold_ties == int((dh == 0).sum())


# ---------------------------------------------------------------- bundled SummEval data


@pytest.fixture(scope="module")
def summeval():
    root = shared_file("summeval-coherence-scores")
    human = read_scores(root / "human.csv")
    metrics = {name: read_scores(root / f"{name}.csv") for name in TARGETS}
    return root, human, metrics, align(human, metrics)


def test_section_6_2_regression_targets(summeval):
    _, _, _, scores = summeval
    for name, expected in TARGETS.items():
        levels = correlation_levels(scores.human, scores.metrics[name])
        got = [levels[k].estimate for k in ("tau_intra", "tau_pair", "tau_sum", "tau_sys", "acc_pair")]
        np.testing.assert_allclose(got, expected, atol=1e-4, err_msg=name)
        assert all(v.n_groups_used == v.n_groups for v in levels.values()), name
    human_itself = correlation_levels(scores.human, scores.human)
    assert all(v.estimate == pytest.approx(1.0) for v in human_itself.values())


def test_pair_counts(summeval):
    _, _, _, scores = summeval
    levels = correlation_levels(scores.human, scores.metrics["bartscore"])
    counts = {k: v.n_pairs for k, v in levels.items()}
    assert counts == {
        "tau_sys": 136,
        "tau_sum": 1_444_150,
        "tau_pair": 13_600,
        "tau_intra": 84_150,
        "acc_pair": 10_174,
    }


def test_levels_equal_independent_scipy_computation(summeval):
    """Join by key with pandas and loop over scipy: the straightforward definition of §2.2."""
    root, _, _, scores = summeval
    gold = pd.read_csv(root / "human.csv")
    for name in ("random", "bartscore", "gruen", "entity-graph"):
        metric = pd.read_csv(root / f"{name}.csv")
        col = metric.columns[2]
        joined = gold.merge(metric, on=["doc", "summarizer"])
        assert len(joined) == 1700
        h, p = joined["Qcoherence"].to_numpy(float), joined[col].to_numpy(float)
        means = joined.groupby("summarizer")[["Qcoherence", col]].mean()
        ref = {
            "tau_sys": stats.kendalltau(means["Qcoherence"], means[col]).statistic,
            "tau_sum": stats.kendalltau(h, p).statistic,
            "tau_pair": np.mean(
                [stats.kendalltau(g["Qcoherence"], g[col]).statistic for _, g in joined.groupby("doc")]
            ),
            "tau_intra": np.mean(
                [stats.kendalltau(g["Qcoherence"], g[col]).statistic for _, g in joined.groupby("summarizer")]
            ),
        }
        correct = gold_pairs = 0
        for _, g in joined.groupby("doc"):
            dh = g["Qcoherence"].to_numpy()[:, None] - g["Qcoherence"].to_numpy()[None]
            dp = g[col].to_numpy()[:, None] - g[col].to_numpy()[None]
            gold_pairs += (dh > 0).sum()
            correct += ((dh > 0) & (dp > 0)).sum()
        ref["acc_pair"] = correct / gold_pairs
        pooled = {
            "pearson": stats.pearsonr(h, p).statistic,
            "spearman": stats.spearmanr(h, p).statistic,
        }
        ours = correlation_levels(scores.human, scores.metrics[name])
        for key, value in ref.items():
            assert ours[key].estimate == pytest.approx(value, abs=1e-12), (name, key)
        for coefficient, value in pooled.items():
            assert tau_sum(scores.human, scores.metrics[name], coefficient).estimate == pytest.approx(
                value, abs=1e-12
            )
        pair_pearson = np.mean(
            [stats.pearsonr(g["Qcoherence"], g[col]).statistic for _, g in joined.groupby("doc")]
        )
        assert tau_pair(scores.human, scores.metrics[name], "pearson").estimate == pytest.approx(
            pair_pearson, abs=1e-12
        )


def test_random_metric_is_near_zero_everywhere(summeval):
    _, _, _, scores = summeval
    levels = correlation_levels(scores.human, scores.metrics["random"])
    for key in ("tau_intra", "tau_pair", "tau_sum"):
        assert abs(levels[key].estimate) < 0.02
    assert abs(levels["tau_sys"].estimate) < 0.2  # 17 systems: τ_sys is noisy
    assert levels["acc_pair"].estimate == pytest.approx(0.5, abs=0.01)


def test_per_system_constant_metric(summeval):
    _, _, _, scores = summeval
    ub = upper_bound_probe(scores.human)
    assert tau_sys(scores.human, ub).estimate == pytest.approx(1.0)
    intra = tau_intra(scores.human, ub)
    assert np.isnan(intra.estimate) and intra.n_groups_used == 0 and intra.n_groups == 17
    assert np.isnan(per_system_intra(scores.human, ub)).all()
    assert pairwise_accuracy(scores.human, ub).estimate == pytest.approx(0.7955, abs=1e-4)


def test_alignment_is_by_key_not_row_order(summeval):
    root, human, metrics, scores = summeval
    # random.csv stores its rows in another order; a positional join gives a different matrix.
    raw = pd.read_csv(root / "random.csv")
    gold = pd.read_csv(root / "human.csv")
    assert (raw["doc"].to_numpy() != gold["doc"].to_numpy()).any()
    row = scores.systems.index("BART")
    col = scores.documents.index(raw["doc"].iloc[0])
    assert raw["summarizer"].iloc[0] == "BART"
    assert scores.metrics["random"][row, col] == raw["random_score"].iloc[0]
    shuffled = metrics["random"].sample(frac=1, random_state=1)
    np.testing.assert_array_equal(align(human, {"r": shuffled}).metrics["r"], scores.metrics["random"])


def test_mismatched_keys_are_reported(summeval):
    _, human, metrics, _ = summeval
    partial = metrics["bartscore"].iloc[:-5]
    extra = pd.concat([partial, pd.Series([1.0], index=pd.MultiIndex.from_tuples([("nodoc", "BART")]))])
    with pytest.warns(AlignmentWarning, match="1 key.*dropped.*5 human cell"):
        aligned = align(human, {"b": extra})
    assert aligned.dropped == {"b": 1} and aligned.missing == {"b": 5}
    assert np.isnan(aligned.metrics["b"]).sum() == 5
    with pytest.raises(RatingsError, match="strict"):
        align(human, {"b": extra}, strict=True)


def test_read_scores_aliases_columns_and_errors(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("doc,summarizer,0,other\nd1,A,0.5,1\nd1,B,,2\n")
    series = read_scores(path)
    assert series.name == "0" and np.isnan(series[("d1", "B")])
    assert read_scores(path, "other")[("d1", "B")] == 2.0
    custom = tmp_path / "c.csv"
    custom.write_text("item_id,engine,s\nd1,A,1\n")
    assert read_scores(custom, document_col="item_id", system_col="engine")[("d1", "A")] == 1.0
    with pytest.raises(RatingsError, match="no document column"):
        read_scores(custom)
    bad = tmp_path / "bad.csv"
    bad.write_text("doc,system,s\nd1,A,1\nd2,A,high\n")
    with pytest.raises(RatingsError, match=r"line 3, column 's'.*not a number"):
        read_scores(bad)
    dup = tmp_path / "dup.csv"
    dup.write_text("doc,system,s\nd1,A,1\nd1,A,2\n")
    with pytest.raises(RatingsError, match="line 3: duplicate key"):
        read_scores(dup)


def test_human_scores_average_annotators(tmp_path):
    frame = pd.DataFrame(
        {
            "annotator": ["a1", "a2", "a1", "a2", "a1", "a2"],
            "document": ["d1", "d1", "d1", "d1", "d2", "d2"],
            "system": ["A", "A", "B", "B", "A", "A"],
            "score": [1, 4, 2, 2, 5, 3],
        }
    )
    gold = human_scores(frame)
    assert gold[("d1", "A")] == 2.5 and gold[("d1", "B")] == 2.0 and gold[("d2", "A")] == 4.0
    assert human_scores(frame, annotator="a2")[("d1", "A")] == 4.0
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    assert read_human(path)[("d1", "A")] == 2.5
    two = pd.concat([frame.assign(criterion="coherence"), frame.assign(criterion="fluency", score=7)])
    assert human_scores(two, criterion="fluency")[("d1", "A")] == 7.0
    assert human_scores(two, criterion="coherence")[("d1", "A")] == 2.5
    with pytest.raises(RatingsError, match="criterion 'flu' is not in the table"):
        human_scores(two, criterion="flu")
    with pytest.raises(RatingsError, match="2 criteria"):
        human_scores(two)


def test_human_anchor_is_the_least_agreeing_annotator():
    from humaneval.metaeval.data import human_anchor

    rng = np.random.default_rng(2)
    truth = rng.integers(1, 6, 30)
    rows = []
    for a, noise in (("good1", 0), ("good2", 1), ("bad", 4)):
        scores = np.clip(truth + rng.integers(-noise, noise + 1, 30), 1, 5) if noise else truth
        rows += [
            {"annotator": a, "document": f"d{i // 3}", "system": f"s{i % 3}", "score": int(v)}
            for i, v in enumerate(scores)
        ]
    frame = pd.DataFrame(rows)
    anchor = human_anchor(frame)
    others = frame[frame["annotator"] != "bad"].groupby(["document", "system"])["score"].mean()
    own = frame[frame["annotator"] == "bad"].set_index(["document", "system"])["score"]
    expected = stats.kendalltau(own.sort_index(), others.sort_index()).statistic
    assert anchor.annotator == "bad" and anchor.agreement["bad"] == pytest.approx(expected, abs=1e-12)
    assert anchor.gold.equals(human_scores(frame))
    assert human_anchor(frame, exclude_from_gold=True).gold.equals(others.rename("human").astype(float))


def test_other_pair_sets_partial_correlation_and_auc():
    from humaneval.metaeval.classification import intra_system_auc, roc_auc
    from humaneval.metaeval.levels import partial_correlation

    # Acc on the same-system pairs of §2.8: A d1>d2 right, B d2>d1 right, C d2>d1 but P says d1>d2.
    assert pairwise_accuracy(H_EX, P_EX, "intra").estimate == pytest.approx(2 / 3)
    assert pairwise_accuracy(H_EX, P_EX, "sys").estimate == pytest.approx(2 / 3)  # A>B, A>C right; B>C wrong
    residual_h = H_EX - H_EX.mean(1, keepdims=True)
    residual_p = P_EX - P_EX.mean(1, keepdims=True)
    expected = stats.kendalltau(residual_h.ravel(), residual_p.ravel()).statistic
    assert partial_correlation(H_EX, P_EX).estimate == pytest.approx(expected, abs=1e-12)
    assert roc_auc([0.9, 0.4, 0.4, 0.1], [1, 1, 0, 0]) == pytest.approx(0.875)
    assert np.isnan(roc_auc([0.3, 0.2], [1, 1]))
    intra = intra_system_auc([0.9, 0.1, 0.2, 0.8, 0.5], [1, 0, 1, 0, 1], ["a", "a", "b", "b", "c"])
    assert intra.per_system == {"a": 1.0, "b": 0.0, "c": pytest.approx(float("nan"), nan_ok=True)}
    assert intra.estimate == 0.5 and intra.n_systems_used == 2


def test_inter_metric_correlations(summeval):
    from humaneval.metaeval.levels import inter_metric_correlations

    _, _, _, scores = summeval
    metrics = {k: scores.metrics[k] for k in ("bartscore", "gruen", "sumqe")}
    table = inter_metric_correlations(metrics)
    a, b = metrics["bartscore"].ravel(), metrics["sumqe"].ravel()
    assert table.loc["sumqe", "bartscore"] == pytest.approx(stats.pearsonr(a, b).statistic, abs=1e-12)
    per_doc = inter_metric_correlations(metrics, "pair", "kendall")
    ref = np.mean(
        [stats.kendalltau(metrics["gruen"][:, d], metrics["sumqe"][:, d]).statistic for d in range(100)]
    )
    assert per_doc.loc["gruen", "sumqe"] == pytest.approx(ref, abs=1e-12)
    assert (np.diag(per_doc) == 1).all()
