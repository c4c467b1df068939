"""Quality control: flagged annotators and the per-annotator table; flags never exclude anybody."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from humaneval.present.document import (
    Block,
    Cell,
    Code,
    Column,
    Details,
    Paragraph,
    Section,
    Styled,
    Table,
    text,
)
from humaneval.present.formatting import MISSING, fmt
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas

QC_FLAGS = {
    "prolific_rejection_eligible": "failed ≥ 2 checks",
    "too_fast": "too fast",
    "straight_line": "same answer throughout",
    "long_run": "long run of one answer",
}
IMC_TITLE = "failed instructed attention checks (IMCs); 2 or more make a Prolific submission rejectable"
COLUMNS = (
    Column("annotator"),
    Column("judgements", "r"),
    Column("checks passed", "r"),
    Column("failed IMCs", "r", title=IMC_TITLE),
    Column("minutes", "r"),
    Column("flags"),
)


def rows(report: StudyReport) -> list[tuple[Cell, ...]]:
    """One row per annotator: judgements, checks passed, failed IMCs, minutes and flags in words."""
    out: list[tuple[Cell, ...]] = []
    for r in report.qc.table.to_dict(orient="records"):
        checks = bool(r["checks_total"])
        flags = ", ".join(
            label for name, label in QC_FLAGS.items() if isinstance(r.get(name), bool | np.bool_) and r[name]
        )
        out.append(
            (
                str(r["annotator"]),
                str(r["n_judgements"]),
                f"{r['checks_total'] - r['checks_failed']}/{r['checks_total']}" if checks else MISSING,
                str(r["imc_failed"]) if checks else MISSING,
                fmt(r.get("total_seconds", np.nan) / 60, 1) if "total_seconds" in r else MISSING,
                text(Styled(flags, "flag")),
            )
        )
    return out


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    qc = report.qc.table
    everyone = rows(report)
    flagged = [r for r in everyone if r[-1] != (Styled("", "flag"),)]
    has_checks = bool(qc["checks_total"].sum()) if "checks_total" in qc else False
    intro = text(
        f"{len(flagged)} of {len(everyone)} annotators flagged"
        + ("" if has_checks else "; the ratings hold no attention checks")
        + ("" if "total_seconds" in qc else "; no per-screen times, so speed was not checked")
        + ". Flags are warnings: nobody was excluded from the analysis (",
        Code("humaneval qc --exclude FLAG"),
        " writes cleaned ratings and an exclusion log). Failed IMCs: failed instructed attention checks; "
        "gold controls do not count.",
    )
    blocks: list[Block] = [Paragraph(intro)]
    if flagged:
        blocks.append(Table(COLUMNS, tuple(flagged), caption=text("Flagged annotators."), id="qc-flagged"))
    blocks.append(
        Details(f"All {len(everyone)} annotators", (Table(COLUMNS, tuple(everyone), id="qc-table"),))
    )
    yield Section("Quality control", tuple(blocks), id="qc")
