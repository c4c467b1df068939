"""The result of :func:`humaneval.ranks.rank_sets`: one row per population with its rank set."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from humaneval.present.document import Block, Paragraph
from humaneval.present.printable import Printable, frame_table

RANK_COLUMNS = ("name", "estimate", "rank", "rank_low", "rank_high")
"""Columns of :attr:`RankSets.ranks` (and keys of the rows of ``ranks`` in the ``--json`` output)."""


@dataclass(frozen=True, eq=False)
class RankSets(Printable):
    """Confidence sets for ranks (Mogstad, Romano, Shaikh & Wilhelm 2024).

    ``ranks`` has one row per population, best estimate first: ``name``, ``estimate``, ``rank``
    (1 = best; ties share the best rank), ``rank_low`` and ``rank_high`` (the set is every rank
    from ``rank_low`` to ``rank_high``). ``top_set`` holds the populations that may be among the
    ``top`` best (the τ-best set, τ = ``top``), empty when ``top`` is None; ``best_set`` those that
    may be the best (τ = 1), the systems "tied with the best".
    """

    ranks: pd.DataFrame
    kind: str
    confidence: float
    lower_is_better: bool
    draws: int
    seed: int | None
    top: int | None
    top_set: tuple[str, ...]
    best_set: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` of ``humaneval ranks`` and the ``rank_sets`` key of ``analyze --json``
        (docs/ranks.md)."""
        return {
            "kind": self.kind,
            "confidence": self.confidence,
            "lower_is_better": self.lower_is_better,
            "draws": self.draws,
            "seed": self.seed,
            "ranks": self.ranks.to_dict(orient="records"),
            "top": self.top,
            "top_set": list(self.top_set),
            "best_set": list(self.best_set),
        }

    def blocks(self) -> tuple[Block, ...]:
        """The table as ``humaneval ranks`` prints it."""
        shown = self.ranks.assign(
            set=[
                f"{r.rank_low}" if r.rank_low == r.rank_high else f"{r.rank_low}–{r.rank_high}"
                for r in self.ranks.itertuples(index=False)
            ]
        )
        sets = [f"may be the best: {', '.join(self.best_set)}"]
        if self.top is not None:
            sets.append(f"may be among the {self.top} best: {', '.join(self.top_set)}")
        return (
            Paragraph(
                (
                    f"{self.kind} {self.confidence:.0%} confidence sets for ranks (1 = "
                    f"{'lowest' if self.lower_is_better else 'highest'} estimate; {self.draws} draws)",
                )
            ),
            frame_table(shown, {"name": None, "estimate": lambda v: f"{v:.4g}", "rank": None, "set": None}),
            *(Paragraph((line,)) for line in sets),
        )
