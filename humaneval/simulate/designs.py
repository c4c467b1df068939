"""Block designs as arrays for simulation and the paired differences per aggregation level.

A design of B blocks × D documents per block × A annotators per block is scored for all S
systems, so one simulated study is an array ``scores[B, A, D, S]`` in the row order of
:func:`humaneval.design.block_design`. The aggregation levels of docs/simulation.md are then plain means:
``"none"`` pairs judgements over (annotator, document) (n = BAD), ``"document"`` averages each
document's A judgements (n = BD) and ``"cluster"`` averages each block (n = B; the ARTagg test of
dissertation §3.7, where a nested block is one annotator with their documents).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from humaneval.design.blocks import block_design
from humaneval.errors import DesignError
from humaneval.stats.kernels import AGGREGATES

_KEYS = {"blocks": "blocks", "b": "blocks", "docs": "docs", "d": "docs", "documents": "docs"}
_KEYS |= {"annotators": "annotators", "a": "annotators", "docs_per_block": "docs"}
_KEYS |= {"annotators_per_block": "annotators"}


@dataclass(frozen=True)
class SimDesign:
    """B blocks × D documents per block × A annotators per block (A = 1 nested, B = 1 crossed)."""

    blocks: int
    docs: int
    annotators: int

    def __post_init__(self) -> None:
        for name in ("blocks", "docs", "annotators"):
            value = getattr(self, name)
            if isinstance(value, bool) or int(value) != value or value < 1:
                raise DesignError(f"design {name} must be a whole number of at least 1, not {value!r}")
            object.__setattr__(self, name, int(value))

    @classmethod
    def parse(cls, text: str) -> SimDesign:
        """Parse ``"blocks=20,docs=5,annotators=3"`` (also ``B=20,D=5,A=3`` or ``20x5x3``)."""
        text = text.strip()
        match = re.fullmatch(r"(\d+)\s*[x×]\s*(\d+)\s*[x×]\s*(\d+)", text)
        if match:
            return cls(*(int(g) for g in match.groups()))
        values: dict[str, int] = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, sep, value = part.partition("=")
            name = _KEYS.get(key.strip().lower())
            if not sep or name is None or not value.strip().isdigit():
                raise DesignError(
                    f"design {text!r}: cannot read {part!r}; write blocks=20,docs=5,annotators=3 or 20x5x3"
                )
            if name in values:
                raise DesignError(
                    f"design {text!r}: {name} is given twice; give each of blocks, docs, annotators once"
                )
            values[name] = int(value)
        missing = {"blocks", "docs", "annotators"} - values.keys()
        if missing:
            raise DesignError(
                f"design {text!r} lacks {', '.join(sorted(missing))}; e.g. blocks=20,docs=5,annotators=3"
            )
        return cls(**values)

    @property
    def label(self) -> str:
        return f"{self.blocks}x{self.docs}x{self.annotators}"

    @property
    def family(self) -> str:
        if self.annotators == 1:
            return "nested"
        return "fully_crossed" if self.blocks == 1 else "crossed_in_blocks"

    @property
    def total_annotators(self) -> int:
        return self.blocks * self.annotators

    @property
    def total_documents(self) -> int:
        return self.blocks * self.docs

    def judgements(self, n_systems: int) -> int:
        """B·D·A·S judgements in total."""
        return self.blocks * self.docs * self.annotators * n_systems

    def n_pairs(self, aggregate: str) -> int:
        """Number of pairing units n at an aggregation level."""
        return {"none": self.blocks * self.annotators * self.docs, "document": self.blocks * self.docs}.get(
            aggregate, self.blocks
        )

    def unit_size(self, aggregate: str) -> int:
        """Judgements per system in one pairing unit: 1, A (document) or A·D (cluster)."""
        return {"none": 1, "document": self.annotators}.get(aggregate, self.annotators * self.docs)

    def table(self, systems: tuple[str, ...]) -> pd.DataFrame:
        """The long design table of :func:`humaneval.design.block_design`, rows in B, A, D, S order."""
        return block_design(self.blocks, self.docs, self.annotators, systems)

    @cached_property
    def _codes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        b, a, d = np.meshgrid(
            np.arange(self.blocks), np.arange(self.annotators), np.arange(self.docs), indexing="ij"
        )
        return b.ravel(), (b * self.annotators + a).ravel(), (b * self.docs + d).ravel()

    def group_codes(self, n_systems: int) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, int]]]:
        """System code per row and ``{factor: (codes, n_levels)}`` for ``sample_scores``."""
        _, annotator, document = self._codes
        system = np.tile(np.arange(n_systems), annotator.size)
        groups = {
            "annotator": (np.repeat(annotator, n_systems), self.total_annotators),
            "document": (np.repeat(document, n_systems), self.total_documents),
        }
        return system, groups

    def to_dict(self) -> dict[str, object]:
        return {
            "blocks": self.blocks,
            "docs": self.docs,
            "annotators": self.annotators,
            "family": self.family,
            "total_annotators": self.total_annotators,
            "total_documents": self.total_documents,
        }


def system_pairs(n_systems: int) -> list[tuple[int, int]]:
    """All unordered pairs (i, j), i < j, in the order of the model's systems."""
    return list(itertools.combinations(range(n_systems), 2))


def pair_differences(
    scores: np.ndarray, aggregate: str, pairs: list[tuple[int, int]], totals: bool = False
) -> np.ndarray:
    """Paired differences x_i − x_j per system pair at one aggregation level: ``(n_pairs, n)``.

    ``scores`` is one study as ``[B, A, D, S]``. With ``totals=True`` units are summed instead
    of averaged: in a block design every unit has the same number of judgements, so this only
    rescales Δ — the t and ART p-values and the sign of the effect are unchanged — and keeps
    integer scores integer (exact, fast ART arithmetic).
    """
    reduce = np.sum if totals else np.mean
    if aggregate == "none":
        per_unit = scores.reshape(-1, scores.shape[-1])
    elif aggregate == "document":
        per_unit = reduce(scores, axis=1).reshape(-1, scores.shape[-1])
    elif aggregate == "cluster":
        per_unit = reduce(scores, axis=(1, 2))
    else:
        raise DesignError(f"unknown aggregation level {aggregate!r}; use one of {', '.join(AGGREGATES)}")
    first, second = np.array(pairs).T
    return (per_unit[:, first] - per_unit[:, second]).T
