"""A criterion's headline: the model in one sentence, the system table, the means and distributions."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.core.responses import lower_is_better
from humaneval.methods import get_method
from humaneval.present.document import Block, Code, Column, FigureRow, Paragraph, Strong, Table, text
from humaneval.present.formatting import fmt, fmt_ci
from humaneval.ranks.result import RankSets
from humaneval.report import figures
from humaneval.report.sections.base import CriterionView


def mean_unit(view: CriterionView) -> str:
    """What the means are (``mean score``, ``mean rank (1 = best)``, or the analysis's own unit)."""
    analysis = view.part.analysis
    default = "mean rank (1 = best)" if lower_is_better(analysis.response) else "mean score"
    return getattr(analysis, "mean_unit", default)


def rank_cells(sets: RankSets | None, system: str) -> tuple[str, str]:
    """The rank set ("1–3") and whether the system may be the best ("yes"), or dashes without sets."""
    if sets is None:
        return "–", "–"
    row = sets.ranks.set_index("name").loc[str(system)]
    low, high = int(row["rank_low"]), int(row["rank_high"])
    return (f"{low}" if low == high else f"{low}–{high}"), ("yes" if str(system) in sets.best_set else "")


def system_table(view: CriterionView, shown: bool) -> Table:
    """The system table: means with block-bootstrap intervals, rank groups, letters, the simultaneous
    rank sets with "tied with the best" (docs/ranks.md) and the model's estimates."""
    analysis, interval = view.part.analysis, view.part.means_interval
    found = getattr(analysis, "rank_sets", None)
    sets = None if found is None else found.get("simultaneous")
    model_ci = "estimate_ci_low" in view.table  # comparative strengths: the model's own interval
    note = None if interval is None else interval.caveat
    if shown:
        about = "Interval: 95 % bootstrap over the independent blocks" + (f" — {note}" if note else "") + "."
    else:
        about = f"No intervals — {note}."
    return Table(
        (
            Column("system"),
            Column(mean_unit(view), "r"),
            Column("95 % CI", "r"),
            Column("rank group", "r"),
            Column("letters"),
            Column("rank set", "r"),
            Column("tied with the best"),
            Column("latent β", "r"),
            *((Column("β 95 % CI", "r"),) if model_ci else ()),
        ),
        tuple(
            (
                r.system,
                fmt(r.mean, 2),
                fmt_ci(r.ci_low, r.ci_high, 2),
                f"({r.rank_group})",
                r.letters,
                *rank_cells(sets, r.system),
                fmt(r.estimate),
                *((fmt_ci(r.estimate_ci_low, r.estimate_ci_high),) if model_ci else ()),
            )
            for r in view.table.itertuples()
        ),
        caption=text(
            "Systems, best first. Rank group: the ranks a system can take given the significant contrasts "
            "(“3/4”: not significantly different from its neighbour; dissertation Table 3.2). Systems "
            "sharing a letter do not differ. "
            + (
                f"Rank set: the ranks a system may hold, all systems jointly with {sets.confidence:.0%} "
                "confidence; tied with the best: the systems that may rank first (Mogstad, Romano, Shaikh "
                "& Wilhelm 2024; docs/ranks.md). "
                if sets is not None
                else ""
            )
            + about
            + (
                " β 95 % CI: the strength's interval from the model's covariance (the inference named "
                "above), available however few blocks there are."
                if model_ci
                else ""
            )
        ),
        id=f"systems{view.index}",
    )


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
    yield system_table(view, shown)
    rank = lower_is_better(analysis.response)  # ranks: 1 is best
    means = view.figure(
        "means",
        lambda path: figures.means_figure(view.table, analysis.response, path, mean_unit(view)),
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
