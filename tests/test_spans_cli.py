"""Span tables through ``validate``, ``reliability`` and ``analyze``."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import ADAPTERS, analyze
from humaneval.cli import main
from humaneval.errors import RatingsError
from humaneval.methods import get_method
from humaneval.spans import SpanTable, item_scores, load_spans
from humaneval.spans.simulate import simulate_spans
from tests.conftest import shared_file


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spans")
    spans, texts = simulate_spans({"A": 0.5, "B": 2.5}, n_documents=8, n_annotators=3, seed=3)
    spans.to_csv(folder / "spans.csv", index=False)
    texts.to_csv(folder / "texts.csv", index=False)
    return str(folder / "spans.csv"), str(folder / "texts.csv")


def test_validate_recognises_span_annotations(study):
    spans, texts = study
    result = run("validate", spans, "--texts", texts)
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{spans}: valid (span annotations)")
    info = json.loads(run("validate", spans, "--texts", texts, "--json").output)
    table = pd.read_csv(spans)
    assert info["kind"] == "span annotations"
    assert info["n_spans"] == int(table["start"].notna().sum())
    assert info["n_items"] == 16 and info["n_annotators"] == 3


def test_bad_span_row_is_one_line_and_exit_2(tmp_path, study):
    spans, texts = study
    table = pd.read_csv(spans)
    first = int(table["start"].first_valid_index())
    table.loc[first, "end"] = table.loc[first, "start"]
    path = tmp_path / "bad.csv"
    table.to_csv(path, index=False)
    result = CliRunner().invoke(main, ["validate", str(path), "--texts", texts])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert f"line {first + 2}: end is not after start" in lines[0]
    missing = run("validate", spans)
    assert missing.exit_code == 2 and "no item lengths: give the texts" in missing.output


def test_reliability_json_of_the_worked_example():
    path = str(shared_file("spans", "krippendorff2004.csv"))
    out = json.loads(run("reliability", path, "--json", "--resamples", "0").output)
    assert out["alpha_u"] == pytest.approx(0.8586654051841702, abs=1e-4)
    assert out["alpha_u_by_category"]["c"] == pytest.approx(0.7286, abs=1e-4)
    assert out["span_f1"] == pytest.approx(340 / 405)


def test_reliability_json_keys(study):
    spans, texts = study
    out = json.loads(run("reliability", spans, "--texts", texts, "--json", "--resamples", "0").output)
    assert {"alpha_u", "alpha_u_by_category", "span_f1", "score_alpha", "intervals"} <= set(out)
    assert out["scoring"] == "esa" and -1 <= out["alpha_u"] <= 1


@pytest.mark.parametrize("scoring", ["mqm", "esa"])
def test_analyze_mean_score_per_system(study, scoring):
    spans, texts = study
    result = run("analyze", spans, "--texts", texts, "--scoring", scoring, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index("{") :])["criteria"][0]
    direct = item_scores(load_spans(spans, texts=texts), scoring).groupby("system")["score"].mean()
    assert out["mean_score"] == pytest.approx(direct.to_dict())
    assert out["scoring"] == scoring
    table = pd.read_csv(spans)
    errors_b = int(table[(table["system"] == "B")]["start"].notna().sum())
    rates_b = sum(r["errors"] for r in out["category_rates"] if r["system"] == "B")
    assert rates_b == errors_b
    assert [(c["system_a"], c["system_b"]) for c in out["contrasts"]] == [("A", "B")]
    assert out["contrasts"][0]["estimate"] > 0  # B has five times the errors of A
    # the API is the command: analyze() of the span table through the registry's spans adapter
    api = analyze(load_spans(spans, texts=texts, scoring=scoring)).to_dict()
    assert api["kind"] == out["kind"] == "spans"
    assert api["mean_score"] == pytest.approx(out["mean_score"])
    assert api["contrasts"][0]["estimate"] == pytest.approx(out["contrasts"][0]["estimate"], abs=1e-6)
    assert api["contrasts"][0]["p_adj"] == pytest.approx(out["contrasts"][0]["p_adj"], abs=1e-6)


def test_the_spans_adapter_is_the_methods_analysis():
    assert ADAPTERS[get_method(SpanTable.method).analysis].name == "spans"


def test_span_options_that_do_not_apply_are_one_line(study):
    spans, texts = study
    result = run("analyze", spans, "--texts", texts, "--test", "ttest")
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "error: a spans table gets its method's model; it takes no --test, --formula, --emmeans, --compare "
        "or --scale-effects"
    )


def test_scoring_choices_are_the_registry():
    from humaneval.cli._spans import SCORING_CHOICES
    from humaneval.spans.scoring import SCORING_RULES

    assert tuple(SCORING_RULES) == SCORING_CHOICES


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("annotator,document,system,start,end,severity,category,length\n", "header but no rows"),
        (
            "annotator,document,system,start,end,severity,category,length\na,d,s,0,5,minor,x,99999999999\n",
            "length beyond",
        ),
        ("annotator,document,system,start,end,severity,category,length\na,d,s,0,1e400,minor,x,9\n", "finite"),
        ("annotator,document,system,start,end,category\na,d,s,0,5,x\n", "no column 'severity'"),
    ],
)
def test_hostile_span_files_are_one_line(tmp_path, content, message):
    path = tmp_path / "spans.csv"
    path.write_text(content, encoding="utf-8")
    for command in ("validate", "reliability", "analyze"):
        result = run(command, str(path))
        assert result.exit_code == 2, (command, result.output)
        assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_texts_file_without_a_text_column(tmp_path, study):
    spans, _ = study
    texts = tmp_path / "texts.csv"
    texts.write_text("document,system,body\nd01,A,xyz\n", encoding="utf-8")
    result = run("validate", spans, "--texts", str(texts))
    assert result.exit_code == 2 and "no column 'text'; a texts file has the columns" in result.output


def test_a_criterion_of_a_span_table_is_analysed_alone(study):
    spans, texts = study
    frame = pd.read_csv(spans)
    both = pd.concat(
        [frame.assign(criterion="accuracy"), frame.assign(criterion="fluency")], ignore_index=True
    )
    both.loc[both["criterion"] == "fluency", ["start", "end", "severity", "category"]] = None
    both = both.drop_duplicates(["annotator", "document", "system", "criterion", "start"])
    table = load_spans(both, texts=texts, scoring="mqm")
    assert table.criteria == ["accuracy", "fluency"]
    with pytest.raises(RatingsError, match=r"has several criteria \(accuracy, fluency\); name one"):
        analyze(table)
    result = analyze(table, criterion="accuracy")
    direct = item_scores(load_spans(frame, texts=texts), "mqm").groupby("system")["score"].mean()
    assert result.criterion == "accuracy"
    assert result.mean_score == pytest.approx(direct.to_dict())


def test_validate_and_reliability_are_the_api_of_the_tables_method(study):
    """The commands present what describe_structure and reliability_report make of a span table: the
    span-marking method's registered entries, with the numbers of the direct computations."""
    from humaneval.core.structure import describe_structure
    from humaneval.reliability.report import reliability_report
    from humaneval.spans import span_reliability

    spans, texts = study
    table = load_spans(spans, texts=texts)
    described = describe_structure(table).to_dict()
    assert json.loads(run("validate", spans, "--texts", texts, "--json").output) == {
        "file": spans,
        **described,
    }
    frame = pd.read_csv(spans)
    assert described["n_unmarked"] == int(frame["start"].isna().sum())
    assert described["n_documents"] == 8 and described["n_systems"] == 2
    api = reliability_report(table, n_resamples=50, seed=4)
    assert api.to_dict() == span_reliability(table, "esa", n_resamples=50, seed=4).to_dict()
    out = run("reliability", spans, "--texts", texts, "--resamples", "50", "--seed", "4", "--json")
    assert json.loads(out.output) == json.loads(json.dumps({"file": spans, **api.to_dict()}))
    mqm = reliability_report(load_spans(spans, texts=texts, scoring="mqm"), n_resamples=0)
    assert mqm.scoring == "mqm"
    cli = run("reliability", spans, "--texts", texts, "--scoring", "mqm", "--resamples", "0", "--json")
    assert json.loads(cli.output)["score_alpha"] == pytest.approx(mqm.score_alpha, abs=1e-12)
    assert run("reliability", spans, "--texts", texts, "--resamples", "0").output.startswith(
        f"{spans}: span agreement, 16 items, 3 annotators"
    )


def test_texts_given_for_a_ratings_file_is_one_line(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text(
        "annotator,document,system,score\na,d1,A,1\nb,d1,A,2\na,d1,B,3\nb,d1,B,2\n", encoding="utf-8"
    )
    for command in ("validate", "reliability"):
        result = run(command, str(path), "--texts", str(path))
        assert result.exit_code == 2, result.output
        assert result.output.strip().splitlines() == [
            f"error: {path}: --texts and --scoring apply to span tables (docs/spans.md); this is not one"
        ]
