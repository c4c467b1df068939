"""Lexical faithfulness fallback, FFCI-style lexical scores, augmentation and the ROC AUC /
balanced-accuracy meta-evaluation (spec §8.2, §8.3, §8.6), with hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.errors import RatingsError
from humaneval.scorers import (
    PHRASES,
    EmptyInputWarning,
    ScoreResult,
    augment_nli,
    faithfulness_auc,
    intersentential_coherence,
    lexical_faithfulness,
    lexical_focus_coverage,
    prefix_invariance,
    rouge_n_f1,
    score_faithfulness,
)
from humaneval.scorers.faithfulness import balanced_accuracy, roc_auc


def test_lexical_fallback_is_labelled_and_hand_computed():
    with pytest.warns(EmptyInputWarning, match="1 of 3"):
        result = score_faithfulness(
            ["The cat sat on the mat.", "A dog.", "x"],
            ["The cat ran home.", "It is the", ""],
            backend="lexical",
        )
    # content tokens cat, ran, home; only "cat" is in the source → 2·(1/3) − 1
    assert result.values[0] == pytest.approx(-1 / 3)
    assert np.isnan(result.values[1:]).all()
    assert result.method == "lexical-overlap-fallback (not NLI)"
    assert result.meta == {"n_empty": 1, "n_no_content_tokens": 1}


def test_mismatched_batches_are_refused():
    with pytest.raises(RatingsError, match="2 sources but 1 summaries"):
        score_faithfulness(["a", "b"], ["a"], backend="lexical")
    with pytest.raises(RatingsError, match="single string"):
        score_faithfulness("a", ["a"], backend="lexical")


def test_score_result_to_metric_table():
    table = ScoreResult(np.array([0.5, np.nan]), "m").to_frame(["d1", "d1"], ["A", "B"], "nli")
    assert list(table.columns) == ["document", "system", "nli"]
    assert table["nli"].iloc[0] == 0.5 and np.isnan(table["nli"].iloc[1])
    with pytest.raises(RatingsError, match="one document and one system"):
        ScoreResult(np.zeros(2), "m").to_frame(["d1"], ["A"])


def test_roc_auc_and_balanced_accuracy_by_hand():
    scores = np.array([0.9, 0.8, 0.4, 0.4, 0.1])
    labels = np.array([1, 0, 1, 0, 0])
    # positives {0.9, 0.4} vs negatives {0.8, 0.4, 0.1}: 3 + (0 + ½ + 1) wins of 6 pairs
    assert roc_auc(scores, labels) == pytest.approx(4.5 / 6)
    # threshold 0.5: TPR 1/2, TNR 2/3
    assert balanced_accuracy(scores, labels, 0.5) == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert np.isnan(roc_auc(scores, np.ones(5)))


def test_meta_evaluation_is_macro_averaged_per_corpus():
    scores = [0.9, 0.8, 0.4, 0.4, 0.1, 0.2, 0.9, np.nan]
    labels = ["faithful", 0, 1, "false", 0, 0, True, 1]
    corpus = ["A"] * 5 + ["B"] * 3
    fixed = faithfulness_auc(scores, labels, corpus, threshold=0.5)
    assert fixed.per_corpus["roc_auc"].tolist() == pytest.approx([0.75, 1.0])
    assert fixed.macro_auc == pytest.approx(0.875)
    assert fixed.macro_balanced_accuracy == pytest.approx(((1 / 2 + 2 / 3) / 2 + 1.0) / 2)
    assert fixed.per_corpus["n_nan"].tolist() == [0, 1]
    tuned = faithfulness_auc(scores, labels, corpus)
    # corpus A: the best threshold is 0.9 (TPR 1/2, TNR 1)
    assert tuned.per_corpus["threshold"].iloc[0] == 0.9
    assert tuned.per_corpus["balanced_accuracy"].iloc[0] == pytest.approx(0.75)
    assert tuned.threshold_tuned_in_sample and not fixed.threshold_tuned_in_sample
    with pytest.raises(RatingsError, match="not binary"):
        faithfulness_auc([0.1], ["maybe"])


def test_rouge_n_f1_clipped_overlap():
    assert rouge_n_f1("the cat sat", "the cat ran away") == pytest.approx(4 / 7)
    assert rouge_n_f1("the the cat", "the cat") == pytest.approx(0.8)
    assert rouge_n_f1("the cat sat", "the cat ran", 2) == pytest.approx(0.5)
    assert rouge_n_f1("dog", "cat") == 0.0


def test_lexical_faithfulness_top_n_alignment():
    source = "The cat sat. The dog ran. A bird sang."
    one = lexical_faithfulness([source], ["The cat ran."])
    assert one.values[0] == pytest.approx(2 / 3)  # two source sentences at F = 2/3
    two = lexical_faithfulness([source], ["The cat ran. A bird."])
    assert two.values[0] == pytest.approx((2 / 3 + (0.8 + 0) / 2) / 2)
    assert two.method == "ffci-lexical-faithfulness(rouge-1 F1, top-2)"
    top1 = lexical_faithfulness([source], ["The cat ran. A bird."], top_n=1, sim="rouge1")
    assert top1.values[0] == pytest.approx((2 / 3 + 0.8) / 2)


def test_focus_and_coverage_with_exact_tokens():
    result = lexical_focus_coverage(["the cat sat on the mat"], ["the cat ran"])
    assert result["focus"].values[0] == pytest.approx(2 / 3)
    assert result["coverage"].values[0] == pytest.approx(3 / 6)
    assert result["f1"].values[0] == pytest.approx(4 / 7)
    assert "lexical" in result["focus"].method


def test_intersentential_coherence_aggregates():
    p_next = {("One.", "Two."): 0.9, ("Two.", "Three."): 0.3}.__getitem__
    texts = ["One. Two. Three.", "Single sentence."]
    assert intersentential_coherence(texts, lambda a, b: p_next((a, b))).values[0] == pytest.approx(0.3)
    mean = intersentential_coherence(texts, lambda a, b: p_next((a, b)), aggregate="mean")
    assert mean.values[0] == pytest.approx(0.6) and np.isnan(mean.values[1])
    assert mean.meta["n_single_sentence"] == 1


def test_augmentation_doubles_with_prefixed_copies():
    examples = [("p1", "The cat sat.", "entailment"), ("p2", "Dogs bark.", "contradiction")]
    out = augment_nli(examples, seed=0)
    assert len(out) == 4 and out["label"].tolist() == ["entailment", "contradiction"] * 2
    assert out["hypothesis"].iloc[:2].tolist() == ["The cat sat.", "Dogs bark."]
    for phrase, original, copy in zip(
        out["phrase"].iloc[2:], ["the cat sat.", "dogs bark."], out["hypothesis"].iloc[2:], strict=True
    ):
        assert phrase in PHRASES and copy == f"{phrase} {original}"
    assert out.equals(augment_nli(examples, seed=0))
    assert len(PHRASES) == 10 and "I am not sure but I do know that" in PHRASES and "yep. Also" in PHRASES
    many = augment_nli([("p", "H", 0)] * 5000, seed=1)["phrase"].iloc[5000:]
    assert many.value_counts(normalize=True).between(0.085, 0.115).all() and many.nunique() == 10


def test_prefix_invariance_with_a_length_scorer():
    def minus_words(sources, summaries):
        return [-len(s.split()) for s in summaries]

    table = prefix_invariance(minus_words, ["s", "t"], ["a b", "c"], phrases=["I think", "yep. Also"])
    assert table["mean_delta"].tolist() == [-2.0, -2.0] and table["mean_abs_delta"].tolist() == [2.0, 2.0]
