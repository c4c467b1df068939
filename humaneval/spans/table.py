"""The span table: one row per marked error span, validated like the ratings table.

Columns ``annotator, document, system, start, end, severity, category`` and optionally
``criterion``, ``seconds``, ``score`` (the 0–100 score of Error Span Annotation) and ``length``
(the item's length in characters, when no texts file is given). ``start``/``end`` are character
offsets into the item's text, ``end`` exclusive. An item an annotator saw and marked nothing in
has one row with empty ``start``, ``end``, ``severity`` and ``category``. See docs/spans.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd

from humaneval.errors import RatingsError
from humaneval.io.tables import read_table_lines

ID_COLUMNS = ("annotator", "document", "system")
SPAN_COLUMNS = ("start", "end", "severity", "category")
OPTIONAL_COLUMNS = ("criterion", "seconds", "score", "length")
ITEM = ["document", "system"]

MAX_LENGTH = 10_000_000
"""Longest item (characters) accepted: the agreement statistics walk every item's continuum."""


def is_span_table(columns: pd.Index | list[str]) -> bool:
    """Whether a table's header is that of a span table (``start``, ``end`` and ``category``).

    Examples
    --------
    >>> is_span_table(["annotator", "document", "system", "start", "end", "severity", "category"])
    True
    >>> is_span_table(["annotator", "document", "system", "score"])
    False
    """
    names = {str(c).strip().lower() for c in columns}
    return {"start", "end", "category"} <= names


@dataclass(frozen=True)
class SpanTable:
    """A validated span table.

    Attributes
    ----------
    data : DataFrame
        One row per span (``start``/``end`` as integers) and one row per item marked error-free
        (``start``, ``end``, ``severity``, ``category`` missing); the ids are strings.
    lengths : Series
        Length in characters of every item, indexed by ``(document, system)``.
    source : str or None
        The file it was read from, for messages.
    scoring : str or None
        The scoring rule of its item scores (``mqm``, ``esa``; :data:`~humaneval.spans.scoring.
        SCORING_RULES`); None: ``esa`` when the table has scores, else ``mqm``.
    """

    data: pd.DataFrame
    lengths: pd.Series
    source: str | None = None
    scoring: str | None = None

    #: The annotation method of the table (:data:`humaneval.methods.METHODS`), which names its analysis.
    method: ClassVar[str] = "spans"

    @property
    def criteria(self) -> list[str | None]:
        """The criteria of the table (``[None]`` without a ``criterion`` column), as ratings tables list
        them."""
        if "criterion" not in self.data:
            return [None]
        return sorted(self.data["criterion"].unique())

    def for_criterion(self, criterion: str | None) -> SpanTable:
        """The rows of one criterion; the whole table when it has none and ``criterion`` is None.

        Raises
        ------
        RatingsError
            For an unknown criterion, or none given when the table has several.
        """
        names = self.criteria
        if criterion is None and len(names) == 1:
            return self
        if criterion is None or criterion not in names:
            what = "has several criteria" if criterion is None else f"has no criterion {criterion!r}"
            raise RatingsError(
                f"{self.source or 'the span table'} {what} ({', '.join(map(str, names))}); "
                "name one (--criterion NAME)"
            )
        return replace(self, data=self.data[self.data["criterion"] == criterion].reset_index(drop=True))

    @property
    def spans(self) -> pd.DataFrame:
        """The marked spans (rows of error-free items left out)."""
        return self.data[self.data["start"].notna()]

    @property
    def annotators(self) -> list[str]:
        return sorted(self.data["annotator"].unique())

    @property
    def systems(self) -> list[str]:
        return sorted(self.data["system"].unique())

    @property
    def categories(self) -> list[str]:
        return sorted(self.spans["category"].dropna().unique())

    @property
    def items(self) -> pd.DataFrame:
        """Every ``(document, system)`` annotated, with the annotators who saw it, sorted as strings."""
        seen = self.data[["document", "system", "annotator"]].drop_duplicates()
        return seen.sort_values(["document", "system", "annotator"]).reset_index(drop=True)

    def write(self, path: str | Path) -> Path:
        """Write the table as CSV (``.jsonl``: JSON lines), the layout :func:`load_spans` reads."""
        path = Path(path)
        frame = self.data.copy()
        if "length" not in frame:
            frame["length"] = [
                self.lengths[(d, s)] for d, s in zip(frame["document"], frame["system"], strict=True)
            ]
        for col in ("start", "end"):
            frame[col] = frame[col].astype("Int64")
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            frame.to_json(path, orient="records", lines=True)
        else:
            frame.to_csv(path, index=False)
        return path


def read_texts(path: str | Path) -> pd.DataFrame:
    """A texts file (``document, system, text``): the annotated texts the offsets point into.

    Returns
    -------
    DataFrame
        ``document, system, text`` with string ids, one row per item.
    """
    frame, lines = read_table_lines(path, what="texts")
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    missing = [c for c in ("document", "system", "text") if c not in frame.columns]
    if missing:
        raise RatingsError(
            f"{path}: no column {missing[0]!r}; a texts file has the columns document, system, text"
        )
    frame = frame[["document", "system", "text"]].copy()
    for col in ITEM:
        frame[col] = _ids(frame[col])
    frame["text"] = _unstripped_texts(Path(path), frame)
    dup = frame.duplicated(ITEM, keep="first").to_numpy()
    if dup.any():
        i = int(np.flatnonzero(dup)[0])
        raise RatingsError(
            f"{path}: line {lines[i]}: item ({frame['document'].iat[i]}, {frame['system'].iat[i]}) "
            "appears twice; keep one text per document and system"
        )
    return frame.reset_index(drop=True)


def load_spans(
    source: str | Path | pd.DataFrame,
    *,
    texts: str | Path | pd.DataFrame | None = None,
    allow_overlap: bool = False,
    scoring: str | None = None,
) -> SpanTable:
    """Load and validate a span table (CSV, TSV, JSON lines or a DataFrame).

    Parameters
    ----------
    source : str, Path or DataFrame
        The span table.
    texts : str, Path or DataFrame, optional
        The texts (``document, system, text``) giving every item's length; without it the table
        needs a ``length`` column.
    allow_overlap : bool
        Accept overlapping spans of one annotator and category in one item (the unitizing α
        forbids them, so leave this off for agreement statistics).
    scoring : str, optional
        The scoring rule of the item scores (``mqm``, ``esa``); default ``esa`` when the table
        has scores, else ``mqm``.

    Returns
    -------
    SpanTable

    Raises
    ------
    RatingsError
        For the first kind of bad row: one line naming the file, the line (row) and the fix.

    Examples
    --------
    >>> frame = pd.DataFrame({"annotator": ["a", "b"], "document": "d1", "system": "s1",
    ...     "start": [0, None], "end": [4, None], "severity": ["minor", None],
    ...     "category": ["fluency", None], "length": 10})
    >>> table = load_spans(frame)
    >>> len(table.spans), int(table.lengths[("d1", "s1")])
    (1, 10)
    """
    if isinstance(source, pd.DataFrame):
        frame, lines, name, word = source.copy(), np.arange(1, len(source) + 1), None, "row"
    else:
        frame, lines = read_table_lines(source, what="span table")
        name, word = str(source), "line"
    check = _Checker(name, lines, word)
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    missing = [c for c in ID_COLUMNS + SPAN_COLUMNS if c not in frame.columns]
    if missing:
        raise check.fail(
            f"no column {missing[0]!r}; a span table has the columns "
            f"{', '.join(ID_COLUMNS + SPAN_COLUMNS)} (docs/spans.md)"
        )
    if len(frame) == 0:
        raise check.fail("the table has a header but no rows")
    keep = [c for c in ID_COLUMNS + SPAN_COLUMNS + OPTIONAL_COLUMNS if c in frame.columns]
    data = frame[keep].reset_index(drop=True)
    for col in ID_COLUMNS + (("criterion",) if "criterion" in data else ()):
        if data[col].isna().any():
            raise check.fail(f"{check.where(data[col].isna())}: empty {col}; every row names its {col}")
        data[col] = _ids(data[col])
    for col in ("severity", "category"):
        data[col] = data[col].map(lambda v: None if pd.isna(v) or str(v).strip() == "" else str(v).strip())
    data["start"] = check.integers(data["start"], "start")
    data["end"] = check.integers(data["end"], "end")
    bounds = {
        "seconds": (0, np.inf, "is negative; seconds count the time spent"),
        "score": (0, 100, "lies outside 0–100; the score column holds the annotators' ESA scores"),
    }
    for col, (low, high, fix) in bounds.items():
        if col in data:
            data[col] = check.numbers(data[col], col)
            out = (data[col] < low) | (data[col] > high)
            if out.any():  # an ESA score of 200 or a negative time would be analysed as given
                raise check.fail(f"{check.where(out)}: {col} {data[col][out].iat[0]:g} {fix}")
    marked = data["start"].notna() | data["end"].notna() | data["severity"].notna() | data["category"].notna()
    partial = marked & (data["start"].isna() | data["end"].isna() | data["category"].isna())
    if partial.any():
        raise check.fail(
            f"{check.where(partial)}: a span needs start, end and category; fill them in, or leave "
            "start, end, severity and category all empty for an item marked without errors"
        )
    bad = marked & (data["start"] < 0)
    if bad.any():
        raise check.fail(f"{check.where(bad)}: negative start; offsets count characters from 0")
    bad = marked & (data["end"] <= data["start"])
    if bad.any():
        raise check.fail(
            f"{check.where(bad)}: end is not after start; end is exclusive, so a span of one "
            "character at offset i has start i and end i+1"
        )
    lengths = _lengths(data, texts, check)
    item_length = lengths.reindex(pd.MultiIndex.from_frame(data[ITEM])).to_numpy()
    over = marked & (data["end"].astype(float).fillna(0).to_numpy() > item_length)
    if over.any():
        i = int(np.flatnonzero(over.to_numpy())[0])
        raise check.fail(
            f"{check.where(over)}: end {int(data['end'].iat[i])} is past the end of the text of "
            f"({data['document'].iat[i]}, {data['system'].iat[i]}), {lengths[tuple(data.loc[i, ITEM])]} "
            "characters; offsets count characters of the text, end exclusive"
        )
    empty = ~marked
    view = [*ITEM, "annotator", *(["criterion"] if "criterion" in data else [])]
    both = empty & data.assign(_m=marked).groupby(view)["_m"].transform("any")
    if both.any():
        raise check.fail(
            f"{check.where(both)}: an empty row (no errors) for an item the annotator also marked spans "
            "in; delete the empty row"
        )
    if not allow_overlap:
        _check_overlaps(data[marked], check)
    return SpanTable(data.drop(columns=["length"], errors="ignore"), lengths, name, scoring)


def _unstripped_texts(path: Path, frame: pd.DataFrame) -> pd.Series:
    """The ``text`` cells as written: the table reader strips cells, but offsets count a text's leading and
    trailing spaces too."""
    if path.suffix.lower() in {".jsonl", ".ndjson", ".json"}:
        return frame["text"].fillna("").astype(str)
    raw = pd.read_csv(
        path,
        sep="\t" if path.suffix.lower() == ".tsv" else ",",
        dtype=str,
        keep_default_na=False,
        encoding="utf-8-sig",
    )
    column = [c for c in raw.columns if str(c).strip().lower() == "text"]
    if len(column) != 1 or len(raw) != len(frame):  # another delimiter the reader sniffed: keep its cells
        return frame["text"].fillna("").astype(str)
    return pd.Series(raw[column[0]].to_numpy(), index=frame.index)


def _ids(column: pd.Series) -> pd.Series:
    return column.map(lambda v: str(int(v)) if isinstance(v, float) and v.is_integer() else str(v).strip())


def _lengths(data: pd.DataFrame, texts, check: _Checker) -> pd.Series:
    items = pd.MultiIndex.from_frame(data[ITEM].drop_duplicates())
    if texts is not None:
        frame = texts if isinstance(texts, pd.DataFrame) else read_texts(texts)
        known = pd.Series(
            frame["text"].astype(str).str.len().to_numpy(),
            index=pd.MultiIndex.from_frame(frame[ITEM].astype(str)),
        )
        absent = ~items.isin(known.index)
        if absent.any():
            d, s = items[absent][0]
            raise check.fail(
                f"item ({d}, {s}) has no text in {texts if isinstance(texts, (str, Path)) else 'the texts'}; "
                "add a row document, system, text for it"
            )
        return known.reindex(items).astype(int)
    if "length" not in data:
        raise check.fail(
            "no item lengths: give the texts (--texts TEXTS.csv with document, system, text) or a "
            "length column"
        )
    length = check.integers(data["length"], "length")
    if length.isna().any():
        raise check.fail(f"{check.where(length.isna())}: empty length; give every row its item's length")
    if (length <= 0).any() or (length > MAX_LENGTH).any():
        bad = (length <= 0) | (length > MAX_LENGTH)
        raise check.fail(f"{check.where(bad)}: length must lie between 1 and {MAX_LENGTH:,} characters")
    per_item = pd.Series(length.to_numpy(), index=pd.MultiIndex.from_frame(data[ITEM]))
    varies = per_item.groupby(level=[0, 1]).nunique() > 1
    if varies.any():
        d, s = varies[varies].index[0]
        raise check.fail(f"item ({d}, {s}) has different lengths in different rows; give it one length")
    return per_item.groupby(level=[0, 1]).first().reindex(items).astype(int)


def _check_overlaps(spans: pd.DataFrame, check: _Checker) -> None:
    group = [*ITEM, "annotator", *(["criterion"] if "criterion" in spans else []), "category"]
    ordered = spans.sort_values([*group, "start", "end"])
    same = ordered[group].eq(ordered[group].shift())
    # a span overlapping any earlier one of its group overlaps the latest-ending earlier one
    running_end = ordered.groupby(group)["end"].cummax().shift()
    overlap = same.all(axis=1) & (ordered["start"] < running_end.fillna(-1))
    if overlap.any():
        first = ordered.index[overlap.to_numpy()]
        i = first[0]
        raise check.fail(
            f"{check.where(np.asarray(first))}: span {int(spans.at[i, 'start'])}-{int(spans.at[i, 'end'])} "
            f"of {spans.at[i, 'annotator']} overlaps another {spans.at[i, 'category']!r} span of theirs in "
            f"({spans.at[i, 'document']}, {spans.at[i, 'system']}); merge the two into one span, or "
            "give one another category"
        )


class _Checker:
    """Names the file and the line (or row) of every message."""

    def __init__(self, source: str | None, lines: np.ndarray, word: str):
        self.prefix = f"{source}: " if source else ""
        self.lines = lines
        self.word = word

    def fail(self, message: str) -> RatingsError:
        return RatingsError(self.prefix + message)

    def where(self, mask: pd.Series | np.ndarray, limit: int = 3) -> str:
        index = np.flatnonzero(np.asarray(mask)) if np.asarray(mask).dtype == bool else np.asarray(mask)
        shown = [f"{self.word} {self.lines[i]}" for i in index[:limit]]
        more = len(index) - len(shown)
        return ", ".join(shown) + (f" and {more} more" if more > 0 else "")

    def numbers(self, column: pd.Series, name: str) -> pd.Series:
        values = pd.to_numeric(column, errors="coerce")
        bad = values.isna() & column.notna() & (column.astype(str).str.strip() != "")
        if bad.any():
            raise self.fail(f"{self.where(bad)}: {name} is not a number; write it as digits, e.g. 12")
        if not np.isfinite(values.dropna().to_numpy(dtype=float)).all():
            raise self.fail(f"{self.where(~np.isfinite(values.fillna(0)))}: {name} must be finite")
        return values.astype(float)

    def integers(self, column: pd.Series, name: str) -> pd.Series:
        values = self.numbers(column, name)
        bad = values.notna() & (values != values.round())
        if bad.any():
            raise self.fail(f"{self.where(bad)}: {name} must be a whole number of characters")
        if (values.abs() > MAX_LENGTH).any():
            raise self.fail(f"{self.where(values.abs() > MAX_LENGTH)}: {name} beyond {MAX_LENGTH:,}")
        return values.astype("Int64")


def is_span_file(path: str) -> bool:
    """Whether the file's header (first line) is that of a span table; unreadable files are not."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            first = handle.readline()
    except OSError:
        return False
    if Path(path).suffix.lower() in (".jsonl", ".ndjson", ".json"):
        try:
            row = json.loads(first)
        except ValueError:
            return False
        return isinstance(row, dict) and is_span_table(list(row))
    delimiter = max(("\t", ";", ","), key=first.count)
    return is_span_table([c.strip().strip('"') for c in first.split(delimiter)])
