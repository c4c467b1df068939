"""Rank confidence sets of an analysis: its estimates and the covariance of their differences.

Every analysis (:class:`~humaneval.analysis.adapters.SystemAnalysis`) has a system table with the
model's ``estimate`` per system and a contrast table with the standard error of each difference.
The rank sets depend on the covariance Σ of the estimates only through the variances V_jk of the
differences θ̂_j − θ̂_k, and Σ* = −½ C V C (C the centring matrix) has exactly those variances, so
the contrast table is enough whichever model produced it: a CLMM's treatment effects (reference
at 0), the joint model's EMMs, centred Bradley–Terry strengths with a model-based, mixed-model or
cluster-bootstrap covariance. An analysis can instead give its estimates and covariance itself
(``rank_inputs``; the prediction-powered analyses do).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TypeVar

import numpy as np
import pandas as pd

from humaneval.errors import OptionError
from humaneval.ranks.estimates import DEFAULT_SEED, rank_sets
from humaneval.ranks.result import RankSets
from humaneval.ranks.sets import DEFAULT_DRAWS, KINDS

AnalysisT = TypeVar("AnalysisT")


def covariance_from_contrasts(estimates: pd.Series, contrasts: pd.DataFrame) -> np.ndarray | None:
    """A covariance of ``estimates`` with the differences' variances of ``contrasts``, or None.

    Parameters
    ----------
    estimates : Series
        One estimate per system (index: the systems).
    contrasts : DataFrame
        ``system_a``, ``system_b``, ``estimate`` (θ̂_a − θ̂_b, either sign) and ``se`` of every pair.

    Returns
    -------
    ndarray or None
        Σ* = −½ C V C; None when a pair is missing, an SE is not a positive number, a contrast is
        not the difference of the two estimates, or the SEs fit no covariance (Σ* not positive
        semi-definite), so that no rank set is computed from numbers that do not belong together.

    Examples
    --------
    >>> est = pd.Series([0.0, 1.0, 2.0], index=["a", "b", "c"])
    >>> cov = np.array([[0.0, 0.0, 0.0], [0.0, 0.04, 0.01], [0.0, 0.01, 0.09]])
    >>> se = {("a", "b"): 0.2, ("a", "c"): 0.3, ("b", "c"): np.sqrt(0.04 + 0.09 - 0.02)}
    >>> table = pd.DataFrame([(a, b, est[a] - est[b], s) for (a, b), s in se.items()],
    ...                      columns=["system_a", "system_b", "estimate", "se"])
    >>> star = covariance_from_contrasts(est, table)
    >>> bool(np.isclose(star[1, 1] + star[2, 2] - 2 * star[1, 2], 0.11))
    True
    """
    names = [str(s) for s in estimates.index]
    n = len(names)
    if n < 2 or contrasts is None or not {"system_a", "system_b", "estimate", "se"} <= set(contrasts):
        return None
    where = {name: i for i, name in enumerate(names)}
    variance = np.full((n, n), np.nan)
    np.fill_diagonal(variance, 0.0)
    x = estimates.to_numpy(dtype=float)
    for a, b, value, se in contrasts[["system_a", "system_b", "estimate", "se"]].itertuples(index=False):
        i, j = where.get(str(a)), where.get(str(b))
        if i is None or j is None or not (np.isfinite(se) and se > 0):
            return None
        difference = x[i] - x[j]
        if not np.isclose(abs(value), abs(difference), rtol=1e-6, atol=1e-8 * (1 + abs(difference))):
            return None
        variance[i, j] = variance[j, i] = float(se) ** 2
    if np.isnan(variance).any():
        return None
    centre = np.eye(n) - 1.0 / n
    star = -0.5 * centre @ variance @ centre
    if float(np.linalg.eigvalsh(star).min()) < -1e-8 * float(np.abs(star).max()):
        return None
    return star


def analysis_rank_sets(
    analysis: object,
    *,
    confidence: float = 0.95,
    seed: int | np.random.Generator | None = DEFAULT_SEED,
    draws: int = DEFAULT_DRAWS,
) -> dict[str, RankSets] | None:
    """Marginal and simultaneous rank sets of an analysis's systems, or None without a covariance.

    Parameters
    ----------
    analysis : SystemAnalysis
        A result of :func:`humaneval.analysis.analyze` (its ``systems`` and ``contrasts``).
    confidence : float
        Coverage (the analysis's 1 − α).
    seed : int or Generator, optional
        Seed of the parametric bootstrap.
    draws : int
        Bootstrap draws.

    Returns
    -------
    dict or None
        ``{"marginal": RankSets, "simultaneous": RankSets}``, ranks by the model's estimates
        (higher = better); None when the contrasts give no covariance
        (:func:`covariance_from_contrasts`), e.g. a classic test of a subset of pairs.

    Notes
    -----
    An analysis whose contrasts are not differences of its system estimates (the PPI means, whose
    paired differences are estimated on their own) gives its estimates and their covariance itself:
    a method ``rank_inputs()`` returning ``(estimates, covariance)`` (a Series by system and a
    matching matrix) or None, used instead of the contrasts.
    """
    own = getattr(analysis, "rank_inputs", None)
    if callable(own):
        found = own()
        if found is None:
            return None
        estimates, cov = found
    else:
        systems = getattr(analysis, "systems", None)
        if systems is None or not {"system", "estimate"} <= set(systems):
            return None
        estimates = systems.set_index("system")["estimate"].astype(float)
        cov = covariance_from_contrasts(estimates, getattr(analysis, "contrasts", None))
    if cov is None or not np.all(np.isfinite(estimates)):
        return None
    try:
        return {
            kind: rank_sets(estimates, cov, confidence=confidence, kind=kind, seed=seed, draws=draws)
            for kind in KINDS
        }
    except OptionError:  # e.g. two systems whose difference has no variance
        return None


def with_rank_sets(
    analysis: AnalysisT,
    *,
    confidence: float = 0.95,
    seed: int | np.random.Generator | None = None,
    draws: int = DEFAULT_DRAWS,
) -> AnalysisT:
    """A copy of ``analysis`` holding its rank sets (:func:`analysis_rank_sets`; ``seed`` None means
    the default seed); an analysis without a ``rank_sets`` field is returned as it is."""
    if "rank_sets" not in getattr(analysis, "__dataclass_fields__", {}):
        return analysis
    found = analysis_rank_sets(
        analysis, confidence=confidence, seed=DEFAULT_SEED if seed is None else seed, draws=draws
    )
    return replace(analysis, rank_sets=found)  # type: ignore[type-var]


def rank_sets_dict(sets: Mapping[str, RankSets] | None) -> dict[str, object] | None:
    """The ``rank_sets`` key of ``analyze --json``: each kind's :meth:`RankSets.to_dict`, or None."""
    return None if sets is None else {kind: found.to_dict() for kind, found in sets.items()}
