"""Write a :class:`~humaneval.report.build.StudyReport` to disk: index.html, figures, JSON, Markdown, LaTeX.

The report is built once as a typed :class:`~humaneval.present.document.ReportDocument`
(:func:`humaneval.report.sections.report_document`, which also draws the figures) and rendered to
HTML, Markdown and LaTeX from that one object (:mod:`humaneval.present.renderers`), so every format
shows the same sections and the same digits as ``report.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

from humaneval.io.serialization import jsonable
from humaneval.present.renderers import to_html, to_latex, to_latex_tables, to_markdown
from humaneval.report.build import StudyReport
from humaneval.report.sections import report_document


def write_report(report: StudyReport, out: str | Path) -> dict[str, Path]:
    """Write every file of the report into ``out``; returns the paths by name."""
    out = Path(out)
    document, figure_files = report_document(report, out)
    files: dict[str, Path] = dict(figure_files)
    files["json"] = out / "report.json"
    files["json"].write_text(json.dumps(jsonable(report.to_dict()), indent=1, ensure_ascii=False) + "\n")
    files["markdown"] = out / "report.md"
    files["markdown"].write_text(to_markdown(document), encoding="utf-8")
    files["latex"] = out / "results.tex"
    files["latex"].write_text(to_latex_tables(document), encoding="utf-8")
    files["latex_report"] = out / "report.tex"
    files["latex_report"].write_text(to_latex(document), encoding="utf-8")
    if report.datasheet_markdown:
        files["datasheet"] = out / "datasheet.md"
        files["datasheet"].write_text(report.datasheet_markdown, encoding="utf-8")
    files["html"] = out / "index.html"
    files["html"].write_text(to_html(document), encoding="utf-8")
    return files
