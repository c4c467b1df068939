"""Studies whose annotators use the rating scale differently: simulate them, and check both CLMMs.

Each annotator a has a location shift b_a ~ N(0, σ_a²) and a log-spread s_a ~ N(0, σ_s²); each
document a shift d_d ~ N(0, σ_d²). A rating of system k is category j with probability

    P(y ≤ j) = F((θ_j − β_k − b_a − d_d) / exp(s_a)),

the location–scale CLMM of :mod:`humaneval.clmm.scale`. :func:`scale_heterogeneity` fits every
replicate twice — the standard CLMM (random intercepts) and the scale CLMM with a random annotator
log-scale — and reports how often each one's 95 % interval for the system contrast covers the truth,
how often it rejects, and how often the scale model's interval for σ_s covers σ_s
(docs/analysis.md, "Annotators who use the scale differently").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from humaneval.errors import FitFailedError, OptionError

Z95 = 1.959963984540054


@dataclass(frozen=True)
class ScaleDesign:
    """A crossed design: every annotator rates ``docs_per_annotator`` documents, each in every system;
    the documents rotate so that ``n_documents`` are each rated by several annotators."""

    n_annotators: int = 30
    n_documents: int = 30
    docs_per_annotator: int = 6
    effects: tuple[float, ...] = (0.0, 0.5)  # β per system (the first is the reference)
    thresholds: tuple[float, ...] = (-2.0, -0.7, 0.7, 2.0)
    sd_annotator: float = 0.8
    sd_document: float = 0.5
    sd_log_scale: float = 0.4

    def __post_init__(self) -> None:
        if min(self.n_annotators, self.n_documents, self.docs_per_annotator) < 1 or len(self.effects) < 2:
            raise OptionError("a scale design needs ≥ 1 annotator, document and rated document, ≥ 2 systems")
        if self.docs_per_annotator > self.n_documents:
            raise OptionError("docs_per_annotator cannot exceed n_documents")
        if np.any(np.diff(self.thresholds) <= 0):
            raise OptionError("thresholds must increase")
        if min(self.sd_annotator, self.sd_document, self.sd_log_scale) < 0:
            raise OptionError("standard deviations must be ≥ 0")

    @property
    def n_ratings(self) -> int:
        return self.n_annotators * self.docs_per_annotator * len(self.effects)


def simulate_scale_study(design: ScaleDesign, seed: int | np.random.Generator | None = 0) -> pd.DataFrame:
    """One simulated study: columns annotator, document, system, score (1..K).

    Examples
    --------
    >>> table = simulate_scale_study(ScaleDesign(n_annotators=4, n_documents=4, docs_per_annotator=2))
    >>> len(table), sorted(table["system"].unique())
    (16, ['s0', 's1'])
    """
    rng = np.random.default_rng(seed)
    d = design
    n_sys = len(d.effects)
    ann = np.repeat(np.arange(d.n_annotators), d.docs_per_annotator * n_sys)
    slot = np.tile(np.repeat(np.arange(d.docs_per_annotator), n_sys), d.n_annotators)
    doc = (ann * d.docs_per_annotator + slot) % d.n_documents
    system = np.tile(np.arange(n_sys), d.n_annotators * d.docs_per_annotator)
    b = rng.normal(0.0, d.sd_annotator, d.n_annotators)
    s = rng.normal(0.0, d.sd_log_scale, d.n_annotators)
    dd = rng.normal(0.0, d.sd_document, d.n_documents)
    eta = np.asarray(d.effects)[system] + b[ann] + dd[doc]
    latent = eta + np.exp(s[ann]) * special.logit(rng.uniform(size=eta.size))
    score = 1 + np.searchsorted(np.asarray(d.thresholds), latent)
    return pd.DataFrame(
        {
            "annotator": [f"a{k:03d}" for k in ann],
            "document": [f"d{k:03d}" for k in doc],
            "system": [f"s{k}" for k in system],
            "score": score,
        }
    )


@dataclass(frozen=True)
class ScaleCalibration:
    """Per replicate: the contrast s1 − s0 of both models (estimate, SE) and σ_s of the scale model."""

    design: ScaleDesign
    replicates: pd.DataFrame

    def rates(self) -> dict[str, float]:
        """Coverage of the 95 % intervals and rejection rates at 5 % (two-sided z tests)."""
        r, truth = self.replicates, self.design.effects[1] - self.design.effects[0]
        out: dict[str, float] = {"replicates": float(len(r))}
        for model in ("standard", "scale"):
            est, se = r[f"{model}_estimate"], r[f"{model}_se"]
            out[f"{model}_coverage"] = float(np.mean(np.abs(est - truth) <= Z95 * se))
            out[f"{model}_rejection"] = float(np.mean(np.abs(est) > Z95 * se))
        sd, sd_se = r["scale_sd"], r["scale_sd_se"]
        with np.errstate(divide="ignore", invalid="ignore"):  # Wald interval on log σ_s
            half = Z95 * sd_se / sd
            inside = np.abs(np.log(self.design.sd_log_scale) - np.log(sd)) <= half
        out["scale_sd_coverage"] = float(np.mean(inside)) if self.design.sd_log_scale > 0 else float("nan")
        return out


def scale_heterogeneity(
    design: ScaleDesign, n_replicates: int = 200, seed: int = 0, link: str = "logit"
) -> ScaleCalibration:
    """Fit the standard and the scale CLMM to ``n_replicates`` simulated studies (module docstring).

    Replicates where a fit fails are left out (their count is ``n_replicates`` − rows).
    """
    from humaneval.clmm.fit import fit_spec
    from humaneval.clmm.formula import clmm_spec

    if n_replicates < 1:
        raise OptionError("n_replicates must be ≥ 1")
    formula = "score ~ system + (1 | annotator) + (1 | document)"
    rows = []
    for rep, child in enumerate(np.random.SeedSequence(seed).spawn(n_replicates)):
        table = simulate_scale_study(design, np.random.default_rng(child))
        try:
            standard = fit_spec(clmm_spec(formula, table), link)
            scaled = fit_spec(clmm_spec(formula, table, scale="~ (1 | annotator)"), link)
        except FitFailedError:
            continue
        rows.append(
            {
                "replicate": rep,
                "standard_estimate": float(standard.beta[0]),
                "standard_se": float(standard.se[0]),
                "scale_estimate": float(scaled.beta[0]),
                "scale_se": float(scaled.se[0]),
                "scale_sd": scaled.scale.sd,
                "scale_sd_se": scaled.scale.sd_se,
            }
        )
    return ScaleCalibration(design, pd.DataFrame(rows))
