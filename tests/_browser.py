"""Helpers shared by the browser tests (Debian chromium via Playwright; fixtures in ``conftest.py``).

The tests read which summary a screen shows from its text (``Summary of <document> by <system>.``),
never from field names, so a wrong field mapping surfaces as a mismatch.
"""

from __future__ import annotations

import re

from humaneval.design import DesignSpec, generate_design
from humaneval.forms import Texts

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch_chromium(playwright):
    """Headless Debian chromium (never a downloaded browser)."""
    return playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)


def summary_text(document: str, system: str) -> str:
    return f"Summary of {document} by {system}.\nIt has two lines."


def cell_of(text: str) -> tuple[str, str] | None:
    """The (document, system) a summary text names; ``None`` for check and filler texts."""
    match = re.match(r"Summary of (\S+) by (\S+)\.", text)
    return (match.group(1), match.group(2)) if match else None


def tiny_design(method: str, **spec):
    """One document per block on MTurk; ``spec`` overrides the defaults below."""
    options = {
        "documents": 1,
        "systems": ["A", "B", "C"],
        "method": method,
        "documents_per_block": 1,
        "annotators_per_block": 2,
        "seed": 7,
        "checks_per_annotator": 1,
        "platform": "mturk",
    }
    return generate_design(DesignSpec(**{**options, **spec}))


def cell_texts(design) -> Texts:
    """A :func:`summary_text` for every (document, system) cell of ``design``."""
    cells = design.table.loc[design.table["system"] != "", ["document", "system"]].drop_duplicates()
    return Texts({(d, s): summary_text(d, s) for d, s in cells.itertuples(index=False)})
