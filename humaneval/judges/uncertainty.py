"""How sure is the verdict? The alt-test's ω and ρ resampled over items and humans.

The alt-test's pass (ω ≥ 0.5) is one draw of a noisy statistic: with another sample of items or of
annotators the same judge may fail. The indicators the test ran on (judge / left-out human at least
as good, items × humans × judges) are resampled — items with replacement and, independently, the
tested humans with replacement — and on every resample the per-human t-tests, the
Benjamini–Yekutieli correction, ω and ρ are recomputed. Reported per judge: percentile intervals
of ω and ρ and the pass probability P(ω ≥ 0.5), the share of resamples in which the judge passes.
All judges share the resamples, so differences between judges are paired.

References
----------
Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge.
ACL 2025 (the test resampled).
Benjamini, Y. & Yekutieli, D. (2001). The control of the false discovery rate in multiple testing
under dependency. Annals of Statistics 29(4), 1165–1188.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humaneval.judges.alttest import AltTestResult, per_human

__all__ = ["VerdictUncertainty", "by_rejections", "verdict_uncertainty"]


@dataclass(frozen=True, eq=False)
class VerdictUncertainty:
    """Intervals of ω and ρ and the pass probability per criterion and judge.

    Attributes
    ----------
    table:
        ``criterion, judge, winning_rate_low, winning_rate_high, advantage_probability_low,
        advantage_probability_high, pass_probability``.
    rho:
        Per criterion, the resampled ρ (resamples × judges, the judges in ``judges[criterion]``).
    """

    table: pd.DataFrame
    n_resamples: int
    confidence_level: float
    rho: dict[str | None, np.ndarray] = field(repr=False, default_factory=dict)
    judges: dict[str | None, tuple[str, ...]] = field(repr=False, default_factory=dict)

    def rho_difference(self, criterion: str | None, a: str, b: str) -> tuple[float, float]:
        """Percentile interval of the paired difference ρ(a) − ρ(b)."""
        names = self.judges[criterion]
        diff = self.rho[criterion][:, names.index(a)] - self.rho[criterion][:, names.index(b)]
        tail = (1 - self.confidence_level) / 2
        low, high = np.quantile(diff, [tail, 1 - tail])
        return float(low), float(high)


def by_rejections(p: np.ndarray, q: float) -> np.ndarray:
    """Benjamini–Yekutieli step-up: the number of rejections in each column of ``p`` (tests × sets).

    Examples
    --------
    >>> from statsmodels.stats.multitest import multipletests
    >>> p = np.array([[0.001, 0.2], [0.01, 0.03], [0.04, 0.5]])
    >>> by_rejections(p, 0.05).tolist(), int(multipletests(p[:, 0], 0.05, "fdr_by")[0].sum())
    ([2, 0], 2)
    """
    m = p.shape[0]
    c = np.sum(1.0 / np.arange(1, m + 1))
    ranks = np.arange(1, m + 1)[:, None]
    below = np.sort(p, axis=0) <= ranks * q / (m * c)
    # the largest rank whose sorted p-value is below its threshold; all smaller ranks are rejected too
    return np.where(below.any(axis=0), m - np.argmax(below[::-1], axis=0), 0)


def verdict_uncertainty(
    test: AltTestResult, *, n_resamples: int = 1000, seed: int | None = 1, confidence_level: float = 0.95
) -> VerdictUncertainty:
    """Resample the alt-test over items and humans: intervals of ω and ρ and P(pass).

    Parameters
    ----------
    test : AltTestResult
        The alt-test (its ``indicators``).
    n_resamples, seed, confidence_level :
        Of the bootstrap.

    Returns
    -------
    VerdictUncertainty

    Examples
    --------
    >>> from humaneval.judges import load_annotations
    >>> from humaneval.judges.alttest import alt_test
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 60)
    >>> noisy = lambda: {f"i{k}": "abc"[t if rng.random() < .7 else (t + 1) % 3] for k, t in enumerate(truth)}
    >>> judge = {"gpt": {f"i{k}": "abc"[t] for k, t in enumerate(truth)}}
    >>> test = alt_test(load_annotations({"h1": noisy(), "h2": noisy(), "h3": noisy()}, judge), epsilon=0.2)
    >>> float(verdict_uncertainty(test, n_resamples=200).table.at[0, "pass_probability"])
    1.0
    """
    rng = np.random.default_rng(seed)
    tail = (1 - confidence_level) / 2
    rows, rhos, names = [], {}, {}
    for criterion, arrays in test.indicators.items():
        n_items, n_humans = arrays.present.shape
        omega = np.empty((n_resamples, len(arrays.judges)))
        rho = np.empty_like(omega)
        for r in range(n_resamples):
            i = rng.integers(0, n_items, n_items)
            h = rng.integers(0, n_humans, n_humans)
            present = arrays.present[i][:, h]
            keep = present.sum(axis=0) >= 2  # a human needs two items for a t-test
            present = present[:, keep]
            rho_h, _, _, p, _ = per_human(
                present, arrays.judge_ok[i][:, h][:, keep], arrays.human_ok[i][:, h][:, keep], test.epsilon
            )
            omega[r] = by_rejections(p, test.q) / p.shape[0]
            rho[r] = rho_h.mean(axis=0)
        rhos[criterion], names[criterion] = rho, arrays.judges
        for j, judge in enumerate(arrays.judges):
            w_low, w_high = np.quantile(omega[:, j], [tail, 1 - tail])
            r_low, r_high = np.quantile(rho[:, j], [tail, 1 - tail])
            rows.append(
                {
                    "criterion": criterion,
                    "judge": judge,
                    "winning_rate_low": float(w_low),
                    "winning_rate_high": float(w_high),
                    "advantage_probability_low": float(r_low),
                    "advantage_probability_high": float(r_high),
                    "pass_probability": float(np.mean(omega[:, j] >= 0.5)),
                }
            )
    return VerdictUncertainty(
        table=pd.DataFrame(rows),
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        rho=rhos,
        judges=names,
    )
