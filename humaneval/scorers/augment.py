"""Task-adaptive data augmentation for NLI training sets, and a prefix-robustness diagnostic.

Dissertation ch. 5: each (premise, hypothesis, label) example gets a copy whose hypothesis starts
with one of ten conversational phrases (introductory, hedging, opinion), drawn uniformly; the label
is unchanged. The output holds the originals followed by the copies (162,865 ANLI examples became
325,730). :func:`prefix_invariance` is a package diagnostic, not from the thesis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from humaneval.errors import RatingsError
from humaneval.scorers.result import ScoreResult, paired_texts, values_of

PHRASES: tuple[str, ...] = (
    "Here is what I know:",
    "yep. Also",
    "Sure! Here is what I know:",
    "I am not sure, but",
    "I am not sure but I do know that",
    "I do not have information on this but",
    "I think",
    "I believe",
    "I love that!",
    "I like that!",
)
"""The ten prefix phrases; the model is not told their categories."""


def prefix(phrase: str, hypothesis: str, lowercase_first: bool = True) -> str:
    """``phrase + " " + hypothesis``, the hypothesis' first character lowercased by default."""
    if lowercase_first and hypothesis:
        hypothesis = hypothesis[0].lower() + hypothesis[1:]
    return f"{phrase} {hypothesis}"


def augment_nli(
    examples: pd.DataFrame | Sequence[tuple[str, str, object]],
    phrases: Sequence[str] = PHRASES,
    seed: int | np.random.Generator | None = None,
    *,
    lowercase_first: bool = True,
) -> pd.DataFrame:
    """Originals followed by one prefixed copy each (columns premise, hypothesis, label, phrase).

    ``examples`` is a DataFrame with columns premise, hypothesis, label or a sequence of triples.
    The phrase of each copy is drawn uniformly from ``phrases`` with ``seed``; ``phrase`` is empty
    for the originals.
    """
    if isinstance(examples, pd.DataFrame):
        missing = {"premise", "hypothesis", "label"} - set(examples.columns)
        if missing:
            raise RatingsError(f"augment_nli: examples lack column(s) {sorted(missing)}")
        frame = examples[["premise", "hypothesis", "label"]].reset_index(drop=True)
    else:
        frame = pd.DataFrame(list(examples), columns=["premise", "hypothesis", "label"])
    if not phrases:
        raise RatingsError("augment_nli: phrases is empty; pass at least one phrase")
    rng = np.random.default_rng(seed)
    drawn = rng.integers(len(phrases), size=len(frame))
    copies = frame.copy()
    copies["phrase"] = [phrases[i] for i in drawn]
    copies["hypothesis"] = [
        prefix(p, str(h), lowercase_first) for p, h in zip(copies["phrase"], frame["hypothesis"], strict=True)
    ]
    return pd.concat([frame.assign(phrase=""), copies], ignore_index=True)


def prefix_invariance(
    scorer: Callable[[list[str], list[str]], ScoreResult | Sequence[float]],
    sources: Sequence[str],
    summaries: Sequence[str],
    phrases: Sequence[str] = PHRASES,
) -> pd.DataFrame:
    """Rescore every pair with each phrase prepended to the summary.

    Returns one row per phrase with ``mean_abs_delta`` = mean |score(prefixed) − score(original)|
    and ``mean_delta`` (signed); small values mean the scorer shrugs off conversational filler.
    ``scorer`` is a callable (e.g. ``NLIScorer(...).score``) returning a ScoreResult or an array.
    """
    src, summ = paired_texts(sources, summaries)

    base = values_of(scorer(src, summ))
    rows = []
    for phrase in phrases:
        delta = values_of(scorer(src, [prefix(phrase, s) for s in summ])) - base
        rows.append(
            {
                "phrase": phrase,
                "mean_abs_delta": float(np.nanmean(np.abs(delta))),
                "mean_delta": float(np.nanmean(delta)),
            }
        )
    return pd.DataFrame(rows)
