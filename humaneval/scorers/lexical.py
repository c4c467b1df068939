"""FFCI-style decomposed scores with lexical similarities — no model needed.

These are *lexical* stand-ins for the FFCI metrics of Koto et al. (2022), clearly named as such;
they are not the NLI faithfulness metric, and :mod:`humaneval.scorers.ffci` has the published
model-based backbones. X = source, Y = reference, Y′ = system summary.

- Faithfulness by top-n sentence alignment:
  FA = (1/|Y′|) Σ_{t∈sent(Y′)} AvgTop-n_{s∈sent(X)} sim(t, s), with sim = ROUGE-n F1 from the
  ``rouge-score`` package (clipped n-gram overlap, F = 2PR/(P+R), 0 without overlap, no stemming) or
  any callable; n = 2 by default.
- Focus / coverage by greedy token matching with the ``exact`` token similarity:
  P = (1/|Y′|) Σ_{t∈Y′} max_{s∈Y} [t = s],  R = (1/|Y|) Σ_{s∈Y} max_{t∈Y′} [t = s],  F = 2PR/(P+R).
- Inter-sentential coherence: IC = agg over consecutive pairs of p_next(t_i, t_{i+1}) with a
  user-supplied next-sentence scorer (min by default); NaN for one-sentence summaries.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol

import numpy as np

from humaneval.errors import OptionError, RatingsError
from humaneval.scorers.result import ScoreResult, as_texts, blank_mask, paired_texts
from humaneval.scorers.text import sentences, words

Similarity = Callable[[str, str], float]


class PairScorer(Protocol):
    """A batched similarity: one score per (candidate, reference) pair."""

    def pairs(self, candidates: list[str], references: list[str]) -> np.ndarray: ...


def rouge_n_f1(candidate: str, reference: str, n: int = 1) -> float:
    """ROUGE-n F1 between two sentences (``rouge-score``, no stemming); 0 when nothing overlaps.

    Examples
    --------
    >>> round(rouge_n_f1("the cat sat", "the cat ran away"), 6)   # P = 2/3, R = 2/4
    0.571429
    """
    return float(_rouge(n).score(reference, candidate)[f"rouge{n}"].fmeasure)


@cache
def _rouge(n: int) -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer([f"rouge{n}"], use_stemmer=False)


def _similarity(sim: str | Similarity) -> tuple[Similarity, str]:
    if callable(sim):
        return sim, getattr(sim, "__name__", "custom")
    if sim in ("rouge1", "rouge2"):
        n = int(sim[-1])
        return (lambda a, b: rouge_n_f1(a, b, n)), f"rouge-{n} F1"
    raise RatingsError(f"sim {sim!r}: use 'rouge1', 'rouge2' or a callable(sentence, sentence) -> float")


def top_n_alignment(
    sources: list[str],
    summaries: list[str],
    score: Callable[[list[str], list[str]], np.ndarray | list[float]],
    top_n: int,
) -> tuple[np.ndarray, int]:
    """FA of every (source, summary): AvgTop-n over source sentences, mean over summary sentences.

    ``score(candidates, references)`` scores all sentence pairs of the batch at once, so a neural
    similarity runs in a few large batches. NaN for blank texts; returns the values and their count.
    """
    if top_n < 1:
        raise RatingsError(f"top_n = {top_n}: must be at least 1")
    blank = blank_mask(sources, summaries)
    owners: list[tuple[int, int, int]] = []  # (item, summary sentence, number of source sentences)
    cands: list[str] = []
    refs: list[str] = []
    for i in np.flatnonzero(~blank):
        source_sents = sentences(sources[i])
        for j, t in enumerate(sentences(summaries[i])):
            owners.append((int(i), j, len(source_sents)))
            cands += [t] * len(source_sents)
            refs += source_sents
    scores = np.asarray(score(cands, refs), dtype=float) if cands else np.zeros(0)
    per_item: dict[int, list[float]] = {}
    start = 0
    for item, _, n_src in owners:
        sims = np.sort(scores[start : start + n_src])[::-1]
        per_item.setdefault(item, []).append(float(sims[:top_n].mean()))
        start += n_src
    values = np.full(len(sources), np.nan)
    for item, per_sentence in per_item.items():
        values[item] = float(np.mean(per_sentence))
    return values, int(blank.sum())


def lexical_faithfulness(
    sources: Sequence[str], summaries: Sequence[str], *, sim: str | Similarity = "rouge1", top_n: int = 2
) -> ScoreResult:
    """FFCI faithfulness FA by top-n sentence alignment against the source (NaN for empty texts).

    Each summary sentence is scored against every source sentence; the mean of its ``top_n``
    best scores is averaged over the summary's sentences.

    Parameters
    ----------
    sources, summaries : sequence of str
        Paired texts.
    sim : {"rouge1", "rouge2"} or callable
        Sentence similarity ``f(summary_sentence, source_sentence)``.
    top_n : int
        Source sentences averaged per summary sentence.

    Returns
    -------
    ScoreResult
        One value per summary (``values``), the ``method`` and ``meta`` (``n_empty``).

    Raises
    ------
    RatingsError
        Unpaired texts or an unknown ``sim``.

    References
    ----------
    Koto, F., Baldwin, T., & Lau, J. H. (2022). FFCI: A framework for interpretable automatic
    evaluation of summarization. Journal of Artificial Intelligence Research, 73, 1553–1607.

    Examples
    --------
    ROUGE-1 F1 of the summary sentence with the three source sentences is 12/13, 1/5 and 4/13;
    the top two average to 8/13:

    >>> result = lexical_faithfulness(["The cat sat on the mat. It was warm. The dog slept in the garden."],
    ...                               ["The cat sat on the warm mat."])
    >>> round(float(result.values[0]), 4), round(8 / 13, 4)
    (0.6154, 0.6154)
    """
    src, summ = paired_texts(sources, summaries)
    similarity, sim_name = _similarity(sim)
    values, n_empty = top_n_alignment(
        src, summ, lambda cands, refs: [similarity(a, b) for a, b in zip(cands, refs, strict=True)], top_n
    )
    return ScoreResult(
        values, f"ffci-lexical-faithfulness({sim_name}, top-{top_n})", {"n_empty": n_empty, "top_n": top_n}
    )


def lexical_focus_coverage(references: Sequence[str], summaries: Sequence[str]) -> dict[str, ScoreResult]:
    """FFCI focus (precision), coverage (recall) and their F with exact token matching.

    Parameters
    ----------
    references, summaries : sequence of str
        Paired texts.

    Returns
    -------
    dict of str to ScoreResult
        ``focus``, ``coverage`` and ``f1``.

    References
    ----------
    Koto, F., Baldwin, T., & Lau, J. H. (2022). FFCI: A framework for interpretable automatic
    evaluation of summarization. Journal of Artificial Intelligence Research, 73, 1553–1607.

    Examples
    --------
    Five of the six tokens match:

    >>> scores = lexical_focus_coverage(["the cat sat on the mat"], ["the cat lay on the mat"])
    >>> {name: round(float(result.values[0]), 4) for name, result in scores.items()}
    {'focus': 0.8333, 'coverage': 0.8333, 'f1': 0.8333}
    """
    refs, summ = paired_texts(references, summaries, ("references", "summaries"))
    blank = blank_mask(refs, summ)
    focus, coverage = np.full(len(refs), np.nan), np.full(len(refs), np.nan)
    for i in np.flatnonzero(~blank):
        y_hat, y = words(summ[i]), words(refs[i])
        if not y_hat or not y:
            continue
        ref_set, sum_set = set(y), set(y_hat)
        focus[i] = sum(t in ref_set for t in y_hat) / len(y_hat)
        coverage[i] = sum(s in sum_set for s in y) / len(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(focus + coverage > 0, 2 * focus * coverage / (focus + coverage), 0.0)
    f1[np.isnan(focus)] = np.nan
    meta = {"n_empty": int(blank.sum()), "token_similarity": "exact"}
    return {
        "focus": ScoreResult(focus, "ffci-lexical-focus(exact tokens)", meta),
        "coverage": ScoreResult(coverage, "ffci-lexical-coverage(exact tokens)", meta),
        "f1": ScoreResult(f1, "ffci-lexical-focus-coverage-f1(exact tokens)", meta),
    }


def intersentential_coherence(
    summaries: Sequence[str], next_sentence: Similarity | PairScorer, *, aggregate: str = "min"
) -> ScoreResult:
    """FFCI IC: ``aggregate`` (min, mean, max) of p_next over consecutive sentence pairs.

    ``next_sentence`` is a ``callable(sentence, next_sentence) -> p`` or a batched scorer with a
    ``pairs(firsts, seconds)`` method (e.g. :class:`humaneval.scorers.ffci.NextSentenceScorer`).
    One-sentence summaries have no pair: NaN, counted in ``meta["n_single_sentence"]``.
    """
    texts = as_texts(summaries, "summaries")
    reducers: dict[str, Callable[[np.ndarray], float]] = {"min": np.min, "mean": np.mean, "max": np.max}
    if aggregate not in reducers:
        raise OptionError(f"aggregate {aggregate!r} is not one of min, mean, max")
    blank = blank_mask(texts)
    firsts: list[str] = []
    seconds: list[str] = []
    spans: dict[int, slice] = {}
    n_single = 0
    for i in np.flatnonzero(~blank).tolist():
        sents = sentences(texts[i])
        if len(sents) < 2:
            n_single += 1
            continue
        spans[int(i)] = slice(len(firsts), len(firsts) + len(sents) - 1)
        for a, b in itertools.pairwise(sents):
            firsts.append(a)
            seconds.append(b)
    if hasattr(next_sentence, "pairs"):
        p_next = np.asarray(next_sentence.pairs(firsts, seconds), dtype=float) if firsts else np.zeros(0)
    else:
        p_next = np.array([next_sentence(a, b) for a, b in zip(firsts, seconds, strict=True)], dtype=float)
    values = np.full(len(texts), np.nan)
    for i, span in spans.items():
        values[i] = float(reducers[aggregate](p_next[span]))
    name = getattr(next_sentence, "method", None)
    return ScoreResult(
        values,
        f"ffci-intersentential-coherence({aggregate}" + (f", {name})" if name else ")"),
        {"n_empty": int(blank.sum()), "n_single_sentence": n_single},
    )
