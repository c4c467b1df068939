"""The end-to-end demo behind ``humaneval demo`` (and the README's main command).

It simulates the EACL 2021 study design — 20 blocks × 5 documents × 3 annotators × 5 systems —
from the built-in coherence model, writes the design and the ratings, and validates them.
Later stages extend it so that it walks through the whole pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from humaneval.design import block_design
from humaneval.model import default_model
from humaneval.ratings import Ratings
from humaneval.structure import DesignStructure, describe_structure


@dataclass(frozen=True)
class DemoResult:
    ratings: Ratings
    ratings_path: Path
    design_path: Path
    structure: DesignStructure


def run_demo(out: Path, *, seed: int = 1) -> DemoResult:
    """Sample a realistic study from the built-in model and write it to ``out``."""
    model = default_model()
    design = block_design(20, 5, 3, model.system_names, seed=seed)
    out.mkdir(parents=True, exist_ok=True)
    design_path = out / "design.csv"
    design.to_csv(design_path, index=False)
    ratings = model.sample(design, seed=seed)
    ratings_path = ratings.write(out / "ratings.csv")
    return DemoResult(ratings, ratings_path, design_path, describe_structure(ratings))
