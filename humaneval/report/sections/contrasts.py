"""A criterion's pairwise contrasts, significance matrix and model diagnostics."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Block, Column, Details, Section, Styled, Table, text
from humaneval.present.formatting import MISSING, fmt, fmt_ci, fmt_p
from humaneval.report import figures
from humaneval.report.sections.base import CriterionView


def part(view: CriterionView) -> Iterator[Block]:
    analysis, fit = view.part.analysis, view.fit
    contrasts = analysis.contrasts
    wins = "win_probability" in contrasts  # comparative models: P(a ≻ b) from θa − θb
    table = Table(
        (
            Column("contrast"),
            *(Column(name, "r") for name in ("estimate", "SE", "z", "p", "p adj", "CI")),
            *((Column("P(a ≻ b)", "r"),) if wins else ()),
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
                *((fmt(r.win_probability, 2),) if wins else ()),
                text(Styled(r.better or MISSING, "sig" if r.better else "ns")),
            )
            for r in contrasts.itertuples()
        ),
        caption=text(
            "Differences on the latent scale (positive: first system better), z tests as emmeans computes "
            f"them; p adj and the simultaneous intervals use the {analysis.adjust} adjustment."
            + (
                " P(a ≻ b): the model's probability that a judge prefers the first system (style held "
                "equal; JSON win_probability)."
                if wins
                else ""
            )
        ),
        id=f"contrasts{view.index}",
    )
    covariates = fit.covariates_frame() if hasattr(fit, "covariates_frame") else None
    style: tuple[Block, ...] = ()
    if covariates is not None and len(covariates):
        style = (
            Table(
                (Column("style covariate"), *(Column(n, "r") for n in ("γ", "SE", "z", "p"))),
                tuple(
                    (str(r.covariate), fmt(r.estimate), fmt(r.se), fmt(r.z, 2), fmt_p(r.p))
                    for r in covariates.itertuples()
                ),
                caption=text(
                    "Style control: log-odds of preferring a system per unit of its style difference over "
                    "the opponent, estimated with the strengths (the strengths are style-adjusted)."
                ),
                id=f"style{view.index}",
            ),
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
        "Pairwise contrasts",
        (table, *style, significance, Details("Model details and diagnostics", (details,))),
    )
