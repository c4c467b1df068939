"""Annotator working time: per-annotator totals for the time-versus-reliability curve.

See docs/reliability.md. Timing files such as ``steen2021/times/*.csv`` have the header
``annotator,position,time_stamp`` (seconds on one screen) and no document or system column, so
they cannot be joined to judgements; only per-annotator sums are meaningful. A ratings table
with a ``seconds`` column gives the same totals.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humaneval.core.ratings import ALIASES, Ratings
from humaneval.errors import RatingsError
from humaneval.io.tables import read_table_lines

_TIME_COLUMNS = ("seconds", "time_stamp", "time")


def load_annotator_times(source: str | Path | pd.DataFrame) -> pd.Series:
    """Total seconds per annotator (index: annotator id as a stripped string) from a timing table.

    The table needs an annotator column (or an alias such as ``worker``) and one of
    ``seconds``, ``time_stamp`` or ``time``; any other columns (``position``) are ignored.
    """
    if isinstance(source, pd.DataFrame):
        frame, lines = source, None
    else:
        frame, lines = read_table_lines(source, what="timing table")
    label = "" if isinstance(source, pd.DataFrame) else f"{source}: "
    lower = {str(c).strip().lower(): c for c in frame.columns}
    annotator = next((lower[k] for k in lower if k == "annotator" or ALIASES.get(k) == "annotator"), None)
    seconds = next((lower[k] for k in _TIME_COLUMNS if k in lower), None)
    if annotator is None or seconds is None:
        raise RatingsError(
            f"{label}a timing table needs columns 'annotator' and 'time_stamp' (or 'seconds'); found "
            f"{', '.join(map(str, frame.columns))}"
        )
    values = pd.to_numeric(frame[seconds], errors="coerce")
    bad = values.isna() | (values < 0)
    if bad.any():
        first = int(bad.to_numpy().nonzero()[0][0])
        where = f"line {lines[first]}" if lines is not None else f"row {frame.index[first]}"
        raise RatingsError(
            f"{label}{where}, column '{seconds}': {str(frame[seconds].iloc[first])!r} is not a non-negative "
            "number of seconds; fix or remove that row"
        )
    ids = frame[annotator].astype(str).str.strip()
    return values.groupby(ids.to_numpy()).sum().rename("seconds").rename_axis("annotator")


def ratings_annotator_times(ratings: Ratings) -> pd.Series:
    """Total seconds per annotator from a ratings table's ``seconds`` column.

    A screen's time is counted once: with several criteria (or several summaries) per screen,
    every row of the screen repeats it, so rows are reduced to one per ``(annotator, position)``
    when the table has a ``position`` column. Judges' rows (``rater_kind = judge``) spend no screen
    time and rows without a time are left out: an annotator's total is over the screens timed.
    """
    if "seconds" not in ratings.data:
        raise RatingsError(
            "the ratings table has no 'seconds' column; pass per-annotator times (load_annotator_times)"
        )
    data = ratings.data
    if "rater_kind" in data:
        data = data[data["rater_kind"] != "judge"]
    data = data[data["seconds"].notna()]
    if data.empty:
        raise RatingsError("no human row of the ratings table has a time in its 'seconds' column")
    if "position" in data and data["position"].notna().all():
        data = data.drop_duplicates(["annotator", "position"])
    return load_annotator_times(data[["annotator", "seconds"]])
