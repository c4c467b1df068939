"""A span study end to end: design → forms (a real browser marks a span with the mouse and one with the
keyboard) → collection server → ``collect`` → ``validate`` → ``reliability`` → ``analyze`` → ``report``.

Annotator 1 works in Debian's chromium; annotator 2 answers through the server's HTTP API. Every text
reads ``Summary of <document> by <system>.\\nIt has two lines.`` (39 characters), so the spans they mark
are known: annotator 1 marks nothing in system A's texts, "two lines" (29–38, minor Fluency/Grammar)
in B's with the mouse and "It" (22–24, major Accuracy/Mistranslation) in C's with the keyboard;
annotator 2's spans are :data:`SECOND`. The expected numbers below are computed by hand from these.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import warnings

import pandas as pd
import pytest
import uvicorn
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.serve import create_app, create_study
from humaneval.serve.loadtest import free_port
from humaneval.spans import item_scores, load_spans
from humaneval.spans.scoring import default_scoring
from tests._designs import cell_of, cell_texts, tiny_design

pytestmark = pytest.mark.browser

COMPLETE = "https://app.prolific.com/submissions/complete?cc=CODE1234"
TEXT_LENGTH = 39
TIMING = {"shown_at": 1.0, "answered_at": 9.0, "seconds": 8.0, "visible_seconds": 8.0, "hidden_count": 0}


def second_annotator(document: str, system: str) -> list[list]:
    """The spans annotator 2 marks (through the API) in one text."""
    return SECOND[(document, system)]


SECOND = {
    ("d000", "A"): [[0, 7, "minor", "Fluency/Spelling"]],
    ("d001", "A"): [],
    ("d002", "A"): [[22, 24, "major", "Accuracy/Mistranslation"]],
    ("d000", "B"): [[29, 38, "minor", "Fluency/Grammar"]],
    ("d001", "B"): [],
    ("d002", "B"): [[0, 7, "major", "Accuracy/Mistranslation"], [29, 38, "minor", "Fluency/Grammar"]],
    ("d000", "C"): [[22, 28, "major", "Accuracy/Mistranslation"]],
    ("d001", "C"): [[29, 38, "minor", "Fluency/Grammar"]],
    ("d002", "C"): [[22, 28, "major", "Accuracy/Mistranslation"]],
}
"""Annotator 2's spans per (document, system)."""


@contextlib.contextmanager
def served(tmp_path, preset: str = "mqm-spans", documents: int = 3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = tiny_design(
            "spans",
            documents=documents,
            documents_per_block=documents,
            annotators_per_block=2,
            checks_per_annotator=0,
            seed=5,
            platform="prolific",
        )
    study = create_study(
        design, tmp_path / "study", texts=cell_texts(design), completion_code="CODE1234", preset=preset
    )
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(study.study_dir, pilot=True), host="127.0.0.1", port=port, log_level="error"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    stop = time.monotonic() + 20
    while not server.started and time.monotonic() < stop:
        time.sleep(0.02)
    try:
        yield design, study, f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def mark_with_mouse(page, start: int, end: int, category: str) -> None:
    """Drag across characters start..end-1 of the text, choose the category, click Mark."""
    first = page.locator(f".span-text .ch[data-i='{start}']").bounding_box()
    last = page.locator(f".span-text .ch[data-i='{end - 1}']").bounding_box()
    page.mouse.move(first["x"] + 1, first["y"] + first["height"] / 2)
    page.mouse.down()
    page.mouse.move(last["x"] + last["width"] - 1, last["y"] + last["height"] / 2, steps=5)
    page.mouse.up()
    page.locator(".span-category select").select_option(category)
    page.locator(".span-controls button").click()


def mark_with_keyboard(page, start: int, end: int) -> None:
    """Focus the text, move the caret to ``start``, extend with Shift+→, Tab to the severity radios,
    choose major with →, and press M there."""
    page.locator(".span-text").focus()
    page.keyboard.press("Home")
    for _ in range(start):
        page.keyboard.press("ArrowRight")
    for _ in range(end - start):
        page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Tab")  # the severity radios (minor is checked)
    page.keyboard.press("ArrowRight")  # major
    page.keyboard.press("m")


def browser_annotator(page, url: str, key: str, n: int) -> dict[tuple[str, str], list[str]]:
    """Annotator 1's session; returns the marks list the page shows per cell."""
    page.route(
        "https://app.prolific.com/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<p id='prolific'>ok</p>"),
    )
    page.goto(f"{url}/s/{key}/?PROLIFIC_PID=BROWSER1&STUDY_ID=STUDY1&SESSION_ID=SES1")
    page.click("#hx-start-button")
    shown = {}
    for k in range(n):
        page.wait_for_selector(f"#hx-heading:has-text('Screen {k + 1} of {n}')")
        cell = cell_of(page.locator(".span-text").inner_text())
        assert cell is not None
        if cell[1] == "B":
            mark_with_mouse(page, 29, 38, "Fluency/Grammar")
        elif cell[1] == "C":
            mark_with_keyboard(page, 22, 24)
        shown[cell] = page.locator(".span-list li span").all_inner_texts()
        if k == n - 1:
            with page.expect_navigation(url=COMPLETE):
                page.click("#hx-next")
        else:
            page.click("#hx-next")
    return shown


def api_annotator(page, url: str, key: str) -> None:
    """Annotator 2 through the server's JSON API (what the form would post)."""
    start = page.request.post(
        f"{url}/api/{key}/start", data={"prolific_pid": "API2", "study_id": "STUDY1", "session_id": "SES2"}
    ).json()
    form = start["form"]
    for index, screen in enumerate(form["slots"][0]["screens"]):
        entry = screen["entries"][0]
        if index == 0:  # a span past the text's end is refused, naming the field and what is wrong
            bad = json.dumps({"spans": [[30, 45, "minor", "Style"]], "score": None})
            refused = page.request.post(
                f"{url}/api/{key}/screen",
                data={
                    "token": start["token"],
                    "screen_index": 0,
                    "answers": {entry["field"]: bad},
                    "timing": TIMING,
                },
            )
            assert refused.status == 422
            assert refused.json()["details"] == [
                f"{entry['field']}: span 1: ends at 45, past the text's 39 characters"
            ]
        document, system = cell_of(form["texts"][entry["text"]])
        answer = json.dumps({"spans": second_annotator(document, system), "score": None})
        saved = page.request.post(
            f"{url}/api/{key}/screen",
            data={
                "token": start["token"],
                "screen_index": index,
                "answers": {entry["field"]: answer},
                "timing": TIMING,
            },
        )
        assert saved.ok, saved.text()
    assert page.request.post(f"{url}/api/{key}/finish", data={"token": start["token"]}).ok


def run(*args: object) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def run_json(*args: object) -> dict:
    """The --json output (warnings on stderr come first in the runner's output)."""
    output = run(*args, "--json")
    return json.loads(output[output.index("\n{") + 1 :] if not output.startswith("{") else output)


def test_a_span_study_from_design_to_report(page, tmp_path):
    with served(tmp_path) as (design, study, url):
        n = int(design.table.groupby("annotator_slot").size().iloc[0])
        shown = browser_annotator(page, url, study.key, n)
        api_annotator(page, url, study.key)
    assert page.errors == []
    assert shown[("d000", "B")] == ["“two lines” — minor, Fluency/Grammar "]
    assert shown[("d001", "C")] == ["“It” — major, Accuracy/Mistranslation "]
    assert shown[("d002", "A")] == []

    spans = tmp_path / "spans.csv"
    assert "wrote the span table" in run("collect", "prolific", study.study_dir, "--out", spans)
    validated = run_json("validate", spans)
    assert validated["kind"] == "span annotations"
    # annotator 1: 3 in B, 3 in C; annotator 2: 2 in A, 3 in B, 3 in C
    assert (validated["n_spans"], validated["n_items"], validated["n_annotators"]) == (14, 9, 2)
    assert validated["n_unmarked"] == 5  # annotator 1's three A texts, annotator 2's d001 of A and B

    reliability = run_json("reliability", spans, "--resamples", "0")
    # character F1 per item (2|A∩B| / (|A| + |B|)), the item where neither marked anything skipped:
    # A 0, 0 (one side empty); B 1, 0, 2·9/(9+16) = 0.72; C 2·2/(2+6) = 0.5, 0, 0.5 → 2.72 / 8
    assert reliability["span_f1"] == pytest.approx(2.72 / 8)
    assert reliability["scoring"] == "mqm"

    out = run_json("analyze", spans, "--scoring", "mqm", "--structure", "intercepts")
    result = out["criteria"][0]
    # MQM (minor 1, major 5, negated): A (0, 0, 0 | −1, 0, −5), B (−1, −1, −1 | −1, 0, −6),
    # C (−5, −5, −5 | −5, −1, −5)
    assert result["mean_score"] == pytest.approx({"A": -1.0, "B": -10 / 6, "C": -26 / 6})
    assert result["kind"] == "spans"

    report = tmp_path / "report"
    run_json("report", spans, "--scoring", "mqm", "--structure", "intercepts", "--out", report, "--heds")
    data = json.loads((report / "report.json").read_text(encoding="utf-8"))
    assert data["spans"]["mean_score"] == pytest.approx(result["mean_score"])
    assert data["spans"]["span_f1"] == pytest.approx(2.72 / 8)

    def estimates(contrasts: list[dict]) -> list[tuple]:
        return [
            (c["system_a"], c["system_b"], round(c["estimate"], 6), round(c["p_adj"], 6)) for c in contrasts
        ]

    # the report's span section and its results section show the model of `humaneval analyze`
    assert estimates(data["spans"]["contrasts"]) == estimates(result["contrasts"])
    assert estimates(data["criteria"][0]["analysis"]["contrasts"]) == estimates(result["contrasts"])
    heds = json.loads((report / "heds.json").read_text(encoding="utf-8"))
    agreement = heds["heds-criteria-criterion-response_elicitation-inter_annotator-agreement_score"]
    assert f"span F1 = {2.72 / 8:.3f}" in agreement["data"]["score"]  # the HEDS criterion of the scores
    html = (report / "index.html").read_text(encoding="utf-8")
    assert "Error spans" in html and "unitizing" in html


def test_an_esa_form_asks_for_the_score_after_marking(page, tmp_path):
    """ESA: the score slider must be moved (by keyboard here) before the next screen; the collected
    table carries each item's score on its rows."""
    with served(tmp_path, preset="esa-spans", documents=1) as (_, study, url):
        page.route(
            "https://app.prolific.com/**",
            lambda route: route.fulfill(status=200, content_type="text/html", body="<p id='prolific'>ok</p>"),
        )
        page.goto(f"{url}/s/{study.key}/?PROLIFIC_PID=ESA1&STUDY_ID=STUDY1&SESSION_ID=SES1")
        page.click("#hx-start-button")
        scores = {}
        for k in range(3):
            page.wait_for_selector(f"#hx-heading:has-text('Screen {k + 1} of 3')")
            cell = cell_of(page.locator(".span-text").inner_text())
            assert page.locator(".span-category").is_hidden()  # one category: nothing to choose
            if cell[1] == "B":
                mark_with_keyboard(page, 22, 24)
            page.click("#hx-next")
            assert page.locator("#hx-error").inner_text() == "Please move the slider to score the text."
            slider = page.locator(".spans input[type=range]")
            slider.focus()
            for _ in range(k + 1):
                page.keyboard.press("ArrowRight")
            scores[cell] = 50 + k + 1
            if k == 2:
                with page.expect_navigation(url=COMPLETE):
                    page.click("#hx-next")
            else:
                page.click("#hx-next")
    assert page.errors == []
    spans = tmp_path / "esa.csv"
    run("collect", "prolific", study.study_dir, "--out", spans)
    table = pd.read_csv(spans)
    got = table.groupby(["document", "system"])["score"].first().to_dict()
    assert got == {cell: float(score) for cell, score in scores.items()}
    marked = table[table["start"].notna()]
    assert marked[["system", "start", "end", "severity", "category"]].values.tolist() == [
        ["B", 22, 24, "major", "error"]
    ]
    loaded = load_spans(spans)
    assert default_scoring(loaded) == "esa"  # the rule of a table with scores, unless --scoring says
    esa = item_scores(loaded, "esa")
    assert esa.set_index(["document", "system"])["score"].to_dict() == got
