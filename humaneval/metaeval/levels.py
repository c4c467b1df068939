"""The five standard meta-evaluation measures and tie-calibrated pairwise accuracy.

Steen & Markert (COLING 2022; dissertation ch. 4); tie calibration: Deutsch, Foster & Freitag (2023).
H and P are |S|×|D| matrices (systems × documents, NaN = missing, aligned by key):

    τ_sys   = f(mean_d H(d,s), mean_d P(d,s))          over systems
    τ_sum   = f(vec H, vec P)                          all summaries pooled
    τ_pair  = mean over documents d of f(H[:,d], P[:,d])
    τ_intra = mean over systems s of f(H[s,:], P[s,:])
    Acc_pair = #{same-document pairs with a strict gold order that P orders the same way} / #strict

Averages are unweighted over the groups whose value is defined (our choice; docs/metaeval.md) and report
``n_groups_used``; ``nan_policy="propagate"`` returns NaN if any group is undefined.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.errors import OptionError, RatingsError
from humaneval.metaeval.kernel import Coefficient, PairKernel, normalise_coefficient

LEVELS = ("sys", "sum", "pair", "intra", "acc")
LEVEL_ALIASES = {
    "sys": "sys",
    "system": "sys",
    "tau_sys": "sys",
    "sum": "sum",
    "global": "sum",
    "doc": "sum",
    "summary": "sum",
    "tau_sum": "sum",
    "pair": "pair",
    "input": "pair",
    "intrad": "pair",
    "document": "pair",
    "tau_pair": "pair",
    "intra": "intra",
    "intra_system": "intra",
    "tau_intra": "intra",
    "acc": "acc",
    "acc_pair": "acc",
    "accuracy": "acc",
}
RESULT_NAMES = {
    "sys": "tau_sys",
    "sum": "tau_sum",
    "pair": "tau_pair",
    "intra": "tau_intra",
    "acc": "acc_pair",
}
NanPolicy = Literal["omit", "propagate"]


def normalise_levels(levels: str | tuple[str, ...] | list[str] | None) -> tuple[str, ...]:
    """Canonical level names (sys, sum, pair, intra, acc) from names or aliases, in the given order."""
    if levels is None:
        return LEVELS
    if isinstance(levels, str):
        levels = [part for part in levels.split(",") if part.strip()]
    out = []
    for level in levels:
        key = str(level).strip().lower()
        if key not in LEVEL_ALIASES:
            raise OptionError(f"unknown level {level!r}; use some of {', '.join(LEVELS)}")
        if LEVEL_ALIASES[key] not in out:
            out.append(LEVEL_ALIASES[key])
    if not out:
        raise OptionError(f"no level named; use some of {', '.join(LEVELS)}")
    return tuple(out)


@dataclass(frozen=True)
class LevelValue:
    """One measure: the estimate and how many groups (documents / systems) it averages."""

    level: str
    estimate: float
    n_groups_used: int
    n_groups: int
    n_pairs: int

    def to_dict(self) -> dict:
        return asdict(self)


def _check(H: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    H, P = np.asarray(H, dtype=float), np.asarray(P, dtype=float)
    if H.ndim != 2 or H.shape != P.shape:
        raise RatingsError(
            f"H and P must be matrices of the same shape (systems × documents), got {H.shape} and {P.shape}"
        )
    return H, P


def _groups_callable(x: np.ndarray, y: np.ndarray, f) -> np.ndarray:
    out = np.full(x.shape[0], np.nan)
    for g in range(x.shape[0]):
        keep = ~(np.isnan(x[g]) | np.isnan(y[g]))
        if keep.sum() >= 2:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[g] = f(x[g, keep], y[g, keep])
    return out


def group_values(x: np.ndarray, y: np.ndarray, coefficient: Coefficient = "kendall") -> np.ndarray:
    """The coefficient per row of the (G, U) matrices x, y (NaN where undefined)."""
    coefficient = normalise_coefficient(coefficient)
    if callable(coefficient):
        return _groups_callable(x, y, coefficient)
    return PairKernel(x, y).evaluate(np.ones((1, x.shape[1])), coefficient)["value"][0]


def _average(values: np.ndarray, level: str, n_pairs: int, nan_policy: NanPolicy) -> LevelValue:
    defined = ~np.isnan(values)
    if nan_policy == "propagate" and not defined.all():
        estimate = float("nan")
    else:
        estimate = float(values[defined].mean()) if defined.any() else float("nan")
    return LevelValue(level, estimate, int(defined.sum()), len(values), n_pairs)


def _pairs(units: np.ndarray) -> int:
    """Number of unordered pairs among complete units, summed over groups."""
    n = units.sum(axis=-1)
    return int((n * (n - 1) // 2).sum())


def system_means(M: np.ndarray) -> np.ndarray:
    """Mean score per system over the documents where it is present (nanmean; NaN if none)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(M, axis=1)


def tau_sys(H, P, coefficient: Coefficient = "kendall") -> LevelValue:
    """System level: f over the |S| system means."""
    H, P = _check(H, P)
    h, p = system_means(H), system_means(P)
    value = group_values(h[None], p[None], coefficient)[0]
    return LevelValue("sys", float(value), int(~np.isnan(value)), 1, _pairs(~np.isnan(h + p)))


def tau_sum(H, P, coefficient: Coefficient = "kendall") -> LevelValue:
    """Global summary level: f over all summaries pooled."""
    H, P = _check(H, P)
    if normalise_coefficient(coefficient) == "kendall":
        # O(n log n) instead of the kernel's n² sign matrix; identical to 1e-12.
        keep = ~np.isnan(H + P).ravel()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = (
                stats.kendalltau(H.ravel()[keep], P.ravel()[keep]).statistic if keep.sum() >= 2 else np.nan
            )
    else:
        value = group_values(H.reshape(1, -1), P.reshape(1, -1), coefficient)[0]
    return LevelValue("sum", float(value), int(~np.isnan(value)), 1, _pairs(~np.isnan(H + P).ravel()))


def per_document(H, P, coefficient: Coefficient = "kendall") -> np.ndarray:
    """f(H[:, d], P[:, d]) for every document d (NaN where undefined)."""
    H, P = _check(H, P)
    return group_values(H.T, P.T, coefficient)


def per_system_intra(H, P, coefficient: Coefficient = "kendall") -> np.ndarray:
    """f(H[s, :], P[s, :]) for every system s (NaN where undefined), the values behind τ_intra."""
    H, P = _check(H, P)
    return group_values(H, P, coefficient)


def tau_pair(H, P, coefficient: Coefficient = "kendall", nan_policy: NanPolicy = "omit") -> LevelValue:
    """Per-document correlation averaged over documents."""
    values = per_document(H, P, coefficient)
    return _average(values, "pair", _pairs(~np.isnan(np.asarray(H) + np.asarray(P)).T), nan_policy)


def tau_intra(H, P, coefficient: Coefficient = "kendall", nan_policy: NanPolicy = "omit") -> LevelValue:
    """Intra-system correlation: per-system correlation averaged over systems."""
    values = per_system_intra(H, P, coefficient)
    return _average(values, "intra", _pairs(~np.isnan(np.asarray(H) + np.asarray(P))), nan_policy)


def pairwise_accuracy(H, P, level: str = "pair") -> LevelValue:
    """Acc_pair, pooled: gold ties excluded, metric ties wrong.

    The default pair set is same-document pairs (``pair``); ``sys`` (system means), ``sum`` (all
    summary pairs) and ``intra`` (same-system pairs) apply the same rule to the other pair sets.
    ``n_pairs`` is |G|, the number of strictly ordered gold pairs.
    """
    H, P = _check(H, P)
    (level,) = normalise_levels([level])
    if level == "sys":
        x, y = system_means(H)[None], system_means(P)[None]
    elif level == "sum":
        x, y = H.reshape(1, -1), P.reshape(1, -1)
    elif level == "intra":
        x, y = H, P
    else:
        x, y = H.T, P.T
    counts = PairKernel(x, y).evaluate(np.ones((1, x.shape[1])), "kendall", accuracy=True)
    correct, gold = counts["correct"].sum(), counts["gold"].sum()
    estimate = float(correct / gold) if gold > 0 else float("nan")
    return LevelValue("acc", estimate, int((counts["gold"] > 0).sum()), x.shape[0], int(gold // 2))


def partial_correlation(H, P, coefficient: Coefficient = "kendall") -> LevelValue:
    """Pooled correlation of the residuals after removing system means:
    ε_H(d,s) = H(d,s) − H̄_s, ε_P(d,s) = P(d,s) − P̄_s (means over the complete cells)."""
    H, P = _check(H, P)
    complete = ~np.isnan(H + P)
    H, P = np.where(complete, H, np.nan), np.where(complete, P, np.nan)
    value = tau_sum(H - system_means(H)[:, None], P - system_means(P)[:, None], coefficient)
    return LevelValue("partial", value.estimate, value.n_groups_used, 1, value.n_pairs)


def measure(
    H, P, level: str, coefficient: Coefficient = "kendall", nan_policy: NanPolicy = "omit"
) -> LevelValue:
    """One measure by level name or alias (sys, sum, pair, intra, acc).

    Raises
    ------
    OptionError
        An unknown level or coefficient.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])
    >>> P = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> value = measure(H, P, "sum", "pearson")
    >>> value.level, round(value.estimate, 4), value.n_pairs
    ('sum', 0.8507, 66)
    >>> round(float(np.corrcoef(H.ravel(), P.ravel())[0, 1]), 4)
    0.8507
    """
    (level,) = normalise_levels([level])
    if level == "sys":
        return tau_sys(H, P, coefficient)
    if level == "sum":
        return tau_sum(H, P, coefficient)
    if level == "pair":
        return tau_pair(H, P, coefficient, nan_policy)
    if level == "intra":
        return tau_intra(H, P, coefficient, nan_policy)
    return pairwise_accuracy(H, P)


def correlation_levels(
    H, P, levels=None, coefficient: Coefficient = "kendall", nan_policy: NanPolicy = "omit"
) -> dict[str, LevelValue]:
    """All requested measures, keyed by result name (tau_sys, tau_sum, tau_pair, tau_intra, acc_pair).

    Parameters
    ----------
    H, P : array-like
        Human and metric scores, systems × documents (NaN where a summary is missing).
    levels : str or sequence of str, optional
        Some of ``sys`` (system means), ``sum`` (all summaries pooled), ``pair`` (per document,
        averaged), ``intra`` (per system, averaged), ``acc`` (pairwise accuracy); default all.
    coefficient : {"kendall", "kendall_a", "pearson", "spearman"} or callable
        The correlation coefficient f(x, y).
    nan_policy : {"omit", "propagate"}
        Whether undefined groups (constant scores) are skipped or make the average NaN.

    Returns
    -------
    dict of str to LevelValue
        ``estimate``, ``n_groups_used``, ``n_groups`` and ``n_pairs`` per measure.

    Raises
    ------
    OptionError
        An unknown level or coefficient.

    References
    ----------
    Deutsch, D., Dror, R., & Roth, D. (2022). Re-examining system-level correlations of automatic
    summarization evaluation metrics. NAACL 2022.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])  # 3 systems × 4 documents
    >>> P = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> {name: round(value.estimate, 3) for name, value in correlation_levels(H, P).items()}
    {'tau_sys': 1.0, 'tau_sum': 0.725, 'tau_pair': 0.908, 'tau_intra': 0.717, 'acc_pair': 1.0}

    τ_sum is Kendall's τ_b of all 12 summaries, as ``scipy.stats.kendalltau`` computes it:

    >>> from scipy.stats import kendalltau
    >>> round(float(kendalltau(H.ravel(), P.ravel()).statistic), 3)
    0.725
    """
    return {RESULT_NAMES[lv]: measure(H, P, lv, coefficient, nan_policy) for lv in normalise_levels(levels)}


@dataclass(frozen=True)
class TieCalibratedAccuracy:
    """Deutsch, Foster & Freitag (2023) acc_eq with the tie threshold ε* that maximises it."""

    accuracy: float
    epsilon: float
    n_pairs: int
    n_gold_ties: int

    def to_dict(self) -> dict:
        return asdict(self)


def tie_calibrated_accuracy(H, P) -> TieCalibratedAccuracy:
    """acc_eq = (C + T_hm)/(C + D + T_h + T_m + T_hm) over same-document pairs *including* gold ties,
    with |ΔP| ≤ ε counted as a metric tie and ε chosen from {0} ∪ {|ΔP|} to maximise acc_eq.

    Tuning ε on the evaluation data leaks the number of gold ties (Perrella et al. 2024); the
    coherence study therefore used plain τ_b, and this measure is off by default.
    """
    H, P = _check(H, P)
    i, j = np.triu_indices(H.shape[0], 1)
    dh, dp = (H[i] - H[j]).ravel(), (P[i] - P[j]).ravel()
    keep = ~(np.isnan(dh) | np.isnan(dp))
    dh, dp = dh[keep], dp[keep]
    if len(dh) == 0:
        return TieCalibratedAccuracy(float("nan"), float("nan"), 0, 0)
    gap = np.abs(dp)
    gold_tie = dh == 0
    concordant = np.sign(dh) * np.sign(dp) > 0
    # Raising ε to a pair's |ΔP| turns it into a metric tie: +1 if tied in the gold, −1 if concordant.
    order = np.argsort(gap, kind="stable")
    gain = gold_tie[order].astype(int) - concordant[order].astype(int)
    cumulative = np.cumsum(gain)
    last_of_value = np.r_[gap[order][1:] != gap[order][:-1], True]
    candidates = np.r_[0.0, gap[order][last_of_value]]
    n_concordant = int(concordant.sum())
    scores = np.r_[
        n_concordant + int((gold_tie & (gap == 0)).sum()), n_concordant + cumulative[last_of_value]
    ]
    best = int(np.argmax(scores))
    return TieCalibratedAccuracy(
        float(scores[best] / len(dh)), float(candidates[best]), len(dh), int(gold_tie.sum())
    )


def inter_metric_correlations(
    metrics, level: str = "sum", coefficient: Coefficient = "pearson"
) -> pd.DataFrame:
    """Correlation between every pair of metrics: pooled (``sum``, Pearson by default)
    or per-document Kendall averaged (``pair``) and so on; a symmetric DataFrame with 1 on the
    diagonal. ``metrics`` maps names to systems × documents matrices."""
    names = list(metrics)
    table = pd.DataFrame(np.eye(len(names)), index=names, columns=names)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            table.loc[a, b] = table.loc[b, a] = measure(metrics[a], metrics[b], level, coefficient).estimate
    return table
