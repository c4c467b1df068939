"""A participant in a real browser (Debian chromium via Playwright) on the collection server (spec §5.1–5.3).

The server runs in-process with uvicorn on 127.0.0.1; the Prolific completion page is
intercepted with ``page.route`` (no internet). The test reads which summary it sees from the
page text, answers, reloads in the middle, finishes, lands on the completion URL, and the
export must equal what was entered.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import warnings

import pytest
import uvicorn

from humaneval.collect.prolific import read_prolific
from humaneval.serve import create_app, create_study
from humaneval.serve.loadtest import free_port
from tests._designs import cell_of, cell_texts, tiny_design

pytestmark = pytest.mark.browser

COMPLETE = "https://app.prolific.com/submissions/complete?cc=CODE1234"


@pytest.fixture
def page(page):
    """The shared page, with Prolific's completion site answered locally (no internet)."""
    page.route(
        "https://app.prolific.com/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body="<p id='prolific'>ok</p>"),
    )
    return page


@contextlib.contextmanager
def served(tmp_path, method: str, **spec):
    options = {
        "documents": 2,
        "documents_per_block": 2,
        "annotators_per_block": 1,
        "seed": 5,
        "platform": "prolific",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        design = tiny_design(method, **{**options, **spec})
    study = create_study(design, tmp_path / method, texts=cell_texts(design), completion_code="CODE1234")
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
        yield design, study, f"http://127.0.0.1:{port}/s/{study.key}/"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def open_study(page, url: str, pid: str) -> None:
    page.goto(f"{url}?PROLIFIC_PID={pid}&STUDY_ID=STUDY1&SESSION_ID=SES1")


def next_screen(page, k: int, n: int) -> None:
    page.click("#hx-next")
    if k + 1 < n:
        page.wait_for_selector(f"#hx-heading:has-text('Screen {k + 2} of {n}')")


def test_missing_prolific_parameters_stop_the_page(page, tmp_path):
    with served(tmp_path, "likert") as (_, study, url):
        token = study.token_path.read_text().strip()
        page.goto(url)
        assert page.locator("h1").inner_text() == "Please open this study from Prolific"
        page.goto(f"{url}?test=pilot1")  # pilot mode: a TEST_ participant gets a slot and the start page
        page.wait_for_selector("#hx-start-button")
        status = page.request.get(
            url.replace("/s/", "/admin/") + "status", headers={"Authorization": f"Bearer {token}"}
        )
        assert status.json()["participants"] == 1
    assert page.errors == []


def test_likert_participant_reloads_finishes_and_export_matches(page, tmp_path):
    with served(tmp_path, "likert") as (design, study, url):
        open_study(page, url, "BROWSERLK")
        page.click("#hx-start-button")
        n = int(design.table.groupby("annotator_slot").size().iloc[0])
        entered, comment = {}, '<img src=x onerror="window.__pwned=1"> é'
        failures = {"left": 1}

        def flaky(route):  # the first save of screen 2 fails on the network: the page retries
            if failures["left"] and route.request.post_data_json["screen_index"] == 2:
                failures["left"] -= 1
                return route.abort()
            return route.continue_()

        page.route("**/api/*/screen", flaky)
        k = 0
        while k < n:
            page.wait_for_selector(f"#hx-heading:has-text('Screen {k + 1} of {n}')")
            text = page.locator(".text").first.inner_text()
            cell = cell_of(text)
            value = int(re.search(r"choose (\d)", text).group(1)) if cell is None else 1 + (k * 3) % 7
            if cell is not None:
                entered[cell] = value
            page.click(f"label.point:has(input[value='{value}'])")
            if k == 1:
                page.fill("#hx-comment", comment)
            if k == n - 1:
                with page.expect_navigation(url=COMPLETE):
                    page.click("#hx-next")
                break
            next_screen(page, k, n)
            k += 1
            if k == 3:  # reload in the middle: the server's next_screen decides where to resume
                page.reload()
                page.wait_for_selector(f"#hx-heading:has-text('Screen 4 of {n}')")
        assert page.url == COMPLETE and page.locator("#prolific").inner_text() == "ok"
        assert failures["left"] == 0
        results = read_prolific(study.db_path)
    got = {(r.document, r.system): r.score for r in results.ratings.without_checks().data.itertuples()}
    assert got == entered and len(got) == 6
    table = results.table
    assert (table["comment"] == comment).sum() == 1 and table["check_passed"].dropna().tolist() == [True]
    assert bool(results.participants["complete"].iloc[0]) and (table["seconds"] > 0).all()
    assert page.evaluate("window.__pwned === undefined") and page.errors == []


def test_ranking_participant_finishes_and_export_matches(page, tmp_path):
    with served(tmp_path, "rank", systems=["A", "B", "C", "D"]) as (design, study, url):
        open_study(page, url, "BROWSERRK")
        page.click("#hx-start-button")
        n = int(design.table.groupby("annotator_slot")["position"].nunique().iloc[0])
        entered = {}
        for k in range(n):
            page.wait_for_selector(f"#hx-heading:has-text('Screen {k + 1} of {n}')")
            texts = page.locator(".rank-item .text").all_inner_texts()
            real = sorted((t for t in texts if cell_of(t)), key=lambda t: cell_of(t)[1], reverse=True)
            wanted = real + [t for t in texts if not cell_of(t)]  # the attention check goes last
            for p, text in enumerate(wanted):
                src = page.locator(".rank-item .text").all_inner_texts().index(text)
                page.locator(".rank-item").nth(src).locator("select").select_option(str(p + 1))
            assert page.locator(".rank-item .text").all_inner_texts() == wanted
            entered.update({cell_of(t): r + 1 for r, t in enumerate(real)})
            if k == n - 1:
                with page.expect_navigation(url=COMPLETE):
                    page.click("#hx-next")
            else:
                next_screen(page, k, n)
            if k == 0:
                page.reload()
        results = read_prolific(study.db_path)
    got = {(r.document, r.system): r.rank for r in results.ratings.without_checks().data.itertuples()}
    assert got == entered and len(got) == 8
    assert results.table["check_passed"].dropna().tolist() == [True]
    assert page.errors == []


def test_admin_dashboard_signs_in_shows_progress_and_exports(page, tmp_path):
    with served(tmp_path, "likert") as (_, study, url):
        admin = url.replace("/s/", "/admin/")
        body = {"prolific_pid": "DASH1", "study_id": "STUDY1", "session_id": "S1"}
        started = page.request.post(url.replace("/s/", "/api/") + "start", data=body).json()
        assert started["slot"] == "b000-a1"
        page.goto(admin)
        assert page.locator("#hx-board").is_hidden()
        page.fill("#hx-token", "wrong")
        page.click("#hx-login button")
        page.wait_for_selector("#hx-error:has-text('Wrong admin token.')")
        page.fill("#hx-token", study.token_path.read_text().strip())
        page.click("#hx-login button")
        page.wait_for_selector("#hx-board:not([hidden])")
        totals = page.locator("#hx-blocks tfoot td").all_inner_texts()
        assert totals[:8] == ["all", "1", "0", "1", "0", "0", "0", "0"]
        people = page.locator("#hx-people tbody td").all_inner_texts()
        assert people[1:4] == ["b000-a1", "in progress", f"0/{started['total_screens']}"] and people[
            0
        ].startswith("w_")
        assert "DASH1" not in page.content()
        page.fill("#hx-release-pid", "DASH1")  # the participant returned the study on Prolific
        page.click("#hx-release button")
        page.wait_for_selector("#hx-release-result:has-text('Released slot b000-a1.')")
        page.wait_for_selector("#hx-blocks tfoot td:nth-child(6):has-text('1')")  # one returned
        page.fill("#hx-release-pid", "NOBODY")
        page.click("#hx-release button")
        page.wait_for_selector(
            "#hx-release-result:has-text('Not released: no participant with this Prolific ID')"
        )
        with page.expect_download() as download:
            page.click("#hx-json")
        assert download.value.suggested_filename == f"{study.key}.json"
        page.reload()  # the token stays for this tab only (sessionStorage)
        page.wait_for_selector("#hx-board:not([hidden])")
        page.click("#hx-signout")
        assert page.locator("#hx-login").is_visible()
    assert page.errors == []
