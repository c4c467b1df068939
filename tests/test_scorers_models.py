"""Named models offline: hub ids through a Hugging Face cache the test lays out, revisions, label order
from the config, length-sorted batching, devices, FFCI with BERTScore and next-sentence backbones.

Every model is a tiny random one the test builds; the expected values are independent computations
with plain transformers forward passes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("huggingface_hub")

import huggingface_hub.constants  # noqa: E402

from humaneval.errors import BackendUnavailableError, ModelSpecError, OptionError  # noqa: E402
from humaneval.scorers.ffci import (  # noqa: E402
    BertScore,
    NextSentenceScorer,
    ffci_faithfulness,
    ffci_focus_coverage,
    score_ffci,
)
from humaneval.scorers.lexical import intersentential_coherence  # noqa: E402
from humaneval.scorers.models import resolve_device, resolve_model  # noqa: E402
from humaneval.scorers.nli import NLIScorer  # noqa: E402
from humaneval.scorers.result import EmptyInputWarning  # noqa: E402
from tests._tiny_models import build_encoder, build_nli, build_nsp, into_hub_cache  # noqa: E402

SOURCES = ["the cat sat on the mat . the dog ran", "a big red house . it was blue", "the dog is small"]
SUMMARIES = ["the cat sat", "the house was red", "the dog is big"]
REPO = "tiny-org/tiny-nli"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A hub cache holding REPO at main (seed 0) and at tag v2 (seed 1), plus the plain directories."""
    root = tmp_path_factory.mktemp("hub")
    cache = root / "cache"
    main = into_hub_cache(build_nli(root / "main"), cache, REPO)
    v2 = into_hub_cache(build_nli(root / "v2", seed=1), cache, REPO, revision="v2")
    return {"cache": cache, "main": main, "v2": v2, "root": root}


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def forward(directory, premises, hypotheses):
    """Independent computation: one plain eval-mode forward pass per pair (no padding, no sorting)."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory, local_files_only=True)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(directory, local_files_only=True)
    model.eval()
    rows = []
    with torch.no_grad():
        for p, h in zip(premises, hypotheses, strict=True):
            rows.append(torch.softmax(model(**tokenizer(p, h, return_tensors="pt")).logits, -1)[0].numpy())
    return np.array(rows)


def test_a_hub_id_loads_its_cached_snapshot_and_revision(hub, offline):
    scorer = NLIScorer(REPO, cache_dir=hub["cache"], max_length=32, device="cpu")
    assert scorer.path == hub["main"] and scorer.name == REPO
    probs = forward(hub["main"], SOURCES, SUMMARIES)
    np.testing.assert_allclose(
        scorer.score(SOURCES, SUMMARIES, k=1).values, probs[:, 0] - probs[:, 2], atol=1e-6
    )
    tagged = NLIScorer(REPO, revision="v2", cache_dir=hub["cache"], max_length=32, device="cpu")
    assert tagged.path == hub["v2"]
    probs_v2 = forward(hub["v2"], SOURCES, SUMMARIES)
    values = tagged.score(SOURCES, SUMMARIES, k=1).values
    np.testing.assert_allclose(values, probs_v2[:, 0] - probs_v2[:, 2], atol=1e-6)
    assert not np.allclose(values, probs[:, 0] - probs[:, 2])  # another checkpoint, other scores
    meta = tagged.score(SOURCES, SUMMARIES, k=1).meta
    assert meta["model"] == REPO and meta["model_path"] == str(hub["v2"]) and meta["device"] == "cpu"


def test_offline_and_not_cached_is_one_line_naming_the_model_and_the_fix(hub, offline):
    with pytest.raises(BackendUnavailableError) as caught:
        resolve_model("tiny-org/absent", what="NLI model", cache_dir=hub["cache"])
    message = str(caught.value)
    assert "tiny-org/absent" in message and "HF_HUB_OFFLINE" in message and "hf download" in message
    assert "\n" not in message
    with pytest.raises(BackendUnavailableError, match="at revision nope"):
        resolve_model(REPO, revision="nope", cache_dir=hub["cache"])
    with pytest.raises(ModelSpecError, match="revision applies to hub models"):
        resolve_model(hub["main"], revision="v2")


def test_the_cli_honours_hf_home_and_hf_hub_offline(hub, tmp_path):
    """In a fresh process the environment alone (HF_HOME, HF_HUB_OFFLINE) locates the cached model."""
    home = tmp_path / "hf-home"
    into_hub_cache(hub["main"], home / "hub", REPO)
    data = tmp_path / "summaries.jsonl"
    rows = [{"document": f"d{i}", "system": "A", "source": s, "summary": t} for i, (s, t) in
            enumerate(zip(SOURCES, SUMMARIES, strict=True))]  # fmt: skip
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    env = {**os.environ, "HF_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    env.pop("HF_HUB_CACHE", None)
    base = [
        sys.executable,
        "-m",
        "humaneval",
        "score",
        "faithfulness",
        str(data),
        "--k",
        "1",
        "--max-length",
        "32",
    ]
    done = subprocess.run(
        [*base, "--model", REPO, "--json"], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    probs = forward(hub["main"], SOURCES, SUMMARIES)
    values = [row["faithfulness"] for row in json.loads(done.stdout)["rows"]]
    np.testing.assert_allclose(values, probs[:, 0] - probs[:, 2], atol=1e-6)
    missing = subprocess.run([*base, "--model", "tiny-org/absent"], capture_output=True, text=True, env=env,
                             timeout=300)  # fmt: skip
    assert missing.returncode == 2
    assert len(missing.stderr.strip().splitlines()) == 1 and "tiny-org/absent" in missing.stderr


def test_label_order_is_read_from_the_config(tmp_path):
    directory = build_nli(tmp_path, id2label={0: "contradiction", 1: "neutral", 2: "entailment"})
    scorer = NLIScorer(directory, max_length=32, device="cpu")
    assert (scorer.entail, scorer.contra) == (2, 0)
    probs = forward(directory, SOURCES, SUMMARIES)
    np.testing.assert_allclose(
        scorer.score(SOURCES, SUMMARIES, k=1).values, probs[:, 2] - probs[:, 0], atol=1e-6
    )


def test_length_sorted_batches_return_scores_in_input_order(hub):
    premises = [SOURCES[i % 3] * (1 + i % 4) for i in range(11)]
    hypotheses = [SUMMARIES[i % 3] for i in range(11)]
    probs = forward(hub["main"], premises, hypotheses)
    for batch_size in (1, 3, 16):
        scorer = NLIScorer(hub["main"], max_length=64, batch_size=batch_size, device="cpu", progress=False)
        values = scorer.score(premises, hypotheses, k=1).values
        np.testing.assert_allclose(values, probs[:, 0] - probs[:, 2], atol=1e-5)


def test_mc_dropout_spread_is_reported_per_item(hub):
    scorer = NLIScorer(hub["main"], max_length=32, device="cpu")
    result = scorer.score(SOURCES, SUMMARIES, k=8, seed=3)
    probs, _ = scorer.probabilities(SOURCES, SUMMARIES, k=8, seed=3)
    per_pass = probs[..., 0] - probs[..., 2]
    np.testing.assert_allclose(result.meta["sd"], per_pass.std(axis=0))
    assert np.all(result.meta["sd"] > 0)  # dropout is on: the passes differ


def test_devices():
    assert resolve_device("auto") in ("cpu", "cuda", "mps")
    assert resolve_device("cpu") == "cpu"
    with pytest.raises(OptionError, match="tpu"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(BackendUnavailableError, match="no CUDA device"):
            resolve_device("cuda")


def bertscore_by_hand(directory, layer, candidate, reference):
    """BERTScore P, R, F from the layer's token vectors: greedy cosine matching in which [CLS] and
    [SEP] may be matched but carry no weight of their own (as in Zhang et al.'s reference code)."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory)
    model = transformers.AutoModel.from_pretrained(directory).eval()

    def vectors(text):
        with torch.no_grad():
            states = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True).hidden_states
        v = states[layer][0].numpy()
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    sim = vectors(candidate) @ vectors(reference).T
    p, r = sim.max(axis=1)[1:-1].mean(), sim.max(axis=0)[1:-1].mean()
    return p, r, 2 * p * r / (p + r)


@pytest.fixture(scope="module")
def encoder(tmp_path_factory):
    return build_encoder(tmp_path_factory.mktemp("encoder"), layers=3)


def test_bertscore_uses_the_named_layer(encoder):
    scorer = BertScore(encoder, layer=2, device="cpu")
    p, r, f = scorer.score(["the cat sat"], ["the cat sat on the mat"])
    expected = bertscore_by_hand(encoder, 2, "the cat sat", "the cat sat on the mat")
    np.testing.assert_allclose([p[0], r[0], f[0]], expected, atol=1e-5)
    other = BertScore(encoder, layer=1, device="cpu").score(["the cat sat"], ["the cat sat on the mat"])
    assert abs(other[2][0] - f[0]) > 1e-4


def test_ffci_faithfulness_is_top_n_alignment_of_sentence_bertscores(encoder):
    source = "the cat sat on the mat. the dog ran. it was blue."
    summary = "the cat sat. the dog is big."
    result = ffci_faithfulness([source], [summary], model=encoder, layer=2, top_n=2, device="cpu")
    src = ["the cat sat on the mat.", "the dog ran.", "it was blue."]
    per_sentence = []
    for t in ("the cat sat.", "the dog is big."):
        f = sorted((bertscore_by_hand(encoder, 2, t, s)[2] for s in src), reverse=True)
        per_sentence.append(np.mean(f[:2]))
    assert result.values[0] == pytest.approx(np.mean(per_sentence), abs=1e-5)
    assert result.method == f"ffci-faithfulness(bertscore({encoder}, layer 2), top-2)"
    with pytest.warns(EmptyInputWarning, match="1 of 1"):
        blank = ffci_faithfulness([""], ["x"], scorer=BertScore(encoder, 2, device="cpu"))
    assert np.isnan(blank.values[0]) and blank.meta["n_empty"] == 1


def test_ffci_focus_and_coverage_are_bertscore_precision_and_recall(encoder):
    refs, summ = ["the cat sat on the mat", "a big red house"], ["the cat sat", "the house was red"]
    result = ffci_focus_coverage(refs, summ, model=encoder, focus_layer=3, coverage_layer=1, device="cpu")
    for i in range(2):
        assert result["focus"].values[i] == pytest.approx(
            bertscore_by_hand(encoder, 3, summ[i], refs[i])[0], abs=1e-5
        )
        assert result["coverage"].values[i] == pytest.approx(
            bertscore_by_hand(encoder, 1, summ[i], refs[i])[1], abs=1e-5
        )
    assert "layer 3" in result["focus"].method and "layer 1" in result["coverage"].method


def test_next_sentence_coherence_is_the_minimum_p_next(tmp_path):
    directory = build_nsp(tmp_path)
    nsp = NextSentenceScorer(directory, device="cpu", batch_size=2)
    texts = ["the cat sat. the dog ran. it was blue.", "one sentence only.", "a big house. it was red."]
    result = intersentential_coherence(texts, nsp)
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory)
    model = transformers.AutoModelForNextSentencePrediction.from_pretrained(directory).eval()

    def p_next(a, b):
        with torch.no_grad():
            return torch.softmax(model(**tokenizer(a, b, return_tensors="pt")).logits, -1)[0, 0].item()

    expected0 = min(p_next("the cat sat.", "the dog ran."), p_next("the dog ran.", "it was blue."))
    assert result.values[0] == pytest.approx(expected0, abs=1e-5)
    assert np.isnan(result.values[1]) and result.meta["n_single_sentence"] == 1
    assert result.values[2] == pytest.approx(p_next("a big house.", "it was red."), abs=1e-5)
    assert result.method == f"ffci-intersentential-coherence(min, next-sentence({directory}))"


def test_score_ffci_checks_its_inputs_and_runs_the_lexical_variants():
    from humaneval.errors import RatingsError

    with pytest.raises(RatingsError, match="needs references"):
        score_ffci(SOURCES, None, SUMMARIES, aspects=["focus"], backend="lexical")
    with pytest.raises(OptionError, match="choose from"):
        score_ffci(SOURCES, SOURCES, SUMMARIES, aspects=["fluency"])
    out = score_ffci(SOURCES, SOURCES, SUMMARIES, aspects=["faithfulness", "coverage"], backend="lexical")
    assert list(out) == ["faithfulness", "coverage"]
    assert out["faithfulness"].method == "ffci-lexical-faithfulness(rouge-1 F1, top-2)"
    # "the cat sat" against "the cat sat on the mat ." (P 1, R 1/2: F1 2/3) and "the dog ran" (F1 1/3)
    assert out["faithfulness"].values[0] == pytest.approx((2 / 3 + 1 / 3) / 2)


def test_ffci_command_writes_one_column_per_aspect(encoder, tmp_path, hub, offline, monkeypatch):
    from click.testing import CliRunner

    from humaneval.cli import main

    cache = hub["cache"]
    into_hub_cache(encoder, cache, "tiny-org/encoder")
    into_hub_cache(build_nsp(tmp_path / "nsp"), cache, "tiny-org/nsp")
    rows = [
        {"document": "d1", "system": "A", "source": SOURCES[0], "reference": "the cat sat on a mat",
         "summary": "the cat sat. the dog ran."},
        {"document": "d2", "system": "A", "source": SOURCES[1], "reference": "a big red house",
         "summary": "the house was red"},
    ]  # fmt: skip
    data = tmp_path / "ffci.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))  # what HF_HUB_CACHE sets
    result = CliRunner().invoke(
        main,
        ["score", "ffci", str(data), "--model", "tiny-org/encoder", "--layer", "2",
         "--focus-model", "tiny-org/encoder", "--focus-layer", "3", "--coverage-layer", "1",
         "--nsp-model", "tiny-org/nsp", "--device", "cpu", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    table = payload["rows"]
    assert list(table[0]) == ["document", "system", "ffci_faithfulness", "ffci_focus", "ffci_coverage",
                              "ffci_coherence"]  # fmt: skip
    focus = bertscore_by_hand(encoder, 3, rows[1]["summary"], rows[1]["reference"])[0]
    assert table[1]["ffci_focus"] == pytest.approx(focus, abs=1e-5)
    assert table[1]["ffci_coherence"] is None  # one sentence: no pair
    assert payload["method"]["coverage"] == "ffci-coverage(bertscore(tiny-org/encoder, layer 1))"
    lexical = CliRunner().invoke(main, ["score", "ffci", str(data), "--backend", "lexical", "--aspects",
                                        "faithfulness,focus,coverage", "--json"])  # fmt: skip
    assert lexical.exit_code == 0, lexical.output
    assert json.loads(lexical.output)["rows"][1]["ffci_focus"] == pytest.approx(
        2 / 4
    )  # house, red of the, house, was, red
