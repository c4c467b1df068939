"""Publication figures: PNG, SVG and PDF for every figure, colour-blind-safe colours, labelled axes."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from humaneval.clmm.model import default_model, sample_ratings
from humaneval.design import block_design
from humaneval.present.plotting import BETTER, DIVERGING, WORSE, save_figure

RED_GREEN = ("#2e7d32", "#c62828", "#2ca02c", "#d62728")


@pytest.fixture(scope="module")
def report_files(tmp_path_factory):
    from humaneval.report import ReportSettings, build_report, write_report

    model = default_model()
    ratings = sample_ratings(model, block_design(8, 5, 2, model.system_names, seed=6), seed=6)
    settings = ReportSettings(
        engine="native", n_resamples=1000, n_splits=100, power_trials=30, clmm_power_trials=0
    )
    out = tmp_path_factory.mktemp("figures")
    return out, write_report(build_report(ratings, settings=settings), out)


def test_every_report_figure_is_written_as_png_svg_and_pdf(report_files):
    _, files = report_files
    pngs = [p for p in files.values() if p.suffix == ".png"]
    assert {p.stem for p in pngs} == {"distributions", "means", "significance", "power"}
    for png in pngs:
        assert png.read_bytes()[:4] == b"\x89PNG"
        assert png.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
        assert png.with_suffix(".svg").read_text().lstrip().startswith("<?xml")
        assert files[f"{png.stem}.svg"] == png.with_suffix(".svg")
    html = files["html"].read_text()
    assert 'href="significance.svg"' in html and 'href="means.pdf"' in html


def test_significance_matrix_is_colour_blind_safe(report_files):
    out, _ = report_files
    svg = (out / "significance.svg").read_text().lower()
    assert BETTER in svg and WORSE in svg  # purple / orange, not red / green
    assert not any(colour in svg for colour in RED_GREEN)
    # axes are labelled (matplotlib writes each text as a comment before its glyphs)
    assert "<!-- row system -->" in svg and "<!-- column system -->" in svg


def test_figures_are_reproducible_byte_for_byte(tmp_path):
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([0, 1], [1, 0])
    first = {k: p.read_bytes() for k, p in save_figure(fig, tmp_path / "a.png").items()}
    second = {k: p.read_bytes() for k, p in save_figure(fig, tmp_path / "b.png").items()}
    assert first.keys() == {"png", "svg", "pdf"} and first == second  # no timestamps in any format


def test_likert_distribution_is_a_diverging_stacked_bar(tmp_path):
    from humaneval.core.ratings import load_ratings
    from humaneval.report.figures import diverging_start, score_distributions

    # shares 10/20/30/20/20 %: the bar starts left of 0 by 10 + 20 + 30/2 = 45 %
    share = pd.DataFrame([[10.0, 20.0, 30.0, 20.0, 20.0]], columns=[1, 2, 3, 4, 5], index=["A"])
    assert diverging_start(share).tolist() == [-45.0]
    even = pd.DataFrame([[10.0, 30.0, 40.0, 20.0]], columns=[1, 2, 3, 4], index=["A"])
    assert diverging_start(even).tolist() == [-40.0]
    frame = pd.DataFrame(
        {
            "annotator": ["a"] * 5 + ["b"] * 5,
            "document": [f"d{i}" for i in range(5)] * 2,
            "system": ["A"] * 5 + ["B"] * 5,
            "score": [1, 2, 3, 4, 5, 5, 5, 4, 4, 3],
        }
    )
    path = score_distributions(load_ratings(frame, scale="1-5"), ["B", "A"], tmp_path / "d.png")
    svg = path.with_suffix(".svg").read_text()
    assert "<!-- share of the system&#39;s judgements (%) -->" in svg or "share of the system" in svg
    assert not any(colour in svg.lower() for colour in RED_GREEN)


def test_budget_table_is_rounded_and_its_plot_names_the_currency(tmp_path):
    from humaneval.simulate.budget import CostModel, plan_budget

    cost = CostModel(seconds_per_judgement=28.8, wage_per_hour=15, currency="GBP")
    plan = plan_budget(
        None, 0.7, cost_model=cost, blocks=(6, 12), docs=(2,), annotators=(1,), trials=20, seed=2
    )
    cands = plan.candidates
    # 6 blocks × 2 docs × 5 systems = 60 judgements × 28.8 s at 15/h: 60 * 28.8 / 3600 * 15 evaluates
    # to 7.199999999999999 in floating point; the table holds the cents
    assert 60 * 28.8 / 3600 * 15 != 7.2
    assert cands["cost"].tolist() == [7.2, 14.4]
    assert all(repr(v) == repr(round(v, 2)) for v in cands["cost"])
    assert all(len(repr(v).split(".")[-1]) <= 4 for v in cands["hours"])
    png = plan.plot(tmp_path / "budget.png")
    svg = png.with_suffix(".svg").read_text()
    assert "cost (GBP)" in svg and png.with_suffix(".pdf").exists()
    with pytest.raises(Exception, match="currency"):
        CostModel(currency="")


def test_metaeval_plots_use_a_colour_blind_safe_map_and_label_their_axes():
    import matplotlib

    matplotlib.use("Agg")
    from humaneval.metaeval.bias import bias_matrix, plot_bias_matrix
    from humaneval.metaeval.data import ScoreMatrices
    from humaneval.metaeval.report import plot_intra_system

    rng = np.random.default_rng(0)
    human = rng.normal(size=(4, 12))
    metric = human + rng.normal(scale=0.5, size=human.shape)
    systems = ["s1", "s2", "s3", "s4"]
    fig = plot_bias_matrix(bias_matrix(human, metric, systems))
    ax = fig.axes[0]
    assert ax.collections[0].get_cmap().name == DIVERGING
    assert ax.get_xlabel() and ax.get_ylabel()
    scores = ScoreMatrices(human, {"M": metric}, systems, [f"d{i}" for i in range(12)])
    intra = plot_intra_system(scores, n_resamples=50, seed=1)
    assert re.match(r"Kendall τ with the human scores", intra.get_supxlabel())
    assert intra.get_supylabel() == "metric"
