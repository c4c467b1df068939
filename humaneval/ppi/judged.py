"""PPI from a ratings table: the human rows and one judge's scores (from the table or a file)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.core.docstrings import shared_docs
from humaneval.core.judge_scores import read_judge_scores
from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import OptionError, RatingsError
from humaneval.ppi.ordinal import PPIOrdinal, judge_categories, ppi_ordinal
from humaneval.ppi.pairwise import PPIPairwise, ppi_pairwise
from humaneval.ppi.systems import PPIAnalysis, ppi_systems

__all__ = ["MODELS", "analyze_ppi", "read_judge_scores", "split_judge"]

_NAME_COLUMNS = ("judge", "annotator")


def split_judge(
    data: pd.DataFrame, judge: str | None, judge_scores: pd.DataFrame | None
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """The human rows of a ratings table, one judge's ``document, system, score`` rows and its name.

    Judge rows are those with ``rater_kind = judge`` (their ``annotator`` is the judge's name) or
    the rows of ``judge_scores``; ``judge`` picks one when there are several.
    """
    kind = data["rater_kind"].astype(str).str.lower() if "rater_kind" in data else None
    humans = data if kind is None else data[kind != "judge"]
    if judge_scores is not None:
        pool, names = judge_scores, None
        for column in _NAME_COLUMNS:
            if column in judge_scores:
                names = judge_scores[column].astype(str)
                break
    elif (
        (kind is None or not (kind == "judge").any())
        and judge is not None
        and (data["annotator"] == judge).any()
    ):
        humans = data[data["annotator"] != judge]
        pool, names = (
            data[data["annotator"] == judge],
            data.loc[data["annotator"] == judge, "annotator"].astype(str),
        )
    else:
        if kind is None or not (kind == "judge").any():
            raise RatingsError(
                "the ratings table has no judge rows (rater_kind = judge); give the judge's scores with "
                "--judge-file"
            )
        pool, names = data[kind == "judge"], data.loc[kind == "judge", "annotator"].astype(str)
    available = sorted(names.unique()) if names is not None else []
    if judge is None:
        if len(available) > 1:
            raise OptionError(f"several judges ({', '.join(available)}); choose one with --judge")
        judge = available[0] if available else "judge"
    elif names is not None and judge not in available:
        raise OptionError(f"no judge {judge!r}; the judges are {', '.join(available)}")
    rows = pool if names is None else pool[names == judge]
    return humans, rows, judge


#: What ``analyze_ppi`` estimates for a score table: system means (PPI++) or proportional-odds contrasts.
MODELS = ("mean", "ordinal")


@shared_docs
def analyze_ppi(
    ratings: Ratings | pd.DataFrame,
    *,
    judge: str | None = None,
    judge_scores: pd.DataFrame | str | Path | None = None,
    criterion: str | None = None,
    model: str = "mean",
    judge_columns: Mapping[str, str] | None = None,
    **options: Any,
) -> PPIAnalysis | PPIOrdinal | PPIPairwise:
    """Prediction-powered inference on a ratings table with judge rows or a judge file (docs/ppi.md).

    A score table gets :func:`~humaneval.ppi.systems.ppi_systems` (``model="mean"``) or
    :func:`~humaneval.ppi.ordinal.ppi_ordinal` (``model="ordinal"``; a judge whose scores are not whole
    numbers on the rating scale is binned by :func:`~humaneval.ppi.ordinal.judge_categories`); a pairwise
    table (``opponent``) gets :func:`~humaneval.ppi.pairwise.ppi_pairwise`.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        Human ratings (``score``), possibly with judge rows marked ``rater_kind = judge``.
    judge : str, optional
        The judge's name (needed when there are several).
    judge_scores : DataFrame, path or dict, optional
        The judge's scores when they are not in ``ratings``, in any layout
        :func:`~humaneval.core.judge_scores.read_judge_scores` reads (``document, system, score[, judge]``).
    criterion : str, optional
        %(criterion_when_several)s
    model : {"mean", "ordinal"}
        For score tables.
    judge_columns : mapping, optional
        Renames of the judge file's columns, file name → canonical name (``--judge-column``).
    **options
        Passed to :func:`~humaneval.ppi.systems.ppi_systems` (``confidence_level``, ``adjust``, ``cluster``,
        ``probabilities``, ``n_resamples``, ``seed``).

    Returns
    -------
    PPIAnalysis, PPIOrdinal or PPIPairwise
    """
    if model not in MODELS:
        raise OptionError(f"unknown model {model!r}; use one of {', '.join(MODELS)}")
    data = ratings.data if isinstance(ratings, Ratings) else as_ratings(ratings).data
    if "score" not in data:
        raise RatingsError("PPI needs scores: a rating scale or pairwise verdicts (1 won, 0 lost, 0.5 tie)")
    pool = None
    if judge_scores is not None:
        pool = read_judge_scores(judge_scores, columns=judge_columns)
        if "document" not in pool or "system" not in pool:
            raise RatingsError(
                "the judge file names items, not summaries: PPI needs each score's document and system "
                "(columns document, system, or items written document|system)"
            )
    humans, judged, name = split_judge(data, judge, pool)
    if "is_check" in humans:
        humans = humans[~humans["is_check"].astype(bool)]
    criteria = sorted(humans["criterion"].unique()) if "criterion" in humans else [None]
    if criterion is None and len(criteria) > 1:
        raise OptionError(f"several criteria ({', '.join(map(str, criteria))}); choose one with --criterion")
    criterion = criterion if criterion is not None else criteria[0]
    if criterion is not None:
        if criterion not in criteria:
            raise OptionError(f"no criterion {criterion!r}; the criteria are {', '.join(map(str, criteria))}")
        humans = humans[humans["criterion"] == criterion]
        if "criterion" in judged:
            judged = judged[judged["criterion"] == criterion]
    if "opponent" in humans and humans["opponent"].notna().any():
        keep = {k: options[k] for k in ("adjust", "confidence_level") if k in options}
        return ppi_pairwise(humans, judged, judge_name=name, **keep)
    if model == "ordinal":
        return _ordinal(humans, judged, name, ratings, options)
    return ppi_systems(humans, judged, judge_name=name, criterion=criterion, **options)


def _ordinal(humans, judged, name, ratings, options) -> PPIOrdinal:
    """The proportional-odds contrasts, with a continuous judge binned into the scale's categories."""
    scores = pd.to_numeric(humans["score"], errors="coerce")
    low, high = (
        tuple(int(v) for v in ratings.scale)
        if isinstance(ratings, Ratings)
        else (int(scores.min()), int(scores.max()))
    )
    values = pd.to_numeric(judged["score"], errors="coerce")
    on_scale = (values == values.round()).all() and values.between(low, high).all()
    if not on_scale:
        judged = judged.assign(score=judge_categories(values, high - low + 1, low))
    keep = {k: options[k] for k in ("adjust", "confidence_level") if k in options}
    return ppi_ordinal(humans, judged, judge_name=name, scale=(low, high), **keep)
