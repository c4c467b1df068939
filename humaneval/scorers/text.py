"""Light text processing shared by the offline scorers: regex words, sentences, content tokens.

The tokeniser is the lowercase word regex of docs/scorers.md; sentences are split after ``.``, ``!``
or ``?`` followed by whitespace.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_ALPHA = re.compile(r"[A-Za-z]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")

STOP_WORDS = frozenset([
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are",
    "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for", "from", "further",
    "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
    "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours",
    "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that",
    "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
    "yourselves",
])  # fmt: skip
"""A compact English stop-word list (function words only) used for content tokens."""


def words(text: str) -> list[str]:
    """Lowercased word tokens (letters, with an inner apostrophe kept: ``don't``)."""
    return [w.lower() for w in _WORD.findall(text)]


def content_tokens(text: str) -> list[str]:
    """Lowercased alphabetic tokens that are not stop words."""
    return [w for w in (t.lower() for t in _ALPHA.findall(text)) if w not in STOP_WORDS]


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences with the regex rule; blank pieces are dropped."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]
