"""Rank groupings from pairwise contrasts (dissertation Table 3.2).

Systems are ordered by their estimate, and each gets the range of rank positions consistent with
the significant contrasts ("4.33 (3/4)") and a compact letter display. Every analysis (the CLMM,
the classic tests, the comparative models) groups its systems here, below all of them; the
contrast tables come from :mod:`humaneval.clmm.contrasts`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from humaneval.core.docstrings import shared_docs

__all__ = ["compact_letters", "groupings", "rank_groups"]


@shared_docs
def rank_groups(estimates: pd.Series, contrasts: pd.DataFrame, alpha: float = 0.05) -> pd.Series:
    """Rank positions consistent with the significant contrasts (dissertation Table 3.2).

    ``estimates`` maps system → estimate (higher = better). A system significantly worse than
    b others and significantly better than w others can take ranks b+1 … S−w; the label lists
    them separated by "/" ("1", "3/4").

    Parameters
    ----------
    estimates : Series
        %(estimates)s
    contrasts : DataFrame
        A contrast table (``system_a``, ``system_b``, ``estimate``, ``p_adj``).
    alpha : float
        Significance level.

    Returns
    -------
    Series
        System → rank label.

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    Only cold-yes and warm-no do not differ (paired t-tests on the wine data):

    >>> from humaneval.analysis import paired_ttest, system_means
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> ratings = as_ratings(wine_ratings())
    >>> means, contrasts = system_means(ratings), paired_ttest(ratings)
    >>> rank_groups(means, contrasts).to_dict()
    {'cold-no': '4', 'cold-yes': '2/3', 'warm-no': '2/3', 'warm-yes': '1'}
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


@shared_docs
def compact_letters(estimates: pd.Series, contrasts: pd.DataFrame, alpha: float = 0.05) -> pd.Series:
    """Compact letter display: systems sharing a letter do not differ significantly.

    Systems are ordered by estimate (best first, letter "a"). Each letter is a maximal set of
    systems without a significant difference among them, grown greedily in that order from every
    system and every non-significant pair, so that each non-significant pair shares a letter and
    no significant pair does.

    Parameters
    ----------
    estimates : Series
        %(estimates)s
    contrasts : DataFrame
        A contrast table (``system_a``, ``system_b``, ``p_adj``).
    alpha : float
        Significance level.

    Returns
    -------
    Series
        System → letters.

    References
    ----------
    Piepho, H.-P. (2004). An algorithm for a letter-based representation of all-pairwise
    comparisons. Journal of Computational and Graphical Statistics, 13(2), 456–466.

    Examples
    --------
    >>> from humaneval.analysis import paired_ttest, system_means
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> ratings = as_ratings(wine_ratings())
    >>> means, contrasts = system_means(ratings), paired_ttest(ratings)
    >>> compact_letters(means, contrasts).to_dict()
    {'cold-no': 'c', 'cold-yes': 'b', 'warm-no': 'b', 'warm-yes': 'a'}
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
