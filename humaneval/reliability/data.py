"""Reliability data: the (unit, coder, value) triples every agreement statistic reads.

See docs/reliability.md. Three inputs are accepted and converted into one
:class:`ReliabilityData`:

- the long ratings table (one row per judgement; unit = ``(document, system[, criterion])`` by
  default, any other combination of columns on request);
- a wide matrix of coders × units or units × coders — only with an explicit ``orient``, because
  orientation mix-ups are a known source of wrong intervals in other software;
- value counts: a units × values table of how many coders chose each value (no coder identity).

Values are stored as float64. Labels (strings) are stored as their position in the
``value_domain`` (or in their sorted order for nominal data); ``ordered`` records whether that
position may be used as an ordinal/interval value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import OptionError, RatingsError

Orient = Literal["units_x_annotators", "annotators_x_units"]
DEFAULT_UNIT = ("document", "system")


@dataclass(frozen=True, eq=False)
class ReliabilityData:
    """Values with their unit and coder codes.

    Attributes
    ----------
    unit, coder, value:
        One entry per non-missing value: unit code ``0..U-1``, coder code (``None`` for value
        counts) and the value as float64.
    units:
        One row per unit code with the columns that identify it (e.g. ``document, system``).
    coders:
        Coder labels by code, or ``None``.
    labels:
        For label data, the category labels; ``value`` is then the position in ``labels``.
    ordered:
        Whether values may be compared by order/distance (numbers, or labels with a declared
        ``value_domain``).
    domain:
        The declared value domain (numbers or labels), or ``None``.
    """

    unit: np.ndarray
    coder: np.ndarray | None
    value: np.ndarray
    units: pd.DataFrame
    coders: tuple[str, ...] | None
    labels: tuple[object, ...] | None = None
    ordered: bool = True
    domain: tuple[object, ...] | None = None

    @property
    def n_units(self) -> int:
        return len(self.units)

    @property
    def n_coders(self) -> int | None:
        return None if self.coders is None else len(self.coders)

    def subset(self, keep: np.ndarray) -> ReliabilityData:
        """The same data restricted to the values where ``keep`` is true (unit codes unchanged)."""
        return ReliabilityData(
            unit=self.unit[keep],
            coder=None if self.coder is None else self.coder[keep],
            value=self.value[keep],
            units=self.units,
            coders=self.coders,
            labels=self.labels,
            ordered=self.ordered,
            domain=self.domain,
        )

    def value_labels(self, values: np.ndarray) -> list[object]:
        """Values as the user wrote them (labels for label data, numbers otherwise)."""
        if self.labels is None:
            return [number(v) for v in values]
        return [self.labels[int(v)] for v in values]


def number(v: float) -> float | int:
    """A value as the user wrote it: an int when whole, else a float."""
    return int(v) if float(v).is_integer() else float(v)


def from_long(
    frame: pd.DataFrame,
    *,
    unit: Sequence[str] = DEFAULT_UNIT,
    coder: str = "annotator",
    value: str = "score",
    value_domain: Sequence[object] | None = None,
) -> ReliabilityData:
    """Reliability data from a long table with one row per (coder, unit) value.

    Rows with a missing value are ignored. A coder rating one unit twice raises
    :class:`~humaneval.errors.RatingsError` (values are never silently averaged).

    Parameters
    ----------
    frame : DataFrame
        One row per (coder, unit) value.
    unit : sequence of str
        The columns that identify a unit (default ``document, system``).
    coder, value : str
        The coder and value columns.
    value_domain : sequence, optional
        All possible values, in order (values never used still count for ordinal metrics).

    Returns
    -------
    ReliabilityData
        Integer-coded units, coders and values for :func:`krippendorff_alpha` and friends.

    Raises
    ------
    RatingsError
        A missing column, or a coder who rated a unit twice.

    Examples
    --------
    Two coders agree on items 1 and 3: nominal α = 1 − (2/6)/(18/30) = 4/9.

    >>> import pandas as pd
    >>> from humaneval.reliability import krippendorff_alpha
    >>> long = pd.DataFrame({"coder": ["A", "B"] * 3, "item": [1, 1, 2, 2, 3, 3],
    ...                      "label": ["x", "x", "y", "x", "y", "y"]})
    >>> data = from_long(long, unit=["item"], coder="coder", value="label")
    >>> data.n_units, data.n_coders, round(krippendorff_alpha(data, "nominal").alpha, 4)
    (3, 2, 0.4444)
    """
    unit = list(unit)
    for col in [*unit, coder, value]:
        if col not in frame:
            raise RatingsError(
                f"column '{col}' not found (found: {', '.join(map(str, frame.columns))}); choose the "
                "unit/coder/value columns that exist"
            )
    frame = frame[frame[value].notna()]
    dup = frame.duplicated([*unit, coder], keep=False)
    if dup.any():
        first = frame[dup].iloc[0]
        ident = ", ".join(f"{c}={first[c]}" for c in [coder, *unit])
        raise RatingsError(
            f"{int(dup.sum())} rows rate the same unit twice (first: {ident}); a coder may rate each "
            "unit once — remove the duplicates or add a column to the unit"
        )
    unit_codes, units = _factorize_rows(frame[unit])
    coder_codes, coders = pd.factorize(frame[coder].astype(str), sort=True)
    values, labels, ordered = _encode_values(frame[value].to_numpy(), value_domain)
    return ReliabilityData(
        unit=unit_codes,
        coder=coder_codes.astype(np.int64),
        value=values,
        units=units,
        coders=tuple(coders),
        labels=labels,
        ordered=ordered,
        domain=None if value_domain is None else tuple(value_domain),
    )


def from_ratings(
    ratings: Ratings | pd.DataFrame,
    *,
    unit: Sequence[str] | None = None,
    value_domain: Sequence[object] | None = None,
) -> ReliabilityData:
    """Reliability data from a ratings table; attention checks are left out.

    ``unit`` defaults to ``(document, system)``, plus ``criterion`` when the table has one, so
    that a multi-criterion table never pairs ratings of different criteria.
    """
    ratings = as_ratings(ratings).without_checks()
    data = ratings.data
    if unit is None:
        unit = [*DEFAULT_UNIT, *(["criterion"] if "criterion" in data else [])]
    return from_long(data, unit=unit, coder="annotator", value=ratings.response, value_domain=value_domain)


def from_matrix(
    matrix: np.ndarray | pd.DataFrame | Sequence[Sequence[object]],
    *,
    orient: Orient | None = None,
    value_domain: Sequence[object] | None = None,
) -> ReliabilityData:
    """Reliability data from a wide matrix; missing cells are NaN/None/NA.

    ``orient`` must say whether rows are annotators (``"annotators_x_units"``, the layout of
    Krippendorff's papers and of the PyPI ``krippendorff`` package) or units
    (``"units_x_annotators"``).

    Raises
    ------
    OptionError
        ``orient`` missing or unknown.

    Examples
    --------
    >>> from humaneval.io.datasets import krippendorff_2011
    >>> data = from_matrix(krippendorff_2011(), orient="annotators_x_units")
    >>> data.n_units, data.n_coders, len(data.value)  # 41 values in 12 units
    (12, 4, 41)
    >>> from_matrix(krippendorff_2011())
    Traceback (most recent call last):
    ...
    humaneval.errors.OptionError: orient=None: say how the matrix is laid out ...
    """
    if orient not in ("units_x_annotators", "annotators_x_units"):
        raise OptionError(
            f"orient={orient!r}: say how the matrix is laid out with orient='annotators_x_units' (rows "
            "are annotators) or orient='units_x_annotators' (rows are units)"
        )
    rows: list[Any] | np.ndarray
    cols: list[Any] | np.ndarray
    if isinstance(matrix, pd.DataFrame):
        raw, rows, cols = matrix.to_numpy(), list(matrix.index), list(matrix.columns)
    else:
        raw = np.asarray(matrix)
        if raw.dtype.kind not in "biuf":
            raw = np.asarray(matrix, dtype=object)
        if raw.ndim != 2:
            raise RatingsError(f"the reliability matrix has {raw.ndim} dimensions; expected 2")
        rows, cols = np.arange(raw.shape[0]), np.arange(raw.shape[1])
    if raw.size == 0:
        raise RatingsError("the reliability matrix is empty; expected a 2-D table of values")
    if orient == "units_x_annotators":
        raw, rows, cols = raw.T, cols, rows
    mask = ~np.isnan(raw) if raw.dtype.kind == "f" else ~pd.isna(raw)
    unit_idx, coder_idx = np.nonzero(mask.T)
    values, labels, ordered = _encode_values(raw[coder_idx, unit_idx], value_domain)
    return ReliabilityData(
        unit=unit_idx.astype(np.int64),
        coder=coder_idx.astype(np.int64),
        value=values,
        units=pd.DataFrame({"unit": cols}),
        coders=tuple(str(c) for c in rows),
        labels=labels,
        ordered=ordered,
        domain=None if value_domain is None else tuple(value_domain),
    )


def from_counts(
    counts: np.ndarray | pd.DataFrame,
    *,
    value_domain: Sequence[object] | None = None,
) -> ReliabilityData:
    """Reliability data from a units × values table of counts (coders unknown).

    A DataFrame's columns are the values; for an array, ``value_domain`` names the columns.
    """
    if isinstance(counts, pd.DataFrame):
        columns = list(counts.columns) if value_domain is None else list(value_domain)
        table = counts.to_numpy()
        unit_names = [str(u) for u in counts.index]
    else:
        table = np.asarray(counts)
        if value_domain is None:
            raise RatingsError("value counts given as an array need value_domain= naming the columns")
        columns = list(value_domain)
        unit_names = [str(u) for u in range(table.shape[0])]
    if table.ndim != 2 or table.shape[1] != len(columns):
        raise RatingsError(
            f"value counts have {table.shape[-1]} columns but {len(columns)} values were named; give one "
            "column per value"
        )
    table = np.asarray(table, dtype=float)
    if (table < 0).any() or (table != np.round(table)).any() or np.isnan(table).any():
        raise RatingsError("value counts must be whole numbers >= 0")
    reps = table.astype(np.int64).ravel()
    unit_idx = np.repeat(np.repeat(np.arange(table.shape[0]), table.shape[1]), reps)
    col_idx = np.repeat(np.tile(np.arange(table.shape[1]), table.shape[0]), reps)
    values, labels, ordered = _encode_values(np.asarray(columns, dtype=object)[col_idx], value_domain)
    return ReliabilityData(
        unit=unit_idx.astype(np.int64),
        coder=None,
        value=values,
        units=pd.DataFrame({"unit": unit_names}),
        coders=None,
        labels=labels,
        ordered=ordered,
        domain=None if value_domain is None else tuple(value_domain),
    )


def as_reliability_data(
    data: ReliabilityData | Ratings | pd.DataFrame | np.ndarray,
    *,
    unit: Sequence[str] | None = None,
    orient: Orient | None = None,
    value_domain: Sequence[object] | None = None,
) -> ReliabilityData:
    """Dispatch: ReliabilityData as is; Ratings or a long DataFrame (it has an ``annotator``
    column) via :func:`from_ratings`; anything else is a wide matrix needing ``orient``."""
    if isinstance(data, ReliabilityData):
        return data
    if isinstance(data, Ratings) or (
        isinstance(data, pd.DataFrame) and orient is None and "annotator" in data.columns
    ):
        return from_ratings(data, unit=unit, value_domain=value_domain)
    return from_matrix(data, orient=orient, value_domain=value_domain)


def _factorize_rows(frame: pd.DataFrame) -> tuple[np.ndarray, pd.DataFrame]:
    """Codes of the distinct rows of ``frame`` (in sorted order) and the distinct rows."""
    keys = frame.astype(str)
    codes = keys.groupby(list(keys.columns), sort=True).ngroup().to_numpy().astype(np.int64)
    first = pd.Series(np.arange(len(codes))).groupby(codes).first().to_numpy()
    return codes, keys.iloc[first].reset_index(drop=True)


def _encode_values(
    raw: np.ndarray, value_domain: Sequence[object] | None
) -> tuple[np.ndarray, tuple[object, ...] | None, bool]:
    """Values as float64, plus the labels (for label data) and whether they are ordered."""
    numeric = pd.to_numeric(pd.Series(raw), errors="coerce").to_numpy(dtype=float)
    is_numeric = not np.isnan(numeric).any()
    if value_domain is not None:
        domain = list(value_domain)
        dom_numeric = pd.to_numeric(pd.Series(domain, dtype=object), errors="coerce").to_numpy(dtype=float)
        if is_numeric and not np.isnan(dom_numeric).any():
            outside = ~np.isin(numeric, dom_numeric)
            if outside.any():
                raise RatingsError(
                    f"value {number(numeric[outside][0])} is not in value_domain {domain}; fix the value "
                    "or extend the domain"
                )
            return numeric, None, True
        position = {str(v): i for i, v in enumerate(domain)}
        text = [str(v) for v in raw]
        bad = [t for t in text if t not in position]
        if bad:
            raise RatingsError(
                f"value {bad[0]!r} is not in value_domain {domain}; fix the value or extend the domain"
            )
        return np.array([position[t] for t in text], dtype=float), tuple(domain), True
    if is_numeric:
        return numeric, None, True
    codes, labels = pd.factorize(pd.Series([str(v) for v in raw]), sort=True)
    return codes.astype(float), tuple(labels), False
