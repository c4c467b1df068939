"""Results present themselves: ``summary()`` and a one-line ``repr`` on FitResult, Analysis,
ReliabilityReport and SimulationResult, all numbers written by :mod:`humaneval.present.formatting`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humaneval.analysis import fit_clmm
from humaneval.core.ratings import load_ratings
from humaneval.present.formatting import MISSING, fmt, fmt_ci, fmt_estimate_ci, fmt_p, p_is
from humaneval.reliability import fleiss_kappa, krippendorff_alpha, reliability_report
from humaneval.simulate import simulate

WINE = Path(__file__).parent / "data" / "wine.csv"


@pytest.mark.parametrize("missing", [None, math.nan, math.inf, -math.inf, np.float64("nan")])
def test_one_mark_for_a_missing_number(missing):
    assert fmt(missing) == fmt_p(missing) == fmt_ci(missing, 1.0) == fmt_estimate_ci(missing, 0, 1) == "–"
    assert MISSING == "–" and p_is(missing) == "p = –"


def test_numbers_keep_their_digits():
    assert (fmt(0.81538), fmt(2, 1), fmt_p(0.00009), fmt_p(0.04213), p_is(0.00009)) == (
        "0.815",
        "2.0",
        "<.0001",
        "0.0421",
        "p < 0.0001",
    )
    assert fmt_estimate_ci(0.2621, 0.2113, 0.3184) == "0.262 [0.211, 0.318]"


def test_fit_result_repr_and_headline_on_the_wine_data():
    # ordinal's wine example, clmm(rating ~ temp + contact + (1|judge)): logLik -81.57, AIC 177.13
    fit = fit_clmm(pd.read_csv(WINE), formula="rating ~ temp + contact + (1|judge)")
    assert repr(fit) == (
        "<FitResult CLMM formula 'rating ~ temp + contact + (1 | judge)', logit link, native engine, "
        "72 obs, logLik -81.57, converged>"
    )
    head = fit.headline()
    assert head[0] == (
        "CLMM formula (rating ~ temp + contact + (1 | judge)), logit link, flexible thresholds, "
        "native engine; 72 ratings"
    )
    assert head[1].startswith("logLik -81.57, AIC 177.13, BIC 193.07, max.grad ")
    assert "Coefficients:" in fit.summary()


def _block_study(n_blocks: int = 6, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for b in range(n_blocks):
        for a in range(3):
            for d in range(2):
                for s in range(3):
                    score = int(np.clip(round(2 + s + rng.normal(0, 0.8)), 1, 5))
                    rows.append(
                        {"annotator": f"a{b}{a}", "document": f"d{b}{d}", "system": f"s{s}", "score": score}
                    )
    return pd.DataFrame(rows)


def test_reliability_report_summary_and_repr():
    ratings = load_ratings(_block_study())
    report = reliability_report(ratings, n_resamples=0, n_splits=20, seed=1)
    alpha = krippendorff_alpha(ratings, "ordinal").alpha
    kappa = fleiss_kappa(ratings).kappa
    lines = report.summary("study.csv").splitlines()
    assert lines[0] == "study.csv: reliability"
    assert lines[2].split() == ["Krippendorff's", "α", "(ordinal):", f"{alpha:.3f}"]
    assert lines[5].split() == ["Fleiss'", "κ:", f"{kappa:.3f}"]
    assert report.summary().splitlines()[0] == "ratings: reliability"
    assert repr(report).startswith(
        f"<ReliabilityReport ordinal α {alpha:.3f}, Fleiss' κ {kappa:.3f}, split-half "
    )


def test_simulation_result_summary_and_repr():
    result = simulate(None, "2x5x3", tests=("ttest",), trials=20, null=True, seed=1)
    overall = result.overall()
    none = overall[overall["aggregate"] == "none"].iloc[0]
    lines = result.summary(notes=("a note",)).splitlines()
    assert lines[0] == "Type I error of 2x5x3 (B×D×A, crossed_in_blocks), seed 1"
    assert lines[2] == "- a note"
    assert lines[4].split() == ["test", "level", "Type", "I", "error", "[95%", "CI]"]
    assert lines[5].split() == [
        "ttest",
        "none",
        f"{none.rate:.3f}",
        f"[{none.ci_low:.3f},",
        f"{none.ci_high:.3f}]",
    ]
    assert repr(result) == (
        f"<SimulationResult type1 of 2x5x3, seed 1: ttest/none {none.rate:.3f}, "
        f"ttest/document {overall.iloc[1].rate:.3f}>"
    )
