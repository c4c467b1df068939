"""Humans and a judge together: per judge and criterion the prediction-powered system table and the
system pairs that differ with the judge's help (``humaneval ppi``, docs/ppi.md)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from humaneval.ppi.result import JudgedAnalysis
from humaneval.ppi.systems import PPIAnalysis
from humaneval.present.document import Column, Paragraph, Section, Sup, Table, text
from humaneval.present.formatting import fmt, fmt_ci, fmt_estimate_ci, fmt_p
from humaneval.report.build import StudyReport
from humaneval.report.sections.base import Canvas

MEANS = (
    Column("system"),
    Column("human-only mean [95% CI]", "r"),
    Column("PPI++ mean [95% CI]", "r"),
    Column("PPBoot [95% CI]", "r", title="percentile interval of the prediction-powered bootstrap"),
    Column("λ", "r", title="PPI++ power tuning: 0 = humans only, 1 = the judge's full correction"),
    Column("n / N", "r", title="human-rated summaries / summaries only the judge scored"),
    Column("effective-n factor", "r", title="human-only variance / PPI++ variance"),
    Column("group", "c", title="systems sharing a letter do not differ"),
)
STRENGTHS = (
    Column("system"),
    Column("human mean", "r"),
    Column("PPI estimate", "r", title="log-odds scale, the first system at 0"),
    Column("group", "c", title="systems sharing a letter do not differ"),
)
CONTRASTS = (
    Column("pair (a − b)"),
    Column("PPI estimate [CI]", "r"),
    Column("p adj", "r"),
    Column("human-only [CI]", "r"),
    Column("effective-n factor", "r", title="human-only variance / PPI variance"),
    Column("better", "c"),
)
INTRO = (
    "Prediction-powered inference (Angelopoulos et al., 2023; PPI++, Angelopoulos, Duchi & Zrnic, 2023; "
    "Bradley–Terry strengths after Boyeau et al., 2025) estimates what the humans would say of every "
    "summary from their ratings of some and a judge's scores of all: the judge's answer corrected by its "
    "error on the human-rated summaries. It is unbiased whatever the judge; its intervals are narrower "
    "than the humans' alone by the effective-n factor when the judge tracks them. These are the numbers "
    "of 'humaneval ppi' and 'humaneval analyze --judge' (docs/ppi.md)."
)


def _system_rows(analysis: JudgedAnalysis) -> tuple[tuple, ...]:
    letters = analysis.systems.set_index("system")["letters"]
    result = analysis.result
    if isinstance(result, PPIAnalysis):
        return tuple(
            (
                r.system,
                fmt_estimate_ci(r.human_estimate, r.human_ci_low, r.human_ci_high, 2),
                fmt_estimate_ci(r.estimate, r.ci_low, r.ci_high, 2),
                fmt_ci(r.boot_ci_low, r.boot_ci_high, 2) if np.isfinite(r.boot_ci_low) else "—",
                fmt(r.lam, 2),
                f"{r.n_human} / {r.n_judge_only}",
                fmt(r.gain, 2),
                letters.get(r.system, ""),
            )
            for r in result.systems.sort_values("estimate", ascending=False).itertuples()
        )
    return tuple(
        (r.system, fmt(r.mean, 2), fmt(r.estimate), r.letters) for r in analysis.systems.itertuples()
    )


def _contrast_rows(analysis: JudgedAnalysis) -> tuple[tuple, ...]:
    rows = []
    for r in analysis.contrasts.itertuples():
        human = getattr(r, "human_estimate", np.nan)
        rows.append(
            (
                f"{r.system_a} − {r.system_b}",
                fmt_estimate_ci(r.estimate, r.ci_low, r.ci_high, 2),
                fmt_p(r.p_adj),
                fmt_estimate_ci(human, r.human_ci_low, r.human_ci_high, 2) if np.isfinite(human) else "—",
                fmt(getattr(r, "gain", np.nan), 2),
                r.better if isinstance(r.better, str) else "",
            )
        )
    return tuple(rows)


def _where(analysis: JudgedAnalysis) -> str:
    return f"judge {analysis.judge}" + (f", {analysis.criterion}" if analysis.criterion else "")


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    if not report.ppi:
        return
    blocks: list = [Paragraph(text(INTRO))]
    for k, analysis in enumerate(report.ppi):
        means = isinstance(analysis.result, PPIAnalysis)
        what = "System means" if means else "System strengths"
        blocks.append(
            Table(
                MEANS if means else STRENGTHS,
                _system_rows(analysis),
                caption=text(
                    f"{what} with {_where(analysis)} ({analysis.test}); clusters: "
                    f"{analysis.result.n_clusters} (cluster-robust variances)."
                ),
                id=f"ppi-{k}",
            )
        )
        blocks.append(
            Table(
                CONTRASTS,
                _contrast_rows(analysis),
                caption=text(
                    f"Which systems differ with {_where(analysis)}: paired differences, "
                    f"{analysis.adjust}-adjusted; 'better' at p < 0.05."
                ),
                id=f"ppi-contrasts-{k}",
            )
        )
        blocks += [Paragraph(text(c), "note") for c in analysis.cautions]
    yield Section("Humans and judges together (PPI)", tuple(blocks), id="ppi", nav="PPI")


def paper_tables(report: StudyReport) -> tuple[Table, ...]:
    """``results.tex``: per judge and criterion the PPI estimates with their rank groups."""
    out = []
    for analysis in report.ppi:
        columns = (Column("System"), Column("Human mean", "r"), Column("PPI estimate", "r"))
        rows = tuple(
            (r.system, fmt(r.mean, 2), text(fmt(r.estimate, 2), Sup(f"({r.rank_group})")))
            for r in analysis.systems.itertuples()
        )
        caption = text(
            f"Prediction-powered estimates with {_where(analysis)} ({analysis.test}); superscripts give the "
            f"rank a system can take ({analysis.adjust}-adjusted p < 0.05)."
        )
        out.append(Table(columns, rows, caption=caption))
    return tuple(out)
