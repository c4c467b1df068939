"""Simulated span studies: texts, errors each annotator finds, and their severities.

Every item holds a number of true errors (Poisson, rate by system); each annotator finds each error
with probability ``recall``, marks its boundaries with a small jitter and adds false alarms. Used by
the tests, the documentation's walkthrough and ``power`` for span studies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from humaneval.errors import OptionError

CATEGORIES = ("accuracy/mistranslation", "accuracy/omission", "fluency/grammar", "fluency/punctuation")
MAX_CELLS = 2_000_000


def simulate_spans(
    systems: Mapping[str, float] | Sequence[str] = ("A", "B"),
    *,
    n_documents: int = 10,
    n_annotators: int = 3,
    length: int = 120,
    recall: float = 0.8,
    false_alarms: float = 0.2,
    major: float = 0.3,
    esa: bool = True,
    seed: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A fully crossed span study: every annotator marks every item.

    Parameters
    ----------
    systems : mapping or sequence
        System → mean number of true errors per item (a sequence gets 1, 2, 3, ...).
    n_documents, n_annotators, length : int
        Documents, annotators and characters per item.
    recall : float
        Probability that an annotator marks a true error.
    false_alarms : float
        Mean number of spurious spans per annotator and item.
    major : float
        Probability that an error is major.
    esa : bool
        Whether to add an ESA score (100 minus penalties, with annotator noise, clipped to 0–100).
    seed : int

    Returns
    -------
    spans, texts : DataFrame
        The span table and its texts (``document, system, text``).

    Examples
    --------
    >>> spans, texts = simulate_spans({"A": 1.0, "B": 2.0}, n_documents=2, n_annotators=2)
    >>> sorted(spans.columns)[:4], len(texts)
    (['annotator', 'category', 'document', 'end'], 4)
    """
    rates = (
        dict(systems) if isinstance(systems, Mapping) else {s: float(i + 1) for i, s in enumerate(systems)}
    )
    if not 0 <= recall <= 1 or not 0 <= major <= 1 or false_alarms < 0 or length < 10:
        raise OptionError("recall and major lie in [0, 1], false_alarms >= 0 and length >= 10")
    if n_documents * len(rates) * n_annotators * 8 > MAX_CELLS:
        raise OptionError(
            f"the simulated study is too large (more than {MAX_CELLS:,} cells); use fewer items"
        )
    rng = np.random.default_rng(seed)
    annotators = [f"a{i + 1}" for i in range(n_annotators)]
    rows: list[tuple] = []
    texts = []
    for d in range(n_documents):
        for system, rate in rates.items():
            doc = f"d{d + 1:02d}"
            texts.append((doc, system, "".join(rng.choice(list("abcdefgh "), size=length))))
            slots = rng.permutation(length // 10)[: min(length // 10, rng.poisson(rate))]
            errors = [
                (int(k) * 10 + 1, int(k) * 10 + 1 + int(rng.integers(2, 8)),
                 "major" if rng.random() < major else "minor", str(rng.choice(CATEGORIES)))
                for k in slots
            ]  # fmt: skip
            for annotator in annotators:
                marked = [e for e in errors if rng.random() < recall]
                free = sorted(set(range(length // 10)) - {(s - 1) // 10 for s, *_ in errors})
                for k in rng.permutation(free)[: rng.poisson(false_alarms)]:
                    marked.append((int(k) * 10 + 2, int(k) * 10 + 6, "minor", str(rng.choice(CATEGORIES))))
                penalty = sum(5 if sev == "major" else 1 for *_, sev, _ in marked)
                score = float(np.clip(100 - 8 * penalty + rng.normal(0, 5), 0, 100).round())
                if not marked:
                    rows.append((annotator, doc, system, None, None, None, None, score))
                for start, end, sev, cat in marked:
                    jitter = int(rng.integers(-1, 2))
                    rows.append((annotator, doc, system, start + jitter, end, sev, cat, score))
    spans = pd.DataFrame(
        rows, columns=["annotator", "document", "system", "start", "end", "severity", "category", "score"]
    )
    spans[["start", "end"]] = spans[["start", "end"]].astype("Int64")
    if not esa:
        spans = spans.drop(columns="score")
    return spans, pd.DataFrame(texts, columns=["document", "system", "text"])
