"""Bias matrices (spec §2.5, §6.2), confounder probes (§2.6, §6.2) and Bhandari binning (§4.1)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from scipy import stats

from humaneval.errors import OptionError
from humaneval.metaeval import align, pairwise_accuracy, read_scores
from humaneval.metaeval.bias import bias_matrix, plot_bias_matrix
from humaneval.metaeval.binned import assign_bins, binned_agreement, normalise_scores
from humaneval.metaeval.probes import arch_probe, confounder_table, upper_bound_probe, with_noise
from tests.conftest import shared_file

ORDER = [
    "Pegasus", "BART", "Pegasus (dynamic mix)", "T5", "LEAD-3", "GPT-2 (zero shot)", "RNES",
    "Unified-ext-abs", "ROUGESal", "Closed book decoder", "PG", "Multi-task (Ent + QG)", "BanditSum",
    "neusum", "Bottom-Up", "abssentrw", "Improve-abs",
]  # fmt: skip


@pytest.fixture(scope="module")
def scores():
    root = shared_file("summeval-coherence-scores")
    names = ("bartscore", "gruen", "sumqe")
    return align(read_scores(root / "human.csv"), {n: read_scores(root / f"{n}.csv") for n in names})


def test_bias_matrix_worked_example():
    H = np.array([[5, 4], [3, 5], [1, 2]], dtype=float)
    P = np.array([[0.9, 0.5], [0.4, 0.6], [0.6, 0.5]])
    bm = bias_matrix(H, P, ["A", "B", "C"])
    assert bm.systems == ["A", "B", "C"]
    assert bm.tau[0, 1] == 1 and bm.count[0, 1] == 1
    assert bm.tau[1, 0] == 1 and bm.count[1, 0] == 1
    assert bm.tau[0, 2] == 0 and bm.count[0, 2] == 2
    assert bm.tau[1, 2] == 0 and bm.count[1, 2] == 2
    assert np.isnan(bm.tau[2, 0]) and np.isnan(bm.tau[2, 1]) and bm.count[2, :2].sum() == 0
    assert np.isnan(np.diag(bm.tau)).all() and bm.accuracy() == pytest.approx(4 / 6)


def test_bias_matrix_for_bartscore(scores):
    bm = bias_matrix(scores.human, scores.metrics["bartscore"], scores.systems)
    assert bm.systems == ORDER
    np.testing.assert_allclose(bm.human_means[:4], [4.65, 4.63, 4.57, 4.53], atol=0.005)
    assert bm.count.sum() == 10_174
    assert np.triu(bm.count).sum() == 8_093 and np.tril(bm.count).sum() == 2_081
    empty = {
        (bm.systems[i], bm.systems[j]) for i, j in zip(*np.nonzero(bm.count == 0), strict=True) if i != j
    }
    assert empty == {("abssentrw", "BART"), ("abssentrw", "T5"), ("Improve-abs", "T5")}
    assert bm.accuracy() == pytest.approx(
        pairwise_accuracy(scores.human, scores.metrics["bartscore"]).estimate
    )
    assert bm.accuracy() == pytest.approx(0.7488, abs=1e-4)
    b = bm.systems.index("BART")
    assert np.nanmean(bm.tau[b, b + 1 :]) == pytest.approx(0.90, abs=0.01)
    assert np.nanmean(bm.tau[b + 1 :, b]) == pytest.approx(-0.86, abs=0.01)
    # An independent count of one cell: BART (row) over LEAD-3 on same-document pairs.
    s, t = scores.systems.index("BART"), scores.systems.index("LEAD-3")
    H, P = scores.human, scores.metrics["bartscore"]
    won = H[s] > H[t]
    assert bm.count[b, ORDER.index("LEAD-3")] == won.sum()
    assert bm.tau[b, ORDER.index("LEAD-3")] == pytest.approx(2 * (P[s, won] > P[t, won]).mean() - 1)


def test_cross_document_bias_matrix_counts_all_document_pairs():
    rng = np.random.default_rng(0)
    H, P = rng.integers(1, 4, (3, 4)).astype(float), rng.normal(size=(3, 4))
    bm = bias_matrix(H, P, ["a", "b", "c"], pairs="cross_document")
    i, j = bm.systems.index("a"), bm.systems.index("b")
    gold = H[0][:, None] > H[1][None, :]
    assert bm.count[i, j] == gold.sum()
    assert bm.tau[i, j] == pytest.approx(2 * (P[0][:, None] > P[1][None, :])[gold].mean() - 1)


def test_bias_plot_structure(scores):
    matrices = {k: bias_matrix(scores.human, v, scores.systems) for k, v in scores.metrics.items()}
    fig = plot_bias_matrix(matrices)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.collections and ax.get_title()]
    assert len(panels) == 3
    scatter = panels[0].collections[0]
    assert scatter.get_cmap().name == "PuOr" and scatter.get_clim() == (-1, 1)
    bm = matrices["bartscore"]
    sizes = scatter.get_sizes()
    assert len(sizes) == (bm.count > 0).sum()
    assert sizes.max() == pytest.approx(400.0)
    assert sizes.min() == pytest.approx(400.0 * bm.count[bm.count > 0].min() / bm.count.max())


def test_confounder_probes_reproduce_section_6_2(scores):
    H = scores.human
    probes = {"arch": arch_probe(scores.systems, H.shape[1]), "ub": upper_bound_probe(H)}
    table = confounder_table(H, probes, runs=100, seed=0)
    np.testing.assert_allclose(
        table["arch"].to_numpy()[[0, 1, 2, 4]], [0.6421, 0.4215, 0.4433, 0.4031], atol=1e-4
    )
    np.testing.assert_allclose(table["ub"].to_numpy()[[0, 1, 2, 4]], [1.0, 0.4731, 0.5095, 0.7955], atol=1e-4)
    assert np.isnan(table.loc["tau_intra", "arch"]) and np.isnan(table.loc["tau_intra", "ub"])
    tolerance = np.array([0.05, 0.02, 0.02, 0.02, 0.02])  # §6.2: ±0.05 for τ_sys, ±0.02 otherwise
    assert (np.abs(table["arch (r)"] - [0.43, 0.27, 0.30, 0.00, 0.67]) <= tolerance).all()
    assert (np.abs(table["ub (r)"] - [1.00, 0.46, 0.51, 0.00, 0.80]) <= tolerance).all()


def test_noise_breaks_all_ties():
    rng = np.random.default_rng(1)
    P = np.repeat([[0.0], [1.0], [5.0]], 400, axis=1)
    noisy = with_noise(P, rng)
    assert len(np.unique(noisy)) == P.size
    assert np.abs(noisy - P).max() <= 1e-10
    with pytest.warns(UserWarning, match="vanishes"):
        big = with_noise(np.array([[1e9, 1e9, 2e9]]), rng)
    assert len(np.unique(big)) == 3


def test_binned_agreement_against_loop():
    rng = np.random.default_rng(3)
    base = rng.normal(size=(12, 8))
    scores = {
        "m1": base + rng.normal(scale=0.3, size=base.shape),
        "m2": base + rng.normal(scale=0.3, size=base.shape),
    }
    table = binned_agreement(scores, n_min=3)
    norm = {k: normalise_scores(v) for k, v in scores.items()}
    mu = (norm["m1"] + norm["m2"]) / 2
    bins = assign_bins(mu)
    for d in range(8):  # top of each column's range is in the top bin
        assert bins[np.argmax(mu[:, d]), d] == 2 and bins[np.argmin(mu[:, d]), d] == 0
    row = table.set_index(["setting", "bins"]).loc[("separate", "M")]
    taus = []
    for d in range(8):
        member = bins[:, d] == 1
        if member.sum() >= 3:
            taus.append(stats.kendalltau(scores["m1"][member, d], scores["m2"][member, d]).statistic)
    assert row["tau"] == pytest.approx(np.mean(taus)) and row["n_documents"] == len(taus)
    cumulative = table.set_index(["setting", "bins"])
    assert cumulative.loc[("cumulative", "T"), "tau"] == cumulative.loc[("separate", "T"), "tau"]
    filtered = binned_agreement(scores, n_min=3, significant_only=True).set_index(["setting", "bins"])
    assert filtered.loc[("cumulative", "L+M+T"), "tau_unfiltered"] == pytest.approx(
        cumulative.loc[("cumulative", "L+M+T"), "tau"]
    )
    assert filtered.loc[("cumulative", "L+M+T"), "n_kept"] <= 8


def test_capitalisation_probe_counts_uppercase_by_key():
    import pandas as pd

    from humaneval.metaeval.probes import capitalisation_probe

    texts = pd.Series(
        ["The US and UK.", "no caps", "ABC", None],
        index=pd.MultiIndex.from_tuples([("d1", "A"), ("d1", "B"), ("d2", "A"), ("d2", "B")]),
    )
    probe = capitalisation_probe(texts, ["A", "B"], ["d1", "d2"])
    np.testing.assert_array_equal(probe[:, 0], [5, 0])
    assert probe[0, 1] == 3 and np.isnan(probe[1, 1])


def test_plot_bias_matrix_refuses_an_empty_mapping():
    # was a ZeroDivisionError from the grid layout
    with pytest.raises(OptionError, match="no bias matrix"):
        plot_bias_matrix({})
