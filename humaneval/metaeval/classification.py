"""Classification measures for binary gold labels, e.g. faithful / unfaithful.

ROC AUC = (1/(|Pos|·|Neg|)) Σ_{p∈Pos} Σ_{n∈Neg} [1(s_p > s_n) + ½·1(s_p = s_n)], computed from
average ranks (Mann–Whitney U) in O(n log n); undefined if a class is empty. Intra-system AUC is
the mean over systems of the per-system AUC, over the systems where both classes occur.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats


def roc_auc(scores, labels) -> float:
    """ROC AUC of ``scores`` for binary ``labels`` (1 = positive); NaN if a class is empty."""
    scores, labels = np.asarray(scores, dtype=float), np.asarray(labels)
    keep = ~np.isnan(scores)
    scores, positive = scores[keep], labels[keep].astype(bool)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = stats.rankdata(scores)
    u = ranks[positive].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


@dataclass(frozen=True)
class IntraSystemAUC:
    """Mean per-system AUC over the systems with both classes, and how many that were."""

    estimate: float
    per_system: dict[str, float]
    n_systems_used: int

    def to_dict(self) -> dict:
        return asdict(self)


def intra_system_auc(scores, labels, systems) -> IntraSystemAUC:
    """AUC within each system, averaged over the systems where both classes occur."""
    scores, labels, systems = np.asarray(scores, dtype=float), np.asarray(labels), np.asarray(systems)
    per_system = {str(s): roc_auc(scores[systems == s], labels[systems == s]) for s in np.unique(systems)}
    defined = [v for v in per_system.values() if not np.isnan(v)]
    return IntraSystemAUC(float(np.mean(defined)) if defined else float("nan"), per_system, len(defined))
