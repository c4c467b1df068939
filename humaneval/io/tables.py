"""Reading and writing tabular input files (CSV, TSV, JSONL) with one-line error messages.

Every stage that reads a user's file goes through :func:`read_table`, so that an empty file, a
missing file, broken encoding, a malformed JSON line or a wrongly guessed delimiter always gets
the same kind of message: file, line, what is wrong, how to fix it.
"""

from __future__ import annotations

import contextlib
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


def read_table_lines(
    path: str | Path, *, what: str = "table", coded: bool = False
) -> tuple[pd.DataFrame, np.ndarray]:
    """:func:`read_table` plus the 1-based source line of every row (an int64 array).

    The line numbers travel beside the frame, not in ``DataFrame.attrs``: pandas deep-copies
    ``attrs`` into every derived frame, which made a Python list of one int per row the largest
    cost of loading a large table. With ``coded``, every column of a delimited file comes back as
    :func:`text_codes` gives it (a categorical of its stripped cells), so that a reader of ids hashes
    their strings once; JSON lines and very wide files are returned as without it.
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
    text = decode_utf8(raw, path)
    if not text.strip():
        raise RatingsError(f"{path}: the file is empty; expected a {what} with a header row")
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".ndjson", ".json"}:
        return _read_jsonl(text, path)
    data = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw  # the text's bytes, without a BOM
    return _read_delimited(text, path, "\t" if suffix == ".tsv" else None, coded, data)


#: Signatures of files that are not text: (leading bytes, what the file is, how to fix it).
_NOT_TEXT = (
    (b"PK\x03\x04", "this is an Excel workbook", "export it as CSV UTF-8 (File → Save As → CSV UTF-8)"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "this is an Excel 97-2003 workbook",
        "export it as CSV UTF-8 (File → Save As → CSV UTF-8)",
    ),
    (b"%PDF", "this is a PDF document", "export the table as CSV UTF-8"),
    (b"SQLite format 3\x00", "this is an SQLite database", "export the table as CSV UTF-8"),
)
_SAVE_UTF8 = "save it as UTF-8 (in Excel: Save As → CSV UTF-8; or iconv -f {0} -t UTF-8)"


def file_kind(raw: bytes | str | Path) -> str | None:
    r"""What a file that is not UTF-8 text is, and how to fix it, from its first bytes (or its path);
    None if unknown.

    Examples
    --------
    >>> file_kind("a,b\n1,2\n".encode("utf-16"))
    'this file is UTF-16: save it as UTF-8 (in Excel: Save As → CSV UTF-8; or iconv -f UTF-16 -t UTF-8)'
    >>> file_kind(b"PK\x03\x04...[Content_Types].xml...xl/workbook.xml")
    'this is an Excel workbook: export it as CSV UTF-8 (File → Save As → CSV UTF-8)'
    >>> file_kind(b"a,b\n1,2\n") is None
    True
    """
    if not isinstance(raw, bytes):
        try:
            with open(raw, "rb") as handle:
                raw = handle.read(4096)
        except OSError:
            return None  # the reader says what is wrong
    for magic, what, fix in _NOT_TEXT:
        if raw.startswith(magic):
            if magic == b"PK\x03\x04" and b"xl/" not in raw[:4096] and b"[Content_Types]" not in raw[:4096]:
                return "this is a zip archive, not a table: unpack it, or export the table as CSV UTF-8"
            return f"{what}: {fix}"
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "this file is UTF-32: " + _SAVE_UTF8.format("UTF-32")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "this file is UTF-16: " + _SAVE_UTF8.format("UTF-16")
    head = raw[:4096]
    zeros_even, zeros_odd, half = head[0::2].count(0), head[1::2].count(0), len(head) // 2
    # UTF-16 without a byte-order mark: every other byte of ASCII text is NUL
    for order, zeros, others in (("LE", zeros_odd, zeros_even), ("BE", zeros_even, zeros_odd)):
        if half >= 2 and zeros >= 0.4 * half and others == 0:
            fix = _SAVE_UTF8.format("UTF-16" + order)
            return f"this file is UTF-16 ({order}, no byte-order mark): {fix}"
    return None


def decode_utf8(raw: bytes, path: str | Path) -> str:
    """``raw`` as UTF-8 text (a UTF-8 byte-order mark dropped), or a :class:`RatingsError` that says
    what the file is (an Excel workbook, UTF-16, …) or which byte is not UTF-8."""
    kind = file_kind(raw)
    if kind is not None:
        raise RatingsError(f"{path}: {kind}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise RatingsError(f"{path}: byte {exc.start} is not valid UTF-8; save the file as UTF-8") from None


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


def _read_delimited(
    text: str, path: Path, delimiter: str | None, coded: bool = False, data: bytes | None = None
) -> tuple[pd.DataFrame, np.ndarray]:
    delimiter = delimiter or _sniff(text)
    wide = text.count(delimiter, 0, text.find("\n") % (len(text) + 1)) >= WIDE_TABLE
    try:
        if wide:
            frame = _read_wide(text, delimiter)
        else:
            frame = pd.read_csv(  # from bytes: pandas' parser would encode a text buffer again
                io.BytesIO(text.encode() if data is None else data),
                sep=delimiter,
                dtype=object if coded else str,
                keep_default_na=False,
                skipinitialspace=True,
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
    _check_header(header, delimiter, path)
    if frame.shape[1] == 1:
        others = [d for d in _DELIMITERS if d != delimiter and d in header]
        if others:
            raise RatingsError(
                f"{path}: the header has a single column {header!r} when read as "
                f"{_DELIMITERS[delimiter]}-separated but contains {_DELIMITERS[others[0]]}s; "
                f"save it as a comma-separated .csv or a tab-separated .tsv"
            )
    frame = _coded(frame) if coded and not wide else _stripped(frame)
    return frame, np.asarray(_data_lines(text, len(frame)), dtype=np.int64)


def _check_header(header: str, delimiter: str, path: Path) -> None:
    """Refuse a header that names a column twice: pandas renames the second ``x.1`` (or, told apart only
    by spaces, both become ``x`` once stripped), so one of them would be read without a word."""
    names = next(csv.reader([header], delimiter=delimiter, skipinitialspace=True), [])
    seen: set[str] = set()
    for name in (n.strip() for n in names):
        if name and name in seen:
            raise RatingsError(
                f"{path}: the header names column {name!r} twice; rename or remove one of them"
            )
        seen.add(name)


def text_codes(column: pd.Series, *, empty_missing: bool = False, text: bool = False) -> pd.Series:
    """``column`` as text ids: a categorical of its cells as stripped strings, categories sorted.

    Each distinct value is converted and stripped once (ids repeat thousands of times in a ratings
    file), and the codes let every later stage group, count and compare ids without hashing their
    strings again. The categories are the distinct stripped strings in Python's sorted order, so
    code order is the sorted-string order; cells that differ only in surrounding spaces share a
    category. Missing cells (and, with ``empty_missing``, empty ones) get code −1. A categorical
    ``column`` is recoded from its categories (no pass over the rows' strings); a column that does not
    hold only strings is converted with ``astype(str)`` first, so ``1`` and ``1.0`` stay apart
    (``text``: the caller knows it does).

    Examples
    --------
    >>> ids = text_codes(pd.Series([" b", "a", "b ", None, ""]), empty_missing=True)
    >>> ids.tolist(), ids.cat.codes.tolist(), list(ids.cat.categories)
    (['b', 'a', 'b', nan, nan], [1, 0, 1, -1, -1], ['a', 'b'])
    """
    if isinstance(column.dtype, pd.CategoricalDtype):  # its used categories are the distinct values
        codes, uniques = column.cat.codes.to_numpy(), column.cat.categories.to_numpy(dtype=object)
        used = np.bincount(codes[codes >= 0], minlength=len(uniques)) > 0
        if not used.all():
            codes, uniques = np.append(np.cumsum(used) - 1, -1)[codes], uniques[used]
    else:
        if not (text or _all_text(column)):
            column = column.astype(str).where(column.notna())
        head = column.iloc[:_SAMPLE]
        if len(head) == _SAMPLE and head.nunique() * 2 > _SAMPLE:  # mostly distinct: sorted, not hashed
            present = column.notna().to_numpy()
            names = [v.strip() for v in column.to_numpy(dtype=object)[present]]  # strings here
            distinct, recode = _sorted_codes(names, empty_missing)
            codes = np.full(len(column), -1, dtype=np.int64)
            codes[present] = recode[:-1]
            return _categorical(codes, distinct, column)
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
    names = [str(u).strip() for u in np.asarray(uniques, dtype=object)]  # not through pandas per value
    distinct, recode = _sorted_codes(names, empty_missing)
    return _categorical(recode[codes], distinct, column)


#: Cells of a column looked at to tell mostly distinct ids (one per row: sorted) from repeated ones.
_SAMPLE = 2_000


def _categorical(codes: np.ndarray, categories: list[str], like: pd.Series) -> pd.Series:
    try:
        index = pd.Index(categories, dtype="str")
    except UnicodeEncodeError:  # a lone surrogate, which pandas' Arrow strings (with pyarrow) cannot hold
        index = pd.Index(categories, dtype=object)
    dtype = pd.CategoricalDtype(index)
    values = pd.Categorical.from_codes(codes, dtype=dtype, validate=False)
    return pd.Series(values, index=like.index, name=like.name)


def _sorted_codes(names: list[str], empty_missing: bool) -> tuple[list[str], np.ndarray]:
    """The distinct ``names`` in Python's sorted order and the position of each name among them (−1
    for an empty one with ``empty_missing``), with a last −1 that code −1 picks. Many names are sorted
    as numpy strings (UTF-8 order, which is code-point order, as Python's), a few in Python."""
    text = None
    if len(names) >= 1000:
        with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate has no UTF-8 form
            text = np.array(names, dtype=np.dtypes.StringDType())
    if text is None:
        distinct = sorted(set(names) - ({""} if empty_missing else set()))
        position = {name: k for k, name in enumerate(distinct)}
        return distinct, np.array([position.get(name, -1) for name in names] + [-1], dtype=np.int64)
    order = np.argsort(text, kind="stable")
    ordered = text[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    rank = np.cumsum(new) - 1
    if empty_missing and len(ordered) and ordered[0] == "":  # "" sorts first
        rank -= 1
        new[0] = False
    recode = np.empty(len(names) + 1, dtype=np.int64)
    recode[order] = rank
    recode[-1] = -1
    return ordered[new].tolist(), recode


def codes_of(column: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Integer codes (−1 where missing) and the values they stand for: a categorical's own codes and
    categories (no hashing; a category may be unused), else ``pd.factorize`` (by appearance).

    Examples
    --------
    >>> codes, values = codes_of(pd.Series(pd.Categorical(["b", "a", "b"])))
    >>> codes.tolist(), list(values)
    ([1, 0, 1], ['a', 'b'])
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy().astype(np.int64), column.cat.categories
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    return codes.astype(np.int64), pd.Index(uniques)


def _all_text(column: pd.Series) -> bool:
    """Whether every non-missing cell of ``column`` is a Python string."""
    if pd.api.types.is_object_dtype(column.dtype):
        return pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty")
    return pd.api.types.is_string_dtype(column.dtype)  # the str and string dtypes hold strings only


def decoded(column: pd.Series) -> pd.Series:
    """A categorical of strings as a plain text column (``str`` dtype, missing cells NaN)."""
    text = pd.array(column.cat.categories.to_numpy(dtype=object), dtype="str")
    return pd.Series(
        text.take(column.cat.codes.to_numpy(), allow_fill=True), index=column.index, name=column.name
    )


def per_distinct(column: pd.Series, func) -> pd.Series:
    """``func(column)`` for an element-wise ``func``, computed once per distinct value: ids and scores
    repeat thousands of times in a ratings file, and pandas' string methods cost a Python call per
    element. Missing cells stay missing; the result keeps ``column``'s index (and, when ``func``
    keeps it, its dtype; a categorical's categories are the distinct values).

    Examples
    --------
    >>> per_distinct(pd.Series([" a", "b ", " a", None]), lambda v: v.str.strip()).tolist()
    ['a', 'b', 'a', nan]
    """
    if isinstance(column.dtype, pd.CategoricalDtype):  # its codes are the distinct values already
        codes, distinct = column.cat.codes.to_numpy(), pd.Series(column.cat.categories)
    else:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        if len(uniques) * 2 > len(column):  # mostly distinct: nothing to share
            return func(column)
        distinct = pd.Series(uniques, dtype=column.dtype)
    done = func(distinct)
    values = done.to_numpy()
    if (codes < 0).any():
        values = np.append(values, done.iloc[:0].reindex([0]).to_numpy())  # the result dtype's NA
    return pd.Series(values[codes], index=column.index, dtype=done.dtype, name=column.name)


#: Header fields from which a table is parsed by :func:`_read_wide`: pandas' parser spends about 0.1 ms
#: per column (on any number of rows), so a file of 100,000 columns and 20 rows took 10 s.
WIDE_TABLE = 1_000


def _read_wide(text: str, delimiter: str) -> pd.DataFrame:
    """A table with many columns, parsed row by row with the csv module into one block of text cells:
    the cost is that of the cells, as for a long table. Rows shorter than the header are padded with
    NA, longer ones refused, blank lines skipped and repeated names made unique, as pandas does."""
    limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)
    try:
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, skipinitialspace=True)
        header = next(reader)
        width, rows = len(header), []
        for row in reader:
            if not row:
                continue
            if len(row) > width:
                raise pd.errors.ParserError(
                    f"Expected {width} fields in line {reader.line_num}, saw {len(row)}"
                )
            rows.append(row + [None] * (width - len(row)))
    except csv.Error as exc:
        raise pd.errors.ParserError(str(exc)) from None
    finally:
        csv.field_size_limit(limit)
    values = np.empty((len(rows), width), dtype=object)
    if rows:
        values[:] = rows
    return pd.DataFrame(values, columns=_unique_names(header), dtype=object)


def _unique_names(header: list[str]) -> list[str]:
    """pandas' names for a header: ``Unnamed: k`` for an empty one, ``x.1`` for a second ``x``."""
    names, seen = [], set()
    for k, name in enumerate(header):
        name = name if name.strip() else f"Unnamed: {k}"
        base, count = name, 0
        while name in seen:
            count += 1
            name = f"{base}.{count}"
        seen.add(name)
        names.append(name)
    return names


def _stripped(frame: pd.DataFrame) -> pd.DataFrame:
    """Header and cells without surrounding spaces, empty cells NA. A wide table is stripped in one pass
    over its cells and stays one block of objects (pandas' per-column calls cost ~1 ms each)."""
    columns = [str(c).strip() for c in frame.columns]
    if frame.shape[1] < WIDE_TABLE:
        frame.columns = columns
        stripped = frame.apply(lambda col: per_distinct(col, lambda values: values.str.strip()))
        return stripped.replace("", pd.NA)
    cells = pd.Series(frame.to_numpy(dtype=object).ravel(), dtype=object)
    text = cells.map(lambda v: v.strip() if isinstance(v, str) else v, na_action="ignore")
    values = text.where(text != "", pd.NA).to_numpy(dtype=object).reshape(frame.shape)
    return pd.DataFrame(values, columns=columns, index=frame.index, dtype=object)


def _coded(frame: pd.DataFrame) -> pd.DataFrame:
    """:func:`_stripped` as categoricals: every column through :func:`text_codes`, empty cells missing."""
    frame.columns = [str(c).strip() for c in frame.columns]
    return pd.DataFrame(
        {k: text_codes(frame.iloc[:, k], empty_missing=True, text=True) for k in range(frame.shape[1])}
    ).set_axis(frame.columns, axis=1)


def _data_lines(text: str, n_rows: int) -> list[int] | range:
    """The file line of every data row: pandas skips blank lines, so row k is not always line k + 2.
    (A quoted field spanning lines breaks the one-row-per-line count; rows are then numbered in order.)"""
    body = text.rstrip()
    # without quotes no newline hides inside a row, so as many newlines as rows leave no blank line
    if body.count("\n") == n_rows and ('"' not in body or not re.search(r"\n[ \t\r\f\v]*\n", body)):
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
