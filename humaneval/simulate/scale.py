"""Studies whose annotators use the rating scale differently: simulate them, and check both CLMMs.

Each annotator a has a location shift b_a ~ N(0, σ_a²) and a log-spread s_a ~ N(0, σ_s²); each
document a shift d_d ~ N(0, σ_d²). A rating of system k is category j with probability

    P(y ≤ j) = F((θ_j − β_k − b_a − d_d) / exp(s_a)),

the location–scale CLMM of :mod:`humaneval.clmm.scale`. :func:`scale_heterogeneity` fits every
replicate twice — the standard CLMM (random intercepts) and the scale CLMM with a random annotator
log-scale — and reports how often each one's 95 % interval for the system contrast covers the truth,
how often it rejects, and how often the scale model's interval for σ_s covers σ_s
(docs/analysis.md, "Annotators who use the scale differently"). :func:`scale_power` asks it for a
design at its effect (coverage and power) and under the null (Type I error): ``humaneval power
--scale-heterogeneity`` (docs/simulation.md).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from humaneval.errors import FitFailedError, OptionError
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.printable import Printable, frame_table

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
            with np.errstate(all="ignore"):  # the optimiser's trial steps may overflow; a failed fit raises
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


#: ``power --scale-heterogeneity`` keys → :class:`ScaleDesign` fields (``effect``: system s1 − s0).
SCALE_KEYS = {
    "annotators": "n_annotators",
    "documents": "n_documents",
    "docs_per_annotator": "docs_per_annotator",
    "effect": "effects",
    "sd_annotator": "sd_annotator",
    "sd_document": "sd_document",
    "sd_log_scale": "sd_log_scale",
}


def scale_design(spec: str) -> ScaleDesign:
    """A :class:`ScaleDesign` from ``KEY=VALUE,...`` (keys of :data:`SCALE_KEYS`; ``default`` or empty:
    the defaults).

    Examples
    --------
    >>> scale_design("annotators=12,effect=0.8,sd_log_scale=0.6").effects
    (0.0, 0.8)
    """
    values: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in ("" if spec.strip() == "default" else spec).split(","))):
        key, sep, value = (t.strip() for t in part.partition("="))
        if not sep or key not in SCALE_KEYS:
            raise OptionError(
                f"--scale-heterogeneity {part!r}: use KEY=VALUE with KEY one of {', '.join(SCALE_KEYS)}"
            )
        try:
            number = float(value)
        except ValueError:
            raise OptionError(f"--scale-heterogeneity {part!r}: {value!r} is not a number") from None
        if key in ("annotators", "documents", "docs_per_annotator"):
            if not number.is_integer():
                raise OptionError(f"--scale-heterogeneity {part!r}: {key} is a whole number")
            number = int(number)
        values[SCALE_KEYS[key]] = (0.0, number) if key == "effect" else number
    return ScaleDesign(**values)


@dataclass(frozen=True, eq=False)
class ScalePower(Printable):
    """The standard and the scale CLMM on one design: coverage and power at its effect, Type I error
    under the null (``table``: ``model, coverage, power, type1_error``), σ_s's coverage, and how many
    replicates each run fitted."""

    design: ScaleDesign
    table: pd.DataFrame
    scale_sd_coverage: float
    replicates: int
    null_replicates: int
    requested: int

    def blocks(self) -> tuple[Block, ...]:
        d = self.design
        head = (
            f"Annotators who use the scale differently: {d.n_annotators} annotators × "
            f"{d.docs_per_annotator} documents × {len(d.effects)} systems ({d.n_documents} documents), "
            f"effect {d.effects[1] - d.effects[0]:g} (logit), annotator SD {d.sd_annotator:g}, "
            f"document SD {d.sd_document:g}, log-scale SD "
            f"{d.sd_log_scale:g}; {self.replicates} of {self.requested} simulated studies fitted"
            + (f" ({self.null_replicates} under the null)" if self.null_replicates else "")
            + "."
        )
        names = {"coverage": "95% CI coverage", "power": "power", "type1_error": "Type I error"}
        notes = [
            (
                f"σ_s's 95% interval (scale CLMM) holds the true {d.sd_log_scale:g} in "
                f"{self.scale_sd_coverage:.1%} of the studies",
            )
        ]
        return (
            Paragraph((head,)),
            frame_table(self.table, list(self.table.columns), names=names),
            Bullets(tuple(notes)),
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` of ``humaneval power --scale-heterogeneity`` (docs/simulation.md)."""
        return {
            "design": asdict(self.design),
            "replicates": self.replicates,
            "null_replicates": self.null_replicates,
            "requested": self.requested,
            "models": self.table.to_dict(orient="records"),
            "scale_sd_coverage": self.scale_sd_coverage,
        }


def scale_power(
    design: ScaleDesign, n_replicates: int = 200, seed: int = 0, calibration: bool = True, link: str = "logit"
) -> ScalePower:
    """Coverage and power of the standard and the scale CLMM at ``design``'s effect, and (``calibration``)
    their Type I error on the same design with no effect (:func:`scale_heterogeneity` on both).

    Examples
    --------
    >>> small = ScaleDesign(n_annotators=8, n_documents=8, docs_per_annotator=3, effects=(0.0, 1.5))
    >>> power = scale_power(small, n_replicates=2, seed=1, calibration=False)
    >>> list(power.table["model"]), power.replicates
    (['standard CLMM', 'scale CLMM'], 2)
    """
    effect = scale_heterogeneity(design, n_replicates, seed, link)
    rates = effect.rates()
    null: dict[str, float] = {}
    null_count = 0
    if calibration:
        nulled = scale_heterogeneity(
            replace(design, effects=(0.0,) * len(design.effects)), n_replicates, seed + 1, link
        )
        null, null_count = nulled.rates(), len(nulled.replicates)
    table = pd.DataFrame(
        {
            "model": ["standard CLMM", "scale CLMM"],
            "coverage": [rates.get(f"{m}_coverage", np.nan) for m in ("standard", "scale")],
            "power": [rates.get(f"{m}_rejection", np.nan) for m in ("standard", "scale")],
            "type1_error": [null.get(f"{m}_rejection", np.nan) for m in ("standard", "scale")],
        }
    )
    return ScalePower(
        design=design,
        table=table,
        scale_sd_coverage=rates.get("scale_sd_coverage", np.nan),
        replicates=len(effect.replicates),
        null_replicates=null_count,
        requested=n_replicates,
    )
