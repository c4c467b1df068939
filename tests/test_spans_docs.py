"""docs/spans.md's span study and walkthrough run as written; the injected-error checks and their QC rule."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import OptionError
from humaneval.spans import load_spans
from humaneval.spans.checks import flag_missed_checks, injected_error_checks

DOC = Path(__file__).resolve().parents[1] / "docs" / "spans.md"

#: What a simulated participant marks in system S's text "Summary of d by S.\nIt has two lines.", each
#: with its probability: (start, end, severity, category, probability).
MARKS = {
    "A": [(29, 38, "minor", "Fluency/Grammar", 0.3)],
    "B": [(29, 38, "minor", "Fluency/Grammar", 0.6), (0, 7, "major", "Accuracy/Omission", 0.3)],
    "C": [(22, 24, "major", "Accuracy/Mistranslation", 0.8), (29, 38, "minor", "Fluency/Grammar", 0.3)],
}


def _participants(study_dir: Path, seed: int = 4) -> list[list]:
    """Two participants answer every screen through the server's service; returns every span marked."""
    from humaneval.serve.service import StudyService
    from tests._designs import cell_of

    rng = np.random.default_rng(seed)
    service = StudyService(study_dir, pilot=True)
    timing = {"shown_at": 1.0, "answered_at": 5.0, "seconds": 4.0, "visible_seconds": 4.0, "hidden_count": 0}
    marked = []
    for pid in ("P1", "P2"):
        start = service.start({"prolific_pid": pid, "study_id": "STUDY", "session_id": "S" + pid})
        form = start["form"]
        for index, screen in enumerate(form["slots"][0]["screens"]):
            entry = screen["entries"][0]
            document, system = cell_of(form["texts"][entry["text"]])
            spans = [[a, b, sev, cat] for a, b, sev, cat, p in MARKS[system] if rng.random() < p]
            marked += [[pid, document, system, *span] for span in spans]
            answer = json.dumps({"spans": spans, "score": None})
            service.save_screen(
                {
                    "token": start["token"],
                    "screen_index": index,
                    "answers": {entry["field"]: answer},
                    "timing": timing,
                }
            )
        service.finish({"token": start["token"]})
    return marked


def test_span_study_section_runs(tmp_path, monkeypatch):
    from tests._designs import summary_text

    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## A span study from design to report") : text.index("## Walkthrough")]
    commands = re.findall(r"^\$ humaneval (.+)$", section, re.M)
    assert [c.split()[0] for c in commands] == [
        "design", "serve", "collect", "validate", "reliability", "analyze", "report",
    ]  # fmt: skip
    monkeypatch.chdir(tmp_path)
    cells = [(f"d{i:03d}", s, summary_text(f"d{i:03d}", s)) for i in range(4) for s in "ABC"]
    pd.DataFrame(cells, columns=["document", "system", "text"]).to_csv("summaries.csv", index=False)
    outputs = []
    for k, command in enumerate(commands):
        if k == 2:  # the participants mark spans between serve init and collect
            marked = _participants(tmp_path / "study")
        result = CliRunner().invoke(main, shlex.split(command))
        assert result.exit_code == 0, (command, result.output)
        outputs.append(result.output)
    table = load_spans("spans.csv")
    got = table.spans[["document", "system", "start", "end", "severity", "category"]].astype(str)
    want = pd.DataFrame(marked, columns=["pid", *got.columns]).drop(columns="pid").astype(str)
    assert sorted(map(tuple, got.to_numpy())) == sorted(map(tuple, want.to_numpy()))
    assert len(table.data) == len(table.spans) + int(table.data["start"].isna().sum())
    assert int(table.lengths.iloc[0]) == len(summary_text("d000", "A")) == 39
    assert outputs[3].startswith("spans.csv: valid (span annotations)")
    assert "span_f1" in outputs[4] and "mean score per system" in outputs[5]
    assert "Error spans" in (tmp_path / "report" / "index.html").read_text(encoding="utf-8")


def test_walkthrough_runs(tmp_path, monkeypatch):
    text = DOC.read_text(encoding="utf-8")
    walkthrough = text[text.index("## Walkthrough") :]
    code = re.search(r"```python\n(.*?)```", walkthrough, re.S).group(1)
    commands = re.findall(r"^\$ humaneval (.+)$", walkthrough, re.M)
    assert len(commands) == 4
    monkeypatch.chdir(tmp_path)
    exec(compile(code, str(DOC), "exec"), {})  # the documentation's own snippet
    outputs = []
    for command in commands:
        result = CliRunner().invoke(main, shlex.split(command))
        assert result.exit_code == 0, (command, result.output)
        outputs.append(result.output)
    assert outputs[0].startswith("spans.csv: valid (span annotations)")
    assert "alpha_u" in outputs[1] and "span_f1" in outputs[1]
    esa = json.loads(outputs[3][outputs[3].index("{") :])["criteria"][0]
    # A has a fifth of C's errors: its mean ESA score is the highest
    assert max(esa["mean_score"], key=esa["mean_score"].get) == "A"


def _checks_table():
    rows = [
        ("a", "c1", "s", 3, 6, "major", "accuracy"), ("b", "c1", "s", None, None, None, None),
        ("a", "c2", "s", 10, 12, "minor", "fluency"), ("b", "c2", "s", 0, 2, "minor", "fluency"),
    ]  # fmt: skip
    frame = pd.DataFrame(
        rows, columns=["annotator", "document", "system", "start", "end", "severity", "category"]
    )
    return load_spans(frame.assign(length=20))


def test_injected_error_checks_and_qc_rule():
    injected = pd.DataFrame({"document": ["c1", "c2"], "system": "s", "start": [5, 0], "end": [9, 4]})
    results = injected_error_checks(_checks_table(), injected)
    # a: [3,6) meets [5,9): pass; [10,12) misses [0,4): fail.
    # b: nothing in c1: fail; [0,2) meets [0,4): pass
    assert results[["annotator", "document", "passed"]].values.tolist() == [
        ["a", "c1", True], ["a", "c2", False], ["b", "c1", False], ["b", "c2", True],
    ]  # fmt: skip
    flags = flag_missed_checks(results, min_pass=0.75)
    assert flags["pass_rate"].tolist() == [0.5, 0.5] and flags["flagged"].all()
    assert not flag_missed_checks(results).flagged.any()  # half found passes the default rule
    with pytest.raises(OptionError, match="min_pass"):
        flag_missed_checks(results, min_pass=2)
