"""Vectorised bootstrap confidence intervals for every meta-evaluation measure.

After Deutsch, Dror & Roth (2021); see docs/metaeval.md, "Bootstrap". Each resample
draws |S| systems and/or |D| documents with replacement (mode ``systems``, ``documents`` or
``both``), evaluates the measure on H[rows][:, cols] and P[rows][:, cols], and the CI is the
percentile interval of the defined values. Instead of materialising every resampled matrix, a
resample is represented by how often each system (n_s) and document (m_d) was drawn, and the
measures are computed as weighted statistics (see :mod:`humaneval.metaeval.kernel`): per-document
values use system weights n and are averaged with document weights m, per-system values the
reverse, τ_sum uses cell weights n_s·m_d, τ_sys correlates m-weighted system means with weights
n. All metrics of one call share the same resamples, so differences are paired.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.core.deprecation import caller_stacklevel, renamed, renamed_attribute
from humaneval.errors import DataWarning, OptionError
from humaneval.metaeval.kernel import Coefficient, PairKernel, normalise_coefficient
from humaneval.metaeval.levels import RESULT_NAMES, NanPolicy, measure, normalise_levels

Mode = Literal["documents", "systems", "both"]
#: Above this many cells τ_sum is never computed from the cells × cells sign matrix (4 bytes each).
MAX_PAIR_MATRIX = 8000
#: Measured costs (seconds, 2-core machine of benchmarks/RESULTS.md, one BLAS thread) that choose
#: the τ_sum path: building the sign matrix per entry, applying it per entry and resample, and one
#: scipy Kendall call on a resample (fixed part, per n·log2 n).
BUILD_COST, APPLY_COST, SCIPY_CALL, SCIPY_NLOGN = 4.7e-9, 2.3e-11, 1.9e-4, 3.8e-9


def sum_by_pair_matrix(n_cells: int, n_resamples: int) -> bool:
    """Whether τ_sum over ``n_cells`` summaries and ``n_resamples`` resamples is cheaper from the
    cells × cells sign matrix (O(n²) once and per resample) than from one O(n log n) scipy Kendall
    per resample; never above :data:`MAX_PAIR_MATRIX` cells (memory)."""
    if n_cells > MAX_PAIR_MATRIX:
        return False
    matrix = (BUILD_COST + APPLY_COST * n_resamples) * n_cells**2
    scipy = n_resamples * (SCIPY_CALL + SCIPY_NLOGN * n_cells * np.log2(max(n_cells, 2)))
    return matrix <= scipy


MODE_ALIASES: dict[str, Mode] = {
    "documents": "documents",
    "inputs": "documents",
    "input": "documents",
    "systems": "systems",
    "both": "both",
}


def normalise_mode(mode: str) -> Mode:
    try:
        return MODE_ALIASES[mode]
    except KeyError:
        raise OptionError(f"unknown resampling mode {mode!r}; use documents, systems or both") from None


def resample_indices(
    n_systems: int,
    n_documents: int,
    mode: Mode = "both",
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of every resample, shapes (B, |S|) and (B, |D|).

    A factor that is not resampled keeps all its indices in order. :func:`bootstrap` draws its
    resamples with this function, so the same seed gives the same indices.
    """
    mode = normalise_mode(mode)
    rng = np.random.default_rng(seed)
    rows = (
        rng.integers(0, n_systems, size=(n_resamples, n_systems))
        if mode in ("systems", "both")
        else np.tile(np.arange(n_systems), (n_resamples, 1))
    )
    cols = (
        rng.integers(0, n_documents, size=(n_resamples, n_documents))
        if mode in ("documents", "both")
        else np.tile(np.arange(n_documents), (n_resamples, 1))
    )
    return rows, cols


def draw_counts(indices: np.ndarray, n: int) -> np.ndarray:
    """How often each of ``n`` units was drawn in every resample: (B, k) indices → (B, n) counts."""
    B = indices.shape[0]
    flat = (indices + (np.arange(B) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=B * n).reshape(B, n).astype(float)


def _weighted_mean(values: np.ndarray, weights: np.ndarray, nan_policy: NanPolicy) -> np.ndarray:
    defined = ~np.isnan(values)
    used = np.where(defined, weights, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (np.where(defined, values, 0.0) * used).sum(axis=1) / used.sum(axis=1)
    if nan_policy == "propagate":
        mean = np.where(((weights > 0) & ~defined).any(axis=1), np.nan, mean)
    return mean


def level_samples(
    H: np.ndarray,
    P: np.ndarray,
    levels,
    n: np.ndarray,
    m: np.ndarray,
    coefficient: Coefficient = "kendall",
    nan_policy: NanPolicy = "omit",
    chunk_size: int = 100,
) -> dict[str, np.ndarray]:
    """Measure values for resamples given as system counts ``n`` (B, |S|) and document counts
    ``m`` (B, |D|); returns ``{level: (B,) array}``. Vectorised over resamples in chunks."""
    levels = normalise_levels(levels)
    coefficient = normalise_coefficient(coefficient)
    if callable(coefficient):
        return _callable_samples(H, P, levels, n, m, coefficient, nan_policy)
    out = {level: np.empty(n.shape[0]) for level in levels}
    kernels = {}
    if "pair" in levels or "acc" in levels:
        kernels["pair"] = PairKernel(H.T, P.T)
    if "intra" in levels:
        kernels["intra"] = PairKernel(H, P)
    if "sum" in levels:
        kernels["sum"] = PairKernel(H.reshape(1, -1), P.reshape(1, -1))
    by_matrix = sum_by_pair_matrix(H.size, n.shape[0])
    filled_h, filled_p = np.nan_to_num(H), np.nan_to_num(P)
    present_h, present_p = (~np.isnan(H)).astype(float), (~np.isnan(P)).astype(float)
    for start in range(0, n.shape[0], chunk_size):
        part = slice(start, start + chunk_size)
        nc, mc = n[part], m[part]
        if "pair" in kernels:
            counts = kernels["pair"].evaluate(
                nc, coefficient if "pair" in levels else "kendall", accuracy="acc" in levels
            )
            if "pair" in levels:
                out["pair"][part] = _weighted_mean(counts["value"], mc, nan_policy)
            if "acc" in levels:
                with np.errstate(invalid="ignore", divide="ignore"):
                    out["acc"][part] = (counts["correct"] * mc).sum(1) / (counts["gold"] * mc).sum(1)
        if "intra" in levels:
            values = kernels["intra"].evaluate(mc, coefficient)["value"]
            out["intra"][part] = _weighted_mean(values, nc, nan_policy)
        if "sum" in levels:
            cells = (nc[:, :, None] * mc[:, None, :]).reshape(len(nc), -1)
            if coefficient.startswith("kendall") and not by_matrix:
                out["sum"][part] = _large_kendall(H.ravel(), P.ravel(), cells, coefficient)
            else:
                out["sum"][part] = kernels["sum"].evaluate(cells, coefficient)["value"][:, 0]
        if "sys" in levels:
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_h = (mc @ filled_h.T) / (mc @ present_h.T)
                mean_p = (mc @ filled_p.T) / (mc @ present_p.T)
            kernel = PairKernel(mean_h, mean_p)
            out["sys"][part] = kernel.evaluate(nc[None], coefficient)["value"][0]
    return out


def _large_kendall(x: np.ndarray, y: np.ndarray, cells: np.ndarray, coefficient: str) -> np.ndarray:
    """τ over all summaries when the |cells|² sign matrix would not fit in memory: an O(n log n)
    scipy Kendall per resample on the duplicated sample.
    τ_a = τ_b·sqrt((N0 − t_x)(N0 − t_y))/N0 from the tied-pair counts."""
    keep = ~(np.isnan(x) | np.isnan(y))
    out = np.empty(len(cells))
    for b, weights in enumerate(cells):
        counts = weights[keep].astype(int)
        xs, ys = np.repeat(x[keep], counts), np.repeat(y[keep], counts)
        if coefficient == "kendall_c":
            out[b] = stats.kendalltau(xs, ys, variant="c").statistic
            continue
        tau_b = stats.kendalltau(xs, ys).statistic
        if coefficient == "kendall":
            out[b] = tau_b
            continue
        n0 = len(xs) * (len(xs) - 1) / 2
        untied = [
            n0 - (c * (c - 1) / 2).sum() for c in (np.unique(v, return_counts=True)[1] for v in (xs, ys))
        ]
        out[b] = np.nan if n0 == 0 else (0.0 if 0 in untied else tau_b * np.sqrt(untied[0] * untied[1]) / n0)
    return out


def _callable_samples(H, P, levels, n, m, coefficient, nan_policy) -> dict[str, np.ndarray]:
    """Fallback for a user-supplied coefficient: evaluate each resampled matrix (slow, a loop)."""
    out = {level: np.empty(n.shape[0]) for level in levels}
    for b in range(n.shape[0]):
        rows = np.repeat(np.arange(n.shape[1]), n[b].astype(int))
        cols = np.repeat(np.arange(m.shape[1]), m[b].astype(int))
        Hb, Pb = H[rows][:, cols], P[rows][:, cols]
        for level in levels:
            out[level][b] = measure(Hb, Pb, level, coefficient, nan_policy).estimate
    return out


@dataclass(frozen=True)
class BootstrapResult:
    """Point estimates with percentile CIs (tidy ``table``: metric, level, estimate, ci_low,
    ci_high, n_valid) and the paired resampled values ``samples[metric][level]``."""

    table: pd.DataFrame
    samples: dict[str, dict[str, np.ndarray]] = field(repr=False)
    mode: Mode
    n_resamples: int
    confidence_level: float
    coefficient: str

    confidence = renamed_attribute("confidence", "confidence_level")

    def to_dict(self) -> dict:
        return {
            "mode": self.mode,
            "n_resamples": self.n_resamples,
            "confidence_level": self.confidence_level,
            "coefficient": self.coefficient,
            "results": self.table.to_dict(orient="records"),
        }

    def difference(self, a: str, b: str) -> pd.DataFrame:
        """Paired difference metric a − metric b per level: estimate and percentile CI."""
        rows = []
        alpha = 1 - self.confidence_level
        for level, values in self.samples[a].items():
            diff = values - self.samples[b][level]
            valid = diff[~np.isnan(diff)]
            point = self.table.set_index(["metric", "level"])["estimate"]
            lo, hi = np.quantile(valid, [alpha / 2, 1 - alpha / 2]) if len(valid) else (np.nan, np.nan)
            rows.append(
                {
                    "level": level,
                    "estimate": point[(a, level)] - point[(b, level)],
                    "ci_low": float(lo),
                    "ci_high": float(hi),
                    "n_valid": len(valid),
                }
            )
        return pd.DataFrame(rows)


@renamed(confidence="confidence_level")
def bootstrap(
    H: np.ndarray,
    metrics: Mapping[str, np.ndarray] | np.ndarray,
    levels=None,
    *,
    coefficient: Coefficient = "kendall",
    mode: Mode = "both",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
    nan_policy: NanPolicy = "omit",
) -> BootstrapResult:
    """Percentile bootstrap CIs of the requested measures for one or several metrics.

    Defaults follow the published study: resample ``both`` systems and documents, 1000 resamples,
    ``confidence_level`` 0.95 (formerly ``confidence``). All metrics use the same resamples
    (paired). Resamples where a measure is undefined are dropped and counted in ``n_valid``; a
    :class:`DataWarning` is raised when more than 5 % are dropped. The point estimate always comes
    from the full data.

    Parameters
    ----------
    H : array-like
        Human scores, systems × documents.
    metrics : dict of str to array-like, or array-like
        Metric scores of the same shape, by name.
    levels : str or sequence of str, optional
        The measures (see :func:`~humaneval.metaeval.correlation_levels`).
    coefficient : str or callable
        The correlation coefficient.
    mode : {"both", "systems", "documents"}
        What is resampled.
    n_resamples : int
        Bootstrap resamples (formerly ``n_bootstrap``/``--bootstrap``).
    confidence_level : float
        Of the percentile intervals.
    seed : int or Generator, optional
        Seed of the resamples.
    nan_policy : {"omit", "propagate"}
        As for :func:`~humaneval.metaeval.correlation_levels`.

    Returns
    -------
    BootstrapResult
        ``table`` (``metric, level, estimate, ci_low, ci_high, n_valid``), the resampled values,
        and ``difference(a, b)`` for paired intervals of A − B.

    Raises
    ------
    OptionError
        An unknown level, coefficient or mode.

    References
    ----------
    Deutsch, D., Dror, R., & Roth, D. (2021). A statistical analysis of summarization evaluation
    metrics using resampling methods. TACL, 9, 1132–1146.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])  # 3 systems × 4 documents
    >>> P = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> B = np.array([[.4, .1, .3, .2], [.5, .2, .6, .1], [.3, .6, .2, .4]])
    >>> result = bootstrap(H, {"P": P, "B": B}, "sum", n_resamples=1000, seed=1)
    >>> result.table.round(3).values.tolist()
    [['P', 'sum', 0.725, 0.234, 1.0, 988], ['B', 'sum', -0.158, -1.0, 0.816, 988]]
    """
    H = np.asarray(H, dtype=float)
    if isinstance(metrics, np.ndarray):
        metrics = {"metric": metrics}
    levels = normalise_levels(levels)
    mode = normalise_mode(mode)
    rows, cols = resample_indices(H.shape[0], H.shape[1], mode, n_resamples, seed)
    n, m = draw_counts(rows, H.shape[0]), draw_counts(cols, H.shape[1])
    alpha = 1 - confidence_level
    records, samples = [], {}
    for name, P in metrics.items():
        P = np.asarray(P, dtype=float)
        samples[name] = level_samples(H, P, levels, n, m, coefficient, nan_policy)
        for level in levels:
            values = samples[name][level]
            valid = values[~np.isnan(values)]
            if len(valid) < 0.95 * n_resamples:
                warnings.warn(
                    f"{name} {RESULT_NAMES[level]}: {n_resamples - len(valid)} of {n_resamples} resamples "
                    "are undefined and were dropped",
                    DataWarning,
                    stacklevel=caller_stacklevel(),
                )
            lo, hi = np.quantile(valid, [alpha / 2, 1 - alpha / 2]) if len(valid) else (np.nan, np.nan)
            records.append(
                {
                    "metric": name,
                    "level": level,
                    "estimate": measure(H, P, level, coefficient, nan_policy).estimate,
                    "ci_low": float(lo),
                    "ci_high": float(hi),
                    "n_valid": len(valid),
                }
            )
    name = coefficient if isinstance(coefficient, str) else getattr(coefficient, "__name__", "callable")
    return BootstrapResult(pd.DataFrame(records), samples, mode, n_resamples, confidence_level, str(name))
