"""Split-half reliability, time-vs-reliability and nested-vs-crossed curves (spec §3)."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

from humaneval.core.ratings import load_ratings
from humaneval.errors import DesignError, InsufficientDataError, OptionError, RatingsError
from humaneval.reliability.curves import (
    nested_crossed_curve,
    plot_nested_crossed,
    plot_time_curve,
    time_buckets,
    time_reliability_curve,
)
from humaneval.reliability.splithalf import split_half_reliability
from humaneval.reliability.timing import load_annotator_times, ratings_annotator_times
from tests.conftest import shared_file

matplotlib.use("Agg")


def block_study(n_blocks: int, seed: int, n_systems: int = 4) -> pd.DataFrame:
    """Blocks of 2 annotators × 2 documents, every annotator scoring every system."""
    rng = np.random.default_rng(seed)
    quality = np.arange(n_systems, dtype=float)
    rows = []
    for b in range(n_blocks):
        for a, d, s in itertools.product(range(2), range(2), range(n_systems)):
            rows.append(
                (f"a{b}_{a}", f"d{b}_{d}", f"s{s}", int(np.clip(round(quality[s] + rng.normal()), 0, 6)))
            )
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "score"])


def test_enumerates_all_splits_of_few_blocks_and_matches_direct_computation():
    frame = block_study(4, seed=1)
    result = split_half_reliability(load_ratings(frame), n_splits=1000, seed=0)
    assert result.enumerated and result.n_splits == 3 and result.n_clusters == 4
    block = frame["annotator"].str.split("_").str[0]
    expected = []
    for half in ({"a0", "a1"}, {"a0", "a2"}, {"a0", "a3"}):
        inside = block.isin(half)
        a = frame[inside].groupby("system")["score"].mean()
        b = frame[~inside].groupby("system")["score"].mean()
        expected.append(np.corrcoef(a, b)[0, 1])
    assert result.shr == pytest.approx(np.mean(expected), abs=1e-12)
    assert result.spearman_brown == pytest.approx(2 * result.shr / (1 + result.shr), abs=1e-15)
    assert result.to_dict()["statistic"].startswith("split-half reliability over independent blocks")


def test_single_block_and_too_few_systems():
    crossed = block_study(1, seed=0)
    with pytest.raises(DesignError, match="annotators_documents"):
        split_half_reliability(load_ratings(crossed))
    alt = split_half_reliability(load_ratings(crossed), split="annotators", n_splits=50, seed=1)
    assert alt.split == "annotators" and "optimistic" in alt.statistic
    with pytest.raises(InsufficientDataError, match="3 systems"):
        split_half_reliability(load_ratings(block_study(4, seed=0, n_systems=2)))
    with pytest.raises(OptionError, match="split="):
        split_half_reliability(load_ratings(block_study(4, seed=0)), split="random")


@pytest.mark.parametrize(
    ("fixture", "low", "high"), [("likert_path", 0.95, 0.965), ("rank_path", 0.975, 0.985)]
)
def test_reference_shr(fixture, low, high, request):
    ratings = load_ratings(request.getfixturevalue(fixture))
    result = split_half_reliability(ratings, n_splits=1000, seed=1)
    assert low <= result.shr <= high
    assert result.n_splits == 1000 and result.n_skipped == 0 and not result.enumerated
    assert result.spearman_brown == pytest.approx(2 * result.shr / (1 + result.shr))
    assert result.sd == pytest.approx(0.032 if fixture == "likert_path" else 0.015, abs=0.004)
    independent = split_half_reliability(ratings, split="annotators_documents", n_splits=100, seed=1)
    assert independent.shr < result.shr  # half the judgements per half


def test_times_loader():
    likert = load_annotator_times(shared_file("steen2021", "times", "likert_coherence_cnn_dm.csv"))
    rank = load_annotator_times(shared_file("steen2021", "times", "rank_coherence_cnn_dm.csv"))
    assert len(likert) == len(rank) == 60
    assert likert.sum() == pytest.approx(47940.5, abs=0.1)
    assert rank.sum() == pytest.approx(40642.3, abs=0.1)
    assert likert.median() / 60 == pytest.approx(10, abs=0.3)
    with pytest.raises(RatingsError, match="time_stamp"):
        load_annotator_times(pd.DataFrame({"annotator": [1], "minutes": [2]}))
    frame = block_study(2, seed=0).assign(seconds=10.0)
    totals = ratings_annotator_times(load_ratings(frame))
    assert totals.to_dict() == {f"a{b}_{a}": 80.0 for b in range(2) for a in range(2)}


def test_times_loader_names_the_bad_line(tmp_path):
    path = tmp_path / "times.csv"
    path.write_text("annotator,position,time_stamp\na,1,3\nb,1,x\n")
    with pytest.raises(RatingsError, match=r"times.csv: line 3, column 'time_stamp': 'x' is not"):
        load_annotator_times(path)
    with pytest.raises(RatingsError, match=r"^row 1, column 'seconds': '-2' is not"):
        load_annotator_times(pd.DataFrame({"annotator": ["a", "b"], "seconds": [1, -2]}))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("likert", [0.913, 0.943, 0.963, 0.974, 0.982, 0.991]),
        ("rank", [0.956, 0.980, 0.989, 0.992, 0.994, 0.997]),
    ],
)
def test_time_curve_buckets(name, expected):
    ratings = load_ratings(shared_file("steen2021", f"{name}_coherence_cnn_dm.csv"))
    times = load_annotator_times(shared_file("steen2021", "times", f"{name}_coherence_cnn_dm.csv"))
    curve = time_reliability_curve(ratings, times, seed=0)
    assert set(curve["k"]) == set(range(2, 20))
    assert curve.groupby("k").size().tolist() == [190, *[500] * 15, 190, 20]  # all combinations if < 500
    buckets = time_buckets(curve).set_index("minutes_from")
    means = buckets.loc[[60, 120, 180, 240, 300, 420], "mean_r"].to_numpy()
    np.testing.assert_allclose(means, expected, atol=0.01)
    several = buckets[buckets["n"] > 1]
    assert (several["ci_low"] < several["mean_r"]).all() and (several["mean_r"] < several["ci_high"]).all()
    assert buckets[buckets["n"] == 1]["ci_low"].isna().all()
    figure = plot_time_curve(curve, label=name)
    assert figure.axes[0].get_xlabel() == "annotator time (minutes)"


@pytest.mark.parametrize(
    ("name", "crossed", "nested"),
    [
        ("likert", [0.822, 0.911, 0.943, 0.958, 0.976], [0.870, 0.937, 0.959, 0.972, 0.985]),
        ("rank", [0.916, 0.957, 0.973, 0.981, 0.989], [0.925, 0.967, 0.979, 0.985, 0.992]),
    ],
)
def test_nested_crossed_curve(name, crossed, nested):
    ratings = load_ratings(shared_file("steen2021", f"{name}_coherence_cnn_dm.csv"))
    curve = nested_crossed_curve(ratings, n_draws=3000, seed=0)
    table = curve.pivot(index="judgements", columns="design", values="r")
    costs = [75, 150, 225, 300, 450]
    np.testing.assert_allclose(table.loc[costs, "crossed"], crossed, atol=0.01)
    np.testing.assert_allclose(table.loc[costs, "nested"], nested, atol=0.01)
    full = curve[(curve["design"] == "crossed") & (curve["k"] == 20)]["r"].item()
    assert full == pytest.approx(1.0)
    assert len(plot_nested_crossed(curve).axes[0].lines) == 2
