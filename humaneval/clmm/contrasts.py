"""Pairwise contrasts from estimated effects and their multiplicity adjustments.

docs/native-engine.md (dissertation eq. 3.23–3.24): for treatment-coded effects β̂ (the
reference fixed at 0) with covariance V = vcov(β̂),

    z_ij = (β̂_i − β̂_j) / sqrt(V_ii + V_jj − 2 V_ij),     p = 2 (1 − Φ(|z|)).

This is what ``emmeans(model, "system")`` + ``pairs(...)`` computes on the latent scale of a CLMM
(``df = Inf``). Adjustments: ``tukey`` (studentized range with k = S means and infinite df:
p = Pr(Q_{S,∞} ≥ √2 |z|), simultaneous CIs est ± q_{S,∞,confidence_level} SE / √2), ``holm``, ``bonferroni``
and ``none``. As in emmeans, Holm intervals fall back to Bonferroni intervals.
Holm and Bonferroni p-values come from ``statsmodels.stats.multitest.multipletests``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.core.deprecation import renamed
from humaneval.core.docstrings import shared_docs
from humaneval.errors import OptionError

ADJUSTMENTS = ("tukey", "holm", "bonferroni", "none")

#: Columns of every contrast table (CLMM and classic tests alike); CLMM tables add ``z``.
CONTRAST_COLUMNS = (
    "system_a",
    "system_b",
    "estimate",
    "se",
    "statistic",
    "df",
    "p_unadj",
    "p_adj",
    "adjust",
    "ci_low",
    "ci_high",
    "better",
    "test",
)


def tukey_p(z: np.ndarray | float, n_means: int, dof: np.ndarray | float = np.inf) -> np.ndarray:
    """Tukey-adjusted p of z (or t on ``dof`` df) statistics: Pr(Q_{k,df} ≥ √2 |z|) with k = ``n_means``.

    Examples
    --------
    At the 5 % studentized-range quantile of 5 means (3.858, as tabulated) p is 0.05; with two
    means Tukey's p is the unadjusted two-sided z p-value 2(1 − Φ(2)) = 0.0455:

    >>> import numpy as np
    >>> round(float(tukey_p(3.8577 / np.sqrt(2), 5)), 4), round(float(tukey_p(2.0, 2)), 4)
    (0.05, 0.0455)
    """
    q = np.sqrt(2.0) * np.abs(np.asarray(z, dtype=float))
    return np.clip(stats.studentized_range.sf(q, n_means, dof), 0.0, 1.0)


@cache
def tukey_quantile(n_means: int, confidence_level: float, dof: float = np.inf) -> float:
    """q_{k,df,1−α}: the studentized-range quantile (3.8577 for k = 5, confidence level 0.95, df = ∞).

    Examples
    --------
    >>> round(tukey_quantile(5, 0.95), 4)
    3.8577
    """
    return float(stats.studentized_range.ppf(confidence_level, n_means, dof))


def adjust_pvalues(p: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Holm (step-down), Bonferroni or no adjustment of a family of p-values (statsmodels).

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni").round(4).tolist()
    [0.03, 0.12, 0.09]
    """
    p = np.asarray(p, dtype=float)
    if method == "none":
        return p.copy()
    if method not in ("holm", "bonferroni"):
        raise OptionError(f"unknown adjustment {method!r} for these p-values; use holm, bonferroni or none")
    if p.size == 0:
        return p.copy()
    from statsmodels.stats.multitest import multipletests

    ok = np.isfinite(p)
    out = np.full(p.shape, np.nan)
    if ok.any():
        out[ok] = multipletests(p[ok], method=method)[1]
    return out


def critical_value(adjust: str, n_means: int, n_pairs: int, confidence_level: float) -> float:
    """Multiplier of the SE for (simultaneous) confidence intervals under ``adjust``."""
    if adjust == "tukey":
        return tukey_quantile(n_means, confidence_level) / np.sqrt(2.0)
    alpha = 1.0 - confidence_level
    if adjust in ("holm", "bonferroni"):
        alpha /= n_pairs
    return float(stats.norm.ppf(1.0 - alpha / 2.0))


def check_adjust(adjust: str) -> str:
    if adjust not in ADJUSTMENTS:
        raise OptionError(f"unknown adjustment {adjust!r}; use one of {', '.join(ADJUSTMENTS)}")
    return adjust


@renamed(level="confidence_level")
@shared_docs
def pairwise_contrasts(
    systems: Sequence[str],
    beta: np.ndarray,
    vcov: np.ndarray,
    adjust: str = "tukey",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """All pairwise contrasts ``system_a − system_b`` from treatment-coded effects (docs/analysis.md).

    ``systems`` lists the reference first; ``beta`` and ``vcov`` belong to ``systems[1:]``.
    Pairs are in factor-level order (a before b), as emmeans prints them. ``better`` is the
    higher-estimated system where ``p_adj < alpha``, else None.

    Parameters
    ----------
    systems : sequence of str
        The systems, reference first.
    beta : ndarray
        Effects of ``systems[1:]`` against the reference.
    vcov : ndarray
        Their covariance matrix.
    adjust : {"tukey", "holm", "bonferroni", "none"}
        %(adjust_intervals)s
    confidence_level : float
        Of the (simultaneous, for ``tukey``) intervals.
    alpha : float
        Significance level of ``better``.

    Returns
    -------
    DataFrame
        The contrast table of docs/vocabulary.md (z tests: ``df`` is ∞).

    Raises
    ------
    OptionError
        An unknown adjustment.

    Examples
    --------
    >>> import numpy as np
    >>> table = pairwise_contrasts(["A", "B", "C"], np.array([0.5, 1.2]),
    ...                            np.array([[0.04, 0.01], [0.01, 0.05]]))
    >>> table[["system_a", "system_b", "estimate", "z", "p_adj", "better"]].round(4)
      system_a system_b  estimate       z   p_adj better
    0        A        B      -0.5 -2.5000  0.0332      B
    1        A        C      -1.2 -5.3666  0.0000      C
    2        B        C      -0.7 -2.6458  0.0222      C
    """
    check_adjust(adjust)
    n_sys = len(systems)
    full_beta = np.r_[0.0, np.asarray(beta, dtype=float)]
    full_vcov = np.zeros((n_sys, n_sys))
    full_vcov[1:, 1:] = np.asarray(vcov, dtype=float)
    pairs = list(combinations(range(n_sys), 2))
    i, j = (np.array(idx, dtype=int) for idx in zip(*pairs, strict=True))
    est = full_beta[i] - full_beta[j]
    var = full_vcov[i, i] + full_vcov[j, j] - 2 * full_vcov[i, j]
    se = np.sqrt(np.where(var > 0, var, np.nan))
    z = est / se
    p_unadj = 2.0 * stats.norm.sf(np.abs(z))
    p_adj = tukey_p(z, n_sys) if adjust == "tukey" else adjust_pvalues(p_unadj, adjust)
    half = critical_value(adjust, n_sys, len(pairs), confidence_level) * se
    table = pd.DataFrame(
        {
            "system_a": [systems[k] for k in i],
            "system_b": [systems[k] for k in j],
            "estimate": est,
            "se": se,
            "z": z,
            "statistic": z,
            "df": np.inf,
            "p_unadj": p_unadj,
            "p_adj": p_adj,
            "adjust": adjust,
            "ci_low": est - half,
            "ci_high": est + half,
        }
    )
    table["better"] = pd.Series(better_column(table, alpha), dtype=object)
    table["test"] = "z"
    return table


def better_column(table: pd.DataFrame, alpha: float = 0.05) -> list[str | None]:
    """The higher-estimated system of each significant contrast, None for the others."""
    return [
        (row.system_a if row.estimate > 0 else row.system_b) if row.p_adj < alpha else None
        for row in table.itertuples()
    ]
