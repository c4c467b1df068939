"""Krippendorff's α: worked examples (spec §2.8), the PyPI ``krippendorff`` package, fast vs explicit
paths, input forms, edge cases (§2.7) and the reference data."""

from __future__ import annotations

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from humaneval.core.ratings import load_ratings
from humaneval.errors import InsufficientDataError, OptionError, RatingsError, ReliabilityWarning
from humaneval.reliability import from_counts, from_long, krippendorff_alpha
from humaneval.reliability.diagnostics import alpha_diagnostics

LEVELS = ("nominal", "ordinal", "interval", "ratio")
ROWS = "annotators_x_units"


def parse(rows: list[str], sep: str | None = None) -> np.ndarray:
    """Annotator rows of a worked example; '.' is missing."""
    cells = [r.split(sep) if sep is not None else (r.split() if " " in r else list(r)) for r in rows]
    return np.array([[np.nan if c == "." else float(c) for c in row] for row in cells])


BINARY = parse(["0100000010", "1110010000"])
KRIPP_2011 = parse(
    [
        "1 2 3 3 2 1 4 1 2 . . .",
        "1 2 3 3 2 2 4 1 2 5 . .",
        ". 3 3 3 2 3 4 2 2 5 1 3",
        "1 2 3 3 2 4 4 1 2 5 1 .",
    ]
)
TEXTBOOK = parse(
    [
        ". . . . . 3 4 1 2 1 1 3 3 . 3",
        "1 . 2 1 3 3 4 3 . . . . . . .",
        ". . 2 1 3 4 4 . 2 1 1 3 3 . 4",
    ]
)
HAYES = parse(
    [
        "112.001122.01311211000201001111223222221",
        "1130000.21102311121000302102111122222221",
        "203000222100221123001.30.1012202.2232.21",
        ".13....0.10022...31.103021122..122...12.",
        "2..0001.2....3112..0.0..2.0..20.2.2222.1",
    ]
)


def naive_alpha(matrix: np.ndarray, level: str) -> float:
    """Definition of §2.3 written out: ordered pairs per unit, pairable marginals, eq. 3.12."""
    units = [col[~np.isnan(col)] for col in matrix.T]
    units = [u for u in units if len(u) >= 2]
    pooled = np.concatenate(units)
    n = len(pooled)
    values, counts = np.unique(pooled, return_counts=True)
    freq = dict(zip(values.tolist(), counts.tolist(), strict=True))

    def delta(c: float, k: float) -> float:
        if level == "nominal":
            return float(c != k)
        if level == "interval":
            return (c - k) ** 2
        if level == "ratio":
            return 0.0 if c + k == 0 else ((c - k) / (c + k)) ** 2
        lo, hi = min(c, k), max(c, k)
        between = sum(f for v, f in freq.items() if lo <= v <= hi)
        return (between - (freq[c] + freq[k]) / 2) ** 2

    d_o = (
        sum(
            sum(delta(u[i], u[j]) for i, j in itertools.permutations(range(len(u)), 2)) / (len(u) - 1)
            for u in units
        )
        / n
    )
    d_e = sum(delta(c, k) * freq[c] * (freq[k] - (c == k)) for c in freq for k in freq) / (n * (n - 1))
    return 1 - d_o / d_e


@pytest.mark.parametrize(
    ("matrix", "expected"),
    [
        (BINARY, {"nominal": 0.095}),
        (KRIPP_2011, {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}),
        (TEXTBOOK, {"nominal": 0.691, "interval": 0.811}),
    ],
)
@pytest.mark.parametrize("method", ["fast", "coincidence"])
def test_worked_examples(matrix, expected, method):
    for level, value in expected.items():
        result = krippendorff_alpha(matrix, level, orient=ROWS, method=method)
        assert round(result.alpha, 3) == value
        assert result.alpha == pytest.approx(naive_alpha(matrix, level), abs=1e-12)


def test_hayes_krippendorff_example():
    assert round(krippendorff_alpha(HAYES, "nominal", orient=ROWS).alpha, 4) == 0.4765
    assert round(krippendorff_alpha(HAYES, "ordinal", orient=ROWS).alpha, 4) == 0.7598
    assert round(krippendorff_alpha(HAYES, "interval", orient=ROWS).alpha, 4) == 0.7574
    result = krippendorff_alpha(HAYES, "ordinal", orient=ROWS)
    assert (result.n_pairable_units, result.n_pairable_values) == (40, 159)
    assert result.coincidence is not None
    assert result.coincidence.to_numpy().sum() == pytest.approx(159)
    np.testing.assert_allclose(result.coincidence.sum(axis=1), result.value_counts)
    assert result.value_counts.to_dict() == {0: 42, 1: 48, 2: 56, 3: 13}


def _random_matrix(rng: np.random.Generator, n_values: int, continuous: bool) -> np.ndarray:
    coders, units = rng.integers(2, 7), rng.integers(5, 60)
    if continuous:
        data = np.round(rng.gamma(2.0, 3.0, (coders, units)), 3)
    else:
        data = rng.integers(1, n_values + 1, (coders, units)).astype(float)
    data[rng.random(data.shape) < 0.3] = np.nan
    return data


@pytest.mark.parametrize("seed", range(12))
def test_equals_krippendorff_package(seed):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    data = _random_matrix(rng, int(rng.integers(2, 9)), continuous=False)
    domain = sorted(np.unique(data[~np.isnan(data)]).tolist())
    for level in LEVELS:
        ours = krippendorff_alpha(data, level, orient=ROWS).alpha
        theirs = krippendorff.alpha(data, level_of_measurement=level, value_domain=domain)
        assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_fast_paths_match_explicit_matrix(seed):
    rng = np.random.default_rng(100 + seed)
    data = _random_matrix(rng, 0, continuous=True)
    for level in LEVELS:
        fast = krippendorff_alpha(data, level, orient=ROWS, method="fast")
        explicit = krippendorff_alpha(data, level, orient=ROWS, method="coincidence")
        assert fast.alpha == pytest.approx(explicit.alpha, abs=1e-12)
        assert fast.D_e == pytest.approx(explicit.D_e, rel=1e-12)
    assert krippendorff_alpha(data, "ratio", orient=ROWS).alpha == pytest.approx(
        naive_alpha(data, "ratio"), abs=1e-12
    )


def test_ordinal_is_interval_on_midranks_and_ignores_unused_domain():
    ordinal = krippendorff_alpha(KRIPP_2011, "ordinal", orient=ROWS).alpha
    pairable = KRIPP_2011[:, (~np.isnan(KRIPP_2011)).sum(axis=0) >= 2]
    ranks = pd.Series(pairable.ravel()).rank(method="average").to_numpy().reshape(pairable.shape)
    assert krippendorff_alpha(ranks, "interval", orient=ROWS).alpha == pytest.approx(ordinal, abs=1e-12)
    domain = [0, 1, 2, 3, 4, 5, 6, 7]
    with_domain = krippendorff_alpha(KRIPP_2011, "ordinal", orient=ROWS, value_domain=domain)
    assert with_domain.alpha == pytest.approx(ordinal, abs=1e-15)


def test_input_forms_agree():
    # units x annotators orientation, long table, value counts and string labels with a domain
    alpha = krippendorff_alpha(KRIPP_2011, "nominal", orient=ROWS).alpha
    assert krippendorff_alpha(KRIPP_2011.T, "nominal", orient="units_x_annotators").alpha == alpha
    coder, unit = np.nonzero(~np.isnan(KRIPP_2011))
    long = pd.DataFrame({"coder": coder, "item": unit, "v": KRIPP_2011[coder, unit]})
    assert (
        krippendorff_alpha(from_long(long, unit=["item"], coder="coder", value="v"), "nominal").alpha == alpha
    )
    counts = pd.crosstab(long["item"], long["v"])
    assert krippendorff_alpha(from_counts(counts), "nominal").alpha == pytest.approx(alpha, abs=1e-15)
    labels = long.assign(v=long["v"].map({1: "a", 2: "b", 3: "c", 4: "d", 5: "e"}))
    label_data = from_long(labels, unit=["item"], coder="coder", value="v", value_domain=list("abcde"))
    ordinal = krippendorff_alpha(KRIPP_2011, "ordinal", orient=ROWS).alpha
    assert krippendorff_alpha(label_data, "ordinal").alpha == pytest.approx(ordinal, abs=1e-15)


def test_custom_distance():
    interval = krippendorff_alpha(KRIPP_2011, "interval", orient=ROWS).alpha
    as_callable = krippendorff_alpha(KRIPP_2011, lambda v: (v[:, None] - v[None, :]) ** 2, orient=ROWS)
    assert as_callable.level_of_measurement == "custom"
    assert as_callable.alpha == pytest.approx(interval, abs=1e-12)
    domain = [1, 2, 3, 4, 5]
    matrix = (np.subtract.outer(domain, domain) ** 2).astype(float)
    assert krippendorff_alpha(KRIPP_2011, matrix, orient=ROWS, value_domain=domain).alpha == pytest.approx(
        interval, abs=1e-12
    )
    with pytest.raises(RatingsError, match="symmetric"):
        krippendorff_alpha(KRIPP_2011, lambda v: np.triu(np.ones((len(v), len(v))), 1), orient=ROWS)


def test_edge_cases():
    with pytest.raises(InsufficientDataError, match="two ratings"):
        krippendorff_alpha(np.array([[1, np.nan], [np.nan, 2]]), orient=ROWS)
    with pytest.raises(InsufficientDataError, match="one annotator"):
        krippendorff_alpha(np.array([[1.0, 2.0, 3.0]]), orient=ROWS)
    with pytest.raises(OptionError, match="orient"):
        krippendorff_alpha(KRIPP_2011)
    with pytest.raises(RatingsError, match="ratio"):
        krippendorff_alpha(np.array([[-1.0, 2.0], [1.0, 2.0]]), "ratio", orient=ROWS)
    with pytest.raises(RatingsError, match="value_domain"):
        krippendorff_alpha(np.array([["a", "b"], ["a", "c"]]), "ordinal", orient=ROWS)
    with pytest.raises(RatingsError, match="not in value_domain"):
        krippendorff_alpha(KRIPP_2011, orient=ROWS, value_domain=[1, 2, 3])
    single = krippendorff_alpha(np.array([[1.0, 2.0, 3.0], [1.0, 2.0, np.nan]]), "interval", orient=ROWS)
    assert single.alpha == 1.0 and single.n_units_dropped == 1 and single.n_pairable_units == 2
    with pytest.warns(ReliabilityWarning, match="undefined"):
        constant = krippendorff_alpha(np.ones((3, 4)), orient=ROWS)
    assert np.isnan(constant.alpha) and constant.degenerate
    with pytest.raises(InsufficientDataError):
        krippendorff_alpha(np.ones((3, 4)), orient=ROWS, strict=True)
    # near-constant data with one disagreement: α = 0 with D_o = D_e = 0.1 (n = 20), exposed
    near = np.ones((2, 10))
    near[1, 0] = 2
    result = krippendorff_alpha(near, "nominal", orient=ROWS)
    assert (result.alpha, result.D_o, result.D_e) == pytest.approx((0.0, 0.1, 0.1), abs=1e-15)
    # systematic disagreement gives a negative α, never clipped: (1,2),(2,1) → α = 1 − 1/(2/3) = −0.5
    assert krippendorff_alpha(np.array([[1.0, 2.0], [2.0, 1.0]]), "nominal", orient=ROWS).alpha == -0.5


def test_duplicate_rating_of_a_unit_is_an_error():
    frame = pd.DataFrame(
        {"annotator": [1, 1, 2], "document": ["d", "d", "d"], "system": ["a", "b", "a"], "score": [1, 2, 3]}
    )
    with pytest.raises(RatingsError, match="same unit twice"):
        krippendorff_alpha(load_ratings(frame), unit=["document"])


def test_diagnostics_partition_observed_disagreement():
    diag = alpha_diagnostics(KRIPP_2011, "interval", orient=ROWS)
    assert diag.units["disagreement"].sum() == pytest.approx(diag.D_o, rel=1e-12)
    assert diag.coders["disagreement"].sum() == pytest.approx(diag.D_o, rel=1e-12)
    without_first = KRIPP_2011[1:]
    assert diag.coders["alpha_without"].iloc[0] == pytest.approx(
        krippendorff_alpha(without_first, "interval", orient=ROWS).alpha, abs=1e-12
    )
    # unit 6 (values 1,2,3,4) carries the largest disagreement
    assert diag.units["disagreement"].idxmax() == 5
    with (
        pytest.warns(ReliabilityWarning, match="all pairable values are identical"),  # as krippendorff_alpha
        pytest.warns(ReliabilityWarning, match="without one coder is undefined"),
    ):
        constant = alpha_diagnostics(np.ones((3, 4)), orient=ROWS)
    assert np.isnan(constant.alpha) and constant.D_e == 0 and constant.coders["alpha_without"].isna().all()


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("likert_path", {"nominal": 0.0470, "ordinal": 0.2211, "interval": 0.2236}),
        ("rank_path", {"nominal": 0.1914, "ordinal": 0.4344, "interval": 0.4344}),
    ],
)
def test_reference_data(fixture, expected, request):
    ratings = load_ratings(request.getfixturevalue(fixture))
    for level, value in expected.items():
        result = krippendorff_alpha(ratings, level)
        assert result.alpha == pytest.approx(value, abs=5e-4)
        assert (result.n_pairable_values, result.n_pairable_units, result.n_units_dropped) == (1500, 500, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert krippendorff_alpha(ratings).to_dict()["n_coders"] == 60


def test_custom_distance_over_many_values_needs_allow_large():
    data = np.arange(2 * 2600, dtype=float).reshape(2, 2600)
    with pytest.raises(RatingsError, match="allow_large"):
        krippendorff_alpha(data, lambda v: np.abs(np.subtract.outer(v, v)), orient=ROWS)


def test_value_counts_array_and_attention_checks():
    counts = np.array([[2, 0, 0], [1, 1, 0], [0, 1, 2], [0, 0, 1]])
    by_counts = krippendorff_alpha(from_counts(counts, value_domain=[1, 2, 3]), "interval")
    matrix = np.array([[1, 1, 2, 3], [1, 2, 3, np.nan], [np.nan, np.nan, 3, np.nan]])
    assert by_counts.alpha == pytest.approx(
        krippendorff_alpha(matrix, "interval", orient=ROWS).alpha, abs=1e-15
    )
    assert by_counts.n_units_dropped == 1 and by_counts.n_coders is None
    frame = pd.DataFrame(
        {
            "annotator": ["a", "b", "a", "b", "a", "b"],
            "document": ["d1", "d1", "d2", "d2", "d3", "d3"],
            "system": ["s"] * 6,
            "score": [1, 1, 5, 5, 1, 7],
            "is_check": [False, False, False, False, True, True],
        }
    )
    assert krippendorff_alpha(load_ratings(frame), "interval").alpha == 1.0


def exact_alpha(matrix: np.ndarray, level: str) -> Fraction:
    """α of the definition in rational arithmetic (nominal, ordinal, interval on exact floats)."""
    units = [[Fraction(v) for v in col[~np.isnan(col)]] for col in matrix.T]
    units = [u for u in units if len(u) >= 2]
    pooled = [v for u in units for v in u]
    n = len(pooled)
    freq = {v: pooled.count(v) for v in sorted(set(pooled))}

    def delta(c: Fraction, k: Fraction) -> Fraction:
        if level == "nominal":
            return Fraction(int(c != k))
        if level == "interval":
            return (c - k) ** 2
        lo, hi = min(c, k), max(c, k)
        between = sum(f for v, f in freq.items() if lo <= v <= hi)
        return (between - Fraction(freq[c] + freq[k], 2)) ** 2

    d_o = sum(
        sum(delta(u[i], u[j]) for i, j in itertools.permutations(range(len(u)), 2)) / (len(u) - 1)
        for u in units
    )
    d_e = sum(delta(c, k) * freq[c] * (freq[k] - (c == k)) for c in freq for k in freq)
    return 1 - d_o * (n - 1) / d_e


def _whole_matrix(rng: np.random.Generator) -> np.ndarray:
    """Coders × units of whole numbers with gaps, negative values and units left with one value."""
    coders, units = int(rng.integers(2, 9)), int(rng.integers(3, 80))
    domain = np.sort(rng.choice(np.arange(-3, 12), size=int(rng.integers(2, 8)), replace=False))
    data = rng.choice(domain, (coders, units)).astype(float)
    data[rng.random(data.shape) < rng.uniform(0, 0.6)] = np.nan
    data[:, 0] = [domain[0], domain[-1], *([np.nan] * (coders - 2))]  # at least one pairable unit
    return data


@pytest.mark.parametrize("seed", range(20))
def test_profile_path_is_exact_and_matches_the_old_paths(seed):
    """``method="auto"`` counts unit profiles (issue 25): α correctly rounded from the rational
    definition, and every field as the linear-memory and explicit-matrix paths give it."""
    rng = np.random.default_rng(500 + seed)
    data = _whole_matrix(rng)
    for level in LEVELS:
        if level == "ratio" and (data[~np.isnan(data)] < 0).any():
            continue  # ratio α rejects negative values (test_edge_cases)
        auto = krippendorff_alpha(data, level, orient=ROWS)
        fast = krippendorff_alpha(data, level, orient=ROWS, method="fast")
        explicit = krippendorff_alpha(data, level, orient=ROWS, method="coincidence")
        as_long = krippendorff_alpha(from_long(_long(data), unit=["item"], coder="coder", value="v"), level)
        if level != "ratio":
            assert auto.alpha == float(exact_alpha(data, level))
        for other in (fast, explicit, as_long):
            assert other.alpha == pytest.approx(auto.alpha, abs=1e-12)
            assert (other.D_o, other.D_e) == pytest.approx((auto.D_o, auto.D_e), rel=1e-12)
            assert (other.n_pairable_values, other.n_pairable_units, other.n_units_dropped) == (
                auto.n_pairable_values,
                auto.n_pairable_units,
                auto.n_units_dropped,
            )
            assert other.n_coders == auto.n_coders
            pd.testing.assert_series_equal(other.value_counts, auto.value_counts)
            pd.testing.assert_frame_equal(other.coincidence, auto.coincidence, rtol=1e-12)
    flipped = pd.DataFrame(data.T).astype(float)
    assert krippendorff_alpha(flipped, "ordinal", orient="units_x_annotators").alpha == float(
        exact_alpha(data, "ordinal")
    )


def _long(matrix: np.ndarray) -> pd.DataFrame:
    coder, unit = np.nonzero(~np.isnan(matrix))
    return pd.DataFrame({"coder": coder, "item": unit, "v": matrix[coder, unit]})


@pytest.mark.parametrize("seed", range(4))
def test_equals_krippendorff_and_evalica_to_1e_12(seed):
    """The two libraries users compare with, on 2,000 units × 5 coders of Likert data."""
    krippendorff = pytest.importorskip("krippendorff")
    evalica = pytest.importorskip("evalica")
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 8, (5, 2000)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    for level in ("nominal", "ordinal", "interval"):
        ours = krippendorff_alpha(data, level, orient=ROWS).alpha
        assert ours == float(exact_alpha(data, level))
        assert ours == pytest.approx(krippendorff.alpha(data, level_of_measurement=level), abs=1e-12)
        assert ours == pytest.approx(evalica.alpha(pd.DataFrame(data), distance=level).alpha, abs=1e-12)


def test_profile_path_on_the_reference_data(likert_path, rank_path):
    """Ratings tables (the long path) agree with the old linear-memory path to 1e-12."""
    for path in (likert_path, rank_path):
        ratings = load_ratings(path)
        for level in LEVELS:
            auto = krippendorff_alpha(ratings, level)
            fast = krippendorff_alpha(ratings, level, method="fast")
            assert auto.alpha == pytest.approx(fast.alpha, abs=1e-12)
            assert auto.D_e == pytest.approx(fast.D_e, rel=1e-12)
