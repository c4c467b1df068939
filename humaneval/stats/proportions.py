"""Intervals and calibration checks for rates estimated from simulated trials, shared by the
Likert and the comparative power simulations."""

from __future__ import annotations

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

#: A test's simulated Type I error outside this range is flagged beside its power.
CALIBRATION_RANGE = (0.03, 0.08)


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


def calibration_status(rate: float, ci_low: float, ci_high: float) -> str | None:
    """How a simulated Type I error compares with :data:`CALIBRATION_RANGE`, judged by its interval:
    ``"inflated"`` (the whole interval above the range), ``"deflated"`` (the whole interval below),
    ``"undetermined"`` (the rate is outside but the interval reaches into the range: more trials
    tell), or ``None`` (the rate is inside).

    Examples
    --------
    >>> calibration_status(0.14, 0.12, 0.16), calibration_status(0.02, 0.0, 0.124)
    ('inflated', 'undetermined')
    >>> calibration_status(0.05, 0.03, 0.07) is None
    True
    """
    low, high = CALIBRATION_RANGE
    if low <= rate <= high:
        return None
    if ci_low > high:
        return "inflated"
    if ci_high < low:
        return "deflated"
    return "undetermined"


def calibration_warnings(type1: pd.DataFrame, alpha: float) -> list[str]:
    """One line per row of ``type1`` (columns ``test, aggregate, rate, ci_low, ci_high``: simulated
    Type I errors) whose rate lies outside :data:`CALIBRATION_RANGE`: "inflated" or "deflated" only
    when the whole interval lies outside the range, else "not determined" (more trials tell).

    Examples
    --------
    >>> rows = pd.DataFrame({"test": ["clmm", "ttest", "art"], "aggregate": ["none"] * 3,
    ...                      "rate": [0.14, 0.05, 0.02], "ci_low": [0.12, 0.04, 0.0],
    ...                      "ci_high": [0.16, 0.06, 0.124]})
    >>> lines = calibration_warnings(rows, 0.05)
    >>> lines[0][:60]
    'clmm (none) rejects 0.140 [0.120, 0.160] of true null compar'
    >>> lines[0].endswith("its power here is inflated"), "not determined" in lines[1]
    (True, True)
    """
    low, high = CALIBRATION_RANGE
    out = []
    for row in type1.itertuples():
        status = calibration_status(row.rate, row.ci_low, row.ci_high)
        if status is None:
            continue
        interval = f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
        head = f"{row.test} ({row.aggregate}) rejects {row.rate:.3f} {interval} of true "
        if status == "undetermined":
            out.append(
                head + f"null comparisons on this design; the interval reaches into [{low:g}, {high:g}] at "
                f"α = {alpha:g}, so whether the test is calibrated here is not determined (more trials tell)"
            )
        else:
            out.append(
                head + f"null comparisons on this design (outside [{low:g}, {high:g}] at α = {alpha:g}); its "
                f"power here is {status}"
            )
    return out
