"""Input checks at the doors of PPI and its budget (issue 47): judge scores that are not finite, so
large they overflow, or constant; one cluster of human ratings; a budget beyond any study. Each is one
line naming what is wrong and how to fix it, before any number is computed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from humaneval.errors import InsufficientDataError, OptionError, RatingsError

#: Judge scores beyond this size are refused: their squares and cross-products overflow or lose
#: every digit of the variance PPI needs.
MAX_ABS_SCORE = 1e12
#: Relative spread below which a judge's scores count as constant (PPI gains nothing from them).
CONSTANT = 1e-12
#: The most human-rated units a budget plan may ask for.
MAX_UNITS = 10_000_000


def check_judge_scores(judged: pd.DataFrame, name: str) -> None:
    """Refuse a judge's ``score`` column holding NaN or ±inf, a score beyond ±:data:`MAX_ABS_SCORE`,
    or scores that (nearly) do not vary.

    Examples
    --------
    >>> judged = pd.DataFrame({"document": ["d1"], "system": ["A"], "score": [float("inf")]})
    >>> check_judge_scores(judged, "gpt")
    Traceback (most recent call last):
    ...
    humaneval.errors.RatingsError: judge 'gpt': score inf (document d1, system A) is not a finite number; ...
    """
    scores = pd.to_numeric(judged["score"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(scores)
    if bad.any():
        row = judged.iloc[int(np.argmax(bad))]
        raise RatingsError(
            f"judge {name!r}: score {scores[bad][0]} (document {row.get('document')}, system "
            f"{row.get('system')}) is not a finite number; fix or drop the judge's row"
        )
    if len(scores) == 0:
        return
    largest = float(np.abs(scores).max())
    if largest > MAX_ABS_SCORE:
        raise RatingsError(
            f"judge {name!r}: score {largest:g} is beyond ±{MAX_ABS_SCORE:g}; rescale the judge's scores "
            "(e.g. to the rating scale)"
        )
    if len(scores) > 1 and float(np.ptp(scores)) <= CONSTANT * max(1.0, largest):
        raise InsufficientDataError(
            f"judge {name!r}: every score is {scores[0]:g}; a constant judge carries no information for "
            "PPI: analyse the human ratings alone ('humaneval analyze')"
        )


def check_clusters(n_clusters: int, clustering: str) -> None:
    """Refuse fewer than two human-rated clusters: one cluster gives no variance, so the intervals
    would be zero-width and the p-values 0."""
    if n_clusters < 2:
        unit = "block" if clustering == "block" else "document"
        raise InsufficientDataError(
            f"the human ratings form {n_clusters} {unit}(s) as independent units; one cluster gives no "
            "variance; use --cluster document, or rate documents of more blocks"
        )


def check_units(units: float, what: str) -> None:
    """Refuse a budget needing more than :data:`MAX_UNITS` human-rated units (or an overflow)."""
    if not math.isfinite(units) or units > MAX_UNITS:
        raise OptionError(
            f"{what} needs more than {MAX_UNITS:,} human-rated units; ask for a wider interval or a larger "
            "effect, or check --sd"
        )


def check_magnitudes(values: dict[str, float | None], *, low: float = 1e-100, high: float = 1e100) -> None:
    """Refuse a positive option outside [``low``, ``high``] (its square would overflow or vanish).

    >>> check_magnitudes({"--sd": 1.0, "--effect": None})
    """
    for option, value in values.items():
        if value is not None and value > 0 and not low <= value <= high:
            raise OptionError(
                f"{option} {value:g} is out of range; give a number between {low:g} and {high:g}"
            )
