"""Bias matrices: does a metric favour the outputs of particular systems?

Systems are ordered by descending mean human score (ties by label). For systems a and b, the
cell T[a, b] is 2·accuracy − 1 of the metric on the summary pairs where humans preferred a's
summary over b's; with a above b in the order this is τ+ (consistent pairs, upper triangle),
with a below b it is τ− (inverted pairs: the weaker system wrote the better summary, lower
triangle). N holds the pair counts; an empty cell is NaN with count 0. Gold ties are skipped,
metric ties count as wrong. Default pairs are same-document (the reference implementation's
choice, kept as our default); ``pairs="cross_document"`` compares every document pair.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.errors import OptionError
from humaneval.metaeval.levels import system_means


@dataclass(frozen=True)
class BiasMatrix:
    """T (τ± per ordered system pair), N (pair counts) and the system order (strongest first)."""

    tau: np.ndarray
    count: np.ndarray
    systems: list[str]
    human_means: np.ndarray
    pairs: str

    def to_frame(self) -> pd.DataFrame:
        """Tidy cells: preferred (human winner), other, position (consistent/inverted), tau, n."""
        rows = []
        for a, winner in enumerate(self.systems):
            for b, other in enumerate(self.systems):
                if a != b:
                    rows.append(
                        {
                            "preferred": winner,
                            "other": other,
                            "kind": "consistent" if a < b else "inverted",
                            "tau": self.tau[a, b],
                            "n": int(self.count[a, b]),
                        }
                    )
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        return {
            "systems": self.systems,
            "human_means": self.human_means.tolist(),
            "pairs": self.pairs,
            "tau": self.tau.tolist(),
            "count": self.count.tolist(),
        }

    def accuracy(self) -> float:
        """Count-weighted mean of (T + 1)/2 over non-empty cells (= Acc_pair for same-document pairs)."""
        used = self.count > 0
        return float(((self.tau[used] + 1) / 2 * self.count[used]).sum() / self.count[used].sum())


def system_order(H: np.ndarray, systems: Sequence[str]) -> np.ndarray:
    """Indices of systems by descending mean human score, ties broken by label."""
    means = system_means(H)
    return np.array(
        sorted(range(len(systems)), key=lambda i: (-np.nan_to_num(means[i], nan=-np.inf), systems[i]))
    )


def bias_matrix(
    H: np.ndarray,
    P: np.ndarray,
    systems: Sequence[str] | None = None,
    pairs: Literal["same_document", "cross_document"] = "same_document",
) -> BiasMatrix:
    """The bias matrix of metric P against gold H (both systems × documents), docs/metaeval.md"""
    H, P = np.asarray(H, dtype=float), np.asarray(P, dtype=float)
    systems = list(systems) if systems is not None else [f"S{i}" for i in range(H.shape[0])]
    order = system_order(H, systems)
    H, P = H[order], P[order]
    present = ~(np.isnan(H) | np.isnan(P))
    H, P = np.where(present, H, np.nan), np.where(present, P, np.nan)
    with np.errstate(invalid="ignore"):
        if pairs == "same_document":
            gold = H[:, None, :] > H[None, :, :]
            right = gold & (P[:, None, :] > P[None, :, :])
            count, correct = gold.sum(axis=2), right.sum(axis=2)
        elif pairs == "cross_document":
            count = np.zeros((len(H), len(H)), dtype=int)
            correct = np.zeros_like(count)
            for a in range(len(H)):
                gold = H[a][None, :, None] > H[:, None, :]
                count[a] = gold.sum(axis=(1, 2))
                correct[a] = (gold & (P[a][None, :, None] > P[:, None, :])).sum(axis=(1, 2))
            np.fill_diagonal(count, 0)
            np.fill_diagonal(correct, 0)
        else:
            raise OptionError(f"pairs must be 'same_document' or 'cross_document', not {pairs!r}")
        tau = np.where(count > 0, (2 * correct - count) / np.maximum(count, 1), np.nan)
    np.fill_diagonal(tau, np.nan)
    return BiasMatrix(tau, count, [systems[i] for i in order], system_means(H), pairs)


def plot_bias_matrix(
    matrices: BiasMatrix | Mapping[str, BiasMatrix], *, max_marker: float = 400.0, ncols: int = 3
):
    """Bias-matrix plot: circle area ∝ pair count, colour fixed to [−1, 1] on the
    colour-blind-safe diverging map of :data:`humaneval.present.plotting.DIVERGING` (orange −1, purple +1),
    systems by descending human mean (best top left), blank diagonal and empty cells. Several
    matrices become small multiples sharing one colour bar. Returns a matplotlib Figure."""
    import matplotlib.pyplot as plt

    from humaneval.present.plotting import DIVERGING, TICK_SIZE

    if isinstance(matrices, BiasMatrix):
        matrices = {"": matrices}
    names = list(matrices)
    if not names:
        raise OptionError("plot_bias_matrix: no bias matrix to plot; pass at least one")
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    size = max(4.0, 0.35 * len(matrices[names[0]].systems) + 2)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(size * ncols + 1, size * nrows), squeeze=False, layout="constrained"
    )
    scatter = None
    for ax, name in zip(axes.ravel(), names, strict=False):
        bm = matrices[name]
        k = len(bm.systems)
        rows, cols = np.nonzero(bm.count > 0)
        sizes = max_marker * bm.count[rows, cols] / bm.count.max()
        scatter = ax.scatter(
            cols, rows, s=sizes, c=bm.tau[rows, cols], cmap=DIVERGING, vmin=-1, vmax=1, edgecolors="grey"
        )
        ax.set_xticks(range(k), bm.systems, rotation=90, fontsize=TICK_SIZE - 1)
        ax.set_yticks(range(k), bm.systems, fontsize=TICK_SIZE - 1)
        ax.set_xlabel("system (column)")
        ax.set_ylabel("system (row), best human mean first")
        ax.set_xlim(-0.5, k - 0.5)
        ax.set_ylim(k - 0.5, -0.5)
        ax.set_aspect("equal")
        ax.set_title(name)
    for ax in axes.ravel()[len(names) :]:
        ax.set_visible(False)
    assert scatter is not None  # at least one panel was drawn
    fig.colorbar(scatter, ax=axes.ravel().tolist(), label="τ+ (upper) / τ− (lower)")
    return fig
