"""The one reader of a judge's scores, whatever the command that reads them (docs/judges.md, docs/ppi.md).

``humaneval judge``, ``ppi``, ``report``, ``analyze --judge``, ``design --judge-scores`` and ``budget
--judge-pilot`` all read a judge file through :func:`read_judge_scores`, so one file serves them all. It
accepts

- a long table (CSV, TSV, JSON lines) ``document, system, score`` with optionally ``judge`` (or
  ``annotator``) naming the judge of each row, ``criterion``, ``opponent`` (pairwise verdicts: 1 won,
  0 lost, 0.5 tie) and ``uncertainty``;
- a ratings table with a ``rater_kind`` column: its judge rows (``annotator`` names the judge);
- the JSON layout of published judge data sets ``{judge: {item: label}}`` (Calderon, Reichart & Dror,
  2025), a list of labels being several samples; an item ``document|system`` names a summary;
- a long ``item, annotator, label`` table, the same labels in rows.

The result is one long table of judge rows: ``judge, item, score`` and, when the layout names them,
``document``, ``system`` (and ``criterion``, ``opponent``, ``uncertainty``). ``item`` is
``document|system`` (``|opponent`` for pairs), the item id of :func:`humaneval.judges.data.label_view`,
so a judge's rows meet the humans' ratings of the same summary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.core.ratings import ALIASES
from humaneval.errors import RatingsError
from humaneval.io.tables import read_table

__all__ = ["JUDGE_COLUMNS", "judge_column_renames", "read_judge_scores"]

#: The columns a judge file may have (``--judge-column CANONICAL=NAME`` maps a file's own names to them).
JUDGE_COLUMNS = (
    "document",
    "system",
    "score",
    "judge",
    "criterion",
    "opponent",
    "uncertainty",
    "item",
    "rater_kind",
    "annotator",
)
_RENAMES = {"doc": "document", "summarizer": "system", "model": "system", "label": "score"}


def judge_column_renames(
    items: tuple[str, ...] | list[str], option: str = "--judge-column"
) -> dict[str, str]:
    """``("judge=model_name", ...)`` as ``{"model_name": "judge"}``; a malformed item is one error."""
    out: dict[str, str] = {}
    for item in items:
        canonical, sep, name = item.partition("=")
        if not sep or not canonical.strip() or not name.strip():
            raise RatingsError(f"{option} {item!r}: write CANONICAL=NAME, e.g. judge=model_name")
        if canonical.strip() not in JUDGE_COLUMNS:
            raise RatingsError(
                f"{option} {item!r}: {canonical.strip()!r} is not a column of a judge file; use one of "
                f"{', '.join(JUDGE_COLUMNS)}"
            )
        out[name.strip()] = canonical.strip()
    return out


def read_judge_scores(
    source: str | Path | pd.DataFrame | Mapping,
    *,
    columns: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """A judge's (or several judges') scores in one long table, from any layout a judge file comes in.

    Parameters
    ----------
    source : path, DataFrame or dict
        A CSV, TSV or JSON-lines table, a ``.json`` file ``{judge: {item: label}}``, a DataFrame of a
        table, or the dict itself (see the module docstring for the layouts).
    columns : mapping, optional
        Renames applied first, file name → canonical name (``{"model_name": "judge"}``; the CLI's
        ``--judge-column judge=model_name``).

    Returns
    -------
    DataFrame
        ``judge, item, score`` and, when known, ``document, system``, ``criterion``, ``opponent``,
        ``uncertainty``; ids are strings, scores numbers (labels that are words stay words).

    Raises
    ------
    RatingsError
        An unreadable file, no judge rows, missing columns, a mapped column that is not there, or a
        score that is not a number.

    Examples
    --------
    The pool layout and the alt-test JSON give the same rows:

    >>> import pandas as pd
    >>> pool = pd.DataFrame({"document": ["d1", "d1"], "system": ["a", "b"], "score": [4, 2.5],
    ...                      "judge": "gpt"})
    >>> read_judge_scores(pool)[["judge", "item", "score"]].to_dict("records")
    [{'judge': 'gpt', 'item': 'd1|a', 'score': 4.0}, {'judge': 'gpt', 'item': 'd1|b', 'score': 2.5}]
    >>> read_judge_scores({"gpt": {"d1|a": 4, "d1|b": 2.5}})[["judge", "document", "system"]].values.tolist()
    [['gpt', 'd1', 'a'], ['gpt', 'd1', 'b']]
    """
    where = f"{source}: " if isinstance(source, str | Path) else "judge scores: "
    if isinstance(source, Mapping):
        return _from_mapping(source, where)
    if isinstance(source, pd.DataFrame):
        frame = source.copy()
    else:
        path = Path(source)
        mapping = _json_object(path)
        if mapping is not None:
            return _from_mapping(mapping, where)
        frame = read_table(path, what="judge file")
    if columns:
        absent = [name for name in columns if name not in frame.columns]
        if absent:
            raise RatingsError(
                f"{where}no column {absent[0]!r} to use as {columns[absent[0]]!r} (found: "
                f"{', '.join(map(str, frame.columns))}); check --judge-column"
            )
        frame = frame.rename(columns=dict(columns))
    return _from_table(frame, where)


def _json_object(path: Path) -> dict | None:
    """The parsed object of a ``.json`` file, or None for any other file (JSON lines included)."""
    if path.suffix.lower() != ".json" or not path.is_file():
        return None
    try:
        parsed = json.loads(path.read_text(encoding="utf-8-sig"))
    except RecursionError:
        raise RatingsError(f"{path}: the JSON is nested too deeply to be judge scores") from None
    except (ValueError, UnicodeDecodeError):
        return None  # JSON lines, read as a table
    if not isinstance(parsed, dict):
        raise RatingsError(
            f"{path}: the file holds a JSON {type(parsed).__name__}; the layout is "
            "{judge: {item: label}} (or JSON lines with document, system, score)"
        )
    return parsed


def nested_labels(mapping: Mapping, where: str, rater: str) -> pd.DataFrame:
    """``{rater: {item: label or [labels]}}`` (the AltTest JSON layout) as a long table ``rater, item,
    label`` (a list is several samples), missing labels left out; ``where`` prefixes the errors."""
    layout = f"the layout is {{{rater}: {{item: label}}}}"
    rows: list[tuple[str, str, object]] = []
    for name, labels in mapping.items():
        if not isinstance(labels, Mapping):
            raise RatingsError(
                f"{where}{rater} {name!r} maps to {type(labels).__name__}, not to {{item: label}}; {layout}"
            )
        for item, value in labels.items():
            for sample in value if isinstance(value, list) else [value]:
                rows.append((str(name), str(item), sample))
    if not rows:
        raise RatingsError(f"{where}no labels; {layout}")
    frame = pd.DataFrame(rows, columns=[rater, "item", "label"]).astype({rater: object, "item": object})
    return frame[frame["label"].notna()].reset_index(drop=True)


def _from_mapping(mapping: Mapping, where: str) -> pd.DataFrame:
    frame = nested_labels(mapping, where, "judge").rename(columns={"label": "score"})
    words = frame["score"].map(lambda v: isinstance(v, str | bool)).to_numpy()
    if not words.any():
        frame["score"] = _numbers(frame["score"], where)
    parts = frame["item"].str.rsplit("|", n=1)
    if len(frame) and (parts.str.len() == 2).all():  # items that name a summary: document|system
        frame["document"], frame["system"] = parts.str[0].astype(object), parts.str[1].astype(object)
    return frame


def _from_table(frame: pd.DataFrame, where: str) -> pd.DataFrame:
    renamed: dict[object, str] = {}
    for column in frame.columns:
        key = str(column).strip().lower()
        target = key if key in JUDGE_COLUMNS else _RENAMES.get(key, ALIASES.get(key, key))
        if target not in renamed.values():
            renamed[column] = target
    frame = frame.rename(columns=renamed)
    frame = frame[[c for c in frame.columns if c in renamed.values()]]
    if "rater_kind" in frame:
        kind = frame["rater_kind"].astype(str).str.strip().str.lower()
        if not (kind == "judge").any():
            raise RatingsError(
                f"{where}no row has rater_kind 'judge'; mark the judge's rows, or drop the column"
            )
        frame = frame[kind == "judge"].drop(columns="rater_kind")
    if "judge" not in frame:
        frame["judge"] = frame.get("annotator", "judge")
    frame = frame.drop(columns=[c for c in ("annotator",) if c in frame])
    has_summary = "document" in frame and "system" in frame
    if not has_summary and "item" not in frame:
        missing = [c for c in ("document", "system") if c not in frame]
        raise RatingsError(
            f"{where}no column {', '.join(missing)}; a judge file has document, system, score (and "
            "optionally judge, criterion), or item, judge, label; map other names with --judge-column"
        )
    if "score" not in frame:
        raise RatingsError(
            f"{where}no column score; a judge file has document, system, score; map another name with "
            "--judge-column score=NAME"
        )
    frame = frame.reset_index(drop=True)
    for column in ("judge", "document", "system", "opponent", "criterion", "item"):
        if column in frame:
            empty = np.flatnonzero(frame[column].isna().to_numpy())
            if len(empty) and column != "opponent":
                raise RatingsError(f"{where}empty '{column}' at row {int(empty[0])}; every row needs one")
            text = frame[column].astype(str).str.strip().astype(object)
            frame[column] = text.where(frame[column].notna().to_numpy(), None)
    frame = frame[frame["score"].notna()].reset_index(drop=True)
    if frame.empty:
        raise RatingsError(f"{where}every score is missing")
    words = (
        frame["score"].map(lambda v: isinstance(v, str | bool))
        & pd.to_numeric(frame["score"], errors="coerce").isna()
    )
    if has_summary or not words.any():
        frame["score"] = _numbers(frame["score"], where)
    elif not words.all():
        number, word = np.flatnonzero(~words.to_numpy())[0], np.flatnonzero(words.to_numpy())[0]
        raise RatingsError(
            f"{where}labels mix numbers and words ({frame['score'].iloc[number]!r} at row {number}, "
            f"{frame['score'].iloc[word]!r} at row {word}); use one type"
        )
    if "uncertainty" in frame:
        given = frame["uncertainty"]
        frame["uncertainty"] = pd.to_numeric(given, errors="coerce")
        bad = np.flatnonzero((frame["uncertainty"].isna() & given.notna()).to_numpy())
        if len(bad):  # it would be dropped as missing without a word
            raise RatingsError(
                f"{where}uncertainty {given.iloc[bad[0]]!r} at row {int(bad[0])} is not a number; leave "
                "it empty where the judge gave none"
            )
    if has_summary:
        item = frame["document"] + "|" + frame["system"]
        if "opponent" in frame:
            item = item.where(frame["opponent"].isna(), item + "|" + frame["opponent"].astype(str))
        frame["item"] = item
    first = ["judge", "item", "score"]
    return frame[first + [c for c in frame.columns if c not in first]]


def _numbers(values: pd.Series, where: str) -> pd.Series:
    scores = pd.to_numeric(values, errors="coerce")
    bad = np.flatnonzero((scores.isna() & values.notna()).to_numpy() | np.isinf(scores.to_numpy(float)))
    if len(bad):
        raise RatingsError(
            f"{where}score {values.iloc[bad[0]]!r} at row {int(bad[0])} is not a finite number; a judge "
            "file's scores are numbers (ratings, probabilities, or 1/0/0.5 for pairwise verdicts)"
        )
    return scores.astype(float)
