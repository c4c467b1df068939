"""Estimated marginal means under a CLMM with fixed scale effects (annotators who use the scale differently).

With scale effects a grid point r has its own spread exp(w_rᵀζ), so the EMMs of
:mod:`humaneval.clmm.emmeans` change as R's ``emmeans`` changes them for ``ordinal::clm(..., scale = ~w)``:

- the reference grid also crosses the factors that only the scale formula names (``annotator`` in
  ``scale = ~annotator``), numeric scale covariates at their means;
- ``prob``, ``mean.class`` and ``expected`` average over the grid the probabilities
  F((θ_k − η_r) / exp(w_rᵀζ)), each grid point with its own spread;
- ``latent`` is (x̄ᵀβ − mean(θ)) · exp(−w̄ᵀζ), w̄ the mean scale row of the whole grid: the linear
  predictor in units of the spread of the grid's geometric-mean annotator rather than of the
  arbitrary reference annotator. Pairwise contrasts are differences of these EMMs, so their estimate
  and z do not depend on which annotator is the reference. emmeans' ``pairs()`` instead leaves the
  difference x̄ᵀΔβ unscaled (its scale columns cancel in a contrast row), i.e. in units of the
  reference annotator's spread.

A random log-scale enters at its median (s_a = 0), as the location's random effects enter at 0.
Standard errors: the delta method on the covariance of (τ, β, ζ). Checked against emmeans on the
wine data (tests/r/scale_emmeans.R).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from humaneval.clmm.links import cdf

if TYPE_CHECKING:
    from humaneval.clmm.result import FitResult


def has_fixed_scale(fit: FitResult) -> bool:
    """Whether ``fit`` has fixed scale effects ζ (which move the EMMs)."""
    return fit.scale is not None and len(fit.scale.names) > 0


def scale_grid(fit: FitResult, grid: pd.DataFrame, weights: np.ndarray) -> tuple[pd.DataFrame, np.ndarray]:
    """The reference grid crossed with the factors only the scale formula names, and the EMM weights
    spread evenly over the new points (numeric scale-only covariates at their means)."""
    from humaneval.clmm.formula import _variables, parse_scale

    spec = fit.spec
    assert spec is not None and spec.scale is not None
    fixed, _ = parse_scale(spec.scale.formula)
    extra = [c for c in _variables(fixed, spec.frame) if c not in grid.columns] if fixed else []
    factors = [c for c in extra if c in spec.factors]
    levels = [spec.factors[f] for f in factors]
    cross = list(itertools.product(*levels)) or [()]
    rows = grid.loc[grid.index.repeat(len(cross))].reset_index(drop=True)
    for k, col in enumerate(factors):
        rows[col] = [combo[k] for combo in cross] * len(grid)
    for col in extra:
        if col not in factors:
            rows[col] = float(spec.frame[col].mean())
    return rows, np.repeat(weights, len(cross), axis=1) / len(cross)


def scale_design(fit: FitResult, grid: pd.DataFrame) -> np.ndarray:
    """The fixed scale rows w (in the order of ζ) of the grid points."""
    from humaneval.clmm.formula import encode_factors, r_name

    spec = fit.spec
    assert spec is not None and spec.scale is not None and spec.scale.fixed_spec is not None
    mm = spec.scale.fixed_spec.get_model_matrix(encode_factors(grid, spec.factors))
    names = [r_name(c, spec.factors) for c in mm.columns]
    values = np.asarray(mm, dtype=float)
    return np.column_stack([values[:, names.index(n)] for n in spec.scale.names])


def scale_params(fit: FitResult) -> tuple[np.ndarray, np.ndarray]:
    """(τ, β, ζ) as one vector and its covariance."""
    assert fit.scale is not None and fit.scale.vcov is not None and fit.tau is not None
    return np.r_[fit.tau, fit.beta, fit.scale.zeta], np.asarray(fit.scale.vcov, dtype=float)


def scale_mode_values(
    params: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    weights: np.ndarray,
    jac: np.ndarray,
    link: str,
    mode: str,
    values: np.ndarray | None = None,
) -> np.ndarray:
    """The EMMs (one per row of ``weights``) of ``mode`` at (τ, β, ζ) (module docstring)."""
    n_tau, n_beta = jac.shape[1], x.shape[1]
    theta = jac @ params[:n_tau]
    eta = x @ params[n_tau : n_tau + n_beta] if n_beta else np.zeros(x.shape[0])
    log_spread = w @ params[n_tau + n_beta :]
    if mode == "latent":
        return (weights @ eta - float(np.mean(theta))) * np.exp(-float(np.mean(log_spread)))
    cum = cdf((np.r_[-np.inf, theta, np.inf][None, :] - eta[:, None]) / np.exp(log_spread)[:, None], link)
    probs = np.diff(cum, axis=1)
    if mode == "mean.class":
        return weights @ (probs @ np.arange(1, probs.shape[1] + 1))
    if mode == "expected":
        assert values is not None
        return weights @ (probs @ values)
    return (weights @ probs).ravel()
