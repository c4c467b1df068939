"""Shared fixtures: the reference data in ../shared (skipped when absent) and backend checks."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

#: Scripts that made stored reference numbers need their reference package (not a test dependency).
collect_ignore = ["ppi_reference/make_reference.py"]

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
STEEN = SHARED / "steen2021"

#: Likert coherence column of dissertation Table 3.2: mean score and CLMM rank group per system.
TABLE_3_2_LIKERT = {
    "BART": "5.25 (1)",
    "onmt_pg": "4.81 (2)",
    "__REFERENCE__": "4.33 (3/4)",
    "abssentrw": "4.17 (3/4)",
    "seneca": "3.52 (5)",
}


def shared_file(*parts: str) -> Path:
    """Path of a reference file under ../shared/data; skips the test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data {path} not available")
    return path


@pytest.fixture
def likert_path() -> Path:
    return shared_file("steen2021", "likert_coherence_cnn_dm.csv")


@pytest.fixture
def rank_path() -> Path:
    return shared_file("steen2021", "rank_coherence_cnn_dm.csv")


@pytest.fixture
def model_json_path() -> Path:
    return shared_file("steen2021", "model_logit_likert_cnndm_coherence.json")


def _r_available() -> bool:
    try:
        from humaneval.analysis.rbridge import r_available
    except ImportError:
        return False
    return r_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip R and browser tests where those backends are missing — except in CI, where the
    project's setup installs them, so that a broken install fails instead of hiding."""
    if os.environ.get("CI"):
        return
    no_browser = shutil.which("chromium") is None
    r_missing = None
    for item in items:
        if "browser" in item.keywords and no_browser:
            item.add_marker(pytest.mark.skip(reason="Debian chromium is not installed"))
        if "r" in item.keywords:
            if r_missing is None:
                r_missing = not _r_available()
            if r_missing:
                item.add_marker(pytest.mark.skip(reason="R with ordinal/emmeans and rpy2 not installed"))


@pytest.fixture(scope="module")
def browser():
    """Headless Debian chromium for the module's ``browser``-marked tests."""
    from playwright.sync_api import sync_playwright

    from tests._browser import launch_chromium

    with sync_playwright() as p:
        chromium = launch_chromium(p)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    """A fresh 1280×800 page whose script errors and dialogs are collected in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("dialog", lambda d: (page.errors.append(f"dialog {d.message}"), d.dismiss()))
    yield page
    context.close()
