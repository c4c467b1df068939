"""The declared rating scale of each criterion, and the sidecar file that carries it with the data.

A ratings table read from ``ratings.csv`` has its scale in ``ratings.scale.json`` beside it (the
*scale sidecar*): ``humaneval collect`` writes it from the design, and
:func:`humaneval.core.ratings.load_ratings` reads it, so ``validate``, ``reliability``, ``analyze`` and
``report`` use the scale the annotators were shown instead of the range of answers given. The
format (see docs/forms.md, "The scale travels with the data")::

    {"format": "humaneval-scale", "version": 1, "response": "score", "continuous": false,
     "design_id": "…",
     "criteria": [{"criterion": "coherence", "low": 1, "high": 5, "points": 5,
                   "labels": {"1": "Very poor", "5": "Very good"}, "anchors": {}, "question": "…"}]}

``criterion`` is ``null`` for a table without a criterion column; ``points`` is ``null`` for a
continuous scale (sliders, 0–100).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from humaneval.errors import RatingsError

FORMAT = "humaneval-scale"
VERSION = 1


@dataclass(frozen=True)
class Scale:
    """The rating scale of one criterion as the form showed it.

    Attributes
    ----------
    criterion:
        The criterion it belongs to (``None``: the table has no criterion column).
    low, high:
        The ends of the scale (1 and ``points`` for a Likert scale, 0 and 100 for a slider).
    points:
        The number of scale points of a discrete scale; ``None`` for a continuous one.
    labels, anchors:
        Scale-point labels and anchor descriptions, keyed by the point as a string.
    question:
        The question the annotators answered.
    """

    criterion: str | None
    low: float
    high: float
    points: int | None = None
    labels: dict[str, str] = field(default_factory=dict)
    anchors: dict[str, str] = field(default_factory=dict)
    question: str = ""

    def __post_init__(self) -> None:
        if not float(self.low) < float(self.high):
            raise RatingsError(
                f"scale of {self.criterion or 'the ratings'}: low end {self.low:g} must be below the "
                f"high end {self.high:g}"
            )

    @property
    def bounds(self) -> tuple[float, float]:
        return float(self.low), float(self.high)

    def describe(self) -> str:
        """``1-5 (5 points: 1 = Very poor, 5 = Very good)``."""
        text = f"{self.low:g}-{self.high:g}"
        details = [f"{self.points} points"] if self.points else ["continuous"]
        details += [f"{k} = {v}" for k, v in self.labels.items()]
        return f"{text} ({', '.join(details)})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "criterion": self.criterion,
            "low": _number(self.low),
            "high": _number(self.high),
            "points": self.points,
            "labels": dict(self.labels),
            "anchors": dict(self.anchors),
            "question": self.question,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Scale:
        criterion = data.get("criterion")
        return cls(
            criterion=None if criterion is None else str(criterion),
            low=float(data["low"]),
            high=float(data["high"]),
            points=None if data.get("points") is None else int(data["points"]),
            labels={str(k): str(v) for k, v in (data.get("labels") or {}).items()},
            anchors={str(k): str(v) for k, v in (data.get("anchors") or {}).items()},
            question=str(data.get("question") or ""),
        )


def sidecar_path(table: str | Path) -> Path:
    """``ratings.csv`` → ``ratings.scale.json`` (the same folder and stem)."""
    table = Path(table)
    return table.with_name(table.stem + ".scale.json")


def write_scales(
    path: str | Path,
    scales: Sequence[Scale],
    *,
    response: str = "score",
    continuous: bool = False,
    design_id: str | None = None,
) -> Path:
    """Write the scale sidecar ``path`` (see the module docstring for the format)."""
    path = Path(path)
    body = {
        "format": FORMAT,
        "version": VERSION,
        "response": response,
        "continuous": continuous,
        "design_id": design_id,
        "criteria": [s.to_dict() for s in scales],
    }
    path.write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_scales(path: str | Path) -> tuple[Scale, ...]:
    """Read a scale sidecar; a malformed file is a :class:`RatingsError` naming it."""
    path = Path(path)
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RatingsError(f"{path}: no such scale file; check the path") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RatingsError(f"{path}: not a valid scale file ({exc}); delete it or write it again") from None
    if (
        not isinstance(body, dict)
        or body.get("format") != FORMAT
        or not isinstance(body.get("criteria"), list)
    ):
        raise RatingsError(
            f"{path}: not a humaneval scale file (needs format {FORMAT!r} and a 'criteria' list); "
            "delete it or pass --scale"
        )
    try:
        scales = tuple(Scale.from_dict(item) for item in body["criteria"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RatingsError(
            f"{path}: a criterion's scale lacks or mangles {exc}; each needs low and high"
        ) from None
    names = [s.criterion for s in scales]
    if len(set(names)) != len(names):
        raise RatingsError(f"{path}: a criterion is listed twice; keep one scale per criterion")
    return scales


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else float(value)
