"""From long tables to the units of prediction-powered inference, with the input checks.

A summary's human score is the mean of its annotators' scores (the summary, not the rating, is the
unit); the judge gives one score per summary. Documents are independent unless annotators tie them
together: the clusters are the connected components of the annotator–document graph
(:func:`humaneval.core.structure.cluster_labels`), i.e. the blocks of a block design, or the documents
themselves when every annotator rated one document or when one set of annotators rated everything
(a fully crossed design, whose annotators are then treated as fixed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.core.structure import cluster_labels
from humaneval.errors import InsufficientDataError, OptionError, RatingsError
from humaneval.ppi.checks import check_clusters, check_judge_scores

__all__ = ["CLUSTERINGS", "MIN_UNITS", "Items", "judged_items"]

#: How units are clustered: ``auto`` (blocks when annotators tie several documents together in more
#: than one block, else documents), ``document`` or ``block``.
CLUSTERINGS = ("auto", "document", "block")
#: Fewest human-rated units (summaries for a system, documents for a pair) an estimate is made from.
MIN_UNITS = 10


@dataclass(frozen=True)
class Items:
    """Per summary: the mean human score (NaN where no human rated it), the judge score, the number
    of annotators and the cluster of its document."""

    table: pd.DataFrame  # document, system, human, judge, n_annotators, cluster
    clustering: str
    n_clusters: int
    judge: str

    @property
    def systems(self) -> list[str]:
        return sorted(self.table["system"].unique())


def judged_items(
    human: pd.DataFrame, judge: pd.DataFrame, *, judge_name: str = "judge", cluster: str = "auto"
) -> Items:
    """Join the human ratings (``annotator, document, system, score``) and the judge's scores
    (``document, system, score``) into one row per judged summary, after the input checks.

    Raises
    ------
    RatingsError
        The judge misses some human-rated summaries, scores a summary twice, or is constant.
    InsufficientDataError
        A system has no human ratings.
    OptionError
        An unknown clustering.
    """
    if cluster not in CLUSTERINGS:
        raise OptionError(f"unknown clustering {cluster!r}; use one of {', '.join(CLUSTERINGS)}")
    for name, frame, needed in (
        ("human ratings", human, ("annotator", "document", "system", "score")),
        (f"judge {judge_name!r}", judge, ("document", "system", "score")),
    ):
        missing = [c for c in needed if c not in frame]
        if missing:
            raise RatingsError(f"{name}: no column {', '.join(missing)}; give {', '.join(needed)}")
    human = _numeric(human, "human ratings").astype({"document": str, "system": str})
    judge = _numeric(judge, f"judge {judge_name!r}").astype({"document": str, "system": str})
    if human.empty:
        raise InsufficientDataError(
            "no human ratings: PPI corrects a judge with human ratings of some summaries"
        )
    twice = judge.duplicated(["document", "system"], keep=False)
    if twice.any():
        row = judge[twice].iloc[0]
        raise RatingsError(
            f"judge {judge_name!r} scores document {row['document']}, system {row['system']} "
            f"{int(twice.sum())} times in all; give one score per summary"
        )
    if judge["score"].nunique() < 2:
        raise RatingsError(
            f"judge {judge_name!r} gives every summary the same score ({judge['score'].iloc[0]:g}): a "
            "constant judge carries no information; use another judge, or analyse the human ratings alone "
            "(humaneval analyze)"
        )
    check_judge_scores(judge, judge_name)
    rated = human.groupby(["document", "system"], sort=True)["score"].agg(["mean", "size"])
    scores = judge.set_index(["document", "system"])["score"].astype(float)
    unjudged = rated.index.difference(scores.index)
    if len(unjudged) and len(unjudged) == len(rated):
        mine, theirs = rated.index[0], scores.index[0]
        raise RatingsError(
            f"no document–system id of the human ratings matches one of judge {judge_name!r}'s scores: "
            f"the humans rated e.g. document {mine[0]!r}, system {mine[1]!r}; the judge scored e.g. "
            f"document {theirs[0]!r}, system {theirs[1]!r}; give both files the same ids (map columns "
            "with --column and --judge-column)"
        )
    if len(unjudged):
        doc, system = unjudged[0]
        raise RatingsError(
            f"judge {judge_name!r} has no score for {len(unjudged)} of the {len(rated)} human-rated "
            f"summaries (e.g. document {doc}, system {system}); score every summary the humans rated, or "
            "drop those ratings"
        )
    unrated = sorted(
        set(scores.index.get_level_values("system")) - set(rated.index.get_level_values("system"))
    )
    if unrated:
        raise InsufficientDataError(
            f"system {unrated[0]!r} has no human ratings ({len(unrated)} such system(s)); PPI needs human "
            f"ratings of at least {MIN_UNITS} summaries of every system (or leave the system out)"
        )
    table = pd.DataFrame({"judge": scores})
    table["human"] = rated["mean"].reindex(table.index)
    table["n_annotators"] = rated["size"].reindex(table.index).fillna(0).astype(int)
    table = table.reset_index()
    blocks = cluster_labels(human)
    block_of = dict(zip(human["document"], blocks, strict=True))
    n_blocks = int(blocks.max()) + 1
    n_rated_docs = human["document"].nunique()
    if cluster == "auto":
        cluster = "block" if 1 < n_blocks < n_rated_docs else "document"
    if cluster == "block":
        codes = [block_of.get(d, -1) for d in table["document"]]
        doc_codes = pd.factorize(table["document"])[0] + n_blocks
        table["cluster"] = np.where(np.asarray(codes) >= 0, codes, doc_codes)
    else:
        table["cluster"] = pd.factorize(table["document"])[0]
    table["cluster"] = pd.factorize(table["cluster"])[0]
    check_clusters(table.loc[table["human"].notna(), "cluster"].nunique(), cluster)
    return Items(
        table=table[["document", "system", "human", "judge", "n_annotators", "cluster"]],
        clustering=cluster,
        n_clusters=int(table["cluster"].max()) + 1,
        judge=judge_name,
    )


def _numeric(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """``frame`` with numeric scores and without missing ones; a score that is not a number is an error."""
    scores = pd.to_numeric(frame["score"], errors="coerce")
    bad = scores.isna() & frame["score"].notna() & (frame["score"].astype(str).str.strip() != "")
    if bad.any():
        raise RatingsError(f"{name}: score {frame['score'][bad].iloc[0]!r} is not a number")
    return frame.assign(score=scores.astype(float))[scores.notna()]
