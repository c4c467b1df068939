"""NLI faithfulness: P(entail) − P(contradict) with optional MC dropout (dissertation ch. 5).

Premise = source, hypothesis = summary. The model is any 3-way sequence classifier, named by its
Hugging Face hub id (downloaded once into the usual cache; ``HF_HOME``, ``HF_HUB_OFFLINE`` and
revisions are honoured) or by a local directory — see :mod:`humaneval.scorers.models`. The
entailment and contradiction outputs are read from the model's ``id2label``. The dissertation's
base scorer is the DeBERTa-v3-large NLI model of Laurer et al. (2022) (:data:`RECOMMENDED_MODEL`);
its full metric further trains it on the augmented data of :mod:`.augment`. Scores are

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

import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from humaneval.core.deprecation import caller_stacklevel
from humaneval.errors import BackendUnavailableError, ModelSpecError, OptionError
from humaneval.scorers.models import load_pretrained, load_transformers, resolve_device, resolve_model
from humaneval.scorers.result import ScoreResult, blank_mask, paired_texts
from humaneval.scorers.text import sentences

MODEL_ENV = "HUMANEVAL_NLI_MODEL"
MODES = ("e-c", "e", "c")
#: The public checkpoint closest to the dissertation's scorer (DeBERTa-v3-large trained on MNLI, FEVER,
#: ANLI, LingNLI and WANLI); see docs/scorers.md for the other documented checkpoints.
RECOMMENDED_MODEL = "MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli"


def nli_model_name(model: str | os.PathLike | None) -> str | os.PathLike:
    """``model``, else ``$HUMANEVAL_NLI_MODEL``; one clear error when neither names a model."""
    model = model or os.environ.get(MODEL_ENV)
    if not model:
        raise BackendUnavailableError(
            "no NLI model configured: pass --model with a Hugging Face hub id (e.g. "
            f"{RECOMMENDED_MODEL}) or a local model directory, or set {MODEL_ENV} "
            "(backend='lexical' is the labelled non-NLI fallback)"
        )
    return model


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
    """Scores (source, summary) pairs with a local NLI model; see the module docstring.

    Weights load from safetensors; a model with only pickled weights (``pytorch_model.bin``, which can
    run code when loaded) needs ``allow_pickle=True`` (:func:`humaneval.scorers.models.load_pretrained`).
    """

    def __init__(
        self,
        model: str | os.PathLike | None = None,
        *,
        revision: str | None = None,
        cache_dir: str | os.PathLike | None = None,
        label_order: Sequence[str] | None = None,
        max_length: int = 512,
        batch_size: int = 8,
        device: str = "auto",
        progress: bool | None = None,
        allow_pickle: bool = False,
    ) -> None:
        self.name = os.fspath(nli_model_name(model))
        self.path = resolve_model(self.name, what="NLI model", revision=revision, cache_dir=cache_dir)
        transformers = load_transformers()
        self.device = resolve_device(device)
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self.tokenizer.truncation_side = "right"
        self.model = load_pretrained(
            transformers.AutoModelForSequenceClassification, self.path, "NLI model", allow_pickle
        ).to(self.device)
        self.model.eval()
        self.entail, self.contra = label_indices(self.model.config.id2label, label_order)
        self.max_length = max_length
        self.batch_size = batch_size
        self.progress = progress

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

        Pairs are batched by length (longest first, so padding is small and an out-of-memory batch
        shows at once) and returned in input order. For k > 1 the model is in eval mode with only
        the dropout modules (class names ending in ``Dropout``) switched to train mode, and torch's
        RNG is seeded inside a forked RNG state.
        """
        import torch
        from tqdm.auto import tqdm

        if k < 1:
            raise OptionError(f"k = {k}: the number of MC-dropout passes must be at least 1")
        out = np.empty((k, len(premises), self.model.config.num_labels))
        order = np.argsort(
            [-(len(a) + len(b)) for a, b in zip(premises, hypotheses, strict=True)], kind="stable"
        )
        starts = range(0, len(premises), self.batch_size)
        n_cut = 0
        dropouts = [m for m in self.model.modules() if type(m).__name__.endswith("Dropout")]
        for module in dropouts:
            module.train(k > 1)
        try:
            with torch.random.fork_rng(devices=[]), torch.inference_mode():
                torch.manual_seed(seed)
                for start in tqdm(starts, desc="NLI", unit="batch", disable=self._quiet(len(starts))):
                    rows = order[start : start + self.batch_size]
                    batch, cut = self.encode([premises[i] for i in rows], [hypotheses[i] for i in rows])
                    n_cut += cut
                    batch = {key: value.to(self.device) for key, value in batch.items()}
                    for m in range(k):
                        logits = self.model(**batch).logits.float()
                        out[m, rows] = torch.softmax(logits, dim=-1).cpu().numpy()
        finally:
            for module in dropouts:
                module.train(False)
        if n_cut:
            warnings.warn(
                f"{n_cut} summaries were longer than the {self.max_length}-token budget and were truncated",
                stacklevel=caller_stacklevel(),
            )
        return out, n_cut

    def _quiet(self, n_batches: int) -> bool | None:
        """tqdm's ``disable``: off when asked, on when asked, else shown on a terminal for > 1 batch."""
        if self.progress is None:
            return None if n_batches > 1 else True
        return not self.progress

    def _combine(self, probs: np.ndarray, mode: str) -> np.ndarray:
        """Per-pass score of the probability vectors: e − c, e or c."""
        if mode == "e-c":
            return probs[..., self.entail] - probs[..., self.contra]
        if mode == "e":
            return probs[..., self.entail]
        if mode == "c":
            return probs[..., self.contra]
        raise OptionError(f"mode {mode!r} is not one of {', '.join(MODES)}")

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
            raise OptionError(f"mode {mode!r} is not one of {', '.join(MODES)}")
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
        """SummaC-ZS aggregation: every (source sentence, summary sentence) pair is
        scored; max over source sentences per summary sentence, then the mean over summary
        sentences. ``pair_mode`` "e" follows the thesis formula, "e-c" the SummaC package."""
        premises, hypotheses = paired_texts(sources, summaries)
        blank = blank_mask(premises, hypotheses)
        pairs: list[tuple[int, int, int]] = []
        flat_p: list[str] = []
        flat_h: list[str] = []
        for item in np.flatnonzero(~blank).tolist():
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
            "model": self.name,
            "model_path": str(self.path),
            "device": self.device,
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
