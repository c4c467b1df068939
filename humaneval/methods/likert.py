"""Likert scale: every summary rated on a labelled scale of 2–11 points (Steen & Markert 2021)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humaneval.core.responses import SCORE
from humaneval.methods.base import IMC_LEAD, Method

STUDY_SECONDS = {"coherence": 32.0, "repetition": 27.1}
"""Median seconds per Likert screen in Steen & Markert (2021), by dimension."""


@dataclass(frozen=True)
class Likert(Method):
    """A whole-number answer from 1 to the scale's points; a check asks for one inner point."""

    def value_range(self, points: int | None = None) -> tuple[float, float]:
        return (1, 7 if points is None else points)

    def check_passed(self, value, expected: str) -> bool:
        return float(value) == float(expected.strip())

    def draw_check_expected(self, rng: np.random.Generator, *, points: int, side: str) -> str:
        # an inner point, so the instructed answer is never a scale end an inattentive rater favours
        return str(int(rng.integers(2, points))) if points >= 3 else "1"

    def imc_instruction(self, expected: str) -> str:
        return f"{IMC_LEAD} choose {expected} on the scale below."

    def check_text(self, expected: str, *, best_worst_labels: tuple[str, str], n_entries: int = 1) -> str:
        return f"{IMC_LEAD} choose {expected} on the scale below."


LIKERT = Likert(
    name="likert",
    title="Likert scale rating",
    unit="item",
    response=SCORE,
    table_kind="likert",
    analysis="clmm",
    widget="likert",
    check_placement="screen",
    preset="{dimension}-likert7",
    field_prefix="lk_q0_",
    gold_checks=True,
    criteria=True,
    preset_points=(2, 11),
    study_seconds=STUDY_SECONDS,
)
