"""The files of the report, with links."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Bullets, Code, Inline, Link, Section, text
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    items = [
        text(
            Link("report.json", "report.json"),
            " — every number of this page (the JSON of ",
            Code("humaneval analyze"),
            " and ",
            Code("humaneval reliability"),
            " per criterion)",
        ),
        text(Link("report.md", "report.md"), " — the same report in Markdown"),
        text(Link("report.tex", "report.tex"), " — the same report in LaTeX"),
        text(Link("results.tex", "results.tex"), " — the main results as LaTeX tables (booktabs)"),
    ]
    if report.datasheet_markdown:
        items.append(text(Link("datasheet.md", "datasheet.md"), " — the datasheet in Markdown"))
    figures: list[Inline] = ["every figure as PNG (shown here), SVG and PDF (for papers): "]
    for i, name in enumerate(canvas.figure_names()):
        stem = name.removesuffix(".png")
        figures += [", " if i else "", Link(name, name), " (", Link("SVG", f"{stem}.svg"), ", "]
        figures += [Link("PDF", f"{stem}.pdf"), ")"]
    items.append(text(*figures))
    yield Section("Files", (Bullets(tuple(items)),), id="files")
