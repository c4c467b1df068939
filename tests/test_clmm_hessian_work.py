"""Work the native fit skips around its Hessian changes no number (issue 34, goal 4).

A repeated evaluation at the same point is served from the last call, and the mode's third-order
terms reuse its second-order pass over the observations (issue 40); both must give exactly what the
full computation gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm import fit as native
from humaneval.clmm import laplace, links
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


def test_third_order_terms_from_the_last_pass_change_nothing(maximal, monkeypatch):
    likelihood, x = maximal
    problem = likelihood.problem
    problem.evaluate(*_point(likelihood, x))
    start = problem.state()
    column = x.copy()
    column[5] += 1e-5  # a Hessian column: one β moved by the step
    orders: list[int] = []
    terms = problem._terms

    def counted(theta_ext, y, eta, order=2):
        orders.append(order)
        return terms(theta_ext, y, eta, order)

    values = {}
    with monkeypatch.context() as patch:
        patch.setattr(problem, "_terms", counted)
        problem.restore(start)
        values["reused"] = problem.evaluate(*_point(likelihood, column))
        passes = len(orders)
        patch.setattr(laplace, "third_order", _afresh)
        problem.restore(start)
        values["afresh"] = problem.evaluate(*_point(likelihood, column))
    assert orders[:passes] == [2] * passes  # every pass over the observations is of the second order
    assert values["reused"].loglik == values["afresh"].loglik
    np.testing.assert_array_equal(values["reused"].grad_theta, values["afresh"].grad_theta)
    np.testing.assert_array_equal(values["reused"].grad_beta, values["afresh"].grad_beta)
    for a, b in zip(values["reused"].grad_factors, values["afresh"].grad_factors, strict=True):
        np.testing.assert_array_equal(a, b)


def _afresh(theta_ext, y, eta, link, terms):
    """The third-order terms computed again from η, as before issue 40."""
    return links.obs_terms(theta_ext, y, eta, link, order=3)
