"""Which documents the humans rate when a judge has scored the whole pool (docs/ppi.md, docs/judges.md).

The humans get whole documents (every system's summary of it), so that every pair of systems
shares its human-rated documents. Three ways to choose them:

- ``random`` — a simple random sample of ``n`` of the ``D`` documents (π = n / D);
- ``stratified`` — the documents sorted by their mean judge score into ``strata`` equal-sized strata,
  ``n`` allocated to them in proportion (largest remainders) and drawn at random within each
  (π = n_h / D_h): every part of the judge's range is rated — what a judge's calibration
  (the alternative-annotator test) needs;
- ``active`` — each document drawn independently with probability ∝ the judge's uncertainty about
  it, mixed with the uniform design so that no probability is tiny (Zrnic & Candès 2024): the
  ``uncertainty`` column of the judge file, or, with several judges, their disagreement (the SD
  across judges of their standardised scores, averaged over the document's summaries). The
  expected number of documents is ``n``.

The probabilities go with the ratings to ``humaneval ppi --probabilities``, whose estimates then
take the inverse-probability-weighted form (:func:`humaneval.ppi.mean.ipw_mean`), unbiased under
each design. One function serves both uses of a judge-scored pool: the human share of a
prediction-powered study and the calibration subset of :func:`humaneval.judges.planning.plan_calibration`.

References
----------
Zrnic, T. & Candès, E. J. (2024). Active statistical inference. *ICML 2024*.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from humaneval.design.spec import Document, Summary
from humaneval.errors import DesignError, RatingsError

__all__ = ["STRATEGIES", "choose_documents", "chosen_documents"]

STRATEGIES = ("random", "stratified", "active")
#: Share of the uniform design mixed into the active one (no document's probability below
#: UNIFORM_SHARE · n / D).
UNIFORM_SHARE = 0.2


def choose_documents(
    judge: pd.DataFrame,
    n_documents: int,
    *,
    strategy: str = "random",
    strata: int = 5,
    seed: int | None = 0,
) -> pd.DataFrame:
    """Choose the documents the humans rate and their inclusion probabilities.

    Parameters
    ----------
    judge : DataFrame
        ``document, system, score`` (optionally ``judge`` naming several judges, ``uncertainty``).
    n_documents : int
        Documents for the humans (expected number under ``active``).
    strategy : {"random", "stratified", "active"}
    strata : int
        Strata of the stratified design.
    seed : int
        Of the draw.

    Returns
    -------
    DataFrame
        One row per document of the pool: ``document``, ``judge_mean``, ``stratum`` (stratified),
        ``probability`` and ``selected``.

    Examples
    --------
    >>> from humaneval.ppi.simulate import judged_study
    >>> _, judge = judged_study(n_documents=100, n_systems=3, seed=0)
    >>> picks = choose_documents(judge, 20, strategy="stratified", strata=4, seed=1)
    >>> int(picks["selected"].sum()), picks.groupby("stratum")["selected"].sum().tolist()
    (20, [5, 5, 5, 5])
    >>> sorted(picks["probability"].round(2).unique().tolist())
    [0.2]
    """
    if strategy not in STRATEGIES:
        raise DesignError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
    for column in ("document", "system", "score"):
        if column not in judge:
            raise RatingsError(f"judge scores: no column {column!r}; give document, system, score")
    rng = np.random.default_rng(seed)
    judge = judge.astype({"document": str})
    names = judge["judge"].astype(str) if "judge" in judge else pd.Series("judge", index=judge.index)
    first = judge[names == names.iloc[0]]
    # a summary the judge scored several times counts once, with its samples' mean (as the judge analyses)
    per_summary = first.groupby(["document", "system"], sort=True)["score"].mean()
    pool = per_summary.groupby(level="document").mean().rename("judge_mean").reset_index()
    total = len(pool)
    if not 0 < n_documents <= total:
        raise DesignError(
            f"cannot give the humans {n_documents} of the {total} documents; choose 1 to {total}"
        )
    if strategy == "random":
        pool["probability"] = n_documents / total
        pool["selected"] = np.isin(np.arange(total), rng.choice(total, n_documents, replace=False))
    elif strategy == "stratified":
        strata = min(strata, n_documents)
        order = np.argsort(pool["judge_mean"].to_numpy(), kind="stable")
        stratum = np.empty(total, dtype=int)
        stratum[order] = np.arange(total) * strata // total
        sizes = np.bincount(stratum, minlength=strata)
        quota = n_documents * sizes / total
        take = np.floor(quota).astype(int)
        take[np.argsort(-(quota - take), kind="stable")[: n_documents - take.sum()]] += 1
        selected = np.zeros(total, dtype=bool)
        for h in range(strata):
            members = np.flatnonzero(stratum == h)
            selected[rng.choice(members, take[h], replace=False)] = True
        pool["stratum"] = stratum
        pool["probability"] = take[stratum] / sizes[stratum]
        pool["selected"] = selected
    else:
        uncertainty = _uncertainty(judge, names).reindex(pool["document"]).to_numpy()
        active = _capped(uncertainty, n_documents)
        pool["uncertainty"] = uncertainty
        pool["probability"] = (1 - UNIFORM_SHARE) * active + UNIFORM_SHARE * n_documents / total
        pool["selected"] = rng.random(total) < pool["probability"].to_numpy()
    return pool


def _uncertainty(judge: pd.DataFrame, names: pd.Series) -> pd.Series:
    """Per document: the mean ``uncertainty`` of its summaries, or the judges' disagreement."""
    if "uncertainty" in judge:
        values = pd.to_numeric(judge["uncertainty"], errors="coerce")
        if values.isna().any() or (values < 0).any():
            raise RatingsError("judge scores: uncertainty must be a non-negative number on every row")
        return values.groupby(judge["document"]).mean()
    if names.nunique() < 2:
        raise DesignError(
            "the active design needs the judge's uncertainty (an uncertainty column) or several judges "
            "(a judge column) to measure their disagreement; or use --choose stratified"
        )
    scores = judge.assign(name=names)
    scores["z"] = scores.groupby("name")["score"].transform(lambda s: (s - s.mean()) / s.std(ddof=0))
    spread = scores.pivot_table(index=["document", "system"], columns="name", values="z").std(axis=1, ddof=0)
    return spread.groupby(level="document").mean()


def _capped(weights: np.ndarray, n: int) -> np.ndarray:
    """Probabilities ∝ ``weights`` summing to ``n``, none above 1 (the excess is spread again)."""
    weights = np.asarray(weights, dtype=float) + 1e-12
    out = np.zeros_like(weights)
    capped = np.zeros(len(weights), dtype=bool)
    for _ in range(len(weights)):
        free = ~capped
        out[free] = (n - capped.sum()) * weights[free] / weights[free].sum()
        over = free & (out > 1)
        if not over.any():
            break
        capped |= over
        out[capped] = 1.0
    return out


def chosen_documents(
    chosen: Sequence[str], documents: int | list[Document], summaries: list[Summary]
) -> tuple[list[Document], list[Summary]]:
    """The design inputs restricted to the chosen documents (their texts kept where a documents file or
    the summaries give them).

    Raises
    ------
    DesignError
        A chosen document that the documents file does not list.
    """
    keep = set(chosen)
    if isinstance(documents, int) or not documents:
        return [Document(d) for d in sorted(keep)], []
    kept = [d for d in documents if d.id in keep]
    missing = sorted(keep - {d.id for d in kept})
    if missing:
        raise DesignError(
            f"the judge-scored pool's document {missing[0]!r} is not among the design's documents "
            f"({len(missing)} missing); give the documents or summaries the pool was scored on"
        )
    return kept, [s for s in summaries if s.document in keep]
