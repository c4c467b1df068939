"""FFCI with its published backbones: faithfulness, focus, coverage and inter-sentential coherence.

Koto, Baldwin & Lau (2022), "FFCI: A Framework for Interpretable Automatic Evaluation of
Summarization". X = source, Y = reference, Y′ = system summary.

- **Faithfulness** FA = (1/|Y′|) Σ_{t∈sent(Y′)} AvgTop-n_{s∈sent(X)} sim(t, s) with sim = BERTScore F1
  between sentences; the published best was ``roberta-large-mnli`` at layer 8, n = 3
  (:func:`ffci_faithfulness`; the ROUGE variants are in :mod:`humaneval.scorers.lexical`).
- **Focus** = BERTScore precision and **coverage** = BERTScore recall of Y′ against Y (greedy cosine
  matching of contextual token vectors); published with ``roberta-large`` at layers 13 (focus) and
  3 (coverage), or gpt2-xl at layers 29 and 4 (:func:`ffci_focus_coverage`). The layers were tuned on
  the data they were reported on: choose layers on held-out data for new work.
- **Inter-sentential coherence** IC = min over consecutive sentence pairs of BERT's next-sentence
  probability (``bert-base-uncased``; :class:`NextSentenceScorer` with
  :func:`humaneval.scorers.lexical.intersentential_coherence`).

BERTScore runs through the ``bert-score`` package (``pip install 'humaneval[nli]'``), the models load
by hub id or local directory as in :mod:`humaneval.scorers.models`; every result's ``method`` names the
model and layer that ran.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from humaneval.errors import BackendUnavailableError, OptionError
from humaneval.scorers.lexical import top_n_alignment
from humaneval.scorers.models import (
    load_pretrained,
    load_transformers,
    resolve_device,
    resolve_model,
    weight_options,
)
from humaneval.scorers.result import ScoreResult, blank_mask, paired_texts

FAITHFULNESS_MODEL, FAITHFULNESS_LAYER = "roberta-large-mnli", 8
FOCUS_MODEL, FOCUS_LAYER, COVERAGE_LAYER = "roberta-large", 13, 3
NSP_MODEL = "bert-base-uncased"


class BertScore:
    """BERTScore (P, R, F1 per pair) of a named model at one layer, via the ``bert-score`` package.

    Parameters
    ----------
    model:
        Hub id or local directory of a transformers encoder.
    layer:
        Hidden layer whose token vectors are matched (``num_layers`` of ``bert-score``).
    revision, device, batch_size:
        Hub revision; ``auto``/``cpu``/``cuda``/``mps``; pairs per forward batch.
    allow_pickle:
        Load pickled weights (``pytorch_model.bin``) when the model has no safetensors; they can run
        code, so only for a file you trust.
    """

    def __init__(
        self,
        model: str | os.PathLike = FAITHFULNESS_MODEL,
        layer: int = FAITHFULNESS_LAYER,
        *,
        revision: str | None = None,
        device: str = "auto",
        batch_size: int = 64,
        allow_pickle: bool = False,
    ) -> None:
        try:
            from bert_score import BERTScorer
        except ImportError:
            raise BackendUnavailableError(
                "BERTScore needs the bert-score package: pip install 'humaneval[nli]'"
            ) from None
        load_transformers()
        self.name = os.fspath(model)
        self.path = resolve_model(model, what="BERTScore model", revision=revision)
        weight_options(self.path, "BERTScore model", allow_pickle)  # transformers prefers safetensors
        self.layer = int(layer)
        self.device = resolve_device(device)
        self._scorer = BERTScorer(
            model_type=str(self.path), num_layers=self.layer, device=self.device, batch_size=batch_size
        )
        self.method = f"bertscore({self.name}, layer {self.layer})"

    def score(
        self, candidates: list[str], references: list[str]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Precision, recall and F1 of every (candidate, reference) pair."""
        if not candidates:
            empty = np.zeros(0)
            return empty, empty, empty
        p, r, f = self._scorer.score(list(candidates), list(references), batch_size=self._scorer.batch_size)
        return p.numpy().astype(float), r.numpy().astype(float), f.numpy().astype(float)

    def pairs(self, candidates: list[str], references: list[str]) -> np.ndarray:
        """BERTScore F1 of every pair (the sentence similarity of FFCI faithfulness)."""
        return self.score(candidates, references)[2]


class NextSentenceScorer:
    """P(second sentence follows the first) from a BERT next-sentence-prediction head."""

    def __init__(
        self,
        model: str | os.PathLike = NSP_MODEL,
        *,
        revision: str | None = None,
        device: str = "auto",
        batch_size: int = 32,
        max_length: int = 256,
        allow_pickle: bool = False,
    ) -> None:
        transformers = load_transformers()
        self.name = os.fspath(model)
        self.path = resolve_model(model, what="next-sentence model", revision=revision)
        self.device = resolve_device(device)
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        self.model = load_pretrained(
            transformers.AutoModelForNextSentencePrediction, self.path, "next-sentence model", allow_pickle
        ).to(self.device)
        self.model.eval()
        self.batch_size = batch_size
        self.max_length = max_length
        self.method = f"next-sentence({self.name})"

    def pairs(self, firsts: list[str], seconds: list[str]) -> np.ndarray:
        """p_next of every (sentence, following sentence) pair; index 0 of the head is "is next"."""
        import torch

        out = np.empty(len(firsts))
        with torch.inference_mode():
            for start in range(0, len(firsts), self.batch_size):
                stop = start + self.batch_size
                batch = self.tokenizer(
                    firsts[start:stop],
                    seconds[start:stop],
                    truncation=True,
                    max_length=self.max_length,
                    padding=True,
                    return_tensors="pt",
                ).to(self.device)
                logits = self.model(**batch).logits.float()
                out[start:stop] = torch.softmax(logits, dim=-1)[:, 0].cpu().numpy()
        return out

    def __call__(self, first: str, second: str) -> float:
        return float(self.pairs([first], [second])[0])


def ffci_faithfulness(
    sources: Sequence[str],
    summaries: Sequence[str],
    *,
    scorer: BertScore | None = None,
    model: str | os.PathLike = FAITHFULNESS_MODEL,
    layer: int = FAITHFULNESS_LAYER,
    top_n: int = 3,
    **options: Any,
) -> ScoreResult:
    """FFCI faithfulness FA with BERTScore-F1 sentence similarity (default: roberta-large-mnli, layer 8).

    ``scorer`` reuses a loaded :class:`BertScore`; otherwise one is built from ``model``, ``layer`` and
    ``options`` (``revision``, ``device``, ``batch_size``). NaN for empty texts.
    """
    src, summ = paired_texts(sources, summaries)
    scorer = scorer or BertScore(model, layer, **options)
    values, n_empty = top_n_alignment(src, summ, scorer.pairs, top_n)
    meta = {"n_empty": n_empty, "top_n": top_n, "model_path": str(scorer.path)}
    return ScoreResult(values, f"ffci-faithfulness({scorer.method}, top-{top_n})", meta)


def ffci_focus_coverage(
    references: Sequence[str],
    summaries: Sequence[str],
    *,
    model: str | os.PathLike = FOCUS_MODEL,
    focus_layer: int = FOCUS_LAYER,
    coverage_layer: int = COVERAGE_LAYER,
    **options: Any,
) -> dict[str, ScoreResult]:
    """FFCI focus (BERTScore precision) and coverage (BERTScore recall) of summaries against references.

    Returns ``{"focus": …, "coverage": …}``; one model is loaded per distinct layer.
    """
    refs, summ = paired_texts(references, summaries, ("references", "summaries"))
    blank = blank_mask(refs, summ)
    keep = np.flatnonzero(~blank)
    results = {}
    scorers: dict[int, BertScore] = {}
    for aspect, layer, column in (("focus", focus_layer, 0), ("coverage", coverage_layer, 1)):
        scorer = scorers.setdefault(layer, BertScore(model, layer, **options))
        values = np.full(len(refs), np.nan)
        values[keep] = scorer.score([summ[i] for i in keep], [refs[i] for i in keep])[column]
        meta = {"n_empty": int(blank.sum()), "model_path": str(scorer.path), "layer": layer}
        results[aspect] = ScoreResult(values, f"ffci-{aspect}({scorer.method})", meta)
    return results


ASPECTS = ("faithfulness", "focus", "coverage", "coherence")


def score_ffci(
    sources: Sequence[str] | None,
    references: Sequence[str] | None,
    summaries: Sequence[str],
    *,
    aspects: Sequence[str] = ASPECTS,
    backend: str = "bertscore",
    model: str | os.PathLike = FAITHFULNESS_MODEL,
    layer: int = FAITHFULNESS_LAYER,
    top_n: int | None = None,
    focus_model: str | os.PathLike = FOCUS_MODEL,
    focus_layer: int = FOCUS_LAYER,
    coverage_layer: int = COVERAGE_LAYER,
    nsp_model: str | os.PathLike = NSP_MODEL,
    sim: str = "rouge1",
    **options: Any,
) -> dict[str, ScoreResult]:
    """The requested FFCI aspects of every summary, each a :class:`ScoreResult` naming what ran.

    ``backend="bertscore"`` uses the published backbones (BERTScore for FA, focus and coverage);
    ``backend="lexical"`` the ROUGE (``sim``) and exact-token variants of
    :mod:`humaneval.scorers.lexical`. Coherence always uses a next-sentence model (``nsp_model``).
    ``options`` (``revision``, ``device``, ``batch_size``) go to every model.
    """
    from humaneval.errors import RatingsError
    from humaneval.scorers.lexical import (
        intersentential_coherence,
        lexical_faithfulness,
        lexical_focus_coverage,
    )

    unknown = sorted(set(aspects) - set(ASPECTS))
    if unknown or not aspects:
        raise OptionError(f"FFCI aspects {unknown or '(none)'}: choose from {', '.join(ASPECTS)}")
    if backend not in ("bertscore", "lexical"):
        raise OptionError(f"FFCI backend {backend!r} is not one of bertscore, lexical")
    needs = {"faithfulness": ("sources", sources), "focus": ("references", references),
             "coverage": ("references", references)}  # fmt: skip
    for aspect in aspects:
        name, texts = needs.get(aspect, ("", summaries))
        if texts is None:
            raise RatingsError(f"FFCI {aspect} needs {name} (a {name[:-1]} column); or leave {aspect} out")
    results: dict[str, ScoreResult] = {}
    if "faithfulness" in aspects:
        assert sources is not None  # checked above
        if backend == "lexical":
            results["faithfulness"] = lexical_faithfulness(sources, summaries, sim=sim, top_n=top_n or 2)
        else:
            results["faithfulness"] = ffci_faithfulness(
                sources, summaries, model=model, layer=layer, top_n=top_n or 3, **options
            )
    wanted = [a for a in ("focus", "coverage") if a in aspects]
    if wanted:
        assert references is not None  # checked above
        if backend == "lexical":
            both = lexical_focus_coverage(references, summaries)
        else:
            both = ffci_focus_coverage(
                references, summaries, model=focus_model, focus_layer=focus_layer,
                coverage_layer=coverage_layer, **options,
            )  # fmt: skip
        results.update({a: both[a] for a in wanted})
    if "coherence" in aspects:
        results["coherence"] = intersentential_coherence(summaries, NextSentenceScorer(nsp_model, **options))
    return {a: results[a] for a in aspects}
