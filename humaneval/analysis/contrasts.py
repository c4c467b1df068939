"""Pairwise contrasts from estimated system effects, multiplicity adjustments and rank groupings.

Analysis specification §5.4 (dissertation eq. 3.23–3.24): for treatment-coded effects β̂ (the
reference fixed at 0) with covariance V = vcov(β̂),

    z_ij = (β̂_i − β̂_j) / sqrt(V_ii + V_jj − 2 V_ij),     p = 2 (1 − Φ(|z|)).

This is what ``emmeans(model, "system")`` + ``pairs(...)`` computes on the latent scale of a CLMM
(``df = Inf``). Adjustments: ``tukey`` (studentized range with k = S means and infinite df:
p = Pr(Q_{S,∞} ≥ √2 |z|), simultaneous CIs est ± q_{S,∞,level} SE / √2), ``holm``, ``bonferroni``
and ``none``. As in emmeans, Holm intervals fall back to Bonferroni intervals.

Rank groupings follow dissertation Table 3.2: systems are ordered by their estimate, and each gets
the range of rank positions consistent with the significant contrasts ("4.33 (3/4)").
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.errors import ModelSpecError

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
    """Tukey-adjusted p of z (or t on ``dof`` df) statistics: Pr(Q_{k,df} ≥ √2 |z|) with k = ``n_means``."""
    q = np.sqrt(2.0) * np.abs(np.asarray(z, dtype=float))
    return np.clip(stats.studentized_range.sf(q, n_means, dof), 0.0, 1.0)


@cache
def tukey_quantile(n_means: int, level: float, dof: float = np.inf) -> float:
    """q_{k,df,level}: the studentized-range quantile (3.8577 for k = 5, level 0.95, df = ∞)."""
    return float(stats.studentized_range.ppf(level, n_means, dof))


def adjust_pvalues(p: Sequence[float] | np.ndarray, method: str) -> np.ndarray:
    """Holm (step-down, monotone), Bonferroni or no adjustment of a family of p-values."""
    p = np.asarray(p, dtype=float)
    m = p.size
    if method == "none":
        return p.copy()
    if method == "bonferroni":
        return np.minimum(p * m, 1.0)
    if method == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
        out = np.empty(m)
        out[order] = np.minimum(stepped, 1.0)
        return out
    raise ModelSpecError(f"unknown adjustment {method!r} for these p-values; use holm, bonferroni or none")


def critical_value(adjust: str, n_means: int, n_pairs: int, level: float) -> float:
    """Multiplier of the SE for (simultaneous) confidence intervals under ``adjust``."""
    if adjust == "tukey":
        return tukey_quantile(n_means, level) / np.sqrt(2.0)
    alpha = 1.0 - level
    if adjust in ("holm", "bonferroni"):
        alpha /= n_pairs
    return float(stats.norm.ppf(1.0 - alpha / 2.0))


def check_adjust(adjust: str) -> str:
    if adjust not in ADJUSTMENTS:
        raise ModelSpecError(f"unknown adjustment {adjust!r}; use one of {', '.join(ADJUSTMENTS)}")
    return adjust


def pairwise_contrasts(
    systems: Sequence[str],
    beta: np.ndarray,
    vcov: np.ndarray,
    adjust: str = "tukey",
    level: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """All pairwise contrasts ``system_a − system_b`` from treatment-coded effects (spec §5.4).

    ``systems`` lists the reference first; ``beta`` and ``vcov`` belong to ``systems[1:]``.
    Pairs are in factor-level order (a before b), as emmeans prints them. ``better`` is the
    higher-estimated system where ``p_adj < alpha``, else None.
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
    half = critical_value(adjust, n_sys, len(pairs), level) * se
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


def rank_groups(estimates: pd.Series, contrasts: pd.DataFrame, alpha: float = 0.05) -> pd.Series:
    """Rank positions consistent with the significant contrasts (dissertation Table 3.2).

    ``estimates`` maps system → estimate (higher = better). A system significantly worse than
    b others and significantly better than w others can take ranks b+1 … S−w; the label lists
    them separated by "/" ("1", "3/4").
    """
    n_sys = len(estimates)
    significant = contrasts[contrasts["p_adj"] < alpha]
    winners = np.where(significant["estimate"] > 0, significant["system_a"], significant["system_b"])
    losers = np.where(significant["estimate"] > 0, significant["system_b"], significant["system_a"])
    labels = {}
    for name in estimates.index:
        low = 1 + int(np.sum(losers == name))
        high = n_sys - int(np.sum(winners == name))
        labels[name] = "/".join(str(r) for r in range(low, high + 1)) if low <= high else str(low)
    return pd.Series(labels, name="rank_group").reindex(estimates.index)


def compact_letters(estimates: pd.Series, contrasts: pd.DataFrame, alpha: float = 0.05) -> pd.Series:
    """Compact letter display: systems sharing a letter do not differ significantly.

    Systems are ordered by estimate (best first, letter "a"). Each letter is a maximal set of
    systems without a significant difference among them, grown greedily in that order from every
    system and every non-significant pair, so that each non-significant pair shares a letter and
    no significant pair does.
    """
    order = list(estimates.sort_values(ascending=False).index)
    sig = {
        frozenset((a, b))
        for a, b in contrasts.loc[contrasts["p_adj"] < alpha, ["system_a", "system_b"]].values
    }
    seeds = [[name] for name in order] + [list(pair) for pair in combinations(order, 2)]
    groups: list[set[str]] = []
    for seed in seeds:
        if frozenset(seed) in sig or any(set(seed) <= g for g in groups):
            continue
        group = set(seed)
        for other in order:
            if all(frozenset((other, g)) not in sig for g in group):
                group.add(other)
        groups.append(group)
    groups = [g for g in groups if not any(g < h for h in groups)]
    letters = {name: "" for name in order}
    for k, group in enumerate(groups):
        for name in group:
            letters[name] += chr(ord("a") + k)
    return pd.Series(letters, name="letters").reindex(estimates.index)


def groupings(
    means: pd.Series, estimates: pd.Series, contrasts: pd.DataFrame, alpha: float = 0.05, digits: int = 2
) -> pd.DataFrame:
    """System table of Table 3.2: mean response, estimate, rank group, letters and "5.25 (1)" label.

    ``means`` are the displayed means (scores, or 1-based mean ranks); ``estimates`` the latent
    effects (higher = better) that the contrasts compare.
    """
    ranks = rank_groups(estimates, contrasts, alpha)
    frame = pd.DataFrame(
        {
            "system": estimates.index,
            "mean": means.reindex(estimates.index).to_numpy(dtype=float),
            "estimate": estimates.to_numpy(dtype=float),
            "rank_group": ranks.to_numpy(),
            "letters": compact_letters(estimates, contrasts, alpha).to_numpy(),
        }
    )
    frame["label"] = [
        f"{m:.{digits}f} ({r})" for m, r in zip(frame["mean"], frame["rank_group"], strict=True)
    ]
    return frame.sort_values("estimate", ascending=False, kind="stable").reset_index(drop=True)
