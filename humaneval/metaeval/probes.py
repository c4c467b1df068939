"""Confounder probes: pseudo-metrics that only identify systems.

A probe that knows nothing but which system wrote a summary still reaches a high τ_sys when the
systems differ in quality; τ_intra, which holds the system fixed, exposes it (undefined for a
probe constant within each system). Probes: ``cap`` (uppercase characters, needs texts),
``arch`` (1 for a user-supplied set of systems), ``ub`` (the system's mean gold score), and
their ``_r`` variants with iid Uniform(0, 1e−10) noise, which stops τ_b profiting from ties and
Acc_pair being penalised for them. Noisy variants are averaged over R = 100 seeded runs (the
reference script kept only the last run).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from humaneval.core.deprecation import caller_stacklevel
from humaneval.errors import DataWarning, InsufficientDataError
from humaneval.metaeval.kernel import Coefficient
from humaneval.metaeval.levels import RESULT_NAMES, correlation_levels, normalise_levels, system_means

#: The transformer-based SummEval systems, the default ``arch`` set.
SUMMEVAL_TRANSFORMERS = ("BART", "Pegasus", "Pegasus (dynamic mix)", "T5", "GPT-2 (zero shot)")
NOISE = 1e-10


def arch_probe(
    systems: Sequence[str], n_documents: int, members: Iterable[str] = SUMMEVAL_TRANSFORMERS
) -> np.ndarray:
    """1 for summaries of systems in ``members``, else 0 (|S|×|D|)."""
    members = set(members)
    return np.repeat(np.array([[float(s in members)] for s in systems]), n_documents, axis=1)


def upper_bound_probe(H: np.ndarray) -> np.ndarray:
    """Every summary scored with its system's mean gold score: perfect τ_sys, blind within systems."""
    H = np.asarray(H, dtype=float)
    return np.where(np.isnan(H), np.nan, system_means(H)[:, None])


def capitalisation_probe(texts: pd.Series, systems: Sequence[str], documents: Sequence[str]) -> np.ndarray:
    """Number of uppercase characters per summary; ``texts`` is indexed by (document, system)."""
    counts = texts.map(lambda t: float(sum(ch.isupper() for ch in t)) if isinstance(t, str) else np.nan)
    grid = pd.MultiIndex.from_product([documents, systems])
    return counts.reindex(grid).to_numpy(dtype=float).reshape(len(documents), len(systems)).T


def with_noise(P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """P + iid Uniform(0, 1e−10) noise, checked to have removed every tie.

    If the scores are so large that 1e−10 vanishes in float64 (fewer than ~1000 representable
    steps), the noise is scaled by max(1, max|P|) with a :class:`DataWarning`.
    Cells whose noisy values still collide by chance get fresh noise until all values differ.
    """
    P = np.asarray(P, dtype=float)
    magnitude = float(np.nanmax(np.abs(P))) if np.isfinite(P).any() else 0.0
    scale = 1.0
    if np.spacing(magnitude) * 1024 > NOISE:
        scale = max(1.0, magnitude)
        warnings.warn(
            f"noise of 1e-10 vanishes next to scores of magnitude {magnitude:g}; "
            f"scaled the noise by {scale:g}",
            DataWarning,
            stacklevel=caller_stacklevel(),
        )
    noisy = P + rng.uniform(0, NOISE * scale, size=P.shape)
    cells = np.flatnonzero(~np.isnan(noisy))
    for _ in range(100):
        _, inverse, counts = np.unique(noisy.flat[cells], return_inverse=True, return_counts=True)
        tied = cells[counts[inverse] > 1]
        if len(tied) == 0:
            return noisy
        noisy.flat[tied] = P.flat[tied] + rng.uniform(0, NOISE * scale, size=len(tied))
    raise InsufficientDataError("could not break the ties of a probe with noise; its scores are too coarse")


def confounder_table(
    H: np.ndarray,
    probes: Mapping[str, np.ndarray],
    levels=None,
    *,
    coefficient: Coefficient = "kendall",
    runs: int = 100,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """The confounder table of docs/metaeval.md: rows are measures, columns each probe and its noisy
    ``(r)`` variant (mean over ``runs`` noisy runs). Undefined values (τ_intra of a probe that is
    constant within systems) are NaN."""
    levels = normalise_levels(levels)
    rng = np.random.default_rng(seed)
    columns = {}
    for name, P in probes.items():
        plain = correlation_levels(H, P, levels, coefficient)
        columns[name] = {k: v.estimate for k, v in plain.items()}
        noisy = np.array(
            [
                [v.estimate for v in correlation_levels(H, with_noise(P, rng), levels, coefficient).values()]
                for _ in range(runs)
            ]
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            columns[f"{name} (r)"] = dict(zip(plain, np.nanmean(noisy, axis=0), strict=True))
    return pd.DataFrame(columns).reindex([RESULT_NAMES[lv] for lv in levels])
