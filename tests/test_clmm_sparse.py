"""The sparse Laplace path (humaneval.clmm.sparse) gives the general path's numbers.

Both are evaluated at the same parameters (ℓ_LA and every gradient component) and fitted end to
end on the designs whose ordinal::clmm numbers are stored (tests/r/mixed_bt.R, mixed_bt_ties.R),
and evaluated on the mixed-effects Bradley–Terry design of the shared Steen & Markert rankings.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humaneval.clmm.fit as clmm_fit
from humaneval.clmm import fit_spec
from humaneval.clmm.design import random_design
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.sparse import SparseLaplaceProblem, laplace_problem, sparse_applies
from humaneval.clmm.spec import ClmmSpec, RandomEffect
from humaneval.comparative import build_judgements, mixed_design
from humaneval.comparative.mixed import mixed_spec

DATA = Path(__file__).parent / "data"


def stored_spec(name: str, systems: int) -> ClmmSpec:
    d = pd.read_csv(DATA / f"{name}.csv")
    zs = [f"z{k}" for k in range(systems)]
    xs = [f"x{k}" for k in range(systems - 1)]
    term = RandomEffect("annotator", d["annotator"].to_numpy(), d[zs].to_numpy(), tuple(zs), (1,) * systems)
    return ClmmSpec.from_matrices(d["y"].to_numpy(), d[xs].to_numpy(), [term], beta_names=xs)


def steen_spec(rank_path) -> ClmmSpec:
    ranks = pd.read_csv(rank_path)
    pairs = ranks.merge(ranks, on=["annotator", "document"], suffixes=("", "_o"))
    pairs = pairs[pairs["system"] != pairs["system_o"]]
    table = pd.DataFrame(
        {
            "annotator": pairs["annotator"].astype(str),
            "document": pairs["document"],
            "system": pairs["system"],
            "opponent": pairs["system_o"],
            "score": (pairs["rank"] < pairs["rank_o"]).astype(float),
        }
    )
    judgements = build_judgements(table)
    return mixed_spec(mixed_design(judgements), judgements.systems)


def both_at(spec: ClmmSpec, seed: int):
    design = random_design(spec.terms)
    rng = np.random.default_rng(seed)
    n_thr = len(spec.levels) - 1
    theta = np.sort(rng.normal(0, 0.5, n_thr))
    beta = rng.normal(0, 0.5, spec.x.shape[1])
    factors = tuple(np.diag(rng.uniform(0.2, 1.5, t.size)) for t in design.terms)
    values = []
    for cls in (LaplaceProblem, SparseLaplaceProblem):
        problem = cls(spec.y, spec.x, design, "logit", n_thr)
        values.append(problem.evaluate(theta, beta, factors))
    return values


@pytest.mark.parametrize(("name", "systems"), [("mixed_bt_design", 4), ("mixed_bt_ties_design", 3)])
def test_sparse_and_general_laplace_agree_at_any_parameters(name, systems):
    spec = stored_spec(name, systems)
    for seed in range(3):
        general, sparse = both_at(spec, seed)
        assert sparse.loglik == pytest.approx(general.loglik, abs=1e-9)
        np.testing.assert_allclose(sparse.grad_theta, general.grad_theta, atol=1e-8)
        np.testing.assert_allclose(sparse.grad_beta, general.grad_beta, atol=1e-8)
        for s, g in zip(sparse.grad_factors, general.grad_factors, strict=True):
            np.testing.assert_allclose(np.diag(s), np.diag(g), atol=1e-8)  # L is diagonal


def test_sparse_path_on_the_shared_rankings_with_annotator_and_document_terms(rank_path):
    spec = steen_spec(rank_path)
    assert sparse_applies(random_design(spec.terms))
    general, sparse = both_at(spec, seed=7)
    assert sparse.loglik == pytest.approx(general.loglik, rel=1e-12)
    np.testing.assert_allclose(sparse.grad_beta, general.grad_beta, rtol=1e-9, atol=1e-8)
    for s, g in zip(sparse.grad_factors, general.grad_factors, strict=True):
        np.testing.assert_allclose(np.diag(s), np.diag(g), rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize(("name", "systems"), [("mixed_bt_design", 4), ("mixed_bt_ties_design", 3)])
def test_sparse_and_general_fits_agree_on_the_stored_r_designs(name, systems, monkeypatch):
    spec = stored_spec(name, systems)
    fits = {}
    for cls in (LaplaceProblem, SparseLaplaceProblem):
        monkeypatch.setattr(clmm_fit, "laplace_problem", cls)
        fits[cls] = fit_spec(spec)
    general, sparse = fits[LaplaceProblem], fits[SparseLaplaceProblem]
    assert not sparse.diagnostics.failed
    assert sparse.loglik == pytest.approx(general.loglik, abs=1e-8)
    # the same optimum; near it the likelihood is flat to 1e-8, so the two paths' optimisers stop within
    # their gradient tolerance of each other (β 6e-7 apart with this machine's SciPy and BLAS)
    np.testing.assert_allclose(sparse.beta, general.beta, atol=1e-5)
    np.testing.assert_allclose(sparse.thresholds, general.thresholds, atol=1e-5)
    np.testing.assert_allclose(sparse.vcov, general.vcov, atol=1e-5)
    np.testing.assert_allclose(
        np.diag(sparse.random_effects["annotator"]), np.diag(general.random_effects["annotator"]), atol=1e-5
    )


def test_the_general_path_serves_dense_or_correlated_terms():
    spec = stored_spec("mixed_bt_design", 4)
    design = random_design(spec.terms)
    assert type(laplace_problem(spec.y, spec.x, design, "logit", 1)) is SparseLaplaceProblem
    unstructured = RandomEffect("annotator", spec.terms[0].codes, spec.terms[0].z, spec.terms[0].columns)
    design = random_design((unstructured,))
    assert type(laplace_problem(spec.y, spec.x, design, "logit", 1)) is LaplaceProblem
