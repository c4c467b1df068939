"""LLM judges: the verdict table (alt-test, α, τ side by side) and one figure, when there are judges."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from humaneval.judges.verdict import TAU_FLOOR, JudgeAssessment
from humaneval.present.document import Bullets, Column, Paragraph, Section, Styled, Table, text
from humaneval.present.formatting import fmt, fmt_estimate_ci
from humaneval.report.build import StudyReport
from humaneval.report.cautions import plural
from humaneval.report.sections.base import Canvas

COLUMNS = (
    Column("judge"),
    Column("ω", "r", title="winning rate: share of humans the judge beats (alt-test)"),
    Column("ρ", "r", title="advantage probability: how often the judge is at least as good as a human"),
    Column("passes", "c"),
    Column("α with judge", "r", title="Krippendorff's α of the humans plus the judge (KALPHA 95% CI)"),
    Column("τ item", "r", title="Kendall's τ with the mean human label over all items"),
    Column("τ system", "r", title="Kendall's τ between system means (95% CI resampling documents)"),
)


BIAS_COLUMNS = (
    Column("judge"),
    Column("check"),
    Column("judge [95% CI]", "r"),
    Column("humans [95% CI]", "r"),
    Column("n", "r"),
)


def _rows(judges: JudgeAssessment) -> tuple[tuple, ...]:
    out = []
    for r in judges.verdict.itertuples():
        name = r.judge + (f" ({r.criterion})" if isinstance(r.criterion, str) else "")
        out.append(
            (
                name,
                fmt(r.winning_rate, 2),
                fmt(r.advantage_probability, 2),
                text(Styled("yes", "sig")) if r.passed else text(Styled("no", "ns")),
                fmt_estimate_ci(r.alpha_with_judge, r.alpha_with_judge_low, r.alpha_with_judge_high, 2),
                fmt(r.tau_item, 2),
                fmt_estimate_ci(r.tau_system, r.tau_system_low, r.tau_system_high, 2),
            )
        )
    return tuple(out)


def _draw(judges: JudgeAssessment):
    def draw(path: Path) -> Path:
        from matplotlib.figure import Figure

        from humaneval.present.plotting import save_figure

        verdict = judges.verdict
        labels = [
            r.judge + (f" ({r.criterion})" if isinstance(r.criterion, str) else "")
            for r in verdict.itertuples()
        ]
        y = np.arange(len(verdict))[::-1]
        fig = Figure(figsize=(8, 0.5 * len(verdict) + 1.4))
        left, right = fig.subplots(1, 2, sharey=True)
        left.barh(
            y,
            verdict["advantage_probability"],
            color=["#5b3a8c" if p else "#bbbbbb" for p in verdict["passed"]],
        )
        left.set_xlim(0, 1)
        left.set_xlabel("advantage probability ρ")
        left.set_yticks(y, labels)
        tau = verdict["tau_system"].to_numpy(float)
        low = verdict["tau_system_low"].to_numpy(float)
        high = verdict["tau_system_high"].to_numpy(float)
        shown = ~np.isnan(tau)
        # the interval as a line of its own: a percentile interval need not contain the estimate
        right.hlines(y[shown], low[shown], high[shown], color="#333333")
        right.plot(tau[shown], y[shown], "o", color="#333333")
        right.axvline(TAU_FLOOR, color="#c05a00", linestyle="--", linewidth=1)
        right.set_xlim(-1, 1)
        right.set_xlabel("system-level Kendall τ")
        fig.tight_layout()
        return save_figure(fig, path)["png"]

    return draw


def paper_table(report: StudyReport) -> tuple[Table, ...]:
    """``results.tex``: the judges' verdict table, with the ε it was tested at."""
    if report.judges is None:
        return ()
    test = report.judges.alt_test
    caption = text(
        f"LLM judges beside the humans: alternative-annotator test (ε = {test.epsilon:g}, scoring "
        f"{test.scoring}; Calderon, Reichart & Dror, 2025), α with the judge and Kendall's τ."
    )
    return (Table(COLUMNS, _rows(report.judges), caption=caption),)


def section(report: StudyReport, canvas: Canvas) -> Iterator[Section]:
    judges = report.judges
    if judges is None:
        return
    test = judges.alt_test
    intro = text(
        f"{plural(judges.verdict['judge'].nunique(), 'judge')}, left out of every statistic above. The "
        f"alternative-annotator test (Calderon, Reichart & Dror, 2025; ε = {test.epsilon:g}, scoring "
        f"{test.scoring}) leaves out one human at a time and asks whether the judge agrees with the others "
        "at least as well as that human did; a judge passes when it beats at least half of the humans "
        "(ω ≥ 0.5). α and system-level τ say whether it also fits among the annotators and ranks the "
        "systems as they do; the flags below name where these disagree (docs/judges.md)."
    )
    blocks: list = [
        Paragraph(intro),
        Table(COLUMNS, _rows(judges), caption=text("Judges side by side."), id="judges-verdict"),
    ]
    flags = [text(f"{r.judge}: {flag}.") for r in judges.verdict.itertuples() for flag in r.flags]
    if flags:
        blocks.append(Bullets(tuple(flags)))
    blocks.append(
        canvas.figure(
            "judges",
            _draw(judges),
            "Advantage probability and system-level Kendall τ per judge",
            text(
                "Left: how often each judge is at least as good as a left-out human (purple: passes the "
                f"alt-test). Right: system-level τ with the humans, 95% CI (dashed: {TAU_FLOOR:g})."
            ),
        )
    )
    bias = judges.bias
    if bias is not None and not bias.table.empty:
        meaning = bias.to_dict()["meaning"]
        rows = tuple(
            (
                r.judge + (f" ({r.criterion})" if isinstance(r.criterion, str) else ""),
                r.check,
                fmt_estimate_ci(r.judge_value, r.judge_low, r.judge_high, 2),
                fmt_estimate_ci(r.human_value, r.human_low, r.human_high, 2),
                str(r.n),
            )
            for r in bias.table.itertuples()
        )
        blocks.append(
            Table(
                BIAS_COLUMNS,
                rows,
                caption=text(
                    "Bias audit: the judge beside the humans on the same items. "
                    + "; ".join(f"{k}: {v}" for k, v in meaning.items() if k in set(bias.table["check"]))
                    + "."
                ),
                id="judges-bias",
            )
        )
    blocks += [Paragraph(text(c), "note") for c in test.cautions]
    yield Section("LLM judges", tuple(blocks), id="judges", nav="Judges")
