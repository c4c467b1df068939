"""docs/spans.md's walkthrough runs as written; the injected-error checks and their QC rule."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import OptionError
from humaneval.spans import load_spans
from humaneval.spans.checks import flag_missed_checks, injected_error_checks

DOC = Path(__file__).resolve().parents[1] / "docs" / "spans.md"


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
