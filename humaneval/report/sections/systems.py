"""A criterion's headline: the model in one sentence, the system table, the means and distributions."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.core.responses import lower_is_better
from humaneval.methods import get_method
from humaneval.present.document import Block, Code, Column, FigureRow, Paragraph, Strong, Table, text
from humaneval.present.formatting import fmt, fmt_ci
from humaneval.report import figures
from humaneval.report.sections.base import CriterionView


def mean_unit(view: CriterionView) -> str:
    """What the means are (``mean score``, ``mean rank (1 = best)``, or the analysis's own unit)."""
    analysis = view.part.analysis
    default = "mean rank (1 = best)" if lower_is_better(analysis.response) else "mean score"
    return getattr(analysis, "mean_unit", default)


def part(view: CriterionView) -> Iterator[Block]:
    analysis, fit, interval = view.part.analysis, view.fit, view.part.means_interval
    declared = view.report.ratings.scale_of(view.part.criterion)
    kind = getattr(analysis, "kind", None)
    described = get_method(kind).scale_description if kind is not None else None
    if described is not None:  # pairwise preferences, best–worst choices: not points of a scale
        yield Paragraph(text(f"Scale: {described}"), "meta")
    elif declared is not None:
        yield Paragraph(text(f"Scale: {declared.describe()}"), "meta")
    n_significant = int(analysis.contrasts["better"].notna().sum())
    family = getattr(fit, "family", "cumulative link mixed model")
    yield Paragraph(
        text(
            f"{n_significant} of {len(analysis.contrasts)} system pairs differ significantly "
            f"({analysis.adjust}-adjusted p\u00a0<\u00a00.05) in a ",
            Strong(fit.structure),
            f" {family} ({fit.link} link, {fit.engine} engine) with ",
            Code(fit.formula),
            ".",
        )
    )
    shown = interval is None or interval.computed
    note = None if interval is None else interval.caveat
    if shown:
        about = "Interval: 95 % bootstrap over the independent blocks" + (f" — {note}" if note else "") + "."
    else:
        about = f"No intervals — {note}."
    yield Table(
        (
            Column("system"),
            Column(mean_unit(view), "r"),
            Column("95 % CI", "r"),
            Column("rank group", "r"),
            Column("letters"),
            Column("latent β", "r"),
        ),
        tuple(
            (
                r.system,
                fmt(r.mean, 2),
                fmt_ci(r.ci_low, r.ci_high, 2),
                f"({r.rank_group})",
                r.letters,
                fmt(r.estimate),
            )
            for r in view.table.itertuples()
        ),
        caption=text(
            "Systems, best first. Rank group: the ranks a system can take given the significant contrasts "
            "(“3/4”: not significantly different from its neighbour; dissertation Table 3.2). Systems "
            "sharing a letter do not differ. " + about
        ),
        id=f"systems{view.index}",
    )
    rank = lower_is_better(analysis.response)  # ranks: 1 is best
    means = view.figure(
        "means",
        lambda path: figures.means_figure(view.table, analysis.response, path),
        "System means with 95% intervals and rank groups",
        text(
            "System means"
            + (" with 95 % block-bootstrap intervals" if shown else " (too few blocks for intervals)")
            + "; the bracket is the rank group."
        ),
    )
    distributions = view.figure(
        "distributions",
        lambda path: figures.score_distributions(view.ratings, view.order, path),
        "Score distribution per system",
        text(
            f"Share of each {'rank' if rank else 'score'} per system as diverging stacked bars: "
            + (
                "worse ranks left of zero, better ones right"
                if rank
                else "low scores left of zero, high ones right"
            )
            + ", the middle category split (dissertation Fig. 3.4)."
        ),
    )
    yield FigureRow((means, distributions))
