"""Several criteria: the joint model (system * criterion) from analyze, the CLI and the report; the report's
cautions one bullet per kind naming the criteria; power shows each criterion's table."""

from __future__ import annotations

import json
import warnings

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import analyze, analyze_criteria, joint
from humaneval.cli import main
from humaneval.clmm.model import default_model
from humaneval.core.ratings import as_ratings
from humaneval.report import ReportSettings, build_report
from humaneval.report.cautions import Caution, caution_kind, merge_criteria
from humaneval.simulate.designs import SimDesign

CRITERIA = ("coherence", "fluency", "relevance")


@pytest.fixture(scope="module")
def study():
    model = default_model()
    design = SimDesign.parse("6x5x3").table(model.system_names)
    parts = [model.sample(design, seed=i).data.assign(criterion=c) for i, c in enumerate(CRITERIA)]
    return as_ratings(pd.concat(parts, ignore_index=True))


def test_analyze_fits_the_joint_model_once_and_slices_it(study):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joint = analyze_criteria(study)
        one = analyze(study, criterion="fluency")
    fits = {id(a.fit) for a in joint.analyses}
    assert len(fits) == 1 and "system * criterion" in one.fit.formula
    mine = joint.analyses[1]
    assert mine.criterion == "fluency" and mine.fit.loglik == pytest.approx(one.fit.loglik, abs=1e-8)
    pd.testing.assert_frame_equal(mine.contrasts, one.contrasts)
    # the within-criterion contrast is the emmeans contrast of the joint fit: Tukey over the 10 pairs
    assert set(mine.contrasts["adjust"]) == {"tukey"} and len(mine.contrasts) == 10


def test_the_joint_fit_is_kept_for_the_next_criterion(study, monkeypatch):
    fits = []
    fit_once = joint.formula_analysis
    monkeypatch.setattr(joint, "formula_analysis", lambda *a, **k: fits.append(a) or fit_once(*a, **k))
    monkeypatch.setattr(joint, "_FITS", type(joint._FITS)())
    said = []
    for name in ("coherence", "relevance"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            found = analyze(as_ratings(study.data.copy()), criterion=name)  # the same rows, a new table
        said.append([(w.category, str(w.message)) for w in caught])
        found.contrasts["estimate"] = 0.0  # the caller's copy: the kept fit is not touched
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = analyze_criteria(study)
    assert len(fits) == 1 and said[0] and said[0] == said[1]  # the fit's warnings are said again
    assert whole.analyses[2].fit is found.fit and (whole.analyses[2].contrasts["estimate"] != 0).all()
    changed = study.data.copy()
    changed.loc[0, "score"] = 6 - changed.loc[0, "score"]
    assert joint._fingerprint(as_ratings(changed)) != joint._fingerprint(study)


def test_the_report_uses_the_joint_model_and_one_bullet_per_kind(study):
    settings = ReportSettings(power_trials=0, n_resamples=100, n_splits=10, mean_resamples=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = build_report(study, settings=settings)
    assert all("system * criterion" in part.analysis.fit.formula for part in report.criteria)
    kinds = [caution_kind(w, CRITERIA) for w in report.warnings]
    assert len(kinds) == len(set(kinds)), report.warnings
    per_criterion = [w for p in report.criteria for w in p.warnings]
    assert len(report.warnings) < len(per_criterion)


def test_cautions_that_differ_by_number_are_one_bullet_naming_each_criterion():
    parts = [
        ("coherence", [Caution(2, "α is 0.61 [0.50, 0.70]."), Caution(1, "Shared.")]),
        ("fluency", [Caution(2, "α is 0.48 [0.40, 0.57]."), Caution(1, "Shared.")]),
        ("relevance", [Caution(3, "Only here.")]),
    ]
    merged = merge_criteria([], parts)
    assert merge_criteria([], parts[:2])[0] == "Shared."  # held by every criterion: no names
    assert merged == [
        "coherence, fluency: Shared.",
        "coherence, fluency: α is … […, …] (coherence: 0.61, 0.50, 0.70; fluency: 0.48, 0.40, 0.57).",
        "relevance: Only here.",
    ]


def test_power_on_a_multi_criterion_design_shows_each_criterion(tmp_path):
    design = tmp_path / "design.csv"
    made = CliRunner().invoke(
        main,
        ["design", "--documents", "20", "--systems", "ref,A,B", "--criteria", "coherence,fluency",
         "--out", str(design)],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    args = ["power", "--design", str(design), "--tests", "ttest", "--aggregate", "document", "--trials", "5"]
    out = CliRunner().invoke(main, [*args, "--no-calibration", "--no-progress"])
    assert out.exit_code == 0, out.output
    assert "design.csv[coherence]" in out.output and "design.csv[fluency]" in out.output
    payload = json.loads(CliRunner().invoke(main, [*args, "--no-calibration", "--json"]).stdout)
    assert [c["criterion"] for c in payload["criteria"]] == ["coherence", "fluency"]
