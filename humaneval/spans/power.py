"""Power of a span study: how often a planned study finds the systems' score differences.

Every trial simulates a study (:func:`~humaneval.spans.simulate.simulate_spans`), scores every
annotator's item (MQM or ESA), averages the scores per document and system, and tests every pair of
systems with a paired t-test over documents, Holm-adjusted across pairs. Power is the share of
trials in which a pair differs at ``alpha``.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.errors import OptionError
from humaneval.spans.scoring import get_scoring, item_scores
from humaneval.spans.simulate import simulate_spans
from humaneval.spans.table import SpanTable

MAX_TRIALS = 10_000


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment (as statsmodels' ``multipletests``, whose per-call garbage
    collection would dominate thousands of small families).

    Examples
    --------
    >>> _holm(np.array([0.01, 0.04, 0.03])).round(4).tolist()
    [0.03, 0.06, 0.06]
    """
    order = np.argsort(p)
    m = len(p)
    stepped = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = stepped
    return out


def span_power(
    systems: Mapping[str, float],
    *,
    n_documents: int,
    n_annotators: int,
    scoring: str = "mqm",
    trials: int = 200,
    alpha: float = 0.05,
    seed: int = 1,
    **simulation: Any,
) -> pd.DataFrame:
    """Simulated power of every pair of systems in a span study.

    Parameters
    ----------
    systems : mapping
        System → mean number of true errors per item.
    n_documents, n_annotators : int
        The planned study (every annotator marks every item).
    scoring : {"mqm", "esa"}
        The item score tested.
    trials : int
        Simulated studies.
    alpha : float
        Significance level of the Holm-adjusted paired t-tests.
    seed : int
    **simulation
        Further options of :func:`~humaneval.spans.simulate.simulate_spans` (``recall``,
        ``false_alarms``, ``major``, ``length``).

    Returns
    -------
    DataFrame
        ``system_a, system_b, mean_difference, power, trials``: ``mean_difference`` is the mean
        over trials of the difference of mean scores (a − b).

    Examples
    --------
    >>> table = span_power({"A": 0.5, "B": 0.5}, n_documents=6, n_annotators=2, trials=20)
    >>> bool(table["power"].iloc[0] <= 0.2)  # no true difference: rejections are rare
    True
    """
    get_scoring(scoring)
    if len(systems) < 2:
        raise OptionError("give at least two systems to compare")
    if not 1 <= trials <= MAX_TRIALS:
        raise OptionError(f"trials={trials} must lie between 1 and {MAX_TRIALS:,}")
    if not 0 < alpha < 1:
        raise OptionError(f"alpha={alpha} must lie between 0 and 1, e.g. 0.05")
    if n_documents < 3 or n_annotators < 1:
        raise OptionError("a span study needs at least 3 documents and 1 annotator")
    pairs = list(combinations(systems, 2))
    hits = np.zeros(len(pairs))
    differences = np.zeros(len(pairs))
    seeds = np.random.SeedSequence(seed).generate_state(trials)
    for trial_seed in seeds:
        spans, texts = simulate_spans(
            dict(systems),
            n_documents=n_documents,
            n_annotators=n_annotators,
            esa=scoring == "esa",
            seed=int(trial_seed),
            **simulation,
        )
        lengths = texts.set_index(["document", "system"])["text"].str.len()
        scores = item_scores(SpanTable(spans, lengths), scoring)  # simulated rows are valid by construction
        means = scores.groupby(["document", "system"])["score"].mean().unstack()
        p = []
        for k, (a, b) in enumerate(pairs):
            diff = means[a] - means[b]
            differences[k] += diff.mean()
            p.append(stats.ttest_rel(means[a], means[b]).pvalue if diff.std() > 0 else 1.0)
        hits += _holm(np.nan_to_num(np.array(p), nan=1.0)) < alpha
    return pd.DataFrame(
        {
            "system_a": [a for a, _ in pairs],
            "system_b": [b for _, b in pairs],
            "mean_difference": differences / trials,
            "power": hits / trials,
            "trials": trials,
        }
    )
