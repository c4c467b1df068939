"""Every public entry point answers a bad option with a HumanEvalError subclass (one line, naming the
option and the choices), and the CLI turns it into one ``error:`` line with exit code 2."""

from __future__ import annotations

import functools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import humaneval.errors as errors
from humaneval.analysis import (
    analyze,
    approximate_randomization,
    classic_test,
    emm_contrasts,
    emmeans,
    fit_clmm,
    fit_formula,
    one_way_anova,
    paired_ttest,
    wilcoxon_test,
)
from humaneval.analysis.criteria import analyze_criteria
from humaneval.cli import main
from humaneval.comparative import analyze_comparative, bws_scores
from humaneval.core.ratings import load_ratings
from humaneval.design import DesignSpec
from humaneval.errors import DataWarning, HumanEvalError, OptionError, RatingsError
from humaneval.metaeval import (
    bias_matrix,
    binned_agreement,
    bootstrap,
    correlate,
    fisher_ci,
    meta_evaluate,
    permutation_test,
)
from humaneval.reliability import (
    cohen_kappa,
    kalpha_bootstrap,
    krippendorff_alpha,
    reliability_report,
    split_half_reliability,
)
from humaneval.scorers import entity_graph_score, score_faithfulness, tvd
from humaneval.simulate import plan_budget, power, power_curve, simulate
from humaneval.stats.resampling import cluster_bootstrap


def _ratings() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = [
        {"annotator": f"a{a}", "document": f"d{d}", "system": s, "score": int(rng.integers(1, 6))}
        for a in range(3)
        for d in range(4)
        for s in ("A", "B", "C")
    ]
    return pd.DataFrame(rows)


RATINGS = load_ratings(_ratings())
FRAME = _ratings()
BWS = pd.DataFrame({"annotator": "w", "tuple_id": [0, 0, 0], "system": ["a", "b", "c"], "score": [1, 0, -1]})
H = np.arange(12, dtype=float).reshape(3, 4)
P = H[::-1].copy()

#: (name, call) pairs: each call passes one bad option to a public entry point.
CASES = [
    ("analyze test", lambda: analyze(RATINGS, "t-test")),
    ("analyze aggregate", lambda: analyze(RATINGS, "ttest", aggregate="system")),
    ("analyze engine", lambda: analyze(RATINGS, engine="sas")),
    ("analyze model", lambda: analyze(RATINGS, model="crossed")),
    ("analyze adjust", lambda: analyze(RATINGS, "ttest", adjust="sidak")),
    ("analyze formula options with a classic test", lambda: analyze(RATINGS, "ttest", emm="system")),
    ("analyze_criteria adjust", lambda: analyze_criteria(RATINGS, adjust_across_criteria="tukey")),
    ("fit_clmm engine", lambda: fit_clmm(RATINGS, engine="sas")),
    ("fit_clmm structure", lambda: fit_clmm(RATINGS, structure="crossed")),
    ("fit_clmm link", lambda: fit_clmm(RATINGS, link="logistic")),
    ("emmeans mode", lambda: emmeans(_wine_fit(), "temp", mode="odds")),
    ("emm_contrasts adjust", lambda: emm_contrasts(_wine_fit(), "temp", adjust="sidak")),
    ("FitResult.predict type", lambda: _wine_fit().predict(type="odds")),
    ("tvd kind", lambda: tvd([0.5, 0.5], [0.2, 0.8], kind="l2")),
    ("entity_graph_score weights", lambda: entity_graph_score([{"cat": "S"}], weights="tfidf")),
    ("score_faithfulness backend", lambda: score_faithfulness(["a b"], ["a"], backend="bleu")),
    ("fit_formula threshold", lambda: fit_formula(FRAME, "score ~ system + (1|annotator)", threshold="odd")),
    ("classic_test name", lambda: classic_test(RATINGS, "sign")),
    ("paired_ttest aggregate", lambda: paired_ttest(RATINGS, "annotator")),
    ("approximate_randomization rounds", lambda: approximate_randomization(RATINGS, rounds=0)),
    ("wilcoxon_test adjust", lambda: wilcoxon_test(RATINGS, adjust="sidak")),
    ("one_way_anova aggregate", lambda: one_way_anova(RATINGS, "annotator")),
    ("krippendorff_alpha level", lambda: krippendorff_alpha(RATINGS, "cardinal")),
    ("kalpha_bootstrap confidence", lambda: kalpha_bootstrap(RATINGS, confidence=95)),
    ("split_half_reliability split", lambda: split_half_reliability(RATINGS, split="halves")),
    ("split_half_reliability n_splits", lambda: split_half_reliability(RATINGS, n_splits=0)),
    ("cohen_kappa weights", lambda: cohen_kappa([1, 2, 3], [1, 2, 2], weights="cubic")),
    ("reliability_report level", lambda: reliability_report(RATINGS, level="cardinal")),
    ("cluster_bootstrap confidence", lambda: cluster_bootstrap(np.ones(5), np.mean, confidence=2.0)),
    ("correlate coefficient", lambda: correlate(H[0], P[0], "tau-c")),
    ("meta_evaluate coefficient", lambda: meta_evaluate(_series(H), {"m": _series(P)}, coefficient="tau-c")),
    ("meta_evaluate level", lambda: meta_evaluate(_series(H), {"m": _series(P)}, levels=["corpus"])),
    ("bootstrap mode", lambda: bootstrap(H, {"m": P}, mode="annotators", n_resamples=10)),
    ("permutation_test coefficient", lambda: permutation_test(H, P, H, coefficient=np.corrcoef)),
    ("fisher_ci coefficient", lambda: fisher_ci(0.5, 30, "tau-c")),
    ("bias_matrix pairs", lambda: bias_matrix(H, P, pairs="all")),
    ("binned_agreement binning", lambda: binned_agreement({"a": H, "b": P}, binning="log")),
    ("simulate test", lambda: simulate(None, "2x2x2", tests=("sign",), trials=2)),
    ("simulate engine", lambda: simulate(None, "2x2x2", tests=("clmm",), trials=2, clmm_engine="sas")),
    ("power failed fits", lambda: power(None, "2x2x2", tests=("ttest",), trials=2, failed_fits="skip")),
    ("power_curve along", lambda: power_curve(None, "2x2x2", "systems", "2,3", trials=2)),
    ("plan_budget test", lambda: plan_budget(None, 0.8, test="sign", trials=2)),
    ("design method", lambda: DesignSpec(documents=4, seed=1, systems=["A", "B", "C"], method="stars")),
    ("bws_scores cluster", lambda: bws_scores(BWS, cluster="nobody")),
    ("comparative kind", lambda: analyze_comparative(RATINGS, kind="likert")),
    ("comparative inference", lambda: analyze_comparative(RATINGS, kind="pairwise", inference="jackknife")),
]


@functools.cache
def _wine_fit():
    wine = pd.read_csv(Path(__file__).parent / "data" / "wine.csv")
    return fit_clmm(wine, formula="rating ~ temp + contact + (1|judge)")


def _series(matrix: np.ndarray) -> pd.Series:
    index = pd.MultiIndex.from_product(
        [[f"d{j}" for j in range(matrix.shape[1])], [f"S{i}" for i in range(matrix.shape[0])]],
        names=["document", "system"],
    )
    return pd.Series(matrix.T.ravel(), index=index)


@pytest.mark.parametrize(("name", "call"), CASES, ids=[name for name, _ in CASES])
def test_a_bad_option_raises_a_humaneval_error(name, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(HumanEvalError) as info:
            call()
    message = str(info.value)
    assert "\n" not in message and 10 < len(message) < 400, message


@pytest.mark.parametrize(
    ("name", "call"),
    [
        case
        for case in CASES
        if case[0].split()[0]
        in ("analyze", "fit_clmm", "classic_test", "correlate", "meta_evaluate", "comparative")
    ],
)
def test_unknown_choices_are_option_errors(name, call):
    """Unknown tests, engines, structures and adjustments are OptionErrors, not ModelSpecErrors."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(OptionError):
            call()


def test_the_old_alias_warns_and_is_the_ratings_error():
    with pytest.warns(DeprecationWarning, match="use humaneval.errors.RatingsError"):
        alias = errors.DataValidationError
    assert alias is RatingsError
    with pytest.raises(AttributeError):
        errors.NoSuchError  # noqa: B018


def test_degenerate_differences_are_a_data_warning_not_a_reliability_one():
    constant = FRAME[FRAME["system"].isin(["A", "B"])].copy()
    constant["score"] = np.where(constant["system"] == "A", 4, 3)  # every A − B difference is 1
    with pytest.warns(DataWarning, match="every difference is 1; t is infinite"):
        paired_ttest(load_ratings(constant))


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["reliability", "{path}", "--level", "cardinal"], "cardinal"),  # refused by click
        (["analyze", "{path}", "--test", "ttest", "--adjust", "tukey"], "Tukey adjustment"),  # by the API
    ],
)
def test_the_cli_prints_one_line_and_exits_2(tmp_path, args, fragment):
    path = tmp_path / "r.csv"
    FRAME.to_csv(path, index=False)
    result = CliRunner().invoke(main, [a.format(path=path) for a in args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], result.stderr
    assert result.stdout == ""


def test_warnings_point_at_the_callers_line():
    """Warnings raised deep inside analyze() (behind its deprecation wrapper) and deprecation warnings
    name the line that called the package, not a package file."""
    import warnings

    from humaneval.analysis import analyze
    from humaneval.clmm.model import default_model, sample_ratings
    from humaneval.design import block_design
    from humaneval.report import ReportSettings

    model = default_model()
    ratings = sample_ratings(model, block_design(2, 5, 3, model.system_names, seed=1), seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analyze(ratings, "ttest")  # AnalysisCaution: the t-test ignores the pairing
        analyze(ratings, "clmm", structure="maximal")  # ConvergenceWarning: a boundary fit
        ReportSettings(n_bootstrap=10)  # DeprecationWarning: the old keyword
    kinds = {w.category.__name__ for w in caught}
    assert {"AnalysisCaution", "ConvergenceWarning", "DeprecationWarning"} <= kinds
    assert {w.filename for w in caught} == {__file__}
    assert any("removed in humaneval 0.2" in str(w.message) for w in caught)
