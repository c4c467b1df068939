"""One vocabulary across API, CLI and JSON (issue 23, docs/vocabulary.md): renamed parameters and
options keep working for one release with a deprecation warning, both names at once are an error, and
the JSON keys of result tables are the DataFrame's columns."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from humaneval._deprecation import renamed
from humaneval.analysis.analyze import analyze
from humaneval.analysis.classic import paired_ttest
from humaneval.cli import main
from humaneval.errors import OptionError
from humaneval.ratings import as_ratings


@pytest.fixture(scope="module")
def ratings_frame() -> pd.DataFrame:
    """6 annotators × 8 documents × 3 systems on a 1-5 scale, system c clearly better."""
    rng = np.random.default_rng(7)
    rows = []
    annotator, document = rng.normal(0, 0.7, 6), rng.normal(0, 0.5, 8)
    for a in range(6):
        for d in range(8):
            for s, shift in (("a", 0.0), ("b", 0.3), ("c", 1.5)):
                latent = 2.6 + shift + annotator[a] + document[d] + rng.normal(0, 0.8)
                rows.append((f"ann{a}", f"doc{d}", s, int(np.clip(round(latent), 1, 5))))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "score"])


@pytest.fixture(scope="module")
def ratings_csv(ratings_frame, tmp_path_factory):
    path = tmp_path_factory.mktemp("vocab") / "ratings.csv"
    ratings_frame.to_csv(path, index=False)
    return path


# ------------------------------------------------------------------ the helper


def test_renamed_maps_the_old_keyword_with_a_warning_naming_the_new_one():
    @renamed(n_boot="n_resamples")
    def f(*, n_resamples=10):
        return n_resamples

    with pytest.warns(DeprecationWarning, match=r"f\(\): n_boot= is deprecated.*use n_resamples="):
        assert f(n_boot=3) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(n_resamples=4) == 4 and f() == 10


def test_renamed_both_names_is_one_line_option_error():
    @renamed(n_boot="n_resamples")
    def f(*, n_resamples=10):
        return n_resamples

    with pytest.raises(OptionError) as info:
        f(n_boot=3, n_resamples=4)
    assert (
        str(info.value)
        == "f() got both n_boot= and n_resamples=; use n_resamples= only (n_boot= is deprecated)"
    )


# ------------------------------------------------------------------ analysis


def test_analyze_model_is_a_deprecated_alias_of_structure(ratings_frame):
    new = analyze(ratings_frame, structure="intercepts")
    with pytest.warns(DeprecationWarning, match="use structure="):
        old = analyze(ratings_frame, model="intercepts")
    assert new.fit.structure == old.fit.structure == "intercepts"
    pd.testing.assert_frame_equal(new.contrasts, old.contrasts)
    with pytest.raises(OptionError, match="both model= and structure="):
        analyze(ratings_frame, model="intercepts", structure="maximal")


def test_contrast_confidence_level_and_its_old_name(ratings_frame):
    fit = analyze(ratings_frame, structure="intercepts").fit
    c95 = fit.contrasts(adjust="none")
    c90 = fit.contrasts(adjust="none", confidence_level=0.90)
    with pytest.warns(DeprecationWarning, match="use confidence_level="):
        old = fit.contrasts(adjust="none", level=0.90)
    pd.testing.assert_frame_equal(c90, old)
    # unadjusted Wald intervals: half-widths scale as the normal quantiles 1.6449 / 1.9600
    ratio = (c90.ci_high - c90.estimate) / (c95.ci_high - c95.estimate)
    np.testing.assert_allclose(ratio, stats.norm.ppf(0.95) / stats.norm.ppf(0.975), rtol=1e-12)
    assert ratio.iloc[0] == pytest.approx(0.839226, abs=1e-6)


def test_paired_ttest_confidence_level(ratings_frame):
    table = as_ratings(ratings_frame)
    t90 = paired_ttest(table, adjust="none", confidence_level=0.9)
    with pytest.warns(DeprecationWarning):
        old = paired_ttest(table, adjust="none", level=0.9)
    pd.testing.assert_frame_equal(t90, old)
    # independent check: t interval of the per-(annotator, document) differences of a − b
    wide = ratings_frame.pivot_table(index=["annotator", "document"], columns="system", values="score")
    delta = (wide["a"] - wide["b"]).to_numpy()
    half = stats.t.ppf(0.95, delta.size - 1) * delta.std(ddof=1) / np.sqrt(delta.size)
    row = t90[(t90.system_a == "a") & (t90.system_b == "b")].iloc[0]
    assert row.ci_high - row.estimate == pytest.approx(half, rel=1e-10)


def _json(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def _frame_keys(frame: pd.DataFrame) -> list[str]:
    return [str(c) for c in frame.columns]


@pytest.mark.parametrize("test", ["clmm", "ttest"])
def test_analyze_json_contrast_keys_are_the_frame_columns(ratings_frame, ratings_csv, test):
    args = ["analyze", ratings_csv, "--test", test, "--json"]
    if test == "clmm":
        args += ["--structure", "intercepts"]
    result = _json(*args)
    assert result.exit_code == 0, result.output
    [part] = json.loads(result.stdout)["criteria"]
    kwargs = {"structure": "intercepts"} if test == "clmm" else {}
    frame = analyze(ratings_frame, test, **kwargs).contrasts
    assert part["test"] == test and len(part["contrasts"]) == 3
    for row in part["contrasts"]:
        assert list(row) == _frame_keys(frame)
    assert [r["p_adj"] for r in part["contrasts"]] == pytest.approx(frame["p_adj"].tolist(), rel=1e-12)
    assert list(part["groups"][0]) == _frame_keys(analyze(ratings_frame, test, **kwargs).systems)


def test_analyze_cli_model_is_a_hidden_deprecated_alias(ratings_csv):
    new = _json("analyze", ratings_csv, "--structure", "intercepts", "--json")
    old = _json("analyze", ratings_csv, "--model", "intercepts", "--json")
    assert new.exit_code == old.exit_code == 0, old.output
    assert json.loads(old.stdout)["criteria"][0]["structure"] == "intercepts"
    assert (
        json.loads(old.stdout)["criteria"][0]["contrasts"]
        == json.loads(new.stdout)["criteria"][0]["contrasts"]
    )
    assert old.stderr.splitlines() == ["warning: --model is deprecated and will be removed; use --structure"]
    both = _json("analyze", ratings_csv, "--model", "intercepts", "--structure", "maximal")
    assert both.exit_code == 2
    assert both.stderr.splitlines() == [
        "error: --model and --structure both given; use --structure only (--model is deprecated)"
    ]
    help_text = _json("analyze", "--help").output
    assert "--structure" in help_text and "--model" not in help_text
