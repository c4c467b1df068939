"""Span tables: unitizing α against Krippendorff's worked example and hand computations, span F1,
score α, MQM scoring and the validation of bad rows."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from humaneval.errors import RatingsError
from humaneval.reliability.alpha import krippendorff_alpha
from humaneval.spans import item_scores, load_spans, mqm_weight, span_f1, span_reliability
from humaneval.spans.agreement import interval_alpha
from humaneval.spans.simulate import simulate_spans
from tests.conftest import shared_file

COLUMNS = ["annotator", "document", "system", "start", "end", "severity", "category"]


def frame(rows, length=10):
    return pd.DataFrame(rows, columns=COLUMNS).assign(length=length)


def small():
    """Three items of 10 characters, two annotators (values checked by hand below)."""
    return frame([
        ("A", "d1", "s", 2, 5, "minor", "fluency"), ("B", "d1", "s", 3, 5, "minor", "fluency"),
        ("A", "d2", "s", 0, 4, "major", "accuracy"), ("B", "d2", "s", 0, 4, "major", "accuracy"),
        ("A", "d3", "s", None, None, None, None), ("B", "d3", "s", 6, 8, "minor", "fluency"),
    ])  # fmt: skip


# --- Krippendorff (2004, p. 254) as DKPro Statistics encodes it -------------------------------------------


def test_worked_example_alpha_u():
    r = span_reliability(load_spans(shared_file("spans", "krippendorff2004.csv")), n_resamples=0)
    assert r.alpha_u == pytest.approx(0.8591, abs=5e-4)  # the book's rounded value
    assert r.alpha_u == pytest.approx(0.8586654051841702, abs=1e-12)
    assert r.alpha_u_by_category["c"] == pytest.approx(0.7285989968053889, abs=1e-12)
    assert r.alpha_u_by_category["k"] == 1.0
    assert r.span_f1 == pytest.approx(340 / 405)


def test_worked_example_two_items_is_one_continuum():
    table = load_spans(shared_file("spans", "krippendorff2004_two_items.csv"))
    r = span_reliability(table, n_resamples=0)
    assert r.alpha_u == pytest.approx(0.8586654051841702, abs=1e-12)
    assert r.span_f1 == pytest.approx(0.8128911138923655, abs=1e-12)


def test_worked_example_lengths_from_texts():
    spans = pd.read_csv(shared_file("spans", "krippendorff2004.csv")).drop(columns="length")
    table = load_spans(spans, texts=shared_file("spans", "krippendorff2004_texts.csv"))
    assert span_reliability(table, n_resamples=0).alpha_u == pytest.approx(0.8586654051841702, abs=1e-12)


# --- a hand-checked table ---------------------------------------------------------------------------------


def test_alpha_u_of_one_item_by_hand():
    # L = 10; A marks [2, 5), B marks [3, 5). D_o: the two units overlap, δ² = (2-3)² + (5-5)² = 1 for
    # each ordered pair: D_o = 2 / (2·1·10²). D_e: units l = 3 and 2 (N_c = 2), gaps 2, 5 (A) and 3, 5 (B):
    # l = 3: (2·27 − 27 + 3)/3 + 9·[(5−3+1) + (3−3+1) + (5−3+1)] = 10 + 63
    # l = 2: (2·8 − 12 + 2)/3 + 4·[(2−2+1) + (5−2+1) + (3−2+1) + (5−2+1)] = 2 + 44
    # D_e = 4·119 / (20·(20·19 − (3·2 + 2·1)))
    d_o, d_e = 2 / 200, 4 * 119 / (20 * (380 - 8))
    table = load_spans(small().iloc[:2])
    r = span_reliability(table, n_resamples=0)
    assert r.alpha_u == pytest.approx(1 - d_o / d_e, abs=1e-12)
    assert r.span_f1 == pytest.approx(2 * 2 / (3 + 2))


def test_span_f1_and_score_alpha_by_hand():
    table = load_spans(small())
    # F1 per item: 2·2/(3+2), 1 (same span), 0 (only B marked) → mean 0.6
    assert span_f1(table) == pytest.approx((0.8 + 1 + 0) / 3)
    scores = item_scores(table, "mqm")
    assert scores.set_index(["annotator", "document"])["score"].to_dict() == {
        ("A", "d1"): -1.0, ("A", "d2"): -5.0, ("A", "d3"): 0.0,
        ("B", "d1"): -1.0, ("B", "d2"): -5.0, ("B", "d3"): -1.0,
    }  # fmt: skip
    # interval α: D_o = (0 + 0 + 2·1)/6; D_e = 2·6·(53 − 13²/6) / (6·5)
    expected = 1 - (2 / 6) / (12 * (53 - 169 / 6) / 30)
    r = span_reliability(table, "mqm", n_resamples=0)
    assert r.score_alpha == pytest.approx(expected, abs=1e-12)
    peer = krippendorff_alpha(scores, "interval").alpha
    assert r.score_alpha == pytest.approx(peer, abs=1e-12)


def _brute_alpha_u(spans: pd.DataFrame, lengths: dict, coders: list[str]) -> float:
    """α_u straight from the definitions: every pair of sections, every placement of every unit."""
    items = sorted(lengths)
    offset = dict(zip(items, np.cumsum([0] + [lengths[i] for i in items])[:-1], strict=True))
    total = sum(lengths.values())
    m = len(coders)
    d_o_sum = d_e_sum = 0.0
    for cat in sorted(spans["category"].dropna().unique()):
        sections = {}
        for c in coders:
            part = spans[(spans["annotator"] == c) & (spans["category"] == cat)]
            units = sorted((offset[(d, s)] + int(a), offset[(d, s)] + int(b)) for d, s, a, b in zip(
                part["document"], part["system"], part["start"], part["end"], strict=True))  # fmt: skip
            out, pos = [], 0
            for a, b in units:
                if a > pos:
                    out.append((pos, a, False))
                out.append((a, b, True))
                pos = b
            if pos < total:
                out.append((pos, total, False))
            sections[c] = out

        def delta(g, h):
            (bg, eg, ug), (bh, eh, uh) = g, h
            if ug and uh:
                return (bg - bh) ** 2 + (eg - eh) ** 2 if bg < eh and bh < eg else 0
            if ug and not uh and bh <= bg and eg <= eh:
                return (eg - bg) ** 2
            if uh and not ug and bg <= bh and eh <= eg:
                return (eh - bh) ** 2
            return 0

        d_o = sum(delta(g, h) for i, j in permutations(coders, 2) for g in sections[i] for h in sections[j])
        d_o /= m * (m - 1) * total**2
        units = [e - b for c in coders for b, e, u in sections[c] if u]
        gaps = [e - b for c in coders for b, e, u in sections[c] if not u]
        num = sum(
            (len(units) - 1) * (2 * x**3 - 3 * x**2 + x) / 3 + x * x * sum(g - x + 1 for g in gaps if g >= x)
            for x in units
        )
        d_e = 4 * num / (m * total * (m * total * (m * total - 1) - sum(x * (x - 1) for x in units)))
        d_o_sum, d_e_sum = d_o_sum + d_o, d_e_sum + d_e
    return 1 - d_o_sum / d_e_sum


def test_alpha_u_matches_the_definition_on_a_simulated_study():
    spans, texts = simulate_spans({"A": 1.0, "B": 2.0}, n_documents=3, n_annotators=3, length=60, seed=4)
    table = load_spans(spans, texts=texts)
    lengths = {k: int(v) for k, v in table.lengths.items()}
    expected = _brute_alpha_u(table.spans, lengths, table.annotators)
    assert span_reliability(table, n_resamples=0).alpha_u == pytest.approx(expected, abs=1e-12)


def test_bootstrap_intervals_cover_the_estimate_and_repeat_with_the_seed():
    spans, texts = simulate_spans({"A": 1.0, "B": 2.0}, n_documents=6, n_annotators=2, seed=2)
    table = load_spans(spans, texts=texts)
    a = span_reliability(table, n_resamples=200, seed=3)
    b = span_reliability(table, n_resamples=200, seed=3)
    assert a.intervals == b.intervals
    for name, value in (("alpha_u", a.alpha_u), ("span_f1", a.span_f1), ("score_alpha", a.score_alpha)):
        low, high = a.intervals[name]
        assert low < value < high


def test_interval_alpha_equals_the_package_alpha():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 9, size=(8, 3)).astype(float)
    long = pd.DataFrame(
        [(f"a{j}", f"d{i}", "s", values[i, j]) for i in range(8) for j in range(3)],
        columns=["annotator", "document", "system", "score"],
    )
    assert interval_alpha(list(values)) == pytest.approx(
        krippendorff_alpha(long, "interval").alpha, abs=1e-12
    )


# --- scoring rules ----------------------------------------------------------------------------------------


def test_mqm_scores_equal_a_direct_computation():
    spans, texts = simulate_spans({"A": 2.0, "B": 3.0}, n_documents=4, n_annotators=2, seed=5)
    spans.loc[spans.index[spans["start"].notna()][:3], "category"] = [
        "Non-translation!",
        "Fluency/Punctuation",
        "No-error",
    ]
    table = load_spans(spans, texts=texts)
    direct = {}
    for row in spans.itertuples():
        key = (row.annotator, row.document, row.system)
        if pd.isna(row.start):
            direct.setdefault(key, 0.0)
            continue
        if row.category == "Non-translation!":
            w = 25.0
        elif row.category == "No-error":
            w = 0.0
        elif row.severity == "minor" and row.category.lower() == "fluency/punctuation":
            w = 0.1
        else:
            w = {"major": 5.0, "minor": 1.0}[row.severity]
        direct[key] = direct.get(key, 0.0) - w
    got = item_scores(table, "mqm").set_index(["annotator", "document", "system"])["score"]
    assert got.to_dict() == pytest.approx(direct)


def test_mqm_weight_rejects_an_unknown_severity():
    with pytest.raises(RatingsError, match=r"severity 'critical'.*major, minor, neutral"):
        mqm_weight("critical", "accuracy")


def test_esa_scores_must_agree_within_an_item():
    rows = small().assign(score=[70, 80, 50, 50, 100, 90])
    ok = item_scores(load_spans(rows), "esa")
    assert ok["score"].tolist() == [70, 50, 100, 80, 50, 90]
    extra = frame([("A", "d1", "s", 7, 9, "minor", "fluency")]).assign(score=60)
    with pytest.raises(RatingsError, match=r"'A'.*'d1'.*has different scores in its rows"):
        item_scores(load_spans(pd.concat([rows, extra], ignore_index=True)), "esa")
    with pytest.raises(RatingsError, match="no score column"):
        item_scores(load_spans(small()), "esa")


# --- validation: one line per kind of bad row ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"end": 2}, r"^row 1: end is not after start; end is exclusive"),
        ({"end": 11}, r"^row 1: end 11 is past the end of the text of \(d1, s\), 10 characters"),
        ({"start": -1}, r"^row 1: negative start"),
        ({"start": 2.5}, r"^row 1: start must be a whole number"),
        ({"start": "x"}, r"^row 1: start is not a number"),
        ({"category": None}, r"^row 1: a span needs start, end and category"),
    ],
)
def test_bad_rows_name_the_row(change, message):
    rows = small()
    for col, value in change.items():
        rows[col] = rows[col].astype(object)
        rows.at[0, col] = value
    with pytest.raises(RatingsError, match=message) as caught:
        load_spans(rows)
    assert "\n" not in str(caught.value)


def test_overlapping_spans_of_one_annotator_are_named(tmp_path):
    rows = pd.concat([small(), frame([("A", "d1", "s", 4, 7, "major", "fluency")])], ignore_index=True)
    path = tmp_path / "spans.csv"
    rows.to_csv(path, index=False)
    with pytest.raises(
        RatingsError, match=r"spans.csv: line 8: span 4-7 of A overlaps another 'fluency' span"
    ):
        load_spans(path)
    assert len(load_spans(path, allow_overlap=True).spans) == 6
    rows.loc[6, "category"] = "accuracy"  # another category may overlap
    assert len(load_spans(rows).spans) == 6


def test_empty_row_beside_spans_and_missing_lengths():
    rows = pd.concat([small(), frame([("A", "d1", "s", None, None, None, None)])], ignore_index=True)
    with pytest.raises(RatingsError, match=r"row 7: an empty row \(no errors\) for an item"):
        load_spans(rows)
    with pytest.raises(RatingsError, match="no item lengths: give the texts"):
        load_spans(small().drop(columns="length"))
    texts = pd.DataFrame({"document": ["d1", "d2"], "system": "s", "text": "x" * 10})
    with pytest.raises(RatingsError, match=r"item \(d3, s\) has no text"):
        load_spans(small().drop(columns="length"), texts=texts)


def test_missing_column_and_no_two_annotators():
    with pytest.raises(RatingsError, match="no column 'severity'"):
        load_spans(small().drop(columns="severity"))
    from humaneval.errors import InsufficientDataError

    with pytest.raises(InsufficientDataError, match="no item was annotated by two annotators"):
        span_reliability(load_spans(small()[small()["annotator"] == "A"]), n_resamples=0)


def test_agreement_of_several_criteria_is_refused():
    rows = pd.concat([small().assign(criterion="fluency"), small().assign(criterion="accuracy")])
    with pytest.raises(RatingsError, match=r"spans of several criteria \(accuracy, fluency\)"):
        span_reliability(load_spans(rows.reset_index(drop=True)), n_resamples=0)
    one = load_spans(small().assign(criterion="fluency"))
    assert span_reliability(one, n_resamples=0).span_f1 == pytest.approx(0.6)


def test_texts_keep_their_leading_and_trailing_spaces(tmp_path):
    from humaneval.spans import read_texts

    path = tmp_path / "texts.csv"
    path.write_text('document,system,text\nd1,A,"  two spaces first"\nd1,B,last two  \n', encoding="utf-8")
    texts = read_texts(path)
    assert texts["text"].str.len().tolist() == [len("  two spaces first"), len("last two  ")]
    spans = tmp_path / "spans.csv"
    spans.write_text(
        "annotator,document,system,start,end,severity,category\na,d1,A,2,5,minor,x\na,d1,B,8,10,minor,x\n",
        encoding="utf-8",
    )
    table = load_spans(spans, texts=path)
    assert table.lengths.to_dict() == {("d1", "A"): 18, ("d1", "B"): 10}
