"""Faithfulness scoring front end and its meta-evaluation against binary labels.

:func:`score_faithfulness` dispatches to the NLI scorer (:mod:`.nli`, docs/scorers.md) or, only when asked
for explicitly, to the lexical-overlap fallback, whose ``method`` says it is not NLI:

    score = 2·c − 1,  c = share of the summary's content tokens that occur in the source.

:func:`faithfulness_auc` is the meta-evaluation of dissertation ch. 5 (SummaC-style benchmark):
ROC AUC and balanced accuracy of a score against binary faithful/unfaithful labels, computed per
corpus and macro-averaged over corpora.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from humaneval.errors import InsufficientDataError, OptionError, RatingsError
from humaneval.scorers.result import ScoreResult, blank_mask, paired_texts
from humaneval.scorers.text import content_tokens

LEXICAL_METHOD = "lexical-overlap-fallback (not NLI)"


def lexical_overlap_score(sources: Sequence[str], summaries: Sequence[str]) -> ScoreResult:
    """2·c − 1 with c the share of summary content tokens found among the source's.

    Examples
    --------
    >>> lexical_overlap_score(["The cat sat on the mat."] * 2,
    ...                       ["The cat sat on the mat.", "A bird flew over the sea."]).values.tolist()
    [1.0, -1.0]
    """
    src, summ = paired_texts(sources, summaries)
    blank = blank_mask(src, summ)
    values = np.full(len(src), np.nan)
    n_no_content = 0
    for i, (source, summary) in enumerate(zip(src, summ, strict=True)):
        if blank[i]:
            continue
        tokens = content_tokens(summary)
        if not tokens:
            n_no_content += 1
            continue
        vocabulary = set(content_tokens(source))
        values[i] = 2.0 * sum(t in vocabulary for t in tokens) / len(tokens) - 1.0
    return ScoreResult(
        values, LEXICAL_METHOD, {"n_empty": int(blank.sum()), "n_no_content_tokens": n_no_content}
    )


def score_faithfulness(
    sources: Sequence[str],
    summaries: Sequence[str],
    *,
    backend: str = "nli",
    model: str | os.PathLike | None = None,
    revision: str | None = None,
    label_order: Sequence[str] | None = None,
    max_length: int = 512,
    batch_size: int = 8,
    device: str = "auto",
    progress: bool | None = None,
    allow_pickle: bool = False,
    **score_options: Any,
) -> ScoreResult:
    """Faithfulness of each summary to its source.

    ``backend="nli"`` (default) needs a ``model`` — a hub id such as
    ``MoritzLaurer/DeBERTa-v3-large-mnli-fever-anli-ling-wanli`` or a local directory (default
    ``$HUMANEVAL_NLI_MODEL``) — and
    accepts ``k``, ``mode``, ``seed``; ``backend="summac-zs"`` aggregates sentence pairs and accepts
    ``pair_mode``, ``k``, ``seed``; ``backend="lexical"`` is the labelled non-NLI fallback.

    Parameters
    ----------
    sources, summaries : sequence of str
        Paired texts.
    backend : {"nli", "summac-zs", "lexical"}
        The scorer.
    model, revision, label_order, max_length, batch_size, device :
        The NLI model (hub id or folder) and how it runs.
    progress : bool, optional
        Show a progress bar.
    allow_pickle : bool
        Load pickled weights (``pytorch_model.bin``) of a model without safetensors; they can run code
        when loaded, so only for a file you trust.
    **score_options
        Backend options (``k``, ``mode``, ``pair_mode``, ``seed``).

    Returns
    -------
    ScoreResult
        One score per summary; ``method`` names the backend (and model).

    Raises
    ------
    OptionError
        An unknown backend or option.
    BackendUnavailableError
        The NLI backend without a model or without torch/transformers.

    References
    ----------
    Laban, P., Schnabel, T., Bennett, P. N., & Hearst, M. A. (2022). SummaC: Re-visiting NLI-based
    models for inconsistency detection in summarization. TACL, 10, 163–177.

    Examples
    --------
    The lexical fallback needs no model (and says so in ``method``):

    >>> result = score_faithfulness(["The cat sat on the mat."] * 2,
    ...                             ["The cat sat.", "A bird flew over the sea."], backend="lexical")
    >>> result.values.tolist(), result.method
    ([1.0, -1.0], 'lexical-overlap-fallback (not NLI)')
    """
    if backend == "lexical":
        if score_options:
            raise RatingsError(f"backend 'lexical' takes no options; got {sorted(score_options)}")
        return lexical_overlap_score(sources, summaries)
    if backend not in ("nli", "summac-zs"):
        raise OptionError(f"backend {backend!r} is not one of nli, summac-zs, lexical")
    from humaneval.scorers.nli import NLIScorer

    scorer = NLIScorer(
        model,
        revision=revision,
        label_order=label_order,
        max_length=max_length,
        batch_size=batch_size,
        device=device,
        progress=progress,
        allow_pickle=allow_pickle,
    )
    if backend == "summac-zs":
        return scorer.score_summac_zs(sources, summaries, **score_options)
    return scorer.score(sources, summaries, **score_options)


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """ROC AUC as the Mann–Whitney probability P(score⁺ > score⁻) + ½·P(tie); NaN without both classes."""
    scores, labels = np.asarray(scores, float), np.asarray(labels, bool)
    pos, neg = scores[labels], scores[~labels]
    if pos.size == 0 or neg.size == 0:
        return float("nan")
    diff = pos[:, None] - neg[None, :]
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / diff.size)


def balanced_accuracy(scores: np.ndarray, labels: np.ndarray, threshold: float) -> float:
    """(TPR + TNR)/2 with "faithful" predicted when score ≥ threshold; NaN without both classes."""
    scores, labels = np.asarray(scores, float), np.asarray(labels, bool)
    if labels.all() or not labels.any():
        return float("nan")
    predicted = scores >= threshold
    return float(0.5 * (predicted[labels].mean() + (~predicted[~labels]).mean()))


def best_threshold(scores: np.ndarray, labels: np.ndarray) -> float:
    """The threshold among the observed scores that maximises balanced accuracy (smallest on ties)."""
    candidates = np.unique(np.asarray(scores, float))
    accuracies = [balanced_accuracy(scores, labels, t) for t in candidates]
    return float(candidates[int(np.nanargmax(accuracies))])


@dataclass(frozen=True)
class FaithfulnessEvaluation:
    """Per-corpus ROC AUC / balanced accuracy (``per_corpus``) and their macro averages."""

    per_corpus: pd.DataFrame
    macro_auc: float
    macro_balanced_accuracy: float
    threshold_tuned_in_sample: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_corpus": self.per_corpus.to_dict(orient="records"),
            "macro_auc": self.macro_auc,
            "macro_balanced_accuracy": self.macro_balanced_accuracy,
            "threshold_tuned_in_sample": self.threshold_tuned_in_sample,
        }


def faithfulness_auc(
    scores: Sequence[float],
    labels: Sequence[object],
    corpus: Sequence[object] | None = None,
    *,
    threshold: float | dict[str, float] | None = None,
) -> FaithfulnessEvaluation:
    """ROC AUC and balanced accuracy of ``scores`` against binary labels (1/True = faithful).

    Items with a NaN score are left out (counted per corpus). Each corpus gets its own AUC and
    balanced accuracy; the macro averages weight corpora equally. ``threshold`` is one value, a
    value per corpus, or None: then it is tuned per corpus on the same data, which flatters the
    balanced accuracy (as in SummaC's in-sample setting) and is flagged in the result.

    Parameters
    ----------
    scores : sequence of float
        Faithfulness scores (higher = more faithful).
    labels : sequence
        1/True = faithful.
    corpus : sequence, optional
        Corpus id per item (default: one corpus ``all``).
    threshold : float or dict, optional
        Decision threshold (per corpus), or None to tune it in-sample.

    Returns
    -------
    FaithfulnessEvaluation
        ``per_corpus`` table, ``macro_auc``, ``macro_balanced_accuracy`` and
        ``threshold_tuned_in_sample``.

    Raises
    ------
    RatingsError
        Scores, labels and corpus ids of different lengths, or labels that are not binary.

    References
    ----------
    Laban, P., Schnabel, T., Bennett, P. N., & Hearst, M. A. (2022). SummaC: Re-visiting NLI-based
    models for inconsistency detection in summarization. TACL, 10, 163–177.

    Examples
    --------
    >>> result = faithfulness_auc([0.9, 0.8, 0.3, 0.6, 0.2], [1, 1, 0, 1, 0])
    >>> result.macro_auc, result.macro_balanced_accuracy, result.threshold_tuned_in_sample
    (1.0, 1.0, True)
    >>> faithfulness_auc([0.9, 0.4, 0.6, 0.2], [1, 1, 0, 0]).macro_auc  # 3 of 4 pairs ordered
    0.75
    """
    values = np.asarray(scores, dtype=float)
    flags = np.array([_as_label(v, i) for i, v in enumerate(labels)], dtype=bool)
    corpora = np.array(["all"] * len(values) if corpus is None else [str(c) for c in corpus])
    if not len(values) == len(flags) == len(corpora):
        raise RatingsError(
            f"{len(values)} scores, {len(flags)} labels and {len(corpora)} corpus ids; pass one per item"
        )
    rows = []
    for name in dict.fromkeys(corpora):
        in_corpus = corpora == name
        valid = in_corpus & ~np.isnan(values)
        s, y = values[valid], flags[valid]
        if isinstance(threshold, dict):
            cut = threshold.get(name, float("nan"))
        elif threshold is None:
            cut = best_threshold(s, y) if y.any() and not y.all() else float("nan")
        else:
            cut = float(threshold)
        rows.append(
            {
                "corpus": name,
                "n": int(valid.sum()),
                "n_faithful": int(y.sum()),
                "n_nan": int(in_corpus.sum() - valid.sum()),
                "roc_auc": roc_auc(s, y),
                "threshold": cut,
                "balanced_accuracy": balanced_accuracy(s, y, cut),
            }
        )
    table = pd.DataFrame(rows)
    if table["roc_auc"].isna().all():
        raise InsufficientDataError(
            "faithfulness_auc: no corpus has both faithful and unfaithful items with scores"
        )
    return FaithfulnessEvaluation(
        per_corpus=table,
        macro_auc=float(table["roc_auc"].mean()),
        macro_balanced_accuracy=float(table["balanced_accuracy"].mean()),
        threshold_tuned_in_sample=threshold is None,
    )


def _as_label(value: object, index: int) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "faithful", "consistent", "correct"):
        return True
    if text in ("false", "unfaithful", "inconsistent", "incorrect"):
        return False
    raise RatingsError(f"label {index}: {value!r} is not binary; use 1/0, true/false or faithful/unfaithful")
