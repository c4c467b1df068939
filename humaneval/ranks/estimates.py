"""Rank confidence sets of any estimates with a covariance (or independent standard errors)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from humaneval.errors import OptionError
from humaneval.ranks.result import RANK_COLUMNS, RankSets
from humaneval.ranks.sets import DEFAULT_DRAWS, KINDS, MAX_DRAWS, difference_sd, rank_bounds

DEFAULT_SEED = 1

#: Largest draws × populations of the bootstrap (8 bytes each: 400 MB).
MAX_CELLS = 50_000_000


def rank_sets(
    estimates: Sequence[float] | np.ndarray | pd.Series,
    cov: np.ndarray | pd.DataFrame | None = None,
    *,
    se: Sequence[float] | np.ndarray | None = None,
    names: Sequence[str] | None = None,
    confidence: float = 0.95,
    kind: str = "simultaneous",
    top: int | None = None,
    lower_is_better: bool = False,
    seed: int | np.random.Generator | None = DEFAULT_SEED,
    draws: int = DEFAULT_DRAWS,
) -> RankSets:
    """Confidence sets for the ranks of populations from estimates and their covariance.

    Parameters
    ----------
    estimates : sequence of float or Series
        One estimate per population (a Series gives the names by its index).
    cov : ndarray or DataFrame, optional
        Covariance matrix of the estimates (positive semi-definite). Only the covariances of the
        differences matter, so a model's covariance with a reference fixed at 0 is fine.
    se : sequence of float, optional
        Standard errors of independent estimates, instead of ``cov``.
    names : sequence of str, optional
        Population names (default: the Series index, else ``1 … n``).
    confidence : float
        Coverage of the sets (default 0.95).
    kind : {"simultaneous", "marginal"}
        ``simultaneous``: all sets cover their ranks jointly; ``marginal``: each covers its own.
    top : int, optional
        τ of the τ-best set ``top_set``: the populations that may be among the ``top`` best.
    lower_is_better : bool
        Rank 1 is the lowest estimate (the procedure runs on −estimate).
    seed : int or Generator, optional
        Seed of the parametric bootstrap (default 1).
    draws : int
        Bootstrap draws of the critical values (default 10,000).

    Returns
    -------
    RankSets
        ``ranks`` (name, estimate, rank, rank_low, rank_high; best first), ``top_set`` and
        ``best_set`` (τ = 1: the populations tied with the best).

    Raises
    ------
    OptionError
        Estimates or covariances that are not finite, a covariance that is not symmetric positive
        semi-definite, two populations whose difference has no variance, or options out of range.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M., & Wilhelm, D. (2024). Inference for ranks with
    applications to mobility across neighbourhoods and academic achievement across countries.
    Review of Economic Studies, 91(1), 476–518.

    Examples
    --------
    The example of the csranks documentation, ten estimates 1, 1.22, …, 3 with standard errors
    0.2; the published simultaneous sets are L = 7 6 5 4 3 2 1 1 1 1, U = 10 10 10 10 9 8 7 6 5 4
    and the top-3 set p05 … p10:

    >>> x = np.linspace(1, 3, 10)
    >>> result = rank_sets(x, se=[0.2] * 10, names=[f"p{i:02d}" for i in range(1, 11)], top=3,
    ...                    draws=100_000)
    >>> result.ranks.sort_values("name")[["rank_low", "rank_high"]].T.to_numpy().tolist()
    [[7, 6, 5, 4, 3, 2, 1, 1, 1, 1], [10, 10, 10, 10, 9, 8, 7, 6, 5, 4]]
    >>> result.top_set
    ('p10', 'p09', 'p08', 'p07', 'p06', 'p05')
    """
    x, sigma, labels = _checked(estimates, cov, se, names)
    n = len(x)
    if kind not in KINDS:
        raise OptionError(f"kind {kind!r} is unknown; use one of {', '.join(KINDS)}")
    if not 0.0 < confidence < 1.0:
        raise OptionError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    if not 100 <= draws <= MAX_DRAWS:
        raise OptionError(f"draws must be between 100 and {MAX_DRAWS:,}, not {draws}")
    if draws * n > MAX_CELLS:
        raise OptionError(
            f"{draws:,} draws of {n:,} estimates need {draws * n * 8 / 2**20:,.0f} MB; use fewer --draws"
        )
    if top is not None and not 1 <= top <= n:
        raise OptionError(f"top must be between 1 and the number of estimates ({n}), not {top}")
    signed = -x if lower_is_better else x
    sd = difference_sd(sigma)
    zero = np.argwhere(np.triu(sd <= 1e-12 * max(float(sd.max()), 1e-300), 1))
    if len(zero):
        a, b = zero[0]
        raise OptionError(
            f"the difference of {labels[a]} and {labels[b]} has no variance under the covariance given; "
            "check the covariance (or drop one of them)"
        )
    alpha = 1.0 - confidence

    def bounds(which: str) -> tuple[np.ndarray, np.ndarray]:
        return rank_bounds(
            signed, sigma, kind=which, alpha=alpha, draws=draws, rng=np.random.default_rng(seed)
        )

    low, high = bounds(kind)
    joint_low = low if kind == "simultaneous" else bounds("simultaneous")[0]
    rank = 1 + (signed[None, :] > signed[:, None]).sum(axis=1)
    frame = pd.DataFrame(
        dict(zip(RANK_COLUMNS, (labels, x, rank, low.astype(int), high.astype(int)), strict=True))
    )
    order = np.argsort(-signed, kind="stable")
    frame = frame.iloc[order].reset_index(drop=True)
    return RankSets(
        ranks=frame,
        kind=kind,
        confidence=confidence,
        lower_is_better=lower_is_better,
        draws=draws,
        seed=seed if isinstance(seed, int) else None,
        top=top,
        top_set=tuple(labels[i] for i in order if top is not None and joint_low[i] <= top),
        best_set=tuple(labels[i] for i in order if joint_low[i] <= 1),
    )


def _checked(
    estimates: Sequence[float] | np.ndarray | pd.Series,
    cov: np.ndarray | pd.DataFrame | None,
    se: Sequence[float] | np.ndarray | None,
    names: Sequence[str] | None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Estimates, covariance and names as arrays, each checked."""
    if names is None:
        names = [str(i) for i in estimates.index] if isinstance(estimates, pd.Series) else None
    x = np.asarray(estimates, dtype=float)
    if x.ndim != 1 or len(x) < 2:
        raise OptionError(f"give at least two estimates in one dimension, not an array of shape {x.shape}")
    labels = [str(i + 1) for i in range(len(x))] if names is None else [str(v) for v in names]
    if len(labels) != len(x):
        raise OptionError(f"{len(labels)} names for {len(x)} estimates")
    if len(set(labels)) != len(labels):
        twice = sorted({v for v in labels if labels.count(v) > 1})
        raise OptionError(f"names must be unique; repeated: {', '.join(twice[:5])}")
    bad = [labels[i] for i in np.flatnonzero(~np.isfinite(x))]
    if bad:
        raise OptionError(f"estimates must be finite numbers; not so for {', '.join(bad[:5])}")
    if (cov is None) == (se is None):
        raise OptionError("give a covariance matrix (cov) or standard errors (se): one of the two")
    if se is not None:
        s = np.asarray(se, dtype=float)
        if s.shape != x.shape:
            raise OptionError(f"{s.size} standard errors for {len(x)} estimates")
        bad = [labels[i] for i in np.flatnonzero(~(np.isfinite(s) & (s >= 0)))]
        if bad:
            raise OptionError(f"standard errors must be finite and ≥ 0; not so for {', '.join(bad[:5])}")
        return x, np.diag(s**2), labels
    sigma = np.asarray(cov, dtype=float)
    if sigma.shape != (len(x), len(x)):
        raise OptionError(f"the covariance must be {len(x)} × {len(x)} (one row and column per estimate), "
                          f"not {' × '.join(map(str, sigma.shape))}")  # fmt: skip
    if not np.all(np.isfinite(sigma)):
        raise OptionError("the covariance must hold finite numbers only")
    scale = max(float(np.abs(sigma).max()), 1e-300)
    if not np.allclose(sigma, sigma.T, rtol=1e-6, atol=1e-9 * scale):
        raise OptionError("the covariance must be symmetric")
    sigma = (sigma + sigma.T) / 2.0
    if float(np.linalg.eigvalsh(sigma).min()) < -1e-8 * scale:
        raise OptionError(
            "the covariance is not positive semi-definite (a negative variance of a combination)"
        )
    return x, sigma, labels
