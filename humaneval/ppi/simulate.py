"""Simulated studies with a judge beside the humans, for examples, tests and the coverage study.

A summary's latent quality is a system effect plus a document effect plus noise; each annotator
rates it on a 1–5 scale as the rounded, clipped latent value plus their own noise; the judge sees
the latent quality through noise of its own (``judge_noise = inf``: a useless judge, pure noise).
``ceiling=True`` shifts the latent values up so most ratings are 5s (a skewed criterion).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["judged_study"]


def judged_study(
    *,
    n_documents: int = 100,
    n_systems: int = 3,
    human_share: float = 0.2,
    n_annotators: int = 1,
    docs_per_block: int = 1,
    judge_noise: float = 0.5,
    ceiling: bool = False,
    system_effects: np.ndarray | None = None,
    seed: int | None = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Human ratings of a share of the documents (all their systems) and judge scores of all.

    Parameters
    ----------
    n_documents, n_systems : int
        The pool: every system summarised every document.
    human_share : float
        Share of the documents whose summaries the humans rate (drawn at random).
    n_annotators, docs_per_block : int
        Annotators per block and documents per block (one block per ``docs_per_block`` rated documents;
        each block's annotators rate all its summaries).
    judge_noise : float
        SD of the judge's error on the latent scale (``inf``: a useless judge).
    ceiling : bool
        Most ratings at the top of the scale.
    system_effects : ndarray, optional
        Latent system effects (default: 0, 0.3, 0.6, ...).
    seed : int
        Of every draw.

    Returns
    -------
    (DataFrame, DataFrame)
        ``annotator, document, system, score`` and ``document, system, score``.

    Examples
    --------
    >>> human, judge = judged_study(n_documents=50, n_systems=2, human_share=0.2, seed=1)
    >>> len(human), len(judge), human["score"].between(1, 5).all()
    (20, 100, np.True_)
    """
    rng = np.random.default_rng(seed)
    effects = 0.3 * np.arange(n_systems) if system_effects is None else np.asarray(system_effects, float)
    centre = 4.6 if ceiling else 3.0
    doc_effect = rng.normal(0, 0.6, n_documents)
    latent = centre + effects[None, :] + doc_effect[:, None] + rng.normal(0, 0.7, (n_documents, n_systems))
    if np.isinf(judge_noise):
        judged = rng.normal(0, 1, latent.shape)
    else:
        judged = latent + rng.normal(0, judge_noise, latent.shape)
    n_rated = max(1, round(human_share * n_documents))
    rated = np.sort(rng.choice(n_documents, n_rated, replace=False))
    docs = [f"d{d:04d}" for d in range(n_documents)]
    systems = [f"s{s}" for s in range(n_systems)]
    rows = []
    for k, d in enumerate(rated):
        block = k // docs_per_block
        for a in range(n_annotators):
            bias = rng.normal(0, 0.3)
            scores = np.clip(np.rint(latent[d] + bias + rng.normal(0, 0.5, n_systems)), 1, 5).astype(int)
            rows += [(f"b{block}a{a}", docs[d], systems[s], int(scores[s])) for s in range(n_systems)]
    human = pd.DataFrame(rows, columns=["annotator", "document", "system", "score"])
    judge = pd.DataFrame(
        {
            "document": np.repeat(docs, n_systems),
            "system": np.tile(systems, n_documents),
            "score": judged.ravel(),
        }
    )
    return human, judge
