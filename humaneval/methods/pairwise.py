"""Pairwise comparison: the better of two summaries, or a tie (Bradley & Terry 1952)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humaneval.core.responses import SCORE
from humaneval.methods.base import Method

SIDES = ("A", "B", "tie")
"""Answers of a pairwise screen (``tie`` only when ties are allowed)."""
WON = {"A": (1.0, 0.0), "B": (0.0, 1.0), "tie": (0.5, 0.5)}
"""Score of the (A, B) entries for each answer."""


@dataclass(frozen=True)
class Pairwise(Method):
    """Per entry 1 (chosen), 0 or 0.5 (tie); a check entry asks to be chosen."""

    def value_range(self, points: int | None = None) -> tuple[float, float]:
        return (0.0, 1.0)

    def draw_check_expected(self, rng: np.random.Generator, *, points: int, side: str) -> str:
        return side

    def imc_instruction(self, expected: str) -> str:
        return "This text checks your attention. Please choose it."


PAIRWISE = Pairwise(
    name="pairwise",
    title="pairwise comparison",
    unit="pair",
    response=SCORE,
    table_kind="pairwise",
    analysis="comparative",
    widget="pair",
    check_placement="padded",
    screen_field_prefix="pw_",
    screen_key="pair_id",
    integer=False,
    position_balancing="left/right position alternates with each occurrence of a pair",
    default_dimension="preference",
    scale_description="preferences between two summaries, with ties (1 = preferred, 0.5 = tie, 0 = not)",
)
