"""Best–worst counting scores (Kiritchenko & Mohammad 2017): the simple alternative to MaxDiff.

score(s) = (#best(s) − #worst(s)) / #shown(s) ∈ [−1, 1], with percentile intervals from a bootstrap
that resamples whole annotators (``cluster="annotator"``, the default: an annotator's tuples share
their taste) or single tuples (``cluster="tuple"``, independent judgements).

References
----------
Kiritchenko, S. & Mohammad, S. M. (2017). Best–worst scaling more reliable than rating scales.
*Proceedings of ACL*, 465–470.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humaneval.core.deprecation import renamed
from humaneval.core.ratings import Ratings
from humaneval.errors import OptionError, RatingsError


@renamed(n_boot="n_resamples", level="confidence_level")
def bws_scores(
    ratings: Ratings | pd.DataFrame,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
    cluster: str = "annotator",
) -> pd.DataFrame:
    """Best–worst counting scores per system with bootstrap percentile intervals.

    Parameters
    ----------
    ratings:
        One row per shown summary: ``system``, ``score`` (+1 best, −1 worst, 0 other) and
        ``tuple_id`` (with ``annotator``); attention-check rows of a :class:`Ratings` are left out.
    n_resamples:
        Bootstrap resamples (0: no intervals); formerly ``n_boot``.
    confidence_level:
        Of the percentile intervals; formerly ``level``.
    cluster:
        ``annotator`` (resample annotators with all their tuples) or ``tuple``.

    Returns
    -------
    pandas.DataFrame
        ``system, score, ci_low, ci_high, n_best, n_worst, n_shown``, best first.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"annotator": "w", "tuple_id": [0, 0, 0], "system": ["a", "b", "c"],
    ...                       "score": [1, 0, -1]})
    >>> bws_scores(table, n_resamples=0)["score"].tolist()
    [1.0, 0.0, -1.0]
    """
    df = ratings.without_checks().data if isinstance(ratings, Ratings) else ratings
    values = pd.to_numeric(df["score"], errors="coerce")
    if values.isna().any() or not values.isin([-1, 0, 1]).all():
        raise RatingsError("BWS values in 'score' must be +1 (best), −1 (worst) or 0")
    keys = [k for k in ("annotator", "document", "tuple_id") if k in df]
    if "tuple_id" not in keys and not {"annotator", "document"} <= set(keys):
        raise RatingsError("BWS rows need a tuple_id (or annotator and document) column to form tuples")
    if cluster not in ("annotator", "tuple"):
        raise OptionError(f"cluster must be 'annotator' or 'tuple', not {cluster!r}")
    tuples = df.groupby(keys, sort=False).ngroup().to_numpy()
    systems = sorted(df["system"].astype(str).unique())
    sys_idx = pd.Categorical(df["system"].astype(str), categories=systems).codes
    n_sys = len(systems)
    groups = pd.factorize(df["annotator"])[0] if cluster == "annotator" and "annotator" in df else tuples
    n_groups = groups.max() + 1

    def per_group(kind: np.ndarray) -> np.ndarray:
        out = np.zeros((n_groups, n_sys))
        np.add.at(out, (groups, sys_idx), kind)
        return out

    best, worst = per_group((values == 1).to_numpy(float)), per_group((values == -1).to_numpy(float))
    shown = per_group(np.ones(len(df)))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_groups, size=(n_resamples, n_groups))
    counts = (
        np.stack([np.bincount(d, minlength=n_groups) for d in draws])
        if n_resamples
        else np.zeros((0, n_groups))
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (best.sum(0) - worst.sum(0)) / shown.sum(0)
        boot = (counts @ (best - worst)) / (counts @ shown)
    tail = (1 - confidence_level) / 2
    if n_resamples:
        low, high = (np.nanquantile(boot, q, axis=0) for q in (tail, 1 - tail))
    else:
        low = high = np.full(n_sys, np.nan)
    return pd.DataFrame(
        {
            "system": systems,
            "score": score,
            "ci_low": low,
            "ci_high": high,
            "n_best": best.sum(0).astype(int),
            "n_worst": worst.sum(0).astype(int),
            "n_shown": shown.sum(0).astype(int),
        }
    ).sort_values("score", ascending=False, kind="stable", ignore_index=True)
