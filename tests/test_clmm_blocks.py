"""The compiled dense-block path (humaneval.clmm.blocks) gives the general path's numbers.

Evaluated at the same parameters (ℓ_LA, every gradient component and the modes) and fitted end to
end on wine's crossed, correlated and three-term models (ordinal::clmm's numbers in
tests/data/clmm_formulas_reference.json, made by tests/r/clmm_formulas.R) and on the shared Likert
study (intercepts, and maximal: its optimum is singular, estimates there to 1e-6). As for the
scalar path (tests/test_clmm_scalar.py), SEs are compared to 1e-8 against the general path with
its modes solved to 1e-13, and to rel 1e-4 at its default tolerance; logLik and estimates to 1e-8
against both.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humaneval.clmm.laplace as laplace
from humaneval.clmm import blocks, clmm_spec
from humaneval.clmm.blocks import BlockLaplaceProblem
from humaneval.clmm.design import random_design
from humaneval.clmm.fit import _likelihood
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.sparse import SparseLaplaceProblem
from tests.conftest import shared_file
from tests.test_clmm_scalar import assert_same_fit, fits, flags
from tests.test_clmm_sparse import stored_spec

pytest.importorskip("numba")

DATA = Path(__file__).parent / "data"
REFERENCE = json.loads((DATA / "clmm_formulas_reference.json").read_text())["fits"]
WINE = {
    "wine_crossed": "rating ~ temp + contact + (1|judge) + (1|bottle)",
    "wine_slope": "rating ~ temp + contact + (1 + temp|judge)",
    "wine_three": "rating ~ temp + contact + (1|judge) + (1|bottle) + (1|judge:temp)",
}


@pytest.fixture(scope="module")
def wine() -> pd.DataFrame:
    return pd.read_csv(DATA / "wine.csv")


def test_dispatch(wine, monkeypatch):
    monkeypatch.delenv("HUMANEVAL_FASTPATH", raising=False)
    monkeypatch.setenv("HUMANEVAL_FUSED", "1")
    spec = clmm_spec(WINE["wine_crossed"], wine)
    assert type(_likelihood(spec, "logit", 1).problem) is BlockLaplaceProblem
    assert type(_likelihood(spec, "probit", 1).problem) is LaplaceProblem  # the kernel is logit only
    assert type(_likelihood(stored_spec("mixed_bt_design", 4), "logit", 1).problem) is SparseLaplaceProblem
    monkeypatch.setattr(blocks, "MAX_DIM", 16)  # wine's one block holds 9 judges + 8 bottles
    assert type(_likelihood(spec, "logit", 1).problem) is LaplaceProblem
    monkeypatch.setattr(blocks, "MAX_DIM", 64)
    monkeypatch.setenv("HUMANEVAL_FUSED", "0")
    assert type(_likelihood(spec, "logit", 1).problem) is LaplaceProblem
    monkeypatch.setenv("HUMANEVAL_FUSED", "1")
    monkeypatch.setenv("HUMANEVAL_FASTPATH", "0")
    assert type(_likelihood(spec, "logit", 1).problem) is LaplaceProblem


def split(wine: pd.DataFrame) -> pd.DataFrame:
    """Wine as two studies: judges 1–3 on bottles 1–4 and judges 4–9 on bottles 5–8 (two blocks of
    different sizes, hence two buckets)."""
    first = (wine["judge"] <= 3) & (wine["bottle"] <= 4)
    return wine[first | ((wine["judge"] > 3) & (wine["bottle"] > 4))]


@pytest.mark.parametrize(
    ("frame", "formula"),
    [
        *(("wine", f) for f in WINE.values()),
        ("wine", "rating ~ temp + contact + (1 + contact|judge) + (1|bottle)"),
        ("split", "rating ~ temp + contact + (1|judge) + (1|bottle)"),
        ("split", "rating ~ temp + contact + (1 + temp|judge) + (1|bottle)"),
    ],
)
def test_likelihood_gradient_and_modes_equal_the_general_path(wine, monkeypatch, frame, formula):
    monkeypatch.setattr(laplace, "NEWTON_TOL", 1e-13)
    spec = clmm_spec(formula, split(wine) if frame == "split" else wine)
    design = random_design(spec.terms)
    assert len(design.buckets) == (2 if frame == "split" else 1)
    n_thr = len(spec.levels) - 1
    fast = BlockLaplaceProblem(spec.y, spec.x, design, "logit", n_thr)
    general = LaplaceProblem(spec.y, spec.x, design, "logit", n_thr)
    rng = np.random.default_rng(1)
    for _ in range(3):
        theta = np.sort(rng.normal(0, 2, n_thr))
        beta = rng.normal(0, 1, spec.x.shape[1])
        factors = tuple(np.tril(rng.normal(0, 1, (t.size, t.size))) for t in design.terms)
        one, two = (p.evaluate(theta, beta, factors) for p in (fast, general))
        assert one.loglik == pytest.approx(two.loglik, abs=1e-10)
        np.testing.assert_allclose(one.grad_theta, two.grad_theta, atol=1e-9)
        np.testing.assert_allclose(one.grad_beta, two.grad_beta, atol=1e-9)
        for a, b in zip(one.grad_factors, two.grad_factors, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-9)
        for a, b in zip(fast.modes, general.modes, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-10)
    assert fast.evaluate(np.array([0.0, -1.0, 1.0, 2.0]), beta, factors).loglik == -np.inf


def test_split_design_fit_equals_the_general_path(wine, monkeypatch):
    spec = clmm_spec("rating ~ temp + contact + (1|judge) + (1|bottle)", split(wine))
    assert_same_fit(*fits(monkeypatch, spec, "logit", "numba"))


@pytest.mark.parametrize("name", list(WINE))
def test_wine_fits_equal_the_general_path_and_r(wine, monkeypatch, name):
    spec = clmm_spec(WINE[name], wine)
    fast, general, tight = fits(monkeypatch, spec, "logit", "numba")
    assert_same_fit(fast, general, tight)
    ref = REFERENCE[name]
    assert fast.loglik == pytest.approx(ref["loglik"], abs=2e-5)
    for beta_name, value in zip(fast.beta_names, fast.beta, strict=True):
        assert value == pytest.approx(ref["beta"][beta_name], abs=1e-4)


@pytest.mark.parametrize(
    "formula",
    [
        "score ~ system + (1|annotator) + (1|document)",
        "score ~ system + (1 + system|annotator) + (1 + system|document)",
    ],
)
def test_shared_likert_fits_equal_the_general_path(monkeypatch, formula):
    frame = pd.read_csv(shared_file("steen2021", "likert_coherence_cnn_dm.csv")).astype({"annotator": str})
    spec = clmm_spec(formula, frame)
    monkeypatch.setenv("HUMANEVAL_FUSED", "1")
    use_blocks = _likelihood(spec, "logit", 1).problem
    assert type(use_blocks) is BlockLaplaceProblem
    fast, general, tight = fits(monkeypatch, spec, "logit", "numba")
    # the maximal optimum is singular (flat directions): rounding-level differences move L-BFGS-B's
    # path, and the end points agree to its tolerance (as for the fused terms, tests/test_clmm_fused.py)
    assert_same_fit(fast, general, tight, estimates=1e-8 if "(1|" in formula else 1e-6)


def test_hostile_designs_get_the_general_paths_flags(wine, monkeypatch):
    """A fixed-effect level whose ratings all fall in the top category, and a single judge."""
    extreme = wine.assign(rating=np.where(wine["temp"] == "warm", 5, wine["rating"]))
    one_judge = wine.assign(judge=1)
    for frame in (extreme, one_judge):
        spec = clmm_spec(WINE["wine_crossed"], frame)
        fast, general, _ = fits(monkeypatch, spec, "logit", "numba")
        assert fast.diagnostics.failed == general.diagnostics.failed
        assert flags(fast.diagnostics.reasons) == flags(general.diagnostics.reasons)
        assert flags(fast.diagnostics.warnings) == flags(general.diagnostics.warnings)
        assert fast.loglik == pytest.approx(general.loglik, abs=1e-8)
