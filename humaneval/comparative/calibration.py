"""Do the confidence intervals of the comparative models cover the truth? A Monte-Carlo check.

Studies are simulated with :mod:`humaneval.comparative.simulate` (annotators with their own
preferences), each is fitted once, and the 95 % interval θ̂_a − θ̂_b ± t SE of every pair (t from
t(G − 1) for G clusters, the normal quantile for independent judgements) is checked under each
standard-error scheme: the bootstrap schemes of
:mod:`humaneval.comparative.bootstrap` (with and without the model-based floor) and the
observed information.

The target is the difference the pooled model estimates: with annotator-specific deviations the
population-averaged preference is weaker than the annotator-level θ_a − θ_b (logit attenuation), so
the target is the probability limit of the pooled fit, computed once per scenario from a very large
simulated study (``population_blocks`` blocks). The mixed-effects Bradley–Terry model (pairwise
studies; variants ``mixed`` with annotator deviations, ``mixed, + document`` with document
deviations too) estimates the annotator-level difference itself, so its target is the simulated
θ_a − θ_b; its intervals are Wald intervals with normal quantiles, as the CLMM's, and a failed fit
counts as a study without coverage (``covered`` False, ``se`` NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.comparative.analyze import analyze_comparative, cluster_dof
from humaneval.comparative.bootstrap import SCHEMES, bootstrap_vcov
from humaneval.comparative.engine import fit_events
from humaneval.comparative.judgements import build_judgements
from humaneval.comparative.mixed import fit_mixed_bt
from humaneval.comparative.simulate import simulate_bws_study, simulate_pairwise_study
from humaneval.core.deprecation import renamed
from humaneval.methods import get_method
from humaneval.stats.seeds import SeedLike

#: Standard-error schemes compared: (name, bootstrap scheme or "model", floor at the model vcov).
VARIANTS = (
    ("two-way", "two-way", True),
    ("two-way, no floor", "two-way", False),
    ("pigeonhole", "pigeonhole", False),
    ("naive", "naive", False),
    ("model", "model", False),
    ("mixed", "mixed", False),
    ("mixed, + document", "mixed+document", False),
)
#: Random-effect terms of the mixed variants.
MIXED_VARIANTS = {"mixed": ("annotator",), "mixed+document": ("annotator", "document")}


@dataclass(frozen=True)
class Scenario:
    """One simulated study layout: kind, strengths, heterogeneity and size."""

    kind: str
    strengths: tuple[float, ...]
    annotator_sd: float
    document_sd: float = 0.0
    blocks: int = 10
    docs_per_block: int = 5
    annotators_per_block: int = 3

    def simulate(self, seed: SeedLike, blocks: int | None = None) -> pd.DataFrame:
        size: dict[str, Any] = {
            "blocks": blocks or self.blocks,
            "docs_per_block": self.docs_per_block,
            "annotators_per_block": self.annotators_per_block,
            "annotator_sd": self.annotator_sd,
            "document_sd": self.document_sd,
            "seed": seed,
        }
        if get_method(self.kind).unit == "pair":
            return simulate_pairwise_study(list(self.strengths), **size)
        return simulate_bws_study(list(self.strengths), **size)


def _differences(beta: np.ndarray, n_sys: int) -> np.ndarray:
    full = np.r_[0.0, beta[: n_sys - 1]]
    i, j = np.triu_indices(n_sys, 1)
    return full[i] - full[j]


def _contrast_se(vcov: np.ndarray, n_sys: int) -> np.ndarray:
    full = np.zeros((n_sys, n_sys))
    full[1:, 1:] = vcov[: n_sys - 1, : n_sys - 1]
    i, j = np.triu_indices(n_sys, 1)
    return np.sqrt(np.clip(full[i, i] + full[j, j] - 2 * full[i, j], 0.0, None))


def population_differences(scenario: Scenario, blocks: int = 1000, seed: int = 0) -> np.ndarray:
    """θ_a − θ_b (a < b in system order) of the pooled fit to one very large study of the scenario."""
    judgements = build_judgements(scenario.simulate(seed, blocks=blocks), scenario.kind)
    fit = fit_events(judgements.features, judgements.mask, judgements.chosen, judgements.event_counts)
    return _differences(fit.beta[0], len(judgements.systems))


@renamed(n_boot="n_resamples", level="confidence_level")
def coverage(
    scenario: Scenario,
    studies: int = 500,
    n_resamples: int = 400,
    confidence_level: float = 0.95,
    seed: int = 1,
    variants: Sequence[tuple[str, str, bool]] = VARIANTS,
    population_blocks: int = 1000,
    progress: bool = False,
) -> pd.DataFrame:
    """Per-study, per-pair coverage of the intervals of every variant; one row per study × pair × variant.

    Columns: ``study, pair, variant, target, estimate, se, covered``.
    """
    target = population_differences(scenario, population_blocks, seed=seed + 10_000)
    rng = np.random.default_rng(seed)
    rows = []
    iterator = range(studies)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc=f"{scenario.kind} sd={scenario.annotator_sd}")
    n_sys = len(scenario.strengths)
    true_differences = _differences(np.asarray(scenario.strengths[1:]) - scenario.strengths[0], n_sys)
    pairs = [f"s{a}-s{b}" for a, b in zip(*np.triu_indices(n_sys, 1), strict=True)]
    for study in iterator:
        judgements = build_judgements(scenario.simulate(rng), scenario.kind)
        fit = fit_events(judgements.features, judgements.mask, judgements.chosen, judgements.event_counts)
        if not fit.ok[0]:
            continue
        pooled = _differences(fit.beta[0], n_sys)
        model_vcov = np.linalg.inv(fit.hessian[0])
        for name, scheme, floor in variants:
            estimate, truth = pooled, target
            if scheme in MIXED_VARIANTS:
                if get_method(scenario.kind).unit != "pair":
                    continue
                mixed = fit_mixed_bt(judgements, MIXED_VARIANTS[scheme])
                estimate, truth = _differences(mixed.beta, n_sys), true_differences
                vcov = np.full_like(mixed.vcov, np.nan) if mixed.failed else mixed.vcov
            elif scheme == "model":
                vcov = model_vcov
            else:
                floored = model_vcov if floor else None
                vcov = bootstrap_vcov(judgements, scheme, n_resamples, rng, floor=floored).vcov
            se = _contrast_se(vcov, n_sys)
            dof = cluster_dof(judgements, scheme) if scheme in SCHEMES else np.inf
            covered = np.abs(estimate - truth) <= stats.t.ppf(0.5 + confidence_level / 2, dof) * se
            rows += [
                (study, pair, name, t, e, s, bool(c))
                for pair, t, e, s, c in zip(pairs, truth, estimate, se, covered, strict=True)
            ]
    return pd.DataFrame(rows, columns=["study", "pair", "variant", "target", "estimate", "se", "covered"])


def coverage_table(results: pd.DataFrame) -> pd.DataFrame:
    """Coverage per variant: mean over studies and pairs, the worst pair, and the Monte-Carlo SE."""
    per_pair = results.groupby(["variant", "pair"])["covered"].mean()
    studies = results.groupby("variant")["study"].nunique()
    table = pd.DataFrame(
        {
            "coverage": results.groupby("variant")["covered"].mean(),
            "worst_pair": per_pair.groupby("variant").min(),
            "studies": studies,
        }
    )
    table["mc_se"] = np.sqrt(table["coverage"] * (1 - table["coverage"]) / table["studies"])
    table["failed"] = results["se"].isna().groupby(results["variant"]).mean()
    order = [name for name, _, _ in VARIANTS if name in table.index]
    return table.reindex(order)


@renamed(n_boot="n_resamples")
def power(
    scenario: Scenario,
    studies: int = 200,
    n_resamples: int = 200,
    adjust: str = "tukey",
    alpha: float = 0.05,
    seed: int = 1,
) -> pd.DataFrame:
    """Share of simulated studies in which each pair differs significantly (two-way cluster bootstrap).

    Returns one row per pair (``system_a``, ``system_b``, ``true_difference`` = θa − θb of the
    simulation, ``power`` and its Monte-Carlo ``mc_se``) — what ``humaneval power`` needs for a
    pairwise or best–worst design.
    """
    rng = np.random.default_rng(seed)
    significant = []
    for _ in range(studies):
        result = analyze_comparative(
            scenario.simulate(rng), n_resamples=n_resamples, adjust=adjust, alpha=alpha, seed=rng
        )
        significant.append((result.contrasts["p_adj"] < alpha).to_numpy())
    table = result.contrasts[["system_a", "system_b"]].copy()
    theta = dict(zip((f"s{i}" for i in range(len(scenario.strengths))), scenario.strengths, strict=True))
    table["true_difference"] = table["system_a"].map(theta) - table["system_b"].map(theta)
    table["power"] = np.mean(significant, axis=0)
    table["mc_se"] = np.sqrt(table["power"] * (1 - table["power"]) / studies)
    return table.reset_index(drop=True)
