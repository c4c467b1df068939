"""Reading scorer input files and turning scores into metric tables for ``humaneval metaeval``.

An input file (JSONL, CSV or TSV, read with :func:`humaneval.io.tables.read_table`) has one row per
summary: ``document``, ``system``, ``summary`` and, where the scorer needs it, ``source``. Bias
inputs may add ``cluster`` (default: the document), ``sample``, ``group`` and ``entities`` (a JSON
list of {first, last, group}). Scores come back as the metric table of docs/scorers.md: ``document``,
``system``, then the score column, so the file can be passed to ``humaneval metaeval --metric``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.errors import RatingsError
from humaneval.io.tables import read_table_lines
from humaneval.scorers.result import ScoreResult


def read_text_table(path: str | Path, required: Iterable[str]) -> pd.DataFrame:
    """The input table with text cells as strings ("" when missing) and decoded ``entities``."""
    frame, lines = read_table_lines(path, what="scorer input")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise RatingsError(
            f"{path}: missing column(s) {', '.join(missing)}; found {', '.join(map(str, frame.columns))}"
        )
    frame = frame.copy()
    for column in ("document", "system", "cluster", "sample", "group"):
        if column in frame.columns:
            frame[column] = frame[column].astype(object).where(frame[column].notna(), "").astype(str)
    for column in ("source", "reference", "summary"):
        if column in frame.columns:
            frame[column] = [v if isinstance(v, str) else "" for v in frame[column]]
    if "entities" in frame.columns:
        frame["entities"] = [
            _entities(v, path, line) for v, line in zip(frame["entities"], lines, strict=True)
        ]
    return frame


def _entities(value: Any, path: str | Path, line: int) -> list:
    if isinstance(value, list):
        return value
    if value is None or (isinstance(value, float) and value != value) or value is pd.NA:
        return []
    try:
        decoded = json.loads(str(value))
    except json.JSONDecodeError:
        decoded = None
    if not isinstance(decoded, list):
        raise RatingsError(
            f'{path}, line {line}: entities must be a JSON list like [{{"first": "Ann", "last": "Lee", '
            f'"group": "female"}}], got {str(value)[:40]!r}'
        )
    return decoded


def metric_table(frame: pd.DataFrame, result: ScoreResult, column: str) -> pd.DataFrame:
    """``document``, ``system``, ``column`` (plus ``column_sd`` when MC passes were averaged)."""
    table = result.to_frame(frame["document"].tolist(), frame["system"].tolist(), column)
    sd = result.meta.get("sd")
    if sd is not None and result.meta.get("k", 1) > 1:
        table[f"{column}_sd"] = sd
    return table
