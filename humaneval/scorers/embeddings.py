"""Sentence-embedding similarity from a local transformers model, for distinguishability.

The bias study used all-MiniLM-L6-v2; sentence-transformers encodes with that model by mean-pooling the
last hidden states over the attention mask and L2-normalising, which is what :func:`embedding_similarity`
does with plain transformers, so the model directory of that checkpoint gives the same embeddings. The
model is named by a hub id (e.g. ``sentence-transformers/all-MiniLM-L6-v2``, cached on first use) or a local
directory, as in :mod:`humaneval.scorers.models`.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from humaneval.scorers.models import load_pretrained, load_transformers, resolve_device, resolve_model


def embedding_similarity(
    model: str | os.PathLike,
    *,
    revision: str | None = None,
    max_length: int = 256,
    batch_size: int = 32,
    device: str = "auto",
    allow_pickle: bool = False,
) -> Callable[[list[str]], np.ndarray]:
    """A ``callable(texts) -> cosine matrix`` of mean-pooled, normalised last hidden states.

    Weights load from safetensors; pickled weights only with ``allow_pickle=True``
    (:func:`humaneval.scorers.models.load_pretrained`).
    """
    import torch

    path = resolve_model(model, what="sentence-embedding model", revision=revision)
    transformers = load_transformers()
    device = resolve_device(device)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    encoder = load_pretrained(transformers.AutoModel, path, "sentence-embedding model", allow_pickle).to(
        device
    )
    encoder.eval()

    def similarity(texts: list[str]) -> np.ndarray:
        vectors = []
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                batch = tokenizer(
                    list(texts[start : start + batch_size]),
                    truncation=True,
                    max_length=max_length,
                    padding=True,
                    return_tensors="pt",
                ).to(device)
                hidden = encoder(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
                vectors.append(torch.nn.functional.normalize(pooled, dim=-1).cpu().numpy())
        matrix = np.concatenate(vectors) if vectors else np.zeros((0, 0))
        return matrix @ matrix.T

    similarity.method = f"embedding-cosine({path})"  # type: ignore[attr-defined]
    return similarity
