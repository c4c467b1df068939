"""``humaneval demo --criteria``: a multi-criterion study end to end (issue 18), on a small design."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.demo import DemoSettings, run_demo
from humaneval.design.criteria import parse_criteria


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    settings = DemoSettings(
        documents=20,
        criteria=parse_criteria("coherence,fluency:7"),
        n_resamples=0,
        n_splits=50,
        power_trials=0,
    )
    return out, run_demo(out, seed=3, settings=settings)


def test_ratings_hold_every_criterion_once_per_judgement(demo):
    out, _ = demo
    ratings = pd.read_csv(out / "ratings.csv")
    real = ratings[~ratings["is_check"]]
    # 20 documents × 5 systems × 3 annotators, each rated on both criteria
    assert real.groupby("criterion").size().to_dict() == {"coherence": 300, "fluency": 300}
    assert real.groupby("criterion")["score"].agg(["min", "max"]).values.tolist() == [[1, 5], [1, 7]]
    assert not real.duplicated(["annotator", "document", "system", "criterion"]).any()
    scales = json.loads((out / "ratings.scale.json").read_text())["criteria"]
    assert [(s["criterion"], s["points"]) for s in scales] == [("coherence", 5), ("fluency", 7)]


def test_each_hit_shows_one_screen_per_summary(demo):
    out, result = demo
    design = result.design
    # 5 documents × 5 systems + 2 checks per slot: 27 screens, not 2 × 25 + 2
    assert set(design.table.groupby("annotator_slot")["screen_id"].nunique()) == {27}
    first = sorted((out / "forms" / "preview").glob("*.html"))[0]  # one HIT per slot
    hit = first.read_text(encoding="utf-8")
    assert '"questions"' in hit and "How would you rate the fluency of this summary?" in hit


def test_validate_reports_the_declared_scales(demo):
    out, _ = demo
    result = CliRunner().invoke(main, ["validate", str(out / "ratings.csv")])
    assert result.exit_code == 0, result.output
    assert "score, scale 1-7 (declared)" in result.output
    words = " ".join(result.output.split())
    assert "scale of coherence: 1-5 (5 points, 1 = Very poor, 5 = Very good)" in words
    assert "scale of fluency: 1-7 (7 points, 1 = Very poor, 7 = Very good)" in words


def test_report_has_a_section_per_criterion_and_the_summary_table(demo):
    out, result = demo
    report = result.report
    assert [p.criterion for p in report.criteria] == ["coherence", "fluency"]
    table = report.criteria_table()
    for part in report.criteria:
        labels = part.analysis.systems.set_index("system")["label"]
        assert table[part.criterion].to_dict() == labels.to_dict()
    html = (out / "report" / "index.html").read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "Results: coherence" in text and "Results: fluency" in text
    assert 'id="criteria-table"' in html and 'id="criteria-correlations"' in html
    assert "Scale: 1-7 (7 points, 1 = Very poor, 7 = Very good)" in text
    first = table.index[0]
    assert f"{first} {table.loc[first, 'coherence']} {table.loc[first, 'fluency']}" in text
    saved = json.loads((out / "report" / "report.json").read_text())
    assert saved["criteria_summary"][0] == {"system": first, **table.loc[first].to_dict()}
    [pair] = saved["criterion_correlations"]
    assert pair["criterion_a"] == "coherence" and pair["n_judgements"] == 300
    md = (out / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Systems × criteria" in md and "| system | coherence | fluency |" in md
    assert "System & coherence & fluency" in (out / "report" / "results.tex").read_text()


def test_simulated_halo_shows_in_the_correlation_between_criteria(demo):
    _, result = demo
    [pair] = result.report.correlations.to_dict()
    # about 30 % of fluency answers copy coherence (rescaled): clearly positive, far from 1
    assert 0.2 < pair["rho_within_annotator"] < 0.8 and pair["n_annotators"] >= 10
