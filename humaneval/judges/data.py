"""Labels of human annotators and automatic judges on items: the input of the judge analyses.

Three layouts are read into one :class:`Annotations` table (columns ``item, annotator, label,
rater_kind`` and, when present, ``criterion``):

- a generic long table (CSV, TSV, JSONL) with columns ``item, annotator, label`` (numeric or
  categorical labels), optionally ``rater_kind`` (human|judge) and ``criterion``;
- the JSON layout of published judge data sets, ``{annotator: {item_id: label}}`` (Calderon,
  Reichart & Dror, 2025); a list of labels is several samples of a judge;
- a humaneval ratings table (:class:`~humaneval.core.ratings.Ratings`): an item is one rated summary,
  ``document|system`` (``document|system|opponent`` for pairwise tables), the label its score.

Humans and judges come in one file (judges marked by ``rater_kind`` or named with ``judges=``)
or in two (``judge_file=``: every annotator there is a judge). Several samples of one judge on one
item are kept as rows and reduced to one label where the analyses use them
(:meth:`Annotations.labels`): the mean of numeric labels, the most frequent categorical label
(ties go to the label sampled first). A human who labels an item twice is an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.core.judge_scores import nested_labels
from humaneval.core.ratings import RATER_KINDS, Ratings, check_judge_names, judge_list
from humaneval.core.responses import RESPONSES
from humaneval.errors import RatingsError
from humaneval.io.tables import read_table

__all__ = [
    "Annotations",
    "LabelKind",
    "from_ratings",
    "judge_annotations",
    "load_annotations",
    "read_annotations",
]

LabelKind = Literal["numeric", "categorical"]
_COLUMNS = ("item", "annotator", "label", "rater_kind", "criterion")
#: Column names accepted for the generic long table (case-insensitive), besides the canonical ones.
_ALIASES = {
    "instance": "item",
    "item_id": "item",
    "instance_id": "item",
    "id": "item",
    "rater": "annotator",
    "worker": "annotator",
    "judge": "annotator",
    "annotation": "label",
    "score": "label",
    "value": "label",
    "kind": "rater_kind",
    "dimension": "criterion",
}


@dataclass(frozen=True, eq=False)
class Annotations:
    """Human and judge labels on shared items.

    Attributes
    ----------
    data:
        Long table ``item, annotator, label, rater_kind`` (and ``criterion`` when there are several
        criteria); ids are strings, labels floats (numeric) or strings (categorical).
    label_kind:
        ``"numeric"`` or ``"categorical"``.
    source:
        The file(s) the labels were read from, if any.
    """

    data: pd.DataFrame
    label_kind: LabelKind
    source: str | None = None

    @property
    def judge_names(self) -> list[str]:
        """The judges, sorted."""
        return sorted(self.data.loc[self.data["rater_kind"] == "judge", "annotator"].unique())

    @property
    def human_names(self) -> list[str]:
        """The human annotators, sorted."""
        return sorted(self.data.loc[self.data["rater_kind"] == "human", "annotator"].unique())

    @property
    def criteria(self) -> list[str | None]:
        """The criteria, or ``[None]`` without a criterion column."""
        if "criterion" not in self.data:
            return [None]
        return sorted(self.data["criterion"].unique())

    def humans(self) -> Annotations:
        """The human rows."""
        return replace(self, data=self.data[self.data["rater_kind"] == "human"].reset_index(drop=True))

    def judges(self) -> Annotations:
        """The judge rows (samples as they are)."""
        return replace(self, data=self.data[self.data["rater_kind"] == "judge"].reset_index(drop=True))

    def of_criterion(self, criterion: str | None) -> Annotations:
        """The rows of one criterion (all rows when ``criterion`` is None and there is one)."""
        if criterion is None or "criterion" not in self.data:
            return self
        part = self.data[self.data["criterion"] == criterion].drop(columns="criterion")
        return replace(self, data=part.reset_index(drop=True))

    def labels(self) -> pd.DataFrame:
        """One label per ``(item, annotator)``: a judge's samples reduced (mean, or most frequent)."""
        keys = ["item", "annotator", "rater_kind"] + (["criterion"] if "criterion" in self.data else [])
        data = self.data[[*keys, "label"]]
        if not data.duplicated(keys).any():
            return data.reset_index(drop=True)
        if self.label_kind == "numeric":
            return data.groupby(keys, sort=False)["label"].mean().reset_index()
        # the most frequent label; among equally frequent ones the one sampled first
        counted = data.assign(_order=np.arange(len(data)))
        counted["_n"] = counted.groupby([*keys, "label"], sort=False)["label"].transform("size")
        counted = counted.sort_values(["_n", "_order"], ascending=[False, True], kind="stable")
        best = counted.drop_duplicates(keys).sort_values("_order")
        return best[[*keys, "label"]].reset_index(drop=True)


def read_annotations(
    source: str | Path | pd.DataFrame | dict | Ratings,
    *,
    rater_kind: str | None = None,
    judges: str | Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
) -> Annotations:
    """Read labels from the JSON layout, a long table, a ratings table or a dict.

    Parameters
    ----------
    source:
        A ``.json`` file ``{annotator: {item_id: label}}``, a long table file ``item, annotator,
        label`` (CSV, TSV, JSONL), a ratings table file (``annotator, document, system, score``), a
        DataFrame of either, a :class:`~humaneval.core.ratings.Ratings`, or the dict itself.
    rater_kind:
        ``"human"`` or ``"judge"`` for every row (as for a ``--judge-file``); by default the
        table's ``rater_kind`` column, else human.
    judges:
        Annotators that are judges (names, or one string ``"a,b"`` as ``--judge-names`` gives them).
    columns:
        Renames of a ratings table's columns, file name → canonical name (``--column``).

    Returns
    -------
    Annotations

    Raises
    ------
    RatingsError
        An unreadable file, missing columns, a human labelling an item twice, labels that mix
        numbers and words, or an unknown judge name.

    Examples
    --------
    >>> humans = {"ann1": {"q1": "A", "q2": "B"}, "ann2": {"q1": "A", "q2": "A"}}
    >>> table = read_annotations(humans)
    >>> table.label_kind, table.human_names, len(table.data)
    ('categorical', ['ann1', 'ann2'], 4)
    """
    if rater_kind is not None and rater_kind not in RATER_KINDS:
        raise RatingsError(f"rater_kind must be human or judge, not {rater_kind!r}")
    label = str(source) if isinstance(source, str | Path) else None
    if isinstance(source, Ratings):
        return _mark(from_ratings(source), rater_kind, judges)
    if isinstance(source, dict):
        frame = nested_labels(source, "the annotations: ", "annotator")
    elif isinstance(source, pd.DataFrame):
        frame = source.copy()
    else:
        frame = _read_file(Path(source))
    if columns:
        frame = frame.rename(columns=dict(columns))
    if _is_ratings_table(frame):
        from humaneval.core.ratings import load_ratings

        # the judges are named before validation: their repeated samples are then not duplicates
        renames = dict(columns) if label and columns else None
        ratings = load_ratings(source if label else frame, judges=judges, continuous=True, columns=renames)
        return _mark(from_ratings(ratings), rater_kind, None)
    typed = label is None or Path(label).suffix.lower() in (".json", ".jsonl", ".ndjson")
    return _validate(frame, rater_kind, judge_list(judges), label, typed)


def load_annotations(
    humans: str | Path | pd.DataFrame | dict | Ratings,
    judge_file: str | Path | pd.DataFrame | dict | None = None,
    *,
    judges: str | Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    judge_columns: Mapping[str, str] | None = None,
) -> Annotations:
    """Humans and judges from one source or two (``humaneval judge HUMANS --judge-file JUDGES``).

    Parameters
    ----------
    humans:
        The human labels, possibly with judge rows (see :func:`read_annotations`).
    judge_file:
        The judges' labels, every annotator there a judge, in any layout
        :func:`~humaneval.core.judge_scores.read_judge_scores` reads (the pool ``document, system, score,
        judge`` of ``humaneval ppi`` and ``design --judge-scores`` included).
    judges:
        Annotators of ``humans`` that are judges.
    columns, judge_columns:
        Renames of the columns of ``humans`` and of ``judge_file`` (file name → canonical name).

    Returns
    -------
    Annotations
        Both sides in one table.

    Raises
    ------
    RatingsError
        As :func:`read_annotations`, plus label types that differ between the files or a name
        that is both a human and a judge.

    Examples
    --------
    >>> people = {"h1": {"i1": 1, "i2": 3}, "h2": {"i1": 2, "i2": 3}}
    >>> table = load_annotations(people, {"gpt": {"i1": 2, "i2": [3, 4]}})
    >>> table.judge_names, table.label_kind, len(table.labels())
    (['gpt'], 'numeric', 6)
    """
    table = read_annotations(humans, judges=None if judge_file is not None else judges, columns=columns)
    if judge_file is None:
        return table
    other = judge_annotations(judge_file, columns=judge_columns)
    names = [n for n in judge_list(judges) if n not in set(other.data["annotator"])]
    if names:
        table = _mark(table, None, names)
    where = f"{table.source or 'the human labels'} and {other.source or 'the judge labels'}"
    if table.label_kind != other.label_kind:
        raise RatingsError(
            f"{where} mix label types ({table.label_kind} and {other.label_kind}); give both the same "
            "labels (numbers for ratings, words for categories)"
        )
    shared = sorted(set(table.human_names) & set(other.judge_names))
    if shared:
        raise RatingsError(f"{where}: {shared[0]!r} is both a human and a judge; rename one of them")
    data = pd.concat([table.data, other.data], ignore_index=True)
    sources = " + ".join(s for s in (table.source, other.source) if s) or None
    return Annotations(data=data, label_kind=table.label_kind, source=sources)


def judge_annotations(
    source: str | Path | pd.DataFrame | dict, *, columns: Mapping[str, str] | None = None
) -> Annotations:
    """A judge file (any layout of :func:`~humaneval.core.judge_scores.read_judge_scores`) as annotations:
    every row a judge's, its item ``document|system`` (or the file's own item id)."""
    from humaneval.core.judge_scores import read_judge_scores

    label = str(source) if isinstance(source, str | Path) else None
    frame = read_judge_scores(source, columns=columns)
    extra = [c for c in ("criterion", "document", "system", "opponent") if c in frame]
    data = frame[["item", "judge", "score", *extra]].rename(columns={"judge": "annotator", "score": "label"})
    return _validate(data, "judge", [], label, typed=True)


def from_ratings(ratings: Ratings) -> Annotations:
    """A ratings table as annotations: one item per rated summary, its score the label.

    The item id is ``document|system`` (``|tuple_id`` for best–worst tables). A pairwise judgement
    is one item ``document|system|opponent`` seen from the alphabetically first system (its
    mirror row says the same thing), labelled 1 when that system won, 0 when it lost, 0.5 for a
    tie. ``document``, ``system``, ``opponent``, ``position``, ``shown_first`` and ``length`` (with
    ``opponent_length`` for pairs) travel along for the system-level and bias analyses. Attention
    checks are left out.
    """
    data = ratings.data
    if "is_check" in data:
        data = data[~data["is_check"]]
    lengths = None
    if "opponent" in data:
        if "length" in data:
            lengths = data.drop_duplicates(["document", "system"]).set_index(["document", "system"])["length"]
        data = data[data["system"].astype(str) < data["opponent"].astype(str)]
    parts = [data["document"], data["system"]] + [data[c] for c in ("opponent", "tuple_id") if c in data]
    item = parts[0].astype(str)
    for part in parts[1:]:
        item = item + "|" + part.astype(str)
    values = ratings.with_data(data).reported()
    kind = data["rater_kind"].to_numpy() if "rater_kind" in data else "human"
    frame = pd.DataFrame(
        {
            "item": item.to_numpy(),
            "annotator": data["annotator"].to_numpy(),
            "label": values.to_numpy(dtype=float),
            "rater_kind": kind,
        }
    )
    for column in ("criterion", "document", "system", "opponent", "position", "shown_first", "length"):
        if column in data:
            frame[column] = data[column].to_numpy()
    if lengths is not None:
        pairs = pd.MultiIndex.from_arrays([data["document"], data["opponent"]])
        frame["opponent_length"] = lengths.reindex(pairs).to_numpy()
    return Annotations(data=frame, label_kind="numeric", source=ratings.source)


def _mark(table: Annotations, rater_kind: str | None, judges: str | Sequence[str] | None) -> Annotations:
    data = table.data.copy()
    if rater_kind is not None:
        data["rater_kind"] = rater_kind
    names = judge_list(judges)
    if names:
        check_judge_names(names, data["annotator"], table.source)
        data.loc[data["annotator"].isin(names), "rater_kind"] = "judge"
    return replace(table, data=data)


def _read_file(path: Path) -> pd.DataFrame:
    if path.suffix.lower() == ".json" and path.is_file():
        try:
            parsed = json.loads(path.read_text(encoding="utf-8-sig"))
        except RecursionError:
            raise RatingsError(f"{path}: the JSON is nested too deeply to be annotations") from None
        except (ValueError, UnicodeDecodeError):
            parsed = None
        if isinstance(parsed, dict):
            return nested_labels(parsed, f"{path}: ", "annotator")
        if parsed is not None:  # one JSON document that is not an object: not JSON lines either
            raise RatingsError(
                f"{path}: the file holds a JSON {type(parsed).__name__}; the layout is "
                "{annotator: {item_id: label}} (or JSON lines with item, annotator, label)"
            )
    return read_table(path, what="annotation table")


def _is_ratings_table(frame: pd.DataFrame) -> bool:
    columns = {str(c).strip().lower() for c in frame.columns}
    return "label" not in columns and "system" in columns and bool(columns & set(RESPONSES))


def _validate(
    frame: pd.DataFrame, rater_kind: str | None, judges: list[str], source: str | None, typed: bool = True
) -> Annotations:
    prefix = f"{source}: " if source else ""
    frame = frame.reset_index(drop=True)
    mapping: dict[object, str] = {}
    for column in frame.columns:
        key = str(column).strip().lower()
        target = (
            key if key in ("item", "annotator", "label", "rater_kind", "criterion") else _ALIASES.get(key)
        )
        if target and target not in mapping.values():
            mapping[column] = target
    data = frame.rename(columns=mapping)
    found = ", ".join(map(str, frame.columns))
    for column in ("item", "annotator", "label"):
        if column not in data:
            raise RatingsError(
                f"{prefix}missing column '{column}' (found: {found}); an annotation table has columns "
                "item, annotator, label"
            )
    for column in ("item", "annotator") + (("criterion",) if "criterion" in data else ()):
        empty = np.flatnonzero(data[column].isna().to_numpy())
        if len(empty):
            raise RatingsError(f"{prefix}empty '{column}' at row {_rows(empty)}; every row needs one")
        data[column] = data[column].astype(str).str.strip()
    if rater_kind is not None:
        data["rater_kind"] = rater_kind
    elif "rater_kind" in data:
        kind = data["rater_kind"].astype("string").str.strip().str.lower().fillna("human")
        bad = np.flatnonzero(~kind.isin(RATER_KINDS).to_numpy())
        if len(bad):
            raise RatingsError(
                f"{prefix}column 'rater_kind' must be human or judge, found "
                f"{data['rater_kind'].iloc[bad[0]]!r} at row {_rows(bad)}"
            )
        data["rater_kind"] = kind.astype(object)
    else:
        data["rater_kind"] = "human"
    if judges:
        check_judge_names(judges, data["annotator"], source)
        data.loc[data["annotator"].isin(judges), "rater_kind"] = "judge"
    data, kind = _labels(data, prefix, typed)
    keys = ["item", "annotator"] + (["criterion"] if "criterion" in data else [])
    dup = np.flatnonzero((data.duplicated(keys, keep=False) & (data["rater_kind"] == "human")).to_numpy())
    if len(dup):
        first = data.iloc[dup[0]]
        raise RatingsError(
            f"{prefix}human annotator {first['annotator']!r} labels item {first['item']!r} more than once "
            f"(rows {_rows(dup)}); only a judge may have several samples of one item"
        )
    columns = ["item", "annotator", "label", "rater_kind"] + [c for c in data.columns if c == "criterion"]
    extra = [c for c in data.columns if c not in columns]
    return Annotations(data=data[columns + extra].reset_index(drop=True), label_kind=kind, source=source)


def _labels(data: pd.DataFrame, prefix: str, typed: bool) -> tuple[pd.DataFrame, LabelKind]:
    raw = data["label"]
    missing = raw.isna() | raw.astype(str).str.strip().eq("")
    data = data[~missing.to_numpy()].reset_index(drop=True)
    if data.empty:
        raise RatingsError(f"{prefix}every label is missing")
    raw = data["label"]
    if typed:  # JSON and DataFrames carry types: a string is a category even when it looks like a digit
        word = raw.map(lambda v: isinstance(v, str | bool | np.bool_)).to_numpy()
    else:  # a delimited text table is all text: numbers are whatever parses as one
        word = np.isnan(pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float))
    numbers = pd.to_numeric(raw.where(~word), errors="coerce").to_numpy(dtype=float)
    if not word.any():
        bad = np.flatnonzero(np.isnan(numbers) | np.isinf(numbers))
        if len(bad):
            raise RatingsError(f"{prefix}label {raw.iloc[bad[0]]} at row {_rows(bad)} is not a finite number")
        return data.assign(label=numbers), "numeric"
    if not word.all():
        number, text = np.flatnonzero(~word)[0], np.flatnonzero(word)[0]
        raise RatingsError(
            f"{prefix}labels mix numbers and words ({raw.iloc[number]!r} at row {number}, "
            f"{raw.iloc[text]!r} at row {text}); use one type (numbers for ratings, words for categories)"
        )
    return data.assign(label=raw.astype(str).str.strip()), "categorical"


def _rows(positions: np.ndarray, limit: int = 3) -> str:
    shown = ", ".join(str(int(p)) for p in positions[:limit])
    more = len(positions) - limit
    return shown + (f" and {more} more" if more > 0 else "")
