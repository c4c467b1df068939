"""Estimated marginal means, their pairwise contrasts and likelihood-ratio tests of a fitted CLMM.

What R's ``emmeans`` computes for ``ordinal::clmm`` fits (Lenth, emmeans package; the ``ordinal``
support of emmeans), from the fixed effects alone (random effects at 0):

- The *reference grid* crosses every factor of the fixed part at all its levels with every numeric
  covariate at its mean. The EMM of a factor level (within a level of the ``by`` factors) is the
  equally weighted average over the other factors' levels.
- ``latent``: x̄ᵀβ − mean(θ), the linear predictor on the latent scale (higher = later categories).
- ``mean.class``: the expected class number Σ_k k·P(Y = k) (k = 1..K), averaged over the grid. It is a
  class *index*, not a score: on a 1–5 scale where only 3, 4 and 5 were used, class 1 is the score 3.
- ``expected``: the expected score Σ_k v_k·P(Y = k) over the response values v_k the model knows (the
  observed scores), averaged over the grid: ``mean.class`` mapped back to the scale of the ratings.
- ``prob``: P(Y = k) per category, averaged over the grid.
- With fixed scale effects every grid point has its own spread (:mod:`humaneval.clmm.scale_emmeans`).

Standard errors by the delta method on vcov(τ, β) (numerical gradients for the non-linear modes);
confidence intervals are Wald intervals (``asymp.LCL``/``asymp.UCL`` in emmeans). Pairwise
contrasts of latent EMMs carry the Tukey/Holm/Bonferroni/none adjustments of
:mod:`humaneval.clmm.contrasts` and, for the logit link, odds ratios exp(estimate) with their
intervals. :func:`lr_test` compares nested fits (2 Δ logLik against χ² with Δ parameters) and
:func:`wald_omnibus` tests all coefficients of one factor at once.

References
----------
Lenth, R. V. emmeans: Estimated Marginal Means, aka Least-Squares Means. R package.
Christensen, R. H. B. ordinal: Regression Models for Ordinal Data. R package.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypedDict

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.clmm.contrasts import adjust_pvalues, check_adjust, critical_value, tukey_p
from humaneval.clmm.links import cdf
from humaneval.clmm.scale_emmeans import (
    has_fixed_scale,
    scale_design,
    scale_grid,
    scale_mode_values,
    scale_params,
)
from humaneval.core.deprecation import renamed
from humaneval.core.docstrings import shared_docs
from humaneval.errors import ModelSpecError, OptionError

if TYPE_CHECKING:  # result.py imports predict.py and, through it, this module
    from humaneval.clmm.result import FitResult

MODES = ("latent", "expected", "mean.class", "prob")
_STEP = 1e-6


def _fixed_columns(fit: FitResult) -> tuple[list[str], list[str]]:
    """Factor columns and numeric covariates of the fixed part."""
    spec = fit.spec
    if spec is None or spec.fixed_spec is None:
        return (["system"] if fit.systems else []), []
    from humaneval.clmm.formula import _variables, parse_formula

    fixed = parse_formula(spec.formula.split(", nAGQ")[0]).fixed
    used = _variables(fixed, spec.frame)
    factors = [c for c in used if c in spec.factors]
    return factors, [c for c in used if c not in spec.factors]


def reference_grid(fit: FitResult) -> pd.DataFrame:
    """Every combination of the fixed part's factor levels, numeric covariates at their means."""
    factors, numeric = _fixed_columns(fit)
    if fit.spec is None or fit.spec.fixed_spec is None:
        return pd.DataFrame({"system": list(fit.systems)})
    levels = [fit.spec.factors[f] for f in factors]
    grid = (
        pd.DataFrame(list(itertools.product(*levels)), columns=factors)
        if factors
        else pd.DataFrame(index=[0])
    )
    for col in numeric:
        grid[col] = float(fit.spec.frame[col].mean())
    return grid


def grid_design(fit: FitResult, grid: pd.DataFrame) -> np.ndarray:
    """The fixed-effect rows (without intercept, in the order of β) of the grid points."""
    if fit.spec is None or fit.spec.fixed_spec is None:
        codes = np.array([list(fit.systems).index(s) for s in grid["system"]])
        return (codes[:, None] == np.arange(1, len(fit.systems))[None, :]).astype(float)
    from humaneval.clmm.formula import encode_factors, r_name

    encoded = encode_factors(grid, fit.spec.factors)
    mm = fit.spec.fixed_spec.get_model_matrix(encoded)
    names = [r_name(c, fit.spec.factors) for c in mm.columns]
    values = np.asarray(mm, dtype=float)
    return (
        np.column_stack([values[:, names.index(n)] for n in fit.beta_names])
        if fit.beta_names
        else values[:, :0]
    )


def _params(fit: FitResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(τ, β) as one vector, its covariance and the threshold Jacobian J (θ = J τ)."""
    tau = fit.tau if fit.tau is not None else np.asarray(fit.thresholds, dtype=float)
    jac = fit.spec.jacobian if fit.spec is not None else np.eye(len(fit.thresholds))
    if fit.vcov_theta_beta is None:
        raise ModelSpecError("this fit carries no covariance of thresholds and β; refit with this version")
    return np.r_[tau, fit.beta], np.asarray(fit.vcov_theta_beta, dtype=float), jac


def _probabilities(theta: np.ndarray, eta: np.ndarray, link: str) -> np.ndarray:
    """P(Y = k | η) for each row of η (n × K)."""
    cum = cdf(np.r_[-np.inf, theta, np.inf][None, :] - eta[:, None], link)
    return np.diff(cum, axis=1)


def _mode_values(
    params: np.ndarray,
    x: np.ndarray,
    weights: np.ndarray,
    jac: np.ndarray,
    link: str,
    mode: str,
    values: np.ndarray | None = None,
) -> np.ndarray:
    """The EMMs (one per row of ``weights``) of ``mode`` at parameters (τ, β); ``values`` are the
    response values of the categories (mode ``expected``)."""
    n_tau = jac.shape[1]
    theta = jac @ params[:n_tau]
    eta = x @ params[n_tau:] if x.shape[1] else np.zeros(x.shape[0])
    if mode == "latent":
        return weights @ eta - float(np.mean(theta))
    probs = _probabilities(theta, eta, link)
    if mode == "mean.class":
        return weights @ (probs @ np.arange(1, probs.shape[1] + 1))
    if mode == "expected":
        return weights @ (probs @ values)
    return (weights @ probs).ravel()  # prob: emm-major, category-minor


def _delta(
    params: np.ndarray, vcov: np.ndarray, func: Callable[[np.ndarray], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Values of ``func`` and their covariance by the delta method (central differences)."""
    value = func(params)
    grad = np.empty((value.size, params.size))
    for j in range(params.size):
        e = np.zeros(params.size)
        e[j] = _STEP * max(1.0, abs(params[j]))
        grad[:, j] = (func(params + e) - func(params - e)) / (2 * e[j])
    return value, grad @ vcov @ grad.T


def _cells(
    fit: FitResult, factor: str | Sequence[str], by: str | Sequence[str] | None
) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray, list[str], list[str]]:
    specs = [factor] if isinstance(factor, str) else list(factor)
    by_cols = [] if by is None else ([by] if isinstance(by, str) else list(by))
    factors, _ = _fixed_columns(fit)
    for col in specs + by_cols:
        if col not in factors:
            choices = ", ".join(factors) or "none"
            raise ModelSpecError(f"{col!r} is not a factor of the fixed part; factors are {choices}")
    grid = reference_grid(fit)
    keys = grid[by_cols + specs].astype(str).agg("\x1f".join, axis=1)
    levels = [list(dict.fromkeys(grid[c])) for c in by_cols + specs]
    cells = pd.DataFrame(list(itertools.product(*levels)), columns=by_cols + specs)
    weights = np.zeros((len(cells), len(grid)))
    cell_keys = cells.astype(str).agg("\x1f".join, axis=1)
    for i, key in enumerate(cell_keys):
        members = np.flatnonzero(keys.to_numpy() == key)
        weights[i, members] = 1.0 / members.size
    return cells[specs + by_cols], grid, weights, by_cols, specs


@renamed(level="confidence_level")
def emmeans(
    fit: FitResult,
    factor: str | Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
    mode: str = "latent",
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """Estimated marginal means of ``factor`` (within each level of ``by``) on the ``mode`` scale.

    Parameters
    ----------
    fit : FitResult
        A CLMM fit (formula fits included).
    factor : str or sequence of str
        The factor(s) whose levels get a marginal mean; other factors are averaged over with
        equal weights, numeric covariates held at their means (emmeans' reference grid).
    by : str or sequence of str, optional
        Factors within each of whose levels the means are computed.
    mode : {"latent", "expected", "mean.class", "prob"}
        The scale: the linear predictor, the expected score (on the response's own values), the
        expected class index (1..K over the K categories used, R's ``mean.class``), or
        per-category probabilities.
    confidence_level : float
        Of the Wald intervals.

    Returns
    -------
    DataFrame
        One row per level (``prob``: per level and category) with ``emmean``, ``se``, ``ci_low``,
        ``ci_high`` (Wald, ``confidence_level``) and the factor / by / category columns.

    Raises
    ------
    OptionError
        An unknown ``mode``.
    ModelSpecError
        ``factor`` or ``by`` is not a factor of the model.

    References
    ----------
    Lenth, R. V. emmeans: Estimated Marginal Means, aka Least-Squares Means (R package).

    Examples
    --------
    The expected bitterness of cold and warm wines, as R's ``emmeans(m, ~ temp, mode =
    "mean.class")`` prints it (2.34 and 3.48):

    >>> from humaneval.analysis import fit_formula
    >>> from humaneval.io.datasets import wine
    >>> fit = fit_formula(wine(), "rating ~ temp + contact + (1 | judge)")
    >>> emmeans(fit, "temp", mode="mean.class").round(3)
       temp  emmean     se  ci_low  ci_high
    0  cold    2.34  0.167   2.013    2.667
    1  warm    3.48  0.202   3.084    3.876
    """
    return _emmeans_and_cov(fit, factor, by, mode, confidence_level)[0]


def _emmeans_and_cov(
    fit: FitResult,
    factor: str | Sequence[str],
    by: str | Sequence[str] | None,
    mode: str,
    confidence_level: float,
) -> tuple[pd.DataFrame, np.ndarray]:
    """The EMM table of :func:`emmeans` and the covariance matrix of its ``emmean`` column."""
    if mode not in MODES:
        raise OptionError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    values = None
    if mode == "expected":
        try:
            values = np.asarray(fit.levels, dtype=float)
        except (TypeError, ValueError):
            raise ModelSpecError(
                "the expected score needs numeric response values; this response has text categories "
                "(use mode 'mean.class' or 'prob')"
            ) from None
    cells, grid, weights, _, _ = _cells(fit, factor, by)
    params, vcov, jac = _params(fit)
    if has_fixed_scale(fit):  # each grid point with its own spread (clmm.scale_emmeans)
        grid, weights = scale_grid(fit, grid, weights)
        params, vcov = scale_params(fit)
        x, w = grid_design(fit, grid), scale_design(fit, grid)
        value, cov = _delta(
            params, vcov, lambda p: scale_mode_values(p, x, w, weights, jac, fit.link, mode, values)
        )
    else:
        x = grid_design(fit, grid)
        value, cov = _delta(params, vcov, lambda p: _mode_values(p, x, weights, jac, fit.link, mode, values))
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    z = stats.norm.ppf(0.5 + confidence_level / 2)
    if mode == "prob":
        k = len(fit.levels)
        cells = cells.loc[cells.index.repeat(k)].reset_index(drop=True)
        cells["category"] = [str(v) if isinstance(v, str) else f"{v:g}" for v in fit.levels] * (
            len(cells) // k
        )
    out = cells.copy()
    out["emmean"] = value
    out["se"] = se
    out["ci_low"] = value - z * se
    out["ci_high"] = value + z * se
    return out, cov


@renamed(level="confidence_level")
@shared_docs
def emm_contrasts(
    fit: FitResult,
    factor: str,
    *,
    by: str | Sequence[str] | None = None,
    adjust: str = "tukey",
    confidence_level: float = 0.95,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """All pairwise contrasts ``a − b`` of the latent EMMs of ``factor`` (within each ``by`` level).

    Columns: the by columns, ``level_a``, ``level_b``, ``estimate``, ``se``, ``z``, ``p_unadj``,
    ``p_adj``, ``adjust``, ``ci_low``, ``ci_high`` and, for the logit link, ``odds_ratio`` with
    ``or_low``/``or_high`` (exp of the estimate and its interval). The family of the adjustment is
    each ``by`` group, as in ``pairs(emmeans(m, ~ factor | by))``.

    Parameters
    ----------
    fit : FitResult
        A CLMM fit.
    factor : str
        The factor whose levels are compared.
    by : str or sequence of str, optional
        Compare within each level of these factors.
    adjust : {"tukey", "holm", "bonferroni", "none"}
        Multiple-comparison adjustment within each ``by`` group.
    confidence_level : float
        Of the (adjusted) intervals.
    alpha : float
        %(alpha)s

    Returns
    -------
    DataFrame
        One row per pair of levels, columns as above plus ``better``.

    Raises
    ------
    OptionError
        An unknown adjustment.

    References
    ----------
    Lenth, R. V. emmeans: Estimated Marginal Means, aka Least-Squares Means (R package).

    Examples
    --------
    >>> from humaneval.analysis import fit_formula
    >>> from humaneval.io.datasets import wine
    >>> fit = fit_formula(wine(), "rating ~ temp * contact + (1 | judge)")
    >>> table = emm_contrasts(fit, "temp", by="contact")
    >>> table[["contact", "level_a", "level_b", "estimate"]].round(3)
      contact level_a level_b  estimate
    0      no    cold    warm    -2.947
    1     yes    cold    warm    -3.178
    >>> table["better"].tolist()
    ['warm', 'warm']
    """
    check_adjust(adjust)
    emm, cov = _emmeans_and_cov(fit, factor, by, "latent", confidence_level)
    by_cols = [] if by is None else ([by] if isinstance(by, str) else list(by))
    groups = emm.groupby(by_cols, sort=False).indices if by_cols else {(): np.arange(len(emm))}
    rows = []
    for key, idx in groups.items():
        idx = np.asarray(idx)
        pairs = list(itertools.combinations(idx, 2))
        if not pairs:
            continue
        i, j = (np.array(v) for v in zip(*pairs, strict=True))
        est = emm["emmean"].to_numpy()[i] - emm["emmean"].to_numpy()[j]
        var = cov[i, i] + cov[j, j] - 2 * cov[i, j]
        se = np.sqrt(np.where(var > 0, var, np.nan))
        z = est / se
        p = 2 * stats.norm.sf(np.abs(z))
        p_adj = tukey_p(z, idx.size) if adjust == "tukey" else adjust_pvalues(p, adjust)
        half = critical_value(adjust, idx.size, len(pairs), confidence_level) * se
        key = key if isinstance(key, tuple) else (key,)
        for n in range(len(pairs)):
            row = dict(zip(by_cols, key, strict=True))
            row.update(
                level_a=emm[factor].iloc[i[n]],
                level_b=emm[factor].iloc[j[n]],
                estimate=est[n],
                se=se[n],
                z=z[n],
                p_unadj=p[n],
                p_adj=p_adj[n],
                adjust=adjust,
                ci_low=est[n] - half[n],
                ci_high=est[n] + half[n],
            )
            if fit.link == "logit":
                row.update(
                    odds_ratio=np.exp(est[n]),
                    or_low=np.exp(est[n] - half[n]),
                    or_high=np.exp(est[n] + half[n]),
                )
            row["better"] = (row["level_a"] if est[n] > 0 else row["level_b"]) if p_adj[n] < alpha else None
            rows.append(row)
    out = pd.DataFrame(rows)
    if "better" in out:
        out["better"] = pd.Series([b if isinstance(b, str) else None for b in out["better"]], dtype=object)
    return out


class LRTest(TypedDict):
    """What :func:`lr_test` returns."""

    restricted: str
    full: str
    statistic: float
    df: int
    p: float
    aic_restricted: float
    aic_full: float
    bic_restricted: float
    bic_full: float


class WaldTest(TypedDict):
    """What :func:`wald_omnibus` returns."""

    factor: str
    statistic: float
    df: int
    p: float


def lr_test(restricted: FitResult, full: FitResult) -> LRTest:
    """Likelihood-ratio test of a nested ``restricted`` model against ``full``.

    Parameters
    ----------
    restricted, full : FitResult
        Fits of nested models to the same rows; ``full`` has more parameters.

    Returns
    -------
    dict
        ``statistic`` = 2 (logLik_full − logLik_restricted), ``df`` (difference in the number of
        parameters), ``p`` (χ² upper tail), both formulas and both models' AIC and BIC, as R's
        ``anova(m0, m1)``.

    Raises
    ------
    ModelSpecError
        The fits used different rows, or ``full`` does not have more parameters.

    Examples
    --------
    Skin contact matters for the bitterness of wine:

    >>> from humaneval.analysis import fit_formula
    >>> from humaneval.io.datasets import wine
    >>> full = fit_formula(wine(), "rating ~ temp + contact + (1 | judge)")
    >>> restricted = fit_formula(wine(), "rating ~ temp + (1 | judge)")
    >>> test = lr_test(restricted, full)
    >>> round(test["statistic"], 3), test["df"], round(test["aic_full"], 2)
    (14.347, 1, 177.13)
    """
    if restricted.nobs != full.nobs:
        raise ModelSpecError(
            f"the models were fitted to different rows ({restricted.nobs} vs {full.nobs}); "
            "a likelihood-ratio test needs the same data"
        )
    k0, k1 = _n_params(restricted), _n_params(full)
    df = k1 - k0
    if df <= 0:
        raise ModelSpecError(
            f"the compared model has {k0} parameters and the fitted one {k1}; give the smaller (nested) "
            "model to --compare"
        )
    statistic = max(0.0, 2.0 * (full.loglik - restricted.loglik))
    return {
        "restricted": restricted.formula,
        "full": full.formula,
        "statistic": statistic,
        "df": int(df),
        "p": float(stats.chi2.sf(statistic, df)),
        "aic_restricted": restricted.aic,
        "aic_full": full.aic,
        "bic_restricted": restricted.bic,
        "bic_full": full.bic,
    }


def _n_params(fit: FitResult) -> int:
    if fit.n_params:
        return int(fit.n_params)
    return round((fit.aic + 2.0 * fit.loglik) / 2.0)


def wald_omnibus(fit: FitResult, factor: str) -> WaldTest:
    """Wald χ² test that every coefficient of ``factor`` (main effect and interactions) is 0.

    Parameters
    ----------
    fit : FitResult
        A CLMM fit.
    factor : str
        A fixed-effect factor or covariate of the model.

    Returns
    -------
    dict
        ``factor``, ``statistic`` (β' V⁻¹ β over the factor's coefficients), ``df`` and ``p``.

    Raises
    ------
    ModelSpecError
        The model has no coefficient of ``factor``.

    Examples
    --------
    >>> from humaneval.analysis import fit_formula
    >>> from humaneval.io.datasets import wine
    >>> fit = fit_formula(wine(), "rating ~ temp + contact + (1 | judge)")
    >>> test = wald_omnibus(fit, "contact")
    >>> round(test["statistic"], 3), test["df"], round(test["p"], 5)
    (12.815, 1, 0.00034)
    """
    prefix = factor
    idx = [k for k, name in enumerate(fit.terms) if any(part.startswith(prefix) for part in name.split(":"))]
    if not idx:
        raise ModelSpecError(f"the model has no coefficient of {factor!r}; terms are {', '.join(fit.terms)}")
    beta = fit.beta[idx]
    cov = fit.vcov[np.ix_(idx, idx)]
    statistic = float(beta @ np.linalg.solve(cov, beta))
    return {
        "factor": factor,
        "statistic": statistic,
        "df": len(idx),
        "p": float(stats.chi2.sf(statistic, len(idx))),
    }
