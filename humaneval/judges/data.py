"""Human and judge labels on items, read into the one ratings table the judge analyses use.

Every judge analysis (alt-test, agreement, bias audit, verdict) reads a
:class:`~humaneval.core.ratings.Ratings` whose judge rows carry ``rater_kind = judge``. Besides a
humaneval ratings table (``annotator, document, system, score``), :func:`read_annotations` reads

- the JSON layout of published judge data sets, ``{annotator: {item_id: label}}`` (Calderon,
  Reichart & Dror, 2025); a list of labels is several samples of a judge;
- a long table (CSV, TSV, JSONL) with columns ``item, annotator, label`` (numbers or words),
  optionally ``rater_kind`` (human|judge) and ``criterion``.

Humans and judges come in one file (judges marked by ``rater_kind`` or named with ``judges=``)
or in two (:func:`load_annotations` with ``judge_file=``, read by
:func:`humaneval.core.judge_scores.read_judge_scores`, the one reader of judge files: every
annotator there is a judge).

In the table, an item id ``document|system`` names a summary; any other item id is the document
of the pseudo-system ``-`` and keeps its id in column ``item``. A label that is a word (a category)
keeps its word in column ``label_text``, and ``score`` holds its code (1 = the first word in sorted
order), so the codes mean nothing beyond equality.

The analyses see the table through :func:`label_view`: one row per rated item (a pairwise
judgement seen from its alphabetically first system), and one label per ``(item, rater)`` where
they need it (:meth:`LabelView.labels`: the mean of a judge's numeric samples, its most frequent
categorical label, ties going to the label sampled first). A human who labels an item twice is an
error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from humaneval.core.judge_scores import nested_labels, read_judge_scores
from humaneval.core.ratings import (
    CODED_COLUMNS,
    RATER_KINDS,
    Ratings,
    check_judge_names,
    judge_list,
    load_ratings,
    mark_judges,
)
from humaneval.core.responses import RESPONSES
from humaneval.errors import RatingsError
from humaneval.io.tables import read_table, text_codes

__all__ = ["LABEL_TEXT", "NO_SYSTEM", "LabelView", "label_view", "load_annotations", "read_annotations"]

LabelKind = Literal["numeric", "categorical"]
#: The column that keeps a categorical label's word (``score`` holds its code).
LABEL_TEXT = "label_text"
#: The system of an item that does not name a summary (its id is the document, and column ``item``).
NO_SYSTEM = "-"
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
class LabelView:
    """The judge analyses' view of a ratings table: one row per rated item and rater.

    Built by :func:`label_view`; not a table of its own (the data live in the
    :class:`~humaneval.core.ratings.Ratings` it was built from).

    Attributes
    ----------
    data:
        ``item, annotator, label, rater_kind`` (and ``criterion`` when there are several criteria),
        plus ``document, system`` (``opponent``, ``position``, ``shown_first``, ``length``,
        ``opponent_length`` when known) for the system-level and bias analyses; labels are floats
        (numeric) or strings (categorical).
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
        return sorted(self.data["criterion"].dropna().unique())

    def of_criterion(self, criterion: str | None) -> LabelView:
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


def label_view(source: Ratings | LabelView | Any) -> LabelView:
    """The judge analyses' view of ``source`` (a ratings table, or anything :func:`read_annotations` reads).

    The item of a rated summary is ``document|system`` (``|tuple_id`` for best–worst tables; the
    column ``item`` where the labels named their own items). A pairwise judgement is one item
    ``document|system|opponent`` seen from the alphabetically first system (its mirror row says
    the same thing), labelled 1 when that system won, 0 when it lost, 0.5 for a tie.
    ``document``, ``system``, ``opponent``, ``position``, ``shown_first`` and ``length`` (with
    ``opponent_length`` for pairs) travel along for the system-level and bias analyses. Attention
    checks are left out.

    Examples
    --------
    >>> view = label_view({"h1": {"q1": "A", "q2": "B"}, "h2": {"q1": "A", "q2": "A"}})
    >>> view.label_kind, view.human_names, view.data["label"].tolist()
    ('categorical', ['h1', 'h2'], ['A', 'B', 'A', 'A'])
    """
    if isinstance(source, LabelView):
        return source
    ratings = source if isinstance(source, Ratings) else read_annotations(source)
    data = ratings.data
    if "is_check" in data:
        data = data[~data["is_check"].astype(bool)]
    lengths = None
    if "opponent" in data:
        if "length" in data:
            lengths = data.drop_duplicates(["document", "system"]).set_index(["document", "system"])["length"]
        paired = data["opponent"].notna()
        data = data[~paired | (data["system"].astype(str) < data["opponent"].astype(str))]
    item = _summary_items(data)
    if "item" in data:
        item = data["item"].astype(object).where(data["item"].notna(), item)
    categorical = LABEL_TEXT in data
    label = data[LABEL_TEXT].astype(object) if categorical else ratings.with_data(data).reported()
    kind = data["rater_kind"].astype(str).to_numpy() if "rater_kind" in data else "human"
    frame = pd.DataFrame(
        {
            "item": item.astype(str).to_numpy(),
            "annotator": data["annotator"].astype(str).to_numpy(),
            "label": label.to_numpy(dtype=object if categorical else float),
            "rater_kind": kind,
        }
    )
    for column in ("criterion", "document", "system", "opponent", "position", "shown_first", "length"):
        if column in data:
            values = data[column]
            frame[column] = (values.astype(object) if column in CODED_COLUMNS else values).to_numpy()
    if lengths is not None:
        pairs = pd.MultiIndex.from_arrays([data["document"], data["opponent"]])
        frame["opponent_length"] = lengths.reindex(pairs).to_numpy()
    if "system" in frame and (frame["system"] == NO_SYSTEM).all():
        frame = frame.drop(columns=["document", "system"])  # items that name no summary
    return LabelView(
        data=frame, label_kind="categorical" if categorical else "numeric", source=ratings.source
    )


def read_annotations(
    source: str | Path | pd.DataFrame | dict | Ratings,
    *,
    rater_kind: str | None = None,
    judges: str | Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
) -> Ratings:
    """Read labels from the JSON layout, a long table, a ratings table or a dict into a ratings table.

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
        Annotators that are judges (names, or one string ``"a,b"`` as ``--mark-judges`` gives them).
    columns:
        Renames of a ratings table's columns, file name → canonical name (``--column``).

    Returns
    -------
    Ratings
        The labels, judge rows marked ``rater_kind = judge`` (see the module docstring for items
        that name no summary and for words).

    Raises
    ------
    RatingsError
        An unreadable file, missing columns, a human labelling an item twice, labels that mix
        numbers and words, or an unknown judge name.

    Examples
    --------
    >>> humans = {"ann1": {"q1": "A", "q2": "B"}, "ann2": {"q1": "A", "q2": "A"}}
    >>> table = read_annotations(humans)
    >>> table.annotators, table.data[["document", "system", "score", "label_text"]].values.tolist()[:2]
    (['ann1', 'ann2'], [['q1', '-', 1, 'A'], ['q2', '-', 2, 'B']])
    """
    if rater_kind is not None and rater_kind not in RATER_KINDS:
        raise RatingsError(f"rater_kind must be human or judge, not {rater_kind!r}")
    label = str(source) if isinstance(source, str | Path) else None
    if isinstance(source, Ratings):
        return _mark(source, rater_kind, judges)
    if isinstance(source, dict):
        frame = nested_labels(source, "the annotations: ", "annotator")
    elif isinstance(source, pd.DataFrame):
        frame = source.copy()
    else:
        frame = _read_file(Path(source))
    if columns:
        frame = frame.rename(columns=dict(columns))
    if _is_ratings_table(frame):
        # the judges are named before validation: their repeated samples are then not duplicates
        renames = dict(columns) if label and columns else None
        ratings = load_ratings(source if label else frame, judges=judges, continuous=True, columns=renames)
        return _mark(ratings, rater_kind, None)
    typed = label is None or Path(label).suffix.lower() in (".json", ".jsonl", ".ndjson")
    long, kind = _validate(frame, rater_kind, judge_list(judges), label, typed)
    return _as_ratings(long, kind, label)


def load_annotations(
    humans: str | Path | pd.DataFrame | dict | Ratings,
    judge_file: str | Path | pd.DataFrame | dict | None = None,
    *,
    judges: str | Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    judge_columns: Mapping[str, str] | None = None,
) -> Ratings:
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
    Ratings
        Both sides in one table, the judges' rows marked ``rater_kind = judge``.

    Raises
    ------
    RatingsError
        As :func:`read_annotations`, plus label types that differ between the files or a name
        that is both a human and a judge.

    Examples
    --------
    >>> people = {"h1": {"i1": 1, "i2": 3}, "h2": {"i1": 2, "i2": 3}}
    >>> table = load_annotations(people, {"gpt": {"i1": 2, "i2": [3, 4]}})
    >>> table.judge_names, len(table.judges()), len(label_view(table).labels())
    (['gpt'], 3, 6)
    """
    table = read_annotations(humans, judges=None if judge_file is not None else judges, columns=columns)
    if judge_file is None:
        return table
    where = f"{judge_file}: " if isinstance(judge_file, str | Path) else ""
    scores = read_judge_scores(judge_file, columns=judge_columns)
    rows = scores.rename(columns={"judge": "annotator", "score": "label"})
    other, kind = _validate(rows, "judge", [], where[:-2] or None, typed=True)
    names = [n for n in judge_list(judges) if n not in set(other["annotator"])]
    if names:
        table = mark_judges(table, names)
    both = f"{table.source or 'the human labels'} and {where[:-2] or 'the judge labels'}"
    own = "categorical" if LABEL_TEXT in table.data else "numeric"
    if own != kind:
        raise RatingsError(
            f"{both} mix label types ({own} and {kind}); give both the same labels (numbers for ratings, "
            "words for categories)"
        )
    shared = sorted(set(table.humans().annotators) & set(other["annotator"]))
    if shared:
        raise RatingsError(f"{both}: {shared[0]!r} is both a human and a judge; rename one of them")
    return _with_rows(table, _ratings_rows(other, kind), where[:-2] or None)


def _mark(table: Ratings, rater_kind: str | None, judges: str | Sequence[str] | None) -> Ratings:
    if rater_kind is not None:
        table = table.with_data(table.data.assign(rater_kind=rater_kind))
    names = judge_list(judges)
    return mark_judges(table, names) if names else table


def _summary_items(data: pd.DataFrame) -> pd.Series:
    """``document|system`` (``|opponent``, ``|tuple_id`` where present) of each row."""
    item = data["document"].astype(str) + "|" + data["system"].astype(str)
    for column in ("opponent", "tuple_id"):
        if column in data:
            present = data[column].notna()
            item = item.where(~present, item + "|" + data[column].astype(str))
    return item


def _ratings_rows(long: pd.DataFrame, kind: LabelKind) -> pd.DataFrame:
    """A validated long table (``item, annotator, label, rater_kind, ...``) as ratings rows."""
    data = long.copy()
    if not ("document" in data and "system" in data):
        parts = data["item"].str.rsplit("|", n=1)
        if len(data) and (parts.str.len() == 2).all():  # items that name a summary: document|system
            data["document"], data["system"] = parts.str[0], parts.str[1]
            data = data.drop(columns="item")
        else:
            data["document"], data["system"] = data["item"], NO_SYSTEM
    elif "item" in data:
        data = data.drop(columns="item")  # document|system (|opponent) again, as label_view builds it
    if kind == "categorical":
        data[LABEL_TEXT] = data["label"].astype(str)
    return data.rename(columns={"label": "score"})


def _as_ratings(long: pd.DataFrame, kind: LabelKind, source: str | None) -> Ratings:
    rows = _ratings_rows(long, kind)
    if kind == "categorical":
        rows["score"] = _codes(rows[LABEL_TEXT])
    return replace(load_ratings(rows, continuous=True), source=source)


def _codes(words: pd.Series) -> np.ndarray:
    """1, 2, ... for the words in sorted order (the same word, the same code)."""
    return np.searchsorted(np.array(sorted(words.unique())), words.to_numpy(dtype=str)) + 1


def _with_rows(table: Ratings, rows: pd.DataFrame, source: str | None) -> Ratings:
    """``table`` with ``rows`` (judge rows, ids as text) appended: validated already, not against the
    humans' scale (a judge off it is calibrated or refused by the analyses, docs/judges.md)."""
    data = table.data.copy()
    for column in CODED_COLUMNS:
        if column in data:
            data[column] = data[column].astype(object)
    if "rater_kind" not in data:
        data["rater_kind"] = "human"
    combined = pd.concat([data, rows], ignore_index=True)
    for column in CODED_COLUMNS:
        if column in combined:
            combined[column] = text_codes(combined[column])
    if "is_check" in combined:
        combined["is_check"] = combined["is_check"].fillna(False).astype(bool)
    if LABEL_TEXT in combined:
        combined["score"] = _codes(combined[LABEL_TEXT])
    scores = combined["score"].astype(float)
    sources = " + ".join(s for s in (table.source, source) if s) or None
    return replace(
        table,
        data=combined,
        continuous=table.continuous or bool((scores != np.round(scores)).any()),
        source=sources,
    )


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
) -> tuple[pd.DataFrame, LabelKind]:
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
    return data[columns + extra].reset_index(drop=True), kind


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
