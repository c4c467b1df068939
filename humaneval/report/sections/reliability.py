"""A criterion's reliability: α, split-half reliability and κ; agreement on choices for comparative tables."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Block, Paragraph, Section, Stat, Stats, Styled, text
from humaneval.present.formatting import MISSING, fmt, fmt_ci
from humaneval.reliability.report import ReliabilityReport
from humaneval.report import figures
from humaneval.report.sections.base import CriterionView


def _splits(n: int) -> str:
    return f"{n} split" + ("" if n == 1 else "s")


def reliability_blocks(rel: ReliabilityReport, index: int) -> list[Block]:
    """α, split-half reliability and Fleiss' κ as headline numbers, with what they measure."""
    if rel.shr_caveat:
        shr = text(Styled(f"not an estimate ({_splits(rel.shr_n_splits)})", "todo"))
    else:
        spread = fmt_ci(rel.shr_quantiles[0], rel.shr_quantiles[2]) if rel.shr_quantiles else MISSING
        shr = text(f"sd {fmt(rel.shr_sd)}, 95 % of splits in {spread}")
    alpha_ci = fmt_ci(*rel.alpha_ci) if rel.alpha_ci else MISSING
    stats = Stats(
        (
            Stat(
                f"Krippendorff’s α ({rel.level_of_measurement})", fmt(rel.alpha), text(f"95 % CI {alpha_ci}")
            ),
            Stat("Split-half reliability", fmt(rel.shr), shr),
            Stat(
                "Fleiss’ κ",
                fmt(rel.fleiss_kappa),
                text(f"{rel.n_pairable_units} units, {rel.n_pairable} values"),
            ),
        ),
        id=f"reliability{index}",
    )
    q = "".join(f"; P(α\u00a0<\u00a0{k:g}) = {fmt(v)}" for k, v in rel.alpha_q.items())
    caveat = ""
    if rel.shr_caveat:
        caveat = f" Here it {rel.shr_caveat.replace('split-half reliability ', '')}."
    note = text(
        f"α measures agreement on single summaries (KALPHA interval, {rel.n_resamples} resamples{q}). "
        "Split-half reliability is the mean Pearson r between the system means of two halves that share "
        f"neither annotators nor documents ({_splits(rel.shr_n_splits)}; Spearman–Brown for the whole study "
        f"{fmt(rel.shr_spearman_brown)}) — whether a replication would rank the systems the same "
        f"way.{caveat} "
        f"Seed {rel.seed}."
    )
    return [stats, Paragraph(note, "note"), *(Paragraph(text(n), "note") for n in rel.notes)]


def _agreement_blocks(view: CriterionView) -> list[Block]:
    agreement = view.part.agreement
    assert agreement is not None
    stats = Stats(
        tuple(
            Stat(
                f"Krippendorff’s α on the {c.choice} (nominal)",
                fmt(c.alpha),
                text(f"95 % CI {fmt_ci(*c.ci)}; majority {fmt(c.majority_share)}"),
            )
            for c in agreement.choices
        ),
        id=f"agreement{view.index}",
    )
    note = text(
        "α measures how far annotators agree on the choice in a comparison that several of them made "
        f"({agreement.choices[0].n_units} comparisons; KALPHA interval, {agreement.n_resamples} resamples); "
        "“majority” is the share of judgements that agree with their comparison’s most frequent choice."
    )
    return [stats, Paragraph(note, "note")]


def part(view: CriterionView) -> Iterator[Block]:
    rel = view.part.reliability
    if rel is not None:
        blocks = reliability_blocks(rel, view.index)
    elif view.part.agreement is not None:
        blocks = _agreement_blocks(view)
    else:
        blocks = [Paragraph(text(f"Not computed: {view.part.reliability_error}"), "note")]
    if rel is not None and rel.time_curve:
        curve = rel.time_curve
        blocks.append(
            view.figure(
                "time_curve",
                lambda path: figures.time_curve_figure(curve, path),
                "Time versus reliability curve",
                text(
                    "Annotator time against the correlation of a subsample’s system means with the full data "
                    "(10-minute buckets, 95 % intervals; dissertation Fig. 3.5)."
                ),
            )
        )
    yield Section("Reliability", tuple(blocks))
