"""Several criteria on one screen (issue 18): criteria, design, forms, collection and the scale sidecar.

The answers are written from the field rule of designs-and-forms §3.6 (``lk_q{m}_d{i}_s{j}``: question m
of summary (i, j)), independently of the parser, and each value encodes its cell and criterion so a
wrong mapping shows as a mismatch.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.collect import parse_mturk_results, results_row
from humaneval.core.ratings import load_ratings
from humaneval.core.scales import Scale, read_scales, sidecar_path
from humaneval.design import DesignSpec, generate_design
from humaneval.design.criteria import CRITERIA, Criterion, expand_criteria, parse_criteria
from humaneval.errors import DesignError, RatingsError
from humaneval.forms import design_payloads
from humaneval.serve.validate import screen_problems
from tests._designs import cell_texts

FOUR = "coherence,consistency,fluency,relevance"


def multi_design(criteria=FOUR, **spec):
    options = {
        "documents": 4,
        "systems": ["A", "B", "C"],
        "documents_per_block": 2,
        "annotators_per_block": 2,
        "checks_per_annotator": 1,
        "platform": "mturk",
        "seed": 11,
        "criteria": criteria,
    }
    return generate_design(DesignSpec(**{**options, **spec}))


def value_of(document: str, system: str, m: int, points: int) -> int:
    """A deterministic answer that differs between criteria of the same summary."""
    return 1 + (int(document[1:]) * 3 + ord(system) + 2 * m) % points


def answer_all(design, points=(5, 5, 5, 5)) -> pd.DataFrame:
    """One results row per slot: every question of every summary, checks as instructed."""
    docs = {d: i for i, d in enumerate(design.documents)}
    systems = {s: j for j, s in enumerate(design.systems)}
    rows = []
    for k, (slot, part) in enumerate(design.table.groupby("annotator_slot", sort=True)):
        screens = list(dict.fromkeys(part["screen_id"]))
        fields = {"slot": slot, "design_id": design.design_id, "form_version": 1, "order": ",".join(screens)}
        for sid in screens:
            fields[f"tm_{sid}"] = "10.0,10.0,0"
        for r in part.itertuples():
            if r.system == "":
                fields[r.field] = r.check_expected
                continue
            for m, n in enumerate(points):
                name = f"lk_q{m}_d{docs[r.document]}_s{systems[r.system]}"
                fields[name] = value_of(r.document, r.system, m, n)
        rows.append(results_row(fields, assignment_id=f"AS{k}", worker_id=f"W{k}", work_time=60))
    return pd.DataFrame(rows)


def test_criteria_from_names_points_and_files(tmp_path):
    four = parse_criteria(FOUR)
    assert [c.name for c in four] == ["coherence", "consistency", "fluency", "relevance"]
    assert {c.points for c in four} == {5} and four[0].labels == {"1": "Very poor", "5": "Very good"}
    seven = parse_criteria("coherence:7,repetition")
    assert seven[0].points == 7 and seven[0].labels == {"1": "Very poor", "7": "Very good"}
    assert seven[1].points == 7 and seven[1].anchors["4"].startswith("some statements")
    path = tmp_path / "criteria.yaml"
    path.write_text(
        "- name: clarity\n  points: 4\n  question: Is it clear?\n  labels: {1: Not at all, 4: Fully}\n"
        "- fluency\n",
        encoding="utf-8",
    )
    own = parse_criteria(str(path))
    assert own[0] == Criterion("clarity", 4, "Is it clear?", "", {"1": "Not at all", "4": "Fully"})
    assert own[1] == CRITERIA["fluency"]
    as_json = tmp_path / "c.json"
    as_json.write_text(json.dumps({"fluency": {"points": 3}}), encoding="utf-8")
    assert parse_criteria(str(as_json))[0].points == 3


@pytest.mark.parametrize(
    "value,message",
    [
        ("coherence,nonsense", "unknown criterion 'nonsense'"),
        ("fluency,fluency", "listed twice"),
        ("fluency:1", "points must be a whole number 2–11"),
        ("fluency:x", "write name:points"),
        ([{"name": "x", "points": 5, "labels": {"6": "too far"}}], "labels key '6' is not a point"),
        ([{"name": "x", "colour": "red"}], "unknown criterion key(s) colour"),
    ],
)
def test_bad_criteria_are_one_line_errors(value, message):
    with pytest.raises(DesignError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_criteria(value)


def test_design_records_every_criterion_and_keeps_one_screen_per_summary():
    design = multi_design()
    assert design.spec["dimension"] == FOUR and design.spec["scale_points"] == 5
    assert [c["name"] for c in design.spec["criteria"]] == FOUR.split(",")
    manifest = design.to_dict()
    assert [s["criterion"] for s in manifest["scales"]] == FOUR.split(",")
    assert manifest["scales"][0] == {
        "criterion": "coherence",
        "low": 1,
        "high": 5,
        "points": 5,
        "labels": {"1": "Very poor", "5": "Very good"},
        "anchors": {},
        "question": "How would you rate the coherence of this summary?",
    }
    # 2 documents × 3 systems + 1 check per slot: 7 screens, not 4 × 6 + 1
    screens = design.table.groupby("annotator_slot")["screen_id"].nunique()
    assert screens.tolist() == [7, 7, 7, 7]
    expanded = expand_criteria(design.table, design.criteria)
    assert len(expanded) == 4 * (6 * 4) + 4  # every summary 4 times, checks once
    assert set(expanded.loc[expanded["system"] == "", "dimension"]) == {"coherence"}
    first = expanded[expanded["system"] != ""].head(4)
    assert first["field"].str[:6].tolist() == ["lk_q0_", "lk_q1_", "lk_q2_", "lk_q3_"]
    # designs without criteria keep their id: criteria are not part of their canonical spec
    plain = DesignSpec(documents=4, systems=["A", "B"], seed=1, documents_per_block=2)
    assert "criteria" not in plain.to_dict()


def test_criteria_need_likert():
    with pytest.raises(DesignError, match="apply to likert designs, not 'rank'"):
        DesignSpec(documents=4, systems=["A", "B"], seed=1, method="rank", criteria="fluency")


def test_form_payload_asks_every_question_on_one_screen():
    design = multi_design("coherence,fluency:7")
    preset, payloads = design_payloads(design, cell_texts(design))
    assert [q["name"] for q in preset.questions] == ["coherence", "fluency"]
    assert [q["points"] for q in preset.questions] == [5, 7]
    assert preset.points == 5  # checks use the first criterion's scale
    assert "**Coherence**:" in preset.definition and "**Fluency**:" in preset.definition
    slot = payloads["b000"]["slots"][0]
    assert len(slot["screens"]) == 7 and all(len(s["entries"]) == 1 for s in slot["screens"])
    with pytest.raises(DesignError, match="asks its criteria's questions"):
        design_payloads(design, cell_texts(design), preset="summeval-coherence-likert5")


def test_served_screens_require_every_question():
    design = multi_design("coherence,fluency:7")
    preset, payloads = design_payloads(design, cell_texts(design), per_slot=True)
    slot = next(iter(payloads.values()))["slots"][0]
    screen = next(s for s in slot["screens"] if not s["entries"][0].get("check"))
    field = screen["entries"][0]["field"]
    both = {field: 3, field.replace("lk_q0_", "lk_q1_"): 7}
    assert screen_problems("likert", preset.to_dict(), screen, both) == []
    missing = screen_problems("likert", preset.to_dict(), screen, {field: 3})
    assert missing == [f"missing field {field.replace('lk_q0_', 'lk_q1_')!r}"]
    too_high = screen_problems("likert", preset.to_dict(), screen, {**both, field: 6})
    assert len(too_high) == 1 and field in too_high[0]


def test_preset_with_another_scale_is_refused():
    design = generate_design(
        DesignSpec(documents=2, systems=["A", "B"], seed=1, documents_per_block=2, platform="mturk")
    )
    with pytest.raises(DesignError) as err:
        design_payloads(design, cell_texts(design), preset="summeval-coherence-likert5")
    assert str(err.value) == (
        "preset 'summeval-coherence-likert5' has a 5-point scale but the design declares 7 points "
        "(scale_points); choose a 7-point preset or regenerate the design with --scale-points 5"
    )
    # without a preset, a 5-point design gets its dimension's question on 5 points (not the 7-point one)
    five = generate_design(
        DesignSpec(documents=2, systems=["A", "B"], seed=1, documents_per_block=2, scale_points=5)
    )
    preset, _ = design_payloads(five, cell_texts(five))
    assert preset.points == 5 and preset.labels == {"1": "Very poor", "5": "Very good"}
    check = five.table[five.table["is_check"]]
    assert set(check["check_expected"].astype(int)) <= {2, 3, 4}


def test_collect_gives_one_row_per_criterion_and_writes_the_scale(tmp_path):
    design = multi_design()
    results = answer_all(design)
    parsed = parse_mturk_results(results, design)
    assert parsed.problems.empty, parsed.problems.to_dict("records")
    ratings = parsed.ratings.without_checks()
    assert len(ratings) == 4 * 6 * 4  # 4 slots × 6 summaries × 4 criteria
    assert ratings.criteria == ["coherence", "consistency", "fluency", "relevance"]
    for row in ratings.data.itertuples():
        m = ratings.criteria.index(row.criterion)
        assert row.score == value_of(row.document, row.system, m, 5)
    assert [s.criterion for s in parsed.ratings.scales] == ratings.criteria
    assert parsed.ratings.scale == (1, 5) and parsed.ratings.scale_declared
    # the check rows keep the first criterion and the check scores
    assert parsed.workers["checks_failed"].tolist() == [0, 0, 0, 0]
    # the sidecar travels with the CSV and load_ratings reads it back
    path = parsed.ratings.write(tmp_path / "ratings.csv")
    assert sidecar_path(path) == tmp_path / "ratings.scale.json"
    assert read_scales(sidecar_path(path)) == parsed.ratings.scales
    back = load_ratings(path)
    assert back.scale_declared and back.scale == (1.0, 5.0)
    assert [s.criterion for s in back.scales] == ratings.criteria
    parts = dict(back.by_criterion())
    assert parts["fluency"].scales == (back.scale_of("fluency"),)


def test_scales_of_different_sizes_are_checked_per_criterion(tmp_path):
    design = multi_design("coherence,fluency:7")
    parsed = parse_mturk_results(answer_all(design, points=(5, 7)), design)
    assert parsed.problems.empty
    data = parsed.ratings.without_checks().data
    assert data.groupby("criterion")["score"].max().to_dict() == {"coherence": 5, "fluency": 7}
    path = parsed.ratings.write(tmp_path / "r.csv")
    back = load_ratings(path)
    assert back.scale == (1.0, 7.0)
    parts = dict(back.by_criterion())
    assert parts["coherence"].scale == (1.0, 5.0) and parts["fluency"].scale == (1.0, 7.0)
    # a 6 for coherence is outside its 1-5 scale although fluency goes to 7
    frame = pd.read_csv(path)
    frame.loc[(frame["criterion"] == "coherence").idxmax(), "score"] = 6
    frame.to_csv(path, index=False)
    with pytest.raises(RatingsError, match="outside the declared scale 1-5 of criterion 'coherence'"):
        load_ratings(path)
    # an explicit --scale wins over the sidecar
    assert load_ratings(path, scale="1-7").scales == ()


def test_collect_refuses_an_answer_outside_its_criterion_scale():
    design = multi_design("coherence,fluency:7")
    results = answer_all(design, points=(5, 7))
    column = next(c for c in results.columns if c.startswith("Answer.lk_q0_"))
    results.loc[0, column] = "7"  # 7 is on fluency's scale, not on coherence's
    parsed = parse_mturk_results(results, design)
    assert parsed.problems[["kind", "field"]].values.tolist() == [["bad_value", column[7:]]]
    assert "not a whole number in 1..5" in parsed.problems["detail"].iloc[0]


def test_bad_sidecars_are_one_line_errors(tmp_path):
    path = tmp_path / "r.csv"
    pd.DataFrame({"annotator": ["a"], "document": ["d"], "system": ["s"], "score": [3]}).to_csv(
        path, index=False
    )
    sidecar_path(path).write_text("{not json", encoding="utf-8")
    with pytest.raises(RatingsError, match=r"r.scale.json: not a valid scale file"):
        load_ratings(path)
    sidecar_path(path).write_text(json.dumps({"format": "other"}), encoding="utf-8")
    with pytest.raises(RatingsError, match="not a humaneval scale file"):
        load_ratings(path)
    sidecar_path(path).write_text(
        json.dumps({"format": "humaneval-scale", "criteria": [{"criterion": "x", "low": 1, "high": 5}]}),
        encoding="utf-8",
    )
    frame = pd.read_csv(path).assign(criterion="y")
    frame.to_csv(path, index=False)
    with pytest.raises(RatingsError, match="criterion 'y' has no declared scale"):
        load_ratings(path)


def test_cli_design_forms_collect_validate(tmp_path):
    runner = CliRunner()
    out = tmp_path / "design.csv"
    result = runner.invoke(
        main,
        [
            "design", "--documents", "4", "--systems", "A,B,C", "--docs-per-block", "2",
            "--annotators-per-block", "2", "--attention-checks", "1", "--platform", "mturk",
            "--criteria", FOUR, "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "criteria: coherence (1-5 (5 points, 1 = Very poor, 5 = Very good))" in result.output
    from humaneval.forms import load_design

    design = load_design(out)
    forms = runner.invoke(main, ["forms", str(out), "--placeholder-texts", "--out", str(tmp_path / "f")])
    assert forms.exit_code == 0, forms.output
    assert "7 screens" in forms.output
    answer_all(design).to_csv(tmp_path / "Batch.csv", index=False)
    collected = runner.invoke(
        main,
        [
            "collect",
            "mturk",
            str(tmp_path / "Batch.csv"),
            "--design",
            str(out),
            "--out",
            str(tmp_path / "r.csv"),
        ],
    )
    assert collected.exit_code == 0, collected.output
    assert (tmp_path / "r.scale.json").is_file()
    valid = runner.invoke(main, ["validate", str(tmp_path / "r.csv")])
    assert valid.exit_code == 0, valid.output
    assert "score, scale 1-5 (declared)" in valid.output
    words = " ".join(valid.output.split())
    assert "scale of relevance: 1-5 (5 points, 1 = Very poor, 5 = Very good)" in words
    as_json = json.loads(runner.invoke(main, ["validate", str(tmp_path / "r.csv"), "--json"]).output)
    assert [s["criterion"] for s in as_json["scales"]] == FOUR.split(",")
    bad = runner.invoke(
        main,
        [
            "forms",
            str(out),
            "--placeholder-texts",
            "--preset",
            "coherence-likert7",
            "--out",
            str(tmp_path / "g"),
        ],
    )
    assert bad.exit_code == 2 and "asks its criteria's questions" in bad.output


def test_scale_rejects_inverted_ends():
    with pytest.raises(RatingsError, match="low end 5 must be below the high end 1"):
        Scale("x", 5, 1)


def test_declared_scales_need_a_criterion_column():
    frame = pd.DataFrame({"annotator": ["a"], "document": ["d"], "system": ["s"], "score": [3]})
    two = (Scale("x", 1, 5, 5), Scale("y", 1, 7, 7))
    with pytest.raises(RatingsError, match=r"per criterion \(x, y\) but the table has no 'criterion' column"):
        load_ratings(frame, scale=two)
    assert load_ratings(frame, scale=(Scale(None, 1, 5, 5),)).scale == (1.0, 5.0)
    assert np.isclose(load_ratings(frame, scale=(Scale("x", 1, 5, 5),)).scale[1], 5.0)


def test_prolific_server_and_export_with_several_questions(tmp_path):
    import warnings

    from starlette.testclient import TestClient

    from humaneval.collect.prolific import read_prolific
    from humaneval.serve import create_app, create_study

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = multi_design("coherence,fluency:7", platform="prolific", checks_per_annotator=2)
    made = create_study(
        design,
        tmp_path / "study",
        texts=cell_texts(design),
        completion_code="CODE1234",
        prolific_study_id="S",
    )
    client = TestClient(create_app(made.study_dir))
    started = client.post(
        f"/api/{made.key}/start", json={"prolific_pid": "PID1", "study_id": "S", "session_id": "X"}
    ).json()
    screens = started["form"]["slots"][0]["screens"]
    timing = {"shown_at": 1.7e12, "answered_at": 1.7e12 + 4000, "seconds": 4.0, "visible_seconds": 4.0}
    timing["hidden_count"] = 0
    rows = design.table[design.table["annotator_slot"] == started["slot"]]
    entered = {}
    for index, screen in enumerate(screens):
        row = rows[rows["position"] == index].iloc[0]
        field = screen["entries"][0]["field"]
        if row["is_check"]:
            answers = {field: row["check_expected"]}
        else:
            answers = {
                field: str(value_of(row["document"], row["system"], 0, 5)),
                field.replace("lk_q0_", "lk_q1_"): str(value_of(row["document"], row["system"], 1, 7)),
            }
            entered[(row["document"], row["system"], "coherence")] = int(answers[field])
            entered[(row["document"], row["system"], "fluency")] = int(answers[field.replace("_q0_", "_q1_")])
            if index == 1:  # the second question is required by the server too
                one = {
                    "token": started["token"],
                    "screen_index": index,
                    "answers": {field: "3"},
                    "timing": timing,
                }
                assert client.post(f"/api/{made.key}/screen", json=one).status_code == 422
        body = {"token": started["token"], "screen_index": index, "answers": answers, "timing": timing}
        assert client.post(f"/api/{made.key}/screen", json=body).status_code == 200, index
    results = read_prolific(made.db_path)
    data = results.ratings.without_checks().data
    got = {(r.document, r.system, r.criterion): r.score for r in data.itertuples()}
    assert got == entered and len(got) == 2 * 2 * 3  # 2 documents × 3 systems × 2 criteria
    assert [s.points for s in results.ratings.scales] == [5, 7]
    assert results.participants["checks_failed"].tolist() == [0]


def test_time_estimate_counts_every_question():
    one = multi_design("coherence").with_cost(seconds_overhead=0).summary().cost
    four = multi_design().with_cost(seconds_overhead=0).summary().cost
    assert one.seconds_per_screen == 32.0 and four.seconds_per_screen == 4 * 32.0
    assert "× 4 questions per screen" in four.seconds_source
    # 6 summaries + 1 check screen per slot, each at the per-screen time
    assert four.seconds_per_annotator == pytest.approx(7 * 128.0)
    piloted = multi_design().with_cost(seconds_per_screen=50, seconds_overhead=0).summary().cost
    assert piloted.seconds_per_screen == 50 and piloted.seconds_per_annotator == pytest.approx(7 * 50)


def test_datasheet_lists_every_question():
    sheet = multi_design("coherence,fluency:7").datasheet().to_dict()
    quality = sheet["sections"]["quality_criteria"]
    assert quality["criteria"] == (
        'coherence: "How would you rate the coherence of this summary?" (1–5; 1 = Very poor, 5 = Very good); '
        'fluency: "How would you rate the fluency of this summary?" (1–7; 1 = Very poor, 7 = Very good)'
    )


def test_grouped_layout_with_several_questions():
    design = multi_design("coherence,fluency:7", likert_layout="grouped", group_size=3)
    screens = design.table[design.table["system"] != ""].groupby(["annotator_slot", "position"]).size()
    assert set(screens) == {3}  # three summaries per screen, each with both questions
    parsed = parse_mturk_results(answer_all(design, points=(5, 7)), design)
    assert parsed.problems.empty
    data = parsed.ratings.without_checks().data
    assert len(data) == 4 * 6 * 2
    for row in data.itertuples():
        m = ["coherence", "fluency"].index(row.criterion)
        assert row.score == value_of(row.document, row.system, m, (5, 7)[m])
