"""The input files of ``humaneval ranks``: estimates (``name, estimate, se``) and an optional covariance."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.errors import RatingsError

ESTIMATE_COLUMNS = ("name", "estimate", "se")
#: Estimates and standard errors beyond this size are refused: the squares of their differences
#: overflow or lose every digit of the variances the rank sets need.
MAX_ABS = 1e12


def _read(path: str | Path, **kwargs) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, **kwargs)
        with open(path, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle), [])
    except (OSError, ValueError, pd.errors.ParserError, csv.Error) as exc:
        raise RatingsError(f"{path}: cannot read the CSV file ({str(exc).splitlines()[0]})") from None
    twice = sorted({name.strip() for name in header if [h.strip() for h in header].count(name.strip()) > 1})
    if twice:  # pandas would rename the second one 'x.1' and read the first without a word
        raise RatingsError(f"{path}: the header names column {twice[0]!r} twice; keep one of them")
    return frame


def _numbers(
    frame: pd.DataFrame, column: str, path: str | Path, limit: float = MAX_ABS, low: float = -np.inf
) -> np.ndarray:
    """A column as finite floats in ``[low, limit]`` and within ±``limit``; the first bad cell is named
    by its row (1 = the header)."""
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    for bad, what in (
        (~np.isfinite(values), "is not a finite number"),
        (np.abs(values) > limit, f"is beyond ±{limit:g}; rescale the column"),
        (values < low, "is negative; a standard error or variance is ≥ 0"),
    ):
        rows = np.flatnonzero(bad)
        if len(rows):
            row = int(rows[0])
            raise RatingsError(
                f"{path}: row {row + 2}, column {column!r}: {str(frame[column].iloc[row])!r} {what}"
            )
    return values


def read_estimates(
    path: str | Path, cov_path: str | Path | None = None
) -> tuple[pd.Series, np.ndarray | None, np.ndarray | None]:
    """Estimates with their standard errors, or with a covariance matrix from a second file.

    Parameters
    ----------
    path : str or Path
        CSV with columns ``name``, ``estimate`` and (without ``cov_path``) ``se``.
    cov_path : str or Path, optional
        CSV of the covariance matrix: a header of the names, then one row per name in the same order.

    Returns
    -------
    (Series, ndarray or None, ndarray or None)
        The estimates by name, the covariance (ordered as the estimates) or None, the standard
        errors or None.

    Raises
    ------
    RatingsError
        A missing column, a cell that is not a finite number, repeated names, or a covariance file
        whose names or shape do not match the estimates.
    """
    frame = _read(path, dtype={"name": str}, keep_default_na=False)  # a system may be called 'NA'
    needed = ESTIMATE_COLUMNS if cov_path is None else ESTIMATE_COLUMNS[:2]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        hint = "" if cov_path is not None or missing != ["se"] else " (or give the covariance with --cov)"
        raise RatingsError(
            f"{path}: missing column {', '.join(map(repr, missing))}; the file needs "
            f"{', '.join(needed)}{hint}"
        )
    names = frame["name"].astype(str).str.strip()
    if len(frame) < 2:
        raise RatingsError(f"{path}: {len(frame)} estimate(s); ranks need at least two rows under the header")
    empty = np.flatnonzero(names == "")
    if len(empty):
        raise RatingsError(f"{path}: row {int(empty[0]) + 2}, column 'name': the name is empty")
    twice = names[names.duplicated()]
    if len(twice):
        raise RatingsError(f"{path}: row {int(twice.index[0]) + 2}: name {twice.iloc[0]!r} appears twice")
    estimates = pd.Series(_numbers(frame, "estimate", path), index=names.to_list(), name="estimate")
    if cov_path is None:
        return estimates, None, _numbers(frame, "se", path, low=0.0)
    cov_frame = _read(cov_path)
    header = [str(c).strip() for c in cov_frame.columns]
    if sorted(header) != sorted(estimates.index) or len(header) != len(set(header)):
        extra = sorted(set(header) - set(estimates.index))
        lacking = sorted(set(estimates.index) - set(header))
        raise RatingsError(
            f"{cov_path}: the header must name each estimate of {path} once"
            + (f"; not in the estimates: {', '.join(extra[:5])}" if extra else "")
            + (f"; missing: {', '.join(lacking[:5])}" if lacking else "")
        )
    if len(cov_frame) != len(header):
        raise RatingsError(
            f"{cov_path}: {len(cov_frame)} rows for {len(header)} names; the matrix must be square "
            "(a header of names, then one row per name in the same order)"
        )
    cov_frame.columns = header
    matrix = np.column_stack([_numbers(cov_frame, name, cov_path, MAX_ABS**2) for name in header])
    order = [header.index(name) for name in estimates.index]
    return estimates, matrix[np.ix_(order, order)], None
