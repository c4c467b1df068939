"""Krippendorff's α at the nominal, ordinal, interval and ratio levels, or with a custom distance.

docs/reliability.md (definition, eqs. 3.8–3.12 of the dissertation; fast paths with memory
linear in the number of ratings; edge cases). :math:`\\alpha=1-D_o/D_e`; units
with fewer than two values are not pairable: they are dropped and counted. The coincidence
matrix is part of the result when there are at most 100 distinct values.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel, renamed, renamed_attribute
from humaneval.core.ratings import Ratings
from humaneval.errors import InsufficientDataError, OptionError, RatingsError, ReliabilityWarning
from humaneval.reliability import disagreement as dis
from humaneval.reliability.data import Orient, ReliabilityData, as_reliability_data, number
from humaneval.reliability.profiles import (
    ProfileCounts,
    count_profiles,
    exact_disagreements,
    integer_distances,
    long_keys,
    profile_base,
    wide_keys,
)

Distance = Callable[[np.ndarray], np.ndarray] | np.ndarray
Level = Literal["nominal", "ordinal", "interval", "ratio"]
LevelArg = Level | Distance
Method = Literal["auto", "fast", "coincidence"]
MAX_COINCIDENCE_VALUES = 100
MAX_CUSTOM_VALUES = 5_000
AlphaInput: TypeAlias = ReliabilityData | Ratings | pd.DataFrame | np.ndarray


@dataclass(frozen=True)
class Metric:
    """A resolved level: its name and, for a custom distance, the V×V matrix over given values."""

    name: str
    matrix: Callable[[np.ndarray], np.ndarray] | None = None


@dataclass(frozen=True, eq=False)
class AlphaResult:
    """Krippendorff's α and what it is made of.

    ``D_o`` and ``D_e`` are in the units of the distance (mid-ranks for ordinal α);
    ``value_counts`` are the pairable values :math:`n_c`; ``coincidence`` is the matrix
    :math:`o_{ck}` when there are at most 100 distinct values. ``degenerate`` is true when
    :math:`D_e=0` (all pairable values identical): α is then undefined (NaN).
    """

    alpha: float
    level_of_measurement: str
    D_o: float
    D_e: float
    n_pairable_values: int
    n_pairable_units: int
    n_units_dropped: int
    n_coders: int | None
    value_counts: pd.Series
    coincidence: pd.DataFrame | None
    degenerate: bool = False

    level = renamed_attribute("level", "level_of_measurement")

    def to_dict(self) -> dict[str, object]:
        return {
            "alpha": self.alpha,
            "level_of_measurement": self.level_of_measurement,
            "D_o": self.D_o,
            "D_e": self.D_e,
            "n_pairable_values": self.n_pairable_values,
            "n_pairable_units": self.n_pairable_units,
            "n_units_dropped": self.n_units_dropped,
            "n_coders": self.n_coders,
            "value_counts": {str(k): int(v) for k, v in self.value_counts.items()},
            "coincidence": None if self.coincidence is None else self.coincidence.to_numpy().tolist(),
            "degenerate": self.degenerate,
        }


@dataclass(frozen=True)
class Prepared:
    """Pairable values ready for α: compact unit codes, values, their distinct values and codes."""

    data: ReliabilityData
    metric: Metric
    keep: np.ndarray
    unit: np.ndarray
    x: np.ndarray
    values: np.ndarray
    codes: np.ndarray
    counts: np.ndarray
    n_units_dropped: int


@renamed(level="level_of_measurement")
def krippendorff_alpha(
    data: AlphaInput,
    level_of_measurement: LevelArg = "ordinal",
    *,
    unit: Sequence[str] | None = None,
    orient: Orient | None = None,
    value_domain: Sequence[object] | None = None,
    method: Method = "auto",
    strict: bool = False,
    allow_large: bool = False,
) -> AlphaResult:
    """Krippendorff's :math:`\\alpha=1-D_o/D_e`.

    Parameters
    ----------
    data:
        A ratings table (unit = ``(document, system[, criterion])`` unless ``unit`` names other
        columns), a wide matrix with an explicit ``orient``, or :class:`ReliabilityData` (e.g.
        from :func:`~humaneval.reliability.data.from_counts`).
    level_of_measurement:
        ``"nominal"``, ``"ordinal"`` (rank-based δ of eq. 3.12), ``"interval"``, ``"ratio"``, or
        a custom distance: a callable mapping the sorted distinct values to a V×V matrix, or a
        V×V matrix over ``value_domain``.
    value_domain:
        The admissible values; required (ordered) for labels at non-nominal levels.
    method:
        ``"fast"`` (linear-memory formulas), ``"coincidence"`` (explicit V×V matrix), or
        ``"auto"``: exact integer coincidences counted by unit profiles when there are few
        distinct values (:mod:`humaneval.reliability.profiles`; α then in rational arithmetic
        except at the ratio level), else fast; custom distances always use the matrix.
    strict:
        Raise :class:`InsufficientDataError` instead of returning NaN when :math:`D_e=0`.
    allow_large:
        Allow a custom distance over more than 5,000 distinct values.

    Returns
    -------
    AlphaResult
        ``alpha``, ``D_o``, ``D_e``, the pairable values and units, the units dropped (one
        rating), the value counts and (V ≤ 100) the coincidence matrix.

    Raises
    ------
    OptionError
        An unknown level, or a matrix without ``orient``.
    RatingsError
        Values outside ``value_domain``, or labels at a non-nominal level without one.

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. University of
    Pennsylvania.

    Examples
    --------
    Krippendorff's (2011) example of 4 observers and 12 units reproduces the published 0.815:

    >>> from humaneval.io.datasets import krippendorff_2011
    >>> result = krippendorff_alpha(krippendorff_2011(), "ordinal", orient="annotators_x_units")
    >>> round(result.alpha, 3)
    0.815
    >>> result.n_pairable_units, result.n_pairable_values, result.n_units_dropped
    (11, 40, 1)
    """
    level = level_of_measurement
    name = level if isinstance(level, str) else "custom"
    wide = _wide_profiles(data, level, orient, value_domain) if method == "auto" else None
    pc: ProfileCounts | None
    coders_present: int | None
    if wide is not None:
        pc, values, coders_present = wide
        labels: list[object] = [number(v) for v in values]
        n_dropped = pc.n_units_dropped
    else:
        rd = as_reliability_data(data, unit=unit, orient=orient, value_domain=value_domain)
        prep = prepare(rd, level, allow_large=allow_large)
        pc = _long_profiles(prep) if method == "auto" and prep.metric.matrix is None else None
        values, labels, n_dropped = prep.values, rd.value_labels(prep.values), prep.n_units_dropped
        coders_present = None if rd.coder is None else int(np.count_nonzero(np.bincount(rd.coder)))
    if pc is not None:
        d_o, d_e = _profile_disagreements(pc, name, values)
        o = pc.coincidence()
        counts, n_units = pc.counts, pc.n_pairable_units
    else:
        d_o, d_e = disagreements(prep, method)
        o = None
        if len(prep.values) <= MAX_COINCIDENCE_VALUES:
            o = dis.coincidences(prep.unit, prep.codes, len(prep.values))
        counts, n_units = prep.counts, int(prep.unit.max()) + 1
    return AlphaResult(
        alpha=alpha_value(d_o, d_e, strict),
        level_of_measurement=name,
        D_o=float(d_o),
        D_e=float(d_e),
        n_pairable_values=int(counts.sum()),
        n_pairable_units=n_units,
        n_units_dropped=n_dropped,
        n_coders=coders_present,
        value_counts=pd.Series(counts, index=labels, name="n_c"),
        coincidence=None if o is None else pd.DataFrame(o, index=labels, columns=labels),
        degenerate=d_e == 0,
    )


def _wide_profiles(
    data: AlphaInput, level: LevelArg, orient: Orient | None, value_domain: Sequence[object] | None
) -> tuple[ProfileCounts, np.ndarray, int] | None:
    """Profile counts straight from a numeric coders × units matrix of few distinct whole
    numbers, without building one (unit, coder, value) triple per value; ``None`` when the
    matrix is of another kind or fails a check (the general path then says why)."""
    if not isinstance(level, str) or level not in dis.LEVELS or value_domain is not None:
        return None
    if orient not in ("units_x_annotators", "annotators_x_units"):
        return None
    if isinstance(data, pd.DataFrame) and all(kind in "iuf" for kind in data.dtypes.map(lambda t: t.kind)):
        data = data.to_numpy()
    if not isinstance(data, np.ndarray) or data.ndim != 2 or data.size == 0 or data.dtype.kind not in "iuf":
        return None
    raw = (data.T if orient == "units_x_annotators" else data).astype(float, copy=False)
    low, high = np.fmin.reduce(raw, axis=None), np.fmax.reduce(raw, axis=None)
    if not (np.isfinite(low) and np.isfinite(high) and high - low < 64) or (level == "ratio" and low < 0):
        return None
    n_codes = int(high - low) + 1
    base = profile_base(raw.shape[0], n_codes)
    if base is None:
        return None
    offset = np.subtract(raw, low)
    np.fmin(offset, n_codes, out=offset)  # missing (NaN) becomes code n_codes
    codes = offset.astype(np.uint8)
    if np.count_nonzero(codes == offset) != raw.size:
        return None
    coders_present = raw.shape[0] - int(np.count_nonzero((codes == n_codes).all(axis=1)))
    if coders_present < 2:
        return None
    pc = count_profiles(wide_keys(codes, base, n_codes), base, n_codes)
    if pc.n_pairable_units == 0:
        return None
    used = np.flatnonzero(pc.counts)
    return pc.keep(used), low + used.astype(float), coders_present


def _long_profiles(prep: Prepared) -> ProfileCounts | None:
    """Profile counts of prepared (pairable) values, or ``None`` when there are too many values."""
    m = np.bincount(prep.unit)
    base = profile_base(int(m.max()), len(prep.values))
    if base is None:
        return None
    key = long_keys(prep.unit, prep.codes, len(m), base, len(prep.values))
    pc = count_profiles(key, base, len(prep.values))
    return ProfileCounts(pc.sizes, pc.pairs, pc.counts, pc.present, pc.n_pairable_units, prep.n_units_dropped)


def _profile_disagreements(
    pc: ProfileCounts, level: str, values: np.ndarray
) -> tuple[float, float] | tuple[Fraction, Fraction]:
    """:math:`(D_o, D_e)` from profile counts: exact fractions when the distances are rational."""
    distances = integer_distances(level, values, pc.counts)
    if distances is not None:
        return exact_disagreements(pc, *distances)
    delta = dis.delta_matrix(level, values, pc.counts)
    return dis.matrix_disagreement(pc.coincidence(), pc.counts, delta)


def prepare(rd: ReliabilityData, level: LevelArg, *, allow_large: bool = False) -> Prepared:
    """Check the data against the level and keep the pairable values."""
    metric = resolve_level(rd, level, allow_large)
    if rd.coder is not None and np.count_nonzero(np.bincount(rd.coder, minlength=1)) < 2:
        raise InsufficientDataError(
            "only one annotator rated anything; agreement needs at least two annotators per unit"
        )
    keep, unit, dropped = dis.pairable(rd.unit)
    if not keep.any():
        raise InsufficientDataError(
            "no pairable unit: need at least one unit with two ratings (check the unit columns)"
        )
    x = rd.value[keep]
    if metric.name == "ratio" and (x < 0).any():
        raise RatingsError(
            f"negative value {x[x < 0][0]:g} at the ratio level; ratio data must be >= 0 (use interval)"
        )
    values, codes, counts = dis.distinct(x)
    if metric.matrix is not None and len(values) > MAX_CUSTOM_VALUES and not allow_large:
        raise RatingsError(
            f"a custom distance over {len(values)} distinct values needs a {len(values)}² matrix; pass "
            "allow_large=True if that is intended"
        )
    return Prepared(rd, metric, keep, unit, x, values, codes, counts, dropped)


def resolve_level(rd: ReliabilityData, level: LevelArg, allow_large: bool) -> Metric:
    """The :class:`Metric` of a level name or custom distance, checked against the data."""
    if isinstance(level, str):
        if level not in dis.LEVELS:
            raise OptionError(
                f"level {level!r} is unknown; use one of {', '.join(dis.LEVELS)} or a distance function"
            )
        if level != "nominal" and not rd.ordered:
            raise RatingsError(
                f"the values are labels ({', '.join(map(str, (rd.labels or ())[:4]))}, ...); {level} α "
                "needs an ordered value_domain=[...] listing them from lowest to highest"
            )
        return Metric(level)
    return Metric("custom", _custom_matrix(rd, level))


def _custom_matrix(rd: ReliabilityData, distance: Distance) -> Callable[[np.ndarray], np.ndarray]:
    """A function from sorted distinct values to the checked V×V custom distance matrix."""

    def matrix(values: np.ndarray) -> np.ndarray:
        if callable(distance):
            given = np.asarray(rd.value_labels(values), dtype=object if rd.labels else float)
            delta = np.asarray(distance(given), dtype=float)
        else:
            full = np.asarray(distance, dtype=float)
            if rd.domain is None or full.shape != (len(rd.domain), len(rd.domain)):
                raise RatingsError(
                    f"a distance matrix of shape {full.shape} needs value_domain= with one entry per row"
                )
            if rd.labels is not None:
                index = values.astype(np.int64)
            else:
                index = np.searchsorted(np.asarray(rd.domain, dtype=float), values)
            delta = full[np.ix_(index, index)]
        if delta.shape != (len(values), len(values)):
            raise RatingsError(
                f"the distance function returned shape {delta.shape}; expected {len(values)}×{len(values)}"
            )
        if not np.allclose(delta, delta.T) or np.any(np.diag(delta) != 0):
            raise RatingsError("the custom distance must be symmetric with a zero diagonal")
        return delta

    return matrix


def disagreements(prep: Prepared, method: Method = "auto") -> tuple[float, float]:
    """:math:`(D_o, D_e)` of prepared data by the fast path or the explicit matrix path."""
    return disagreement_of(prep.unit, prep.x, prep.metric, method, prep.values, prep.codes, prep.counts)


def disagreement_of(
    unit: np.ndarray,
    x: np.ndarray,
    metric: Metric,
    method: Method = "auto",
    values: np.ndarray | None = None,
    codes: np.ndarray | None = None,
    counts: np.ndarray | None = None,
) -> tuple[float, float]:
    """:math:`(D_o, D_e)` of pairable values ``x`` in compact units ``unit``."""
    if values is None or codes is None or counts is None:
        values, codes, counts = dis.distinct(x)
    if metric.matrix is not None or method == "coincidence":
        if metric.matrix is not None:
            delta = metric.matrix(values)
        else:
            delta = dis.delta_matrix(metric.name, values, counts)
        o = dis.coincidences(unit, codes, len(values))
        return dis.matrix_disagreement(o, counts, delta)
    if metric.name == "nominal":
        return dis.nominal_disagreement(unit, codes, counts)
    if metric.name == "interval":
        return dis.interval_disagreement(unit, x)
    if metric.name == "ordinal":
        return dis.interval_disagreement(unit, dis.midranks(counts)[codes])
    return dis.ratio_disagreement(unit, x, values, counts)


def alpha_value(d_o: float | Fraction, d_e: float | Fraction, strict: bool = False) -> float:
    """:math:`1-D_o/D_e` (correctly rounded from fractions); NaN with a :class:`ReliabilityWarning`
    when :math:`D_e=0`."""
    if d_e > 0:
        return float(1 - d_o / d_e)
    message = "α is undefined: all pairable values are identical (expected disagreement D_e = 0)"
    if strict:
        raise InsufficientDataError(message)
    warnings.warn(message, ReliabilityWarning, stacklevel=caller_stacklevel())
    return float("nan")
