"""Replicability before collection: how often two independent runs of a design agree
(docs/reproducibility.md).

From the simulated studies of a power run: for each test, the probability that two independent runs give
the same system ranking, and the same set of significant pairs (with the same direction). With N
studies of which n_k share outcome k, the estimate is Σ n_k(n_k − 1) / (N(N − 1)), the chance that two
different studies drawn without replacement agree (unbiased for Σ p_k²).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from humaneval.present.document import Block
from humaneval.present.formatting import fmt
from humaneval.present.printable import Printable, frame_table
from humaneval.stats.replicates import Record


@dataclass(frozen=True)
class Replicability(Printable):
    """Per test: ``same_ranking``, ``same_significant`` (probabilities), ``n_studies`` used and the
    most frequent ranking with its share."""

    table: pd.DataFrame

    def to_dict(self) -> list[dict[str, Any]]:
        return self.table.to_dict(orient="records")

    def blocks(self) -> tuple[Block, ...]:
        """Per test the two probabilities and the number of simulated studies (``humaneval power``)."""
        two = {"test": None, "same_ranking": lambda v: fmt(v, 2), "same_significant": lambda v: fmt(v, 2),
               "n_studies": None}  # fmt: skip
        names = {"same_ranking": "same ranking", "same_significant": "same significant pairs",
                 "n_studies": "simulated studies"}  # fmt: skip
        caption = ("replicability: probability that two independent runs agree",)
        return (frame_table(self.table, two, names=names, caption=caption),)


def agreement(outcomes: Sequence[Hashable]) -> float:
    """Probability that two different draws from ``outcomes`` are equal: Σ n_k(n_k−1) / (N(N−1)).

    Examples
    --------
    >>> agreement(["ab", "ab", "ba", "ab"])  # 3·2 / (4·3)
    0.5
    """
    n = len(outcomes)
    if n < 2:
        return float("nan")
    return sum(k * (k - 1) for k in Counter(outcomes).values()) / (n * (n - 1))


def replicability(
    records: Sequence[Record], system_names: Sequence[str], pairs: Sequence[tuple[int, int]], alpha: float
) -> Replicability:
    """Replicability of every test in the replicate ``records`` of a power simulation.

    Parameters
    ----------
    records : sequence of Record
        One per simulated study: ``p`` and ``estimate`` per test, per pair (a − b), None for a failed fit.
    system_names : sequence of str
        The systems in the model's order.
    pairs : sequence of (int, int)
        The pairs (indices into ``system_names``) in the order of the records' lists.
    alpha : float
        Significance level of a pair.

    Returns
    -------
    Replicability
        A ranking orders the systems by the sum of their estimated differences to the others; a study
        whose test failed is left out.
    """
    tests = sorted({name for record in records for name in record["p"]})
    rows = []
    k = len(system_names)
    for test in tests:
        rankings, significant = [], []
        for record in records:
            estimates = record["estimate"].get(test)
            pvalues = record["p"].get(test)
            if estimates is None or pvalues is None or any(v is None for v in [*estimates, *pvalues]):
                continue
            est = np.asarray(estimates, dtype=float)
            if not np.isfinite(est).all():
                continue
            score = np.zeros(k)
            for (i, j), d in zip(pairs, est, strict=True):
                score[i] += d
                score[j] -= d
            rankings.append(tuple(np.argsort(-score, kind="stable")))
            significant.append(
                frozenset(
                    (pair, bool(d > 0)) for pair, d, p in zip(pairs, est, pvalues, strict=True) if p < alpha
                )
            )
        top, count = Counter(rankings).most_common(1)[0] if rankings else ((), 0)
        rows.append(
            {
                "test": test,
                "same_ranking": agreement(rankings),
                "same_significant": agreement(significant),
                "n_studies": len(rankings),
                "modal_ranking": " > ".join(system_names[i] for i in top),
                "modal_share": count / len(rankings) if rankings else float("nan"),
            }
        )
    return Replicability(pd.DataFrame(rows))
