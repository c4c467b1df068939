"""Throughput of the NLI faithfulness scorer on the CPU: summaries per second (issue 24).

Models cannot be downloaded here, so the model is a randomly initialised encoder of the size of a
real checkpoint (BERT-base: 12 layers, hidden 768 — DeBERTa-v3-large is about 3× the compute per
token), with a whole-word vocabulary. Inputs mimic CNN/DailyMail: sources of 150–700 words
(truncated at 512 tokens), summaries of 40–70 words. Cost per pair depends on the model and the
tokens, not on the weights, so the figures carry over to a real checkpoint of this size.

Compared side by side in one run, same pairs, same model, same batch size:
- ``humaneval``: :class:`humaneval.scorers.nli.NLIScorer` (pairs batched longest first);
- ``reference``: the same forward passes in input order — what a plain loop over
  ``tokenizer(...); model(...)`` batches does (and this scorer did before batching by length).

    .venv/bin/python benchmarks/bench_scorers.py [--pairs 96] [--batch-size 16]
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

import numpy as np


def build_base_model(directory: Path, words: list[str]) -> Path:
    import torch
    import transformers

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = transformers.BertTokenizer(str(directory / "vocab.txt"), model_max_length=512)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        num_labels=3,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2},
    )
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def texts(rng: np.random.Generator, words: list[str], n: int, low: int, high: int) -> list[str]:
    return [" ".join(rng.choice(words, size=int(rng.integers(low, high)))) + " ." for _ in range(n)]


def input_order(scorer, premises: list[str], hypotheses: list[str]) -> np.ndarray:
    """Reference: the same encoding and forward passes, batches taken in input order."""
    import torch

    out = []
    with torch.inference_mode():
        for start in range(0, len(premises), scorer.batch_size):
            stop = start + scorer.batch_size
            batch, _ = scorer.encode(premises[start:stop], hypotheses[start:stop])
            out.append(torch.softmax(scorer.model(**batch).logits.float(), dim=-1).numpy())
    probs = np.concatenate(out)
    return probs[:, scorer.entail] - probs[:, scorer.contra]


def main() -> None:
    import torch

    from humaneval.scorers.nli import NLIScorer

    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=96)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(5000)]
    premises = texts(rng, words, args.pairs, 150, 700)
    hypotheses = texts(rng, words, args.pairs, 40, 70)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads; {args.pairs} pairs, "
        f"batch {args.batch_size}, BERT-base-sized random model, max_length 512"
    )
    with tempfile.TemporaryDirectory() as tmp:
        scorer = NLIScorer(
            build_base_model(Path(tmp), words), batch_size=args.batch_size, device="cpu", progress=False
        )
        scorer.score(premises[:4], hypotheses[:4], k=1)  # warm both sides alike: first call allocates
        start = time.perf_counter()
        ours = scorer.score(premises, hypotheses, k=1).values
        t_ours = time.perf_counter() - start
        start = time.perf_counter()
        ref = input_order(scorer, premises, hypotheses)
        t_ref = time.perf_counter() - start
    assert np.allclose(ours, ref, atol=1e-4), "the two orders must give the same scores"
    print(f"humaneval (length-sorted batches): {args.pairs / t_ours:6.2f} summaries/s ({t_ours:.1f} s)")
    print(f"reference (input-order batches):   {args.pairs / t_ref:6.2f} summaries/s ({t_ref:.1f} s)")
    print(f"ratio: {t_ref / t_ours:.2f}x; with k = 15 MC-dropout passes divide the rate by 15")


if __name__ == "__main__":
    main()
