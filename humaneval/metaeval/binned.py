"""Bhandari et al. (2020) binned inter-metric agreement: do metrics agree on the top summaries?

See docs/metaeval.md. Per document, the pool of candidate summaries (here: the systems) is scored
by K metrics, each normalised to [0, 1] (per-document min–max by default, our choice as the paper
does not say; a metric constant within a document gets 0.5 there and is flagged); μ = the mean
normalised score; the range [min μ, max μ] is split into B equal-width bins (L, M, T for B = 3;
``binning="quantile"`` gives equal counts). For every metric pair, Kendall τ_b over the summaries
in a set is averaged over documents with at least ``n_min`` summaries in it, for the
*cumulative* sets L∪M∪T, M∪T, T (Peyrard 2019: the range narrows row by row) and the
*separate* bins L, M, T (recommended: range width held fixed).

The paper kept only τ with p < 0.05. That filter drops small |τ|, more of them in narrow bins
with few summaries, so the filtered mean is biased upward; it is off by default and, when on,
the unfiltered mean and the number of documents kept are reported too.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.core.deprecation import caller_stacklevel
from humaneval.errors import DataWarning, InsufficientDataError, OptionError
from humaneval.metaeval.levels import group_values


def normalise_scores(M: np.ndarray, scope: Literal["document", "global"] = "document") -> np.ndarray:
    """Min–max normalise a systems × documents matrix per document column (or globally) to [0, 1];
    a column without range gets 0.5."""
    M = np.asarray(M, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        axis = 0 if scope == "document" else None
        lo, hi = np.nanmin(M, axis=axis, keepdims=True), np.nanmax(M, axis=axis, keepdims=True)
    span = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(span > 0, (M - lo) / np.where(span > 0, span, 1), np.where(np.isnan(M), np.nan, 0.5))


def bin_labels(n_bins: int) -> list[str]:
    return ["L", "M", "T"] if n_bins == 3 else [f"B{i + 1}" for i in range(n_bins)]


def assign_bins(
    mu: np.ndarray, n_bins: int = 3, binning: Literal["width", "quantile"] = "width"
) -> np.ndarray:
    """Bin index per summary (systems × documents), per document column; −1 where μ is NaN.

    ``width``: floor((μ − lo)/width), width = (hi − lo)/B, capped at B − 1 so the maximum lands in
    the top bin. ``quantile``: equal counts by rank.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = np.nanmin(mu, axis=0), np.nanmax(mu, axis=0)
    if binning == "width":
        width = (hi - lo) / n_bins
        with np.errstate(invalid="ignore", divide="ignore"):
            index = np.floor((mu - lo) / np.where(width > 0, width, 1))
    elif binning == "quantile":
        ranks = stats.rankdata(np.where(np.isnan(mu), np.inf, mu), axis=0, method="ordinal") - 1
        counts = (~np.isnan(mu)).sum(axis=0)
        index = np.floor(ranks * n_bins / np.maximum(counts, 1))
    else:
        raise OptionError(f"binning must be 'width' or 'quantile', not {binning!r}")
    index = np.clip(np.nan_to_num(index, nan=-1), -1, n_bins - 1).astype(int)
    return np.where(np.isnan(mu), -1, index)


def binned_agreement(
    scores: Mapping[str, np.ndarray],
    *,
    n_bins: int = 3,
    normalise: Literal["document", "global"] = "document",
    binning: Literal["width", "quantile"] = "width",
    n_min: int = 5,
    significant_only: bool = False,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Binned Kendall agreement between every pair of metrics, one tidy row per
    (metric_a, metric_b, setting ∈ {cumulative, separate}, bins): ``tau`` (mean over documents),
    ``n_documents``; with ``significant_only`` also ``tau_unfiltered`` and ``n_kept``.

    ``scores`` maps metric names to systems × documents matrices oriented higher = better.
    """
    names = list(scores)
    if len(names) < 2:
        raise InsufficientDataError("binned agreement needs at least two metrics")
    normalised = {k: normalise_scores(v, normalise) for k, v in scores.items()}
    flat = [k for k, v in scores.items() if (np.nanmax(v, axis=0) == np.nanmin(v, axis=0)).any()]
    if flat:
        warnings.warn(
            f"metrics constant within some document (scored 0.5 there): {flat}",
            DataWarning,
            stacklevel=caller_stacklevel(),
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mu = np.nanmean(np.stack(list(normalised.values())), axis=0)
    bins = assign_bins(mu, n_bins, binning)
    labels = bin_labels(n_bins)
    sets = [("cumulative", "+".join(labels[k:]), bins >= k) for k in range(n_bins)]
    sets += [("separate", labels[k], bins == k) for k in range(n_bins)]
    rows = []
    for a, b in combinations(names, 2):
        for setting, label, member in sets:
            x = np.where(member, scores[a], np.nan).T
            y = np.where(member, scores[b], np.nan).T
            enough = (~np.isnan(x + y)).sum(axis=1) >= n_min
            taus = group_values(x[enough], y[enough], "kendall")
            row: dict[str, object] = {"metric_a": a, "metric_b": b, "setting": setting, "bins": label}
            defined = ~np.isnan(taus)
            row["tau"] = float(taus[defined].mean()) if defined.any() else np.nan
            row["n_documents"] = int(defined.sum())
            if significant_only:
                keep = np.array(
                    [_p_value(xi, yi) < alpha for xi, yi in zip(x[enough], y[enough], strict=True)]
                )
                kept = defined & keep if len(keep) else defined
                row["tau_unfiltered"] = row["tau"]
                row["tau"] = float(taus[kept].mean()) if kept.any() else np.nan
                row["n_kept"] = int(kept.sum())
            rows.append(row)
    return pd.DataFrame(rows)


def _p_value(x: np.ndarray, y: np.ndarray) -> float:
    keep = ~np.isnan(x + y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = stats.kendalltau(x[keep], y[keep]).pvalue
    return 1.0 if np.isnan(p) else float(p)
