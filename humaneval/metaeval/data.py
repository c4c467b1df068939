"""Loading human and metric scores and aligning them by key into system × document matrices.

See docs/metaeval.md: the public interface is long tables keyed by
``(document, system)``; internally every measure works on matrices H and P of shape |S|×|D|
(systems and documents sorted by label, NaN for a missing cell) that are aligned **by key**,
never by row position. Keys present on one side only are reported, not silently dropped.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.ratings import ALIASES, Ratings, load_ratings, select_criterion
from humaneval.errors import RatingsError
from humaneval.io.tables import read_table, read_table_lines

DOCUMENT_ALIASES = ("document", "doc", "doc_id", "document_id", "input", "item", "id")
SYSTEM_ALIASES = ("system", "summarizer", "model", "model_id", "sys")
_ANNOTATOR_ALIASES = ("annotator", *(k for k, v in ALIASES.items() if v == "annotator"))


class AlignmentWarning(UserWarning):
    """Human and metric tables do not cover the same (document, system) keys."""


def _find_column(
    frame: pd.DataFrame, given: str | None, aliases: tuple[str, ...], what: str, src: str
) -> str:
    if given is not None:
        if given not in frame.columns:
            raise RatingsError(
                f"{src}: no column {given!r} for the {what}; the columns are {list(frame.columns)}"
            )
        return given
    lower = {str(c).lower(): c for c in frame.columns}
    for alias in aliases:
        if alias in lower:
            return lower[alias]
    raise RatingsError(
        f"{src}: no {what} column (looked for {', '.join(aliases)}); "
        f"name it explicitly with --{what}-col / {what}_col="
    )


def read_scores(
    source: str | Path | pd.DataFrame,
    column: str | None = None,
    *,
    document_col: str | None = None,
    system_col: str | None = None,
) -> pd.Series:
    """Read one score column of a table keyed by (document, system).

    ``source`` is a CSV/TSV/JSONL path (read with :func:`humaneval.io.tables.read_table`) or a
    DataFrame. Key columns are found by alias (``doc``/``document``…, ``summarizer``/``system``…)
    unless named; ``column`` defaults to the first non-key column, so the SummEval cache files
    (``doc,summarizer,<scores>``) load as they are. Returns a float Series indexed by
    ``(document, system)`` (str ids) and named after the column. Duplicate keys and non-numeric
    values raise :class:`RatingsError` naming the line; empty cells become NaN.

    Raises
    ------
    RatingsError
        No document or system column, an unknown score column, duplicate keys or non-numbers.

    Examples
    --------
    SummEval-style key columns (``doc``, ``summarizer``) are found by alias:

    >>> import pandas as pd
    >>> scores = read_scores(pd.DataFrame({"doc": ["d1", "d1", "d2", "d2"],
    ...                                    "summarizer": ["A", "B", "A", "B"],
    ...                                    "rouge": [0.3, 0.4, 0.2, 0.5]}))
    >>> scores.name, list(scores.index.names), float(scores[("d2", "B")])
    ('rouge', ['document', 'system'], 0.5)
    """
    src = str(source) if not isinstance(source, pd.DataFrame) else "scores table"
    if isinstance(source, pd.DataFrame):
        frame, lines = source, np.arange(2, len(source) + 2)
    else:
        frame, lines = read_table_lines(source, what="score table")
    doc = _find_column(frame, document_col, DOCUMENT_ALIASES, "document", src)
    sys_ = _find_column(frame, system_col, SYSTEM_ALIASES, "system", src)
    others = [c for c in frame.columns if c not in (doc, sys_)]
    if column is None:
        if not others:
            raise RatingsError(f"{src}: no score column besides {doc!r} and {sys_!r}")
        column = others[0]
    elif column not in frame.columns:
        raise RatingsError(f"{src}: no score column {column!r}; the score columns are {others}")
    values = pd.to_numeric(frame[column], errors="coerce").astype(float)
    bad = values.isna() & frame[column].notna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise RatingsError(
            f"{src}, line {lines[i]}, column {column!r}: {frame[column].iloc[i]!r} is not a number; "
            "scores must be numeric (leave the cell empty for a missing score)"
        )
    infinite = np.isinf(values.to_numpy())
    if infinite.any():
        i = int(np.flatnonzero(infinite)[0])
        raise RatingsError(
            f"{src}, line {lines[i]}, column {column!r}: {frame[column].iloc[i]!r} is not a finite score; "
            "fix the value (leave the cell empty for a missing score)"
        )
    keys = pd.MultiIndex.from_arrays(
        [frame[doc].astype(str).str.strip(), frame[sys_].astype(str).str.strip()],
        names=["document", "system"],
    )
    duplicated = keys.duplicated()
    if duplicated.any():
        i = int(np.flatnonzero(duplicated)[0])
        raise RatingsError(
            f"{src}, line {lines[i]}: duplicate key (document {keys[i][0]!r}, system {keys[i][1]!r}); "
            "a metric table holds one row per summary"
        )
    return pd.Series(values.to_numpy(), index=keys, name=str(column))


def human_scores(
    ratings: Ratings | pd.DataFrame,
    *,
    aggregate: Literal["mean", "median"] = "mean",
    annotator: str | None = None,
    criterion: str | None = None,
) -> pd.Series:
    """Gold scores H(d, s) from a ratings table.

    Default: the arithmetic mean over the annotators who rated (d, s); ``aggregate="median"``
    takes the median; ``annotator=<id>`` uses that annotator alone. Ranks are oriented so that
    higher is better (negated). A table with several criteria needs ``criterion``.
    """
    ratings = select_criterion(ratings if isinstance(ratings, Ratings) else load_ratings(ratings), criterion)
    data = ratings.data.assign(_value=ratings.oriented().astype(float))
    if annotator is not None:
        data = data[data["annotator"] == annotator]
        if data.empty:
            raise RatingsError(f"ratings: no judgements by annotator {annotator!r}")
    grouped = data.groupby(["document", "system"], sort=True)["_value"]
    gold = grouped.mean() if aggregate == "mean" else grouped.median()
    return gold.rename("human")


def read_human(
    source: str | Path | pd.DataFrame,
    column: str | None = None,
    *,
    document_col: str | None = None,
    system_col: str | None = None,
    aggregate: Literal["mean", "median"] = "mean",
    criterion: str | None = None,
) -> pd.Series:
    """Gold scores from either a ratings table (has an annotator column: averaged per summary by
    :func:`human_scores`) or a precomputed table keyed by (document, system) (:func:`read_scores`).

    Examples
    --------
    The wine judges' mean rating per bottle (document) and condition (system):

    >>> from humaneval.io.datasets import wine_ratings
    >>> human = read_human(wine_ratings())
    >>> len(human), round(float(human[("1", "cold-no")]), 3), round(17 / 9, 3)
    (8, 1.889, 1.889)
    """
    frame = read_table(source, what="human score table") if not isinstance(source, pd.DataFrame) else source
    if any(str(c).lower() in _ANNOTATOR_ALIASES for c in frame.columns):
        renames = {}
        if document_col:
            renames[document_col] = "document"
        if system_col:
            renames[system_col] = "system"
        if column:
            renames[column] = "score"
        src = source if not isinstance(source, pd.DataFrame) else frame
        ratings = load_ratings(src, columns=renames, continuous=True, allow_ties=True)
        return human_scores(ratings, aggregate=aggregate, criterion=criterion)
    table = frame if isinstance(source, pd.DataFrame) else source
    human = read_scores(table, column, document_col=document_col, system_col=system_col).rename("human")
    if human.notna().sum() < 2:
        label = "the human table" if isinstance(source, pd.DataFrame) else str(source)
        raise RatingsError(
            f"{label}: only {int(human.notna().sum())} non-empty human score(s); "
            "give human scores for at least 2 summaries"
        )
    return human


@dataclass(frozen=True)
class ScoreMatrices:
    """Human and metric scores aligned by key on one systems × documents grid.

    ``human`` is |S|×|D|; ``metrics`` maps a metric name to a matrix of the same shape (NaN where
    the metric has no score). ``dropped`` maps a metric name to the number of its keys that are not
    in the human table, ``missing`` to the number of human cells it does not score.
    """

    human: np.ndarray
    metrics: dict[str, np.ndarray]
    systems: list[str]
    documents: list[str]
    dropped: dict[str, int] = field(default_factory=dict)
    missing: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "systems": self.systems,
            "documents": self.documents,
            "n_systems": len(self.systems),
            "n_documents": len(self.documents),
            "metrics": list(self.metrics),
            "dropped": self.dropped,
            "missing": self.missing,
        }


def to_matrix(scores: pd.Series) -> tuple[np.ndarray, list[str], list[str]]:
    """``(M, systems, documents)``: M[s, d] = score, systems and documents sorted by label, NaN if absent."""
    frame = scores.unstack("document")
    frame = frame.sort_index(axis=0).sort_index(axis=1)
    return frame.to_numpy(dtype=float), [str(s) for s in frame.index], [str(d) for d in frame.columns]


def align(
    human: pd.Series,
    metrics: Mapping[str, pd.Series] | pd.Series,
    *,
    strict: bool = False,
) -> ScoreMatrices:
    """Align metric scores to the human grid by (document, system) key.

    Metric keys absent from the human table are dropped and human cells a metric does not cover
    are NaN (so every measure uses the intersection); both are counted in the result and reported
    with an :class:`AlignmentWarning`, or raised as :class:`RatingsError` with ``strict=True``.
    """
    if isinstance(metrics, pd.Series):
        metrics = {str(metrics.name): metrics}
    if not metrics:
        raise RatingsError("no metric scores given; pass at least one metric table")
    H, systems, documents = to_matrix(human)
    grid = pd.MultiIndex.from_product([documents, systems], names=["document", "system"])
    present = pd.Series(H.T.ravel(), index=grid).notna()
    if present.sum() < 2:
        raise RatingsError(
            f"the human table has {int(present.sum())} score(s); it needs scores for at least 2 summaries"
        )
    known = set(present.index[present])
    matrices, dropped, missing = {}, {}, {}
    for name, series in metrics.items():
        series = series.copy()
        series.index = series.index.set_names(["document", "system"])
        extra = [k for k in series.index if k not in known]
        covered = series.reindex(grid)
        n_missing = int((present & covered.isna()).sum())
        dropped[name], missing[name] = len(extra), n_missing
        n_common = int((present & covered.notna()).sum())
        if n_common < 2:
            raise RatingsError(
                f"metric {name!r}: scores {n_common} of the {int(present.sum())} human-scored summaries "
                f"({len(series)} rows, {int(series.isna().sum())} empty, {len(extra)} with a key not in "
                "the human table); check that its document and system ids match the human table's"
            )
        if extra or n_missing:
            example = f" (e.g. document {extra[0][0]!r}, system {extra[0][1]!r})" if extra else ""
            message = (
                f"metric {name!r}: {len(extra)} key(s) not in the human table were dropped{example}, "
                f"{n_missing} human cell(s) have no metric score"
            )
            if strict:
                raise RatingsError(message + "; fix the keys or drop strict=True to use the intersection")
            warnings.warn(message, AlignmentWarning, stacklevel=caller_stacklevel())
        matrices[name] = covered.to_numpy(dtype=float).reshape(len(documents), len(systems)).T.copy()
    return ScoreMatrices(H, matrices, systems, documents, dropped, missing)


@dataclass(frozen=True)
class HumanAnchor:
    """The HUM row of a results table: the annotator who agrees worst with the others
    (τ_b, pooled over summaries, against the mean of the remaining annotators), their raw scores as
    a "metric", and the gold to compare them with."""

    annotator: str
    agreement: dict[str, float]
    scores: pd.Series
    gold: pd.Series

    def to_dict(self) -> dict:
        return {"annotator": self.annotator, "agreement": self.agreement}


def human_anchor(ratings: Ratings | pd.DataFrame, *, exclude_from_gold: bool = False) -> HumanAnchor:
    """Pick the HUM anchor annotator. By default the gold keeps that annotator (as the reference
    implementation);
    ``exclude_from_gold=True`` recomputes it without them."""
    from scipy import stats

    ratings = ratings if isinstance(ratings, Ratings) else load_ratings(ratings)
    ratings = ratings.without_checks()
    data = ratings.data.assign(_value=ratings.oriented().astype(float))
    if ratings.annotators and len(ratings.annotators) < 2:
        raise RatingsError("the HUM anchor needs at least two annotators")
    agreement = {}
    for annotator in ratings.annotators:
        own = data[data["annotator"] == annotator].groupby(["document", "system"])["_value"].mean()
        rest = data[data["annotator"] != annotator].groupby(["document", "system"])["_value"].mean()
        both = pd.concat([own, rest], axis=1, join="inner").dropna()
        agreement[annotator] = (
            float(stats.kendalltau(both.iloc[:, 0], both.iloc[:, 1]).statistic) if len(both) >= 2 else np.nan
        )
    defined = {k: v for k, v in agreement.items() if not np.isnan(v)}
    if not defined:
        raise RatingsError(
            "no annotator shares two or more summaries with the others; cannot pick a HUM anchor"
        )
    anchor = min(defined, key=lambda k: (defined[k], k))
    scores = data[data["annotator"] == anchor].groupby(["document", "system"])["_value"].mean().rename("HUM")
    kept = (
        ratings.with_data(ratings.data[ratings.data["annotator"] != anchor]) if exclude_from_gold else ratings
    )
    return HumanAnchor(anchor, agreement, scores, human_scores(kept))
