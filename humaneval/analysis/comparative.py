"""Comparative judgements: best–worst counting scores and Bradley–Terry strengths.

Specification ``metaeval-and-scorers.md`` §8.7 (and ``designs-and-forms.md`` §3.4 for the stored
values: a BWS text is +1 best, −1 worst, 0 otherwise; a pairwise comparison is expanded to two rows
with value 1 / 0 / 0.5 and the ``opponent`` column).

- **Best–worst scaling (counting).** score(i) = (#best(i) − #worst(i)) / #appearances(i) ∈ [−1, 1],
  with percentile CIs from a bootstrap over annotated tuples.
- **Bradley–Terry.** P(a ≻ b) = π_a/(π_a + π_b) = σ(θ_a − θ_b), fitted by the MM iteration
  π_i ← W_i / Σ_{j≠i} n_ij/(π_i + π_j) (a tie is half a win for each side), renormalised so that
  mean θ = 0, until max|Δθ| < 1e−10. The MLE exists only when the win graph is strongly connected;
  otherwise ``prior > 0`` gives every item ``prior`` virtual wins and losses against a fixed item with
  θ = 0. Percentile CIs come from a bootstrap over judgements; Elo = 1000 + 400 θ / ln 10.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from humaneval.errors import ConvergenceWarning, InsufficientDataError, RatingsError
from humaneval.ratings import Ratings

MAX_ITER = 10_000
TOL = 1e-10


def _frame(ratings: Ratings | pd.DataFrame) -> tuple[pd.DataFrame, str]:
    if isinstance(ratings, Ratings):
        return ratings.without_checks().data, ratings.response
    column = "score" if "score" in ratings else "value"
    return ratings, column


def bws_scores(
    ratings: Ratings | pd.DataFrame,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Best–worst counting scores per system with bootstrap percentile CIs over tuples.

    ``ratings`` has one row per shown text: ``system``, the value (+1 best, −1 worst, 0 other) in
    ``score`` (or ``value``), and a tuple id: ``tuple_id`` together with ``annotator`` and
    ``document`` where present, else each (annotator, document) is one tuple.
    """
    df, column = _frame(ratings)
    values = pd.to_numeric(df[column], errors="coerce")
    if values.isna().any() or not values.isin([-1, 0, 1]).all():
        raise RatingsError(f"BWS values in '{column}' must be +1 (best), −1 (worst) or 0")
    keys = [k for k in ("annotator", "document", "tuple_id") if k in df]
    if not keys:
        raise RatingsError("BWS rows need a tuple_id (or annotator and document) column to form tuples")
    tuples = df.groupby(keys, sort=False).ngroup().to_numpy()
    systems = sorted(df["system"].astype(str).unique())
    sys_idx = pd.Categorical(df["system"].astype(str), categories=systems).codes
    n_tuples, n_sys = tuples.max() + 1, len(systems)

    def per_tuple(kind: np.ndarray) -> np.ndarray:
        out = np.zeros((n_tuples, n_sys))
        np.add.at(out, (tuples, sys_idx), kind)
        return out

    best, worst = per_tuple((values == 1).to_numpy(float)), per_tuple((values == -1).to_numpy(float))
    shown = per_tuple(np.ones(len(df)))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_tuples, size=(n_boot, n_tuples))
    counts = (
        np.stack([np.bincount(d, minlength=n_tuples) for d in draws]) if n_boot else np.zeros((0, n_tuples))
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        score = (best.sum(0) - worst.sum(0)) / shown.sum(0)
        boot = (counts @ (best - worst)) / (counts @ shown)
    tail = (1 - level) / 2
    low, high = (
        np.nanquantile(boot, q, axis=0) if n_boot else np.full(n_sys, np.nan) for q in (tail, 1 - tail)
    )
    return pd.DataFrame(
        {
            "system": systems,
            "score": score,
            "ci_low": low,
            "ci_high": high,
            "n_best": best.sum(0).astype(int),
            "n_worst": worst.sum(0).astype(int),
            "n_shown": shown.sum(0).astype(int),
        }
    ).sort_values("score", ascending=False, kind="stable", ignore_index=True)


def pairwise_outcomes(ratings: Ratings | pd.DataFrame) -> pd.DataFrame:
    """One row per comparison (``item_a``, ``item_b``, ``score_a`` ∈ {1, 0.5, 0}) from the expanded
    pairwise table (two rows per comparison: ``system``, ``opponent``, value 1 / 0 / 0.5)."""
    df, column = _frame(ratings)
    if "opponent" not in df:
        raise RatingsError("pairwise rows need an 'opponent' column naming the other system of the pair")
    score = pd.to_numeric(df[column], errors="coerce")
    if score.isna().any() or not score.isin([0, 0.5, 1]).all():
        raise RatingsError(f"pairwise values in '{column}' must be 1 (won), 0 (lost) or 0.5 (tie)")
    system, opponent = df["system"].astype(str), df["opponent"].astype(str)
    keep = (system < opponent).to_numpy()
    return pd.DataFrame(
        {
            "item_a": system[keep].to_numpy(),
            "item_b": opponent[keep].to_numpy(),
            "score_a": score[keep].to_numpy(),
        }
    )


@dataclass(frozen=True, eq=False)
class BradleyTerry:
    """Bradley–Terry fit: strengths θ with bootstrap CIs and the win-probability matrix."""

    strengths: pd.DataFrame
    win_probability: pd.DataFrame
    n_iter: int
    converged: bool
    prior: float
    n_boot: int
    n_boot_failed: int

    def to_dict(self) -> dict[str, object]:
        return {
            "strengths": self.strengths.to_dict(orient="records"),
            "win_probability": self.win_probability.to_dict(),
            "n_iter": self.n_iter,
            "converged": self.converged,
            "prior": self.prior,
            "n_boot": self.n_boot,
            "n_boot_failed": self.n_boot_failed,
        }


def _win_matrix(a: np.ndarray, b: np.ndarray, score_a: np.ndarray, weight: np.ndarray, n: int) -> np.ndarray:
    """W[i, j] = (weighted) wins of i over j, a tie counting half for each side."""
    wins = np.zeros((n, n))
    np.add.at(wins, (a, b), weight * score_a)
    np.add.at(wins, (b, a), weight * (1 - score_a))
    return wins


def _strongly_connected(wins: np.ndarray) -> bool:
    n_comp, _ = connected_components(csr_matrix(wins > 0), directed=True, connection="strong")
    return n_comp == 1


def _mm(wins: np.ndarray, prior: float) -> tuple[np.ndarray, int, bool]:
    """MM iteration for θ = log π (Hunter 2004), optionally against a fixed virtual item."""
    n = wins.shape[0]
    total_wins = wins.sum(1) + prior
    pairs = wins + wins.T
    theta = np.zeros(n)
    for it in range(1, MAX_ITER + 1):
        pi = np.exp(theta)
        denom = (pairs / (pi[:, None] + pi[None, :])).sum(1) + 2 * prior / (pi + 1.0)
        new = np.log(total_wins / denom)
        if prior == 0:
            new -= new.mean()
        step = np.max(np.abs(new - theta))
        theta = new
        if step < TOL:
            return theta, it, True
    return theta, MAX_ITER, False


def bradley_terry(
    comparisons: pd.DataFrame | Ratings,
    prior: float = 0.0,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> BradleyTerry:
    """Fit Bradley–Terry strengths (spec §8.7) with percentile bootstrap CIs over judgements.

    ``comparisons`` has ``item_a``, ``item_b`` and either ``outcome`` ∈ {a, b, tie} or ``score_a``
    ∈ {1, 0.5, 0}, optionally ``weight``; a pairwise ratings table is converted with
    :func:`pairwise_outcomes`.
    """
    if isinstance(comparisons, Ratings) or "opponent" in comparisons:
        comparisons = pairwise_outcomes(comparisons)
    if "score_a" in comparisons:
        score_a = comparisons["score_a"].to_numpy(float)
    elif "outcome" in comparisons:
        mapped = comparisons["outcome"].astype(str).str.lower().map({"a": 1.0, "b": 0.0, "tie": 0.5})
        if mapped.isna().any():
            raise RatingsError("outcome must be 'a', 'b' or 'tie'")
        score_a = mapped.to_numpy(float)
    else:
        raise RatingsError("comparisons need item_a, item_b and an outcome (a/b/tie) or score_a column")
    items = sorted(set(comparisons["item_a"].astype(str)) | set(comparisons["item_b"].astype(str)))
    a = pd.Categorical(comparisons["item_a"].astype(str), categories=items).codes
    b = pd.Categorical(comparisons["item_b"].astype(str), categories=items).codes
    weight = comparisons["weight"].to_numpy(float) if "weight" in comparisons else np.ones(len(a))
    n = len(items)
    wins = _win_matrix(a, b, score_a, weight, n)
    if prior <= 0 and not _strongly_connected(wins):
        raise InsufficientDataError(
            "no Bradley–Terry MLE: some group of systems never beat the others; pass prior > 0"
        )
    theta, n_iter, converged = _mm(wins, prior)
    if not converged:
        warnings.warn(
            f"Bradley–Terry MM did not converge in {MAX_ITER} iterations", ConvergenceWarning, stacklevel=2
        )
    rng = np.random.default_rng(seed)
    boot, failed = [], 0
    for _ in range(n_boot):
        pick = rng.integers(0, len(a), len(a))
        w = _win_matrix(a[pick], b[pick], score_a[pick], weight[pick], n)
        if prior <= 0 and not _strongly_connected(w):
            failed += 1
            continue
        boot.append(_mm(w, prior)[0])
    tail = (1 - level) / 2
    if boot:
        low, high = np.quantile(np.array(boot), [tail, 1 - tail], axis=0)
    else:
        low = high = np.full(n, np.nan)
    strengths = pd.DataFrame(
        {
            "system": items,
            "theta": theta,
            "ci_low": low,
            "ci_high": high,
            "elo": 1000 + 400 * theta / np.log(10),
            "wins": wins.sum(1),
            "comparisons": (wins + wins.T).sum(1),
        }
    ).sort_values("theta", ascending=False, kind="stable", ignore_index=True)
    prob = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    return BradleyTerry(
        strengths=strengths,
        win_probability=pd.DataFrame(prob, index=items, columns=items),
        n_iter=n_iter,
        converged=converged,
        prior=prior,
        n_boot=n_boot,
        n_boot_failed=failed,
    )
