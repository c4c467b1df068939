"""The span-marking method: its answers, the server's check of them, its presets and designs."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.design import DesignSpec, generate_design
from humaneval.errors import DesignError
from humaneval.forms import PRESETS
from humaneval.forms.presets import Preset
from humaneval.methods import get_method
from humaneval.methods.spans import parse_span_answer
from humaneval.serve.validate import screen_problems

SPANS = get_method("spans")
ANSWER = {"spans": [[0, 4, "minor", "Style"], [2, 6, "major", "Terminology"]], "score": None}


@pytest.mark.parametrize(
    ("spans", "score", "problem"),
    [
        ([[4, 4, "minor", "Style"]], None, "span 1: end must be after start"),
        (
            [[0, 2, "minor", "Style"], [-1, 3, "minor", "Style"]],
            None,
            "span 2: start and end must be whole numbers from 0",
        ),
        ([[0, 2.5, "minor", "Style"]], None, "span 1: start and end must be whole numbers from 0"),
        ([[5, 12, "minor", "Style"]], None, "span 1: ends at 12, past the text's 10 characters"),
        ([[0, 2, "critical", "Style"]], None, "span 1: severity must be one of minor, major"),
        ([[0, 2, "minor", "Spelling"]], None, "span 1: category must be one of Style, Terminology"),
        ([[0, 2, "minor", "Style", 1]], None, "span 1: must be [start, end, severity, category]"),
        (
            [[0, 5, "minor", "Style"], [4, 8, "major", "Style"]],
            None,
            "spans 0-5 and 4-8 of category 'Style' overlap",
        ),
        ([], 101, "the score must be a whole number from 0 to 100"),
    ],
)
def test_a_bad_answer_is_one_phrase(spans, score, problem):
    value = json.dumps({"spans": spans, "score": score})
    assert parse_span_answer(value, 10, ("Style", "Terminology")) == problem


def test_a_valid_answer_reads_back_as_its_spans():
    answer = parse_span_answer(json.dumps(ANSWER), 10, ("Style", "Terminology"), needs_score=False)
    assert [(s.start, s.end, s.severity, s.category) for s in answer.spans] == [
        (0, 4, "minor", "Style"),
        (2, 6, "major", "Terminology"),
    ]  # different categories may overlap
    assert answer.score is None
    # the export's value is the number of spans (the ESA score when there is one), its raw value the JSON
    assert SPANS.read_answer(json.dumps(ANSWER)) == (2.0, answer.to_json())
    assert SPANS.read_answer(json.dumps({"spans": [], "score": 70}))[0] == 70.0
    assert SPANS.read_answer("not json") == (None, "")


def test_the_esa_score_is_required_exactly_when_the_form_asks():
    no_score = json.dumps({"spans": [], "score": None})
    assert parse_span_answer(no_score, 10, needs_score=True) == "the score (0 to 100) is missing"
    assert parse_span_answer(json.dumps({"spans": [], "score": 50}), 10, needs_score=False) == (
        "this form asks for no score"
    )


def test_the_server_names_the_field_of_a_bad_span():
    preset = PRESETS["mqm-spans"].to_dict()
    screen = {"id": "s000", "entries": [{"field": "sp_q0_d0_s1", "text": "sum:d0|B", "length": 39}]}
    good = json.dumps({"spans": [[29, 38, "minor", "Fluency/Grammar"]], "score": None})
    assert screen_problems("spans", preset, screen, {"sp_q0_d0_s1": good}) == []
    bad = json.dumps({"spans": [[30, 45, "minor", "Style"]], "score": None})
    assert screen_problems("spans", preset, screen, {"sp_q0_d0_s1": bad}) == [
        "sp_q0_d0_s1: span 1: ends at 45, past the text's 39 characters"
    ]
    assert screen_problems("spans", PRESETS["esa-spans"].to_dict(), screen, {"sp_q0_d0_s1": good}) == [
        "sp_q0_d0_s1: span 1: category must be one of error"
    ]


def test_a_span_preset_lists_its_categories():
    with pytest.raises(DesignError, match="preset 'mine': a span-marking preset lists its error categories"):
        Preset(name="mine", dimension="mqm", method="spans", overview="x")
    assert PRESETS["esa-spans"].esa_score and not PRESETS["mqm-spans"].esa_score
    assert "Non-translation" in PRESETS["mqm-spans"].categories


def test_a_span_design_with_instructed_checks_is_one_line(tmp_path):
    options = dict(documents=2, systems=["A", "B"], method="spans", documents_per_block=2, seed=1)
    with pytest.raises(DesignError, match="span studies check attention with injected errors"):
        generate_design(DesignSpec(**options))
    args = ["design", "--documents", "2", "--systems", "A,B", "--method", "spans", "--docs-per-block", "2"]
    args += ["--out", tmp_path / "d.csv"]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 2
    assert (
        result.output.strip()
        .splitlines()[-1]
        .startswith("error: span studies check attention with injected errors in real items")
    )
    with pytest.warns(UserWarning, match="with checks_per_annotator=0 no submission could be rejected"):
        design = generate_design(DesignSpec(**options, checks_per_annotator=0))
    assert set(design.table["field"].str[:6]) == {"sp_q0_"} and design.dimension == "mqm"


@pytest.mark.parametrize("preset", ["mqm-spans", "esa-spans"])
def test_load_test_answers_of_a_span_screen_pass_the_server(preset):
    from humaneval.serve.loadtest import valid_answers

    settings = PRESETS[preset].to_dict()
    screen = {"id": "s000", "entries": [{"field": "sp_q0_d0_s0", "text": "sum:d0|A", "length": 39}]}
    for seed in range(5):
        answers = valid_answers("spans", settings, screen, seed)
        assert screen_problems("spans", settings, screen, answers) == []
        assert len(json.loads(answers["sp_q0_d0_s0"])["spans"]) == 1


def test_collect_mturk_of_a_span_design_writes_the_span_table(tmp_path):
    from humaneval.collect import results_row
    from humaneval.design import Design
    from humaneval.forms import design_payloads
    from humaneval.serve.loadtest import valid_answers
    from humaneval.spans import load_spans
    from tests._designs import cell_of, cell_texts, summary_text

    cells = [(f"d{i:03d}", s, summary_text(f"d{i:03d}", s)) for i in range(2) for s in "AB"]
    design_args = ["--summaries", "summaries.csv", "--method", "spans", "--attention-checks", "0"]
    design_args += ["--docs-per-block", "2", "--annotators-per-block", "2", "--platform", "mturk"]
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path) as folder:
        pd.DataFrame(cells, columns=["document", "system", "text"]).to_csv("summaries.csv", index=False)
        made = runner.invoke(main, ["design", *design_args, "--out", "design.csv"])
        assert made.exit_code == 0, made.output
        design = Design.from_json("design.json", texts="design.texts.json")
        _, payloads = design_payloads(design, cell_texts(design), per_slot=True)
        rows, marked = [], []
        for slot, payload in sorted(payloads.items()):
            (part,) = payload["slots"]
            fields = {"slot": part["slot"], "order": ",".join(s["id"] for s in part["screens"])}
            for k, screen in enumerate(part["screens"]):
                answers = valid_answers("spans", payload["preset"], screen, k)
                entry = screen["entries"][0]
                document, system = cell_of(payload["texts"][entry["text"]])
                spans = json.loads(answers[entry["field"]])["spans"]
                marked += [(document, system, start, end) for start, end, _, _ in spans]
                fields |= answers | {f"tm_{screen['id']}": "4,4,0"}
            rows.append(results_row(fields, assignment_id=f"a-{slot}", worker_id=f"W{slot}"))
        pd.DataFrame(rows).to_csv("results.csv", index=False)
        result = runner.invoke(
            main, ["collect", "mturk", "results.csv", "--design", "design.json", "--out", "spans.csv"]
        )
        assert result.exit_code == 0, result.output
        table = load_spans(f"{folder}/spans.csv")
    got = sorted(
        (d, s, int(a), int(b))
        for d, s, a, b in table.spans[["document", "system", "start", "end"]].to_numpy()
    )
    assert got == sorted(marked) and len(got) == 8  # one span per screen
    assert set(table.lengths) == {39} and len(table.annotators) == 2
