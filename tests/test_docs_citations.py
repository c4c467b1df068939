"""User-facing text stands on its own: it cites papers or docs pages, never the internal spec files.

The package, its templates, the R code it ships, the README and docs/ are read by users who do not
have the developers' specification documents. A pointer such as "spec §2.8", "(§4.1)" or
"``spec/analysis.md``" tells them nothing, so it must be a paper citation (Steen & Markert, EACL
2021; "dissertation §3.7"; "Angrist & Pischke 2009, §8.2") or a link to a docs page or section.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("docs", "humaneval", "templates", "r")
SUFFIXES = {".md", ".py", ".j2", ".html", ".js", ".css", ".R", ".txt"}

# Pointers into the internal specification, whatever section they name.
SPEC_POINTER = re.compile(
    r"(?<![\w.])spec/"
    r"|\bspec(?:ification)?\s*§"
    r"|\bspec(?:ification)?\s+``[\w./-]+``"
    r"|\b(?:designs-and-forms|metaeval-and-scorers)\.md"
    r"|\bspec(?:ification)?\s+(?:decision|check value)"
    r"|\banalysis\s+spec(?:ification)?\b",
    re.IGNORECASE,
)
# One run of section numbers: "§3.6", "§3.6–§3.7", "§3.6.2 and §3.6.4", "§ 2".
SECTIONS = re.compile(r"§\s?\d+(?:\.\d+)*(?:\s*(?:–|-|,|/|and|or|to)\s*§?\s?\d+(?:\.\d+)*\b)*")
# What a run may follow: the dissertation (or thesis), or a work cited by author and year.
CITED = re.compile(r"(?:\b(?:dissertation|thesis)|\b[A-Z][\w&.'’ -]*\b(?:19|20)\d{2}[a-z]?\)?)\s*[,;:(]?\s*$")


def _context(text: str, start: int) -> str:
    """The text before ``start`` on one line: line breaks, indentation and comment marks removed."""
    before = text[max(0, start - 120) : start]
    return re.sub(r"\s*\n\s*(?:#+\s*)?", " ", before)


def problems(text: str) -> list[tuple[int, str]]:
    """(line, excerpt) of every spec pointer and uncited section number in ``text``."""
    found = [(m.start(), m.group()) for m in SPEC_POINTER.finditer(text)]
    uncited = (m for m in SECTIONS.finditer(text) if not CITED.search(_context(text, m.start())))
    found += [(m.start(), m.group()) for m in uncited]
    return sorted((text.count("\n", 0, start) + 1, excerpt) for start, excerpt in found)


def _files() -> list[Path]:
    seen: dict[Path, Path] = {}
    for base in SCANNED:
        for path in sorted((ROOT / base).rglob("*")):
            if path.is_file() and path.suffix in SUFFIXES and "__pycache__" not in path.parts:
                seen.setdefault(path.resolve(), path)
    return [ROOT / "README.md", *seen.values()]


@pytest.mark.parametrize(
    "text",
    [
        "Checks (spec §2.8).",
        "never first and never adjacent (§2.8).",
        "Spec ``metaeval-and-scorers.md`` §3.1, after Deutsch, Dror & Roth (2021)",
        "See spec ``analysis.md`` for the rules.",
        "Implements `spec/designs-and-forms.md` §2",
        "Warnings follow analysis spec §7",
        "Blocks (analysis §7 D4).",
        "rebuilds the §6.5 table",
        "defined (spec decision 2)",
        "the study's §3.2 rule",
        "Steen & Markert (§3.1)",
    ],
)
def test_the_checker_flags_spec_pointers(text):
    assert problems(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Study design (dissertation §3.7).",
        "Steen's dissertation (§3.6–§3.7) and its Fig. 3.6",
        "dissertation §3.6.2 and §3.6.4, eqs. 3.22 and 3.25",
        "Steen's dissertation,\n§3.5), never single judgements",
        "# follows the dissertation\n# §3.2.4",
        "(Angrist & Pischke 2009, §8.2 take the larger",
        "as in the thesis §4.8",
        "see docs/design.md#design-rules and docs/forms.md#field-names",
        "build the spec from matrices: ClmmSpec.from_matrices(spec)",
        "the model ``spec`` (a ``ClmmSpec``)",
    ],
)
def test_the_checker_accepts_citations(text):
    assert problems(text) == [], text


def test_user_facing_text_cites_papers_or_docs_not_the_spec():
    files = _files()
    assert len(files) > 100 and ROOT / "docs" / "design.md" in files  # the scan really covers the tree
    found = [
        f"{path.relative_to(ROOT)}:{line}: {excerpt}"
        for path in files
        for line, excerpt in problems(path.read_text(encoding="utf-8"))
    ]
    assert found == [], (
        "cite the paper (e.g. 'dissertation §3.7', 'Steen & Markert, EACL 2021') or a docs page "
        "instead of the internal spec:\n" + "\n".join(found)
    )
