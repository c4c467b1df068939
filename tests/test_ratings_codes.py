"""The id columns of a validated table are categoricals coded once at load (issue 34, goals 8 and 1).

Every stage that reads the codes must give what it gives on plain string ids: the CLMM coding, the
design description, the comparative judgements and the fits on them are compared with the same
table whose id columns are ordinary strings (the general path), on the shared Steen & Markert
data and a simulated arena table. The user still sees and writes the id strings.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from humaneval.analysis.fit import fit_clmm
from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.comparative import analyze_comparative, build_judgements
from humaneval.core.ratings import CODED_COLUMNS, ID_COLUMNS, Ratings, load_ratings
from humaneval.core.structure import describe_structure
from humaneval.errors import RatingsError
from humaneval.io.tables import codes_of, read_table, text_codes
from tests.conftest import shared_file


def as_strings(ratings: Ratings) -> Ratings:
    """The same table with plain ``str`` id columns: every stage takes its general path."""
    data = ratings.data.astype({c: str for c in CODED_COLUMNS if c in ratings.data})
    assert not any(isinstance(t, pd.CategoricalDtype) for t in data.dtypes)
    return replace(ratings, data=data)


@pytest.fixture(scope="module")
def likert() -> Ratings:
    return load_ratings(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))


def test_loaded_ids_are_sorted_categoricals_of_the_file_strings(likert):
    raw = pd.read_csv(shared_file("steen2021", "likert_coherence_cnn_dm.csv"), dtype=str)
    for column in ID_COLUMNS:
        ids = likert.data[column]
        assert isinstance(ids.dtype, pd.CategoricalDtype)
        assert list(ids.cat.categories) == sorted(raw[column].unique())  # Python's sorted order
        assert ids.tolist() == raw[column].tolist()
    assert likert.systems == sorted(raw["system"].unique())
    assert all(isinstance(s, str) for s in likert.systems + likert.annotators + likert.documents)


def test_clmm_coding_is_that_of_string_ids(likert):
    coded, plain = prepare_clmm_data(likert), prepare_clmm_data(as_strings(likert))
    assert coded.systems == plain.systems and coded.levels == plain.levels
    assert coded.group_levels == plain.group_levels
    assert coded.family == plain.family == "crossed_in_blocks"
    np.testing.assert_array_equal(coded.y, plain.y)
    np.testing.assert_array_equal(coded.system, plain.system)
    for factor in coded.groups:
        np.testing.assert_array_equal(coded.groups[factor], plain.groups[factor])
    # independently: the group codes index the sorted distinct strings
    raw = pd.read_csv(shared_file("steen2021", "likert_coherence_cnn_dm.csv"), dtype=str)
    names = np.array(coded.group_levels["document"])
    assert (names[coded.groups["document"]] == raw["document"].to_numpy()).all()


def test_design_description_is_that_of_string_ids(likert):
    coded, plain = describe_structure(likert), describe_structure(as_strings(likert))
    assert coded == plain
    # the study: 3 annotators judge all 5 systems on 5 documents in each of 20 blocks
    assert (coded.n_blocks, coded.n_annotators, coded.n_documents, coded.n_systems) == (20, 60, 100, 5)
    assert str(coded.judgements_per_summary) == "3" and coded.blocks_fully_crossed


def test_design_description_of_an_irregular_subset():
    table = load_ratings(
        pd.DataFrame(
            {
                "annotator": ["a", "a", "b", "b", "c", "c", "c", "d"],
                "document": ["x", "y", "x", "z", "z", "w", "x", "v"],
                "system": ["S", "T", "S", "T", "S", "T", "T", "S"],
                "score": [1, 2, 3, 4, 5, 1, 2, 3],
                "is_check": [False] * 7 + [True],
            }
        )
    )
    coded, plain = describe_structure(table), describe_structure(as_strings(table))
    assert coded == plain
    assert (coded.family, coded.n_blocks, coded.n_annotators, coded.n_checks) == ("irregular", 1, 3, 1)


def test_a_fit_on_codes_equals_the_fit_on_strings(likert):
    coded = fit_clmm(likert, structure="intercepts")
    plain = fit_clmm(as_strings(likert), structure="intercepts")
    np.testing.assert_allclose(coded.beta, plain.beta, rtol=0, atol=1e-8)
    np.testing.assert_allclose(coded.thresholds, plain.thresholds, rtol=0, atol=1e-8)
    assert abs(coded.loglik - plain.loglik) < 1e-8


def arena(n: int = 20_000, n_sys: int = 12, seed: int = 3) -> pd.DataFrame:
    """LMArena-style votes: random pairs, 300 annotators, one prompt per vote, 5 % ties."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1, n_sys)
    a = rng.integers(0, n_sys, n)
    b = (a + rng.integers(1, n_sys, n)) % n_sys
    u = rng.random(n)
    p = 1 / (1 + np.exp(theta[b] - theta[a]))
    score = np.where(u < 0.05, 0.5, np.where(u < 0.05 + 0.95 * p, 1.0, 0.0))
    names = np.array([f"model-{k:02d}" for k in range(n_sys)])
    return pd.DataFrame(
        {
            "annotator": np.char.add("w", rng.integers(0, 300, n).astype(str)),
            "document": np.char.add("p", np.arange(n).astype(str)),
            "system": names[a],
            "opponent": names[b],
            "score": score,
        }
    )


def test_arena_judgements_and_strengths_equal_the_string_path():
    ratings = load_ratings(arena())
    coded, plain = build_judgements(ratings), build_judgements(as_strings(ratings))
    assert coded.systems == plain.systems and coded.model == plain.model == "davidson"
    for name in ("features", "mask", "chosen", "annotator", "document", "cell", "beats"):
        np.testing.assert_array_equal(getattr(coded, name), getattr(plain, name))
    assert (coded.incidence != plain.incidence).nnz == 0
    pd.testing.assert_series_equal(coded.means, plain.means)
    fit_coded = analyze_comparative(ratings, inference="model")
    fit_plain = analyze_comparative(as_strings(ratings), inference="model")
    np.testing.assert_allclose(fit_coded.fit.beta, fit_plain.fit.beta, rtol=0, atol=1e-8)
    np.testing.assert_allclose(fit_coded.fit.vcov, fit_plain.fit.vcov, rtol=0, atol=1e-8)
    assert abs(fit_coded.fit.loglik - fit_plain.fit.loglik) < 1e-8


def test_the_user_sees_and_writes_id_strings(tmp_path, likert):
    written = likert.write(tmp_path / "copy.csv")
    assert read_table(written)["document"].tolist() == likert.data["document"].tolist()
    again = likert.write(tmp_path / "copy.jsonl")
    first = json.loads(again.read_text().splitlines()[0])
    assert all(isinstance(first[c], str) for c in ID_COLUMNS)
    assert load_ratings(written).data.equals(likert.data)


def test_subsets_keep_only_the_ids_present():
    table = load_ratings(
        pd.DataFrame(
            {
                "annotator": ["a", "a", "b", "b", "c"],
                "document": ["x", "x", "y", "y", "z"],
                "system": ["S", "T", "S", "T", "U"],
                "score": [1, 2, 3, 4, 5],
                "is_check": [False, False, False, False, True],
            }
        )
    )
    assert list(table.data["system"].cat.categories) == ["S", "T", "U"]
    humans = table.without_checks()
    assert list(humans.data["system"].cat.categories) == ["S", "T"]
    assert humans.data["system"].value_counts().to_dict() == {"S": 2, "T": 2}
    assert humans.systems == ["S", "T"] and humans.annotators == ["a", "b"]


def test_a_system_only_in_left_out_rows_is_not_a_rare_system(recwarn):
    rows = [("a", f"d{k}", s, 3) for k in range(30) for s in ("S", "T", "V")]
    frame = pd.DataFrame(rows, columns=["annotator", "document", "system", "score"])
    frame["is_check"] = False
    frame.loc[len(frame)] = ["a", "dc", "CHECK", 1, True]
    load_ratings(frame)
    assert not [w for w in recwarn if "rating(s)" in str(w.message)]


def test_text_codes_strip_merge_and_sort():
    ids = text_codes(pd.Series([" b", "a", "b ", "B", 7, None]))
    assert list(ids.cat.categories) == ["7", "B", "a", "b"]  # code points: digits, upper, lower
    assert ids.cat.codes.tolist() == [3, 2, 3, 1, 0, -1]
    numbers = text_codes(pd.Series([1, 1.0], dtype=object))  # 1 and 1.0 are different ids
    assert list(numbers.cat.categories) == ["1", "1.0"]
    codes, values = codes_of(pd.Series(["q", "p", "q"]))
    assert codes.tolist() == [0, 1, 0] and list(values) == ["q", "p"]


def test_comparisons_and_events_are_numbered_as_factorize_numbers_them():
    from humaneval.comparative.judgements import _comparisons, _factorize_small

    rng = np.random.default_rng(7)
    n = 3_000
    annotator, document = rng.integers(0, 40, n), rng.integers(-1, 900, n)  # -1: a missing key
    a, b = rng.integers(0, 6, n), rng.integers(6, 12, n)
    kept = document >= 0
    group, first_row = _comparisons([annotator, document], a, b, kept)
    key = pd.Series(list(zip(annotator, document, a, b, strict=True)))
    expected = np.full(n, -1)
    expected[kept] = pd.factorize(key[kept])[0]
    np.testing.assert_array_equal(group, expected)
    assert (group[first_row[kept]] == group[kept]).all() and (first_row[kept] <= np.flatnonzero(kept)).all()
    keys = rng.integers(0, 50, 500) * 3
    codes, uniques = _factorize_small(keys, 150)
    ref_codes, ref_uniques = pd.factorize(keys)
    np.testing.assert_array_equal(codes, ref_codes)
    np.testing.assert_array_equal(uniques, ref_uniques)


def test_mirror_rows_that_disagree_are_named():
    rows = [
        ("w1", "p1", "A", "B", 1.0),
        ("w1", "p1", "B", "A", 0.0),  # the mirror row agrees
        ("w2", "p2", "A", "C", 1.0),  # alone in its prompt
        ("w1", "p3", "B", "C", 1.0),
        ("w1", "p3", "C", "B", 1.0),  # both rows say they won
    ]
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score"])
    with pytest.raises(RatingsError, match="comparison B vs C \\(annotator w1, document p3\\) disagree"):
        build_judgements(table)
    judgements = build_judgements(table.iloc[:4])
    assert judgements.n_judgements == 3 and judgements.beats[0].tolist() == [0, 1, 1]
    assert judgements.annotator.tolist() == [0, 1, 0] and judgements.document.tolist() == [0, 1, 2]


@pytest.mark.parametrize("empty_missing", [False, True])
def test_text_codes_sort_many_ids_as_python_sorts_them(empty_missing):
    rng = np.random.default_rng(5)
    letters = list("aAbZ _-é中\U0001f600")
    pool = ["".join(rng.choice(letters, rng.integers(0, 7))) for _ in range(3_000)]
    values = list(rng.choice(np.array(pool, dtype=object), 30_000))  # repeated ids: hashed, then sorted
    ids = text_codes(pd.Series(values, dtype=object), empty_missing=empty_missing)
    names = [v.strip() for v in values]
    assert len(set(values)) > 1_000  # the numpy sort of the distinct values
    assert list(ids.cat.categories) == sorted(set(names) - ({""} if empty_missing else set()))
    decoded = [None if pd.isna(v) else v for v in ids.astype(object)]
    assert decoded == [None if empty_missing and not n else n for n in names]


def test_rankings_give_the_plackett_luce_events_of_string_ids():
    ratings = load_ratings(shared_file("steen2021", "rank_coherence_cnn_dm.csv"))
    coded, plain = build_judgements(ratings), build_judgements(as_strings(ratings))
    assert coded.model == "plackett-luce" and coded.systems == plain.systems
    for name in ("features", "mask", "chosen", "annotator", "document", "cell", "beats"):
        np.testing.assert_array_equal(getattr(coded, name), getattr(plain, name))
    assert (coded.incidence != plain.incidence).nnz == 0


def test_a_hand_built_table_with_unused_categories_models_only_its_systems():
    frame = arena(2_000, 4).assign(
        system=lambda f: pd.Categorical(f["system"], categories=[*sorted(f["system"].unique()), "ghost"])
    )
    ratings = Ratings(data=frame, response="score", scale=(0.0, 1.0))
    judgements = build_judgements(ratings)
    assert "ghost" not in judgements.systems and len(judgements.systems) == 4


def test_ids_of_dropped_rows_are_no_categories(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("annotator,document,system,score\na,x,S,1\na,x,T,2\nb,y,S,3\nb,y,T,4\nc,z,U,\n")
    with pytest.warns(UserWarning, match="dropped 1 rows with a missing score"):
        table = load_ratings(path)
    assert [list(table.data[c].cat.categories) for c in ID_COLUMNS] == [["a", "b"], ["x", "y"], ["S", "T"]]


def test_text_codes_of_many_ids_with_a_lone_surrogate():
    values = [f"id{k}" for k in range(1_500)] + ["bad\ud800"]
    ids = text_codes(pd.Series(values, dtype=object))
    assert list(ids.cat.categories) == sorted(values) and ids.tolist() == values


@pytest.mark.parametrize("empty_missing", [False, True])
def test_text_codes_of_one_id_per_row_are_sorted_not_hashed(empty_missing):
    values = [f" p{k} " if k % 7 else f"p{k}" for k in range(12_000)] + ["", None, "p5", " "]
    ids = text_codes(pd.Series(values, dtype=object), empty_missing=empty_missing)
    names = [None if v is None else v.strip() for v in values]
    kept = {n for n in names if n is not None and (n or not empty_missing)}
    assert list(ids.cat.categories) == sorted(kept)
    decoded = [None if pd.isna(v) else v for v in ids.astype(object)]
    assert decoded == [None if n is None or (empty_missing and not n) else n for n in names]
    assert ids.cat.codes.iloc[5] == ids.cat.codes.iloc[-2]  # "p5" twice, one code


def test_a_categorical_input_keeps_only_the_ids_it_uses():
    frame = arena(200, 3).assign(
        system=lambda f: pd.Categorical(f["system"], categories=["ghost", *sorted(f["system"].unique())])
    )
    ratings = load_ratings(frame)
    assert list(ratings.data["system"].cat.categories) == sorted(frame["system"].astype(str).unique())
    assert "ghost" not in build_judgements(ratings).systems
