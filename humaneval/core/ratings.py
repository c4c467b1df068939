"""The validated long-format ratings table: the one type every stage reads or writes.

One row is one judgement: ``annotator, document, system`` plus either ``score`` (a rating scale,
higher = better) or ``rank`` (lower = better, 0- or 1-based), and optionally ``criterion``,
``position`` (0-based screen order), ``seconds`` (time on screen), ``is_check`` (an attention
check, excluded from analysis) and ``rater_kind`` (``human`` or ``judge``). Other columns (e.g.
``corpus``) are passed through unchanged.
Comparative judgements keep one row per summary and judgement: pairwise tables add ``opponent``
(score 1 won, 0 lost, 0.5 tie), best–worst tables add ``tuple_id`` (score +1 best, −1 worst, 0).

Validation follows the docs/analysis.md: ids are compared as stripped strings and
never renumbered; duplicate ``(annotator, document, system, criterion)`` rows, values outside a
declared scale and ranks that are not a permutation per ``(annotator, document, criterion)`` are
errors naming the offending rows; missing responses are dropped with a warning, never treated
as a category.

Automatic judges (LLM judges, metrics) are raters whose rows carry ``rater_kind = judge``
(case-insensitive; a table without the column is all human), or whose names are given with
``judges=`` (``--mark-judges NAME,...``). Their rows validate with the same keys as human rows, except
that a judge may rate one summary several times (several samples of a stochastic judge): those
rows are not duplicates, and the judge analyses (:mod:`humaneval.judges`) average them per
summary; and a scale inferred from the data is the humans' (a judge's values must lie within a
declared one). Every human analysis (agreement, models, comparative, power, quality control, report)
reads :meth:`Ratings.without_checks`, which leaves the judges out as it leaves out attention
checks; :meth:`Ratings.humans` and :meth:`Ratings.judges` give each side.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.responses import RESPONSES, lower_is_better
from humaneval.core.scales import Scale, read_scales, sidecar_path, write_scales
from humaneval.errors import DataWarning, RatingsError
from humaneval.io.tables import (
    WIDE_TABLE,
    codes_of,
    decoded,
    per_distinct,
    read_table_lines,
    text_codes,
    write_table,
)

__all__ = [
    "ID_COLUMNS",
    "OPTIONAL_COLUMNS",
    "RESPONSES",
    "Ratings",
    "Response",
    "as_ratings",
    "load_ratings",
    "mark_judges",
    "parse_scale",
    "select_criterion",
    "validate_ratings",
]

ID_COLUMNS = ("annotator", "document", "system")
OPTIONAL_COLUMNS = ("criterion", "position", "seconds", "is_check", "check_passed", "rater_kind")
#: The values of ``rater_kind``: people, and automatic judges (LLMs, metrics) rated beside them.
RATER_KINDS = ("human", "judge")
#: Columns that tell comparative judgements of one summary apart: a summary meets several opponents
#: (pairwise) or appears in several best–worst tuples.
COMPARATIVE_KEYS = ("opponent", "tuple_id")
#: Columns of ids held as categoricals of strings (see :attr:`Ratings.data`): the ids, and the opponent
#: of a pairwise table (a system name).
CODED_COLUMNS = (*ID_COLUMNS, "opponent")

#: Column names accepted as aliases of the canonical ones (compared case-insensitively).
ALIASES: dict[str, str] = {
    "item": "document",
    "doc": "document",
    "doc_id": "document",
    "document_id": "document",
    "summarizer": "system",
    "model": "system",
    "rater": "annotator",
    "worker": "annotator",
    "workerid": "annotator",
    "worker_id": "annotator",
    "dimension": "criterion",
    "kind": "rater_kind",
    "rater_type": "rater_kind",
    "time": "seconds",
    "time_stamp": "seconds",
}

Response = Literal["score", "rank"]
#: Largest magnitude of a whole-number response: beyond 2**53 floats skip integers, and int64 wraps.
MAX_WHOLE = 2**53
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f"}


@dataclass(frozen=True, eq=False)
class Ratings:
    """A validated ratings table and what validation learnt about it.

    Attributes
    ----------
    data:
        The long table with canonical column names. The id columns (``annotator``, ``document``,
        ``system``, and a pairwise table's ``opponent``) hold stripped strings as pandas
        categoricals whose categories are the ids present, in sorted order: stages group and count
        on their codes instead of hashing the strings again. To edit ids, work on a text copy
        (``data["system"].astype(str).replace(...)``) or rename categories (``.cat.rename_categories``):
        pandas refuses to set a value that is not yet a category.
    response:
        ``"score"`` (higher means better) or ``"rank"`` (lower means better).
    scale:
        ``(low, high)`` of the rating scale, declared or inferred from the data.
    scale_declared:
        Whether ``scale`` was declared by the user (otherwise it is the observed range).
    rank_base:
        0 or 1 for rank data (detected from the minimum rank), ``None`` for scores.
    ties_allowed:
        Whether tied ranks were declared allowed.
    continuous:
        Whether non-integer scores are allowed (0–100 sliders, metric scores).
    source:
        The file the table was read from, if any.
    scales:
        The declared scale of each criterion (:class:`~humaneval.core.scales.Scale`, with labels),
        when known: from the design via ``collect`` or from the ``ratings.scale.json`` sidecar.
        ``scale`` then spans them all and :meth:`by_criterion` gives each part its own.
    """

    data: pd.DataFrame
    response: Response
    scale: tuple[float, float]
    scale_declared: bool = False
    rank_base: int | None = None
    ties_allowed: bool = False
    continuous: bool = False
    source: str | None = None
    scales: tuple[Scale, ...] = ()

    def __len__(self) -> int:
        return len(self.data)

    @property
    def values(self) -> pd.Series:
        """The raw responses (``score`` or ``rank`` as given)."""
        return self.data[self.response]

    def reported(self) -> pd.Series:
        """Responses as tables report them (float): scores as given, ranks shifted to 1 = best."""
        values = self.values.astype(float)
        return values + (1 - (self.rank_base or 0)) if lower_is_better(self.response) else values

    def oriented(self) -> pd.Series:
        """Responses oriented so that higher is better: scores as given, ranks negated."""
        return self.values if self.response == "score" else -self.values

    @property
    def systems(self) -> list[str]:
        return sorted(self.data["system"].unique())

    @property
    def annotators(self) -> list[str]:
        return sorted(self.data["annotator"].unique())

    @property
    def documents(self) -> list[str]:
        return sorted(self.data["document"].unique())

    @property
    def criteria(self) -> list[str | None]:
        """The criteria present, or ``[None]`` when the table has no criterion column."""
        if "criterion" not in self.data:
            return [None]
        return sorted(self.data["criterion"].unique())

    def with_data(self, data: pd.DataFrame) -> Ratings:
        """The same metadata over a subset or transformation of the rows (ids no longer present
        leave the id columns' categories)."""
        return replace(self, data=_observed_ids(data.reset_index(drop=True)))

    def without_checks(self) -> Ratings:
        """The rows human analyses use: no attention checks (``is_check``) and no judge rows.

        Judges (``rater_kind = judge``) are raters beside the humans, never among them: α, the
        models, comparative judgements, power and the report's human statistics all read this view.
        """
        data = self.data
        keep = pd.Series(True, index=data.index)
        if "is_check" in data:
            keep &= ~data["is_check"]
        if "rater_kind" in data:
            keep &= data["rater_kind"] != "judge"
        return self if keep.all() else self.with_data(data[keep])

    def _of_kind(self, kind: str) -> Ratings:
        if "rater_kind" not in self.data:
            return self if kind == "human" else self.with_data(self.data.iloc[:0])
        return self.with_data(self.data[self.data["rater_kind"] == kind])

    def humans(self) -> Ratings:
        """The human raters' rows (attention checks included; see :meth:`without_checks`)."""
        return self._of_kind("human")

    def judges(self) -> Ratings:
        """The judges' rows, several samples of a judge on one summary kept as they are."""
        return self._of_kind("judge")

    @property
    def judge_names(self) -> list[str]:
        """The annotators marked as judges (sorted; empty when the table has none)."""
        if "rater_kind" not in self.data:
            return []
        return sorted(self.data.loc[self.data["rater_kind"] == "judge", "annotator"].unique())

    @property
    def has_judges(self) -> bool:
        """Whether any row is a judge's."""
        return "rater_kind" in self.data and bool((self.data["rater_kind"] == "judge").any())

    def by_criterion(self) -> Iterator[tuple[str | None, Ratings]]:
        """Yield ``(criterion, ratings)`` per criterion; every analysis runs separately per criterion."""
        if "criterion" not in self.data:
            yield None, self
            return
        for criterion, part in self.data.groupby("criterion", sort=True):
            own = self.scale_of(str(criterion))
            part_ratings = self.with_data(part)
            if own is not None:
                part_ratings = replace(part_ratings, scale=own.bounds, scales=(own,))
            yield str(criterion), part_ratings

    def scale_of(self, criterion: str | None) -> Scale | None:
        """The declared :class:`~humaneval.core.scales.Scale` of ``criterion`` (``None`` if not declared)."""
        for scale in self.scales:
            if scale.criterion == criterion or (len(self.scales) == 1 and scale.criterion is None):
                return scale
        return None

    def _points(self) -> int | None:
        """The number of whole-number points of a declared discrete scale (None if continuous)."""
        low, high = self.scale
        if self.continuous or not (float(low).is_integer() and float(high).is_integer()):
            return None
        return int(high - low) + 1

    def declared_points(self, criterion: str | None = None) -> list[float] | None:
        """The points of the declared discrete scale of ``criterion`` (all criteria when None), or
        None when no discrete scale is declared.

        Examples
        --------
        >>> from humaneval.io.datasets import wine_ratings
        >>> load_ratings(wine_ratings(), scale="1-5").declared_points()
        [1.0, 2.0, 3.0, 4.0, 5.0]
        """
        scales = [self.scale_of(criterion)] if criterion is not None else list(self.scales)
        discrete = [(s, s.points) for s in scales if s is not None and s.points]
        if discrete:
            return sorted({float(v) for s, points in discrete for v in np.linspace(s.low, s.high, points)})
        if self.scales or not self.scale_declared or self._points() is None:
            return None
        return [float(v) for v in np.arange(self.scale[0], self.scale[1] + 1)]

    def write(self, path: str | Path) -> Path:
        """Write the table as CSV, TSV or JSON lines (by extension).

        A declared score scale is written beside it as ``<stem>.scale.json`` (see
        :mod:`humaneval.core.scales`), which :func:`load_ratings` reads back.
        """
        written = write_table(self.data, path)
        if self.response == "score" and self.scale_declared:
            write_scales(
                sidecar_path(written),
                self.scales or (Scale(None, *self.scale, points=self._points()),),
                continuous=self.continuous,
            )
        return written


def load_ratings(
    source: str | Path | pd.DataFrame,
    *,
    response: Response | None = None,
    columns: Mapping[str, str] | None = None,
    scale: tuple[float, float] | str | tuple[Scale, ...] | None = None,
    allow_ties: bool = False,
    continuous: bool = False,
    judges: str | Sequence[str] | None = None,
) -> Ratings:
    """Load and validate a ratings table from CSV, TSV, JSONL or a DataFrame.

    Parameters
    ----------
    source:
        A path (format by extension; delimiter sniffed for text files) or a DataFrame.
    response:
        ``"score"`` or ``"rank"``; by default whichever of the two columns exists.
    columns:
        Renames applied before validation, e.g. ``{"item_id": "document"}``. The aliases in
        :data:`ALIASES` (``item`` → ``document``, ``time`` → ``seconds``, ...) apply by default.
    scale:
        Declared rating scale ``(low, high)``, a string ``"1-7"``, or one
        :class:`~humaneval.core.scales.Scale` per criterion; values outside are errors. By default a
        file's scale sidecar ``<stem>.scale.json`` (written by ``humaneval collect``) declares it.
    allow_ties:
        Accept tied ranks within an ``(annotator, document)``.
    continuous:
        Accept non-integer scores (sliders, direct assessment).
    judges:
        Annotators that are automatic judges (names, or one comma-separated string, as
        ``--mark-judges``); their rows get ``rater_kind = judge``. A ``rater_kind`` column in the table
        marks judges too.

    Returns
    -------
    Ratings
        The validated table (``data``), its ``response`` (``score`` or ``rank``), ``scale`` and
        whether it was declared; every stage of humaneval accepts it.

    Raises
    ------
    RatingsError
        A missing id column, a duplicate rating, a value outside the declared scale, ranks that
        are not a permutation, or an unreadable file; the message names the line (or row).

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> ratings = load_ratings(wine_ratings(), scale="1-5")
    >>> ratings.response, ratings.scale, ratings.systems
    ('score', (1.0, 5.0), ['cold-no', 'cold-yes', 'warm-no', 'warm-yes'])

    A value outside the declared scale is one clear error:

    >>> bad = wine_ratings()
    >>> bad.loc[3, "score"] = 7
    >>> load_ratings(bad, scale="1-5")
    Traceback (most recent call last):
    ...
    humaneval.errors.RatingsError: score 7 at row 3 is outside the declared scale 1-5; ...

    Aliases map common column names (``item`` → ``document``); ranks are lower = better:

    >>> import pandas as pd
    >>> ranked = load_ratings(pd.DataFrame({"annotator": ["a"] * 3, "item": ["d1"] * 3,
    ...                                     "system": ["x", "y", "z"], "rank": [1, 3, 2]}))
    >>> ranked.response, ranked.rank_base, list(ranked.data.columns)
    ('rank', 1, ['annotator', 'document', 'system', 'rank'])
    """
    if isinstance(source, pd.DataFrame):
        frame, label, lines = source.copy(), None, None
    else:
        frame, lines = read_table_lines(source, what="ratings table", coded=True)
        label = str(source)
        sidecar = sidecar_path(source)
        if scale is None and sidecar.is_file():
            scale = read_scales(sidecar)
            if any(s.points is None for s in scale):
                continuous = True
    ratings = _validated(
        frame,
        coded=label is not None and all(isinstance(t, pd.CategoricalDtype) for t in frame.dtypes),
        response=response,
        columns=columns,
        scale=scale,
        allow_ties=allow_ties,
        continuous=continuous,
        source=label,
        lines=lines,
        judges=judges,
    )
    if label is not None:
        if ratings.data.shape[1] >= WIDE_TABLE:
            object.__setattr__(ratings, "data", _restore_wide_numbers(ratings.data))
        else:
            _restore_numbers(ratings.data)
    return ratings


#: Columns whose meaning the package knows; every other column passes through as the user wrote it.
KNOWN_COLUMNS = (*ID_COLUMNS, *RESPONSES, *OPTIONAL_COLUMNS, *COMPARATIVE_KEYS, "block")


def _restore_numbers(data: pd.DataFrame) -> None:
    """Give pass-through columns read from a file the dtype ``pd.read_csv`` gives them: a column of
    numbers is numeric (a covariate in a formula is one slope, as in R), anything else stays text.
    A number column meant as a factor is marked in the formula: ``C(x)``."""
    for column in data.columns:
        if column in KNOWN_COLUMNS or pd.api.types.is_numeric_dtype(data[column]):
            continue
        try:
            numbers = pd.to_numeric(data[column])
        except (ValueError, TypeError):
            continue
        if numbers.notna().any():
            data[column] = numbers


def _restore_wide_numbers(data: pd.DataFrame) -> pd.DataFrame:
    """:func:`_restore_numbers` for a table of thousands of columns: one pass over all cells and one new
    frame (column by column, each assignment splits pandas' block again: quadratic in the columns).
    Whole-number columns become int64, other number columns float64."""
    candidates = [
        c for c in data.columns if c not in KNOWN_COLUMNS and not pd.api.types.is_numeric_dtype(data[c])
    ]
    if not candidates:
        return data
    cells = data[candidates].to_numpy(dtype=object)
    missing = pd.isna(cells)
    flat = pd.Series(cells.ravel(), dtype=object)
    numbers = pd.to_numeric(flat, errors="coerce").to_numpy(dtype=float).reshape(cells.shape)
    numeric = (np.isnan(numbers) == missing).all(axis=0) & (~missing).any(axis=0)
    if not numeric.any():
        return data
    values = numbers[:, numeric]
    whole = ~missing[:, numeric].any(axis=0) & (values == np.round(values)).all(axis=0)
    names = np.asarray(candidates, dtype=object)[numeric]
    parts = [
        pd.DataFrame(values[:, whole].astype(np.int64), columns=names[whole], index=data.index),
        pd.DataFrame(values[:, ~whole], columns=names[~whole], index=data.index),
    ]
    kept = data.drop(columns=list(names))
    return pd.concat([kept, *parts], axis=1)[list(data.columns)]


#: Largest end of a declared scale: integers beyond 2^53 are not exact in floating point.
_MAX_SCALE = 2.0**53


def parse_scale(scale: tuple[float, float] | str) -> tuple[float, float]:
    """Parse ``"1-7"``, ``"0:100"`` or ``(1, 7)`` into ``(low, high)``.

    Raises
    ------
    RatingsError
        Not of the form LOW-HIGH, or low ≥ high.

    Examples
    --------
    >>> parse_scale("1-7"), parse_scale("0:100"), parse_scale((1, 5))
    ((1.0, 7.0), (0.0, 100.0), (1.0, 5.0))
    """
    if isinstance(scale, str):
        text = scale.strip()
        for sep in (":", ",", "..", "-"):
            low, found, high = text.partition(sep) if sep != "-" else text.rpartition("-")
            if found and low.strip() and high.strip():
                try:
                    parsed = (float(low), float(high))
                except ValueError:
                    continue
                break
        else:
            raise RatingsError(f"scale {scale!r} is not of the form LOW-HIGH, e.g. 1-7")
    else:
        parsed = (float(scale[0]), float(scale[1]))
    if not all(abs(v) <= _MAX_SCALE for v in parsed):  # NaN and ±inf fail too
        raise RatingsError(
            f"scale {scale!r}: both ends must be finite numbers within ±2^53 (exact as floats), e.g. 1-7"
        )
    if not parsed[0] < parsed[1]:
        raise RatingsError(f"scale {scale!r}: the low end must be below the high end, e.g. 1-7")
    return parsed


def validate_ratings(
    frame: pd.DataFrame,
    *,
    response: Response | None = None,
    columns: Mapping[str, str] | None = None,
    scale: tuple[float, float] | str | tuple[Scale, ...] | None = None,
    allow_ties: bool = False,
    continuous: bool = False,
    source: str | None = None,
    lines: np.ndarray | None = None,
    judges: str | Sequence[str] | None = None,
) -> Ratings:
    """Validate a raw long table and return a :class:`Ratings` (see :func:`load_ratings`).

    Messages name rows by ``lines`` (the source line of every row, as returned by
    :func:`humaneval.io.tables.read_table_lines`), else by the frame's index labels when they are
    unique, else (e.g. a ``pd.concat`` of tables) by 0-based positions.
    """
    return _validated(
        frame,
        coded=False,
        response=response,
        columns=columns,
        scale=scale,
        allow_ties=allow_ties,
        continuous=continuous,
        source=source,
        lines=lines,
        judges=judges,
    )


def _validated(
    frame: pd.DataFrame,
    *,
    coded: bool,
    response: Response | None,
    columns: Mapping[str, str] | None,
    scale: tuple[float, float] | str | tuple[Scale, ...] | None,
    allow_ties: bool,
    continuous: bool,
    source: str | None,
    lines: np.ndarray | None,
    judges: str | Sequence[str] | None,
) -> Ratings:
    """:func:`validate_ratings`; ``coded``: every column is categorical as
    ``read_table_lines(coded=True)`` returns it (the id columns stay so, the others become text)."""
    if lines is None:
        labels = frame.index.to_numpy() if frame.index.is_unique else np.arange(len(frame))
        v = _Validator(frame.reset_index(drop=True), source, labels, "row")
    else:
        v = _Validator(frame.reset_index(drop=True), source, np.asarray(lines), "line")
    data = v.canonical_columns(columns or {})
    resp = v.response_column(data, response)
    if coded:  # ids stay codes (stripped and sorted already), the response is parsed per category
        for col in data.columns:
            if col not in (*CODED_COLUMNS, resp) and isinstance(data[col].dtype, pd.CategoricalDtype):
                data[col] = decoded(data[col])
    data = v.ids(data, recode=not coded)
    data = v.rater_kinds(data, judge_list(judges))
    data = v.responses(data, resp, continuous)
    scales: tuple[Scale, ...] = ()
    declared: tuple[float, float] | None
    if scale is not None and not isinstance(scale, str) and scale and isinstance(scale[0], Scale):
        scales = tuple(scale)
        declared = (min(s.low for s in scales), max(s.high for s in scales))
    else:
        declared = parse_scale(scale) if scale is not None else None  # type: ignore[arg-type]
    rank_base = None
    if resp == "score" and scales:
        bounds = v.check_scales(data, scales)
    elif resp == "score":
        bounds = v.check_scale(data, declared)
    else:
        rank_base = v.check_ranks(data, allow_ties)
        bounds = (float(data["rank"].min()), float(data["rank"].max()))
    data = v.optional_columns(data)
    v.check_duplicates(data)
    if resp == "score" and declared is None and not continuous:
        v.warn_stray_scores(data)
    v.warn_rare_systems(data)
    data = data.reset_index(drop=True)
    if len(data) < len(frame):  # rows with a missing response are gone, and maybe some ids with them
        data = _observed_ids(data)
    return Ratings(
        data=data,
        response=resp,
        scale=declared or bounds,
        scale_declared=declared is not None,
        rank_base=rank_base,
        ties_allowed=allow_ties,
        continuous=continuous,
        source=source,
        scales=scales,
    )


def _observed_ids(data: pd.DataFrame) -> pd.DataFrame:
    """``data`` with the categories of its categorical id columns cut to the ids present (a subset of
    rows keeps all its parent's categories; counts and models must not see absent ids)."""
    for col in CODED_COLUMNS:
        if col in data and isinstance(data[col].dtype, pd.CategoricalDtype):
            categories = data[col].cat.categories
            codes = data[col].cat.codes.to_numpy()
            used = np.bincount(codes[codes >= 0], minlength=len(categories)) > 0
            if not used.all():
                recode = np.append(np.cumsum(used) - 1, -1)
                values = pd.Categorical.from_codes(recode[codes], categories=categories[used])
                data[col] = pd.Series(values, index=data.index, name=col)
    return data


def _row_keys(data: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """One int64 per row, equal for rows equal in ``keys`` (missing equal to missing): the columns'
    codes (a categorical's own) in mixed radix, renumbered before the key could overflow."""
    combined, bound = np.zeros(len(data), dtype=np.int64), 1
    for key in keys:
        codes = codes_of(data[key])[0] + 1
        width = int(codes.max(initial=0)) + 1
        if bound * width >= 2**62:
            combined = pd.factorize(combined)[0].astype(np.int64)
            bound = int(combined.max(initial=0)) + 1
        combined, bound = combined * width + codes, bound * width
    return combined


def as_ratings(ratings: Ratings | pd.DataFrame, **kwargs: object) -> Ratings:
    """Accept either a :class:`Ratings` or a raw DataFrame (validated with ``kwargs``)."""
    if isinstance(ratings, Ratings):
        return ratings
    return load_ratings(ratings, **kwargs)  # type: ignore[arg-type]


def judge_list(judges: str | Sequence[str] | None) -> list[str]:
    """Judge names from ``"a,b"`` (as ``--mark-judges`` gives them) or a sequence; stripped, no blanks."""
    if judges is None:
        return []
    names = judges.split(",") if isinstance(judges, str) else [str(name) for name in judges]
    return [name.strip() for name in names if name.strip()]


def mark_judges(ratings: Ratings | pd.DataFrame, judges: str | Sequence[str]) -> Ratings:
    """Mark the annotators named in ``judges`` as automatic judges (``rater_kind = judge``).

    Parameters
    ----------
    ratings : Ratings or DataFrame
        A ratings table (a DataFrame is validated, its judges' repeated samples allowed).
    judges : str or sequence of str
        Annotator names, or one comma-separated string as ``--mark-judges`` gives it.

    Returns
    -------
    Ratings
        The same rows; the named annotators' rows are judge rows, the others keep their kind.

    Raises
    ------
    RatingsError
        A name that is not an annotator of the table.

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = mark_judges(wine_ratings(), "1,2")
    >>> table.judge_names, len(table.humans()), len(table.judges()), len(table.without_checks())
    (['1', '2'], 56, 16, 56)
    """
    if not isinstance(ratings, Ratings):
        return load_ratings(ratings, judges=judges)
    names = judge_list(judges)
    check_judge_names(names, ratings.data["annotator"], ratings.source)
    data = ratings.data.copy()
    kind = data["rater_kind"] if "rater_kind" in data else pd.Series("human", index=data.index)
    data["rater_kind"] = kind.where(~data["annotator"].isin(names), "judge")
    return ratings.with_data(data)


def check_judge_names(names: list[str], annotators: pd.Series, source: str | None) -> None:
    """Raise :class:`RatingsError` when a ``--mark-judges`` name is not among ``annotators``."""
    unknown = sorted(set(names) - set(annotators))
    if unknown:
        known = sorted(annotators.unique())
        shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        prefix = f"{source}: " if source else ""
        raise RatingsError(
            f"{prefix}--mark-judges names {unknown[0]!r}, which is not an annotator of the table "
            f"(annotators: {shown}); give the judges' annotator ids"
        )


class _Validator:
    """Holds the source label and row names so every message can name file and line.

    ``names`` holds one line number (``word="line"``) or index label (``word="row"``) per row
    by position; only the rows a message shows are formatted.
    """

    def __init__(self, frame: pd.DataFrame, source: str | None, names: np.ndarray, word: str):
        self.frame = frame
        self.prefix = f"{source}: " if source else ""
        self.names = names
        self.word = word

    def fail(self, message: str) -> RatingsError:
        return RatingsError(self.prefix + message)

    def where(self, index: pd.Index | np.ndarray, limit: int = 3) -> str:
        shown = [f"{self.word} {self.names[i]}" for i in list(index)[:limit]]
        more = len(index) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")

    def canonical_columns(self, renames: Mapping[str, str]) -> pd.DataFrame:
        absent = [name for name in renames if name not in self.frame.columns]
        if absent:
            found = ", ".join(map(str, self.frame.columns))
            raise self.fail(
                f"no column {absent[0]!r} to use as {renames[absent[0]]!r} (found: {found}); "
                f"map an existing column, e.g. --column {renames[absent[0]]}=NAME"
            )
        data = self.frame.rename(columns=dict(renames))
        if len(data) == 0:
            raise self.fail("the table has a header but no rows")
        mapping: dict[str, str] = {}
        for col in data.columns:
            key = str(col).strip().lower()
            target = key if key in ID_COLUMNS + RESPONSES + OPTIONAL_COLUMNS else ALIASES.get(key)
            if target and target not in mapping.values() and target not in data.columns.drop(col):
                mapping[col] = target
        data = data.rename(columns=mapping)
        found = ", ".join(map(str, self.frame.columns))
        design_columns = ({"design_id", "annotator_slot"}, {"design_id", "slots"})
        if "annotator" not in data and any(columns <= set(data.columns) for columns in design_columns):
            raise self.fail(
                "this is a study design, not ratings; collect the ratings first (humaneval collect "
                "prolific|mturk writes the ratings table), then validate or analyse that table"
            )
        for col in ID_COLUMNS:
            if col not in data:
                raise self.fail(
                    f"missing required column '{col}' (found: {found}); rename the column or map it "
                    f"with --column {col}=NAME"
                )
        return data

    def response_column(self, data: pd.DataFrame, response: Response | None) -> Response:
        present = [c for c in RESPONSES if c in data]
        if response is not None:
            if response not in RESPONSES:
                raise self.fail(f"response must be 'score' or 'rank', not {response!r}")
            if response not in data:
                raise self.fail(f"no '{response}' column (found: {', '.join(map(str, data.columns))})")
            return response
        if not present:
            raise self.fail(
                f"no score or rank column (found: {', '.join(map(str, data.columns))}); name the "
                "response column 'score' (higher = better) or 'rank' (lower = better)"
            )
        if len(present) == 2:
            raise self.fail("both 'score' and 'rank' columns are present; choose one with --response")
        return present[0]  # type: ignore[return-value]

    def ids(self, data: pd.DataFrame, recode: bool = True) -> pd.DataFrame:
        """Every row has its ids; they become :func:`~humaneval.io.tables.text_codes` (``recode``: they
        are not yet)."""
        for col in ID_COLUMNS:
            missing = data.index[data[col].isna()]
            if len(missing):
                raise self.fail(f"empty '{col}' at {self.where(missing)}; every row needs an id")
            if recode:
                data[col] = text_codes(data[col])
        if recode and "opponent" in data:
            data["opponent"] = text_codes(data["opponent"])
        return data

    def rater_kinds(self, data: pd.DataFrame, judges: list[str]) -> pd.DataFrame:
        """Normalise ``rater_kind`` (human or judge, any case; empty = human) and apply ``judges``."""
        if "rater_kind" not in data and not judges:
            return data
        if "rater_kind" in data:
            kind = data["rater_kind"].astype("string").str.strip().str.lower().fillna("human")
            bad = data.index[~kind.isin(RATER_KINDS)]
            if len(bad):
                raise self.fail(
                    f"column 'rater_kind' must be human or judge, found {data['rater_kind'][bad[0]]!r} "
                    f"at {self.where(bad)}"
                )
        else:
            kind = pd.Series("human", index=data.index, dtype="string")
        if judges:
            check_judge_names(judges, data["annotator"], None if not self.prefix else self.prefix[:-2])
            kind = kind.where(~data["annotator"].isin(judges), "judge")
        data["rater_kind"] = kind.astype(object)
        return data

    def responses(self, data: pd.DataFrame, resp: Response, continuous: bool) -> pd.DataFrame:
        raw = data[resp]
        numeric = per_distinct(raw, lambda values: pd.to_numeric(values, errors="coerce").astype(float))
        bad = data.index[numeric.isna() & raw.notna()]
        if len(bad):
            raise self.fail(
                f"column '{resp}' has non-numeric value {raw[bad[0]]!r} at {self.where(bad)}; "
                "use numbers, and leave the cell empty for a missing rating"
            )
        if np.isinf(numeric).any():
            bad = data.index[np.isinf(numeric)]
            raise self.fail(f"column '{resp}' is infinite at {self.where(bad)}")
        missing = numeric.isna()
        if missing.any():
            warnings.warn(
                f"{self.prefix}dropped {int(missing.sum())} rows with a missing {resp}",
                DataWarning,
                stacklevel=caller_stacklevel(),
            )
        keep = ~missing
        data = data[keep].copy()
        numeric = numeric[keep]
        if not len(data):
            raise self.fail(f"every '{resp}' is missing")
        huge = numeric.abs() > MAX_WHOLE
        if (lower_is_better(resp) or not continuous) and huge.any():
            bad = data.index[huge]
            raise self.fail(
                f"{resp} {raw[bad[0]]} at {self.where(bad)} is too large to be a rating; fix the value"
            )
        fractional = numeric != np.round(numeric)
        # a pairwise table (``opponent`` column) stores a tie as 0.5 for each side
        ties = resp == "score" and "opponent" in data and bool(numeric.isin([0, 0.5, 1]).all())
        if (lower_is_better(resp) or not (continuous or ties)) and fractional.any():
            bad = data.index[fractional]
            hint = (
                "ranks must be whole numbers"
                if lower_is_better(resp)
                else ("scale ratings must be whole numbers; pass --continuous for slider or metric scores")
            )
            raise self.fail(f"non-integer {resp} {numeric[bad[0]]} at {self.where(bad)}; {hint}")
        whole = not fractional.any() and not huge.any()
        data[resp] = numeric.astype("int64") if whole else numeric.astype(float)
        return data

    def check_scale(
        self, data: pd.DataFrame, declared: tuple[float, float] | None, what: str = ""
    ) -> tuple[float, float]:
        scores = data["score"]
        if declared is None:  # inferred from the humans: a judge's range does not widen their scale
            human = scores[~self._judges(data)] if not self._judges(data).all() else scores
            return float(human.min()), float(human.max())
        outside = data.index[(scores < declared[0]) | (scores > declared[1])]
        if len(outside):
            low, high = (f"{b:g}" for b in declared)
            raise self.fail(
                f"score {scores[outside[0]]} at {self.where(outside)} is outside the declared scale "
                f"{low}-{high}{what}; fix the value or declare the right scale"
            )
        return declared

    def check_scales(self, data: pd.DataFrame, scales: tuple[Scale, ...]) -> tuple[float, float]:
        """Each criterion's scores within its own declared scale (a single unnamed scale covers all)."""
        if len(scales) == 1 and (scales[0].criterion is None or "criterion" not in data):
            return self.check_scale(data, scales[0].bounds)
        if "criterion" not in data:
            names = ", ".join(str(s.criterion) for s in scales)
            raise self.fail(
                f"the declared scales are per criterion ({names}) but the table has no 'criterion' column"
            )
        by_name = {s.criterion: s for s in scales}
        criteria = data["criterion"].astype(str).str.strip()
        unknown = sorted(set(criteria) - set(by_name))
        if unknown:
            raise self.fail(
                f"criterion {unknown[0]!r} has no declared scale (declared: {', '.join(map(str, by_name))}); "
                "add it to the scale file or fix the criterion name"
            )
        for name, own in by_name.items():
            part = data[criteria == name]
            if len(part):
                self.check_scale(part, own.bounds, f" of criterion {name!r}")
        return min(s.low for s in scales), max(s.high for s in scales)

    def warn_stray_scores(self, data: pd.DataFrame) -> None:
        """Warn when an inferred scale rests on a stray value (a 99, 0 or -3 among 1-7 ratings).

        An end of the observed range is stray when it is rare (at most 1 % of at least 20 ratings,
        or 2 ratings) and either lies more than one step from the other values and more than half
        their range away, or is a single rating next to a value used at least ten times.
        """
        judges = self._judges(data)
        if judges.any():
            data = data[~judges]
        scores = data["score"]
        counts = scores.value_counts().sort_index()
        if len(scores) < 20 or len(counts) < 3:
            return
        rare = max(2, len(scores) // 100)
        for value, neighbour in ((counts.index[0], counts.index[1]), (counts.index[-1], counts.index[-2])):
            others = counts.drop(value)
            gap = abs(value - neighbour)
            far = gap > 1 and gap > (others.index[-1] - others.index[0]) / 2
            lone = counts[value] == 1 and counts[neighbour] >= 10
            if counts[value] <= rare and (far or lone):
                rows = data.index[scores == value]
                low, high = (f"{b:g}" for b in (others.index[0], others.index[-1]))
                warnings.warn(
                    f"{self.prefix}score {value:g} at {self.where(rows)} lies outside the range "
                    f"{low}-{high} of the other {len(scores) - len(rows)} scores and widens the "
                    f"inferred scale; fix the value, or declare the scale with --scale {low}-{high}",
                    DataWarning,
                    stacklevel=caller_stacklevel(),
                )

    def warn_rare_systems(self, data: pd.DataFrame) -> None:
        """Warn about a system with a handful of ratings next to systems with many (a corrupted
        id that would get its own fixed effect)."""
        left_out = self._checks(data) | self._judges(data)
        counts = (data.loc[~left_out, "system"] if left_out.any() else data["system"]).value_counts()
        counts = counts[counts > 0]  # a categorical counts the systems of the left-out rows as 0
        if len(counts) < 3:
            return
        for system, n in counts.items():
            typical = counts.drop(system).median()
            if n <= 5 and n * 10 <= typical:
                rows = data.index[data["system"] == system]
                warnings.warn(
                    f"{self.prefix}system {system!r} has only {n} rating(s) (at {self.where(rows)}) "
                    f"where the other systems have about {typical:g}; check the system column for a "
                    "typo, or remove the rows",
                    DataWarning,
                    stacklevel=caller_stacklevel(),
                )

    @staticmethod
    def _judges(data: pd.DataFrame) -> pd.Series:
        if "rater_kind" in data:
            return data["rater_kind"] == "judge"
        return pd.Series(False, index=data.index)

    @staticmethod
    def _checks(data: pd.DataFrame) -> pd.Series:
        if "is_check" in data:
            return data["is_check"].astype(bool)
        return pd.Series(False, index=data.index)

    def check_ranks(self, data: pd.DataFrame, allow_ties: bool) -> int:
        ranks = data["rank"]
        base = int(ranks.min())
        if base not in (0, 1):
            raise self.fail(f"the smallest rank is {base}; ranks must start at 0 or 1 (best)")
        keys = ["annotator", "document"] + (["criterion"] if "criterion" in data else [])
        groups = data.groupby(keys, sort=False, observed=True)["rank"]
        size = groups.transform("size")
        judge = self._judges(data)
        if judge.any():  # a judge's repeated samples of one ranking count once
            samples = (
                data.assign(_n=1)
                .groupby([*keys, "system"], sort=False, observed=True)["_n"]
                .transform("size")
            )
            size = size.where(~judge, size // samples)
        out_of_range = data.index[(ranks > base + size - 1)]
        if allow_ties:
            if len(out_of_range):
                raise self.fail(
                    f"rank {ranks[out_of_range[0]]} at {self.where(out_of_range)} is larger than the "
                    f"number of summaries ranked by that annotator for that document"
                )
            return base
        # a judge's repeated samples of one ranking repeat its ranks: checked as a range only
        dup = data.duplicated([*keys, "rank"], keep=False) & ~judge
        bad = data.index[dup | (ranks > base + size - 1)]
        if len(bad):
            first = data.loc[bad[0]]
            raise self.fail(
                f"the ranks of annotator {first['annotator']} for document {first['document']} are not "
                f"a permutation of {base}..{base + int(size[bad[0]]) - 1} (see {self.where(bad)}); "
                "fix them or pass --allow-ties"
            )
        return base

    def optional_columns(self, data: pd.DataFrame) -> pd.DataFrame:
        if "criterion" in data:
            missing = data.index[data["criterion"].isna()]
            if len(missing):
                raise self.fail(f"empty 'criterion' at {self.where(missing)}")
            data["criterion"] = data["criterion"].astype(str).str.strip()
        if "position" in data:
            pos = pd.to_numeric(data["position"], errors="coerce")
            bad = data.index[(pos.isna() & data["position"].notna()) | (pos < 0) | (pos != pos.round())]
            if len(bad):
                raise self.fail(
                    f"column 'position' must hold whole numbers >= 0, found {data['position'][bad[0]]!r} "
                    f"at {self.where(bad)}"
                )
            data["position"] = pos.astype("Int64")
        if "seconds" in data:
            sec = pd.to_numeric(data["seconds"], errors="coerce")
            bad = data.index[(sec.isna() & data["seconds"].notna()) | (sec < 0)]
            if len(bad):
                raise self.fail(
                    f"column 'seconds' must hold non-negative numbers, found "
                    f"{data['seconds'][bad[0]]!r} at {self.where(bad)}"
                )
            data["seconds"] = sec.astype(float)
        if "is_check" in data:
            data["is_check"] = self._booleans(data["is_check"]).fillna(False).astype(bool)
        if "check_passed" in data:
            data["check_passed"] = self._booleans(data["check_passed"])
        return data

    def _booleans(self, column: pd.Series) -> pd.Series:
        """Parse true/false words (or 1/0, yes/no); empty cells stay missing."""
        if column.dtype == bool:
            return column.astype("boolean")
        text = column.astype("string").str.strip().str.lower()
        bad = column.index[text.notna() & ~text.isin(_TRUE | _FALSE)]
        if len(bad):
            raise self.fail(
                f"column '{column.name}' must be true/false, found {column[bad[0]]!r} at {self.where(bad)}"
            )
        return text.map(lambda word: word in _TRUE, na_action="ignore").astype("boolean")

    def check_duplicates(self, data: pd.DataFrame) -> None:
        keys = list(ID_COLUMNS) + [c for c in (*COMPARATIVE_KEYS, "criterion") if c in data]
        # several samples of one judge on one summary are not duplicates: judge analyses average them
        dup = pd.Series(_row_keys(data, keys), index=data.index).duplicated(keep=False) & ~self._judges(data)
        if dup.any():
            first = data[dup].iloc[0]
            ident = ", ".join(f"{k}={first[k]}" for k in keys)
            raise self.fail(
                f"duplicate rating for ({ident}) at {self.where(data.index[dup])}; each annotator "
                "may rate each summary once per criterion — remove or merge the duplicates"
            )


def select_criterion(ratings: Ratings | pd.DataFrame, criterion: str | None = None) -> Ratings:
    """The ratings of one criterion, attention checks excluded (every analysis runs per criterion).

    Parameters
    ----------
    ratings : Ratings or DataFrame
        A ratings table.
    criterion : str, optional
        The criterion; may be omitted when the table has one (or no criterion column).

    Returns
    -------
    Ratings
        The criterion's rows without attention checks.

    Raises
    ------
    RatingsError
        Several criteria and none chosen, or an unknown criterion.

    Examples
    --------
    >>> import pandas as pd
    >>> from humaneval.io.datasets import wine_ratings
    >>> table = wine_ratings()
    >>> two = pd.concat([table.assign(criterion="bitterness"),
    ...                  table.assign(criterion="sweetness", score=6 - table["score"])])
    >>> len(select_criterion(two, "sweetness").data)
    72
    >>> select_criterion(two)
    Traceback (most recent call last):
    ...
    humaneval.errors.RatingsError: the table has 2 criteria (bitterness, sweetness); ...
    """
    table = as_ratings(ratings).without_checks()
    if "criterion" not in table.data:
        if criterion is not None:
            raise RatingsError(f"criterion {criterion!r} given but the table has no criterion column")
        return table
    criteria = table.criteria
    if criterion is None:
        if len(criteria) == 1:
            return table
        raise RatingsError(
            f"the table has {len(criteria)} criteria ({', '.join(map(str, criteria))}); "
            "analyse one at a time, e.g. --criterion coherence"
        )
    if criterion not in criteria:
        choices = ", ".join(map(str, criteria))
        raise RatingsError(f"criterion {criterion!r} is not in the table; choose one of {choices}")
    return table.with_data(table.data[table.data["criterion"] == criterion])
