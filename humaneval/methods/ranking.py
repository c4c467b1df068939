"""Ranking: all summaries of a document put in order, 1 = best (Steen & Markert 2021)."""

from __future__ import annotations

from dataclasses import dataclass

from humaneval.core.responses import RANK
from humaneval.methods.base import Method
from humaneval.methods.values import parse_number

STUDY_SECONDS = {"coherence": 135.5, "repetition": 102.4}
"""Median seconds per ranking screen of 5 summaries in Steen & Markert (2021), by dimension."""


@dataclass(frozen=True)
class Ranking(Method):
    """Whole-number ranks; an attention check is an extra entry to be moved to the last position."""

    def value_range(self, points: int | None = None) -> tuple[float, float] | None:
        """None: the highest rank is the number of entries of the screen."""
        return None

    def parse_value(self, value, points: int | None = None) -> float | None:
        """A rank from 1 to ``points`` (the screen's number of entries)."""
        number = parse_number(value)
        high = float("inf") if points is None else points
        if number is None or number != round(number) or not 1 <= number <= high:
            return None
        return float(number)

    def check_passed(self, value, expected: str) -> bool:
        return float(value) == float(expected.strip())

    def imc_instruction(self, expected: str) -> str:
        return "This entry checks your attention. Please move it to the last position."

    def check_text(self, expected: str, *, best_worst_labels: tuple[str, str], n_entries: int = 1) -> str:
        last = expected in {"", "last", str(n_entries)}
        where = "the last position" if last else f"position {expected}"
        return f"This entry checks your attention. Please move it to {where} of the list."

    def seconds_per_screen(self, dimension: str, n_systems: int, show_source: bool) -> tuple[float, str]:
        seconds, source = super().seconds_per_screen(dimension, n_systems, show_source)
        return seconds * n_systems / 5, source + (f", scaled by {n_systems}/5" if n_systems != 5 else "")


RANKING = Ranking(
    name="rank",
    title="ranking",
    aliases=("ranking",),
    unit="document",
    response=RANK,
    table_kind="ranking",
    analysis="clmm",
    widget="rank",
    check_placement="embedded",
    field_prefix="rk_",
    raw_field_prefix="rkraw_",
    entry_order="latin",
    ties_option=True,
    position_balancing=(
        "summaries ordered on screen by a cyclic Latin square with a random system map per block"
    ),
    study_seconds=STUDY_SECONDS,
)
