"""SummEval's model_annotations.aligned.jsonl → ratings table (issue 18), on a small file in that format."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.collect import load_summeval
from humaneval.errors import RatingsError

DOCS = (
    "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2",
    "cnn-test-11d37c5ad9c4e6b3a8f0ab3d0f7d2ac5c7a8b9c1",
)
SYSTEMS = ("M11", "M23")


def expert(d: int, s: int, k: int) -> dict[str, int]:
    """Experts agree perfectly on fluency (α = 1) and disagree elsewhere."""
    return {
        "coherence": 1 + (d + 2 * s + k) % 5,
        "consistency": 5 - (d + k) % 3,
        "fluency": 2 + d + s,
        "relevance": 1 + (3 * d + s + 2 * k) % 5,
    }


def turker(d: int, s: int, k: int) -> dict[str, int]:
    return {
        c: 1 + (d + s + k + i) % 5 for i, c in enumerate(("coherence", "consistency", "fluency", "relevance"))
    }


def line(d: int, s: int, **changes) -> dict:
    item = {
        "id": DOCS[d],
        "model_id": SYSTEMS[s],
        "decoded": f"summary {d} {s}",
        "expert_annotations": [expert(d, s, k) for k in range(3)],
        "turker_annotations": [turker(d, s, k) for k in range(5)],
        "references": ["a reference"],
        "filepath": f"cnndm/dailymail/stories/{DOCS[d]}.story",
        "text": "the source article",
    }
    return {**item, **changes}


@pytest.fixture
def annotations(tmp_path):
    path = tmp_path / "model_annotations.aligned.jsonl"
    path.write_text(
        "".join(json.dumps(line(d, s)) + "\n" for d in range(2) for s in range(2)), encoding="utf-8"
    )
    return path


def test_experts_by_default(annotations):
    ratings = load_summeval(annotations)
    data = ratings.data
    assert len(data) == 2 * 2 * 3 * 4  # documents × systems × experts × criteria
    assert ratings.criteria == ["coherence", "consistency", "fluency", "relevance"]
    assert sorted(data["annotator"].unique()) == ["expert1", "expert2", "expert3"]
    row = data[(data["annotator"] == "expert2") & (data["document"] == DOCS[1]) & (data["system"] == "M23")]
    assert row.set_index("criterion")["score"].to_dict() == expert(1, 1, 1)
    assert ratings.scale_declared and [s.points for s in ratings.scales] == [5, 5, 5, 5]
    assert set(data["annotator_group"]) == {"expert"}


def test_turkers_both_and_subsets(annotations):
    turkers = load_summeval(annotations, annotations="turker", criteria=("fluency",))
    assert len(turkers) == 2 * 2 * 5 and turkers.criteria == ["fluency"]
    assert sorted(turkers.data["annotator"].unique()) == [f"turker{k}" for k in range(1, 6)]
    unique = load_summeval(annotations, annotations="turker", annotators="unique")
    assert unique.data["annotator"].nunique() == 2 * 2 * 5
    both = load_summeval(annotations, annotations="both")
    assert len(both) == 2 * 2 * 8 * 4
    assert both.data.groupby("annotator_group").size().to_dict() == {"expert": 48, "turker": 80}


@pytest.mark.parametrize(
    "bad,message",
    [
        ('{"id": "d", "model_id": "M1", "expert_annotations": [{"coherence": 6, "consistency": 1, '
         '"fluency": 1, "relevance": 1}], "turker_annotations": []}',
         r"score 6 at line 2 is outside the declared scale 1-5 of criterion 'coherence'"),
        ('{"id": "d", "expert_annotations": []}', r"line 2: no 'model_id'"),
        ("{not json", r"line 2: not valid JSON"),
        ('{"id": "d", "model_id": "M1", "expert_annotations": [{"coherence": 2}]}', r"has no 'consistency'"),
        ('{"id": "d", "model_id": "M1", "expert_annotations": 3}', r"'expert_annotations' must be a list"),
    ],
)  # fmt: skip
def test_malformed_lines_are_one_line_errors(tmp_path, bad, message):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(line(0, 0)) + "\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(RatingsError, match=message):
        load_summeval(path)


def test_unknown_criterion(annotations):
    with pytest.raises(RatingsError, match="SummEval has no criterion 'clarity'"):
        load_summeval(annotations, criteria=("clarity",))


def test_cli_then_reliability_per_criterion(annotations, tmp_path):
    runner = CliRunner()
    out = tmp_path / "summeval.csv"
    result = runner.invoke(main, ["collect", "summeval", str(annotations), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote 48 ratings (2 documents × 2 systems, 3 annotators" in result.output
    assert (tmp_path / "summeval.scale.json").is_file()
    payload = json.loads(runner.invoke(main, ["reliability", str(out), "--json", "--resamples", "0"]).output)
    alphas = {c["criterion"]: c["alpha"] for c in payload["criteria"]}
    assert alphas["fluency"] == pytest.approx(1.0)  # the experts agree perfectly on fluency
    assert len(payload["correlations"]) == 6
    valid = runner.invoke(main, ["validate", str(out)])
    assert "score, scale 1-5 (declared)" in valid.output
