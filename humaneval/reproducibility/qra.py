"""Quantified Reproducibility Assessment: the small-sample coefficient of variation CV*
(docs/reproducibility.md).

References
----------
Belz, A., Popović, M. and Mille, S. (2022). Quantified Reproducibility Assessment of NLP Results.
Proceedings of ACL 2022, 16-28.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import gammaln

from humaneval.errors import InsufficientDataError, RatingsError


@dataclass(frozen=True)
class CVStar:
    """CV* of one measurand over repeated measurements, with the QRA statistics beside it.

    ``sd`` is the unbiased standard deviation s/c4(n) and ``sd_interval`` its interval from the
    standard error of the unbiased sample variance (Belz et al. 2022); ``cv_interval`` is that
    interval carried to the CV* scale, (1 + 1/(4n))·100·bound/mean; a lower bound below 0 (small n) is
    reported as 0.
    """

    cv_star: float
    mean: float
    sd: float
    sd_interval: tuple[float, float]
    cv_interval: tuple[float, float]
    n: int
    shift: float
    within_one_sd: float
    within_two_sd: float
    confidence_level: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def c4(n: int) -> float:
    """The bias factor of the sample standard deviation: E[s] = c4(n)·σ for normal data.

    Examples
    --------
    >>> round(c4(7), 10)
    0.9593687887
    """
    return float(np.sqrt(2 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2)))


def cv_star(values: Iterable[float], *, scale_min: float = 0.0, confidence_level: float = 0.95) -> CVStar:
    """The unbiased coefficient of variation CV* of repeated measurements of one measurand.

    Parameters
    ----------
    values : iterable of float
        The measured values of the same quantity from the original study and its repeats (n ≥ 2).
    scale_min : float, default 0
        The lowest value of the measurement scale; values are shifted by ``-scale_min`` so the scale
        starts at 0 before CV* is computed (a 1-7 Likert mean: ``scale_min=1``), as QRA requires for
        comparisons across studies.
    confidence_level : float, default 0.95
        Level of the interval of the unbiased standard deviation.

    Returns
    -------
    CVStar
        ``cv_star`` = (1 + 1/(4n))·100·(s/c4(n))/mean, with s the sample SD (n − 1) and
        c4(n) = √(2/(n−1))·Γ(n/2)/Γ((n−1)/2); ``sd_interval``: s/c4 ± t(n−1)·SE, where
        SE = s²·√(2/(n−1)) / (2·s/c4) is the standard error of the SD derived from that of the
        unbiased sample variance.

    Raises
    ------
    InsufficientDataError
        Fewer than two values.
    RatingsError
        A value that is not finite, or a shifted mean that is not positive.

    References
    ----------
    Belz, A., Popović, M. and Mille, S. (2022). Quantified Reproducibility Assessment of NLP Results.
    ACL 2022, Section 3 and Table 4.

    Examples
    --------
    The BLEU scores of seven reproductions of NTS_def (Belz et al. 2022, Table 4):

    >>> r = cv_star([84.51, 84.50, 87.46, 85.60, 84.20, 86.61, 86.20])
    >>> round(r.cv_star, 3), round(r.sd, 4), tuple(round(b, 4) for b in r.sd_interval)
    (1.562, 1.2904, (0.4515, 2.1294))
    """
    x = np.asarray(list(values), dtype=float)
    if x.ndim != 1 or len(x) < 2:
        raise InsufficientDataError(f"CV* needs at least two measurements of the measurand, got {x.size}")
    if not np.isfinite(x).all():
        raise RatingsError("CV*: every measurement must be a finite number")
    if not 0 < confidence_level < 1:
        raise RatingsError(f"CV*: confidence level must lie in (0, 1), got {confidence_level}")
    x = x - scale_min
    n = len(x)
    mean = float(x.mean())
    if mean <= 0:
        raise RatingsError(
            f"CV*: the mean of the measurements on a 0-based scale is {mean:g}, not positive; give the "
            "scale's lowest value (scale_min; --scale-min) so that the scale starts at 0"
        )
    variance = float(x.var(ddof=1))
    sd = float(np.sqrt(variance)) / c4(n)
    factor = (1 + 1 / (4 * n)) * 100 / mean
    if sd > 0:
        se = variance * np.sqrt(2 / (n - 1)) / (2 * sd)
        low, high = stats.t.interval(confidence_level, n - 1, loc=sd, scale=se)
        low = max(low, 0.0)  # a standard deviation is not negative
    else:
        low = high = 0.0
    distance = np.abs(x - mean)
    return CVStar(
        cv_star=factor * sd,
        mean=mean + scale_min,
        sd=sd,
        sd_interval=(float(low), float(high)),
        cv_interval=(float(factor * low), float(factor * high)),
        n=n,
        shift=0.0 - scale_min,
        within_one_sd=float(np.mean(distance < sd)),
        within_two_sd=float(np.mean(distance < 2 * sd)),
        confidence_level=confidence_level,
    )
