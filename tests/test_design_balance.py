"""BWS tuples, pairwise schedules and ranking position balance (designs-and-forms spec §2.5–§2.7, §2.12)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from humaneval.design import DesignSpec, bws_balance, bws_tuples, generate_design, pair_schedule, round_robin
from humaneval.design.bws import cooccurrence
from humaneval.design.order import latin_row
from humaneval.errors import DesignError

SYSTEMS = ["BART", "PG", "ref", "rw", "seneca"]


def test_bws_twenty_items_forty_tuples_each_item_eight_times() -> None:
    tuples = bws_tuples(20, 4, 2.0, iterations=50, rng=np.random.default_rng(1))
    assert tuples.shape == (40, 4)
    assert all(len(set(t)) == 4 for t in tuples)
    assert np.bincount(tuples.ravel(), minlength=20).tolist() == [8] * 20
    balance = bws_balance(tuples, 20)
    # 40 tuples × C(4,2) = 240 pair slots over C(20,2) = 190 pairs: mean 240/190
    assert balance.pair_mean == pytest.approx(240 / 190)
    co = cooccurrence(tuples, 20)
    pairs = [co[i, j] for i, j in combinations(range(20), 2)]
    assert (balance.pair_min, balance.pair_max, balance.never_together) == (
        min(pairs),
        max(pairs),
        sum(p == 0 for p in pairs),
    )
    # far better than random tuples, which leave about 190·e^(−1.26) ≈ 54 pairs never together
    assert balance.pair_max <= 2 and balance.never_together <= 10


def test_bws_best_candidate_is_no_worse_than_a_single_one() -> None:
    def spread(iterations: int) -> tuple[int, int]:
        b = bws_balance(bws_tuples(20, 4, 2.0, iterations=iterations, rng=np.random.default_rng(5)), 20)
        return b.pair_max - b.pair_min, b.never_together

    assert spread(60) <= spread(1)


def test_bws_few_subsets_are_all_used_equally() -> None:
    # S = 5, k = 4, factor 2: T = 10 tuples = each of the five 4-subsets twice (spec §2.5 step 1)
    tuples = bws_tuples(5, 4, 2.0, rng=np.random.default_rng(0))
    assert Counter(tuple(sorted(t)) for t in tuples) == {s: 2 for s in combinations(range(5), 4)}
    # T = 6 over C(4, 2) = 6 pairs of 4 items with factor 1.5: each pair once
    assert sorted(tuple(sorted(t)) for t in bws_tuples(4, 2, 1.5, rng=np.random.default_rng(0))) == list(
        combinations(range(4), 2)
    )


def test_bws_design_block_scope_matches_the_acceptance_numbers() -> None:
    design = generate_design(
        DesignSpec(
            documents=8,
            systems=SYSTEMS,
            method="bws",
            documents_per_block=4,
            seed=2,
            bws={"scope": "block", "iterations": 30},
            checks_per_annotator=1,
            platform="mturk",
        )
    )
    stats = design.balance["bws"]
    assert (stats["pools"], stats["n_tuples"], stats["appearances_min"], stats["appearances_max"]) == (
        2,
        80,
        8,
        8,
    )
    real = design.table[~design.table["is_check"]]
    slot = real[real["annotator_slot"] == "b000-a1"]
    assert slot["tuple_id"].nunique() == 40
    assert slot.groupby(["document", "system"]).size().eq(8).all()
    # every slot of a block sees the same tuples, each in its own display order
    a1 = slot.sort_values(["tuple_id", "display_pos"]).groupby("tuple_id")["system"].apply(tuple)
    a2 = real[real["annotator_slot"] == "b000-a2"].sort_values(["tuple_id", "display_pos"])
    a2 = a2.groupby("tuple_id")["system"].apply(tuple)
    assert (a1.map(sorted) == a2.map(sorted)).all() and not a1.equals(a2)
    assert (slot["field"] == "bw_" + slot["tuple_id"]).all()
    check = design.table[design.table["is_check"] & (design.table["check_expected"] != "")]
    assert set(check["check_expected"]) <= {"best", "worst"}
    assert design.table[design.table["is_check"]].groupby(["annotator_slot", "position"]).size().eq(4).all()


def test_bws_document_scope_in_design() -> None:
    design = generate_design(
        DesignSpec(documents=10, systems=SYSTEMS, method="bws", seed=1, platform="mturk")
    )
    stats = design.balance["bws"]
    assert (
        stats["pools"],
        stats["tuples_per_pool_min"],
        stats["appearances_min"],
        stats["appearances_max"],
    ) == (
        10,
        10,
        8,
        8,
    )
    assert stats["pair_min"] == stats["pair_max"] == 6  # every 4-subset twice: each pair in 3 of 5 subsets


def test_round_robin_covers_every_pair_once_in_disjoint_rounds() -> None:
    for n in (4, 5):
        systems = [f"s{i}" for i in range(n)]
        flat = round_robin(systems)
        assert sorted(map(frozenset, flat), key=sorted) == sorted(
            map(frozenset, combinations(systems, 2)), key=sorted
        )
        per_round = n // 2
        for r in range(0, len(flat), per_round):
            members = [s for pair in flat[r : r + per_round] for s in pair]
            assert len(members) == len(set(members))


def test_pairwise_p2_five_systems_hundred_documents() -> None:
    comparisons = pair_schedule([f"d{i}" for i in range(100)], SYSTEMS, 2)
    assert len(comparisons) == 200
    counts = Counter(frozenset((a, b)) for _, a, b in comparisons)
    assert len(counts) == 10 and set(counts.values()) == {20}
    per_doc = Counter(d for d, _, _ in comparisons)
    assert set(per_doc.values()) == {2}
    # k-th occurrence: lexicographically first system left when k is even
    seen: Counter = Counter()
    for _, left, right in comparisons:
        key = frozenset((left, right))
        assert (left < right) == (seen[key] % 2 == 0)
        seen[key] += 1
    systems = Counter(s for _, a, b in comparisons for s in (a, b))
    assert set(systems.values()) == {80}


def test_pairwise_design_balance_and_rows() -> None:
    design = generate_design(
        DesignSpec(documents=100, systems=SYSTEMS, method="pairwise", pairwise={"pairs": 2}, seed=4)
    )
    balance = design.balance["pairwise"]
    assert (balance["n_comparisons"], balance["pair_min"], balance["pair_max"], balance["pairs_never"]) == (
        200,
        20,
        20,
        0,
    )
    assert balance["left_minus_right_max"] == 0
    real = design.table[~design.table["is_check"]]
    assert len(real) == 200 * 2 * 3
    screens = real.groupby(["annotator_slot", "position"])
    assert screens.size().eq(2).all()
    first = real.sort_values("display_pos").groupby(["annotator_slot", "position"]).first()
    second = real.sort_values("display_pos").groupby(["annotator_slot", "position"]).last()
    assert (first["opponent"] == second["system"]).all() and (second["opponent"] == first["system"]).all()
    assert (real["field"] == "pw_" + real["pair_id"]).all()
    checks = design.table[design.table["is_check"]]
    expected = checks[checks["check_expected"] != ""]
    assert len(expected) == 120 and set(expected["check_expected"]) <= {"A", "B"}
    assert ((expected["check_expected"] == "A") == (expected["display_pos"] == 0)).all()
    all_pairs = generate_design(DesignSpec(documents=10, systems=SYSTEMS, method="pairwise", seed=4))
    assert all_pairs.balance["pairwise"]["n_comparisons"] == 100


def test_latin_rows_and_rank_position_balance() -> None:
    assert latin_row(0, 0, 5) == [0, 1, 2, 3, 4]
    assert latin_row(3, 4, 5) == [2, 3, 4, 0, 1]
    design = generate_design(
        DesignSpec(
            documents=100, systems=SYSTEMS, method="rank", checks_per_annotator=0, seed=9, platform="mturk"
        )
    )
    table = design.table
    assert table.groupby(["annotator_slot", "position"]).ngroups == 300
    cells = table.groupby(["annotator_slot", "system", "display_pos"]).size()
    assert len(cells) == 60 * 25 and cells.eq(1).all()
    assert design.balance["rank_positions"] == {"per_slot_cell_min": 1, "per_slot_cell_max": 1}
    four = generate_design(
        DesignSpec(
            documents=20, systems=SYSTEMS[:4], method="rank", checks_per_annotator=0, seed=9, platform="mturk"
        )
    )
    counts = four.table.groupby(["annotator_slot", "system", "display_pos"]).size().unstack(fill_value=0)
    assert (counts.max(axis=1) - counts.min(axis=1)).max() <= 1


def test_bws_pool_too_small_is_an_error() -> None:
    with pytest.raises(DesignError, match="tuple_size < N"):
        bws_tuples(4, 4, rng=np.random.default_rng(0))


def test_bws_tuples_need_an_iteration_when_searching():
    # iterations=0 returned None instead of tuples; complete enumeration needs no search
    with pytest.raises(DesignError, match="iterations ≥ 1"):
        bws_tuples(10, 4, 2.0, iterations=0, rng=np.random.default_rng(0))
    assert bws_tuples(5, 4, 2.0, iterations=0, rng=np.random.default_rng(0)).shape == (10, 4)
