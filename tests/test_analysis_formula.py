"""``humaneval analyze --formula`` and the analysis layer on any formula (issue 16), plus degenerate fits
(issue 21). Reference numbers: tests/data/clmm_formulas_reference.json (tests/r/clmm_formulas.R)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import analyze, fit_clmm
from humaneval.cli import main
from humaneval.clmm.structures import structure_formula
from humaneval.errors import FitFailedError, OptionError
from humaneval.io.datasets import wine, wine_ratings

DATA = Path(__file__).parent / "data"
WINE = DATA / "wine.csv"
REFERENCE = json.loads((DATA / "clmm_formulas_reference.json").read_text())["fits"]


def _run(*args: str):
    return CliRunner().invoke(main, ["analyze", *map(str, args)])


def test_cli_fits_a_plain_csv_by_formula():
    result = _run(WINE, "--formula", "rating ~ temp + contact + (1|judge)", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"file", "criteria"} and len(document["criteria"]) == 1
    part = document["criteria"][0]
    assert part["engine"] == "native" and part["formula"] == "rating ~ temp + contact + (1 | judge)"
    assert part["diagnostics"]["loglik"] == pytest.approx(-81.5654, abs=2e-3)
    beta = {row["term"]: row["estimate"] for row in part["fixed_effects"]}
    assert beta == {
        "tempwarm": pytest.approx(3.0630, abs=2e-3),
        "contactyes": pytest.approx(1.8349, abs=2e-3),
    }
    # the first factor of the fixed part is compared: temp, with its odds ratio
    [contrast] = part["contrasts"]
    assert (contrast["system_a"], contrast["system_b"]) == ("cold", "warm")
    assert contrast["odds_ratio"] == pytest.approx(np.exp(-3.0630), rel=3e-3)
    assert {e["mode"] for e in part["emmeans"]} == {"latent", "expected", "mean.class"}


@pytest.mark.parametrize(
    ("formula", "name"),
    [
        ("rating ~ temp * contact + (1|judge)", "wine_interaction"),
        ("rating ~ temp + contact + (1 + temp|judge)", "wine_slope"),
    ],
)
def test_cli_interaction_and_slope_forms(formula, name):
    result = _run(WINE, "--formula", formula, "--json")
    assert result.exit_code == 0, result.output
    part = json.loads(result.stdout)["criteria"][0]
    assert part["diagnostics"]["loglik"] == pytest.approx(REFERENCE[name]["loglik"], abs=2e-3)
    for row in part["fixed_effects"]:
        assert row["estimate"] == pytest.approx(REFERENCE[name]["beta"][row["term"]], abs=2e-3)


def test_cli_emmeans_by_and_compare_text():
    result = _run(
        WINE,
        "--formula",
        "rating ~ temp * contact + (1|judge)",
        "--emmeans",
        "temp",
        "--by",
        "contact",
        "--compare",
        "rating ~ contact + (1|judge)",
    )
    assert result.exit_code == 0, result.output
    assert "cold - warm | contact=no" in result.output
    assert "likelihood-ratio test vs rating ~ contact + (1 | judge): χ²(2) = 34.52" in result.output
    assert "2.049" in result.output  # mean.class of cold/no, as R emmeans (2.0491)


def test_bad_formula_input_is_one_line_exit_2():
    result = _run(WINE, "--formula", "rating ~ colour + (1|judge)")
    assert result.exit_code == 2
    assert "'colour' of the formula is not in the data" in result.output
    assert "Traceback" not in result.output
    result = _run(WINE, "--formula", "rating ~ temp + (1|judge)", "--emmeans", "judge")
    assert result.exit_code == 2 and "not a factor of the fixed part" in result.output


def test_shortcuts_expand_to_formulas():
    assert (
        structure_formula("maximal") == "score ~ system + (1 + system | annotator) + (1 + system | document)"
    )
    assert (
        structure_formula("uncorrelated") == "score ~ system + (system || annotator) + (system || document)"
    )
    assert structure_formula("intercepts", nested=True) == "score ~ system + (1 | annotator)"


def test_formula_intercepts_equal_the_named_structure(likert_path):
    """The same model through the formula path and the structure path: identical fits."""
    from humaneval.core.ratings import load_ratings

    table = load_ratings(likert_path)
    named = fit_clmm(table, structure="intercepts")
    formula = fit_clmm(table, formula=structure_formula("intercepts"))
    assert formula.loglik == pytest.approx(named.loglik, abs=1e-6)
    assert formula.loglik == pytest.approx(-2577.45, abs=0.05)
    by_name = dict(zip(formula.beta_names, formula.beta, strict=True))
    np.testing.assert_allclose([by_name[f"system{s}"] for s in named.systems[1:]], named.beta, atol=1e-4)
    analysis = analyze(table, formula=structure_formula("intercepts"))
    labels = dict(zip(analysis.systems["system"], analysis.systems["label"], strict=True))
    assert labels["BART"] == "5.25 (1)" and labels["seneca"] == "3.52 (5)"


# ------------------------------------------------------------------ degenerate fits (issue 21)


def test_three_row_file_is_a_failed_fit_with_a_reason(tmp_path):
    path = tmp_path / "three.csv"
    path.write_text("annotator,document,system,score\na1,d1,s1,1\na1,d1,s2,5\na2,d2,s1,3\n")
    result = _run(path, "--structure", "intercepts")
    assert result.exit_code == 2
    assert "degenerate fit (separation or non-identifiable): systems2" in result.output


def test_constant_annotators_are_a_failed_fit_not_converged(tmp_path):
    rows = [
        {"annotator": f"a{a}", "document": f"d{d}", "system": s, "score": (2, 3, 5, 6)[a]}
        for a in range(4)
        for d in range(6)
        for s in "ABC"
    ]
    frame = pd.DataFrame(rows)
    with pytest.raises(FitFailedError, match="variance above 400 for annotator"):
        fit_clmm(frame, formula="score ~ system + (1|annotator)")
    with pytest.raises(FitFailedError, match="degenerate"):
        fit_clmm(frame, structure="intercepts")


def test_unknown_engine_is_rejected():
    with pytest.raises(OptionError, match="native, r or both"):
        fit_clmm(pd.read_csv(WINE), engine="julia", formula="rating ~ temp + (1|judge)")


@pytest.mark.r
def test_engine_both_reports_the_largest_differences():
    result = _run(WINE, "--formula", "rating ~ temp + contact + (temp||judge)", "--engine", "both", "--json")
    assert result.exit_code == 0, result.output
    part = json.loads(result.stdout)["criteria"][0]
    comparison = part["engine_comparison"]
    assert comparison["engines"] == ["native", "r"]
    assert comparison["loglik"] < 2e-3 and comparison["beta"] < 2e-3 and comparison["p"] < 1e-3
    assert comparison["loglik_values"][1] == pytest.approx(REFERENCE["wine_uncorrelated"]["loglik"], abs=1e-6)


@pytest.mark.r
def test_r_engine_fits_the_formula_with_its_names():
    fit = fit_clmm(pd.read_csv(WINE), engine="r", formula="rating ~ temp * contact + (1|judge/temp)")
    assert fit.engine == "r" and fit.beta_names == ("tempwarm", "contactyes", "tempwarm:contactyes")
    assert set(fit.random_effects) == {"judge", "judge:temp"}


@pytest.mark.r
def test_engine_both_on_a_named_model(likert_path):
    from humaneval.core.ratings import load_ratings

    fit = fit_clmm(load_ratings(likert_path), engine="both", structure="intercepts")
    comparison = fit.engine_comparison
    assert fit.engine == "native" and comparison["engines"] == ["native", "r"]
    assert comparison["loglik"] < 1e-3 and comparison["beta"] < 1e-3
    assert comparison["loglik_values"][1] == pytest.approx(-2577.45, abs=0.05)


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


WINE_FORMULA = "rating ~ temp + contact + (1|judge)"


def test_fit_clmm_takes_a_reference_level_per_factor():
    fit = fit_clmm(wine(), formula=WINE_FORMULA, reference={"temp": "warm"})
    effects = fit.fixed_effects().set_index("term")["estimate"]
    assert effects["tempcold"] == pytest.approx(-3.0630, abs=2e-3)  # R: tempwarm 3.0630


def test_analyze_takes_a_reference_level_per_factor_and_the_cli_factor_equals_level(tmp_path):
    result = analyze(wine(), formula=WINE_FORMULA, reference={"temp": "warm"}, emm="temp")
    assert result.fit.reference is None and "tempcold" in result.fit.terms
    path = tmp_path / "wine.csv"
    wine().to_csv(path, index=False)
    out = _cli("analyze", str(path), "--formula", WINE_FORMULA, "--reference", "temp=warm", "--json")
    assert out.exit_code == 0, out.output
    terms = [r["term"] for r in json.loads(out.stdout)["criteria"][0]["fixed_effects"]]
    assert terms == ["tempcold", "contactyes"]


def test_a_factor_reference_without_a_formula_is_refused():
    with pytest.raises(OptionError, match="reference level for temp needs a formula"):
        fit_clmm(wine_ratings(), reference={"temp": "warm"})
