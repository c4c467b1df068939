"""Entity-graph coherence and the shuffle test (spec §8.5) with hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.errors import RatingsError
from humaneval.scorers import entity_graph_coherence, entity_graph_score, shuffle_test
from humaneval.scorers.coherence import lexical_grid, shuffled_orders
from humaneval.scorers.cohesion import (
    adjacent_cohesion,
    levenshtein,
    longest_common_substring,
    redundancy_flags,
    redundancy_penalty,
    repeated_ngram_share,
)

SPEC_GRID = [{"A": "S", "B": "O"}, {"A": "X"}, {"A": "S", "B": "X"}]


def test_spec_worked_example():
    # arcs (1,2) = 3·1 = 3; (1,3) = (3·3 + 2·1)/2 = 5.5; (2,3) = 1·3 = 3 → 11.5/3
    assert entity_graph_score(SPEC_GRID) == pytest.approx(11.5 / 3)
    assert entity_graph_score(SPEC_GRID, weights="count") == pytest.approx((1 + 2 / 2 + 1) / 3)
    assert entity_graph_score(SPEC_GRID, weights="unweighted") == pytest.approx((1 + 1 / 2 + 1) / 3)
    assert entity_graph_score(SPEC_GRID, distance_discount=False) == pytest.approx((3 + 11 + 3) / 3)


def test_edge_cases():
    assert entity_graph_score([{"A": "S"}]) == 0.0
    assert np.isnan(entity_graph_score([]))
    assert entity_graph_score([{"A": "S"}, {"B": "O"}]) == 0.0
    with pytest.raises(RatingsError, match="roles"):
        entity_graph_score([{"A": "subject"}])


def test_lexical_grid_and_batch_scores():
    assert lexical_grid("The cat sat on the mat. The cat ran home.") == [
        {"cat": "X", "sat": "X", "mat": "X"},
        {"cat": "X", "ran": "X", "home": "X"},
    ]
    with pytest.warns(UserWarning, match="1 of 3") as caught:
        result = entity_graph_coherence(["The cat sat on the mat. The cat ran home.", "One sentence.", " "])
    # one sentence: no pair of sentences, so coherence is undefined (NaN), not 0
    np.testing.assert_allclose(result.values, [0.5, np.nan, np.nan])
    assert {type(w.message).__name__ for w in caught} == {"EmptyInputWarning", "UndefinedScoreWarning"}
    assert "lexical-approximation" in result.method
    assert result.meta["n_single_sentence"] == 1 and result.meta["n_zero"] == 0


def test_spacy_dependency_grid_from_a_parsed_doc():
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import Doc

    vocab = spacy.blank("en").vocab
    doc = Doc(
        vocab,
        words=["The", "cat", "chased", "the", "dog", ".", "The", "dog", "saw", "it", "."],
        heads=[1, 2, 2, 4, 2, 2, 7, 8, 8, 8, 8],
        deps=["det", "nsubj", "ROOT", "det", "dobj", "punct", "det", "nsubj", "ROOT", "dobj", "punct"],
        pos=["DET", "NOUN", "VERB", "DET", "NOUN", "PUNCT", "DET", "NOUN", "VERB", "PRON", "PUNCT"],
        sent_starts=[True, False, False, False, False, False, True, False, False, False, False],
    )
    result = entity_graph_coherence(["(parsed)"], nlp=lambda text: doc, builder="spacy")
    # grid [{cat: S, dog: O}, {dog: S}] ("it" is a pronoun) → arc 2·3 = 6 → EGR 6/2
    assert result.values[0] == pytest.approx(3.0)
    assert "spacy-dependency" in result.method
    fallback = entity_graph_coherence(["The cat sat. The cat ran."], nlp=spacy.blank("en"))
    assert "lexical-approximation" in fallback.method


def first_is_one(texts):
    return [1.0 if t.startswith("1") else 0.0 for t in texts]


def test_shuffle_test_accuracy_with_ties():
    # 3 sentences → all 5 non-identity orders; one of them keeps sentence 1 first (a tie, ½)
    result = shuffle_test(first_is_one, ["1 a. 2 b. 3 c.", "Only one sentence."], k=20, seed=0)
    assert result.accuracy == pytest.approx(4.5 / 5)
    assert (result.n_texts, result.n_pairs, result.n_skipped) == (1, 5, 1)
    constant = shuffle_test(lambda texts: np.zeros(len(texts)), ["1 a. 2 b. 3 c. 4 d."], k=4, seed=1)
    assert constant.accuracy == 0.5 and constant.n_pairs == 4


def test_shuffled_orders_are_distinct_from_the_original_and_seeded():
    rng = np.random.default_rng(3)
    orders = shuffled_orders(4, 10, rng)
    assert len(orders) == 10 and len(set(orders)) == 10 and (0, 1, 2, 3) not in orders
    long = shuffled_orders(8, 5, np.random.default_rng(3))
    assert long == shuffled_orders(8, 5, np.random.default_rng(3))
    assert all(o != tuple(range(8)) for o in long)


def test_repeated_ngram_share():
    text = "the cat sat the cat ran"
    # bigrams: (the cat) ×2, (cat sat), (sat the), (cat ran) → 1 of 4 distinct repeated
    assert repeated_ngram_share([text]).values[0] == pytest.approx(0.25)
    assert repeated_ngram_share([text], n=1).values[0] == pytest.approx(2 / 4)
    assert np.isnan(repeated_ngram_share(["one"], n=2).values[0])


def test_adjacent_cohesion():
    # content words [cat, sat], [cat, ran], [birds, fly] → cosines 1/2 and 0
    result = adjacent_cohesion(["The cat sat. The cat ran. Birds fly.", "Just one."])
    assert result.values[0] == pytest.approx(0.25) and np.isnan(result.values[1])


def test_gruen_redundancy_flags_by_hand():
    assert levenshtein("kitten", "sitting") == 3
    assert longest_common_substring("the cat sat", "a cat sat down") == " cat sat"
    a, b = "The cat sat on the mat today.", "The cat sat on the mat yesterday."
    # common substring "The cat sat on the mat " has 23 chars (≤ 0.8·29 = 23.2: no flag) and 6 words
    # (> 5.6: flag); Levenshtein 5 < 0.6·33 (flag); 6 of a's words in b > 5.6 (flag)
    assert redundancy_flags(a, b) == 3
    assert redundancy_flags("It rained.", "It rained.") == 4
    assert redundancy_flags("Short one.", "Another short.") == 0  # fewer than 5 words
    result = redundancy_penalty([f"{a} {b} It rained. It rained.", "One sentence only."])
    # pairs: (a, b) 3 flags; (rain, rain) 4; a/b against "It rained." 0 each → −0.1·7
    assert result.values.tolist() == pytest.approx([-0.7, 0.0])
