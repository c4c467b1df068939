"""The tables for a paper (``results.tex``): per criterion the means with rank groups as superscripts."""

from __future__ import annotations

from humaneval.present.document import Column, Math, Sup, Table, text
from humaneval.present.formatting import fmt, fmt_ci
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas, CriterionView
from humaneval.report.sections.systems import mean_unit


def criterion_table(view: CriterionView) -> Table:
    """Mean with its rank group (dissertation Table 3.2 style), block-bootstrap CI and latent β."""
    fit, interval, name = view.fit, view.part.means_interval, view.part.criterion
    unit = mean_unit(view).capitalize()
    shown = interval is None or interval.computed
    abbrev = getattr(fit, "abbrev", "CLMM")
    caption = text(
        f"{unit} per system"
        + (f" ({name})" if name else "")
        + ". Superscripts give the rank a system can take: "
        f"systems sharing a rank do not differ significantly ({fit.structure} {abbrev}, "
        f"{view.part.analysis.adjust}-adjusted ",
        Math("p<0.05", "p < 0.05"),
        "). "
        + ("Intervals: 95% block bootstrap" if shown else f"No intervals: {interval and interval.caveat}")
        + "; ",
        Math(r"\hat\beta", "β"),
        f": latent estimate against {fit.reference}.",
    )
    return Table(
        (
            Column("System"),
            Column(unit, "r"),
            Column("95% CI", "c"),
            Column(text(Math(r"\hat\beta", "β")), "r"),
        ),
        tuple(
            (
                r.system,
                text(fmt(r.mean, 2), Sup(f"({r.rank_group})")),
                fmt_ci(r.ci_low, r.ci_high, 2),
                text(Math(fmt(r.estimate), fmt(r.estimate))),
            )
            for r in view.table.itertuples()
        ),
        caption=caption,
    )


def tables(report: StudyReport, canvas: Canvas) -> tuple[Table, ...]:
    out = [
        criterion_table(CriterionView(report, part, i, canvas)) for i, part in enumerate(report.criteria, 1)
    ]
    summary = report.criteria_table()
    if summary is not None:
        out.append(
            Table(
                (Column("System"), *(Column(str(c), "r") for c in summary.columns)),
                tuple((str(system), *map(str, row)) for system, row in summary.iterrows()),
                caption=text(
                    "Mean score per system and criterion with its rank group in parentheses "
                    "(systems sharing a rank do not differ significantly)."
                ),
            )
        )
    from humaneval.report.sections.judges import paper_table
    from humaneval.report.sections.ppi import paper_tables

    return (*out, *paper_table(report), *paper_tables(report))
