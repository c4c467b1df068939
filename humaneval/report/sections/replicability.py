"""A criterion's replicability before the fact: how often two independent runs of this design agree."""

from __future__ import annotations

from collections.abc import Iterator

from humaneval.present.document import Block, Paragraph, text
from humaneval.report.sections.base import CriterionView


def part(view: CriterionView) -> Iterator[Block]:
    note = view.part.power
    if note is None or not note.replicability:
        return
    row = note.replicability[0]
    yield Paragraph(
        text(
            f"Replicability: in {row['n_studies']} studies simulated on this design (the fitted differences "
            f"taken as true), two independent runs give the same system ranking with probability "
            f"{row['same_ranking']:.2f} and the same significant pairs ({row['test']}, same directions) with "
            f"probability {row['same_significant']:.2f}; the most frequent ranking, {row['modal_ranking']}, "
            f"comes up in {row['modal_share']:.0%} of them (docs/reproducibility.md)."
        )
    )
