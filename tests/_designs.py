"""Small designs and labelled texts shared by the forms, MTurk, serve and browser tests.

A summary's text names its cell (``Summary of <document> by <system>.``) so a test can read which
summary a form shows from the page, never from field names: a wrong field mapping surfaces as a
mismatch.
"""

from __future__ import annotations

import re

from humaneval.design import DesignSpec, generate_design
from humaneval.forms import Texts


def small_design(method: str = "likert", **spec):
    """4 documents × 5 systems (one the reference) in 2 × 2 blocks on MTurk; ``spec`` overrides."""
    options = {
        "documents": 4,
        "systems": ["A", "B", "C", "D", "ref"],
        "method": method,
        "documents_per_block": 2,
        "annotators_per_block": 2,
        "seed": 3,
        "checks_per_annotator": 1,
        "platform": "mturk",
        "pairwise": {"pairs": 2},
    }
    return generate_design(DesignSpec(**{**options, **spec}))


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


def summary_text(document: str, system: str) -> str:
    return f"Summary of {document} by {system}.\nIt has two lines."


def cell_of(text: str) -> tuple[str, str] | None:
    """The (document, system) a summary text names; ``None`` for check and filler texts."""
    match = re.match(r"Summary of (\S+) by (\S+)\.", text)
    return (match.group(1), match.group(2)) if match else None


def cell_texts(design) -> Texts:
    """A :func:`summary_text` for every (document, system) cell of ``design``."""
    cells = design.table.loc[design.table["system"] != "", ["document", "system"]].drop_duplicates()
    return Texts({(d, s): summary_text(d, s) for d, s in cells.itertuples(index=False)})
