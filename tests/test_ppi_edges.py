"""Prediction-powered inference at its edges: λ's cap in the budget planner, a singular ordinal fit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from humaneval.ppi.budget import ppi_budget
from humaneval.ppi.mean import ppi_mean
from humaneval.ppi.ordinal import ppi_ordinal
from humaneval.ppi.simulate import judged_study


def realised_width(sd, rho, sd_f, n, big_n, trials=300, seed=5) -> float:
    """Mean width of ppi_mean's 95% interval over simulated studies with the plan's n and N."""
    rng = np.random.default_rng(seed)
    cov = [[sd**2, rho * sd * sd_f], [rho * sd * sd_f, sd_f**2]]
    widths = []
    for _ in range(trials):
        draw = rng.multivariate_normal([0.0, 0.0], cov, size=n + big_n)
        if big_n == 0:
            widths.append(2 * 1.959964 * draw[:, 0].std(ddof=0) / np.sqrt(n))
            continue
        est = ppi_mean(draw[:n, 0], draw[:n, 1], draw[n:, 1])
        widths.append(est.ci_high - est.ci_low)
    return float(np.mean(widths))


@pytest.mark.parametrize("judge_sd", [0.03, 0.3, 1.0, 3.0])
def test_a_budget_plan_reaches_its_width_whatever_the_judge_scale(judge_sd):
    plan = ppi_budget(
        1.0, 0.8, human_cost=1.0, judge_cost=0.01, target_width=0.4, trials=200, judge_sd=judge_sd
    )
    width = realised_width(1.0, 0.8, judge_sd, plan.n, plan.big_n)
    assert width == pytest.approx(0.4, rel=0.05)
    assert plan.human_only_cost == plan.human_only_n * 1.0  # humans alone pay no judge scores
    free = ppi_budget(1.0, 0.8, human_cost=1.0, judge_cost=0.01, target_width=0.4, trials=20)
    # λ ≤ 1 binds below ρσ: a compressed judge needs more human units than the λ-free formula says
    assert plan.n > free.n if judge_sd < 0.8 else plan.n == free.n


def test_the_capped_plan_matches_the_variance_at_lambda_one():
    # judge SD 0.03 < ρσ: V(n, N) = σ_f²/N + (σ² − 2ρσσ_f + σ_f²)/n must be ≤ (W / 2z)² at the plan
    plan = ppi_budget(1.0, 0.8, human_cost=1.0, judge_cost=0.01, target_width=0.4, trials=50, judge_sd=0.03)
    variance = 0.03**2 / plan.big_n + (1 - 2 * 0.8 * 0.03 + 0.03**2) / plan.n
    assert variance <= (0.4 / (2 * 1.959963984540054)) ** 2
    smaller = 0.03**2 / plan.big_n + (1 - 2 * 0.8 * 0.03 + 0.03**2) / (plan.n - 1)
    assert smaller > (0.4 / (2 * 1.959963984540054)) ** 2  # and one human unit less would not do


def singular_study():
    """20 documents × 3 systems in which the λ = 1 tuning fit is singular (found by search)."""
    human, judge = judged_study(n_documents=20, n_systems=3, human_share=0.5, judge_noise=0.5, seed=18)
    return human, judge.assign(score=judge["score"].round().clip(1, 5).astype(int))


def test_ordinal_ppi_falls_back_when_the_tuning_fit_is_singular():
    human, judge = singular_study()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ppi_ordinal(human, judge)
    assert result.lam == 0.0
    assert any("singular" in c for c in result.cautions) and "Caution: the λ = 1 fit" in result.summary()
    # λ = 0 is the human-only estimate: the same contrasts
    np.testing.assert_allclose(result.contrasts["estimate"], result.human_contrasts["estimate"], atol=1e-8)
    assert np.isfinite(result.contrasts["se"]).all()
