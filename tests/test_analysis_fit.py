"""CLMM data preparation, diagnostics rules, the fallback ladder and the result object (no R needed)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from humaneval.analysis import fit as fit_module
from humaneval.analysis.fit import fit_clmm, ladder
from humaneval.analysis.prepare import choose_reference, prepare_clmm_data, r_formula, random_terms
from humaneval.analysis.result import Diagnostics, FitResult, assess, is_singular
from humaneval.clmm.model import default_model
from humaneval.core.ratings import load_ratings
from humaneval.errors import ConvergenceWarning, FitFailedError, RatingsError
from tests.conftest import TABLE_3_2_LIKERT


def _table(response: str = "score") -> pd.DataFrame:
    rows = []
    for a in ("a1", "a2"):
        for d in ("d1", "d2", "d3"):
            for k, s in enumerate(("zeta", "Ref", "alpha")):
                value = (k + int(a[1]) + int(d[1])) % 3 if response == "rank" else 2 + k + (d == "d2")
                rows.append({"annotator": a, "document": d, "system": s, response: value})
    if response == "rank":  # make each (annotator, document) a permutation of 0..2
        frame = pd.DataFrame(rows)
        frame["rank"] = frame.groupby(["annotator", "document"])["rank"].rank(method="first").astype(int) - 1
        return frame
    return pd.DataFrame(rows)


def test_reference_rule_of_spec_5_1():
    assert choose_reference(["b", "REF", "a"]) == "REF"
    assert choose_reference(["b", "__REFERENCE__", "a"]) == "__REFERENCE__"
    assert choose_reference(["b", "c", "a"]) == "a"
    assert choose_reference(["b", "c"], "c") == "c"
    with pytest.raises(RatingsError, match="not in the data"):
        choose_reference(["b", "c"], "x")


def test_prepare_codes_scores_with_the_reference_first():
    data = prepare_clmm_data(load_ratings(_table()))
    assert data.systems == ("Ref", "alpha", "zeta")
    assert data.levels == (2.0, 3.0, 4.0, 5.0)
    frame = _table()
    np.testing.assert_array_equal(data.y, frame["score"].to_numpy() - 2)
    np.testing.assert_array_equal(
        data.system, frame["system"].map({"Ref": 0, "alpha": 1, "zeta": 2}).to_numpy()
    )
    assert data.dummies().shape == (18, 2) and data.slopes()[:, 0].sum() == 18
    assert data.family == "fully_crossed" and not data.nested


def test_prepare_negates_ranks_so_higher_is_better():
    frame = _table("rank")
    data = prepare_clmm_data(load_ratings(frame))
    assert data.levels == (-2.0, -1.0, 0.0)
    best = frame["rank"].to_numpy() == 0
    assert (data.y[best] == 2).all()


def test_prepare_selects_one_criterion_and_drops_checks():
    frame = pd.concat([_table().assign(criterion="coh"), _table().assign(criterion="flu")])
    frame["is_check"] = False
    frame.iloc[0, frame.columns.get_loc("is_check")] = True
    ratings = load_ratings(frame)
    with pytest.raises(RatingsError, match="2 criteria"):
        prepare_clmm_data(ratings)
    assert prepare_clmm_data(ratings, criterion="coh").nobs == 17
    assert prepare_clmm_data(ratings, criterion="flu").nobs == 18


def test_structures_and_r_formulas_of_spec_5_1():
    systems = ("ref", "b", "c")
    assert r_formula("maximal", False, systems) == "y ~ system + (system|annotator) + (system|document)"
    assert r_formula("nested", False, systems) == "y ~ system + (system|annotator)"
    assert r_formula("intercepts", False, systems) == "y ~ system + (1|annotator) + (1|document)"
    assert r_formula("uncorrelated", False, systems) == (
        "y ~ system + (1|annotator) + (0+d1|annotator) + (0+d2|annotator) + (1|document) + (0+d1|document)"
        " + (0+d2|document)"
    )
    # nested designs drop the document terms
    assert r_formula("intercepts", True, systems) == "y ~ system + (1|annotator)"
    assert [t.covariance for t in random_terms("uncorrelated")] == ["diagonal", "diagonal"]
    assert ladder("maximal") == ("maximal", "uncorrelated", "intercepts")
    assert ladder("nested") == ("nested", "uncorrelated", "intercepts")
    assert ladder("intercepts") == ("intercepts",)


def test_published_psi_matrices_singular_and_regular():
    model = default_model()
    assert is_singular(model.random_effects["annotator"])  # rank 3 (spec §1.3)
    assert not is_singular(model.random_effects["document"])  # smallest eigenvalue 2.9e-7
    assert is_singular(np.array([[1.0, 0.9995], [0.9995, 1.0]]))  # |corr| > 0.999
    assert is_singular(np.array([[0.0]]))


def _diag(**kw) -> Diagnostics:
    base = {
        "code": 0,
        "message": "ok",
        "max_grad": 2.2e-3,
        "cond_h": 2.6e2,
        "n_iter": 10,
        "fit_seconds": 1.0,
        "vcov": np.eye(2) * 0.04,
        "random_effects": {},
    }
    return assess(**{**base, **kw})


def test_failure_rules_of_spec_5_5():
    assert not _diag().failed and _diag().warnings == ()
    assert _diag(code=1).failed
    assert _diag(max_grad=0.02).failed
    warned = _diag(max_grad=0.007)
    assert not warned.failed and "max.grad" in warned.warnings[0]
    # issue 7: cond.H > 1e6 moves the ladder down; above 1e4 it is only a warning
    assert _diag(cond_h=2e6).failed and "not identifiable" in _diag(cond_h=2e6).reasons[0]
    assert not _diag(cond_h=2e4).failed and "cond.H" in _diag(cond_h=2e4).warnings[0]
    assert _diag(cond_h=np.inf).failed and not _diag(cond_h=np.nan).failed
    assert _diag(vcov=np.array([[np.nan, 0], [0, 1]])).failed
    assert _diag(vcov=np.array([[0.0, 0], [0, 1]])).failed
    singular = _diag(random_effects={"annotator": np.zeros((1, 1))})
    assert singular.singular and not singular.failed


def _fake_result(structure: str, failed: bool) -> FitResult:
    diagnostics = _diag(max_grad=0.5 if failed else 1e-4)
    return FitResult(
        engine="fake",
        structure=structure,
        link="logit",
        systems=("ref", "b", "c"),
        response="score",
        levels=(1.0, 2.0, 3.0),
        thresholds=np.array([-1.0, 1.0]),
        beta=np.array([0.5, -0.25]),
        vcov=np.array([[0.04, 0.01], [0.01, 0.09]]),
        random_effects={"annotator": np.array([[1.0]]), "document": np.array([[0.5]])},
        loglik=-10.0,
        aic=30.0,
        nobs=18,
        diagnostics=diagnostics,
    )


def test_ladder_moves_down_only_on_failure(monkeypatch):
    calls = []

    def fitter(data, structure, link):
        calls.append(structure)
        if structure == "maximal":
            raise FitFailedError("R clmm failed: boom")
        return _fake_result(structure, failed=structure == "uncorrelated")

    monkeypatch.setattr(fit_module, "resolve_engine", lambda engine: ("fake", fitter))
    with pytest.warns(ConvergenceWarning, match="simpler intercepts model"):
        result = fit_clmm(_table(), structure="maximal")
    assert calls == ["maximal", "uncorrelated", "intercepts"]
    assert result.structure == "intercepts"
    assert [a.structure for a in result.fallbacks] == ["maximal", "uncorrelated"]
    assert "boom" in result.fallbacks[0].reason and "max.grad" in result.fallbacks[1].reason
    frame = result.diagnostics_frame()
    assert frame["failed"].tolist() == [True, True, False] and np.isnan(frame["loglik"][0])
    with pytest.raises(FitFailedError, match="fallback=False"):
        fit_clmm(_table(), structure="maximal", fallback=False)


def test_result_frames_and_model_export():
    result = _fake_result("intercepts", failed=False)
    fixed = result.fixed_effects()
    assert fixed["z"].tolist() == pytest.approx([0.5 / 0.2, -0.25 / 0.3])
    assert result.thresholds_frame()["threshold"].tolist() == ["1|2", "2|3"]
    contrasts = result.contrasts(adjust="none")
    # b − c: 0.75 / sqrt(0.04 + 0.09 − 0.02)
    assert contrasts.loc[2, "z"] == pytest.approx(0.75 / np.sqrt(0.11))
    model = result.to_model()
    assert model.system_names == ("ref", "b", "c") and model.coefficients.tolist() == [0.0, 0.5, -0.25]
    assert result.emmeans()["ref"] == pytest.approx(0.0)
    assert result.to_dict()["diagnostics"]["failed"] is False
    diag = result.diagnostics_frame()
    assert diag[["structure", "failed", "loglik"]].values.tolist() == [["intercepts", False, -10.0]]


def test_import_without_r_and_clear_message():
    """Checklist #17: importing works without rpy2; the R engine raises BackendUnavailableError."""
    code = (
        "import sys; sys.modules['rpy2'] = None\n"
        "import humaneval.analysis as a\n"
        "from humaneval.analysis.rbridge import r_available\n"
        "from humaneval.errors import BackendUnavailableError\n"
        "assert not r_available()\n"
        "import pandas as pd\n"
        "df = pd.DataFrame({'annotator': ['a']*4, 'document': ['d1','d1','d2','d2'],"
        " 'system': ['x','y']*2, 'score': [1,2,2,3]})\n"
        "try:\n    a.fit_clmm(df, engine='r')\nexcept BackendUnavailableError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "apt-get install r-base-core r-cran-ordinal r-cran-emmeans" in out.stdout
    assert 'pip install "humaneval[r]"' in out.stdout


def test_native_engine_dispatch_and_cli(likert_path):
    """engine="native" goes to humaneval.clmm; the intercepts fit matches the spec §5.7 R numbers."""
    from click.testing import CliRunner

    from humaneval.cli import main

    result = CliRunner().invoke(
        main, ["analyze", str(likert_path), "--engine", "native", "--structure", "intercepts", "--json"]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"file", "criteria"} and len(document["criteria"]) == 1
    payload = document["criteria"][0]
    assert payload["engine"] == "native" and payload["structure"] == "intercepts"
    beta = {row["system"]: row["estimate"] for row in payload["fixed_effects"]}
    assert [beta[s] for s in ("abssentrw", "BART", "onmt_pg", "seneca")] == pytest.approx(
        [-0.2268, 1.1858, 0.6246, -1.0316], abs=1e-3
    )
    assert payload["diagnostics"]["loglik"] == pytest.approx(-2577.45, abs=0.05)
    labels = {g["system"]: g["label"] for g in payload["groups"]}
    assert labels == TABLE_3_2_LIKERT


def test_cli_classic_test_warns_about_dependent_units(likert_path):
    from click.testing import CliRunner

    from humaneval.cli import main

    result = CliRunner().invoke(main, ["analyze", str(likert_path), "--test", "ttest"])
    assert result.exit_code == 0
    assert "share annotators or documents" in result.stderr
    clustered = CliRunner().invoke(
        main, ["analyze", str(likert_path), "--test", "ttest", "--aggregate", "cluster"]
    )
    assert "share annotators" not in clustered.stderr
    assert "BART - onmt_pg" in clustered.stdout
