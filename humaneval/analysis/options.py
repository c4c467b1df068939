"""The options of :func:`~humaneval.analysis.workflow.analyze` that an analysis adapter may use."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from humaneval.analysis.plan import CEILING_MINUTES


@dataclass(frozen=True)
class AnalysisOptions:
    """The options of :func:`~humaneval.analysis.workflow.analyze` an adapter may use."""

    engine: str = "native"
    structure: str = "auto"
    link: str = "logit"
    reference: str | Mapping[str, str] | None = None
    adjust: str | None = None
    fallback: bool = True
    alpha: float = 0.05
    seed: int | np.random.Generator | None = None
    inference: str | None = None
    n_resamples: int = 1000
    progress: bool | Callable[[str], None] = False
    style: tuple[str, ...] = ()
    max_minutes: float | None = CEILING_MINUTES
    #: Humans and a judge (the ``ppi`` adapter): the judge's name, its scores when they are not rows of
    #: the table (any layout of :func:`~humaneval.core.judge_scores.read_judge_scores`), the estimator of a
    #: score table (``mean`` or ``ordinal``), the clustering and the design's inclusion probabilities.
    judge: str | None = None
    judge_scores: Any = None
    judge_model: str = "mean"
    cluster: str = "auto"
    probabilities: pd.DataFrame | None = None
