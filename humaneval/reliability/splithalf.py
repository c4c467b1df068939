"""Split-half reliability (SHR) of system scores.

docs/reliability.md (dissertation §3.5, eq. 3.16): would an independent replication give
the same system scores? The independent clusters of the design (blocks: they share neither
annotators nor documents, :func:`humaneval.core.structure.cluster_labels`) are split at random into
two halves; in each half every system's mean raw response is computed (scores, or ranks as
given — the orientation is the same in both halves and cancels), and the halves are compared by
Pearson's r over the systems present in both. SHR is the mean r over ``n_splits`` seeded splits
(all distinct splits when there are at most that many). The Spearman–Brown value
:math:`2\\bar r/(1+\\bar r)` is reported separately and never replaces :math:`\\bar r`.

Designs with a single cluster cannot be split into independent halves by blocks. There,
``split="annotators_documents"`` splits both annotators and documents at random and compares the
judgements of annotator half 1 on document half 1 with those of annotator half 2 on document
half 2 (independent halves, but only about half of the judgements are used);
``split="annotators"`` splits only the annotators, so the halves share documents — a different,
optimistic statistic, labelled as such.

With few clusters there are few distinct splits (one for 2 blocks, 3 for 4 blocks, 10 for 5):
below :data:`MIN_DISTINCT_SPLITS` the mean r is a handful of draws, not an estimate, and
:attr:`SplitHalfResult.caveat` says so (the sd of a single split is NaN, not 0).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.ratings import Ratings, as_ratings
from humaneval.core.structure import cluster_labels
from humaneval.errors import DesignError, InsufficientDataError, OptionError, RatingsError, ReliabilityWarning
from humaneval.reliability.seeding import resolve_seed
from humaneval.stats.seeds import SeedLike

Split = Literal["blocks", "annotators_documents", "annotators"]
STATISTICS = {
    "blocks": "split-half reliability over independent blocks",
    "annotators_documents": "split-half reliability over disjoint annotator × document halves",
    "annotators": "split-half reliability over annotator halves sharing documents (optimistic)",
}
#: Fewest distinct splits for which SHR is reported as an estimate.
MIN_DISTINCT_SPLITS = 10


@dataclass(frozen=True, eq=False)
class SplitHalfResult:
    """SHR: mean Pearson r between halves, its spread, and the Spearman–Brown value."""

    shr: float
    sd: float
    quantiles: tuple[float, float, float]
    spearman_brown: float
    mean_abs_difference: float
    n_splits: int
    n_skipped: int
    n_clusters: int
    enumerated: bool
    split: str
    statistic: str
    seed: int | None
    correlations: np.ndarray

    @property
    def caveat(self) -> str | None:
        """Why this SHR is not an estimate (too few distinct splits), or ``None``."""
        if not self.enumerated or self.n_splits >= MIN_DISTINCT_SPLITS:
            return None
        splits = "the only possible split" if self.n_splits == 1 else f"all {self.n_splits} possible splits"
        draws = "one draw" if self.n_splits == 1 else "a few draws"
        return (
            f"split-half reliability rests on {splits} of {self.n_clusters} blocks: {draws}, not an "
            "estimate of how a replication would rank the systems (that needs at least "
            f"{MIN_DISTINCT_SPLITS} distinct splits, i.e. 5 blocks)"
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "shr": self.shr,
            "sd": self.sd,
            "quantiles": {"2.5%": self.quantiles[0], "50%": self.quantiles[1], "97.5%": self.quantiles[2]},
            "spearman_brown": self.spearman_brown,
            "mean_abs_difference": self.mean_abs_difference,
            "n_splits": self.n_splits,
            "n_skipped": self.n_skipped,
            "n_clusters": self.n_clusters,
            "enumerated": self.enumerated,
            "split": self.split,
            "statistic": self.statistic,
            "seed": self.seed,
            "caveat": self.caveat,
        }


def split_half_reliability(
    ratings: Ratings | pd.DataFrame,
    *,
    n_splits: int = 1000,
    seed: SeedLike = None,
    split: Split = "blocks",
) -> SplitHalfResult:
    """Split-half reliability of the system means of one criterion.

    The annotations are split into two halves sharing no block (or no annotator and document);
    SHR is the mean Pearson r of the two halves' system means over ``n_splits`` splits (all
    splits when there are few blocks), with the Spearman–Brown projection to the full study.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        One criterion's ratings with at least 3 systems.
    n_splits : int
        Random splits (fewer when all can be enumerated).
    seed : int or Generator, optional
        Seed of the splits; the seed used is kept in the result.
    split : {"blocks", "annotators_documents", "annotators"}
        ``blocks``: halves of the design's independent blocks (needs ≥ 2 blocks);
        ``annotators_documents``: disjoint annotator × document halves of a crossed design;
        ``annotators``: halves of the annotators only.

    Returns
    -------
    SplitHalfResult
        ``shr``, ``sd``, ``quantiles`` (2.5 %, 50 %, 97.5 %), ``spearman_brown``, the split
        counts and ``caveat`` when the splits are too few to be an estimate.

    Raises
    ------
    InsufficientDataError
        Fewer than 3 systems, or no split with 3 non-constant system means in both halves.
    DesignError
        ``split="blocks"`` on a design with a single block.
    OptionError
        An unknown ``split`` or ``n_splits`` < 1.

    References
    ----------
    Steen, J. (2023). Dissertation, chapter 3 (split-half reliability of system rankings);
    Spearman, C. (1910), Brown, W. (1910), British Journal of Psychology, 3, 271–295 and 296–322.

    Examples
    --------
    The wine judges are fully crossed with the bottles (one block), so the halves split both:

    >>> from humaneval.io.datasets import wine_ratings
    >>> result = split_half_reliability(wine_ratings(), split="annotators_documents",
    ...                                 n_splits=200, seed=1)
    >>> round(result.shr, 3), round(result.spearman_brown, 3), result.n_splits
    (0.903, 0.949, 200)
    >>> split_half_reliability(wine_ratings())
    Traceback (most recent call last):
    ...
    humaneval.errors.DesignError: the design has a single block ...
    """
    table = single_criterion(as_ratings(ratings))
    data = table.data
    systems, system_codes = np.unique(data["system"].to_numpy(dtype=str), return_inverse=True)
    if len(systems) < 3:
        raise InsufficientDataError(
            f"split-half reliability needs at least 3 systems (found {len(systems)}); Pearson's r on two "
            "points is always ±1"
        )
    if n_splits < 1:
        raise OptionError(f"n_splits={n_splits}; use at least 1 (1000 is the default)")
    values = table.values.to_numpy(dtype=float)
    rng, used_seed = resolve_seed(seed)
    if split == "blocks":
        clusters = cluster_labels(data).to_numpy()
        n_clusters = int(clusters.max()) + 1
        if n_clusters < 2:
            raise DesignError(
                "the design has a single block (every annotator is linked to every document), so it cannot "
                "be split into independent halves; use split='annotators_documents'"
            )
        sums, counts = group_sums(clusters, system_codes, values, n_clusters, len(systems))
        member, enumerated = _block_splits(n_clusters, n_splits, rng)
        a_sums, a_counts = member @ sums, member @ counts
        b_sums, b_counts = sums.sum(0) - a_sums, counts.sum(0) - a_counts
    elif split in ("annotators_documents", "annotators"):
        n_clusters, enumerated = 1, False
        a_sums, a_counts, b_sums, b_counts = _crossed_splits(data, system_codes, values, n_splits, rng, split)
    else:
        raise OptionError(f"split={split!r}; use 'blocks', 'annotators_documents' or 'annotators'")
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a, mean_b = a_sums / a_counts, b_sums / b_counts
    r, abs_diff = rowwise_pearson(mean_a, mean_b)
    used = ~np.isnan(r)
    if not used.any():
        raise InsufficientDataError(
            "no split had 3 systems with non-constant means in both halves; split-half reliability "
            "is undefined"
        )
    skipped = int((~used).sum())
    if skipped > 0.01 * len(r):
        warnings.warn(
            f"{skipped} of {len(r)} splits skipped (fewer than 3 shared systems or constant system means)",
            ReliabilityWarning,
            stacklevel=caller_stacklevel(),
        )
    r = r[used]
    shr = float(r.mean())
    low, median, high = np.quantile(r, [0.025, 0.5, 0.975])
    return SplitHalfResult(
        shr=shr,
        sd=float(r.std(ddof=1)) if len(r) > 1 else float("nan"),
        quantiles=(float(low), float(median), float(high)),
        spearman_brown=2 * shr / (1 + shr),
        mean_abs_difference=float(abs_diff[used].mean()),
        n_splits=len(r),
        n_skipped=skipped,
        n_clusters=n_clusters,
        enumerated=enumerated,
        split=split,
        statistic=STATISTICS[split],
        seed=used_seed,
        correlations=r,
    )


def single_criterion(ratings: Ratings) -> Ratings:
    """The table without attention checks; an error if it mixes several criteria."""
    ratings = ratings.without_checks()
    criteria = ratings.criteria
    if len(criteria) > 1:
        raise RatingsError(
            f"the table has {len(criteria)} criteria ({', '.join(map(str, criteria[:3]))}, ...); split-half "
            "reliability runs per criterion — select one (Ratings.by_criterion())"
        )
    return ratings


def group_sums(
    group: np.ndarray, system: np.ndarray, values: np.ndarray, n_groups: int, n_systems: int
) -> tuple[np.ndarray, np.ndarray]:
    """Sum and count of the values of every (group, system) pair as two groups × systems arrays."""
    key = group * n_systems + system
    size = n_groups * n_systems
    sums = np.bincount(key, values, minlength=size).reshape(n_groups, n_systems)
    counts = np.bincount(key, minlength=size).reshape(n_groups, n_systems).astype(float)
    return sums, counts


def rowwise_pearson(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson's r (eq. 3.16) between the rows of ``a`` and ``b`` over the columns finite in both,
    and the mean absolute difference; r is NaN where fewer than 3 columns remain or either row is
    constant."""
    valid = np.isfinite(a) & np.isfinite(b)
    k = valid.sum(axis=1)
    a0, b0 = np.where(valid, a, 0.0), np.where(valid, b, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = np.where(valid, a0 - (a0.sum(1) / k)[:, None], 0.0)
        db = np.where(valid, b0 - (b0.sum(1) / k)[:, None], 0.0)
        ss_a, ss_b = (da * da).sum(1), (db * db).sum(1)
        r = (da * db).sum(1) / np.sqrt(ss_a * ss_b)
        abs_diff = np.abs(a0 - b0).sum(1) / k
    scale = np.maximum(np.abs(a0).max(1), np.abs(b0).max(1)) + 1e-300
    constant = (ss_a <= (1e-12 * scale) ** 2) | (ss_b <= (1e-12 * scale) ** 2)
    r[(k < 3) | constant] = np.nan
    return np.clip(r, -1.0, 1.0), abs_diff


def _block_splits(n_clusters: int, n_splits: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Membership (splits × clusters, 0/1) of half A: all distinct splits if there are at most
    ``n_splits`` of them, otherwise ``n_splits`` random permutations cut at ⌊C/2⌋."""
    half = n_clusters // 2
    distinct = math.comb(n_clusters, half) // (2 if 2 * half == n_clusters else 1)
    if distinct <= n_splits:
        combos: Iterator[tuple[int, ...]] = itertools.combinations(range(n_clusters), half)
        if 2 * half == n_clusters:
            combos = (c for c in combos if 0 in c)
        chosen = np.array(list(combos))
        enumerated = True
    else:
        chosen = np.argsort(rng.random((n_splits, n_clusters)), axis=1)[:, :half]
        enumerated = False
    member = np.zeros((len(chosen), n_clusters))
    np.put_along_axis(member, chosen, 1.0, axis=1)
    return member, enumerated


def _crossed_splits(
    data: pd.DataFrame,
    system: np.ndarray,
    values: np.ndarray,
    n_splits: int,
    rng: np.random.Generator,
    split: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Half sums and counts when annotators (and documents) are split at random."""
    annotator = pd.factorize(data["annotator"])[0]
    document = pd.factorize(data["document"])[0]
    n_ann, n_doc, n_sys = annotator.max() + 1, document.max() + 1, system.max() + 1
    if n_ann < 2 or (split == "annotators_documents" and n_doc < 2):
        raise DesignError("splitting needs at least 2 annotators and 2 documents")
    out = np.empty((4, n_splits, n_sys))
    for t in range(n_splits):
        ann_half = rng.permutation(n_ann) < n_ann // 2
        in_a, in_b = ann_half[annotator], ~ann_half[annotator]
        if split == "annotators_documents":
            doc_half = rng.permutation(n_doc) < n_doc // 2
            in_a, in_b = in_a & doc_half[document], in_b & ~doc_half[document]
        for h, rows in enumerate((in_a, in_b)):
            out[2 * h, t] = np.bincount(system[rows], values[rows], minlength=n_sys)
            out[2 * h + 1, t] = np.bincount(system[rows], minlength=n_sys)
    return out[0], out[1], out[2], out[3]
