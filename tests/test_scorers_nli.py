"""NLI faithfulness on a tiny randomly initialised local model (spec §8.2): plumbing, values,
determinism, MC dropout, truncation policy, label handling, offline loading."""

from __future__ import annotations

import socket
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from humaneval.errors import BackendUnavailableError, ModelSpecError, OptionError  # noqa: E402
from humaneval.scorers import EmptyInputWarning, prefix_invariance, score_faithfulness  # noqa: E402
from humaneval.scorers.nli import NLIScorer  # noqa: E402
from tests._tiny_models import NLI_LABELS, build_nli  # noqa: E402

SOURCES = ["the cat sat on the mat . the dog ran", "a big red house . it was blue", "the dog is small"]
SUMMARIES = ["the cat sat", "the house was red", "the dog is big"]


def build_model(directory, id2label=NLI_LABELS, seed=0):
    return build_nli(directory, id2label, seed)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_model(tmp_path_factory.mktemp("tiny-nli"))


@pytest.fixture(scope="module")
def scorer(model_dir):
    return NLIScorer(model_dir, max_length=32, batch_size=2)


def reference_probabilities(model_dir, premises, hypotheses):
    """Independent computation: plain transformers forward pass in eval mode, softmax."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(model_dir, local_files_only=True)
    model.eval()
    batch = tokenizer(premises, hypotheses, padding=True, return_tensors="pt")
    with torch.no_grad():
        return torch.softmax(model(**batch).logits, dim=-1).numpy()


def test_k1_score_is_entail_minus_contradict_of_a_plain_forward_pass(scorer, model_dir):
    result = scorer.score(SOURCES, SUMMARIES, k=1)
    probs = reference_probabilities(model_dir, SOURCES, SUMMARIES)
    np.testing.assert_allclose(result.values, probs[:, 0] - probs[:, 2], atol=1e-6)
    assert result.values.shape == (3,)
    assert np.all(np.abs(result.values) <= 1)
    assert result.method == "nli-e-c(k=1, no dropout)"
    np.testing.assert_allclose(scorer.score(SOURCES, SUMMARIES, k=1, mode="e").values, probs[:, 0], atol=1e-6)
    np.testing.assert_allclose(scorer.score(SOURCES, SUMMARIES, k=1, mode="c").values, probs[:, 2], atol=1e-6)
    np.testing.assert_array_equal(result.values, scorer.score(SOURCES, SUMMARIES, k=1).values)
    assert result.meta["model_path"] == str(model_dir) and result.meta["k"] == 1


def test_mc_dropout_averages_probabilities_and_is_seeded(scorer):
    first = scorer.score(SOURCES, SUMMARIES, k=5, seed=3)
    again = scorer.score(SOURCES, SUMMARIES, k=5, seed=3)
    other = scorer.score(SOURCES, SUMMARIES, k=5, seed=4)
    np.testing.assert_array_equal(first.values, again.values)
    assert not np.allclose(first.values, other.values)
    assert not np.allclose(first.values, scorer.score(SOURCES, SUMMARIES, k=1).values)
    assert first.method == "nli-e-c(k=5)"
    probs, _ = scorer.probabilities(SOURCES, SUMMARIES, k=5, seed=3)
    assert probs.shape == (5, 3, 3)
    passes = probs[..., 0] - probs[..., 2]
    np.testing.assert_allclose(first.values, passes.mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(first.meta["sd"], passes.std(axis=0), atol=1e-12)
    assert np.all(first.meta["sd"] > 0)
    assert not any(m.training for m in scorer.model.modules()), "dropout must be off again after scoring"


def test_global_torch_rng_is_not_consumed(scorer):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    scorer.score(SOURCES, SUMMARIES, k=3, seed=0)
    np.testing.assert_array_equal(torch.rand(3).numpy(), expected.numpy())


def test_only_the_premise_is_truncated_from_its_end(scorer):
    premise = " ".join(["the cat sat on the mat ."] * 10)
    batch, n_cut = scorer.encode([premise], ["the dog ran"])
    ids = batch["input_ids"][0].tolist()
    tokens = scorer.tokenizer.convert_ids_to_tokens(ids)
    assert len(ids) == 32 and n_cut == 0
    assert tokens[:5] == ["[CLS]", "the", "cat", "sat", "on"]
    assert tokens[-5:] == ["[SEP]", "the", "dog", "ran", "[SEP]"]


def test_a_hypothesis_longer_than_the_budget_is_cut_and_counted(scorer):
    long_summary = " ".join(["the dog ran"] * 20)
    with pytest.warns(UserWarning, match="truncated"):
        result = scorer.score(["the cat sat"], [long_summary], k=1)
    assert result.meta["n_hypothesis_truncated"] == 1
    batch, n_cut = scorer.encode(["the cat sat"], [long_summary])
    assert n_cut == 1 and batch["input_ids"].shape[1] <= 32


def test_empty_inputs_give_nan_and_a_counted_warning(scorer):
    with pytest.warns(EmptyInputWarning, match="2 of 3"):
        result = scorer.score(["the cat sat", "", "the dog"], ["the cat", "the dog", "  "], k=1)
    assert np.isfinite(result.values[0]) and np.isnan(result.values[1:]).all()
    assert result.meta["n_empty"] == 2


def test_labels_without_names_need_label_order(tmp_path):
    directory = build_model(tmp_path, id2label={0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ModelSpecError, match="label_order"):
        NLIScorer(directory)
    with pytest.raises(ModelSpecError, match="3 outputs"):
        NLIScorer(directory, label_order=("entailment", "contradiction"))
    reordered = NLIScorer(directory, label_order=("contradiction", "neutral", "entailment"), max_length=32)
    probs = reference_probabilities(directory, SOURCES, SUMMARIES)
    np.testing.assert_allclose(
        reordered.score(SOURCES, SUMMARIES, k=1).values, probs[:, 2] - probs[:, 0], atol=1e-6
    )


def test_missing_or_unconfigured_model_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv("HUMANEVAL_NLI_MODEL", raising=False)
    with pytest.raises(BackendUnavailableError, match="no NLI model configured"):
        score_faithfulness(SOURCES, SUMMARIES)
    with pytest.raises(BackendUnavailableError, match=r"no config\.json"):
        NLIScorer(tmp_path / "nowhere")
    with pytest.raises(BackendUnavailableError, match="not installed"):
        NLIScorer("pkg:no_such_package_xyz/model")
    with pytest.raises(OptionError, match="mode"):
        score_faithfulness(SOURCES, SUMMARIES, model=build_model(tmp_path), mode="x")


def test_loading_and_scoring_never_touch_the_network(model_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HUMANEVAL_NLI_MODEL", str(model_dir))
    result = score_faithfulness(SOURCES, SUMMARIES, k=2, seed=1, max_length=32)
    assert result.values.shape == (3,) and np.isfinite(result.values).all()


def test_summac_zs_is_max_over_source_sentences_then_mean(scorer):
    source = "the cat sat on the mat. the dog ran. it was blue."
    summary = "the cat sat. the dog is big."
    result = scorer.score_summac_zs([source], [summary], pair_mode="e")
    src_sents = ["the cat sat on the mat.", "the dog ran.", "it was blue."]
    sum_sents = ["the cat sat.", "the dog is big."]
    entail = {s: scorer.score(src_sents, [s] * 3, k=1, mode="e").values.max() for s in sum_sents}
    assert result.values[0] == pytest.approx(np.mean(list(entail.values())), abs=1e-6)
    assert result.meta["n_pairs"] == 6 and result.method == "summac-zs-nli-e(k=1)"


def test_prefix_invariance_reports_a_row_per_phrase(scorer):
    table = prefix_invariance(lambda s, t: scorer.score(s, t, k=1), SOURCES, SUMMARIES, phrases=["I think"])
    prefixed = scorer.score(SOURCES, ["I think " + s for s in SUMMARIES], k=1).values
    delta = prefixed - scorer.score(SOURCES, SUMMARIES, k=1).values
    assert table["mean_abs_delta"].iloc[0] == pytest.approx(np.abs(delta).mean())
    assert table["mean_delta"].iloc[0] == pytest.approx(delta.mean())


def test_no_warning_for_clean_input(scorer):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorer.score(SOURCES, SUMMARIES, k=1)


def test_embedding_similarity_is_cosine_of_mean_pooled_states(model_dir):
    from humaneval.scorers import distinguishability
    from humaneval.scorers.embeddings import embedding_similarity

    texts = ["the cat sat on the mat", "the dog ran", "a big red house"]
    similarity = embedding_similarity(model_dir, batch_size=2)
    matrix = similarity(texts)
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
    encoder = transformers.AutoModel.from_pretrained(model_dir, local_files_only=True).eval()
    vectors = []
    for text in texts:  # one at a time: no padding, so the plain mean over tokens
        with torch.no_grad():
            hidden = encoder(**tokenizer(text, return_tensors="pt")).last_hidden_state[0].numpy()
        vector = hidden.mean(axis=0)
        vectors.append(vector / np.linalg.norm(vector))
    np.testing.assert_allclose(matrix, np.array(vectors) @ np.array(vectors).T, atol=1e-5)
    score = distinguishability(texts + texts[:1], ["m", "m", "f", "f"], ["c"] * 4, similarity=similarity)
    assert -1 <= score.score <= 1 and score.counts["summaries_used"] == 4
