"""NLI faithfulness: P(entail) − P(contradict) with optional MC dropout (spec §8.2).

Premise = source, hypothesis = summary. The model is any 3-way sequence classifier in a local
directory (``config.json``, weights, tokenizer files), loaded with ``local_files_only=True`` and the
Hugging Face offline switches set: nothing is ever downloaded. The published metric (dissertation
ch. 5) is a DeBERTa-v3-large NLI model trained on the augmented data of :mod:`.augment`, scored as

    p̄ = (1/k) Σ_m softmax(logits_m)        (probability vectors averaged, not logits)
    score = p̄[entail] − p̄[contra]          ∈ [−1, 1]

with k = 15 MC-dropout passes (the authors' code effectively averaged 8). ``k = 1`` runs with
dropout off: the deterministic "-MC" variant.

Truncation policy: pairs are encoded as (premise, hypothesis) with ``max_length`` tokens (512).
Only the premise is truncated, from its end, so the beginning of the source is kept. A hypothesis
that does not fit next to at least one premise token is itself cut to half the budget (warned and
counted in ``meta["n_hypothesis_truncated"]``).
"""

from __future__ import annotations

import importlib.resources
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from humaneval.errors import BackendUnavailableError, ModelSpecError
from humaneval.scorers.result import ScoreResult, blank_mask, paired_texts
from humaneval.scorers.text import sentences

MODEL_ENV = "HUMANEVAL_NLI_MODEL"
MODES = ("e-c", "e", "c")


def resolve_model_path(model: str | os.PathLike | None, what: str = "NLI model") -> Path:
    """The local model directory: a path, ``pkg:<package>/<subdir>`` (an installed package's data),
    or, for the NLI model when ``model`` is None, the ``HUMANEVAL_NLI_MODEL`` environment variable."""
    if model is None and what == "NLI model":
        model = os.environ.get(MODEL_ENV)
    if not model:
        hint = f" or set {MODEL_ENV}" if what == "NLI model" else ""
        raise BackendUnavailableError(
            f"no {what} configured: pass a local model directory{hint}; nothing is downloaded"
            + (" (use backend='lexical' for the labelled non-NLI fallback)" if what == "NLI model" else "")
        )
    text = os.fspath(model)
    if text.startswith("pkg:"):
        package, _, sub = text[4:].partition("/")
        try:
            path = Path(str(importlib.resources.files(package).joinpath(sub)))
        except ModuleNotFoundError:
            raise BackendUnavailableError(f"{what} {text}: package {package!r} is not installed") from None
    else:
        path = Path(text).expanduser()
    if not (path / "config.json").is_file():
        raise BackendUnavailableError(
            f"{what} {text}: {path} is not a model directory (no config.json); "
            "give the directory holding config.json, the weights and the tokenizer files"
        )
    return path


def offline_transformers() -> Any:
    """Import transformers with the Hugging Face offline switches set (never downloads)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        import torch  # noqa: F401
        import transformers
    except ImportError:
        raise BackendUnavailableError(
            "neural scorers need torch and transformers: pip install 'humaneval[nli]'"
        ) from None
    transformers.utils.logging.disable_progress_bar()
    return transformers


def label_indices(id2label: dict[int, str], label_order: Sequence[str] | None) -> tuple[int, int]:
    """Indices of the entailment and contradiction labels.

    Read from ``id2label`` (labels starting with "entail" / "contra", case-insensitive) unless
    ``label_order`` names the label of every output index. Never guessed.
    """
    if label_order is not None:
        names = [str(n).lower() for n in label_order]
        if len(names) != len(id2label):
            raise ModelSpecError(
                f"label_order has {len(names)} names but the model has {len(id2label)} outputs; "
                "name every output index in order"
            )
    else:
        names = [str(id2label[i]).lower() for i in range(len(id2label))]
    entail = [i for i, n in enumerate(names) if n.startswith("entail")]
    contra = [i for i, n in enumerate(names) if n.startswith("contra")]
    if len(entail) != 1 or len(contra) != 1:
        raise ModelSpecError(
            f"cannot tell the entailment and contradiction outputs from labels {names}; pass "
            "label_order, e.g. ('entailment', 'neutral', 'contradiction')"
        )
    return entail[0], contra[0]


class NLIScorer:
    """Scores (source, summary) pairs with a local NLI model; see the module docstring."""

    def __init__(
        self,
        model: str | os.PathLike | None = None,
        *,
        label_order: Sequence[str] | None = None,
        max_length: int = 512,
        batch_size: int = 8,
        device: str = "cpu",
    ) -> None:
        self.path = resolve_model_path(model)
        transformers = offline_transformers()
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self.tokenizer.truncation_side = "right"
        self.model = transformers.AutoModelForSequenceClassification.from_pretrained(
            self.path, local_files_only=True
        ).to(device)
        self.model.eval()
        self.entail, self.contra = label_indices(self.model.config.id2label, label_order)
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device

    def encode(self, premises: list[str], hypotheses: list[str]) -> tuple[Any, int]:
        """Tokenised pairs under the truncation policy, and how many hypotheses had to be cut."""
        budget = self.max_length - self.tokenizer.num_special_tokens_to_add(pair=True)
        cut = []
        for hypothesis in hypotheses:
            tokens = self.tokenizer.tokenize(hypothesis)
            if len(tokens) > budget - 1:
                hypothesis = self.tokenizer.convert_tokens_to_string(tokens[: budget // 2])
            cut.append(hypothesis)
        n_cut = sum(a != b for a, b in zip(cut, hypotheses, strict=True))
        batch = self.tokenizer(
            premises,
            cut,
            truncation="only_first",
            max_length=self.max_length,
            padding=True,
            return_tensors="pt",
        )
        return batch, n_cut

    def probabilities(
        self, premises: list[str], hypotheses: list[str], k: int = 1, seed: int = 0
    ) -> tuple[np.ndarray, int]:
        """Class probabilities of every pass, shape (k, n, n_labels), and the hypothesis-cut count.

        For k > 1 the model is in eval mode with only the dropout modules (class names ending in
        ``Dropout``) switched to train mode, and torch's RNG is seeded inside a forked RNG state.
        """
        import torch

        if k < 1:
            raise ModelSpecError(f"k = {k}: the number of MC-dropout passes must be at least 1")
        out = np.empty((k, len(premises), self.model.config.num_labels))
        n_cut = 0
        dropouts = [m for m in self.model.modules() if type(m).__name__.endswith("Dropout")]
        for module in dropouts:
            module.train(k > 1)
        try:
            with torch.random.fork_rng(devices=[]), torch.inference_mode():
                torch.manual_seed(seed)
                for start in range(0, len(premises), self.batch_size):
                    stop = start + self.batch_size
                    batch, cut = self.encode(premises[start:stop], hypotheses[start:stop])
                    n_cut += cut
                    batch = {key: value.to(self.device) for key, value in batch.items()}
                    for m in range(k):
                        logits = self.model(**batch).logits.float()
                        out[m, start:stop] = torch.softmax(logits, dim=-1).cpu().numpy()
        finally:
            for module in dropouts:
                module.train(False)
        if n_cut:
            warnings.warn(
                f"{n_cut} summaries were longer than the {self.max_length}-token budget and were truncated",
                stacklevel=2,
            )
        return out, n_cut

    def _combine(self, probs: np.ndarray, mode: str) -> np.ndarray:
        """Per-pass score of the probability vectors: e − c, e or c."""
        if mode == "e-c":
            return probs[..., self.entail] - probs[..., self.contra]
        if mode == "e":
            return probs[..., self.entail]
        if mode == "c":
            return probs[..., self.contra]
        raise ModelSpecError(f"mode {mode!r} is not one of {', '.join(MODES)}")

    def score(
        self,
        sources: Sequence[str],
        summaries: Sequence[str],
        *,
        k: int = 15,
        mode: str = "e-c",
        seed: int = 0,
    ) -> ScoreResult:
        """Score every (source, summary) pair; ``meta["sd"]`` is the per-item SD across passes."""
        premises, hypotheses = paired_texts(sources, summaries)
        if mode not in MODES:
            raise ModelSpecError(f"mode {mode!r} is not one of {', '.join(MODES)}")
        blank = blank_mask(premises, hypotheses)
        keep = np.flatnonzero(~blank)
        values = np.full(len(premises), np.nan)
        sd = np.full(len(premises), np.nan)
        n_cut = 0
        if keep.size:
            probs, n_cut = self.probabilities(
                [premises[i] for i in keep], [hypotheses[i] for i in keep], k=k, seed=seed
            )
            mean = probs.mean(axis=0)
            values[keep] = self._combine(mean, mode)
            sd[keep] = self._combine(probs, mode).std(axis=0)
        return ScoreResult(
            values=values,
            method=f"nli-{mode}(k={k})" if k > 1 else f"nli-{mode}(k=1, no dropout)",
            meta=self._meta(k, seed, mode, n_empty=int(blank.sum()), n_cut=n_cut, sd=sd),
        )

    def score_summac_zs(
        self,
        sources: Sequence[str],
        summaries: Sequence[str],
        *,
        pair_mode: str = "e",
        k: int = 1,
        seed: int = 0,
    ) -> ScoreResult:
        """SummaC-ZS aggregation (spec §8.2): every (source sentence, summary sentence) pair is
        scored; max over source sentences per summary sentence, then the mean over summary
        sentences. ``pair_mode`` "e" follows the thesis formula, "e-c" the SummaC package."""
        premises, hypotheses = paired_texts(sources, summaries)
        blank = blank_mask(premises, hypotheses)
        pairs: list[tuple[int, int, int]] = []
        flat_p: list[str] = []
        flat_h: list[str] = []
        for item in np.flatnonzero(~blank):
            source_sents, summary_sents = sentences(premises[item]), sentences(hypotheses[item])
            for j, hyp in enumerate(summary_sents):
                for prem in source_sents:
                    pairs.append((item, j, len(flat_p)))
                    flat_p.append(prem)
                    flat_h.append(hyp)
        values = np.full(len(premises), np.nan)
        n_cut = 0
        if flat_p:
            probs, n_cut = self.probabilities(flat_p, flat_h, k=k, seed=seed)
            pair_scores = self._combine(probs.mean(axis=0), pair_mode)
            best: dict[tuple[int, int], float] = {}
            for item, j, row in pairs:
                best[item, j] = max(best.get((item, j), -np.inf), pair_scores[row])
            per_item: dict[int, list[float]] = {}
            for (item, _), value in best.items():
                per_item.setdefault(item, []).append(value)
            for item, item_values in per_item.items():
                values[item] = float(np.mean(item_values))
        return ScoreResult(
            values=values,
            method=f"summac-zs-nli-{pair_mode}(k={k})",
            meta={
                **self._meta(k, seed, pair_mode, n_empty=int(blank.sum()), n_cut=n_cut),
                "n_pairs": len(flat_p),
            },
        )

    def _meta(self, k: int, seed: int, mode: str, **counts: Any) -> dict[str, Any]:
        import transformers

        sd = counts.pop("sd", None)
        meta = {
            "model_path": str(self.path),
            "k": k,
            "seed": seed,
            "mode": mode,
            "max_length": self.max_length,
            "batch_size": self.batch_size,
            "labels": {"entail": self.entail, "contra": self.contra},
            "transformers_version": transformers.__version__,
            "n_empty": counts["n_empty"],
            "n_hypothesis_truncated": counts["n_cut"],
        }
        if sd is not None:
            meta["sd"] = sd
        return meta
