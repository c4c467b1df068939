"""Confidence intervals for Krippendorff's α: KALPHA-style and unit/document bootstraps.

docs/reliability.md (Krippendorff 2006/2011; Hayes & Krippendorff 2007, the KALPHA
macro): :math:`D_e` stays fixed; each resample draws :math:`M=\\mathrm{round}(n(\\bar m-1)/2)`
value pairs from the observed coincidences, :math:`D_o^*=\\frac1M\\sum N_{ck}\\delta_{ck}`,
:math:`\\alpha^*=\\max(-1, 1-D_o^*/D_e)`. Cells with equal distance are merged before drawing
(a sum of multinomial cells is multinomial), so Likert data draw from at most V(V-1)/2+1
categories; data with many distinct distances draw pair indices from an alias table, which
never builds the V×V matrix.

The unit-level bootstrap resamples documents (default) or units with replacement and
recomputes α including :math:`D_e`; it refuses fewer than 5 clusters and warns below 15
(:func:`humaneval.stats.resampling.cluster_caveat`). Both intervals are percentile intervals of
:func:`humaneval.stats.resampling.percentile_interval`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel, renamed, renamed_attribute
from humaneval.errors import InsufficientDataError, OptionError, ReliabilityWarning
from humaneval.reliability import disagreement as dis
from humaneval.reliability.alpha import (
    MAX_COINCIDENCE_VALUES,
    AlphaInput,
    LevelArg,
    Prepared,
    disagreement_of,
    disagreements,
    prepare,
)
from humaneval.reliability.data import Orient, as_reliability_data
from humaneval.reliability.seeding import resolve_seed
from humaneval.stats.resampling import MIN_INTERVAL_CLUSTERS, cluster_caveat, percentile_interval
from humaneval.stats.seeds import SeedLike

DEFAULT_ALPHA_MIN = (0.9, 0.8, 0.7, 0.667, 0.6, 0.5)
MIN_RESAMPLES = 1000
_MULTINOMIAL_MAX_CELLS = 512
_DRAW_CHUNK = 2_000_000


@dataclass(frozen=True, eq=False)
class AlphaBootstrap:
    """A bootstrap distribution of α: observed α, percentile CI and :math:`q=P(\\alpha^*<\\alpha_{min})`.

    ``method`` is ``"kalpha"`` or the resampled column (``"document"``, ``"unit"``, ...);
    ``n_draws`` is KALPHA's :math:`M` (``None`` for unit bootstraps); ``n_undefined`` counts
    unit resamples whose α was undefined (excluded).
    """

    alpha: float
    level_of_measurement: str
    method: str
    ci: tuple[float, float]
    confidence_level: float
    q: dict[float, float]
    n_resamples: int
    n_draws: int | None
    n_undefined: int
    seed: int | None
    samples: np.ndarray

    level = renamed_attribute("level", "level_of_measurement")
    confidence = renamed_attribute("confidence", "confidence_level")

    def to_dict(self) -> dict[str, object]:
        return {
            "alpha": self.alpha,
            "level_of_measurement": self.level_of_measurement,
            "method": self.method,
            "ci": list(self.ci),
            "confidence_level": self.confidence_level,
            "q": {str(k): v for k, v in self.q.items()},
            "n_resamples": self.n_resamples,
            "n_draws": self.n_draws,
            "n_undefined": self.n_undefined,
            "seed": self.seed,
        }


@renamed(level="level_of_measurement", confidence="confidence_level")
def kalpha_bootstrap(
    data: AlphaInput,
    level_of_measurement: LevelArg = "ordinal",
    *,
    n_resamples: int = 5000,
    confidence_level: float = 0.95,
    alpha_min: Sequence[float] = DEFAULT_ALPHA_MIN,
    max_draws: int | None = None,
    seed: SeedLike = None,
    unit: Sequence[str] | None = None,
    orient: Orient | None = None,
    value_domain: Sequence[object] | None = None,
) -> AlphaBootstrap:
    """Krippendorff's bootstrap of α with fixed :math:`D_e` (the KALPHA macro's method).

    Each resample draws the pairable-value pairs' disagreements with replacement, keeping the
    expected disagreement fixed, and gives α* = 1 − D_o*/D_e (floored at −1).

    Parameters
    ----------
    data : Ratings, DataFrame, ndarray or ReliabilityData
        As for :func:`krippendorff_alpha`.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}
        The metric of disagreement.
    n_resamples : int
        Bootstrap resamples (at least 1000 for percentile intervals).
    confidence_level : float
        Of the percentile interval.
    alpha_min : sequence of float
        Thresholds whose probability q = P(α* < α_min) is reported.
    max_draws : int, optional
        Cap on the pairs drawn per resample.
    seed : int or Generator, optional
        Seed of the resampling; kept in the result.
    unit, orient, value_domain :
        As for :func:`krippendorff_alpha`.

    Returns
    -------
    AlphaBootstrap
        ``alpha``, ``ci``, ``q`` (per ``alpha_min``), ``samples`` and the resampling settings.

    Raises
    ------
    OptionError
        Too few resamples, a confidence level outside (0, 1) or an unknown level.

    References
    ----------
    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability measure
    for coding data. Communication Methods and Measures, 1(1), 77–89.

    Examples
    --------
    Hayes & Krippendorff's (2007) data (ordinal α = 0.7598):

    >>> from humaneval.io.datasets import hayes_krippendorff_2007
    >>> boot = kalpha_bootstrap(hayes_krippendorff_2007(), "ordinal", n_resamples=2000, seed=1,
    ...                         orient="annotators_x_units")
    >>> round(boot.alpha, 4), tuple(round(x, 2) for x in boot.ci)
    (0.7598, (0.71, 0.81))
    >>> boot.q[0.667], boot.q[0.8]
    (0.001, 0.948)
    """
    _check_resamples(n_resamples, confidence_level, alpha_min)
    prep, d_o, d_e = _observed(data, level_of_measurement, unit, orient, value_domain)
    n = len(prep.x)
    n_units = int(prep.unit.max()) + 1
    draws = round(n * (n / n_units - 1) / 2)
    if max_draws is not None:
        draws = min(draws, int(max_draws))
    distances, probs = _pair_distribution(prep)
    rng, used_seed = resolve_seed(seed)
    d_star = _draw_mean_distance(rng, distances, probs, draws, n_resamples)
    samples = np.maximum(1.0 - d_star / d_e, -1.0)
    return _summarise(
        1.0 - d_o / d_e, prep, "kalpha", samples, confidence_level, alpha_min, draws, 0, used_seed
    )


@renamed(level="level_of_measurement", confidence="confidence_level")
def unit_bootstrap(
    data: AlphaInput,
    level_of_measurement: LevelArg = "ordinal",
    *,
    resample: str = "document",
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    alpha_min: Sequence[float] = DEFAULT_ALPHA_MIN,
    seed: SeedLike = None,
    unit: Sequence[str] | None = None,
    orient: Orient | None = None,
    value_domain: Sequence[object] | None = None,
) -> AlphaBootstrap:
    """Cluster bootstrap of α: resample ``resample`` clusters with replacement and
    recompute α, :math:`D_e` included. ``resample`` is ``"unit"`` or a unit column such as
    ``"document"`` (the default: summaries of one document are dependent).

    Parameters
    ----------
    data : Ratings, DataFrame, ndarray or ReliabilityData
        As for :func:`krippendorff_alpha`.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}
        The metric of disagreement.
    resample : str
        ``"unit"`` or the unit column whose clusters are resampled.
    n_resamples, confidence_level, alpha_min, seed :
        As for :func:`kalpha_bootstrap`.
    unit, orient, value_domain :
        As for :func:`krippendorff_alpha`.

    Returns
    -------
    AlphaBootstrap
        With ``method="unit"``; its interval is wider than KALPHA's because D_e varies too.

    Raises
    ------
    OptionError
        Too few resamples, or an unknown ``resample`` column or level.

    Examples
    --------
    >>> from humaneval.io.datasets import hayes_krippendorff_2007
    >>> boot = unit_bootstrap(hayes_krippendorff_2007(), "ordinal", resample="unit",
    ...                       n_resamples=1000, seed=1, orient="annotators_x_units")
    >>> boot.method, tuple(round(x, 2) for x in boot.ci)
    ('unit', (0.61, 0.84))
    """
    _check_resamples(n_resamples, confidence_level, alpha_min)
    prep, d_o, d_e = _observed(data, level_of_measurement, unit, orient, value_domain)
    rd = prep.data
    pairable_units = np.flatnonzero(np.bincount(rd.unit) >= 2)
    if resample == "unit":
        cluster_of_unit = np.arange(len(pairable_units))
    elif resample in rd.units.columns and resample != "unit":
        cluster_of_unit, _ = pd.factorize(rd.units[resample].iloc[pairable_units])
    else:
        raise OptionError(
            f"resample={resample!r} is not a unit column ({', '.join(map(str, rd.units.columns))}); "
            "use 'unit' or one of those columns"
        )
    n_clusters = int(cluster_of_unit.max()) + 1 if len(cluster_of_unit) else 0
    caveat = cluster_caveat(n_clusters, "document" if resample == "document" else "cluster")
    if n_clusters < MIN_INTERVAL_CLUSTERS:
        raise InsufficientDataError(f"α has no {resample} bootstrap: {caveat}; use the KALPHA interval")
    if caveat:
        warnings.warn(f"α {resample} bootstrap: {caveat}", ReliabilityWarning, stacklevel=caller_stacklevel())
    rng, used_seed = resolve_seed(seed)
    samples = _cluster_resamples(rng, prep, cluster_of_unit, n_resamples)
    defined = samples[~np.isnan(samples)]
    return _summarise(
        1.0 - d_o / d_e,
        prep,
        resample,
        defined,
        confidence_level,
        alpha_min,
        None,
        len(samples) - len(defined),
        used_seed,
    )


def _observed(
    data: AlphaInput,
    level: LevelArg,
    unit: Sequence[str] | None,
    orient: Orient | None,
    value_domain: Sequence[object] | None,
) -> tuple[Prepared, float, float]:
    """Prepared pairable data and the observed :math:`(D_o, D_e)`; undefined α has no bootstrap."""
    rd = as_reliability_data(data, unit=unit, orient=orient, value_domain=value_domain)
    prep = prepare(rd, level)
    d_o, d_e = disagreements(prep)
    if d_e == 0:
        raise InsufficientDataError("α is undefined (all pairable values identical), so it has no bootstrap")
    return prep, d_o, d_e


def _check_resamples(n_resamples: int, confidence_level: float, alpha_min: Sequence[float] = ()) -> None:
    for value in alpha_min:
        if not -1 <= float(value) <= 1:  # NaN fails too
            raise OptionError(f"alpha_min={value} must be a number from -1 to 1, e.g. 0.667")
    if n_resamples < MIN_RESAMPLES:
        raise OptionError(
            f"n_resamples={n_resamples} is too few for percentile intervals; use at least {MIN_RESAMPLES}"
        )
    if not 0 < confidence_level < 1:
        raise OptionError(f"confidence_level={confidence_level} must lie between 0 and 1, e.g. 0.95")


def _pair_distribution(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """Distinct pair distances and their probabilities :math:`\\sum p_{ck}` over ordered cells."""
    n_values = len(prep.values)
    delta: np.ndarray | None
    if n_values <= MAX_COINCIDENCE_VALUES:
        o = dis.coincidences(prep.unit, prep.codes, n_values)
        if prep.metric.matrix is not None:
            delta = prep.metric.matrix(prep.values)
        else:
            delta = dis.delta_matrix(prep.metric.name, prep.values, prep.counts)
        weights, distances = o.ravel(), delta.ravel()
    else:
        points = dis.midranks(prep.counts)[prep.codes] if prep.metric.name == "ordinal" else prep.x
        delta = None if prep.metric.matrix is None else prep.metric.matrix(prep.values)
        parts_d, parts_w = [], []
        for i, j, w in dis.ordered_pairs(prep.unit):
            if delta is None:
                parts_d.append(dis.pair_distance(prep.metric.name, points[i], points[j]))
            else:
                parts_d.append(delta[prep.codes[i], prep.codes[j]])
            parts_w.append(np.full(len(i), w))
        distances, weights = np.concatenate(parts_d), np.concatenate(parts_w)
    distinct, inverse = np.unique(distances, return_inverse=True)
    probs = np.bincount(inverse.ravel(), weights)
    keep = probs > 0
    return distinct[keep], probs[keep] / probs[keep].sum()


def _draw_mean_distance(
    rng: np.random.Generator, distances: np.ndarray, probs: np.ndarray, draws: int, n_resamples: int
) -> np.ndarray:
    """:math:`D_o^*` of ``n_resamples`` resamples of ``draws`` pairs each."""
    if len(distances) <= _MULTINOMIAL_MAX_CELLS:
        counts = rng.multinomial(draws, probs, size=n_resamples)
        return counts @ distances / draws
    accept, alias = _alias_table(probs)
    per_chunk = max(1, _DRAW_CHUNK // max(draws, 1))
    out = np.empty(n_resamples)
    for lo in range(0, n_resamples, per_chunk):
        size = min(per_chunk, n_resamples - lo)
        idx = rng.integers(0, len(probs), (size, draws))
        idx = np.where(rng.random((size, draws)) < accept[idx], idx, alias[idx])
        out[lo : lo + size] = distances[idx].mean(axis=1)
    return out


def _alias_table(probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias table (Vose's construction): draw a cell uniformly, keep it with probability
    ``accept`` or take its ``alias``; O(1) per draw."""
    k = len(probs)
    scaled = probs * k
    accept = np.ones(k)
    alias = np.arange(k)
    small = [i for i in range(k) if scaled[i] < 1.0]
    large = [i for i in range(k) if scaled[i] >= 1.0]
    while small and large:
        s, g = small.pop(), large.pop()
        accept[s], alias[s] = scaled[s], g
        scaled[g] -= 1.0 - scaled[s]
        (small if scaled[g] < 1.0 else large).append(g)
    return accept, alias


def _cluster_resamples(
    rng: np.random.Generator, prep: Prepared, cluster_of_unit: np.ndarray, n_resamples: int
) -> np.ndarray:
    """α of ``n_resamples`` resamples of whole clusters (NaN where α is undefined)."""
    n_clusters = int(cluster_of_unit.max()) + 1
    unit_order = np.lexsort((np.arange(len(cluster_of_unit)), cluster_of_unit))
    new_code = np.empty_like(unit_order)
    new_code[unit_order] = np.arange(len(unit_order))
    units = new_code[prep.unit]
    order = np.argsort(units, kind="stable")
    units, x = units[order], prep.x[order]
    cluster = cluster_of_unit[unit_order][units]
    value_start = np.searchsorted(cluster, np.arange(n_clusters))
    value_count = np.bincount(cluster, minlength=n_clusters)
    units_per_cluster = np.bincount(cluster_of_unit, minlength=n_clusters)
    unit_start = np.concatenate([[0], np.cumsum(units_per_cluster)[:-1]])
    out = np.empty(n_resamples)
    for r in range(n_resamples):
        drawn = rng.integers(0, n_clusters, n_clusters)
        lengths = value_count[drawn]
        position = np.repeat(np.arange(n_clusters), lengths)
        within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        idx = value_start[drawn][position] + within
        shift = np.cumsum(units_per_cluster[drawn]) - units_per_cluster[drawn] - unit_start[drawn]
        d_o, d_e = disagreement_of(units[idx] + shift[position], x[idx], prep.metric)
        out[r] = 1.0 - d_o / d_e if d_e > 0 else np.nan
    return out


def _summarise(
    alpha: float,
    prep: Prepared,
    method: str,
    samples: np.ndarray,
    confidence_level: float,
    alpha_min: Sequence[float],
    draws: int | None,
    n_undefined: int,
    seed: int | None,
) -> AlphaBootstrap:
    low, high = percentile_interval(samples, confidence_level)
    return AlphaBootstrap(
        alpha=alpha,
        level_of_measurement=prep.metric.name,
        method=method,
        ci=(float(low), float(high)),
        confidence_level=confidence_level,
        q={float(a): float(np.mean(samples < a)) for a in alpha_min},
        n_resamples=len(samples) + n_undefined,
        n_draws=draws,
        n_undefined=n_undefined,
        seed=seed,
        samples=samples,
    )
