"""Instance-level randomisation tests and comparing two systems under one metric.

Approximate randomisation (Noreen 1989) for paired per-instance scores
of two metrics, e.g. compared by ROC AUC; assumes independent instances. Comparing systems (paired
bootstrap and paired approximate randomisation of two systems' per-document scores, as in
sacreBLEU; only per-document scores are resampled, so corpus-level metrics such as BLEU that are
not means of per-document scores are out of scope).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from humaneval.core.deprecation import renamed, renamed_attribute
from humaneval.errors import InsufficientDataError, RatingsError
from humaneval.metaeval.significance import Alternative, resampling_p_value


@dataclass(frozen=True)
class RandomisationResult:
    """δ = statistic(A) − statistic(B) and its approximate-randomisation p-value."""

    delta: float
    p_value: float
    alternative: str
    n_permutations: int

    n_rounds = renamed_attribute("n_rounds", "n_permutations")

    def to_dict(self) -> dict:
        return asdict(self)


@renamed(n_rounds="n_permutations")
def approximate_randomisation(
    a,
    b,
    statistic: Callable[[np.ndarray], float],
    *,
    n_permutations: int = 10_000,
    alternative: Alternative = "greater",
    seed: int | np.random.Generator | None = None,
) -> RandomisationResult:
    """Does metric A score better than metric B under ``statistic``?

    Both metrics are z-scored; in each round every instance's two scores are swapped with
    probability ½ and δ* = statistic(A*) − statistic(B*). ``statistic`` maps a score vector to a
    number, e.g. ``lambda s: roc_auc(s, labels)``.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise RatingsError("a and b must be score vectors of the same length")
    a, b = (a - np.nanmean(a)) / np.nanstd(a), (b - np.nanmean(b)) / np.nanstd(b)
    delta = statistic(a) - statistic(b)
    rng = np.random.default_rng(seed)
    deltas = np.empty(n_permutations)
    for r in range(n_permutations):
        swap = rng.random(len(a)) < 0.5
        deltas[r] = statistic(np.where(swap, b, a)) - statistic(np.where(swap, a, b))
    return RandomisationResult(
        float(delta), resampling_p_value(deltas, delta, alternative), alternative, n_permutations
    )


@dataclass(frozen=True)
class SystemComparison:
    """Mean per-document difference X − Y with a paired bootstrap CI and two p-values."""

    difference: float
    ci_low: float
    ci_high: float
    p_bootstrap: float
    p_randomisation: float
    n_documents: int

    def to_dict(self) -> dict:
        return asdict(self)


@renamed(n_rounds="n_permutations", confidence="confidence_level")
def compare_systems(
    x,
    y,
    *,
    n_resamples: int = 1000,
    n_permutations: int = 10_000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> SystemComparison:
    """Compare systems X and Y by their scores on the same documents.

    Paired bootstrap over documents: percentile CI of the mean difference and p = share of
    resamples whose difference has the other sign (or is 0). Paired approximate randomisation:
    swap X and Y per document with probability ½, two-sided p with the +1 form. Both vectorised.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    d = (x - y)[keep]
    if len(d) < 2:
        raise InsufficientDataError("comparing two systems needs scores on at least 2 common documents")
    rng = np.random.default_rng(seed)
    delta = float(d.mean())
    boot = d[rng.integers(0, len(d), size=(n_resamples, len(d)))].mean(axis=1)
    alpha = 1 - confidence_level
    lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    flipped = float(np.mean(np.sign(boot) != np.sign(delta))) if delta != 0 else 1.0
    signs = np.where(rng.random((n_permutations, len(d))) < 0.5, -1.0, 1.0)
    p_ar = resampling_p_value((signs * d).mean(axis=1), delta, "two-sided")
    return SystemComparison(delta, float(lo), float(hi), flipped, p_ar, len(d))
