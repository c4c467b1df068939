"""The forms in a real browser (Debian chromium via Playwright): fill, submit, parse back (issue 4).

A local HTTP server on 127.0.0.1 serves the generated preview pages and captures the POST to
``/mturk/externalSubmit``; the captured fields become a batch-results row that
:func:`humaneval.collect.parse_mturk_results` must turn back into exactly the ratings entered.
The test reads which summary it sees from the page text (never from field names), so a wrong
field mapping would surface as a mismatch.
"""

from __future__ import annotations

import csv
import functools
import http.server
import os
import re
import threading
import urllib.parse
from pathlib import Path

import pandas as pd
import pytest

from humaneval.collect import parse_mturk_results, results_row
from humaneval.forms import Texts, write_forms
from tests._designs import cell_of, cell_texts, tiny_design

pytestmark = pytest.mark.browser

HOSTILE = '</script><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> & ${x}'


class _Handler(http.server.SimpleHTTPRequestHandler):
    posts: list[dict[str, str]]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode("utf-8")
        if self.path.startswith("/mturk/externalSubmit"):
            self.posts.append(dict(urllib.parse.parse_qsl(body, keep_blank_values=True)))
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"<p id='done'>received</p>")

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("www")
    posts: list[dict[str, str]] = []
    handler = type("Handler", (_Handler,), {"posts": posts})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield {"root": root, "origin": f"http://127.0.0.1:{httpd.server_address[1]}", "posts": posts}
    httpd.shutdown()
    httpd.server_close()


def build(server, name: str, method: str, texts=None, **spec) -> tuple:
    design = tiny_design(method, **spec)
    texts = texts or cell_texts(design)
    write_forms(
        design, texts, server["root"] / name, extra_submit_origins=(server["origin"],), hit_per="block"
    )
    return design, f"{server['origin']}/{name}/preview/b000.html"


def fnv1a(text: str) -> int:
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) % 2**32
    return h


def check_preview(page, url: str) -> None:
    page.goto(f"{url}?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
    assert page.locator("#hx-preview").inner_text() == "Preview only — accept the HIT to begin."
    controls = "document.querySelectorAll('input, select, textarea, button')"
    enabled = page.evaluate(f"Array.from({controls}).filter(e => !e.disabled).length")
    controls = page.evaluate(f"{controls}.length")
    assert controls > 3 and enabled == 0


def open_form(page, url: str, server, assignment: str) -> None:
    query = urllib.parse.urlencode(
        {
            "assignmentId": assignment,
            "hitId": "HIT1",
            "workerId": "W" + assignment,
            "turkSubmitTo": server["origin"],
        }
    )
    page.goto(f"{url}?{query}")
    page.click("#hx-start-button")


def submit_and_parse(page, server, design, assignment: str):
    n_before = len(server["posts"])
    with page.expect_navigation():
        page.click("#hx-next")
    assert page.locator("#done").inner_text() == "received"
    assert len(server["posts"]) == n_before + 1
    fields = server["posts"][-1]
    assert fields["assignmentId"] == assignment
    slot = f"b000-a{fnv1a(assignment) % 2 + 1}"
    assert fields["slot"] == slot  # spec §4.1: FNV-1a(assignmentId) mod a picks the slot
    row = results_row(fields, assignment_id=assignment, worker_id="W" + assignment, work_time=60)
    parsed = parse_mturk_results(pd.DataFrame([row]), design)
    assert parsed.problems.empty, parsed.problems.to_dict("records")
    assert page.errors == []
    return parsed


def screen_id(page) -> str:
    return page.locator("#hx-screen").get_attribute("data-screen")


def test_likert_round_trip_and_required_answer(page, server):
    design, url = build(server, "likert", "likert")
    check_preview(page, url)
    open_form(page, url, server, "ASSIGNLK1")
    n = len(design.table[design.table["annotator_slot"] == "b000-a1"])
    entered = {}
    for k in range(n):
        assert page.locator("#hx-heading").inner_text() == f"Screen {k + 1} of {n}"
        if k == 0:  # required answer: nothing is recorded and the first radio gets focus
            page.click("#hx-next")
            assert page.locator("#hx-error").inner_text() == "Please choose a value on the scale."
            assert page.locator("#hx-heading").inner_text() == f"Screen 1 of {n}"
            assert page.evaluate("document.activeElement.type") == "radio"
        text = page.locator(".text").first.inner_text()
        cell = cell_of(text)
        if cell is None:
            value = int(re.search(r"choose (\d)", text).group(1))
        else:
            value = 1 + (ord(cell[1]) * 3 + k) % 7
            entered[cell] = value
        page.click(f"label.point:has(input[value='{value}'])")
        if k == 1:
            page.fill("#hx-comment", "é 😀 שלום ${x} <b>")
        if k < n - 1:
            page.click("#hx-next")
    assert page.locator("#hx-next").inner_text() == "Submit"
    parsed = submit_and_parse(page, server, design, "ASSIGNLK1")
    got = {(r.document, r.system): r.score for r in parsed.ratings.without_checks().data.itertuples()}
    assert got == entered and len(got) == 3
    assert parsed.workers[["checks_total", "checks_failed"]].values.tolist() == [[1, 0]]
    assert (parsed.table["comment"] == "é 😀 שלום ${x} <b>").sum() == 1  # unicode survives POST → CSV → table
    assert (parsed.table["seconds"] > 0).all()


def _rank_screen_target(page) -> list[int]:
    """Desired order of the current list: real summaries by system name descending, check last."""
    texts = page.locator(".rank-item .text").all_inner_texts()
    real = sorted(
        (i for i, t in enumerate(texts) if cell_of(t)), key=lambda i: cell_of(texts[i])[1], reverse=True
    )
    return real + [i for i, t in enumerate(texts) if not cell_of(t)]


@pytest.mark.parametrize("mode", ["drag", "keyboard"])
def test_ranking_round_trip(page, server, mode):
    design, url = build(
        server, f"rank-{mode}", "rank", documents=2, documents_per_block=2, systems=["A", "B", "C", "D"]
    )
    check_preview(page, url)
    assignment = f"ASSIGNRK{mode}"
    open_form(page, url, server, assignment)
    entered = {}
    moves = 0
    n = design.table["position"].max() + 1
    for k in range(n):
        if k == 0:
            page.click("#hx-next")
            assert "Please put the summaries in order" in page.locator("#hx-error").inner_text()
        items = page.locator(".rank-item")
        target = _rank_screen_target(page)
        texts = page.locator(".rank-item .text").all_inner_texts()
        wanted = [texts[i] for i in target]
        for p, text in enumerate(wanted):
            current = page.locator(".rank-item .text").all_inner_texts()
            src = current.index(text)
            moves += src != p
            if mode == "drag":
                if src != p or p == 0:
                    items.nth(src).drag_to(items.nth(p), target_position={"x": 30, "y": 5})
            elif p == len(wanted) - 1 and src == p - 1:
                items.nth(src).locator("button.down").focus()
                page.keyboard.press("Enter")
                assert page.evaluate("document.activeElement.className") == "move down"
            else:
                items.nth(src).locator("select").select_option(str(p + 1))
                label = page.evaluate("document.activeElement.id")
                assert label == items.nth(p).locator("select").get_attribute("id")
        assert page.locator(".rank-item .text").all_inner_texts() == wanted
        assert [s.input_value() for s in page.locator(".rank-item select").all()] == [
            str(i + 1) for i in range(len(wanted))
        ]
        real = [cell_of(t) for t in wanted if cell_of(t)]
        entered.update({cell: r + 1 for r, cell in enumerate(real)})
        if k < n - 1:
            page.click("#hx-next")
    assert moves >= 2
    parsed = submit_and_parse(page, server, design, assignment)
    got = {(r.document, r.system): r.rank for r in parsed.ratings.data.itertuples()}
    assert got == entered and len(got) == 8
    assert parsed.workers[["checks_total", "checks_failed"]].values.tolist() == [[1, 0]]


def test_ranking_with_ties_stores_competition_ranks(page, server):
    design, url = build(server, "rank-ties", "rank", systems=["A", "B", "C", "D"], checks_per_annotator=0)
    write_forms(
        design,
        cell_texts(design),
        server["root"] / "rank-ties",
        allow_ties=True,
        extra_submit_origins=(server["origin"],),
        hit_per="block",
    )
    open_form(page, url, server, "ASSIGNTIE")
    raw = {"A": 2, "B": 2, "C": 1, "D": 3}
    for system, rank in raw.items():
        item = page.locator(".rank-item", has_text=f"Summary of d000 by {system}.")
        item.locator("select").select_option(str(rank))
    texts = page.locator(".rank-item .text").all_inner_texts()
    assert [cell_of(t)[1] for t in texts] == ["C", "A", "B", "D"]  # re-sorted by rank, stable
    parsed = submit_and_parse(page, server, design, "ASSIGNTIE")
    got = parsed.ratings.data.set_index("system")["rank"].to_dict()
    assert got == {"A": 2, "B": 2, "C": 1, "D": 4}  # competition ranking 1, 2, 2, 4
    assert parsed.table.set_index("system")["raw_value"].to_dict() == {"A": "2", "B": "2", "C": "1", "D": "3"}


def test_bws_round_trip(page, server):
    design, url = build(
        server, "bws", "bws", systems=["A", "B", "C", "D"], bws={"tuple_size": 3, "factor": 1.0}
    )
    check_preview(page, url)
    open_form(page, url, server, "ASSIGNBW1")
    n = design.table["position"].max() + 1
    entered = {}
    for k in range(n):
        sid = screen_id(page)
        rows = page.locator("table.bws tbody tr")
        texts = page.locator("table.bws .text").all_inner_texts()
        cells = [cell_of(t) for t in texts]
        if None in cells:
            check = cells.index(None)
            other = (check + 1) % len(cells)
            best, worst = (check, other) if "'Most coherent'" in texts[check] else (other, check)
        else:
            order = sorted(range(len(cells)), key=lambda i: cells[i][1])
            best, worst = order[0], order[-1]
            if k == 0:  # best and worst on the same row is refused
                rows.nth(best).locator("input").nth(0).check()
                rows.nth(best).locator("input").nth(1).check()
                page.click("#hx-next")
                assert page.locator("#hx-error").inner_text() == "Best and worst must be different summaries."
            for i, cell in enumerate(cells):
                entered[(sid, *cell)] = 1.0 if i == best else -1.0 if i == worst else 0.0
        rows.nth(best).locator("input").nth(0).check()
        rows.nth(worst).locator("input").nth(1).check()
        if k < n - 1:
            page.click("#hx-next")
    parsed = submit_and_parse(page, server, design, "ASSIGNBW1")
    real = parsed.table[~parsed.table["is_check"]]
    got = {(r.screen_id, r.document, r.system): r.value for r in real.itertuples()}
    assert got == entered and len(got) == 12
    assert parsed.workers[["checks_total", "checks_failed"]].values.tolist() == [[1, 0]]
    scores = parsed.ratings.data.set_index("system")["score"]  # one row per tuple a summary was in
    assert scores["A"].mean() == pytest.approx(sum(v for (_, _, s), v in entered.items() if s == "A") / 3)


def test_pairwise_round_trip(page, server):
    design, url = build(server, "pairwise", "pairwise")
    check_preview(page, url)
    open_form(page, url, server, "ASSIGNPW1")
    n = design.table["position"].max() + 1
    entered = {}
    for k in range(n):
        sid = screen_id(page)
        texts = page.locator(".pair .text").all_inner_texts()
        cells = [cell_of(t) for t in texts]
        if None in cells:
            side = "AB"[cells.index(None)]
        else:
            side = ["A", "B", "tie"][k % 3]
            won = {"A": (1.0, 0.0), "B": (0.0, 1.0), "tie": (0.5, 0.5)}[side]
            entered.update({(sid, *cell): w for cell, w in zip(cells, won, strict=True)})
        page.click(f"label.point:has(input[value='{side}'])")
        if k < n - 1:
            page.click("#hx-next")
    parsed = submit_and_parse(page, server, design, "ASSIGNPW1")
    real = parsed.table[~parsed.table["is_check"]]
    assert {(r.screen_id, r.document, r.system): r.value for r in real.itertuples()} == entered
    assert len(entered) == 6
    assert parsed.workers[["checks_total", "checks_failed"]].values.tolist() == [[1, 0]]


def test_hostile_texts_render_literally(page, server):
    design = tiny_design("likert", systems=["A", "B"], annotators_per_block=1, seed=1, checks_per_annotator=0)
    texts = Texts({("d000", "A"): HOSTILE, ("d000", "B"): "]]> é 😀 שלום"})
    write_forms(
        design, texts, server["root"] / "hostile", consent="I consent to **take part**.", hit_per="block"
    )
    page.goto(f"{server['origin']}/hostile/preview/b000.html?slot=b000-a1")
    assert page.locator(".consent strong").inner_text() == "take part"
    page.click("#hx-start-button")  # consent not given: the task does not start
    assert page.locator("#hx-start .error").inner_text() == "If you do not agree, please return the task."
    page.check("#hx-consent")
    page.click("#hx-start-button")
    shown = set()
    for _ in range(2):
        shown.add(page.locator(".text").first.inner_text())
        assert page.evaluate("document.querySelectorAll('img').length") == 0
        page.click("label.point:has(input[value='3'])")
        page.click("#hx-next")
    assert shown == {HOSTILE, "]]> é 😀 שלום"}
    assert page.evaluate("window.__pwned === undefined")
    assert page.errors == []
    # local test mode (no assignmentId): nothing is sent, the fields are listed instead
    assert '"slot": "b000-a1"' in page.locator("#hx-fields").inner_text()


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_layout_has_no_horizontal_scroll(browser, server, width, height, tmp_path):
    long_word = "Unbreakable" * 30
    systems = ["A", "B", "C", "D", "E"]
    texts = Texts({("d000", s): f"Summary of d000 by {s}. {long_word}" for s in systems})
    for method in ("likert", "rank", "bws", "pairwise"):
        _, url = build(
            server, f"layout-{method}-{width}", method, texts=texts, systems=systems, checks_per_annotator=0
        )
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(f"{url}?slot=b000-a1")
        page.click("#hx-start-button")
        overflow = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert overflow[0] <= overflow[1], overflow
        path = Path(os.environ.get("HUMANEVAL_SCREENSHOTS", tmp_path)) / f"{method}-{width}x{height}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 5000
        context.close()


def test_foreign_turk_submit_to_falls_back_to_the_sandbox(page, server):
    design = tiny_design("likert", systems=["A", "B"], annotators_per_block=1, seed=2, checks_per_annotator=0)
    # no extra submit origins: only MTurk's are accepted
    write_forms(design, cell_texts(design), server["root"] / "origin", hit_per="block")
    captured = []

    def fulfil(route):
        captured.append((route.request.url, route.request.post_data))
        route.fulfill(status=200, content_type="text/html", body="<p id='done'>sandbox</p>")

    page.route("https://workersandbox.mturk.com/**", fulfil)
    query = urllib.parse.urlencode({"assignmentId": "A9", "turkSubmitTo": "https://evil.example.com"})
    page.goto(f"{server['origin']}/origin/preview/b000.html?{query}")
    page.click("#hx-start-button")
    for _ in range(2):
        page.click("label.point:has(input[value='4'])")
        page.click("#hx-next")
    page.wait_for_selector("#done")
    assert [url for url, _ in captured] == ["https://workersandbox.mturk.com/mturk/externalSubmit"]
    fields = dict(urllib.parse.parse_qsl(captured[0][1]))
    assert fields["assignmentId"] == "A9" and fields["lk_q0_d0_s0"] == "4" and fields["lk_q0_d0_s1"] == "4"


def test_batch_template_decodes_the_base64url_payload(page, server):
    design = tiny_design("likert", systems=["A", "B"], annotators_per_block=1, seed=3, checks_per_annotator=0)
    texts = Texts({("d000", "A"): "é 😀 שלום ${payload}", ("d000", "B"): "plain"})
    folder = server["root"] / "batch"
    write_forms(design, texts, folder, route="batch", hit_per="block")
    with open(folder / "batch_input.csv", newline="", encoding="utf-8") as fh:
        row = next(csv.DictReader(fh))
    # what MTurk does with the batch variable: plain substitution into the template
    html = (folder / "template.html").read_text(encoding="utf-8").replace("${payload}", row["payload"])
    (folder / "hit.html").write_text(html, encoding="utf-8")
    page.goto(f"{server['origin']}/batch/hit.html")
    page.click("#hx-start-button")
    shown = set()
    for _ in range(2):
        shown.add(page.locator(".text").first.inner_text())
        page.click("label.point:has(input[value='5'])")
        page.click("#hx-next")
    assert shown == {"é 😀 שלום ${payload}", "plain"}
    assert page.errors == []


def test_slider_round_trip_by_keyboard(page, server):
    design, url = build(server, "da", "da")
    open_form(page, url, server, "ASSIGNDA1")
    n = design.table["position"].max() + 1
    entered = {}
    for k in range(n):
        slider = page.locator("input[type=range]")
        if k == 0:  # the untouched slider (thumb hidden) is not an answer
            assert slider.get_attribute("class") == "untouched"
            page.click("#hx-next")
            assert page.locator("#hx-error").inner_text() == "Please move the slider to give your answer."
        text = page.locator(".text").first.inner_text()
        slider.focus()
        cell = cell_of(text)
        if cell is None:
            page.keyboard.press("End" if "right" in text else "Home")
        else:
            page.keyboard.press("Home")
            steps = 10 + 7 * (ord(cell[1]) - ord("A"))
            for _ in range(steps):
                page.keyboard.press("ArrowRight")
            entered[cell] = float(steps)
        if k < n - 1:
            page.click("#hx-next")
    parsed = submit_and_parse(page, server, design, "ASSIGNDA1")
    got = {(r.document, r.system): r.score for r in parsed.ratings.without_checks().data.itertuples()}
    assert got == entered == {("d000", "A"): 10.0, ("d000", "B"): 17.0, ("d000", "C"): 24.0}
    assert parsed.workers[["checks_total", "checks_failed"]].values.tolist() == [[1, 0]]


def test_several_questions_per_screen_by_keyboard(page, server):
    """Issue 18: one screen per summary with every criterion's question, all required; a digit
    answers the focused question and moves on to the next one; the answers parse back per criterion."""
    design, url = build(server, "criteria", "likert", criteria="coherence,fluency:7")
    open_form(page, url, server, "ASSIGNCR1")
    n = design.table["position"].max() + 1
    assert n == 4  # 3 summaries + 1 check, not 2 × 3 + 1
    entered = {}
    for k in range(n):
        text = page.locator(".text").first.inner_text()
        cell = cell_of(text)
        if cell is None:  # the check asks the first question only
            assert page.locator("fieldset.likert").count() == 1
            expected = re.search(r"choose (\d)", text).group(1)
            page.click(f"label.point:has(input[value='{expected}'])")
            if k < n - 1:
                page.click("#hx-next")
            continue
        legends = page.locator("fieldset.likert legend").all_inner_texts()
        assert legends == [
            "How would you rate the coherence of this summary?",
            "How would you rate the fluency of this summary?",
        ]
        assert page.locator("fieldset.likert").nth(0).locator("input").count() == 5
        assert page.locator("fieldset.likert").nth(1).locator("input").count() == 7
        coherence, fluency = 1 + ord(cell[1]) % 5, 7 - ord(cell[1]) % 3
        if not entered:  # every question is required: the unanswered second one gets the focus
            page.click("label.point:has(input[value='2'])")
            page.click("#hx-next")
            assert page.locator("#hx-error").inner_text() == "Please choose a value on the scale."
            assert page.evaluate("document.activeElement.name").startswith("lk_q1_")
        page.locator("fieldset.likert").nth(0).locator("input").first.focus()
        page.keyboard.press(str(coherence))
        assert page.evaluate("document.activeElement.name").startswith("lk_q1_")
        page.keyboard.press(str(fluency))
        entered[(*cell, "coherence")] = coherence
        entered[(*cell, "fluency")] = fluency
        if k < n - 1:
            page.click("#hx-next")
    parsed = submit_and_parse(page, server, design, "ASSIGNCR1")
    data = parsed.ratings.without_checks().data
    got = {(r.document, r.system, r.criterion): r.score for r in data.itertuples()}
    assert got == entered and len(got) == 6
    assert parsed.workers[["checks_total", "checks_failed"]].values.tolist() == [[1, 0]]


def test_several_questions_fit_a_375_px_screen(browser, server, tmp_path):
    systems = ["A", "B"]
    texts = Texts({("d000", s): f"Summary of d000 by {s}. " + "Unbreakable" * 30 for s in systems})
    _, url = build(
        server, "criteria-375", "likert", texts=texts, systems=systems, checks_per_annotator=0,
        criteria="coherence,consistency,fluency,relevance",
    )  # fmt: skip
    context = browser.new_context(viewport={"width": 375, "height": 812})
    page = context.new_page()
    page.goto(f"{url}?slot=b000-a1")
    page.click("#hx-start-button")
    assert page.locator("fieldset.likert").count() == 4
    overflow = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert overflow[0] <= overflow[1], overflow
    path = Path(os.environ.get("HUMANEVAL_SCREENSHOTS", tmp_path)) / "criteria-375x812.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5000
    context.close()
