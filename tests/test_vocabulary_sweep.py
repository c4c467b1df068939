"""The vocabulary of docs/vocabulary.md in the comparative, simulation and meta-evaluation modules:
old keyword and option names keep working with one deprecation warning, both at once is one-line
error, and the comparative JSON contrasts are the rows of the contrast frame."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from humaneval.cli import main
from humaneval.comparative import analyze_comparative, bws_scores
from humaneval.comparative.simulate import simulate_bws_study, simulate_pairwise_study
from humaneval.errors import DesignError, OptionError
from humaneval.metaeval import bootstrap, fisher_ci
from humaneval.simulate import simulate
from humaneval.stats.kernels import art_pvalues


@pytest.fixture(scope="module")
def pairwise_table() -> pd.DataFrame:
    return simulate_pairwise_study([0.6, 0.0, -0.6], seed=3)


# ------------------------------------------------------------------ comparative


def test_analyze_comparative_old_names_warn_and_give_the_same_contrasts(pairwise_table):
    new = analyze_comparative(
        pairwise_table, inference="two-way", n_resamples=200, confidence_level=0.9, adjust="none", seed=5
    )
    with pytest.warns(DeprecationWarning) as caught:
        old = analyze_comparative(
            pairwise_table, inference="two-way", n_boot=200, level=0.9, adjust="none", seed=5
        )
    assert sorted(str(w.message) for w in caught) == [
        "analyze_comparative(): level= is deprecated and will be removed in humaneval 0.2; "
        "use confidence_level=",
        "analyze_comparative(): n_boot= is deprecated and will be removed in humaneval 0.2; use n_resamples=",
    ]
    pd.testing.assert_frame_equal(old.contrasts, new.contrasts)
    assert new.fit.n_resamples == 600  # 200 per one-way part of the two-way scheme
    # unadjusted 90 % interval: estimate ± t_{0.95}(df) · se, computed here independently
    c = new.contrasts
    half = stats.t.ppf(0.95, c["df"]) * c["se"]
    np.testing.assert_allclose(c["ci_high"] - c["estimate"], half, rtol=1e-10)
    with pytest.warns(DeprecationWarning, match=r"ComparativeFit\.n_boot is deprecated"):
        assert new.fit.n_boot == 600


def test_analyze_comparative_both_names_is_an_option_error(pairwise_table):
    with pytest.raises(OptionError) as error:
        analyze_comparative(pairwise_table, n_boot=100, n_resamples=100)
    assert str(error.value) == (
        "analyze_comparative() got both n_boot= and n_resamples=; use n_resamples= only "
        "(n_boot= is deprecated)"
    )


def test_comparative_json_contrasts_are_the_frame_rows(pairwise_table):
    result = analyze_comparative(pairwise_table, inference="two-way", n_resamples=200, seed=5)
    payload = json.loads(json.dumps(result.to_dict()))
    frame = result.contrasts
    assert [list(row) for row in payload["contrasts"]] == [list(frame.columns)] * len(frame)
    for row, (_, expected) in zip(payload["contrasts"], frame.iterrows(), strict=True):
        assert row["system_a"] == expected["system_a"] and row["p_adj"] == pytest.approx(expected["p_adj"])
        assert row["ci_low"] == pytest.approx(expected["ci_low"])
    assert payload["structure"] == result.fit.structure == "Bradley–Terry"
    assert payload["n_resamples"] == 600 and payload["n_resamples_failed"] == 0
    assert not {"model_used", "n_boot", "n_boot_failed", "warnings"} & set(payload)
    assert payload["cautions"] == list(result.cautions)


def test_comparative_warnings_is_a_deprecated_alias_of_cautions():
    few = simulate_pairwise_study([0.5, 0.0, -0.5], seed=1, blocks=2)  # 6 annotators: a caution
    result = analyze_comparative(few, inference="two-way", n_resamples=100, seed=1)
    assert result.cautions and result.cautions[0].startswith("only ")
    with pytest.warns(DeprecationWarning, match=r"ComparativeAnalysis\.warnings is deprecated.*\.cautions"):
        assert result.warnings == result.cautions


def test_bws_scores_old_names(pairwise_table):
    table = simulate_bws_study([0.5, 0.0, -0.5, -1.0], tuple_size=3, blocks=2, seed=1)
    new = bws_scores(table, n_resamples=300, confidence_level=0.8, seed=0)
    with pytest.warns(DeprecationWarning, match="bws_scores"):
        old = bws_scores(table, n_boot=300, level=0.8, seed=0)
    pd.testing.assert_frame_equal(old, new)
    wide = bws_scores(table, n_resamples=300, confidence_level=0.95, seed=0)
    assert ((wide["ci_high"] - wide["ci_low"]) >= (new["ci_high"] - new["ci_low"])).all()


# ------------------------------------------------------------------ simulation


def test_simulate_old_keywords_warn_and_give_the_same_rates():
    options = dict(trials=4, seed=2, tests=("art",), aggregates=("none",))
    new = simulate(None, "2x30x1", n_permutations=200, structure="nested", **options)
    with pytest.warns(DeprecationWarning) as caught:
        old = simulate(None, "2x30x1", rounds=200, clmm_structure="nested", **options)
    assert {str(w.message) for w in caught} == {
        "simulate(): rounds= is deprecated and will be removed in humaneval 0.2; use n_permutations=",
        "simulate(): clmm_structure= is deprecated and will be removed in humaneval 0.2; use structure=",
    }
    pd.testing.assert_frame_equal(old.results, new.results)
    payload = new.to_dict()
    assert payload["n_permutations"] == 200 and "rounds" not in payload
    assert payload["clmm"]["structure"] == "nested" and new.config.requested_structure == "nested"
    with pytest.warns(DeprecationWarning, match=r"SimulationConfig\.rounds is deprecated"):
        assert new.config.rounds == 200
    with pytest.raises(OptionError, match=r"^simulate\(\) got both rounds= and n_permutations="):
        simulate(None, "2x30x1", rounds=10, n_permutations=10, **options)


def test_art_pvalues_rounds_alias():
    delta = np.random.default_rng(0).normal(0.3, 1, (3, 40))
    with pytest.warns(DeprecationWarning, match="use n_permutations="):
        old = art_pvalues(delta, rounds=500, seed=1)
    np.testing.assert_array_equal(old, art_pvalues(delta, n_permutations=500, seed=1))


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_power_cli_new_and_deprecated_options(tmp_path):
    from humaneval.clmm.model import default_model

    model = tmp_path / "m.json"
    default_model().to_json(model)
    common = ("power", "--design", "2x30x1", "--tests", "art", "--aggregate", "none", "--trials", "3")
    new = run(*common, "--model-file", model, "--permutations", "100", "--no-progress", "--json")
    assert new.exit_code == 0, new.output
    payload = json.loads(new.stdout)
    assert payload["n_permutations"] == 100
    old = run(*common, "--model", model, "--rounds", "100", "--no-progress", "--json")
    assert old.exit_code == 0, old.output
    assert sorted(old.stderr.splitlines()) == [
        "warning: --model is deprecated and will be removed in humaneval 0.2; use --model-file",
        "warning: --rounds is deprecated and will be removed in humaneval 0.2; use --permutations",
    ]
    assert json.loads(old.stdout)["results"] == payload["results"]
    both = run(*common, "--rounds", "100", "--permutations", "100")
    assert both.exit_code == 2
    assert both.output.strip() == (
        "error: --rounds and --permutations both given; use --permutations only (--rounds is deprecated)"
    )
    help_text = run("power", "--help").output
    assert "--model-file" in help_text and "--permutations" in help_text
    assert "--rounds" not in help_text and "--model " not in help_text
    # the choices are the API's constants
    bad = run(*common, "--structure", "maximl")
    assert bad.exit_code == 2 and "'auto', 'maximal', 'nested', 'uncorrelated', 'intercepts'" in bad.output
    assert "'native', 'r'" in run(*common, "--engine", "both").output


def test_budget_cli_model_file_and_deprecated_model(tmp_path):
    from humaneval.clmm.model import default_model

    model = tmp_path / "m.json"
    default_model().to_json(model)
    common = (
        "budget",
        "--target",
        "0.5",
        "--blocks",
        "6",
        "--docs",
        "5",
        "--annotators",
        "1",
        "--trials",
        "4",
    )
    new = run(*common, "--model-file", model, "--json")
    old = run(*common, "--model", model, "--json")
    assert new.exit_code == old.exit_code == 0, old.output
    assert old.stderr.strip() == (
        "warning: --model is deprecated and will be removed in humaneval 0.2; use --model-file"
    )
    assert json.loads(old.stdout)["candidates"] == json.loads(new.stdout)["candidates"]


# ------------------------------------------------------------------ meta-evaluation


def test_metaeval_confidence_is_a_deprecated_alias_of_confidence_level():
    rng = np.random.default_rng(4)
    human = rng.normal(size=(6, 10))
    metric = human + rng.normal(0, 0.5, human.shape)
    new = bootstrap(human, metric, ["sys"], n_resamples=200, confidence_level=0.9, seed=1)
    with pytest.warns(DeprecationWarning, match=r"bootstrap\(\): confidence= is deprecated"):
        old = bootstrap(human, metric, ["sys"], n_resamples=200, confidence=0.9, seed=1)
    pd.testing.assert_frame_equal(old.table, new.table)
    assert new.to_dict()["confidence_level"] == 0.9 and "confidence" not in new.to_dict()
    with pytest.warns(DeprecationWarning, match=r"BootstrapResult\.confidence is deprecated"):
        assert new.confidence == 0.9
    # Fisher z interval of r = 0.5, n = 100 at 90 %: tanh(atanh(0.5) ± z_0.95 / sqrt(97))
    half = stats.norm.ppf(0.95) / math.sqrt(97)
    expected = (math.tanh(math.atanh(0.5) - half), math.tanh(math.atanh(0.5) + half))
    assert fisher_ci(0.5, 100, confidence_level=0.9) == pytest.approx(expected, abs=1e-12)
    with pytest.warns(DeprecationWarning, match=r"fisher_ci\(\): confidence="):
        assert fisher_ci(0.5, 100, confidence=0.9) == pytest.approx(expected, abs=1e-12)


def test_a_checkpoint_written_with_rounds_still_resumes(tmp_path):
    """Checkpoints from before the rename carry ``rounds`` in their header; --resume keeps them."""
    checkpoint = tmp_path / "replicates.jsonl"
    options = dict(trials=3, seed=2, tests=("art",), aggregates=("none",), n_permutations=200)
    first = simulate(None, "2x30x1", checkpoint=checkpoint, **options)
    lines = checkpoint.read_text().splitlines()
    header = json.loads(lines[0])
    header["header"]["rounds"] = header["header"].pop("n_permutations")
    checkpoint.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    resumed = simulate(None, "2x30x1", checkpoint=checkpoint, resume=True, **options)
    pd.testing.assert_frame_equal(resumed.results, first.results)
    header["header"]["rounds"] = 100  # another experiment: refused
    checkpoint.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    with pytest.raises(DesignError, match="different experiment"):
        simulate(None, "2x30x1", checkpoint=checkpoint, resume=True, **options)
