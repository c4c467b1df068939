"""Injected-error checks of span studies: the design places them (deterministically), the forms show the
text with its error, the server takes the answer, and collecting scores it (QC: who missed the error)."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.design.generate import generate_design
from humaneval.design.spec import DesignSpec, Summary
from humaneval.errors import DesignError

TEXT = "The {system} summary of {document} says little."


def _spec(seed: int = 1, **extra) -> DesignSpec:
    summaries = [
        Summary(f"d{i}", s, TEXT.format(system=s, document=f"d{i}")) for i in range(4) for s in ("A", "B")
    ]
    options = dict(
        documents=[f"d{i}" for i in range(4)], summaries=summaries, method="spans", documents_per_block=4,
        annotators_per_block=2,
        checks_per_annotator=2, check_kinds=("injected",), seed=seed,
    )  # fmt: skip
    return DesignSpec(**{**options, **extra})


def test_the_design_places_injected_errors_deterministically():
    design = generate_design(_spec())
    checks = design.table[design.table["is_check"]]
    assert checks.groupby("annotator_slot").size().tolist() == [2, 2]
    assert set(checks["check_kind"]) == {"injected"}
    for check in design.checks:
        source = TEXT.format(system=check["system"], document=check["document"])
        shown = design.texts.fillers[check["fillers"][0]]
        start, end = (int(x) for x in check["expected"].split("-"))
        word = shown[start:end]
        # the shown text is the source with one word repeated after itself: the copy is the error
        assert shown == source[: start - 1] + " " + word + source[start - 1 :]
        assert source[start - 1 - len(word) : start - 1] == word
    again = generate_design(_spec())
    assert again.checks == design.checks and again.texts == design.texts
    assert again.table.equals(design.table)
    assert generate_design(_spec(seed=2)).checks != design.checks
    from humaneval.design.plan import Design

    manifest = design.to_json()  # the manifest and texts.json keep the checks and their texts
    back = Design.from_json(manifest, texts=design.texts)
    assert back.to_json() == manifest and back.checks == design.checks


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"check_kinds": ("imc",)}, "span studies check attention with injected errors"),
        ({"method": "likert", "check_kinds": ("injected",)}, "injected-error checks are for span marking"),
    ],
)
def test_injected_checks_belong_to_span_methods(extra, message):
    with pytest.raises(DesignError, match=message):
        generate_design(_spec(**extra))


def test_collect_scores_the_injected_errors(tmp_path, monkeypatch):
    from humaneval.serve.service import StudyService

    monkeypatch.chdir(tmp_path)
    cells = [(f"d{i}", s, TEXT.format(system=s, document=f"d{i}")) for i in range(4) for s in ("A", "B")]
    pd.DataFrame(cells, columns=["document", "system", "text"]).to_csv("summaries.csv", index=False)
    for command in (
        "design --summaries summaries.csv --method spans --check-kind injected --attention-checks 2 "
        "--docs-per-block 4 --annotators-per-block 2 --platform prolific --seed 3 --out design.csv",
        "serve init design.json study/ --completion-code C1A2B3C4 --preset mqm-spans",
    ):
        result = CliRunner().invoke(main, shlex.split(command))
        assert result.exit_code == 0, (command, result.output)
    design = json.loads((tmp_path / "design.json").read_text(encoding="utf-8"))
    expected = {f"ck_{c['id']}": c["expected"] for c in design["checks"]}
    service = StudyService(tmp_path / "study", pilot=True)
    timing = {"shown_at": 1.0, "answered_at": 5.0, "seconds": 4.0, "visible_seconds": 4.0, "hidden_count": 0}
    shown_errors = {}
    for pid, finds in (("P1", True), ("P2", False)):
        start = service.start({"prolific_pid": pid, "study_id": "STUDY", "session_id": "S" + pid})
        form = start["form"]
        for index, screen in enumerate(form["slots"][0]["screens"]):
            entry = screen["entries"][0]
            spans = []
            if entry["field"] in expected:
                low, high = (int(x) for x in expected[entry["field"]].split("-"))
                text = form["texts"][entry["text"]]
                shown_errors[text[low:high]] = text
                if finds:  # P1 marks the repeated word (one character of it is enough)
                    spans = [[high - 1, high + 1 if high < len(text) else high, "minor", "Fluency/Grammar"]]
            answer = json.dumps({"spans": spans, "score": None})
            saved = service.save_screen(
                {"token": start["token"], "screen_index": index, "answers": {entry["field"]: answer},
                 "timing": timing}
            )  # fmt: skip
            assert saved.get("ok", True), saved
        service.finish({"token": start["token"]})
    assert len(shown_errors) >= 1
    assert all(f"{w} {w}" in text for w, text in shown_errors.items())  # the forms showed the error
    result = CliRunner().invoke(main, ["collect", "prolific", "study/", "--out", "spans.csv"])
    assert result.exit_code == 0, result.output
    # P1 (slot a1, the first to start) marked both injected errors, P2 (slot a2) neither
    assert "b000-a1: complete, 2/2 checks passed" in result.output, result.output
    assert "b000-a2: complete, 0/2 checks passed" in result.output, result.output
    from humaneval.collect.prolific import read_prolific

    participants = read_prolific(tmp_path / "study").participants.sort_values("annotator_slot")
    assert participants["checks_failed"].tolist() == [0, 2]
    spans = pd.read_csv("spans.csv")
    assert set(spans["system"]) == {"A", "B"}  # the check texts stay out of the span table
    assert np.isfinite(spans["length"]).all()
