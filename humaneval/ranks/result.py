"""The result of :func:`humaneval.ranks.rank_sets`: one row per population with its rank set."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

RANK_COLUMNS = ("name", "estimate", "rank", "rank_low", "rank_high")
"""Columns of :attr:`RankSets.ranks` (and keys of the rows of ``ranks`` in the ``--json`` output)."""


@dataclass(frozen=True, eq=False)
class RankSets:
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

    def summary(self) -> str:
        """The table as ``humaneval ranks`` prints it."""
        width = max(4, *(len(str(n)) for n in self.ranks["name"]))
        lines = [
            f"{self.kind} {self.confidence:.0%} confidence sets for ranks (1 = "
            f"{'lowest' if self.lower_is_better else 'highest'} estimate; {self.draws} draws)",
            f"{'name':<{width}}  {'estimate':>10}  rank  set",
        ]
        for row in self.ranks.itertuples(index=False):
            interval = (
                f"{row.rank_low}" if row.rank_low == row.rank_high else f"{row.rank_low}–{row.rank_high}"
            )
            lines.append(f"{row.name:<{width}}  {row.estimate:>10.4g}  {row.rank:>4}  {interval}")
        lines.append(f"may be the best: {', '.join(self.best_set)}")
        if self.top is not None:
            lines.append(f"may be among the {self.top} best: {', '.join(self.top_set)}")
        return "\n".join(lines)
