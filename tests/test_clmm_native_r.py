"""Native CLMM engine against live R ``ordinal::clmm`` (issue 8 validation): intercept models on the
reference data and on simulated studies of several shapes. Tolerances of the issue: thresholds and
β within 0.005 of R, SEs within 2 %. (Maximal fits take minutes in R: they are compared with the
stored R numbers in test_clmm_native.py instead.)"""

from __future__ import annotations

import numpy as np
import pytest

from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm import fit_native
from humaneval.core.ratings import load_ratings
from tests.test_clmm_native import _simulated

pytestmark = pytest.mark.r


def _compare(data, structure: str = "intercepts", link: str = "logit") -> None:
    from humaneval.analysis.rbridge import fit_r

    ref = fit_r(data, structure, link)
    fit = fit_native(data, structure, link)
    assert fit.systems == ref.systems
    np.testing.assert_allclose(fit.thresholds, ref.thresholds, atol=0.005)
    np.testing.assert_allclose(fit.beta, ref.beta, atol=0.005)
    np.testing.assert_allclose(fit.se, ref.se, rtol=0.02)
    assert fit.loglik >= ref.loglik - 0.01
    for factor, psi in ref.random_effects.items():
        np.testing.assert_allclose(fit.random_effects[factor], psi, atol=0.01)
    assert not fit.diagnostics.failed
    decisions = fit.contrasts("tukey")["p_adj"] < 0.05
    assert decisions.tolist() == (ref.contrasts("tukey")["p_adj"] < 0.05).tolist()


def test_rank_coherence_intercepts_match_live_r(rank_path):
    _compare(prepare_clmm_data(load_ratings(rank_path)))


@pytest.mark.parametrize(
    ("shape", "blocks", "docs", "annotators", "drop"),
    [
        ("nested", 30, 4, 1, 0.0),
        ("fully crossed", 1, 30, 4, 0.0),
        ("crossed in blocks", 6, 5, 3, 0.0),
        ("unbalanced, missing cells", 6, 5, 3, 0.25),
    ],
)
def test_simulated_intercepts_match_live_r(shape, blocks, docs, annotators, drop):
    data = _simulated(blocks, docs, annotators, seed=blocks * 100 + docs, drop=drop)
    assert data.nested == (shape == "nested")
    _compare(data)


def test_simulated_probit_intercepts_match_live_r():
    _compare(_simulated(4, 5, 3, seed=7), link="probit")


def test_adaptive_quadrature_matches_live_r_nagq():
    from humaneval.analysis.rbridge import r_available

    assert r_available()  # first: it starts R without leaving R's folders in LD_LIBRARY_PATH
    import rpy2.robjects as ro
    from rpy2.robjects.vectors import IntVector, StrVector

    fit_r_agq = ro.r(
        """function(y, K, s, S, g, n) {
        d <- data.frame(y = factor(y, levels = 0:(K - 1), ordered = TRUE),
                        system = factor(S[s + 1], levels = S), g = factor(g))
        m <- ordinal::clmm(y ~ system + (1 | g), data = d, nAGQ = n)
        list(loglik = as.numeric(logLik(m)), beta = unname(m$beta), alpha = unname(m$alpha),
             se = unname(sqrt(diag(vcov(m)))[names(m$beta)]), sd = m$ST[[1]][1, 1])
        }"""
    )
    data = _simulated(30, 4, 1, seed=3)
    ref = fit_r_agq(
        IntVector(data.y.tolist()),
        len(data.levels),
        IntVector(data.system.tolist()),
        StrVector(list(data.systems)),
        IntVector(data.groups["annotator"].tolist()),
        10,
    )
    fit = fit_native(data, "intercepts", n_agq=10)
    assert fit.loglik == pytest.approx(ref.rx2("loglik")[0], abs=1e-3)
    np.testing.assert_allclose(fit.thresholds, np.asarray(ref.rx2("alpha")), atol=0.005)
    np.testing.assert_allclose(fit.beta, np.asarray(ref.rx2("beta")), atol=0.005)
    np.testing.assert_allclose(fit.se, np.asarray(ref.rx2("se")), rtol=0.02)
    assert np.sqrt(fit.random_effects["annotator"][0, 0]) == pytest.approx(ref.rx2("sd")[0], abs=0.005)
