"""One study report: HTML page with tables, figures and datasheet; JSON, Markdown, LaTeX (docs/report.md).

:func:`build_report` runs every section through the package's own APIs (analysis, reliability,
QC, simulation, design datasheet) and returns a :class:`StudyReport`; :func:`write_report` builds
its typed :class:`ReportDocument` once (:mod:`humaneval.report.sections`) and writes ``index.html``
with its PNG figures, ``report.md`` and ``report.tex`` from it, plus ``report.json`` and the paper
tables ``results.tex``.
"""

from humaneval.present.document import ReportDocument
from humaneval.report.build import CriterionReport, ReportSettings, StudyReport, build_report
from humaneval.report.power import PowerNote, power_note
from humaneval.report.render import write_report

__all__ = [
    "CriterionReport",
    "PowerNote",
    "ReportDocument",
    "ReportSettings",
    "StudyReport",
    "build_report",
    "power_note",
    "write_report",
]
