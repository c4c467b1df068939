"""What a ratings table holds and how many judgements it has: the kind of a table (``likert``,
``pairwise``, ``bws``, ``ranking``) decides its method (:func:`~humaneval.methods.get_method`), whose
``unit`` says how many rows one judgement takes."""

from __future__ import annotations

from typing import Literal, cast

import pandas as pd

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.core.responses import RANK, SCORE, lower_is_better
from humaneval.core.units import judgements_in
from humaneval.methods import get_method

Kind = Literal["likert", "pairwise", "bws", "ranking"]


def count_judgements(ratings: Ratings | pd.DataFrame) -> int:
    """The judgements in a ratings table, attention checks left out: one per pairwise comparison
    (two rows), one per best–worst tuple judged (one row per shown summary), one per row otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> count_judgements(pd.DataFrame({"annotator": ["w"] * 2, "document": ["d"] * 2,
    ...                                "system": ["A", "B"], "opponent": ["B", "A"], "score": [1.0, 0.0]}))
    1
    """
    table = as_ratings(ratings).without_checks()
    return judgements_in(table.data, get_method(detect_kind(table)).unit)


def detect_kind(ratings: Ratings | pd.DataFrame) -> Kind:
    """What a ratings table holds: ``pairwise``, ``bws``, ``ranking`` or ``likert`` (any rating scale).

    A table with an ``opponent`` column and scores in {0, 0.5, 1} is pairwise; one with a
    ``tuple_id`` column and scores in {−1, 0, 1} is best–worst; a ``rank`` response is a ranking.
    Attention-check rows are ignored.

    Examples
    --------
    >>> import pandas as pd
    >>> detect_kind(pd.DataFrame({"annotator": ["w"] * 2, "document": ["d"] * 2, "system": ["A", "B"],
    ...                           "opponent": ["B", "A"], "score": [1.0, 0.0]}))
    'pairwise'
    """
    data = ratings.without_checks().data if isinstance(ratings, Ratings) else ratings
    if isinstance(ratings, Ratings):
        response = ratings.response
    else:
        response = RANK if RANK in data and SCORE not in data else SCORE
    if lower_is_better(response):
        return cast(Kind, get_method(RANK).table_kind)  # the registry names one of the kinds
    if "score" not in data:
        return "likert"
    score = pd.to_numeric(data["score"], errors="coerce").dropna()
    if "opponent" in data and data["opponent"].notna().all() and score.isin([0, 0.5, 1]).all():
        return "pairwise"
    if "tuple_id" in data and data["tuple_id"].notna().all() and score.isin([-1, 0, 1]).all():
        return "bws"
    return "likert"
