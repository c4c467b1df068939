"""A criterion's pairwise contrasts, significance matrix and model diagnostics."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Block, Column, Details, Section, Styled, Table, text
from humaneval.present.formatting import MISSING, fmt, fmt_ci, fmt_p
from humaneval.report import figures
from humaneval.report.sections.base import CriterionView


def part(view: CriterionView) -> Iterator[Block]:
    analysis, fit = view.part.analysis, view.fit
    table = Table(
        (
            Column("contrast"),
            *(Column(name, "r") for name in ("estimate", "SE", "z", "p", "p adj", "CI")),
            Column("better"),
        ),
        tuple(
            (
                f"{r.system_a} − {r.system_b}",
                fmt(r.estimate),
                fmt(r.se),
                fmt(r.statistic, 2),
                fmt_p(r.p_unadj),
                fmt_p(r.p_adj),
                fmt_ci(r.ci_low, r.ci_high),
                text(Styled(r.better or MISSING, "sig" if r.better else "ns")),
            )
            for r in analysis.contrasts.itertuples()
        ),
        caption=text(
            "Differences on the latent scale (positive: first system better), z tests as emmeans computes "
            f"them; p adj and the simultaneous intervals use the {analysis.adjust} adjustment."
        ),
        id=f"contrasts{view.index}",
    )
    significance = view.figure(
        "significance",
        lambda path: figures.significance_matrix(analysis.contrasts, view.order, path),
        "Pairwise significance matrix",
        text(
            "Pairwise significance matrix: adjusted p-value per pair; purple where the row system is "
            "significantly better, orange where it is worse, grey where the pair does not differ."
        ),
    )
    d = fit.diagnostics
    fallbacks = "; ".join(f"{a.structure} ({a.engine}): {a.reason}" for a in fit.fallbacks) or "none"
    details = Table(
        (Column("fact"), Column("value")),
        (
            ("model", f"{fit.structure}, {fit.link} link, reference {fit.reference}"),
            ("engine", f"{fit.engine} ({fmt(d.fit_seconds, 1)} s)"),
            ("ratings", str(fit.nobs)),
            ("logLik / AIC", f"{fmt(fit.loglik, 2)} / {fmt(fit.aic, 2)}"),
            ("max.grad / cond.H", f"{d.max_grad:.1e} / {d.cond_h:.1e}"),
            ("fallbacks", fallbacks),
        ),
        facts=True,
    )
    yield Section(
        "Pairwise contrasts", (table, significance, Details("Model details and diagnostics", (details,)))
    )
