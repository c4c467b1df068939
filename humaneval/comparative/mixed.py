"""The mixed-effects Bradley–Terry model, fitted by the native CLMM engine on a ±1 design.

Each pairwise comparison of systems a and b by annotator k on document d is a binary response
y = 1 when a won (with ties: three ordered categories lost < tie < won), modelled as

    P(y ≤ j) = σ(τ_j − x·β − z·u_k − z·v_d),    u_k ~ N(0, diag(σ²_s)),   v_d ~ N(0, diag(ω²_s)),

(the document term v_d is optional), where x holds +1 for system a, −1 for system b (the
reference system's column dropped, so β is θ_s − θ_reference) and z the same ±1 entries for
*all* systems: u_ks is annotator k's own deviation on system s's strength, as in the simulations of
:mod:`humaneval.comparative.simulate`. The covariance of the deviations is diagonal (one variance
per system): an unstructured covariance has S(S + 1)/2 parameters, more than a study of ten or
twenty annotators determines, and its fits end on the boundary far more often. With two systems
only their difference is identified, so z is then the single ±1 column.

Which system of a comparison is "a" carries no meaning in a collected table (the forms randomise
the sides), so comparisons alternate their orientation within every pair of systems and the
threshold τ (binary) is a nuisance intercept close to 0: −τ is the log-odds advantage of the
first-listed system. With ties the two thresholds τ_1 < τ_2 make this the cumulative-logit
analogue of the Rao–Kupper (1967) tie model (a tie when the strength difference falls within
(τ_1, τ_2)), not Davidson's, which the fixed-effects fit uses.

β is the log-odds that a *typical* annotator (u = 0) prefers a to b: with annotator deviations it is
larger than the population-averaged log-odds of the pooled Bradley–Terry fit (logit attenuation).

References
----------
Böckenholt, U. (2001). Hierarchical modeling of paired comparison data. Psychological Methods 6(1).
Rao, P. V. & Kupper, L. L. (1967). Ties in paired-comparison experiments: a generalization of the
Bradley–Terry model. JASA 62(317).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.clmm.result import FitResult
from humaneval.clmm.spec import ClmmSpec, RandomEffect
from humaneval.comparative.judgements import Judgements
from humaneval.errors import ModelSpecError
from humaneval.methods import get_method

#: Random-effect terms the mixed fit can include.
MIXED_TERMS = ("annotator", "document")
#: Largest number of entries of the dense random-effect Hessian blocks (8 bytes each) a fit may hold:
#: documents shared by all annotators (arena prompts) tie every annotator into one block.
MAX_BLOCK_ENTRIES = 5e7
#: The default: annotator and document deviations, the model counterpart of the two-way cluster
#: bootstrap (with annotator terms only, intervals covered 92.0 % instead of 93.9 % when documents
#: also had their own system deviations; docs/analysis.md, "Calibration").
DEFAULT_TERMS = ("annotator", "document")


def mixed_design(judgements: Judgements) -> pd.DataFrame:
    """The ±1 design of a pairwise study for a mixed-effects Bradley–Terry fit.

    One row per comparison: ``annotator`` and ``document`` codes, ``outcome`` (1 when the first
    system won, 0 when it lost, 0.5 for a tie) and one column per non-reference system holding +1
    for the first system of the pair, −1 for the second and 0 otherwise. A binary (or, with ties,
    three-category ordinal) mixed model without intercept and with random annotator slopes on these
    columns is the mixed-effects Bradley–Terry model.
    """
    if get_method(judgements.kind).unit != "pair":
        raise ModelSpecError("the ±1 mixed-model design is defined for pairwise judgements")
    n_sys = len(judgements.systems)
    events = judgements.incidence.tocoo()
    order = np.argsort(events.row, kind="stable")
    event = events.col[order]
    first = judgements.features[event, 0, : n_sys - 1]
    second = judgements.features[event, 1, : n_sys - 1]
    outcome = np.select([judgements.chosen[event] == 0, judgements.chosen[event] == 1], [1.0, 0.0], 0.5)
    frame = pd.DataFrame(first - second, columns=list(judgements.systems[1:]))
    n_cov = len(judgements.covariates)
    for k, name in enumerate(judgements.covariates):  # the style difference of the first system
        column = judgements.n_params - n_cov + k
        frame[name] = judgements.features[event, 0, column] - judgements.features[event, 1, column]
    frame.insert(0, "outcome", outcome)
    frame.insert(0, "document", judgements.document[events.row[order]])
    frame.insert(0, "annotator", judgements.annotator[events.row[order]])
    return frame


@dataclass(frozen=True, eq=False)
class MixedFit:
    """A mixed-effects Bradley–Terry fit: β and vcov against ``systems[0]`` and the CLMM result.

    ``failed`` and ``reasons`` are those of the CLMM diagnostics (non-convergence, cond.H, degenerate
    estimates); a failed fit must not be reported as a result.
    """

    systems: tuple[str, ...]
    beta: np.ndarray
    vcov: np.ndarray
    clmm: FitResult
    terms: tuple[str, ...]
    ties: bool

    @property
    def failed(self) -> bool:
        return self.clmm.diagnostics.failed

    @property
    def reasons(self) -> tuple[str, ...]:
        return self.clmm.diagnostics.reasons

    @property
    def thresholds(self) -> np.ndarray:
        return self.clmm.thresholds

    def random_sd(self) -> pd.DataFrame:
        """SD of each system's deviations per grouping factor: columns ``factor, system, sd``."""
        rows = []
        for factor, psi in self.clmm.random_effects.items():
            names = (
                self.systems
                if np.shape(psi)[0] == len(self.systems)
                else (f"{self.systems[1]}−{self.systems[0]}",)
            )
            rows += [
                (factor, s, float(np.sqrt(max(v, 0.0)))) for s, v in zip(names, np.diag(psi), strict=True)
            ]
        return pd.DataFrame(rows, columns=["factor", "system", "sd"])


def mixed_spec(
    design: pd.DataFrame,
    systems: tuple[str, ...],
    terms: tuple[str, ...] = DEFAULT_TERMS,
    covariates: tuple[str, ...] = (),
) -> ClmmSpec:
    """The :class:`~humaneval.clmm.spec.ClmmSpec` of a :func:`~humaneval.comparative.mixed_design` frame.

    Comparisons are reoriented alternately within each pair of systems (module docstring);
    ``covariates`` (style differences of the first system) are further fixed-effect columns.
    """
    unknown = [t for t in terms if t not in MIXED_TERMS]
    if unknown or not terms:
        raise ModelSpecError(
            f"mixed Bradley–Terry terms must be among {', '.join(MIXED_TERMS)}, not {terms!r}"
        )
    names = list(systems[1:])
    x = design[names].to_numpy(dtype=float)
    outcome = design["outcome"].to_numpy(dtype=float)
    pair = pd.Series([row.tobytes() for row in np.abs(x)])
    flip = (pair.groupby(pair, sort=False).cumcount().to_numpy() % 2) == 1
    sign = np.where(flip, -1.0, 1.0)
    x = x * sign[:, None]
    style = design[list(covariates)].to_numpy(dtype=float) * sign[:, None]
    outcome = np.where(flip, 1.0 - outcome, outcome)
    ties = bool(np.any(outcome == 0.5))
    y = np.rint(outcome * 2).astype(int) if ties else outcome.astype(int)
    levels = ("lost", "tie", "won") if ties else ("lost", "won")
    # z: the ±1 entries of every system (the reference's column is minus the sum of the others)
    full = np.column_stack([-x.sum(axis=1), x]) if len(systems) > 2 else x
    columns = tuple(systems) if len(systems) > 2 else (f"{systems[1]}-{systems[0]}",)
    effects = []
    for factor in terms:
        codes, uniques = pd.factorize(design[factor])
        effects.append(
            RandomEffect(
                factor=factor,
                codes=codes,
                z=full,
                columns=columns,
                blocks=(1,) * full.shape[1],
                levels=tuple(str(u) for u in uniques),
            )
        )
    return ClmmSpec.from_matrices(
        y, np.column_stack([x, style]), effects, beta_names=[*names, *covariates], levels=levels
    )


def block_entries(spec: ClmmSpec) -> float:
    """Entries of the dense blocks of the random-effect Hessian (kept part, cross part and the
    eliminated groups' diagonal blocks; :mod:`humaneval.clmm.design`) a fit of ``spec`` holds, or
    the square of the number of random effects when that is below :data:`MAX_BLOCK_ENTRIES`."""
    from humaneval.clmm.design import random_design

    effects = sum(t.n_groups * t.size for t in spec.terms)
    if effects**2 <= MAX_BLOCK_ENTRIES:  # one block of all effects would fit: skip the layout
        return float(effects**2)
    return float(
        sum(
            b.n_blocks * (b.n_kept**2 + b.n_kept * b.n_elim * b.elim_size + b.n_elim * b.elim_size**2)
            for b in random_design(spec.terms).buckets
        )
    )


def fit_mixed_bt(
    judgements: Judgements, terms: tuple[str, ...] = DEFAULT_TERMS, link: str = "logit"
) -> MixedFit:
    """Fit the mixed-effects Bradley–Terry model of pairwise ``judgements`` with the native CLMM engine.

    Parameters
    ----------
    judgements:
        Pairwise judgements (:func:`~humaneval.comparative.build_judgements`).
    terms:
        Grouping factors with random system deviations: ``("annotator", "document")`` (default)
        or ``("annotator",)``.
    link:
        ``logit`` (Bradley–Terry) or ``probit`` (Thurstone–Mosteller), as the CLMM engine offers.

    Returns
    -------
    MixedFit
        β (θ_s − θ_reference, then the style covariates), its covariance with the variance
        parameters profiled out, and the CLMM fit with its diagnostics.

    Raises
    ------
    ModelSpecError
        Unknown terms, or a design whose random-effect blocks exceed :data:`MAX_BLOCK_ENTRIES`.

    Examples
    --------
    >>> from humaneval.comparative import build_judgements
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> table = simulate_pairwise_study([0.5, 0.0, -0.5], annotator_sd=0.8, seed=1)
    >>> fit = fit_mixed_bt(build_judgements(table))
    >>> fit.failed, fit.beta.round(1).tolist()
    (False, [-0.5, -1.0])
    """
    from humaneval.clmm.fit import fit_spec

    spec = mixed_spec(mixed_design(judgements), judgements.systems, tuple(terms), judgements.covariates)
    entries = block_entries(spec)
    if entries > MAX_BLOCK_ENTRIES:
        raise ModelSpecError(
            f"the mixed-effects fit would hold {entries:.2g} numbers in the dense blocks of its "
            f"random-effect Hessian (limit {MAX_BLOCK_ENTRIES:.0g}; {' and '.join(terms)} groups linked by "
            "shared comparisons form one block); leave the document term out (mixed_terms=('annotator',) "
            "in Python) or use a cluster bootstrap (--inference two-way)"
        )
    result = fit_spec(spec, link)
    return MixedFit(
        systems=judgements.systems,
        beta=np.asarray(result.beta, dtype=float),
        vcov=np.asarray(result.vcov, dtype=float),
        clmm=result,
        terms=tuple(terms),
        ties=len(spec.levels) == 3,
    )
