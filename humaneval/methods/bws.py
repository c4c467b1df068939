"""Best–worst scaling: the best and the worst summary of a tuple (Louviere et al. 2015)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humaneval.core.responses import SCORE
from humaneval.methods.base import Method

CHOICES = ("best", "worst", "none")
"""Answers of a best–worst attention-check entry."""


@dataclass(frozen=True)
class BestWorst(Method):
    """Per entry +1 (best), −1 (worst) or 0; a check entry asks to be chosen as best or worst."""

    def value_range(self, points: int | None = None) -> tuple[float, float]:
        return (-1.0, 1.0)

    def draw_check_expected(self, rng: np.random.Generator, *, points: int, side: str) -> str:
        return "best" if rng.random() < 0.5 else "worst"

    def imc_instruction(self, expected: str) -> str:
        return f"This entry checks your attention. Please choose it as the {expected} one."

    def check_text(self, expected: str, *, best_worst_labels: tuple[str, str], n_entries: int = 1) -> str:
        label = best_worst_labels[1] if expected.strip().lower() == "worst" else best_worst_labels[0]
        return f"This entry checks your attention. Please choose it as '{label}'."


BWS = BestWorst(
    name="bws",
    title="best–worst scaling",
    aliases=("best-worst",),
    unit="tuple",
    response=SCORE,
    table_kind="bws",
    analysis="comparative",
    widget="bws",
    check_placement="padded",
    screen_field_prefix="bw_",
    screen_key="tuple_id",
    entry_order="shuffled",
    entry_codes=True,
    position_balancing="order inside each tuple shuffled per annotator",
    scale_description="best–worst choices within a tuple (+1 = best, −1 = worst, 0 = neither)",
)
