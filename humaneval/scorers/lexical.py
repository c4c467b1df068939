"""FFCI-style decomposed scores with lexical similarities — no model needed (spec §8.6).

These are *lexical* stand-ins for the FFCI metrics of Koto et al. (2022), clearly named as such;
they are not the NLI faithfulness metric. X = source, Y = reference, Y′ = system summary.

- Faithfulness by top-n sentence alignment:
  FA = (1/|Y′|) Σ_{t∈sent(Y′)} AvgTop-n_{s∈sent(X)} sim(t, s), with sim = ROUGE-n F1 (clipped n-gram
  overlap, F = 2PR/(P+R), 0 without overlap) or any callable; n = 2 by default.
- Focus / coverage by greedy token matching with the ``exact`` token similarity:
  P = (1/|Y′|) Σ_{t∈Y′} max_{s∈Y} [t = s],  R = (1/|Y|) Σ_{s∈Y} max_{t∈Y′} [t = s],  F = 2PR/(P+R).
- Inter-sentential coherence: IC = agg over consecutive pairs of p_next(t_i, t_{i+1}) with a
  user-supplied next-sentence scorer (min by default); NaN for one-sentence summaries.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from humaneval.errors import RatingsError
from humaneval.scorers.result import ScoreResult, as_texts, blank_mask, paired_texts
from humaneval.scorers.text import sentences, words

Similarity = Callable[[str, str], float]


def rouge_n_f1(candidate: str, reference: str, n: int = 1) -> float:
    """ROUGE-n F1 between two sentences from clipped n-gram overlap; 0 when nothing overlaps."""
    a, b = _ngrams(words(candidate), n), _ngrams(words(reference), n)
    overlap = sum((a & b).values())
    if overlap == 0:
        return 0.0
    precision, recall = overlap / sum(a.values()), overlap / sum(b.values())
    return 2 * precision * recall / (precision + recall)


def _ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _similarity(sim: str | Similarity) -> tuple[Similarity, str]:
    if callable(sim):
        return sim, getattr(sim, "__name__", "custom")
    if sim in ("rouge1", "rouge2"):
        n = int(sim[-1])
        return (lambda a, b: rouge_n_f1(a, b, n)), f"rouge-{n} F1"
    raise RatingsError(f"sim {sim!r}: use 'rouge1', 'rouge2' or a callable(sentence, sentence) -> float")


def lexical_faithfulness(
    sources: Sequence[str], summaries: Sequence[str], *, sim: str | Similarity = "rouge1", top_n: int = 2
) -> ScoreResult:
    """FFCI faithfulness FA by top-n sentence alignment against the source (NaN for empty texts)."""
    src, summ = paired_texts(sources, summaries)
    similarity, sim_name = _similarity(sim)
    if top_n < 1:
        raise RatingsError(f"top_n = {top_n}: must be at least 1")
    blank = blank_mask(src, summ)
    values = np.full(len(src), np.nan)
    for i in np.flatnonzero(~blank):
        source_sents = sentences(src[i])
        per_sentence = []
        for t in sentences(summ[i]):
            sims = np.sort([similarity(t, s) for s in source_sents])[::-1]
            per_sentence.append(sims[:top_n].mean())
        values[i] = float(np.mean(per_sentence))
    return ScoreResult(
        values,
        f"ffci-lexical-faithfulness({sim_name}, top-{top_n})",
        {"n_empty": int(blank.sum()), "top_n": top_n},
    )


def lexical_focus_coverage(references: Sequence[str], summaries: Sequence[str]) -> dict[str, ScoreResult]:
    """FFCI focus (precision), coverage (recall) and their F with exact token matching."""
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
    summaries: Sequence[str], next_sentence: Similarity, *, aggregate: str = "min"
) -> ScoreResult:
    """FFCI IC: ``aggregate`` (min, mean, max) of p_next over consecutive sentence pairs."""
    texts = as_texts(summaries, "summaries")
    reducers = {"min": np.min, "mean": np.mean, "max": np.max}
    if aggregate not in reducers:
        raise RatingsError(f"aggregate {aggregate!r} is not one of min, mean, max")
    blank = blank_mask(texts)
    values = np.full(len(texts), np.nan)
    n_single = 0
    for i in np.flatnonzero(~blank):
        sents = sentences(texts[i])
        if len(sents) < 2:
            n_single += 1
            continue
        values[i] = float(reducers[aggregate]([next_sentence(a, b) for a, b in itertools.pairwise(sents)]))
    return ScoreResult(
        values,
        f"ffci-intersentential-coherence({aggregate})",
        {"n_empty": int(blank.sum()), "n_single_sentence": n_single},
    )
