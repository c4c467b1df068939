"""Humans and a judge together: human-only and prediction-powered (PPI++) system means, per judge."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Column, Paragraph, Section, Table, text
from humaneval.present.formatting import fmt, fmt_estimate_ci
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas

COLUMNS = (
    Column("system"),
    Column("human-only mean [95% CI]", "r"),
    Column("PPI++ mean [95% CI]", "r"),
    Column("λ", "r", title="PPI++ power tuning: 0 = humans only, 1 = the judge's full correction"),
    Column("n / N", "r", title="human-rated summaries / summaries only the judge scored"),
    Column("effective-n factor", "r", title="human-only variance / PPI++ variance"),
)


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    if not report.ppi:
        return
    blocks: list = [
        Paragraph(
            text(
                "Prediction-powered inference (Angelopoulos et al., 2023; PPI++, Angelopoulos, Duchi & "
                "Zrnic, 2023) estimates each system's mean human rating from the human ratings and a "
                "judge's scores of every summary: the judge's mean corrected by its error on the "
                "human-rated summaries. It is unbiased whatever the judge; its interval is narrower than "
                "the humans' alone by the effective-n factor when the judge tracks them (docs/ppi.md)."
            )
        )
    ]
    for k, analysis in enumerate(report.ppi):
        rows = tuple(
            (
                r.system,
                fmt_estimate_ci(r.human_estimate, r.human_ci_low, r.human_ci_high, 2),
                fmt_estimate_ci(r.estimate, r.ci_low, r.ci_high, 2),
                fmt(r.lam, 2),
                f"{r.n_human} / {r.n_judge_only}",
                fmt(r.gain, 2),
            )
            for r in analysis.systems.itertuples()
        )
        where = f"judge {analysis.judge}" + (f", {analysis.criterion}" if analysis.criterion else "")
        caption = text(
            f"System means with {where}; clusters: {analysis.n_clusters} {analysis.clustering}s "
            "(cluster-robust variances)."
        )
        blocks.append(Table(COLUMNS, rows, caption=caption, id=f"ppi-{k}"))
        blocks += [Paragraph(text(c), "note") for c in analysis.cautions]
    yield Section("Humans and judges together (PPI)", tuple(blocks), id="ppi", nav="PPI")
