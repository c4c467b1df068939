"""Direct assessment: every summary rated on a 0–100 slider (Graham et al. 2013; FFCI)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humaneval.core.responses import SCORE
from humaneval.methods.base import IMC_LEAD, Method

IMC_TOLERANCE = 5.0
"""A slider check passes within this many points of the instructed end (0 or 100)."""


@dataclass(frozen=True)
class DirectAssessment(Method):
    """A number from 0 to 100; a check asks for one end of the slider."""

    def value_range(self, points: int | None = None) -> tuple[float, float]:
        return (0, 100)

    def check_passed(self, value, expected: str) -> bool:
        return abs(float(value) - float(expected.strip())) <= IMC_TOLERANCE

    def draw_check_expected(self, rng: np.random.Generator, *, points: int, side: str) -> str:
        return "0" if rng.random() < 0.5 else "100"

    def imc_instruction(self, expected: str) -> str:
        return f"{IMC_LEAD} move the slider to {expected}."

    def check_text(self, expected: str, *, best_worst_labels: tuple[str, str], n_entries: int = 1) -> str:
        end = "all the way to the right" if expected.strip() == "100" else "all the way to the left"
        return f"{IMC_LEAD} move the slider {end}."

    def seconds_per_screen(self, dimension: str, n_systems: int, show_source: bool) -> tuple[float, str]:
        return (30.0, "FFCI two-text minimum") if show_source else (18.0, "FFCI single-text minimum")


DA = DirectAssessment(
    name="da",
    title="direct assessment (0–100 slider)",
    aliases=("direct-assessment", "slider"),
    unit="item",
    response=SCORE,
    table_kind="likert",
    analysis="clmm",
    widget="slider",
    check_placement="screen",
    preset="da-{dimension}",
    field_prefix="da_q0_",
    integer=False,
    gold_checks=True,
    standardise=True,
)
