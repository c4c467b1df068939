"""Tiny randomly initialised transformers models built by the tests, and a hub-cache layout for them.

Nothing is downloaded: each model is a config + random weights + a word-piece vocabulary saved with
``save_pretrained``; :func:`into_hub_cache` files such a directory into a Hugging Face cache folder the
way ``snapshot_download`` leaves it, so loading *by hub id* is tested offline.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")

WORDS = (
    "the cat sat on a mat dog ran . is was not red blue house big small and it "
    "i think believe love that ! here what know : yep also sure am but do have information this"
)
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS.split()]
NLI_LABELS = {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}


def _config(**extra) -> transformers.BertConfig:
    return transformers.BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=extra.pop("layers", 1),
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        hidden_dropout_prob=0.3,
        attention_probs_dropout_prob=0.3,
        **extra,
    )


def _save(model, directory: Path) -> Path:
    import torch  # noqa: F401

    directory.mkdir(parents=True, exist_ok=True)
    vocab_file = directory / "vocab.txt"
    vocab_file.write_text("\n".join(VOCAB) + "\n")
    tokenizer = transformers.BertTokenizer(str(vocab_file), model_max_length=64)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def build_nli(directory: Path, id2label: dict[int, str] = NLI_LABELS, seed: int = 0) -> Path:
    """A 3-way BERT sequence classifier with the given labels."""
    import torch

    config = _config(
        num_labels=len(id2label), id2label=id2label, label2id={v: k for k, v in id2label.items()}
    )
    torch.manual_seed(seed)
    return _save(transformers.BertForSequenceClassification(config), directory)


def build_encoder(directory: Path, layers: int = 3, seed: int = 0) -> Path:
    """A plain BERT encoder (for BERTScore and sentence embeddings)."""
    import torch

    torch.manual_seed(seed)
    return _save(transformers.BertModel(_config(layers=layers)), directory)


def build_nsp(directory: Path, seed: int = 0) -> Path:
    """A BERT with a next-sentence-prediction head."""
    import torch

    torch.manual_seed(seed)
    return _save(transformers.BertForNextSentencePrediction(_config()), directory)


def into_hub_cache(directory: Path, cache: Path, repo_id: str, revision: str = "main") -> Path:
    """Copy ``directory`` into ``cache`` as the snapshot of ``repo_id`` at ``revision``; its path."""
    commit = hashlib.sha1(f"{repo_id}@{revision}".encode()).hexdigest()
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    shutil.copytree(directory, snapshot)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / revision).write_text(commit)
    return snapshot
