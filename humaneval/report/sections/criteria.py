"""Systems × criteria: every criterion's means and rank groups side by side, and their correlations."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Block, Column, Section, Table, text
from humaneval.present.formatting import fmt
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    summary = report.criteria_table()
    if summary is None:
        return
    blocks: list[Block] = [
        Table(
            (Column("system"), *(Column(str(name), "r") for name in summary.columns)),
            tuple((str(system), *map(str, row)) for system, row in summary.iterrows()),
            caption=text(
                "Mean score and rank group of every system per criterion (each criterion's own CLMM "
                "and adjustment); best system of the first criterion first. Details in each criterion's "
                "section below."
            ),
            id="criteria-table",
        )
    ]
    correlations = [] if report.correlations is None else report.correlations.to_dict()
    if correlations:
        blocks.append(
            Table(
                (
                    Column("criteria"),
                    Column("judgements", "r"),
                    Column("within annotators", "r"),
                    Column("system means", "r"),
                ),
                tuple(
                    (
                        f"{r['criterion_a']} – {r['criterion_b']}",
                        f"{fmt(r['rho'])} (n={r['n_judgements']})",
                        f"{fmt(r['rho_within_annotator'])} ({r['n_annotators']})",
                        fmt(r["rho_systems"]),
                    )
                    for r in correlations
                ),
                caption=text(
                    "Are annotators rating distinct things? Spearman ρ between criteria over all judgements, "
                    "the mean of each annotator's own ρ (high values: one overall impression answers every "
                    "question), and between system means."
                ),
                id="criteria-correlations",
            )
        )
    yield Section("Systems × criteria", tuple(blocks), id="criteria-summary")
