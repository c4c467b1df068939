"""The R engine against the spec §5.7 reference fits and against emmeans itself (marker ``r``)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from click.testing import CliRunner

from humaneval.analysis import fit_clmm
from humaneval.cli import main
from humaneval.core.ratings import load_ratings
from humaneval.core.structure import cluster_labels
from tests.conftest import shared_file

pytestmark = pytest.mark.r

ORDER = ["abssentrw", "BART", "onmt_pg", "seneca"]


@pytest.fixture(scope="module")
def likert():
    return load_ratings(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))


def _by_name(fit, values) -> np.ndarray:
    """Values per non-reference system, in the spec's order abssentrw, BART, onmt_pg, seneca."""
    index = {name: i for i, name in enumerate(fit.systems[1:])}
    return np.asarray(values)[[index[name] for name in ORDER]]


@pytest.fixture(scope="module")
def intercepts(likert):
    """The intercept-only fit (~8 s) and emmeans' own contrast tables for it."""
    from humaneval.analysis.rbridge import emmeans_contrasts

    fit = fit_clmm(likert, engine="r", structure="intercepts")
    return fit, emmeans_contrasts("tukey"), emmeans_contrasts("none")


def test_intercepts_fit_matches_spec_5_7(intercepts):
    fit, _, _ = intercepts
    assert fit.engine == "r" and fit.structure == "intercepts" and not fit.fallbacks
    assert fit.systems == ("__REFERENCE__", "BART", "abssentrw", "onmt_pg", "seneca")
    np.testing.assert_allclose(
        fit.thresholds, [-3.56767, -1.97128, -0.97748, 0.06741, 1.12752, 2.46917], atol=1e-3
    )
    np.testing.assert_allclose(_by_name(fit, fit.beta), [-0.2268, 1.1858, 0.6246, -1.0316], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.se), [0.147, 0.150, 0.147, 0.148], atol=2e-3)
    assert fit.loglik == pytest.approx(-2577.45, abs=0.05)
    assert fit.random_effects["document"][0, 0] == pytest.approx(0.0155, abs=1e-3)
    assert fit.random_effects["annotator"][0, 0] == pytest.approx(1.2343, abs=1e-3)
    assert fit.diagnostics.code == 0 and not fit.diagnostics.failed and fit.nobs == 1500
    assert fit.aic == pytest.approx(-2 * fit.loglik + 2 * 12)  # 6 thresholds + 4 β + 2 variances
    table = fit.contrasts()
    bart_pg = table[(table["system_a"] == "BART") & (table["system_b"] == "onmt_pg")].iloc[0]
    assert bart_pg["p_adj"] == pytest.approx(0.0014, abs=1e-4)
    # emmeans' latent marginal mean of the reference is minus the mean threshold (spec §5.4)
    assert fit.emmeans()["__REFERENCE__"] == pytest.approx(0.475, abs=1e-3)


def test_python_contrasts_reproduce_emmeans(intercepts):
    fit, em_tukey, em_none = intercepts
    for adjust, em in (("tukey", em_tukey), ("none", em_none)):
        ours = fit.contrasts(adjust=adjust)
        assert list(em["contrast"]) == [
            f"{a} - {b}" for a, b in zip(ours["system_a"], ours["system_b"], strict=True)
        ]
        np.testing.assert_allclose(ours["estimate"], em["estimate"], rtol=1e-8)
        np.testing.assert_allclose(ours["se"], em["SE"], rtol=1e-6)
        np.testing.assert_allclose(ours["z"], em["z.ratio"], rtol=1e-6)
        np.testing.assert_allclose(ours["p_adj"], em["p.value"], atol=2e-6)
        np.testing.assert_allclose(ours["ci_low"], em["asymp.LCL"], atol=1e-4)
        np.testing.assert_allclose(ours["ci_high"], em["asymp.UCL"], atol=1e-4)


def test_cli_reports_the_fit(intercepts, likert, monkeypatch):
    from humaneval.analysis import ordinal as analyze_module

    monkeypatch.setattr(analyze_module, "fit_clmm", lambda *a, **k: intercepts[0])
    path = str(shared_file("steen2021", "likert_coherence_cnn_dm.csv"))
    result = CliRunner().invoke(main, ["analyze", path, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)["criteria"][0]
    for key in ("engine", "structure", "fallbacks", "fixed_effects", "thresholds", "random_effects"):
        assert key in payload
    assert payload["engine"] == "r" and payload["structure"] == "intercepts"
    contrast = payload["contrasts"][0]
    assert set(contrast) >= {
        "system_a",
        "system_b",
        "estimate",
        "se",
        "z",
        "p_unadj",
        "p_adj",
        "ci_low",
        "ci_high",
    }
    labels = {g["system"]: g["label"] for g in payload["groups"]}
    assert labels["BART"] == "5.25 (1)" and labels["seneca"] == "3.52 (5)"
    assert payload["diagnostics"]["loglik"] == pytest.approx(-2577.45, abs=0.05)
    text = CliRunner().invoke(main, ["analyze", path]).output
    assert "BART - onmt_pg" in text and "5.25 (1)" in text


#: Live R fits of minutes, kept out of the suite: tests/test_clmm_native.py asserts the same stored R numbers
#: against the native engine; ``HUMANEVAL_LIVE_R_SLOW=1`` refits them in R.
LIVE_R_SLOW = pytest.mark.skipif(
    not os.environ.get("HUMANEVAL_LIVE_R_SLOW"),
    reason="a live R fit of minutes, kept out of the suite: tests/test_clmm_native.py asserts its stored "
    "R numbers; set HUMANEVAL_LIVE_R_SLOW=1 to refit in R",
)


@pytest.mark.slow
@LIVE_R_SLOW
def test_uncorrelated_fit_matches_spec_and_is_singular_not_failed(likert):
    """Spec §5.7 lower rung (30 s idle, 90 s on a busy machine): two annotator slope variances at 0
    are a boundary warning."""
    with pytest.warns(UserWarning, match="singular"):
        fit = fit_clmm(likert, engine="r", structure="uncorrelated")
    assert fit.structure == "uncorrelated" and not fit.fallbacks
    assert fit.loglik == pytest.approx(-2560.63, abs=0.05)
    np.testing.assert_allclose(_by_name(fit, fit.beta), [-0.2556, 1.2880, 0.6666, -1.1457], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.se), [0.183, 0.171, 0.154, 0.197], atol=2e-3)
    psi = fit.random_effects["annotator"]
    assert psi.shape == (5, 5) and np.count_nonzero(psi - np.diag(np.diag(psi))) == 0
    assert np.sum(np.diag(psi)[1:] < 1e-6) == 2
    assert fit.diagnostics.singular and not fit.diagnostics.failed
    table = fit.contrasts()
    bart_pg = table[(table["system_a"] == "BART") & (table["system_b"] == "onmt_pg")].iloc[0]
    assert bart_pg["p_adj"] == pytest.approx(0.0027, abs=1e-4)


def test_nested_designs_drop_the_document_terms(likert):
    cl = cluster_labels(likert)
    first = likert.data["annotator"].astype(str).groupby(cl.to_numpy()).transform("min")
    nested = likert.with_data(likert.data[likert.data["annotator"] == first])
    fit = fit_clmm(nested, engine="r", structure="intercepts")
    assert fit.formula == "y ~ system + (1|annotator)"
    assert set(fit.random_effects) == {"annotator"} and fit.nobs == 500


@pytest.mark.slow
@LIVE_R_SLOW
def test_maximal_fit_reproduces_the_published_model(likert):
    """Checklist #11 (~5 min): the §5.7 maximal crossed fit and its Tukey table."""
    reference = json.loads(shared_file("steen2021", "model_logit_likert_cnndm_coherence.json").read_text())
    fit = fit_clmm(likert, engine="r")
    assert fit.structure == "maximal" and not fit.fallbacks and not fit.diagnostics.failed
    np.testing.assert_allclose(fit.thresholds, reference["thresholds"], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.beta), reference["coefficients"][1:], atol=1e-3)
    np.testing.assert_allclose(_by_name(fit, fit.se), [0.2048, 0.2065, 0.1892, 0.2247], atol=2e-3)
    assert fit.loglik == pytest.approx(-2544.19, abs=0.05)
    assert fit.aic == pytest.approx(5168.38, abs=0.1)
    assert fit.random_effects["annotator"].shape == (5, 5) and fit.diagnostics.singular
    table = fit.contrasts()
    not_significant = table[table["p_adj"] >= 0.05]
    assert len(not_significant) == 1
    assert set(not_significant[["system_a", "system_b"]].iloc[0]) == {"__REFERENCE__", "abssentrw"}
    model = fit.to_model()
    assert model.system_names[0] == "__REFERENCE__"


def test_starting_r_leaves_subprocesses_a_working_python():
    # rpy2 prepends R's library folders to LD_LIBRARY_PATH; children then failed to import ssl
    import os
    import subprocess
    import sys

    from humaneval.analysis.rbridge import r_available

    before = os.environ.get("LD_LIBRARY_PATH")
    assert r_available()
    assert os.environ.get("LD_LIBRARY_PATH") == before
    child = subprocess.run([sys.executable, "-c", "import ssl"], capture_output=True, text=True)
    assert child.returncode == 0, child.stderr
