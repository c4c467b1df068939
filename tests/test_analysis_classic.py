"""Classic tests (spec §4) against scipy.stats and direct computations."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humaneval.analysis import analyze
from humaneval.analysis.classic import (
    anova_omnibus,
    approximate_randomization,
    classic_test,
    independent_units,
    one_way_anova,
    paired_ttest,
    unit_table,
    wilcoxon_test,
)
from humaneval.core.ratings import load_ratings
from humaneval.core.structure import cluster_labels
from humaneval.errors import AnalysisCaution, OptionError


@pytest.fixture(scope="module")
def likert():
    from tests.conftest import shared_file

    return load_ratings(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))


@pytest.mark.parametrize(("aggregate", "n"), [("none", 300), ("document", 100), ("cluster", 20)])
def test_paired_ttest_equals_scipy_at_each_aggregation(likert, aggregate, n):
    table = paired_ttest(likert, aggregate, adjust="none")
    df = likert.data.assign(cluster=cluster_labels(likert).to_numpy())
    keys = {"none": ["annotator", "document"], "document": ["document"], "cluster": ["cluster"]}[aggregate]
    wide = df.groupby([*keys, "system"])["score"].mean().unstack()
    assert (table["n"] == n).all() and (table["n_dropped"] == 0).all()
    for row in table.itertuples():
        ref = stats.ttest_rel(wide[row.system_a], wide[row.system_b])
        assert row.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert row.p_unadj == pytest.approx(ref.pvalue, rel=1e-8)
        assert row.df == n - 1
        assert row.estimate == pytest.approx((wide[row.system_a] - wide[row.system_b]).mean())
    assert independent_units(likert, aggregate) is (aggregate == "cluster")
    assert not table.attrs  # no side data: the result says all in its columns


def test_wilcoxon_equals_scipy(likert):
    table = wilcoxon_test(likert, "document", adjust="bonferroni")
    wide = likert.data.groupby(["document", "system"])["score"].mean().unstack()
    for row in table.itertuples():
        ref = stats.wilcoxon(wide[row.system_a] - wide[row.system_b])
        assert row.statistic == pytest.approx(ref.statistic)
        assert row.p_unadj == pytest.approx(ref.pvalue, rel=1e-10)
        assert row.p_adj == pytest.approx(min(1.0, 10 * ref.pvalue), rel=1e-10)


def test_anova_equals_scipy_with_tukey_hsd_follow_up(likert):
    table = one_way_anova(likert, "cluster")
    wide = unit_table(likert, "cluster")
    groups = [wide[s].to_numpy() for s in wide.columns]
    ref = stats.f_oneway(*groups)
    omnibus = anova_omnibus(likert, "cluster")
    assert omnibus["F"] == pytest.approx(ref.statistic)
    assert omnibus["p"] == pytest.approx(ref.pvalue)
    assert (omnibus["df1"], omnibus["df2"]) == (4, 95)
    with pytest.warns(AnalysisCaution, match="ignores the pairing"):
        analysis = analyze(likert, "anova", aggregate="cluster")
    assert analysis.extra["anova"] == omnibus and analysis.extra["not_recommended"] is True
    assert analysis.cautions == ("one-way ANOVA ignores the pairing and grouping factors (not recommended)",)
    hsd = stats.tukey_hsd(*groups)
    ci = hsd.confidence_interval(0.95)
    for k, (i, j) in enumerate(itertools.combinations(range(5), 2)):
        assert table.loc[k, "p_adj"] == pytest.approx(hsd.pvalue[i, j], abs=1e-6)
        assert table.loc[k, "ci_low"] == pytest.approx(ci.low[i, j], abs=1e-6)


def test_ranks_are_oriented_so_only_the_sign_flips():
    rows = [
        {"annotator": a, "document": d, "system": s, "rank": r}
        for a in "xyz"
        for d in "pqrs"
        for s, r in zip("ABC", np.random.default_rng(hash(a + d) % 2**32).permutation(3), strict=True)
    ]
    ranks = load_ratings(pd.DataFrame(rows))
    table = paired_ttest(ranks, adjust="none")
    raw = pd.DataFrame(rows).pivot_table(index=["annotator", "document"], columns="system", values="rank")
    ref = stats.ttest_rel(raw["A"], raw["B"])
    first = table.iloc[0]
    assert (first.system_a, first.system_b) == ("A", "B")
    assert first.statistic == pytest.approx(-ref.statistic)
    assert first.p_unadj == pytest.approx(ref.pvalue)


def _paired(delta: list[float]) -> pd.DataFrame:
    rows = []
    for i, d in enumerate(delta):
        rows.append({"annotator": f"a{i}", "document": f"d{i}", "system": "X", "score": 4 + d})
        rows.append({"annotator": f"a{i}", "document": f"d{i}", "system": "Y", "score": 4})
    return pd.DataFrame(rows)


def test_art_matches_exact_enumeration_and_never_reaches_zero():
    delta = [1, 2, -1, 3, 1]
    exact = np.mean([abs(np.dot(s, delta)) >= abs(sum(delta)) for s in itertools.product((1, -1), repeat=5)])
    assert exact == 0.25  # 8 of the 32 sign patterns reach |ΣΔ| ≥ 6
    table = approximate_randomization(
        load_ratings(_paired(delta)), n_permutations=40_000, seed=3, adjust="none"
    )
    row = table.iloc[0]
    assert row.statistic == sum(delta)
    assert row.p_unadj == pytest.approx(exact, abs=0.006)  # 3 Monte-Carlo SEs
    strong = approximate_randomization(load_ratings(_paired([1.0] * 20)), n_permutations=999, seed=1)
    assert strong.loc[0, "p_unadj"] == pytest.approx(1 / 1000)  # (0 + 1)/(R + 1)


def test_art_is_seeded_and_counts_ties():
    data = load_ratings(_paired([1, -1, 1, -1, 2, -2]))  # T = 0: every round ties
    table = approximate_randomization(data, n_permutations=500, seed=7)
    assert table.loc[0, "p_unadj"] == 1.0
    other = load_ratings(_paired([1, 2, 0, 1, -1, 1, 2]))
    p1 = approximate_randomization(other, n_permutations=300, seed=11).loc[0, "p_unadj"]
    p2 = approximate_randomization(other, n_permutations=300, seed=11).loc[0, "p_unadj"]
    assert p1 == p2


def test_degenerate_t_tests_follow_the_spec():
    zero = paired_ttest(load_ratings(_paired([0, 0, 0])), adjust="none")
    assert zero.loc[0, "p_unadj"] == 1.0
    with pytest.warns(UserWarning, match="every difference"):
        const = paired_ttest(load_ratings(_paired([1, 1, 1])), adjust="none")
    assert const.loc[0, "p_unadj"] == 0.0


def test_missing_pairs_are_dropped_and_counted():
    frame = _paired([1, 2, 0, 1])
    frame = frame.drop(index=[1])  # the Y side of the first pair
    table = paired_ttest(load_ratings(frame), adjust="none")
    assert table.loc[0, "n"] == 3 and table.loc[0, "n_dropped"] == 1


def test_tukey_is_refused_for_paired_tests(likert):
    with pytest.raises(OptionError, match="holm"):
        classic_test(likert, "ttest", adjust="tukey")


def test_analyze_states_its_cautions_for_api_users(likert):
    message = "ttest treats the document-level units as independent, but they share annotators or documents"
    with pytest.warns(AnalysisCaution, match=message):
        result = analyze(likert, "ttest", aggregate="document")
    assert not result.independent and len(result.cautions) == 1
    assert result.cautions[0].startswith(message)
    assert result.to_dict()["cautions"] == list(result.cautions)
    text = result.summary()
    assert text.splitlines()[0] == "ttest test, aggregate=document"
    assert "contrasts (adjust = holm; positive = first system better)" in text
    assert repr(result).startswith("<Analysis ttest: 5 systems, 10 contrasts (")


@pytest.mark.parametrize("test", [paired_ttest, wilcoxon_test])
def test_pairwise_tests_refuse_tukey_called_directly(test):
    # only classic_test refused it; called directly they crashed comparing None with an int
    from humaneval.io.datasets import wine_ratings

    with pytest.raises(OptionError, match="Tukey adjustment applies to the CLMM and the ANOVA"):
        test(wine_ratings(), adjust="tukey")
