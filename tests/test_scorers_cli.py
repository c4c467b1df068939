"""``humaneval score faithfulness|coherence|bias``: JSONL in, metric tables out (joinable with metaeval)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.io.tables import write_table
from humaneval.scorers import make_probes

pytestmark = [
    pytest.mark.filterwarnings("ignore::humaneval.scorers.result.EmptyInputWarning"),
    pytest.mark.filterwarnings("ignore::humaneval.scorers.result.UndefinedScoreWarning"),
]

ROWS = [
    {"document": "d1", "system": "A", "source": "The cat sat on the mat.", "summary": "The cat ran home."},
    {
        "document": "d1",
        "system": "B",
        "source": "The cat sat on the mat.",
        "summary": "The cat sat. The cat left.",
    },
    {"document": "d2", "system": "A", "source": "A dog barked.", "summary": ""},
]


@pytest.fixture
def input_path(tmp_path):
    path = tmp_path / "summaries.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    return path


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_lexical_faithfulness_json_and_a_metric_table_metaeval_reads(input_path, tmp_path):
    from humaneval.metaeval.data import read_scores

    result = run("score", "faithfulness", input_path, "--backend", "lexical", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["method"] == "lexical-overlap-fallback (not NLI)"
    assert [r["faithfulness"] for r in payload["rows"]] == [pytest.approx(-1 / 3), 0.5, None]
    assert payload["meta"]["n_empty"] == 1
    out = tmp_path / "lexical.csv"
    assert run("score", "faithfulness", input_path, "--backend", "lexical", "--out", out).exit_code == 0
    scores = read_scores(out)
    assert scores.loc[("d1", "B")] == 0.5  # 3 of the content tokens cat, sat, cat, left are in the source
    assert np.isnan(scores.loc[("d2", "A")])


def test_coherence_table(input_path, tmp_path):
    out = tmp_path / "egr.jsonl"
    result = run("score", "coherence", input_path, "--builder", "lexical", "--out", out)
    assert result.exit_code == 0 and "lexical-approximation" in result.output
    table = pd.read_json(out, lines=True)
    assert list(table.columns) == ["document", "system", "coherence"]
    # "The cat sat. The cat left." → grids {cat, sat} / {cat, left} → arc 1 → 1/2
    assert np.isnan(table["coherence"][0]) and table["coherence"][1] == 0.5  # one sentence: undefined


def test_coherence_names_the_spacy_model_it_needs(input_path, monkeypatch):
    import spacy

    def absent(name, *args, **kwargs):
        raise OSError(f"[E050] Can't find model '{name}'")

    monkeypatch.setattr(spacy, "load", absent)
    result = CliRunner().invoke(main, ["score", "coherence", str(input_path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "en_core_web_sm" in result.output and "python -m spacy download en_core_web_sm" in result.output


def test_unconfigured_nli_model_is_one_line_exit_2(input_path, monkeypatch):
    monkeypatch.delenv("HUMANEVAL_NLI_MODEL", raising=False)
    result = CliRunner().invoke(main, ["score", "faithfulness", str(input_path)])
    assert result.exit_code == 2
    assert "no NLI model configured" in result.output and len(result.output.strip().splitlines()) == 1


def test_missing_columns_are_named(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"document": "d", "system": "s", "summary": "x"}) + "\n")
    result = CliRunner().invoke(main, ["score", "faithfulness", str(path), "--backend", "lexical"])
    assert result.exit_code == 2 and "missing column(s) source" in result.output
    for args in (["coherence", str(tmp_path)], ["bias", str(path), "--name-table", str(tmp_path)]):
        result = CliRunner().invoke(main, ["score", *args])
        assert result.exit_code == 2 and "is a folder" in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_bias_report_on_probes(tmp_path):
    probes = make_probes(
        ["{name1} won the race. {name2} came second. {name3} thanked {his3} coach."], n_samples=3, seed=2
    )
    probes = probes.drop(columns=["group"]).assign(
        system="first-sentence", summary=[s.split(". ")[0] + "." for s in probes["source"]]
    )
    path = write_table(probes, tmp_path / "probes.jsonl")
    result = run("score", "bias", path, "--resamples", "50", "--smoothing", "0.5", "--json")
    assert result.exit_code == 0, result.output
    rows = {r["measure"]: r for r in json.loads(result.output)["rows"]}
    assert set(rows) == {"word_list_inclusion", "entity_inclusion", "hallucination"}
    # slot 1 is always kept and filled by each group equally often → no inclusion bias
    assert rows["entity_inclusion"]["score"] == 0.0 and rows["entity_inclusion"]["biased"] is False
    assert rows["hallucination"]["score"] is None  # no hallucinated people: NaN → null


def test_coherence_lexical_measures(input_path):
    result = run("score", "coherence", input_path, "--measure", "repeated-ngrams", "--n", "1", "--json")
    payload = json.loads(result.output)
    assert payload["method"] == "repeated-1-gram-share"
    # "The cat sat. The cat left.": the, cat repeated of the, cat, sat, left
    assert [r["coherence"] for r in payload["rows"]] == [0.0, 0.5, None]
