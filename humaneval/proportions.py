"""Intervals for a rate estimated from simulated trials, shared by the Likert and the comparative
power simulations."""

from __future__ import annotations

import numpy as np
from statsmodels.stats.proportion import proportion_confint


def clopper_pearson(rate: float, n: int, confidence_level: float = 0.95) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval of a rate from ``n`` trials.

    ``statsmodels.stats.proportion.proportion_confint(method="beta")`` on ``rate · n`` successes:
    for an "all pairs" rate (a mean over the pairs of each trial) this is the conservative
    interval with n = trials, the same n as ``mc_se``. NaN for n = 0.

    Examples
    --------
    >>> [round(v, 4) for v in clopper_pearson(0.0, 20)]
    [0.0, 0.1684]
    """
    if n <= 0 or not np.isfinite(rate):
        return float("nan"), float("nan")
    low, high = proportion_confint(rate * n, n, alpha=1 - confidence_level, method="beta")
    return float(np.nan_to_num(low, nan=0.0)), float(np.nan_to_num(high, nan=1.0))
