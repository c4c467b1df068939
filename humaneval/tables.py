"""Reading and writing tabular input files (CSV, TSV, JSONL) with one-line error messages.

Every stage that reads a user's file goes through :func:`read_table`, so that an empty file, a
missing file, broken encoding, a malformed JSON line or a wrongly guessed delimiter always gets
the same kind of message: file, line, what is wrong, how to fix it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.errors import RatingsError

_DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon", "|": "pipe"}


def read_table(path: str | Path, *, what: str = "table") -> pd.DataFrame:
    """Read a CSV, TSV or JSONL file into a DataFrame of strings and numbers.

    The format follows the extension (``.jsonl``/``.ndjson``/``.json`` as JSON lines, ``.tsv`` as
    tab-separated, anything else as delimited text whose delimiter is sniffed). Text cells are
    stripped strings, empty cells ``NA``. Raises :class:`RatingsError` with a one-line message for
    every kind of unreadable input. :func:`read_table_lines` also returns the source line of
    every row, for error messages.
    """
    return read_table_lines(path, what=what)[0]


def read_table_lines(path: str | Path, *, what: str = "table") -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`read_table` plus the 1-based source line of every row (an int64 array).

    The line numbers travel beside the frame, not in ``DataFrame.attrs``: pandas deep-copies
    ``attrs`` into every derived frame, which made a Python list of one int per row the largest
    cost of loading a large table.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise RatingsError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise RatingsError(f"{path}: is a directory, not a {what} file") from None
    except OSError as exc:
        raise RatingsError(f"{path}: cannot read file ({exc.strerror}); check its permissions") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RatingsError(f"{path}: byte {exc.start} is not valid UTF-8; save the file as UTF-8") from None
    if not text.strip():
        raise RatingsError(f"{path}: the file is empty; expected a {what} with a header row")
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson", ".json"}:
        return _read_jsonl(text, path)
    return _read_delimited(text, path, "\t" if suffix == ".tsv" else None)


def _read_jsonl(text: str, path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    records, lines = [], []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RatingsError(
                f"{path}, line {lineno}: not valid JSON ({exc.msg}); write one JSON object per line"
            ) from None
        if not isinstance(record, dict):
            raise RatingsError(
                f"{path}, line {lineno}: expected a JSON object like "
                '{"annotator": ..., "document": ..., ...}, found ' + type(record).__name__
            )
        records.append(record)
        lines.append(lineno)
    return pd.DataFrame.from_records(records), np.array(lines, dtype=np.int64)


def _sniff(text: str) -> str:
    sample = "\n".join(_head(text, 20))
    try:
        return csv.Sniffer().sniff(sample, delimiters="".join(_DELIMITERS)).delimiter
    except csv.Error:
        header = _head(text, 1)[0]
        counts = {d: header.count(d) for d in _DELIMITERS}
        best = max(counts, key=counts.__getitem__)
        return best if counts[best] else ","


def _read_delimited(text: str, path: Path, delimiter: str | None) -> tuple[pd.DataFrame, np.ndarray]:
    delimiter = delimiter or _sniff(text)
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep=delimiter, dtype=str, keep_default_na=False, skipinitialspace=True
        )
    except pd.errors.ParserError as exc:
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        detail = (
            f"line {found[2]} has {found[3]} fields but the header has {found[1]}"
            if found
            else " ".join(str(exc).split())
        )
        raise RatingsError(
            f"{path}: cannot parse as {_DELIMITERS[delimiter]}-separated: {detail}; check the "
            "delimiter, and quote fields that contain it"
        ) from None
    header = _head(text, 1)[0]
    if frame.shape[1] == 1:
        others = [d for d in _DELIMITERS if d != delimiter and d in header]
        if others:
            raise RatingsError(
                f"{path}: the header has a single column {header!r} when read as "
                f"{_DELIMITERS[delimiter]}-separated but contains {_DELIMITERS[others[0]]}s; "
                f"save it as a comma-separated .csv or a tab-separated .tsv"
            )
    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.apply(lambda col: per_distinct(col, lambda values: values.str.strip())).replace("", pd.NA)
    return frame, np.asarray(_data_lines(text, len(frame)), dtype=np.int64)


def per_distinct(column: pd.Series, func) -> pd.Series:
    """``func(column)`` for an element-wise ``func``, computed once per distinct value: ids and scores
    repeat thousands of times in a ratings file, and pandas' string methods cost a Python call per
    element. Missing cells stay missing; the result keeps ``column``'s index (and, when ``func``
    keeps it, its dtype).

    Examples
    --------
    >>> per_distinct(pd.Series([" a", "b ", " a", None]), lambda v: v.str.strip()).tolist()
    ['a', 'b', 'a', nan]
    """
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    if len(uniques) * 2 > len(column):  # mostly distinct: nothing to share
        return func(column)
    done = func(pd.Series(uniques, dtype=column.dtype))
    values = done.to_numpy()
    if (codes < 0).any():
        values = np.append(values, done.iloc[:0].reindex([0]).to_numpy())  # the result dtype's NA
    return pd.Series(values[codes], index=column.index, dtype=done.dtype, name=column.name)


def _data_lines(text: str, n_rows: int) -> list[int] | range:
    """The file line of every data row: pandas skips blank lines, so row k is not always line k + 2.
    (A quoted field spanning lines breaks the one-row-per-line count; rows are then numbered in order.)"""
    if not re.search(r"\n[ \t\r\f\v]*(\n|$)", text.rstrip()) and text.rstrip().count("\n") == n_rows:
        return range(2, n_rows + 2)  # no blank line: row k is on line k + 2 (checked without a loop)
    lines = [n for n, line in enumerate(text.splitlines(), start=1) if n > 1 and line.strip()]
    return lines if len(lines) == n_rows else list(range(2, n_rows + 2))


def _head(text: str, n: int) -> list[str]:
    """The first ``n`` lines of ``text`` (without splitting all of it)."""
    return text[: text.find("\n", 0) + 1 or None].splitlines() if n == 1 else text[:65536].splitlines()[:n]


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` as CSV, TSV or JSON lines, chosen by the extension of ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson", ".json"}:
        frame.to_json(path, orient="records", lines=True, force_ascii=False)
    else:
        frame.to_csv(path, index=False, sep="\t" if suffix == ".tsv" else ",")
    return path
