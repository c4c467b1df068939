"""How reliability grows with effort: the time-vs-reliability and nested-vs-crossed curves.

docs/reliability.md (dissertation Figs. 3.5 and 3.8). Both correlate the
system means of a subsample of independent clusters with the full-data system means (Pearson's
r, eq. 3.16):

- :func:`time_reliability_curve`: for :math:`k=2..C-1`, up to 500 distinct combinations of
  :math:`k` clusters, with the summed working time of their annotators; plots use 10-minute
  buckets with the mean r and a 95 % t-interval (:func:`time_buckets`);
- :func:`nested_crossed_curve`: for :math:`k=1..C`, draw :math:`k` clusters; the *crossed*
  subsample keeps all their annotators, the *nested* one a single random annotator per cluster;
  r is averaged over ``n_draws`` and plotted against the cost in judgements.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.core.deprecation import renamed
from humaneval.core.ratings import Ratings, as_ratings
from humaneval.core.structure import cluster_labels
from humaneval.errors import DesignError, RatingsError
from humaneval.reliability.seeding import resolve_seed
from humaneval.reliability.splithalf import group_sums, rowwise_pearson, single_criterion
from humaneval.stats.seeds import SeedLike


def time_reliability_curve(
    ratings: Ratings | pd.DataFrame,
    times: pd.Series,
    *,
    max_combinations: int = 500,
    seed: SeedLike = None,
) -> pd.DataFrame:
    """Raw ``(k, minutes, r)`` rows of the time-vs-reliability curve.

    ``times`` holds total seconds per annotator (:func:`~humaneval.reliability.timing.
    load_annotator_times`); every annotator of the ratings must have one.

    Each row is one combination of ``k`` blocks (at most ``max_combinations`` per k): the
    annotation minutes it took and the Pearson r of its system means with the full data's.

    Examples
    --------
    Six simulated blocks of 3 annotators who each worked 10 minutes: all C(6, k) combinations of
    k = 2…5 blocks (15 + 20 + 15 + 6), averaged per 10-minute bucket by :func:`time_buckets`:

    >>> import pandas as pd
    >>> from humaneval.design import block_design
    >>> from humaneval.clmm.model import default_model, sample_ratings
    >>> model = default_model()
    >>> ratings = sample_ratings(model, block_design(6, 5, 3, model.system_names, seed=1), seed=1)
    >>> times = pd.Series(600.0, index=sorted(ratings.data["annotator"].unique()))
    >>> curve = time_reliability_curve(ratings, times, seed=1)
    >>> time_buckets(curve)[["minutes_from", "n", "mean_r"]].round(3).values.tolist()
    [[60.0, 15.0, 0.972], [90.0, 20.0, 0.987], [120.0, 15.0, 0.994], [150.0, 6.0, 0.998]]
    """
    table = single_criterion(as_ratings(ratings))
    clusters, systems, values, n_clusters, n_systems = _cluster_codes(table)
    sums, counts = group_sums(clusters, systems, values, n_clusters, n_systems)
    full = sums.sum(0) / counts.sum(0)
    annotators = table.data["annotator"].to_numpy(dtype=str)
    missing = sorted(set(annotators) - set(times.index.astype(str)))
    if missing:
        raise RatingsError(
            f"no working time for annotator {missing[0]} (and {len(missing) - 1} more); the timing table "
            "must cover every annotator of the ratings"
        )
    per_annotator = pd.Series(times.to_numpy(dtype=float), index=times.index.astype(str))
    pairs = pd.DataFrame({"cluster": clusters, "annotator": annotators}).drop_duplicates()
    minutes = (
        per_annotator.reindex(pairs["annotator"]).groupby(pairs["cluster"].to_numpy()).sum().to_numpy() / 60
    )
    rng, _ = resolve_seed(seed)
    frames = []
    for k in range(2, n_clusters):
        member = _combinations(n_clusters, k, max_combinations, rng)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = (member @ sums) / (member @ counts)
        r, _ = rowwise_pearson(means, np.broadcast_to(full, means.shape))
        frames.append(pd.DataFrame({"k": k, "minutes": member @ minutes, "r": r}))
    if not frames:
        raise DesignError(f"the time curve needs at least 3 independent blocks, found {n_clusters}")
    return pd.concat(frames, ignore_index=True)


@renamed(confidence="confidence_level")
def time_buckets(curve: pd.DataFrame, width: float = 10.0, confidence_level: float = 0.95) -> pd.DataFrame:
    """Mean r per ``width``-minute bucket with a t-interval: ``minutes_from, minutes_to, n, mean_r,
    ci_low, ci_high``."""
    valid = curve.dropna(subset=["r"])
    start = np.floor(valid["minutes"].to_numpy() / width) * width
    grouped = valid.groupby(start)["r"]
    out = grouped.agg(n="size", mean_r="mean", sd="std").reset_index(names="minutes_from")
    half = (
        stats.t.ppf(0.5 + confidence_level / 2, np.maximum(out["n"] - 1, 1)) * out["sd"] / np.sqrt(out["n"])
    )
    out["minutes_to"] = out["minutes_from"] + width
    out["ci_low"], out["ci_high"] = out["mean_r"] - half, out["mean_r"] + half
    return out[["minutes_from", "minutes_to", "n", "mean_r", "ci_low", "ci_high"]]


def nested_crossed_curve(
    ratings: Ratings | pd.DataFrame, *, n_draws: int = 10_000, seed: SeedLike = None
) -> pd.DataFrame:
    """Mean r with the full-data system means of crossed and nested subsamples.

    One row per ``(design, k)``: ``design`` (``"crossed"``/``"nested"``), ``k`` clusters drawn,
    ``judgements`` (mean size of the subsample), ``r`` (mean over the draws with a defined r),
    ``r_sd`` and ``n_draws``.

    Examples
    --------
    A simulated study of 6 blocks × 5 documents × 3 annotators: the system means of k whole
    blocks (crossed) and of k annotators from different blocks (nested) against the full data's:

    >>> from humaneval.design import block_design
    >>> from humaneval.clmm.model import default_model, sample_ratings
    >>> model = default_model()
    >>> ratings = sample_ratings(model, block_design(6, 5, 3, model.system_names, seed=1), seed=1)
    >>> curve = nested_crossed_curve(ratings, n_draws=500, seed=1)
    >>> curve[curve["k"] == 2][["design", "judgements", "r"]].round(3).values.tolist()
    [['crossed', 150.0, 0.975], ['nested', 50.0, 0.859]]
    """
    table = single_criterion(as_ratings(ratings))
    clusters, systems, values, n_clusters, n_systems = _cluster_codes(table)
    annotator, _ = pd.factorize(table.data["annotator"])
    n_ann = int(annotator.max()) + 1
    ann_sums, ann_counts = group_sums(annotator, systems, values, n_ann, n_systems)
    cluster_of_ann = np.zeros(n_ann, dtype=np.int64)
    cluster_of_ann[annotator] = clusters
    per_cluster = np.bincount(cluster_of_ann, minlength=n_clusters)
    if per_cluster.min() < 2:
        raise DesignError(
            "the nested-vs-crossed curve needs at least 2 annotators in every block; this design has "
            f"blocks with {per_cluster.min()}"
        )
    roster = np.full((n_clusters, per_cluster.max()), -1)
    order = np.argsort(cluster_of_ann, kind="stable")
    slot = np.arange(n_ann) - np.repeat(np.cumsum(per_cluster) - per_cluster, per_cluster)
    roster[cluster_of_ann[order], slot] = order
    cl_sums = np.zeros((n_clusters, n_systems))
    cl_counts = np.zeros((n_clusters, n_systems))
    np.add.at(cl_sums, cluster_of_ann, ann_sums)
    np.add.at(cl_counts, cluster_of_ann, ann_counts)
    full = cl_sums.sum(0) / cl_counts.sum(0)
    rng, _ = resolve_seed(seed)
    rows = []
    for k in range(1, n_clusters + 1):
        chosen = np.argsort(rng.random((n_draws, n_clusters)), axis=1)[:, :k]
        pick = roster[chosen, (rng.random(chosen.shape) * per_cluster[chosen]).astype(np.int64)]
        for design, s, c in (
            ("crossed", cl_sums[chosen].sum(1), cl_counts[chosen].sum(1)),
            ("nested", ann_sums[pick].sum(1), ann_counts[pick].sum(1)),
        ):
            with np.errstate(invalid="ignore", divide="ignore"):
                r, _ = rowwise_pearson(s / c, np.broadcast_to(full, s.shape))
            ok = ~np.isnan(r)
            rows.append(
                {
                    "design": design,
                    "k": k,
                    "judgements": float(c.sum(1).mean()),
                    "r": float(r[ok].mean()) if ok.any() else np.nan,
                    "r_sd": float(r[ok].std(ddof=1)) if ok.sum() > 1 else np.nan,
                    "n_draws": int(ok.sum()),
                }
            )
    return pd.DataFrame(rows)


def plot_time_curve(curve: pd.DataFrame, *, width: float = 10.0, label: str | None = None, ax=None):
    """Bucket means of the time curve with 95 % CIs (Fig. 3.5); returns the matplotlib Figure."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    buckets = time_buckets(curve, width)
    centre = buckets["minutes_from"] + width / 2
    ax.errorbar(
        centre,
        buckets["mean_r"],
        yerr=[buckets["mean_r"] - buckets["ci_low"], buckets["ci_high"] - buckets["mean_r"]],
        fmt="o-",
        markersize=3,
        capsize=2,
        label=label,
    )
    ax.set_xlabel("annotator time (minutes)")
    ax.set_ylabel("Pearson r with full-data system means")
    if label:
        ax.legend()
    return ax.figure


def plot_nested_crossed(curve: pd.DataFrame, *, label: str | None = None, ax=None):
    """Mean r of crossed and nested subsamples against cost in judgements (Fig. 3.8)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for design, part in curve.groupby("design", sort=True):
        name = f"{label}, {design}" if label else str(design)
        ax.plot(part["judgements"], part["r"], marker="o", markersize=3, label=name)
    ax.set_xlabel("judgements")
    ax.set_ylabel("mean Pearson r with full-data system means")
    ax.legend()
    return ax.figure


def _cluster_codes(table: Ratings) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    clusters = cluster_labels(table.data).to_numpy()
    _, systems = np.unique(table.data["system"].to_numpy(dtype=str), return_inverse=True)
    return (
        clusters,
        systems,
        table.values.to_numpy(dtype=float),
        int(clusters.max()) + 1,
        int(systems.max()) + 1,
    )


def _combinations(n: int, k: int, limit: int, rng: np.random.Generator) -> np.ndarray:
    """Membership rows of all ``k``-subsets of ``n`` clusters, or ``limit`` distinct random ones."""
    if math.comb(n, k) <= limit:
        chosen = np.array(list(itertools.combinations(range(n), k)))
    else:
        seen: set[tuple[int, ...]] = set()
        while len(seen) < limit:
            seen.add(tuple(sorted(rng.choice(n, k, replace=False).tolist())))
        chosen = np.array(sorted(seen))
    member = np.zeros((len(chosen), n))
    np.put_along_axis(member, chosen, 1.0, axis=1)
    return member
