"""Lexical coherence signals that need no weights.

- Repeated n-gram share: #{distinct n-grams occurring more than once} / #{distinct n-grams} of a
  summary's lowercased words (in SummEval the bigram share had r = −0.3205 with expert coherence).
- Adjacent-sentence lexical cohesion (a package baseline, not from the studies): mean cosine between
  the content-word count vectors of consecutive sentences; NaN for fewer than 2 sentences.
- GRUEN-style redundancy penalty: −0.1 × the number of flags over all unordered sentence pairs. An
  identical pair, or one sentence containing the other, gets 4 flags; otherwise, if the longer sentence
  has ≥ 5 words, one flag each when the longest common substring exceeds 0.8 × the shorter sentence's
  characters, when that substring's word count exceeds 0.8 × the smaller word count, when the
  Levenshtein distance is below 0.6 × the longer character length, and when the number of words of a
  found in b exceeds 0.8 × the smaller word count (thresholds of the public GRUEN code).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import numpy as np

from humaneval.errors import RatingsError
from humaneval.scorers.result import ScoreResult, as_texts, blank_mask
from humaneval.scorers.text import content_tokens, sentences, words


def repeated_ngram_share(texts: Sequence[str], n: int = 2) -> ScoreResult:
    """Share of distinct word n-grams that occur more than once; NaN without any n-gram.

    Parameters
    ----------
    texts : sequence of str
        The summaries.
    n : int
        The n-gram length (≥ 1).

    Returns
    -------
    ScoreResult
        One share per text.

    Examples
    --------
    "the cat" is the one repeated bigram of four distinct ones:

    >>> repeated_ngram_share(["the cat sat the cat ran", "one two three"]).values.tolist()
    [0.25, 0.0]
    """
    if n < 1:
        raise RatingsError(f"n = {n}: must be at least 1")
    items = as_texts(texts, "texts")
    blank = blank_mask(items)
    values = np.full(len(items), np.nan)
    for i in np.flatnonzero(~blank):
        tokens = words(items[i])
        counts = Counter(tuple(tokens[j : j + n]) for j in range(len(tokens) - n + 1))
        if counts:
            values[i] = sum(c > 1 for c in counts.values()) / len(counts)
    return ScoreResult(values, f"repeated-{n}-gram-share", {"n_empty": int(blank.sum()), "n": n})


def _cosine(a: Counter, b: Counter) -> float:
    dot = sum(a[k] * b[k] for k in a.keys() & b.keys())
    norm = np.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
    return float(dot / norm) if norm > 0 else 0.0


def adjacent_cohesion(texts: Sequence[str]) -> ScoreResult:
    """Mean content-word cosine of consecutive sentences (a zero vector has similarity 0).

    Parameters
    ----------
    texts : sequence of str
        The summaries.

    Returns
    -------
    ScoreResult
        One value per text (NaN for fewer than two sentences).

    Examples
    --------
    {cat, sat, mat} and {cat, happy} share one word: 1/√6.

    >>> round(float(adjacent_cohesion(["The cat sat on the mat. The cat was happy."]).values[0]), 4)
    0.4082
    """
    items = as_texts(texts, "texts")
    blank = blank_mask(items)
    values = np.full(len(items), np.nan)
    for i in np.flatnonzero(~blank):
        bags = [Counter(content_tokens(s)) for s in sentences(items[i])]
        if len(bags) >= 2:
            values[i] = float(np.mean([_cosine(a, b) for a, b in itertools.pairwise(bags)]))
    return ScoreResult(values, "adjacent-sentence-lexical-cohesion", {"n_empty": int(blank.sum())})


def longest_common_substring(a: str, b: str) -> str:
    """The longest common (contiguous) character substring, the first one found on ties."""
    best_len, best_end = 0, 0
    previous = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        current = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                current[j] = previous[j - 1] + 1
                if current[j] > best_len:
                    best_len, best_end = current[j], i
        previous = current
    return a[best_end - best_len : best_end]


def levenshtein(a: str, b: str) -> int:
    """Character edit distance (insertions, deletions, substitutions of cost 1)."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def redundancy_flags(a: str, b: str) -> int:
    """GRUEN redundancy flags of one sentence pair (0–4)."""
    if a == b or a in b or b in a:
        return 4
    words_a, words_b = a.split(), b.split()
    if max(len(words_a), len(words_b)) < 5:
        return 0
    shorter_chars, longer_chars = sorted((len(a), len(b)))
    fewer_words = min(len(words_a), len(words_b))
    common = longest_common_substring(a, b)
    vocabulary_b = set(words_b)
    return (
        int(len(common) > 0.8 * shorter_chars)
        + int(len(common.split()) > 0.8 * fewer_words)
        + int(levenshtein(a, b) < 0.6 * longer_chars)
        + int(sum(w in vocabulary_b for w in words_a) > 0.8 * fewer_words)
    )


def redundancy_penalty(texts: Sequence[str]) -> ScoreResult:
    """GRUEN-style redundancy: −0.1 × flags summed over unordered sentence pairs (0 = no redundancy).

    Parameters
    ----------
    texts : sequence of str
        The summaries.

    Returns
    -------
    ScoreResult
        One value per text, ≤ 0.

    References
    ----------
    Zhu, W., & Bhat, S. (2020). GRUEN for evaluating linguistic quality of generated text.
    Findings of EMNLP 2020.

    Examples
    --------
    A repeated sentence raises all four flags:

    >>> redundancy_penalty(["The cat sat on the mat today. The cat sat on the mat today.",
    ...                     "The cat sat. A dog ran."]).values.tolist()
    [-0.4, -0.0]
    """
    items = as_texts(texts, "texts")
    blank = blank_mask(items)
    values = np.full(len(items), np.nan)
    for i in np.flatnonzero(~blank):
        sents = sentences(items[i])
        values[i] = -0.1 * sum(redundancy_flags(a, b) for a, b in itertools.combinations(sents, 2))
    return ScoreResult(values, "gruen-style-redundancy-penalty", {"n_empty": int(blank.sum())})
