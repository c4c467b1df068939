"""Re-check round (designs-and-forms spec §2.9)."""

from __future__ import annotations

import pandas as pd
import pytest

from humaneval.core.ratings import load_ratings
from humaneval.design import Design, recheck_design, revisit
from humaneval.errors import DesignError

ITEMS = {
    ("x", "S1"): {"a": 1, "b": 4, "c": 4},  # a alone is far from two agreeing colleagues
    ("x", "S2"): {"a": 1, "b": 3, "c": 5},  # a pair differs by 4 > 2, nobody singled out: all
    ("y", "S1"): {"a": 2, "b": 3, "c": 4},  # largest difference 2 is not > gap
    ("y", "S2"): {"a": 5, "b": 5, "c": 2},  # c alone
}


def ratings(criterion: str | None = None) -> pd.DataFrame:
    rows = [
        {"annotator": a, "document": d, "system": s, "score": v}
        for (d, s), scores in ITEMS.items()
        for a, v in scores.items()
    ]
    frame = pd.DataFrame(rows)
    return frame if criterion is None else frame.assign(criterion=criterion)


@pytest.mark.parametrize(
    ("item", "expected"), list(zip(ITEMS, [{"a"}, {"a", "b", "c"}, set(), {"c"}], strict=True))
)
def test_revisit_rule(item, expected) -> None:
    assert revisit(ITEMS[item], gap=2, agree=1) == expected


def test_revisit_with_wider_agreement_band() -> None:
    # with agree = 2 the others of a (3 and 5) agree and a differs from c by 4: a is singled out, so is c
    assert revisit(ITEMS[("x", "S2")], gap=2, agree=2) == {"a", "c"}


def test_recheck_design_rows_order_and_round_trip() -> None:
    design = recheck_design(load_ratings(ratings()), seed=3)
    table = design.table
    assert set(map(tuple, table[["annotator_slot", "document", "system"]].to_numpy())) == {
        ("a", "x", "S1"),
        ("a", "x", "S2"),
        ("b", "x", "S2"),
        ("c", "x", "S2"),
        ("c", "y", "S2"),
    }
    assert table["round"].eq(2).all() and not table["is_check"].any()
    assert table.groupby("annotator_slot")["position"].apply(sorted).map(list).tolist() == [
        [0, 1],
        [0],
        [0, 1],
    ]
    assert set(table["field"]) == {"lk_q0_d0_s0", "lk_q0_d0_s1", "lk_q0_d1_s1"}
    assert design.balance["recheck"] == {"items": 3, "judgements": 5, "annotators": 3}
    assert Design.from_json(design.to_json()).table.equals(table)
    assert recheck_design(ratings(), seed=3).design_id == design.design_id
    assert recheck_design(ratings(), gap=3, seed=3).design_id != design.design_id


def test_recheck_selects_the_criterion_and_handles_agreement() -> None:
    both = pd.concat([ratings("coherence"), ratings("fluency").assign(score=3)])
    with pytest.raises(DesignError, match="choose one with dimension="):
        recheck_design(both)
    assert len(recheck_design(both, "coherence").table) == 5
    calm = recheck_design(both, "fluency")
    assert calm.table.empty and calm.summary().cost is None and calm.summary().analysed_judgements == 0
