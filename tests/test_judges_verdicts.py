"""Verdicts that cannot mislead: judges off the humans' scale, degenerate judges, numbers typed as
text, and the uncertainty of ω and ρ (issue: judge verdicts honest at their edges)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from humaneval.errors import RatingsError
from humaneval.judges import load_annotations
from humaneval.judges.alttest import alt_test
from humaneval.judges.calibration import calibrate, off_scale
from humaneval.judges.data import label_view
from humaneval.judges.uncertainty import by_rejections, verdict_uncertainty
from humaneval.judges.verdict import assess_judges
from tests.conftest import shared_file


def study(seed: int = 0, n_items: int = 90, n_humans: int = 4):
    """Humans on 1-5 around a truth; a good judge (the truth, whole numbers on 1-5)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    humans = {
        f"h{h}": {f"i{i}": int(np.clip(t + rng.integers(-1, 2), 1, 5)) for i, t in enumerate(truth)}
        for h in range(n_humans)
    }
    good = {f"i{i}": float(t) for i, t in enumerate(truth)}
    return humans, good, rng


def omega_rho(humans, judges, **options) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = alt_test(load_annotations(humans, judges), epsilon=0.2, **options)
    return result.table.set_index("judge")[["winning_rate", "advantage_probability"]]


def affine(labels: dict, a: float, b: float) -> dict:
    return {k: a * v + b for k, v in labels.items()}


def test_an_affinely_rescaled_judge_is_calibrated_not_failed():
    humans, good, _ = study()
    plain = omega_rho(humans, {"j": good})
    assert plain.loc["j", "winning_rate"] == 1.0
    for a, b in ((20.0, 0.0), (0.5, -1.5)):  # ×20 leaves the range; (x - 3)/2 too, and is fractional
        rescaled = omega_rho(humans, {"j": affine(good, a, b)})
        # min–max maps the judge's range 1-5 back onto the humans' 1-5: the plain judge's ω and ρ
        assert np.abs(rescaled.to_numpy() - plain.to_numpy()).max() <= 1e-12
    with pytest.raises(RatingsError, match=r"leave the humans’ range 1 to 5.*--calibration minmax"):
        omega_rho(humans, {"j": affine(good, 20.0, 0.0)}, calibration="off")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = alt_test(load_annotations(humans, {"j": affine(good, 20.0, 0.0)}), epsilon=0.2)
    assert any("mapped onto the humans' scale by the min–max map" in str(w.message) for w in caught)
    row = result.calibration.iloc[0]
    assert (row.calibration, row.slope, row.intercept) == (
        "minmax",
        pytest.approx(0.05),
        pytest.approx(0.0),
    )  # 20..100 onto 1..5


@pytest.mark.parametrize("method", ["minmax", "isotonic"])
def test_omega_and_rho_are_invariant_to_affine_changes_under_calibration(method):
    humans, good, rng = study(seed=3)
    noisy = {k: v + rng.normal(0, 0.8) for k, v in good.items()}
    base = omega_rho(humans, {"j": noisy}, calibration=method)
    assert 0 < base.loc["j", "advantage_probability"] < 1
    for a, b in ((20.0, 0.0), (0.5, -1.5), (1e-3, 7.0), (3.7, 100.0)):
        moved = omega_rho(humans, {"j": affine(noisy, a, b)}, calibration=method)
        assert np.abs(moved.to_numpy() - base.to_numpy()).max() <= 1e-12


def test_isotonic_map_is_cross_fitted_and_monotone():
    humans, good, rng = study(seed=5)
    judge = {k: np.exp(v + rng.normal(0, 0.3)) for k, v in good.items()}  # monotone, off the scale
    table, report = calibrate(label_view(load_annotations(humans, {"j": judge})), "isotonic", seed=2)
    mapped = table.labels().query("annotator == 'j'").set_index("item")["label"]
    raw = pd.Series(judge)
    assert report.at[0, "calibration"] == "isotonic" and mapped.between(1, 5).all()
    # independent computation for one held-out fold: scipy's isotonic fit on the other folds
    from scipy.optimize import isotonic_regression

    items = list(raw.index)
    fold = pd.Series(np.random.default_rng(2).permutation(np.arange(len(items)) % 5), index=items)
    human_mean = table.labels().query("rater_kind == 'human'").groupby("item")["label"].mean()
    train = fold.index[fold != 0]
    x, y = raw[train], human_mean[train]
    order = np.argsort(x.to_numpy(), kind="stable")
    fit = isotonic_regression(y.to_numpy()[order]).x  # x has no ties here
    held = fold.index[fold == 0]
    expected = np.interp(raw[held], x.to_numpy()[order], fit)
    np.testing.assert_allclose(mapped[held].to_numpy(), expected, atol=1e-9)


def test_off_scale_reasons():
    assert off_scale(np.array([1.0, 5.0]), np.array([1.0, 2.0, 5.0])) == ""
    assert "fractional" in off_scale(np.array([1.0, 2.5]), np.array([1.0, 5.0]))
    assert off_scale(np.array([1.0, 2.5]), np.array([1.0, 1.5, 5.0])) == ""  # humans use halves too
    assert "leave the humans’ range" in off_scale(np.array([0.0, 3.0]), np.array([1.0, 5.0]))


def test_metric_judges_on_their_own_scale_are_mapped():
    """BARTScore and GRUEN on SummEval (Fabbri et al., 2021): negative log-likelihoods and 0-1 scores
    against 1-5 coherence. Three humans scatter ±1 around the stored SummEval rating."""
    folder = shared_file("summeval-coherence-scores", "human.csv").parent
    human = pd.read_csv(folder / "human.csv")
    items = human["doc"] + "|" + human["summarizer"]
    rng = np.random.default_rng(0)
    humans = {
        f"h{k}": {
            i: int(np.clip(v + rng.integers(-1, 2), 1, 5))
            for i, v in zip(items, human["Qcoherence"], strict=True)
        }
        for k in range(3)
    }

    def neg_rmse(label, others):  # the same scoring, without calibration (a user's function)
        return -float(np.sqrt(np.mean((label - others) ** 2)))

    for name, column in (("bartscore.csv", "0"), ("gruen.csv", "Qgruen")):
        metric = pd.read_csv(folder / name)
        judge = {
            name: dict(
                zip(metric["doc"] + "|" + metric["summarizer"], metric[column].astype(float), strict=True)
            )
        }
        raw = omega_rho(humans, judge, scoring=neg_rmse)
        mapped = omega_rho(humans, judge)
        assert raw.iloc[0]["advantage_probability"] < 0.06  # on its own scale it never comes close
        assert mapped.iloc[0]["advantage_probability"] > 0.3
        with pytest.raises(RatingsError, match="leave the humans’ range"):
            omega_rho(humans, judge, calibration="off")


def test_a_constant_judge_is_flagged_and_never_ranked_first():
    rng = np.random.default_rng(7)
    n = 80  # a ceiling-heavy criterion: most summaries get the top score from every human
    truth = np.where(rng.random(n) < 0.85, 5, rng.integers(2, 5, n))
    humans = {
        f"h{h}": {f"i{i}": int(t if rng.random() < 0.9 else max(t - 1, 1)) for i, t in enumerate(truth)}
        for h in range(4)
    }
    judges = {
        "always5": {f"i{i}": 5.0 for i in range(n)},
        "honest": {f"i{i}": float(t if rng.random() < 0.8 else max(t - 1, 1)) for i, t in enumerate(truth)},
    }
    table = load_annotations(humans, judges)
    result = assess_judges(table, epsilon=0.2, n_resamples=0)
    verdict = result.verdict.set_index("judge")
    assert verdict.loc["always5", "advantage_probability"] > verdict.loc["honest", "advantage_probability"]
    assert verdict.loc["always5", "rank"] == 2 and verdict.loc["honest", "rank"] == 1
    assert verdict.loc["always5", "degenerate"].startswith("gives the label 5 to 100% of the items")
    assert any(f.startswith("degenerate:") for f in verdict.loc["always5", "flags"])
    assert verdict.loc["honest", "degenerate"] == ""
    _, report = calibrate(label_view(table), "minmax")  # no map spreads one label: left as it is, and said so
    assert report.set_index("judge").at["always5", "off_scale"] == "one label (5) only: left unmapped"
    assert report.set_index("judge").at["always5", "calibration"] == "none"
    off = {k: 50.0 for k in judges["always5"]}  # constant and off the scale: still assessed, and flagged
    shifted = assess_judges(load_annotations(humans, {"c": off, **judges}), epsilon=0.2, n_resamples=0)
    assert shifted.verdict.set_index("judge").at["c", "degenerate"].startswith("gives the label 50 to 100%")


def test_numbers_typed_as_text_are_scored_as_numbers():
    humans, good, _ = study(seed=11)
    off_by_one = {k: float(np.clip(v + 1, 1, 5)) for k, v in good.items()}
    as_text = {a: {k: str(int(v)) for k, v in labels.items()} for a, labels in humans.items()}
    judges_text = {"j": {k: str(int(v)) for k, v in off_by_one.items()}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = alt_test(load_annotations(as_text, judges_text), epsilon=0.2)
    numbers = omega_rho(humans, {"j": off_by_one})
    assert text.scoring == "neg_rmse"
    assert np.array_equal(text.table.set_index("judge")[numbers.columns].to_numpy(), numbers.to_numpy())
    assert any("--scoring accuracy" in str(w.message) for w in caught)
    categories = omega_rho(as_text, judges_text, scoring="accuracy")  # asked for: categories
    assert not np.array_equal(categories.to_numpy(), numbers.to_numpy())


def test_published_numeric_data_typed_as_strings_keep_the_published_verdicts():
    """cebab_stars (Calderon et al., 2025, notebook): ω / ρ per judge, with every label a JSON string."""
    folder = shared_file("alttest", "cebab_stars", "human_annotations.json").parent
    to_text = {
        a: {k: str(v) for k, v in labels.items()}
        for a, labels in json.loads((folder / "human_annotations.json").read_text()).items()
    }
    llm = json.loads((folder / "llm_annotations.json").read_text())
    judges = {j: {k: str(v) for k, v in labels.items()} for j, labels in llm.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = alt_test(load_annotations(to_text, judges), epsilon=0.1).table.set_index("judge")
    published = {"gemini_flash": (0.60, 0.82), "gemini_pro": (0.80, 0.87), "gpt-4o": (0.90, 0.90)}
    published |= {"llama-31": (0.60, 0.85), "gpt-4o-mini": (0.90, 0.89), "mistral-v03": (0.50, 0.83)}
    for judge, (omega, rho) in published.items():
        assert result.loc[judge, "winning_rate"] == pytest.approx(omega, abs=0.005)
        assert result.loc[judge, "advantage_probability"] == pytest.approx(rho, abs=0.005)


def test_benjamini_yekutieli_rejections_match_statsmodels():
    rng = np.random.default_rng(0)
    p = rng.beta(0.3, 2, size=(12, 40))
    expected = [int(multipletests(p[:, k], 0.05, "fdr_by")[0].sum()) for k in range(p.shape[1])]
    assert by_rejections(p, 0.05).tolist() == expected


def test_one_resample_of_the_verdict_recomputed_by_hand():
    humans, good, rng = study(seed=2, n_items=60)
    noisy = {k: float(np.clip(round(v + rng.normal(0, 1)), 1, 5)) for k, v in good.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        test = alt_test(load_annotations(humans, {"j": noisy}), epsilon=0.2)
    boot = verdict_uncertainty(test, n_resamples=1, seed=9)
    arrays = test.indicators[None]
    draw = np.random.default_rng(9)
    i = draw.integers(0, arrays.present.shape[0], arrays.present.shape[0])
    h = draw.integers(0, arrays.present.shape[1], arrays.present.shape[1])
    p_values, rhos = [], []
    for col in h:  # every human labels every item here
        d = arrays.human_ok[i, col, 0].astype(float) - arrays.judge_ok[i, col, 0]
        p_values.append(stats.ttest_1samp(d, 0.2, alternative="less").pvalue)
        rhos.append(arrays.judge_ok[i, col, 0].mean())
    omega = multipletests(p_values, 0.05, "fdr_by")[0].mean()
    row = boot.table.iloc[0]
    assert row.winning_rate_low == pytest.approx(omega, abs=1e-12)
    assert row.advantage_probability_low == pytest.approx(np.mean(rhos), abs=1e-12)
    assert row.pass_probability == float(omega >= 0.5)


def test_tied_judges_raise_no_best_judge_flag_and_flags_name_the_criterion():
    from tests.test_judges_cli import likert_with_judges

    table = likert_with_judges()
    twin = table[table["annotator"] == "noisy"].assign(annotator="twin")
    result = assess_judges(pd.concat([table, twin], ignore_index=True), epsilon=0.2, n_resamples=1000)
    verdict = result.verdict.set_index("judge")
    assert verdict.loc["noisy", "advantage_probability"] == verdict.loc["twin", "advantage_probability"]
    flagged = [f for flags in verdict["flags"] for f in flags if f.startswith("highest advantage")]
    # reversed has the highest ρ; noisy (and its twin) rank the systems surely better: one flag, not two
    assert len(flagged) == 1 and "noisy ranks the systems better" in flagged[0]
    assert verdict.loc["reversed", "pass_probability"] == 1.0
    assert (verdict["winning_rate_low"] <= verdict["winning_rate"]).all()


def test_cli_refuses_an_off_scale_judge_in_one_line_and_maps_it_by_default(tmp_path):
    from tests.test_judges_cli import run

    humans, good, _ = study(n_items=40, n_humans=3)
    (tmp_path / "h.json").write_text(json.dumps(humans))
    (tmp_path / "j.json").write_text(json.dumps({"j": affine(good, 20.0, 0.0)}))
    args = ("judge", str(tmp_path / "h.json"), "--judge-file", str(tmp_path / "j.json"), "--resamples", "0")
    refused = run(*args, "--calibration", "off")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "--calibration minmax" in refused.stderr
    mapped = json.loads(run(*args, "--json").stdout)
    assert mapped["calibration"][0]["calibration"] == "minmax"
    assert mapped["judges"][0]["winning_rate"] == 1.0
