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

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol, overload

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.io.tables import codes_of
from humaneval.present.printable import Printable

Family = Literal["nested", "fully_crossed", "crossed_in_blocks", "irregular"]


@dataclass(frozen=True)
class Spread:
    """Minimum, mean and maximum of a count."""

    min: int
    mean: float
    max: int

    @classmethod
    def of(cls, counts: pd.Series | np.ndarray) -> Spread:
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


def _nonzero(counts: np.ndarray) -> np.ndarray:
    return counts[counts > 0]


class MethodTableLike(Protocol):
    """A table of another method's answers (:class:`humaneval.methods.base.MethodTable`, a layer above)."""

    @property
    def method(self) -> str: ...


_BY_METHOD: dict[str, Callable[[Any], Printable]] = {}


def register_structure(method: str, describe: Callable[[Any], Printable]) -> None:
    """Add how a table of another method's answers (``table.method``, a span table) is described, from the
    package that reads it (above this layer): ``humaneval.spans.adapter`` registers the span tables'."""
    _BY_METHOD[method] = describe


@overload
def describe_structure(ratings: Ratings | pd.DataFrame) -> DesignStructure: ...
@overload
def describe_structure(ratings: MethodTableLike) -> Printable: ...
def describe_structure(ratings: Ratings | pd.DataFrame | MethodTableLike) -> DesignStructure | Printable:
    """Counts, judgements per summary, blocks and design family of a ratings table.

    Attention-check rows are left out of the structure (they are not part of the design's
    analysis) but counted in ``n_checks``. A table of another method's answers (a span table,
    docs/spans.md) gets the description its method registered (:func:`register_structure`).
    """
    if not isinstance(ratings, Ratings | pd.DataFrame):
        return _BY_METHOD[ratings.method](ratings)
    ratings = as_ratings(ratings)
    n_checks = int(ratings.data["is_check"].sum()) if "is_check" in ratings.data else 0
    data = ratings.without_checks().data
    first_criterion = data["criterion"].iloc[0] if "criterion" in data else None
    design = data[data["criterion"] == first_criterion] if first_criterion is not None else data
    # every count runs on the ids' integer codes (a validated table's categorical codes: no hashing)
    ann, doc, sys_ = (codes_of(design[c])[0] for c in ("annotator", "document", "system"))
    n_ann, n_doc, n_sys = (int(c.max(initial=-1)) + 1 for c in (ann, doc, sys_))
    n_doc = max(n_doc, 1)
    pair = pd.unique(ann * n_doc + doc)  # hashing: faster than sorting
    pair_ann, pair_doc = pair // n_doc, pair % n_doc
    graph = coo_matrix((np.ones(pair.size), (pair_ann, n_ann + pair_doc)), shape=(n_ann + n_doc,) * 2)
    _, comp = connected_components(graph, directed=False)
    used_ann = np.flatnonzero(np.bincount(pair_ann, minlength=n_ann))
    used_doc = np.flatnonzero(np.bincount(pair_doc, minlength=n_doc))
    n_comp = int(comp.max(initial=-1)) + 1
    per_block = pd.DataFrame(
        {
            "annotators": np.bincount(comp[used_ann], minlength=n_comp),
            "documents": np.bincount(comp[n_ann + used_doc], minlength=n_comp),
            "pairs": np.bincount(comp[pair_ann], minlength=n_comp),
        }
    )
    per_block = per_block[per_block["pairs"] > 0]  # ids without ratings are nodes of no block
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
    if design is data:
        n_annotators, n_documents, n_systems = (
            used_ann.size,
            used_doc.size,
            np.count_nonzero(np.bincount(sys_)),
        )
    else:
        n_annotators, n_documents, n_systems = (
            data[c].nunique() for c in ("annotator", "document", "system")
        )
    return DesignStructure(
        n_ratings=len(data),
        n_annotators=int(n_annotators),
        n_documents=int(n_documents),
        n_systems=int(n_systems),
        n_criteria=data["criterion"].nunique() if "criterion" in data else 1,
        response=ratings.response,
        scale=ratings.scale,
        scale_declared=ratings.scale_declared,
        rank_base=ratings.rank_base,
        judgements_per_summary=Spread.of(_nonzero(np.bincount(doc * n_sys + sys_))),
        annotators_per_document=Spread.of(_nonzero(np.bincount(pair_doc))),
        documents_per_annotator=Spread.of(_nonzero(np.bincount(pair_ann))),
        n_blocks=len(per_block),
        block_annotators=Spread.of(per_block["annotators"]),
        block_documents=Spread.of(per_block["documents"]),
        blocks_fully_crossed=crossed,
        family=family,
        n_checks=n_checks,
    )
