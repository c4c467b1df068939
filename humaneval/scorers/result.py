"""The contract every bundled scorer follows (docs/scorers.md).

``scorer.score(sources, summaries, **kw)`` takes equal-length lists and returns a
:class:`ScoreResult`: one float per item (NaN where undefined), a ``method`` string saying exactly
what ran, and a ``meta`` dict (model path, k, seed, version, counts of skipped items). Empty or
whitespace-only texts give NaN and one counted :class:`EmptyInputWarning`, never an exception.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel
from humaneval.errors import RatingsError


class EmptyInputWarning(UserWarning):
    """Some texts were empty or whitespace only; their scores are NaN."""


class UndefinedScoreWarning(UserWarning):
    """Some texts have no defined score (e.g. coherence of a one-sentence summary); they get NaN."""


@dataclass(frozen=True)
class ScoreResult:
    """Scores of a batch of summaries: ``values`` (NaN where undefined), ``method``, ``meta``."""

    values: np.ndarray
    method: str
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.values)

    def to_dict(self) -> dict[str, Any]:
        return {"values": self.values.tolist(), "method": self.method, "meta": dict(self.meta)}

    def to_frame(
        self, documents: Sequence[object], systems: Sequence[object], column: str = "score"
    ) -> pd.DataFrame:
        """The metric table of docs/scorers.md (``document``, ``system``, ``column``), one row per item."""
        if not len(documents) == len(systems) == len(self.values):
            raise RatingsError(
                f"to_frame: {len(documents)} documents and {len(systems)} systems for "
                f"{len(self.values)} scores; pass one document and one system id per scored summary"
            )
        return pd.DataFrame(
            {
                "document": [str(d) for d in documents],
                "system": [str(s) for s in systems],
                column: np.asarray(self.values, dtype=float),
            }
        )


def values_of(result: ScoreResult | Sequence[float]) -> np.ndarray:
    """The scores of a ScoreResult or of a plain sequence, as a float array."""
    return np.asarray(result.values if isinstance(result, ScoreResult) else result, dtype=float)


def as_texts(texts: Sequence[str | None] | str, name: str) -> list[str]:
    """A list of strings (``None`` and NaN become ``""``); a bare string is refused."""
    if isinstance(texts, str):
        raise RatingsError(f"{name}: expected a list of texts, got a single string; wrap it in a list")
    out = []
    for i, text in enumerate(texts):
        if text is None or (isinstance(text, float) and np.isnan(text)):
            out.append("")
        elif isinstance(text, str):
            out.append(text)
        else:
            raise RatingsError(f"{name}[{i}]: expected a string, got {type(text).__name__}")
    return out


def paired_texts(
    sources: Sequence[str | None],
    summaries: Sequence[str | None],
    names: tuple[str, str] = ("sources", "summaries"),
) -> tuple[list[str], list[str]]:
    """Check that two batches have equal length and return them as lists of strings."""
    first, second = as_texts(sources, names[0]), as_texts(summaries, names[1])
    if len(first) != len(second):
        raise RatingsError(
            f"{len(first)} {names[0]} but {len(second)} {names[1]}; pass one of each per scored summary"
        )
    return first, second


def blank_mask(*batches: list[str]) -> np.ndarray:
    """True where any of the aligned texts is empty or whitespace only; warns once with the count."""
    mask = np.zeros(len(batches[0]), dtype=bool)
    for batch in batches:
        mask |= np.array([not t.strip() for t in batch], dtype=bool)
    if mask.any():
        warnings.warn(
            f"{int(mask.sum())} of {len(mask)} items have an empty text; their scores are NaN",
            EmptyInputWarning,
            stacklevel=caller_stacklevel(),
        )
    return mask
