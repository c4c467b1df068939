"""The validated ratings table: loading, aliases, and one clear error per kind of bad input."""

from __future__ import annotations

import json
import string
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from humaneval import DataWarning, RatingsError, load_ratings
from humaneval.core.ratings import parse_scale
from humaneval.io.tables import read_table_lines


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


def loads_or_fails_in_one_line(path) -> None:
    """Fuzz oracle: a file either loads as finite responses or fails with a one-line RatingsError."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        try:
            r = load_ratings(path)
        except RatingsError as exc:
            assert "\n" not in str(exc)
        else:
            assert len(r) > 0 and np.isfinite(r.values.to_numpy(dtype=float)).all()


GOOD = "annotator,document,system,score\na,d1,s1,3\na,d1,s2,5\nb,d1,s1,4\nb,d1,s2,2\n"


def test_reference_likert_file(likert_path):
    r = load_ratings(likert_path)
    assert len(r) == 1500 and r.response == "score"
    assert r.scale == (1.0, 7.0) and not r.scale_declared
    assert len(r.annotators) == 60 and len(r.documents) == 100
    assert r.systems == ["BART", "__REFERENCE__", "abssentrw", "onmt_pg", "seneca"]
    # the spec's per-system category counts (analysis.md §1.3)
    counts = r.data.groupby("system")["score"].value_counts().unstack().loc["BART"].tolist()
    assert counts == [4, 12, 23, 55, 61, 62, 83]
    assert "corpus" in r.data  # extra columns pass through


def test_reference_rank_file(rank_path):
    r = load_ratings(rank_path)
    assert r.response == "rank" and r.rank_base == 0
    means = r.reported().groupby(r.data["system"]).mean().round(3)  # 1-based, as published
    assert means["BART"] == 1.727 and means["seneca"] == 4.113
    assert r.reported().min() == 1.0
    assert r.oriented().equals(-r.data["rank"])


@pytest.mark.parametrize(
    "suffix,text",
    [
        (".csv", GOOD),
        (".tsv", GOOD.replace(",", "\t")),
        (".txt", GOOD.replace(",", ";")),
    ],
)
def test_delimited_formats(tmp_path, suffix, text):
    r = load_ratings(write(tmp_path, "r" + suffix, text))
    assert r.data["score"].tolist() == [3, 5, 4, 2]


def test_jsonl_and_roundtrip(tmp_path):
    rows = [
        {"annotator": 1, "item": "x", "system": "A", "score": 2, "time": 3.5},
        {"annotator": 1, "item": "x", "system": "B", "score": 4, "time": 1.0},
    ]
    path = write(tmp_path, "r.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    r = load_ratings(path)
    assert list(r.data[["annotator", "document", "seconds"]].iloc[0]) == ["1", "x", 3.5]
    for out in ("out.csv", "out.jsonl"):
        back = load_ratings(r.write(tmp_path / out))
        pd.testing.assert_frame_equal(back.data, r.data, check_dtype=False)


def test_dataframe_and_ids_as_stripped_strings():
    frame = pd.DataFrame(
        {"annotator": [1, 1], "document": [" d ", "d"], "system": ["a", "b"], "score": [1.0, 2.0]}
    )
    r = load_ratings(frame)
    assert r.data["document"].tolist() == ["d", "d"]
    assert r.data["annotator"].tolist() == ["1", "1"]
    assert r.data["score"].dtype.kind == "i"


def test_a_concatenated_frame_is_named_by_positions():
    # pd.concat repeats index labels; the message must still point at two different rows
    first = pd.DataFrame(
        {"annotator": ["w1", "w1"], "document": ["d", "d"], "system": ["A", "B"], "score": [3, 4]}
    )
    second = pd.DataFrame({"annotator": ["w1"], "document": ["d"], "system": ["A"], "score": [5]})
    with pytest.raises(RatingsError, match=r"system=A\) at row 0, row 2;"):
        load_ratings(pd.concat([first, second]))
    labelled = pd.concat([first, second]).set_axis(["r1", "r2", "r3"])
    with pytest.raises(RatingsError, match=r"system=A\) at row r1, row r3;"):
        load_ratings(labelled)


@pytest.mark.parametrize(
    "text,fragment",
    [
        (
            "annotator,doc_x,system,score\na,d,s,1\n",
            "missing required column 'document' (found: annotator, doc_x",
        ),
        ("annotator,document,system,value\na,d,s,1\n", "no score or rank column"),
        ("annotator,document,system,score\na,d,s,good\n", "non-numeric value 'good' at line 2"),
        ("annotator,document,system,score\na,d,s,1\na,d,t,2.5\n", "non-integer score 2.5 at line 3"),
        (
            "annotator,document,system,score\na,d,s,1\na,d,s,2\n",
            "duplicate rating for (annotator=a, document=d, system=s) at line 2, line 3",
        ),
        ("annotator,document,system,rank\na,d,s,0\na,d,t,0\n", "not a permutation of 0..1"),
        ("annotator,document,system,rank\na,d,s,2\na,d,t,3\n", "ranks must start at 0 or 1"),
        ("annotator,document,system,score\n", "header but no rows"),
        ("", "the file is empty"),
        ("annotator,document,system,score,score2\n,d,s,1,1\n", "empty 'annotator' at line 2"),
    ],
)
def test_bad_input_messages(tmp_path, text, fragment):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    message = str(info.value)
    assert message.startswith(str(path)) and fragment in message and "\n" not in message


def test_semicolon_header_single_column_is_diagnosed(tmp_path):
    path = write(tmp_path, "bad.csv", "annotator;document;system;score\na;d;s;1\n")
    # sniffing finds the semicolons, so this file is actually readable
    assert load_ratings(path).data["score"].tolist() == [1]
    path = write(tmp_path, "bad.tsv", "annotator,document,system,score\na,d,s,1\n")
    with pytest.raises(RatingsError, match="contains commas"):
        load_ratings(path)


def test_declared_scale(tmp_path):
    path = write(tmp_path, "r.csv", GOOD)
    assert load_ratings(path, scale="1-7").scale == (1.0, 7.0)
    with pytest.raises(RatingsError, match=r"score 5 at line 3 is outside the declared scale 1-4"):
        load_ratings(path, scale=(1, 4))
    assert parse_scale("0:100") == (0.0, 100.0) and parse_scale("-3-3") == (-3.0, 3.0)
    with pytest.raises(RatingsError):
        parse_scale("7-1")


def test_ties_declared_and_continuous(tmp_path):
    ties = write(tmp_path, "t.csv", "annotator,document,system,rank\na,d,s,1\na,d,t,1\na,d,u,3\n")
    assert load_ratings(ties, allow_ties=True).rank_base == 1
    cont = write(tmp_path, "c.csv", "annotator,document,system,score\na,d,s,0.5\na,d,t,99.5\n")
    assert load_ratings(cont, continuous=True).data["score"].tolist() == [0.5, 99.5]


def test_missing_scores_dropped_with_warning(tmp_path):
    path = write(tmp_path, "m.csv", GOOD + "c,d1,s1,\n")
    with pytest.warns(DataWarning, match="dropped 1 rows with a missing score"):
        r = load_ratings(path)
    assert len(r) == 4


def test_unreadable_files(tmp_path):
    with pytest.raises(RatingsError, match="no such file"):
        load_ratings(tmp_path / "absent.csv")
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\xff\xfe\x00annotator")  # starts with the UTF-16 byte-order mark
    with pytest.raises(RatingsError, match="this file is UTF-16: save it as UTF-8"):
        load_ratings(binary)
    binary.write_bytes(b"annotator\xff\xfe\x00")
    with pytest.raises(RatingsError, match="byte 9 is not valid UTF-8"):
        load_ratings(binary)
    with pytest.raises(RatingsError, match="line 2: not valid JSON"):
        load_ratings(write(tmp_path, "j.jsonl", '{"annotator": 1}\n{oops\n'))


def test_checks_and_criteria():
    frame = pd.DataFrame(
        {
            "annotator": ["a"] * 4,
            "document": ["d"] * 4,
            "system": ["s", "t", "s", "t"],
            "dimension": ["coh", "coh", "rep", "rep"],
            "score": [1, 2, 3, 4],
            "is_check": ["no", "yes", "0", "false"],
        }
    )
    r = load_ratings(frame)
    assert r.criteria == ["coh", "rep"]
    assert len(r.without_checks()) == 3
    assert [c for c, _ in r.by_criterion()] == ["coh", "rep"]


cells = st.one_of(
    st.none(), st.integers(-3, 12), st.floats(allow_nan=True), st.text(string.printable, max_size=4)
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    header=st.lists(
        st.sampled_from(
            [
                "annotator",
                "document",
                "item",
                "system",
                "score",
                "rank",
                "position",
                "seconds",
                "is_check",
                "x",
            ]
        ),
        min_size=0,
        max_size=6,
    ),
    rows=st.lists(st.lists(cells, min_size=0, max_size=7), max_size=6),
    delimiter=st.sampled_from([",", ";", "\t"]),
)
def test_malformed_files_never_crash(tmp_path, header, rows, delimiter):
    text = (
        delimiter.join(header)
        + "\n"
        + "\n".join(delimiter.join("" if c is None else str(c) for c in row) for row in rows)
    )
    path = tmp_path / "fuzz.csv"
    path.write_text(text)
    loads_or_fails_in_one_line(path)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_crash(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("b") / "blob.jsonl"
    path.write_bytes(blob)
    loads_or_fails_in_one_line(path)


def test_check_outcome_words_become_booleans(tmp_path):
    path = write(
        tmp_path,
        "c.csv",
        "annotator,document,system,score,is_check,check_passed\n"
        "a,d,s,1,false,\na,c,__check__,2,true,True\na,e,__check__,3,TRUE,false\n",
    )
    data = load_ratings(path).data
    assert data["is_check"].tolist() == [False, True, True]
    assert data["check_passed"].tolist()[1:] == [True, False] and pd.isna(data["check_passed"][0])
    bad = write(tmp_path, "b.csv", "annotator,document,system,score,check_passed\na,d,s,1,maybe\n")
    with pytest.raises(
        RatingsError, match="column 'check_passed' must be true/false, found 'maybe' at line 2"
    ):
        load_ratings(bad)


def test_line_numbers_travel_beside_the_table_not_in_attrs(tmp_path):
    """Messages name source lines (JSONL blank lines counted, dropped rows kept in step), a
    DataFrame's rows by index label; the validated table carries no per-row side data in
    ``attrs`` (pandas deep-copies attrs into every derived frame)."""
    rows = [{"annotator": "a", "document": "d", "system": s, "score": v} for s, v in [("s", 1), ("t", None)]]
    rows.append({"annotator": "a", "document": "d", "system": "s", "score": 3})
    text = json.dumps(rows[0]) + "\n\n" + json.dumps(rows[1]) + "\n\n\n" + json.dumps(rows[2]) + "\n"
    path = write(tmp_path, "r.jsonl", text)
    with pytest.warns(DataWarning), pytest.raises(RatingsError, match=r"at line 1, line 6;"):
        load_ratings(path)
    frame = pd.DataFrame(rows).set_axis(["x", "y", "z"])
    with pytest.warns(DataWarning), pytest.raises(RatingsError, match=r"at row x, row z;"):
        load_ratings(frame)
    good = load_ratings(write(tmp_path, "good.csv", GOOD))
    assert good.data.attrs == {}
    frame, lines = read_table_lines(write(tmp_path, "t.csv", GOOD))
    assert lines.tolist() == [2, 3, 4, 5] and frame.attrs == {}
