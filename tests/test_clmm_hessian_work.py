"""Work the native fit skips around its Hessian changes no number (issue 34, goal 4).

A repeated evaluation at the same point is served from the last call, and a chord step's trial point
gets its third-order terms at once; both must give exactly what the full computation gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm import fit as native
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.clmm.structures import structure_spec
from humaneval.design.blocks import block_design


@pytest.fixture(scope="module")
def maximal():
    """The likelihood of a maximal model on a small simulated study (one bucket) and its start point."""
    model = default_model()
    data = prepare_clmm_data(sample_ratings(model, block_design(4, 5, 3, model.system_names, seed=3), seed=3))
    spec = structure_spec(data, "maximal")
    with pytest.MonkeyPatch.context() as patch:  # the general path's internals (not the compiled blocks)
        patch.setenv("HUMANEVAL_FASTPATH", "0")
        likelihood = native._likelihood(spec, "logit", 1)
    x = native._start_vector(spec, likelihood.layout, "logit", None)
    return likelihood, x


def _point(likelihood, x):
    tau, beta, factors = likelihood.layout.split(x)
    return likelihood.jac @ tau, beta, factors


def test_a_repeated_point_returns_what_evaluating_it_again_returns(maximal):
    likelihood, x = maximal
    likelihood.last.clear()
    first = likelihood.loglik_and_grad(x)
    modes = [u.copy() for u in likelihood.problem.modes]
    elsewhere = x.copy()
    elsewhere[-1] += 0.05
    likelihood.problem.evaluate(*_point(likelihood, elsewhere))  # a direct call moves the modes
    assert not np.array_equal(likelihood.problem.modes[0], modes[0])
    again = likelihood.loglik_and_grad(x)  # served from the last call, modes put back
    for u, v in zip(likelihood.problem.modes, modes, strict=True):
        np.testing.assert_array_equal(u, v)
    likelihood.last.clear()
    computed = likelihood.loglik_and_grad(x)  # evaluated afresh from those modes
    assert again[0] == first[0] == computed[0]
    np.testing.assert_array_equal(again[1], first[1])
    np.testing.assert_array_equal(computed[1], first[1])


def test_third_order_terms_at_the_chord_trial_point_change_nothing(maximal):
    likelihood, x = maximal
    problem = likelihood.problem
    problem.evaluate(*_point(likelihood, x))
    start = problem.state()
    column = x.copy()
    column[5] += 1e-5  # a Hessian column: one β moved by the step
    orders: dict[int, list[int]] = {2: [], 3: []}
    terms = problem._terms

    def counted(theta_ext, y, eta, order=2):
        orders[problem.trial_order].append(order)
        return terms(theta_ext, y, eta, order)

    problem._terms = counted
    try:
        values = {}
        for trial in (2, 3):
            problem.restore(start)
            problem.trial_order = trial
            values[trial] = problem.evaluate(*_point(likelihood, column))
    finally:
        problem.trial_order = 2
        del problem._terms
    assert orders[2].count(2) == orders[3].count(2) + 1  # one pass over the observations fewer
    assert orders[2].count(3) == orders[3].count(3) == 1
    assert values[2].loglik == values[3].loglik
    np.testing.assert_array_equal(values[2].grad_theta, values[3].grad_theta)
    np.testing.assert_array_equal(values[2].grad_beta, values[3].grad_beta)
    for a, b in zip(values[2].grad_factors, values[3].grad_factors, strict=True):
        np.testing.assert_array_equal(a, b)
