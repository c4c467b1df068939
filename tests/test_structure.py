"""Design structure detection: clusters and design family (spec §1.2)."""

from __future__ import annotations

import pandas as pd
import pytest

from humaneval import describe_structure, load_ratings
from humaneval.core.structure import cluster_labels
from humaneval.design import block_design


def scored(design: pd.DataFrame) -> pd.DataFrame:
    return design.assign(score=1)


def test_reference_study_structure(likert_path, rank_path):
    for path in (likert_path, rank_path):
        s = describe_structure(load_ratings(path))
        assert (s.n_ratings, s.n_annotators, s.n_documents, s.n_systems) == (1500, 60, 100, 5)
        assert s.judgements_per_summary.min == s.judgements_per_summary.max == 3
        assert s.n_blocks == 20 and s.block_annotators.max == 3 and s.block_documents.min == 5
        assert s.family == "crossed_in_blocks"


@pytest.mark.parametrize(
    "shape,family,blocks",
    [
        ((60, 5, 1), "nested", 60),
        ((1, 10, 4), "fully_crossed", 1),
        ((20, 5, 3), "crossed_in_blocks", 20),
    ],
)
def test_families_of_block_designs(shape, family, blocks):
    design = block_design(*shape, systems=["a", "b", "c"])
    s = describe_structure(scored(design))
    assert s.family == family and s.n_blocks == blocks
    assert s.n_annotators == shape[0] * shape[2] and s.n_documents == shape[0] * shape[1]
    # the clusters found are exactly the planned blocks
    labels = cluster_labels(design)
    assert pd.crosstab(labels, design["block"]).astype(bool).sum(axis=1).eq(1).all()


def test_irregular_when_an_annotator_skips_a_document():
    design = block_design(3, 4, 2, systems=["a", "b"])
    design = design[
        ~(
            (design["annotator"] == design["annotator"].iloc[0])
            & (design["document"] == design["document"].iloc[0])
        )
    ]
    s = describe_structure(scored(design))
    assert s.family == "irregular" and s.n_blocks == 3
    assert s.judgements_per_summary.min == 1 and s.judgements_per_summary.max == 2


def test_linked_blocks_form_one_cluster():
    design = block_design(2, 2, 2, systems=["a", "b"])
    bridge = design.iloc[[0]].assign(document=design["document"].iloc[-1], system="a")
    s = describe_structure(scored(pd.concat([design, bridge])))
    assert s.n_blocks == 1 and s.family == "irregular"
