"""One study report: HTML page with tables, figures and datasheet; JSON, Markdown, LaTeX (docs/report.md).

:func:`build_report` runs every section through the package's own APIs (analysis, reliability,
QC, simulation, design datasheet) and returns a :class:`StudyReport`; :func:`write_report` writes
``index.html`` with its PNG figures, ``report.json``, ``report.md`` and ``results.tex``.
"""

from humaneval.report.build import CriterionReport, ReportSettings, StudyReport, build_report
from humaneval.report.power import PowerNote, power_note
from humaneval.report.render import write_report

__all__ = [
    "CriterionReport",
    "PowerNote",
    "ReportSettings",
    "StudyReport",
    "build_report",
    "power_note",
    "write_report",
]
