"""Predictions and simulations from a fitted CLMM, and the fit as an :class:`OrdinalModel`.

``ordinal::clmm`` has neither ``predict`` nor ``simulate`` (ordinal issue #20). Here, for the rows
of any data frame with the model's columns (default: the fitted rows):

- :func:`predict` gives per-category probabilities, the expected score Σ_k k·P(Y = k) (k = 1..K,
  ``mean.class``), the expected response value Σ_k level_k·P(Y = k) for numeric levels, and the
  linear predictor. ``random="zero"`` conditions on random effects at 0 (a typical annotator and
  document, as emmeans does); ``random="marginal"`` integrates them out: the random part of the
  latent variable of row i is normal with variance v_i = Σ_f z_{f,i}ᵀ Ψ_f z_{f,i}, so
  P(Y ≤ j) = ∫ F(θ_j − η_i − s) φ(s; 0, v_i) ds (Gauss–Hermite quadrature, 40 nodes).
- :func:`simulate` draws new responses: one random effect per group of the data (from Ψ_f), then a
  category per row; groups are the rows' own levels, so new annotators get new effects.

References
----------
Christensen, R. H. B. ordinal: Regression Models for Ordinal Data (issue #20: predict for clmm).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from humaneval.clmm.links import cdf
from humaneval.clmm.model import OrdinalModel
from humaneval.clmm.spec import ClmmSpec
from humaneval.errors import ModelSpecError, OptionError

if TYPE_CHECKING:  # result.py imports predict.py and, through it, this module
    from humaneval.clmm.result import FitResult

PREDICT_TYPES = ("prob", "mean", "latent")
RANDOM_MODES = ("zero", "marginal")
_NODES = 40


def _rows(
    fit: FitResult, newdata: pd.DataFrame | None
) -> tuple[pd.DataFrame, np.ndarray, dict[str, np.ndarray]]:
    """The rows, their fixed design X and each random term's design rows Z_f."""
    spec = _formula_spec(fit)
    from humaneval.clmm.emmeans import grid_design
    from humaneval.clmm.formula import _model_matrix, encode_factors, parse_formula, r_name

    frame = newdata.reset_index(drop=True) if newdata is not None else _decoded(spec)
    x = grid_design(fit, frame)
    encoded = encode_factors(frame, spec.factors)
    z = {t.factor: np.zeros((len(frame), t.size)) for t in spec.terms}
    columns = {t.factor: list(t.columns) for t in spec.terms}
    for bar in parse_formula(spec.formula.split(", nAGQ")[0]).bars:
        mm = _model_matrix(bar.expr, encoded, encoded)
        for col in mm.columns:
            name = r_name(col, spec.factors)
            z[bar.group][:, columns[bar.group].index(name)] = np.asarray(mm[col], dtype=float)
    return frame, x, z


def _formula_spec(fit: FitResult) -> ClmmSpec:
    """The fit's model specification; only a formula fit has one with a fixed part to predict from."""
    spec = fit.spec
    if spec is None or spec.fixed_spec is None:
        raise ModelSpecError(
            "predict and simulate need a fit from a formula (fit_clmm(formula=...) or clmm_spec)"
        )
    return spec


def _decoded(spec: ClmmSpec) -> pd.DataFrame:
    """The model frame with factor levels as the user wrote them."""
    frame = spec.frame.copy()
    for col, levels in spec.factors.items():
        frame[col] = [levels[c] for c in frame[col].cat.codes]
    return frame


def _numeric_levels(levels: tuple[float | str, ...]) -> np.ndarray | None:
    try:
        return np.array([float(v) for v in levels])
    except (TypeError, ValueError):
        return None


def predict(
    fit: FitResult, newdata: pd.DataFrame | None = None, *, type: str = "prob", random: str = "zero"
) -> pd.DataFrame:
    """Predictions for the rows of ``newdata`` (module docstring).

    Parameters
    ----------
    fit:
        A formula fit.
    newdata:
        Rows with the fixed part's columns (and the grouping columns' design columns for
        ``random="marginal"``); default the fitted rows.
    type:
        ``prob`` (a column per category), ``mean`` (``mean_class`` and, for numeric levels,
        ``expected``) or ``latent`` (the linear predictor xᵀβ).
    random:
        ``zero`` (random effects at 0) or ``marginal`` (integrated over Ψ).

    Returns
    -------
    pandas.DataFrame
        One row per input row.
    """
    if type not in PREDICT_TYPES:
        raise OptionError(f"type must be one of {', '.join(PREDICT_TYPES)}, not {type!r}")
    if random not in RANDOM_MODES:
        raise ModelSpecError(f"random must be zero or marginal, not {random!r}")
    frame, x, z = _rows(fit, newdata)
    eta = x @ fit.beta if x.shape[1] else np.zeros(len(frame))
    if type == "latent":
        return pd.DataFrame({"latent": eta})
    probs = _probabilities(fit, eta, _latent_variance(fit, z) if random == "marginal" else None)
    labels = [str(v) if isinstance(v, str) else f"{v:g}" for v in fit.levels]
    if type == "prob":
        return pd.DataFrame(probs, columns=labels)
    out = pd.DataFrame({"mean_class": probs @ np.arange(1, probs.shape[1] + 1)})
    values = _numeric_levels(fit.levels)
    if values is not None:
        out["expected"] = probs @ values
    return out


def _latent_variance(fit: FitResult, z: dict[str, np.ndarray]) -> np.ndarray:
    total = 0.0
    for factor, rows in z.items():
        psi = np.asarray(fit.random_effects[factor], dtype=float)
        total = total + np.einsum("ij,jk,ik->i", rows, psi, rows)
    return np.asarray(total, dtype=float)


def _probabilities(fit: FitResult, eta: np.ndarray, variance: np.ndarray | None) -> np.ndarray:
    cut = np.r_[-np.inf, fit.thresholds, np.inf]
    if variance is None:
        return np.diff(cdf(cut[None, :] - eta[:, None], fit.link), axis=1)
    nodes, weights = np.polynomial.hermite_e.hermegauss(_NODES)
    weights = weights / weights.sum()
    shift = np.sqrt(np.clip(variance, 0.0, None))[:, None] * nodes[None, :]  # rows × nodes
    cum = cdf(cut[None, :, None] - (eta[:, None] + shift)[:, None, :], fit.link)  # rows × cuts × nodes
    return np.diff(cum @ weights, axis=1)


def simulate(
    fit: FitResult,
    newdata: pd.DataFrame | None = None,
    *,
    n: int = 1,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """``n`` simulated responses per row of ``newdata`` (default the fitted rows).

    Every grouping factor's groups (the combinations of its columns in ``newdata``) get one draw
    of b_g ~ N(0, Ψ_f) per simulation; responses are drawn from the model's category probabilities
    given xᵀβ + Σ_f z_fᵀ b_g. Returns ``newdata`` with columns ``sim_1`` … ``sim_n`` holding the
    response levels.
    """
    rng = np.random.default_rng(seed)
    spec = _formula_spec(fit)
    frame, x, z = _rows(fit, newdata)
    eta = x @ fit.beta if x.shape[1] else np.zeros(len(frame))
    cut = np.r_[-np.inf, fit.thresholds, np.inf]
    labels = np.array(fit.levels, dtype=object)
    out = frame.copy()
    for k in range(int(n)):
        total = eta.copy()
        for term in spec.terms:
            parts = [c.strip() for c in term.factor.split(":")]
            missing = [c for c in parts if c not in frame]
            if missing:
                raise ModelSpecError(f"simulate needs the grouping column {missing[0]!r} in the data")
            codes, uniques = pd.factorize(frame[parts].astype(str).agg(":".join, axis=1))
            psi = np.asarray(fit.random_effects[term.factor], dtype=float)
            effects = rng.multivariate_normal(np.zeros(psi.shape[0]), psi, size=len(uniques), method="eigh")
            total += np.einsum("ij,ij->i", z[term.factor], effects[codes])
        cum = cdf(cut[None, :] - total[:, None], fit.link)
        u = rng.random(len(frame))
        category = np.sum(u[:, None] >= cum[:, 1:-1], axis=1)
        out[f"sim_{k + 1}"] = labels[category]
    return out


def ordinal_model(fit: FitResult) -> OrdinalModel:
    """The fit as an :class:`~humaneval.clmm.model.OrdinalModel` (systems, thresholds, Ψ), for simulation
    and power analysis.

    Needs a system comparison: the fixed part is ``system`` alone and every random term is an
    intercept or intercept-and-system-slopes term (any link of :data:`~humaneval.clmm.links.LINKS`).
    """
    if fit.systems:
        return fit.to_model()
    factors = getattr(fit.spec, "factors", {}) or {}
    if "system" not in factors:
        raise ModelSpecError("an OrdinalModel compares systems; this model has no system factor")
    systems = factors["system"]
    expected = tuple(f"system{s}" for s in systems[1:])
    if tuple(fit.beta_names) != expected:
        raise ModelSpecError(
            f"an OrdinalModel has the fixed part 'system' only; this model has {', '.join(fit.beta_names)}"
        )
    effects = {}
    for factor, psi in fit.random_effects.items():
        columns = tuple(fit.random_columns.get(factor, ()))
        if columns not in (("(Intercept)",), ("(Intercept)", *expected)):
            raise ModelSpecError(
                f"the random term of {factor} has columns {', '.join(columns)}; an OrdinalModel takes "
                "(1 | g) or (1 + system | g)"
            )
        effects[factor] = np.asarray(psi, dtype=float)
    return OrdinalModel(
        system_names=tuple(systems),
        coefficients=np.r_[0.0, fit.beta],
        thresholds=np.asarray(fit.thresholds, dtype=float),
        random_effects=effects,
        link=fit.link,
        description=f"CLMM {fit.formula} fitted with the {fit.engine} engine to {fit.nobs} ratings",
    )
