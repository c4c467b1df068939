"""Span output of automatic annotators as judges (the alt-test on span F1 and item scores); span power."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from humaneval.errors import RatingsError
from humaneval.spans import load_spans
from humaneval.spans.judge import label_f1, span_judge_test, span_labels
from humaneval.spans.simulate import simulate_spans


@pytest.fixture(scope="module")
def humans():
    spans, texts = simulate_spans({"A": 1.0, "B": 2.0}, n_documents=16, n_annotators=3, seed=1)
    return spans, texts


def _with_judge(spans, texts, judge_rows):
    return load_spans(pd.concat([spans, judge_rows], ignore_index=True), texts=texts)


def _run(table, judge):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return span_judge_test(table, [judge], epsilon=0.2)


def test_a_judge_copying_a_human_passes_and_a_silent_one_fails(humans):
    spans, texts = humans
    copy = spans[spans["annotator"] == "a1"].assign(annotator="copy")
    good = _run(_with_judge(spans, texts, copy), "copy")
    assert bool(good.span_f1.table["passed"].iloc[0]) and bool(good.scores.table["passed"].iloc[0])
    items = spans[["document", "system"]].drop_duplicates()
    silent = items.assign(annotator="mute", start=pd.NA, end=pd.NA, severity=None, category=None, score=100.0)
    bad = _run(_with_judge(spans, texts, silent), "mute")
    assert not bool(bad.span_f1.table["passed"].iloc[0])
    assert not bool(bad.scores.table["passed"].iloc[0])
    assert bad.span_f1.table["n_humans"].iloc[0] == 3


def test_labels_and_their_f1():
    frame = pd.DataFrame(
        {"annotator": ["a", "a", "b"], "document": "d", "system": "s", "start": [0, 6, None],
         "end": [2, 8, None], "severity": ["minor", "minor", None], "category": ["x", "x", None],
         "length": 10}
    )  # fmt: skip
    labels = span_labels(load_spans(frame))
    assert labels == {"a": {"d|s": "0-2;6-8"}, "b": {"d|s": "none"}}
    assert label_f1("0-2;6-8", pd.Series(["0-2", "none"]).to_numpy()) == pytest.approx((2 * 2 / 6 + 0) / 2)
    assert label_f1("none", pd.Series(["none"]).to_numpy()) == 1.0


def test_unknown_judge_is_named(humans):
    spans, texts = humans
    with pytest.raises(RatingsError, match="judge 'gpt' is not an annotator"):
        span_judge_test(load_spans(spans, texts=texts), ["gpt"])


def test_span_power_grows_with_the_difference_and_the_study():
    from humaneval.spans.power import span_power

    null = span_power({"A": 1.0, "B": 1.0}, n_documents=8, n_annotators=2, trials=60, seed=2)
    assert null["power"].iloc[0] <= 0.15  # a true null rejects about alpha = 5% of the time
    small = span_power({"A": 0.5, "B": 2.0}, n_documents=4, n_annotators=1, trials=60, seed=2)
    large = span_power({"A": 0.5, "B": 2.0}, n_documents=20, n_annotators=3, trials=60, seed=2)
    assert large["power"].iloc[0] > small["power"].iloc[0] + 0.5
    # MQM weight per error 0.7·1 + 0.3·5 = 2.2, found with recall 0.8: A (1.5 fewer errors) scores higher
    # by about 1.5·2.2·0.8 = 2.64 (false alarms are the same for both)
    assert large["mean_difference"].iloc[0] == pytest.approx(1.5 * 2.2 * 0.8, rel=0.15)


def test_judge_command_of_a_span_table_is_the_api(humans, tmp_path):
    import json

    from click.testing import CliRunner

    from humaneval.cli import main

    spans, texts = humans
    copy = spans[spans["annotator"] == "a1"].assign(annotator="copy")
    path, texts_path = tmp_path / "spans.csv", tmp_path / "texts.csv"
    pd.concat([spans, copy], ignore_index=True).to_csv(path, index=False)
    texts.to_csv(texts_path, index=False)
    args = ["judge", str(path), "--texts", str(texts_path), "--mark-judges", "copy", "--epsilon", "0.2"]
    result = CliRunner().invoke(main, [*args, "--span-scoring", "mqm", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    api = _run(_with_judge(spans, texts, copy), "copy")  # mqm is span_judge_test's default
    assert out == json.loads(json.dumps({"file": str(path), **api.to_dict()}, default=str))
    assert out["kind"] == "spans" and out["scoring"] == "mqm"
    f1 = out["span_f1"]["judges"][0]
    assert f1["judge"] == "copy" and f1["passed"] is True and f1["n_humans"] == 3
    assert f1["winning_rate"] == pytest.approx(api.span_f1.table["winning_rate"].iloc[0])
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 0 and "on the marked characters" in text.output
    assert "on the esa item scores" in text.output  # simulated tables carry ESA scores: esa by default
    refused = CliRunner().invoke(main, [*args, "--calibration", "minmax"])
    assert refused.exit_code == 2 and len(refused.output.strip().splitlines()) == 1
    no_judge = CliRunner().invoke(main, ["judge", str(path), "--texts", str(texts_path)])
    assert no_judge.exit_code == 2 and "--mark-judges NAME" in no_judge.output


def test_power_command_of_a_span_pilot_is_the_api(tmp_path):
    import json

    from click.testing import CliRunner

    from humaneval.cli import main
    from humaneval.spans.power import pilot_power, span_power

    spans, texts = simulate_spans({"A": 0.5, "B": 2.0}, n_documents=6, n_annotators=2, seed=2)
    path, texts_path = tmp_path / "pilot.csv", tmp_path / "texts.csv"
    spans.to_csv(path, index=False)
    texts.to_csv(texts_path, index=False)
    args = ["power", "--pilot", str(path), "--texts", str(texts_path), "--design", "2x10x3", "--trials", "40"]
    result = CliRunner().invoke(main, [*args, "--span-scoring", "mqm", "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    # errors per item: the pilot's spans per annotator and item, less 0.2 false alarms, over recall 0.8
    views = spans.groupby("system")[["document", "annotator"]].apply(lambda p: len(p.drop_duplicates()))
    marked = spans.dropna(subset=["start"]).groupby("system").size()
    expected = ((marked / views - 0.2) / 0.8).to_dict()
    assert out["errors_per_item"] == pytest.approx(expected)
    assert (out["n_documents"], out["n_annotators"], out["scoring"]) == (20, 3, "mqm")
    major = float((spans["severity"].dropna() == "major").mean())
    direct = span_power(
        expected, n_documents=20, n_annotators=3, scoring="mqm", trials=40, seed=5, major=major, length=120
    )
    assert out["pairs"][0]["power"] == pytest.approx(direct["power"].iloc[0])
    assert out["pairs"][0]["mean_difference"] == pytest.approx(direct["mean_difference"].iloc[0])
    api = pilot_power(load_spans(path, texts=texts_path, scoring="mqm"), n_documents=20, n_annotators=3,
                      trials=40, seed=5)  # fmt: skip
    assert out == json.loads(json.dumps({"file": str(path), **api.to_dict()}))
    refused = CliRunner().invoke(main, [*args, "--null"])
    assert refused.exit_code == 2 and "takes no --null" in refused.output
