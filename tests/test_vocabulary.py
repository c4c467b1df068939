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
from humaneval.analysis.analyze import analyze
from scipy import stats

from humaneval.analysis.classic import paired_ttest
from humaneval.cli import main
from humaneval.core.deprecation import renamed
from humaneval.core.ratings import as_ratings
from humaneval.errors import OptionError


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
    assert part["structure"] == ("intercepts" if test == "clmm" else None)
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
    deprecations = [line for line in old.stderr.splitlines() if "deprecated" in line]
    assert deprecations == [
        "warning: --model is deprecated and will be removed in humaneval 0.2; use --structure"
    ]
    both = _json("analyze", ratings_csv, "--model", "intercepts", "--structure", "maximal")
    assert both.exit_code == 2
    assert both.stderr.splitlines() == [
        "error: --model and --structure both given; use --structure only (--model is deprecated)"
    ]
    help_text = _json("analyze", "--help").output
    assert "--structure" in help_text and "--model" not in help_text


def test_analyze_rounds_is_a_deprecated_alias_of_n_permutations(ratings_frame, ratings_csv):
    new = analyze(ratings_frame, "art", n_permutations=200, seed=4).contrasts
    with pytest.warns(DeprecationWarning, match="use n_permutations="):
        old = analyze(ratings_frame, "art", rounds=200, seed=4).contrasts
    pd.testing.assert_frame_equal(new, old)
    # the p-value of the randomisation test is (#{T* ≥ T} + 1)/(R + 1): a multiple of 1/201
    assert np.allclose(new["p_unadj"] * 201, np.round(new["p_unadj"] * 201))
    cli = _json("analyze", ratings_csv, "--test", "art", "--rounds", "200", "--seed", "4", "--json")
    assert cli.exit_code == 0, cli.output
    assert (
        cli.stderr.splitlines()[0]
        == "warning: --rounds is deprecated and will be removed in humaneval 0.2; use --permutations"
    )
    p = [row["p_unadj"] for row in json.loads(cli.stdout)["criteria"][0]["contrasts"]]
    assert p == pytest.approx(new["p_unadj"].tolist(), rel=1e-12)


# ------------------------------------------------------------------ reliability


def _interval_alpha(frame: pd.DataFrame) -> float:
    """Krippendorff's interval α from its definition (units = document × system), independent of humaneval."""
    units = [g.to_numpy(float) for _, g in frame.groupby(["document", "system"])["score"] if len(g) >= 2]
    values = np.concatenate(units)
    n = values.size
    d_o = sum(((u[:, None] - u[None, :]) ** 2).sum() / (u.size - 1) for u in units) / n
    d_e = ((values[:, None] - values[None, :]) ** 2).sum() / (n * (n - 1))
    return 1 - d_o / d_e


def test_reliability_cli_new_and_old_options_and_json_keys(ratings_frame, ratings_csv):
    from dataclasses import fields

    from humaneval.reliability.report import ReliabilityReport

    new = _json(
        "reliability", ratings_csv, "--level-of-measurement", "interval", "--resamples", "0",
        "--splits", "20", "--json",
    )  # fmt: skip
    old = _json(
        "reliability", ratings_csv, "--level", "interval", "--bootstrap", "0", "--splits", "20", "--json"
    )
    assert new.exit_code == old.exit_code == 0, old.output
    assert new.stderr == ""
    assert sorted(old.stderr.splitlines()) == [
        "warning: --bootstrap is deprecated and will be removed in humaneval 0.2; use --resamples",
        "warning: --level is deprecated and will be removed in humaneval 0.2; use --level-of-measurement",
    ]
    assert json.loads(old.stdout) == json.loads(new.stdout)
    [part] = json.loads(new.stdout)["criteria"]
    assert list(part) == [f.name for f in fields(ReliabilityReport)]
    assert part["level_of_measurement"] == "interval" and part["n_resamples"] == 0
    assert part["alpha"] == pytest.approx(_interval_alpha(ratings_frame), rel=1e-12)
    both = _json("reliability", ratings_csv, "--bootstrap", "0", "--resamples", "0")
    assert both.exit_code == 2 and both.stderr.splitlines() == [
        "error: --bootstrap and --resamples both given; use --resamples only (--bootstrap is deprecated)"
    ]


def test_reliability_api_old_names_warn(ratings_frame):
    from humaneval.reliability import kalpha_bootstrap, krippendorff_alpha
    from humaneval.reliability.report import reliability_report

    table = as_ratings(ratings_frame)
    with pytest.warns(DeprecationWarning, match="use level_of_measurement="):
        old = krippendorff_alpha(table, level="interval")
    assert old.alpha == pytest.approx(_interval_alpha(ratings_frame), rel=1e-12)
    with pytest.warns(DeprecationWarning, match=r"AlphaResult\.level is deprecated"):
        assert old.level == "interval"
    with pytest.warns(DeprecationWarning, match="use n_resamples="):
        report = reliability_report(
            table, level_of_measurement="interval", n_bootstrap=0, n_splits=20, seed=1
        )
    assert report.n_resamples == 0 and report.level_of_measurement == "interval"
    with pytest.warns(DeprecationWarning, match="use .n_resamples"):
        assert report.n_bootstrap == 0
    boot = kalpha_bootstrap(table, "interval", n_resamples=1000, confidence_level=0.9, seed=2)
    with pytest.warns(DeprecationWarning, match="use confidence_level="):
        again = kalpha_bootstrap(table, "interval", n_resamples=1000, confidence=0.9, seed=2)
    assert boot.ci == again.ci and boot.confidence_level == 0.9
    # a 90 % percentile interval of the stored resamples
    assert boot.ci == pytest.approx(tuple(np.quantile(boot.samples, [0.05, 0.95])), rel=1e-12)
    with pytest.raises(OptionError, match="both level= and level_of_measurement="):
        krippendorff_alpha(table, level="interval", level_of_measurement="ordinal")


# ------------------------------------------------------------------ metaeval


@pytest.fixture(scope="module")
def metaeval_files(tmp_path_factory):
    rng = np.random.default_rng(11)
    keys = pd.MultiIndex.from_product([[f"d{i}" for i in range(12)], ["A", "B", "C", "D"]])
    human = pd.DataFrame({"document": keys.get_level_values(0), "system": keys.get_level_values(1)})
    human["score"] = rng.normal(size=len(human)) + human["system"].map({"A": 0, "B": 0.5, "C": 1, "D": 1.5})
    metric = human.assign(score=human["score"] + rng.normal(scale=0.8, size=len(human)))
    root = tmp_path_factory.mktemp("metaeval")
    human.to_csv(root / "human.csv", index=False)
    metric.to_csv(root / "metric.csv", index=False)
    return root, human, metric


def test_metaeval_cli_new_and_old_options_and_json_keys(metaeval_files):
    from humaneval.metaeval.levels import RESULT_NAMES
    from humaneval.metaeval.report import meta_evaluate

    root, human, metric = metaeval_files
    base = ["metaeval", "--human", root / "human.csv", "--metric", f"M={root / 'metric.csv'}", "--seed", "5"]
    new = _json(*base, "--resamples", "200", "--confidence-level", "0.9", "--json")
    old = _json(*base, "--bootstrap", "200", "--confidence", "0.9", "--json")
    assert new.exit_code == old.exit_code == 0, old.output
    assert sorted(old.stderr.splitlines()) == [
        "warning: --bootstrap is deprecated and will be removed in humaneval 0.2; use --resamples",
        "warning: --confidence is deprecated and will be removed in humaneval 0.2; use --confidence-level",
    ]
    payload = json.loads(new.stdout)
    assert payload == json.loads(old.stdout)
    assert payload["bootstrap"] == {"mode": "both", "n_resamples": 200, "confidence_level": 0.9}
    index = ["document", "system"]
    table = meta_evaluate(
        human.set_index(index)["score"], {"M": metric.set_index(index)["score"]},
        n_resamples=200, confidence_level=0.9, seed=5,
    ).table  # fmt: skip
    level_of = {v: k for k, v in RESULT_NAMES.items()}
    for name, entry in payload["metrics"]["M"].items():
        assert set(entry) <= set(table.columns)
        assert entry["estimate"] == pytest.approx(table.set_index("level").loc[level_of[name], "estimate"])
    # τ_sys independently: Kendall's τ of the system means
    means_h, means_m = human.groupby("system")["score"].mean(), metric.groupby("system")["score"].mean()
    tau = stats.kendalltau(means_h, means_m).statistic
    assert payload["metrics"]["M"]["tau_sys"]["estimate"] == pytest.approx(tau, abs=1e-12)


# ------------------------------------------------------------------ report settings


def test_report_settings_old_names():
    from humaneval.report.build import ReportSettings

    with pytest.warns(DeprecationWarning) as caught:
        settings = ReportSettings(analysis_model="nested", n_bootstrap=1000)
    assert [str(w.message) for w in caught] == [
        "ReportSettings(): analysis_model= is deprecated and will be removed in humaneval 0.2; "
        "use structure=",
        "ReportSettings(): n_bootstrap= is deprecated and will be removed in humaneval 0.2; use n_resamples=",
    ]
    assert settings == ReportSettings(structure="nested", n_resamples=1000)
    assert {"structure", "n_resamples"} <= set(settings.to_dict())
    with pytest.raises(OptionError, match=r"^ReportSettings\(\) got both n_bootstrap= and n_resamples="):
        ReportSettings(n_bootstrap=1, n_resamples=2)


def test_emm_contrast_json_keys_are_the_frame_columns_with_by():
    from pathlib import Path

    wine = Path(__file__).parent / "data" / "wine.csv"
    formula = "rating ~ temp * contact + (1|judge)"
    result = _json("analyze", wine, "--formula", formula, "--emmeans", "temp", "--by", "contact", "--json")
    assert result.exit_code == 0, result.output
    [part] = json.loads(result.stdout)["criteria"]
    frame = analyze(pd.read_csv(wine), formula=formula, emm="temp", by="contact").contrasts
    assert list(frame.columns[:3]) == ["contact", "system_a", "system_b"]
    assert [list(row) for row in part["contrasts"]] == [_frame_keys(frame)] * 2
    assert [row["contact"] for row in part["contrasts"]] == ["no", "yes"]
    # the odds ratio is exp(estimate) of the latent contrast
    for row in part["contrasts"]:
        assert row["odds_ratio"] == pytest.approx(np.exp(row["estimate"]), rel=1e-12)
