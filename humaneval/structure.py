"""Structure of a study: independent clusters (blocks) and the design family.

docs/analysis.md The annotator–document graph has one edge per judgement; its
connected components are the *clusters*: different clusters share neither annotators nor
documents and are therefore independent. A cluster is *fully crossed within* when each of its
annotators judged all of its documents. The design family is

- ``nested`` — every cluster has exactly one annotator;
- ``fully_crossed`` — a single fully crossed cluster with at least two annotators;
- ``crossed_in_blocks`` — several clusters, all fully crossed within, each with ≥ 2 annotators;
- ``irregular`` — anything else.

Later stages choose their random-effect structure (CLMM) and split-half procedure from it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.ratings import Ratings, as_ratings

Family = Literal["nested", "fully_crossed", "crossed_in_blocks", "irregular"]


@dataclass(frozen=True)
class Spread:
    """Minimum, mean and maximum of a count."""

    min: int
    mean: float
    max: int

    @classmethod
    def of(cls, counts: pd.Series) -> Spread:
        return cls(int(counts.min()), float(counts.mean()), int(counts.max()))

    def __str__(self) -> str:
        if self.min == self.max:
            return str(self.min)
        return f"{self.min}–{self.max} (mean {self.mean:.2f})"


@dataclass(frozen=True)
class DesignStructure:
    """What :func:`describe_structure` found out about a ratings table."""

    n_ratings: int
    n_annotators: int
    n_documents: int
    n_systems: int
    n_criteria: int
    response: str
    scale: tuple[float, float]
    scale_declared: bool
    rank_base: int | None
    judgements_per_summary: Spread
    annotators_per_document: Spread
    documents_per_annotator: Spread
    n_blocks: int
    block_annotators: Spread
    block_documents: Spread
    blocks_fully_crossed: bool
    family: Family
    n_checks: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def cluster_labels(ratings: Ratings | pd.DataFrame) -> pd.Series:
    """Cluster (block) id of every row: connected components of the annotator–document graph.

    Clusters are numbered 0, 1, ... in the order of their first appearance in the table.
    """
    data = ratings.data if isinstance(ratings, Ratings) else ratings
    ann_codes, _ = pd.factorize(data["annotator"])
    doc_codes, docs = pd.factorize(data["document"])
    n_ann = ann_codes.max() + 1
    n = n_ann + len(docs)
    graph = coo_matrix((np.ones(len(data)), (ann_codes, n_ann + doc_codes)), shape=(n, n))
    _, comp = connected_components(graph, directed=False)
    _, first, inverse = np.unique(comp[ann_codes], return_index=True, return_inverse=True)
    by_appearance = np.argsort(np.argsort(first))
    return pd.Series(by_appearance[inverse], index=data.index, name="block")


def describe_structure(ratings: Ratings | pd.DataFrame) -> DesignStructure:
    """Counts, judgements per summary, blocks and design family of a ratings table.

    Attention-check rows are left out of the structure (they are not part of the design's
    analysis) but counted in ``n_checks``.
    """
    ratings = as_ratings(ratings)
    n_checks = int(ratings.data["is_check"].sum()) if "is_check" in ratings.data else 0
    data = ratings.without_checks().data
    first_criterion = data["criterion"].iloc[0] if "criterion" in data else None
    design = data[data["criterion"] == first_criterion] if first_criterion is not None else data
    # the id strings are hashed once here; every count below runs on their integer codes
    ids = pd.DataFrame(
        {c: pd.factorize(design[c])[0] for c in ("annotator", "document", "system")}, index=design.index
    )
    whole = ids if design is data else data
    pairs = ids[["annotator", "document"]].drop_duplicates()
    blocks = cluster_labels(pairs)
    pairs = pairs.assign(block=blocks.to_numpy())
    per_block = pairs.groupby("block").agg(
        annotators=("annotator", "nunique"), documents=("document", "nunique"), pairs=("annotator", "size")
    )
    crossed = bool((per_block["pairs"] == per_block["annotators"] * per_block["documents"]).all())
    family: Family
    if (per_block["annotators"] == 1).all():
        family = "nested"
    elif crossed and len(per_block) == 1:
        family = "fully_crossed"
    elif crossed and (per_block["annotators"] >= 2).all():
        family = "crossed_in_blocks"
    else:
        family = "irregular"
    return DesignStructure(
        n_ratings=len(data),
        n_annotators=whole["annotator"].nunique(),
        n_documents=whole["document"].nunique(),
        n_systems=whole["system"].nunique(),
        n_criteria=data["criterion"].nunique() if "criterion" in data else 1,
        response=ratings.response,
        scale=ratings.scale,
        scale_declared=ratings.scale_declared,
        rank_base=ratings.rank_base,
        judgements_per_summary=Spread.of(ids.groupby(["document", "system"]).size()),
        annotators_per_document=Spread.of(pairs.groupby("document").size()),
        documents_per_annotator=Spread.of(pairs.groupby("annotator").size()),
        n_blocks=len(per_block),
        block_annotators=Spread.of(per_block["annotators"]),
        block_documents=Spread.of(per_block["documents"]),
        blocks_fully_crossed=crossed,
        family=family,
        n_checks=n_checks,
    )
