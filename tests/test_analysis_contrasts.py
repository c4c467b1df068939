"""Contrasts, adjustments and rank groupings from stored estimates (spec §5.4, §5.7; no fit needed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humaneval.analysis.contrasts import (
    adjust_pvalues,
    compact_letters,
    groupings,
    pairwise_contrasts,
    rank_groups,
    tukey_p,
    tukey_quantile,
)
from tests.conftest import TABLE_3_2_LIKERT

# Spec §5.7: Likert coherence, maximal crossed fit (R 4.2.2, ordinal 2022.11-16).
LIKERT_SYSTEMS = ("__REFERENCE__", "abssentrw", "BART", "onmt_pg", "seneca")
LIKERT_BETA = np.array([-0.2453364, 1.3716004, 0.7276307, -1.1740901])
LIKERT_VCOV = np.array(
    [
        [0.041931, 0.017821, 0.019173, 0.015995],
        [0.017821, 0.042635, 0.022750, 0.020337],
        [0.019173, 0.022750, 0.035814, 0.019301],
        [0.015995, 0.020337, 0.019301, 0.050489],
    ]
)
# The §5.7 contrast table: estimate, SE, z, p (Tukey) and p (none); None stands for "<.0001".
LIKERT_TABLE = [
    ("__REFERENCE__", "abssentrw", 0.245, 0.205, 1.198, 0.7525, 0.2309),
    ("__REFERENCE__", "BART", -1.372, 0.206, -6.643, None, None),
    ("__REFERENCE__", "onmt_pg", -0.728, 0.189, -3.845, 0.0011, 0.0001),
    ("__REFERENCE__", "seneca", 1.174, 0.225, 5.225, None, None),
    ("abssentrw", "BART", -1.617, 0.221, -7.310, None, None),
    ("abssentrw", "onmt_pg", -0.973, 0.198, -4.902, None, None),
    ("abssentrw", "seneca", 0.929, 0.246, 3.778, 0.0015, 0.0002),
    ("BART", "onmt_pg", 0.644, 0.182, 3.548, 0.0036, 0.0004),
    ("BART", "seneca", 2.546, 0.229, 11.116, None, None),
    ("onmt_pg", "seneca", 1.902, 0.218, 8.707, None, None),
]
LIKERT_MEANS = pd.Series(
    {"BART": 5.250, "__REFERENCE__": 4.327, "abssentrw": 4.173, "onmt_pg": 4.813, "seneca": 3.523}
)

# Rank coherence (negated ranks), maximal crossed fit computed once with R 4.2.2 / ordinal 2022.11-16
# through humaneval.analysis.rbridge (logLik −2013.435, AIC 4102.87, cond.H 2.4e2, as in spec §5.7).
# Order abssentrw, BART, onmt_pg, seneca.
RANK_BETA = np.array([0.254048, 3.553726, 1.163816, -1.984210])
RANK_VCOV = np.array(
    [
        [0.076180, 0.033323, 0.041043, 0.041262],
        [0.033323, 0.113657, 0.034767, 0.046008],
        [0.041043, 0.034767, 0.081633, 0.048470],
        [0.041262, 0.046008, 0.048470, 0.156335],
    ]
)
RANK_MEANS = pd.Series(
    {"BART": 1.727, "__REFERENCE__": 3.307, "abssentrw": 3.173, "onmt_pg": 2.680, "seneca": 4.113}
)


def test_tukey_p_from_z_matches_emmeans():
    """Checklist #9: studentized range with k = S = 5 means and infinite df."""
    z = np.array([1.198, 3.548, 3.778, 3.845])
    np.testing.assert_allclose(tukey_p(z, 5), [0.7525, 0.0036, 0.0015, 0.0011], atol=1e-4)
    assert tukey_quantile(5, 0.95) == pytest.approx(3.8577, abs=1e-4)


def test_contrasts_from_stored_fit_reproduce_the_spec_table():
    """Checklist #10: eq. 3.24 on the §5.7 β and vcov gives the emmeans table."""
    tukey = pairwise_contrasts(LIKERT_SYSTEMS, LIKERT_BETA, LIKERT_VCOV, adjust="tukey")
    none = pairwise_contrasts(LIKERT_SYSTEMS, LIKERT_BETA, LIKERT_VCOV, adjust="none")
    assert list(zip(tukey["system_a"], tukey["system_b"], strict=True)) == [r[:2] for r in LIKERT_TABLE]
    for row, t, n in zip(LIKERT_TABLE, tukey.itertuples(), none.itertuples(), strict=True):
        _, _, est, se, z, p_tukey, p_none = row
        assert t.estimate == pytest.approx(est, abs=5e-4)
        assert t.se == pytest.approx(se, abs=5e-4)
        assert t.z == pytest.approx(z, abs=5e-3)
        for got, want in ((t.p_adj, p_tukey), (n.p_adj, p_none)):
            if want is None:
                assert got < 1e-4
            else:
                assert got == pytest.approx(want, abs=5e-4 if want >= 1e-3 else 5e-5)
    significant = tukey[tukey["p_adj"] < 0.05]
    assert len(significant) == 9
    assert set(tukey.loc[tukey["p_adj"] >= 0.05, ["system_a", "system_b"]].iloc[0]) == {
        "__REFERENCE__",
        "abssentrw",
    }
    assert tukey.loc[7, "better"] == "BART" and tukey.loc[0, "better"] is None


def test_simultaneous_intervals_use_the_studentized_range_multiplier():
    table = pairwise_contrasts(LIKERT_SYSTEMS, LIKERT_BETA, LIKERT_VCOV, adjust="tukey")
    half = (table["ci_high"] - table["ci_low"]) / 2
    np.testing.assert_allclose(half / table["se"], 2.7278, atol=1e-4)
    bonf = pairwise_contrasts(
        LIKERT_SYSTEMS, LIKERT_BETA, LIKERT_VCOV, adjust="bonferroni", confidence_level=0.95
    )
    np.testing.assert_allclose(
        (bonf["ci_high"] - bonf["estimate"]) / bonf["se"], stats.norm.ppf(1 - 0.025 / 10)
    )


def test_holm_and_bonferroni_against_direct_computation():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(adjust_pvalues(p, "bonferroni"), [0.04, 0.16, 0.12, 0.02])
    # Holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, 0.06 (monotone)
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(adjust_pvalues(p, "none"), p)


def test_likert_rank_groups_of_dissertation_table_3_2():
    contrasts = pairwise_contrasts(LIKERT_SYSTEMS, LIKERT_BETA, LIKERT_VCOV)
    estimates = pd.Series(np.r_[0.0, LIKERT_BETA], index=list(LIKERT_SYSTEMS))
    table = groupings(LIKERT_MEANS, estimates, contrasts).set_index("system")
    assert table["label"].to_dict() == TABLE_3_2_LIKERT
    assert table["letters"].to_dict() == {
        "BART": "a",
        "onmt_pg": "b",
        "__REFERENCE__": "c",
        "abssentrw": "c",
        "seneca": "d",
    }


def test_rank_coherence_groups_of_dissertation_table_3_2():
    contrasts = pairwise_contrasts(LIKERT_SYSTEMS, RANK_BETA, RANK_VCOV)
    np.testing.assert_allclose(RANK_BETA, [0.254047, 3.553698, 1.163803, -1.984228], atol=1e-3)  # spec §5.7
    np.testing.assert_allclose(np.sqrt(np.diag(RANK_VCOV)), [0.276, 0.337, 0.286, 0.395], atol=2e-3)
    estimates_spec = [-0.254, -3.554, -1.164, 1.984, -3.300, -0.910, 2.238, 2.390, 5.538, 3.148]
    np.testing.assert_allclose(contrasts["estimate"], estimates_spec, atol=1e-3)
    p_spec = {0: 0.8891, 2: 0.0004, 5: 0.0084}
    for i, p in p_spec.items():
        assert contrasts.loc[i, "p_adj"] == pytest.approx(p, abs=1e-4)
    assert (contrasts.drop(index=[0, 2, 5])["p_adj"] < 1e-4).all()
    estimates = pd.Series(np.r_[0.0, RANK_BETA], index=list(LIKERT_SYSTEMS))
    labels = groupings(RANK_MEANS, estimates, contrasts).set_index("system")["label"].to_dict()
    assert labels == {
        "BART": "1.73 (1)",
        "onmt_pg": "2.68 (2)",
        "__REFERENCE__": "3.31 (3/4)",
        "abssentrw": "3.17 (3/4)",
        "seneca": "4.11 (5)",
    }


def _contrast_frame(
    pairs_significant: dict[tuple[str, str], bool], estimates: dict[str, float]
) -> pd.DataFrame:
    rows = [
        {
            "system_a": a,
            "system_b": b,
            "estimate": estimates[a] - estimates[b],
            "p_adj": 0.001 if sig else 0.5,
        }
        for (a, b), sig in pairs_significant.items()
    ]
    return pd.DataFrame(rows)


def test_overlapping_groups_give_ranges_and_shared_letters():
    """A ≈ B ≈ C but A > C: ranks 1/2, 1/2/3, 2/3; letters ab pattern."""
    est = {"A": 3.0, "B": 2.0, "C": 1.0, "D": -5.0}
    sig = {
        ("A", "B"): False,
        ("A", "C"): True,
        ("A", "D"): True,
        ("B", "C"): False,
        ("B", "D"): True,
        ("C", "D"): True,
    }
    contrasts = _contrast_frame(sig, est)
    estimates = pd.Series(est)
    assert rank_groups(estimates, contrasts).to_dict() == {"A": "1/2", "B": "1/2/3", "C": "2/3", "D": "4"}
    assert compact_letters(estimates, contrasts).to_dict() == {"A": "a", "B": "ab", "C": "b", "D": "c"}


def test_letters_cover_every_non_significant_pair_even_when_not_interval_consistent():
    est = {"A": 4.0, "B": 3.0, "C": 2.0, "D": 1.0}
    sig = {
        ("A", "B"): True,
        ("A", "C"): True,
        ("A", "D"): False,
        ("B", "C"): False,
        ("B", "D"): True,
        ("C", "D"): True,
    }
    letters = compact_letters(pd.Series(est), _contrast_frame(sig, est))
    for (a, b), s in sig.items():
        shares = bool(set(letters[a]) & set(letters[b]))
        assert shares is not s
