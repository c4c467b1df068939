"""Planning a judge calibration: which items of a judge-scored pool to send to the humans.

:func:`plan_calibration` picks the human calibration subset of a judge-scored pool: whole
documents (so every system is rated on the same documents, balanced), spread over the judge's
score range, until the subset holds the requested number of items. How many items and humans the
alt-test needs is :func:`humaneval.judges.simulation.simulate_alt_test`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from humaneval.core.judge_scores import read_judge_scores
from humaneval.core.ratings import Ratings
from humaneval.errors import DesignError
from humaneval.judges.alttest import MIN_ITEMS, RECOMMENDED_HUMANS
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.printable import Printable

__all__ = ["CalibrationPlan", "plan_calibration"]


@dataclass(frozen=True, eq=False, repr=False)
class CalibrationPlan(Printable):
    """The documents to send to humans: ``items`` (``document, system, judge_score, stratum``), every
    pool document's inclusion ``probabilities`` and whether it was drawn (as
    :func:`humaneval.design.judged.choose_documents` gives them), and what the plan cannot promise
    (``notes``)."""

    items: pd.DataFrame
    humans_per_item: int
    probabilities: pd.DataFrame
    notes: tuple[str, ...] = ()

    @property
    def documents(self) -> tuple[str, ...]:
        """The chosen documents, sorted."""
        return tuple(sorted(self.probabilities.loc[self.probabilities["selected"], "document"]))

    def brief(self) -> str:
        """``20 documents, 100 items, 3 humans per item``, the ``repr``."""
        items = f"{len(self.items)} items, {self.humans_per_item} humans per item"
        return f"{len(self.documents)} documents, {items}"

    def blocks(self) -> tuple[Block, ...]:
        """The subset's size, the items per system and the notes."""
        counts = self.items["system"].value_counts()
        out: list[Block] = [
            Paragraph(
                (
                    f"Calibration subset: {len(self.documents)} documents, {len(self.items)} items "
                    f"({self.items['system'].nunique()} systems), each for {self.humans_per_item} humans.",
                )
            ),
            Paragraph((f"items per system: {counts.min()}–{counts.max()}",)),
        ]
        if self.notes:
            out.append(Bullets(tuple((f"Note: {n}",) for n in self.notes)))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": list(self.documents),
            "n_items": len(self.items),
            "humans_per_item": self.humans_per_item,
            "items": self.items.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def plan_calibration(
    pool: Ratings | pd.DataFrame,
    n_items: int = 100,
    *,
    humans_per_item: int = RECOMMENDED_HUMANS,
    criterion: str | None = None,
    strategy: str = "stratified",
    strata: int = 5,
    seed: int | None = 1,
) -> CalibrationPlan:
    """Choose whole documents of a judge-scored pool for the human calibration of the judge.

    The documents are drawn by :func:`humaneval.design.judged.choose_documents` — by default from
    ``strata`` strata of the judge's mean score per document, so the subset spans the judge's range,
    not just its typical scores — as many as hold ``n_items`` summaries on average; every system of
    a chosen document is in it, so the systems stay balanced. ``humaneval design --judge-scores POOL
    --calibration-items N`` calls it; the same pool and seed give the same documents as
    ``--documents n --choose stratified`` for the matching ``n``.

    Parameters
    ----------
    pool : Ratings or DataFrame
        The judge-scored pool: a ratings table (its judge rows, or every row when none is marked as a
        judge) or a judge file's ``document, system, score`` rows (optionally ``judge`` or
        ``annotator`` and ``criterion``).
    n_items : int
        Summaries to calibrate on (the authors: at least 30, 50–100 in most cases).
    humans_per_item : int
        Humans to rate each item (the authors recommend at least 3).
    criterion : str, optional
        The criterion whose judge scores order the documents (default: all, averaged).
    strategy : {"stratified", "random", "active"}
        How the documents are drawn (:func:`~humaneval.design.judged.choose_documents`).
    strata : int
        Strata of the stratified draw (at most one per document drawn).
    seed : int, optional
        Seed of the draw.

    Returns
    -------
    CalibrationPlan

    Raises
    ------
    DesignError
        Fewer than 2 humans per item, or a pool smaller than ``n_items``.
    RatingsError
        A judge table without ``document, system, score`` or with a score that is not a number.

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator test for LLM-as-a-judge:
    how to statistically justify replacing human annotators with LLMs. *ACL 2025*.
    """
    from humaneval.design.judged import choose_documents

    if humans_per_item < 2:
        raise DesignError(f"the alt-test needs at least 2 humans per item, not {humans_per_item}")
    scores = _judge_scores(pool, criterion)
    summaries = scores.groupby(["document", "system"], as_index=False)["score"].mean()
    summaries = summaries.rename(columns={"score": "judge_score"})
    if n_items > len(summaries):
        raise DesignError(
            f"the pool has {len(summaries)} summaries, fewer than the {n_items} items asked for"
        )
    per_document = len(summaries) / summaries["document"].nunique()
    n_documents = min(math.ceil(n_items / per_document), summaries["document"].nunique())
    picks = choose_documents(scores, n_documents, strategy=strategy, strata=strata, seed=seed)
    chosen = picks.loc[picks["selected"], "document"]
    items = summaries[summaries["document"].isin(chosen)]
    if "stratum" in picks:
        items = items.merge(picks[["document", "stratum"]], on="document")
    notes = []
    if n_items < MIN_ITEMS:
        notes.append(
            f"fewer than {MIN_ITEMS} items: the alt-test's t-tests need at least {MIN_ITEMS} per human"
        )
    if humans_per_item < RECOMMENDED_HUMANS:
        notes.append("the authors recommend at least three humans per item")
    return CalibrationPlan(
        items=items.sort_values(["document", "system"]).reset_index(drop=True),
        humans_per_item=humans_per_item,
        probabilities=picks,
        notes=tuple(notes),
    )


def _judge_scores(pool: Ratings | pd.DataFrame, criterion: str | None) -> pd.DataFrame:
    """``document, system, score, judge`` rows of the pool's judges (one criterion, if named)."""
    if isinstance(pool, Ratings):
        judged = pool.judges() if pool.has_judges else pool
        data = judged.data
        frame = pd.DataFrame(
            {
                "document": data["document"].astype(str),
                "system": data["system"].astype(str),
                "score": data[pool.response].astype(float),
                "judge": data["annotator"].astype(str),
            }
        )
        if "criterion" in data:
            frame["criterion"] = data["criterion"].to_numpy()
    else:  # a judge file's rows, read as every command reads one
        frame = read_judge_scores(pool)
    if criterion is not None and "criterion" in frame:
        frame = frame[frame["criterion"] == criterion]
    return frame
