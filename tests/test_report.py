"""The study report: same numbers as ``humaneval analyze``/``reliability``, rendered in headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.core.ratings import load_ratings
from humaneval.core.structure import describe_structure
from humaneval.design import block_design
from humaneval.report.cautions import design_cautions
from humaneval.report.means import mean_intervals
from humaneval.report.power import power_note
from humaneval.simulate import simulate
from tests._browser import launch_chromium
from tests.conftest import TABLE_3_2_LIKERT, shared_file

TIMING_KEYS = {"fit_seconds", "seconds"}


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result


def without_timing(value):
    """The JSON without wall-clock fields, which differ between two runs of the same fit."""
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


@pytest.fixture(scope="module")
def likert_report(tmp_path_factory):
    """``humaneval report`` on the reference Likert data (native engine, small power runs)."""
    likert = shared_file("steen2021", "likert_coherence_cnn_dm.csv")
    times = shared_file("steen2021", "times", "likert_coherence_cnn_dm.csv")
    out = tmp_path_factory.mktemp("report")
    result = run(
        "report",
        str(likert),
        "--engine",
        "native",
        "--times",
        str(times),
        "--power-trials",
        "50",
        "--clmm-power-trials",
        "0",
        "--out",
        str(out),
        "--json",
    )
    payload = json.loads(result.stdout)
    return likert, times, out, payload


def test_report_shows_the_numbers_of_analyze_and_reliability(likert_report):
    likert, times, out, payload = likert_report
    assert set(payload["files"]) >= {"html", "json", "markdown", "latex", "means", "significance"}
    report = json.loads((out / "report.json").read_text())
    [part] = report["criteria"]
    document = json.loads(run("analyze", str(likert), "--engine", "native", "--json").stdout)
    analysis = {"file": document["file"], **document["criteria"][0]}  # analyze --json: {file, criteria}
    reliability = json.loads(run("reliability", str(likert), "--json", "--times", str(times)).stdout)
    assert without_timing(part["analysis"]) == without_timing(analysis)
    assert part["reliability"] == {"file": reliability["file"], **reliability["criteria"][0]}
    # the reference values (spec §2.8, §3.2, §5.7): α 0.221, SHR 0.96, 9 of 10 pairs
    assert part["reliability"]["alpha"] == pytest.approx(0.2211, abs=5e-4)
    assert 0.95 <= part["reliability"]["shr"] <= 0.965
    assert sum(c["better"] is not None for c in part["analysis"]["contrasts"]) == 9
    labels = {g["system"]: g["label"] for g in part["means"]}
    assert labels == TABLE_3_2_LIKERT
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (out / "index.html").read_text()))
    rel = reliability["criteria"][0]
    assert f"{rel['alpha']:.3f}" in text and f"[{rel['alpha_ci'][0]:.3f}, {rel['alpha_ci'][1]:.3f}]" in text
    assert f"{rel['shr']:.3f}" in text and f"{rel['fleiss_kappa']:.3f}" in text
    for c in analysis["contrasts"]:
        row = f"{c['system_a']} − {c['system_b']} {c['estimate']:.3f} {c['se']:.3f} {c['z']:.2f}"
        assert row in text, row
        assert f"[{c['ci_low']:.3f}, {c['ci_high']:.3f}]" in text
    for g in analysis["groups"]:
        assert f"{g['system']} {g['mean']:.2f}" in text and f"({g['rank_group']})" in text
    assert "9 of 10 system pairs differ significantly" in text
    assert "Every summary was judged 3 times" in text  # design warning in plain words
    assert "__REFERENCE__ – abssentrw" in text  # the non-significant pair is flagged as underpowered


def test_latex_and_markdown_exports(likert_report):
    _, _, out, _ = likert_report
    tex = (out / "results.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex
    assert "\\_\\_REFERENCE\\_\\_ & 4.33$^{(3/4)}$" in tex
    assert len(re.findall(r"\\\\$", tex, flags=re.M)) == 6  # header + 5 systems
    md = (out / "report.md").read_text()
    assert "| BART | 5.25 |" in md and "![System means with 95% intervals and rank groups](means.png)" in md
    assert "| \\_\\_REFERENCE\\_\\_ | 4.33 |" in md  # underscores would make it bold


def test_power_note_is_the_simulation_of_the_observed_design():
    model = default_model()
    ratings = sample_ratings(model, block_design(8, 5, 3, model.system_names, seed=3), seed=3)
    note = power_note(model, describe_structure(ratings), trials=40, clmm_trials=0, seed=5)
    assert (note.design.blocks, note.design.docs, note.design.annotators) == (8, 5, 3)
    assert not note.approximate
    direct = simulate(model, "8x5x3", ("artagg",), trials=40, seed=5).results
    direct = direct[direct["pair"] != "all"].set_index("pair")
    assert np.allclose(note.pairs.set_index("pair")["artagg"], direct.loc[note.pairs["pair"], "rate"])
    # the intervals are the simulation's own Clopper–Pearson ones, as `humaneval power` prints them
    shown = note.pairs.set_index("pair")[["artagg_ci_low", "artagg_ci_high"]].to_numpy()
    assert np.allclose(shown, direct.loc[note.pairs["pair"], ["ci_low", "ci_high"]].to_numpy())
    assert note.pairs[["clmm", "clmm_ci_low", "clmm_ci_high"]].isna().all().all()
    assert note.smallest_pair == "__REFERENCE__ - abssentrw"
    assert note.smallest_difference == pytest.approx(0.2453, abs=1e-3)  # β of abssentrw
    # the search stops at the first design of each shape reaching the target
    for _, shape in note.search.groupby("annotators", sort=False):
        assert (shape["power"].iloc[:-1] < 0.8).all()
    if note.reaching is not None:
        assert note.reaching["power"] >= 0.8
        assert note.reaching["judgements"] == note.search.loc[note.search["power"] >= 0.8, "judgements"].min()


def test_power_note_simulates_the_planned_table_when_given(tmp_path):
    """With the planned design table the per-pair power is that table's, row by row, and the page says so."""
    from humaneval.report.power import planned_tables
    from humaneval.report.sections.power import planned_description
    from humaneval.simulate.table_design import TableDesign

    model = default_model()
    plan = block_design(8, 5, 3, model.system_names, seed=3)
    plan = plan[~((plan["block"] == 7) & (plan["annotator"] == plan["annotator"].iloc[-1]))]  # one left
    plan.to_csv(tmp_path / "plan.csv", index=False)
    [(key, table)] = planned_tables(tmp_path / "plan.csv").items()
    assert key == "" and isinstance(table, TableDesign) and table.judgements() == len(plan) == 575
    assert planned_tables(tmp_path / "missing.csv") == {}
    ratings = sample_ratings(model, plan, seed=3)
    note = power_note(model, describe_structure(ratings), trials=40, clmm_trials=0, seed=5, planned=table)
    direct = simulate(model, table, ("artagg",), trials=40, seed=5).results.set_index("pair")
    assert np.allclose(note.pairs.set_index("pair")["artagg"], direct.loc[note.pairs["pair"], "rate"])
    assert note.to_dict()["planned"]["judgements"] == 575
    assert planned_description(note.planned) == (
        "the planned table plan.csv, simulated row by row as planned "
        "(575 judgements, 8 blocks, 23 annotators)"
    )


def test_mean_intervals_resample_blocks():
    # 6 blocks of unequal size (one annotator–document component each); y is missing from block 5
    frame = pd.DataFrame(
        {
            "annotator": ["a", "a", "b", "b", "c", "c", "c", "d", "e", "e", "f", "f", "g", "g"],
            "document": ["d1", "d1", "d2", "d2", "d3", "d3", "d4", "d4", "d5", "d8", "d6", "d6", "d7", "d7"],
            "system": ["x", "y"] * 3 + ["x", "x", "x", "x", "x", "y", "x", "y"],
            "score": [1, 2, 3, 5, 4, 4, 2, 6, 5, 3, 2, 2, 6, 1],
        }
    )
    ratings = load_ratings(frame)
    got, interval = mean_intervals(ratings, n_resamples=300, seed=7)
    got = got.set_index("system")
    assert got.loc["x", "mean"] == pytest.approx(frame.loc[frame["system"] == "x", "score"].mean())
    # independent loop: the same block draws (scipy.stats.bootstrap draws rng.integers(0, C, (n, C))),
    # the pooled mean of the drawn blocks, percentiles over the resamples where the system occurs
    blocks = [
        frame.iloc[:2],
        frame.iloc[2:4],
        frame.iloc[4:8],
        frame.iloc[8:10],
        frame.iloc[10:12],
        frame.iloc[12:],
    ]
    draws = np.random.default_rng(7).integers(0, 6, size=(300, 6))
    boot = np.array(
        [
            pd.concat([blocks[i] for i in d]).groupby("system")["score"].mean().reindex(["x", "y"])
            for d in draws
        ]
    )
    low, high = np.nanpercentile(boot, [2.5, 97.5], axis=0)
    assert got[["ci_low", "ci_high"]].to_numpy() == pytest.approx(np.c_[low, high])
    assert interval.n_clusters == 6 and "only 6 independent blocks to resample" in interval.caveat
    # 3 blocks: 10 distinct resamples, no interval estimate
    three, three_interval = mean_intervals(load_ratings(frame.iloc[:8]), n_resamples=50)
    assert three["ci_low"].isna().all() and three["ci_high"].isna().all()
    assert "10 distinct resamples" in three_interval.caveat
    single, _ = mean_intervals(load_ratings(frame.iloc[:2]), n_resamples=50)
    assert single["ci_low"].isna().all()


def test_design_warnings_in_plain_words():
    model = default_model()
    crossed = sample_ratings(model, block_design(1, 10, 3, model.system_names, seed=1), seed=1)
    text = " ".join(c.text for c in design_cautions(describe_structure(crossed)))
    assert "3 annotators judged everything: classic tests" in text
    assert "Only 1 independent block:" in text and "Only 10 documents" in text
    nested = sample_ratings(model, block_design(60, 5, 1, model.system_names, seed=1), seed=1)
    assert design_cautions(describe_structure(nested)) == []


@pytest.mark.browser
def test_report_renders_cleanly_in_chromium(likert_report):
    from playwright.sync_api import sync_playwright

    _, _, out, _ = likert_report
    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto((Path(out) / "index.html").resolve().as_uri())
        page.wait_for_load_state("load")
        widths = page.evaluate("[...document.images].map(i => [i.getAttribute('src'), i.naturalWidth])")
        scroll = page.evaluate("document.documentElement.scrollWidth")
        body = page.inner_text("body")
        browser.close()
    assert errors == []
    assert len(widths) == 5 and all(w > 0 for _, w in widths), widths
    assert scroll <= 1280
    assert "Krippendorff’s α (ordinal)" in body and "0.221" in body


def test_nested_design_reports_without_agreement(tmp_path):
    from humaneval.report import ReportSettings, build_report, write_report

    model = default_model()
    ratings = sample_ratings(model, block_design(30, 5, 1, model.system_names, seed=4), seed=4)
    settings = ReportSettings(engine="native", n_resamples=1000, n_splits=100, power_trials=0)
    report = build_report(ratings, settings=settings)
    files = write_report(report, tmp_path)
    [part] = report.criteria
    assert part.analysis.fit.structure == "nested" and part.reliability is None and part.power is None
    assert any("every summary was judged once" in w for w in report.warnings)
    assert np.isfinite(part.table[["ci_low", "ci_high"]].to_numpy()).all()  # 30 blocks to resample
    assert "Not computed: every summary was judged once" in files["html"].read_text()
    assert json.loads(files["json"].read_text())["criteria"][0]["reliability"] is None


def test_one_results_section_per_criterion(tmp_path):
    from humaneval.report import ReportSettings, build_report, write_report

    model = default_model()
    design = block_design(8, 5, 2, model.system_names, seed=6)
    parts = [
        sample_ratings(model.with_effects(scale), design, seed=6).data.assign(criterion=name)
        for name, scale in (("coherence", 1.0), ("repetition", 0.5))
    ]
    ratings = load_ratings(pd.concat(parts, ignore_index=True))
    settings = ReportSettings(engine="native", n_resamples=1000, n_splits=100, power_trials=0)
    report = build_report(ratings, settings=settings)
    files = write_report(report, tmp_path)
    assert [c.criterion for c in report.criteria] == ["coherence", "repetition"]
    assert {"means-coherence", "means-repetition", "significance-repetition"} <= set(files)
    html = files["html"].read_text()
    assert "Results: coherence" in html and "Results: repetition" in html
    payload = json.loads(files["json"].read_text())
    # one joint model of both criteria (issue 29): 2 × 8 blocks × 5 documents × 2 annotators × 5 systems
    assert [c["analysis"]["diagnostics"]["nobs"] for c in payload["criteria"]] == [800, 800]
    assert all("system * criterion" in c["analysis"]["formula"] for c in payload["criteria"])
    # one bullet per kind of caution, naming the criteria it concerns (issue 29)
    assert any("repetition" in w for w in payload["warnings"])
    from humaneval.report.cautions import caution_kind

    kinds = [caution_kind(w, ("coherence", "repetition")) for w in payload["warnings"]]
    assert len(kinds) == len(set(kinds))


def test_system_names_are_escaped_in_html_and_latex(tmp_path):
    from humaneval.report import ReportSettings, build_report, write_report

    model = default_model()
    ratings = sample_ratings(model, block_design(6, 5, 2, model.system_names, seed=8), seed=8)
    hostile = {"BART": "<script>alert(1)</script>", "seneca": "R&D_100%"}
    data = ratings.data.assign(system=ratings.data["system"].astype(str).replace(hostile))
    settings = ReportSettings(engine="native", n_resamples=1000, n_splits=50, power_trials=0)
    files = write_report(build_report(load_ratings(data), settings=settings), tmp_path)
    html = files["html"].read_text()
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "R&amp;D_100%" in html
    tex = files["latex"].read_text()
    assert "R\\&D\\_100\\%" in tex and "\\textless{}script\\textgreater{}alert(1)" in tex


@pytest.mark.r
def test_report_with_the_r_engine(tmp_path, likert_path):
    result = run(
        "report", str(likert_path), "--engine", "r", "--analysis-model", "intercepts", "--power-trials", "0",
        "--out", str(tmp_path), "--json",
    )  # fmt: skip
    part = json.loads((tmp_path / "report.json").read_text())["criteria"][0]
    analysis = part["analysis"]
    assert analysis["engine"] == "r" and analysis["structure"] == "intercepts"
    assert analysis["diagnostics"]["loglik"] == pytest.approx(-2577.45, abs=0.05)  # spec §5.7
    beta = {f["system"]: f["estimate"] for f in analysis["fixed_effects"]}
    assert [beta[s] for s in ("abssentrw", "BART", "onmt_pg", "seneca")] == pytest.approx(
        [-0.2268, 1.1858, 0.6246, -1.0316], abs=1e-3
    )
    assert {"R", "ordinal", "emmeans", "rpy2"} <= set(analysis["versions"])
    assert json.loads(result.stdout)["files"]["html"].endswith("index.html")


def test_bad_inputs_are_one_line_errors(tmp_path, likert_path):
    for args in (
        ["report", str(tmp_path)],
        ["report", str(likert_path), "--model-file", str(tmp_path / "no.json")],
    ):
        result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out")])
        assert result.exit_code == 2
        assert result.output.count("\n") == 1 and result.output.startswith("error: ")


def test_reliability_caution_without_a_recorded_reason():
    # a criterion with neither a reliability report nor its error crashed on None.rstrip
    from types import SimpleNamespace

    from humaneval.report.cautions import _reliability_cautions

    part = SimpleNamespace(reliability=None, agreement=None, reliability_error=None)
    assert [c.text for c in _reliability_cautions(part)] == ["Reliability was not computed."]
    part.reliability_error = "too few annotators."
    assert [c.text for c in _reliability_cautions(part)] == [
        "Reliability was not computed: too few annotators."
    ]


def test_pairwise_table_with_a_judge_reports_ppi_strengths(tmp_path):
    # a pairwise table with a judge gets prediction-powered Bradley–Terry strengths, in the report as
    # in humaneval ppi (issue 38; the report once dropped them with a note)
    from humaneval.report.build import ReportSettings, build_report
    from humaneval.report.render import write_report

    rng = np.random.default_rng(0)
    systems = ["A", "B", "C"]
    rows = []
    for d in range(30):
        for i, a in enumerate(systems):
            for b in systems[i + 1 :]:
                for annotator in ("h1", "h2") if d < 12 else ():
                    rows.append((annotator, f"d{d}", a, b, float(rng.random() < 0.6)))
                rows.append(("j", f"d{d}", a, b, float(rng.random() < 0.6)))
    frame = pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score"])
    settings = ReportSettings(n_resamples=1000, n_splits=10, power_trials=0, mean_resamples=100)
    report = build_report(load_ratings(frame, judges="j"), settings=settings)
    assert [a.test for a in report.ppi] == ["ppi-bradley-terry"]
    from humaneval.analysis import analyze

    alone = analyze(load_ratings(frame, judges="j"), judge="j", seed=settings.seed)
    assert report.ppi[0].to_dict()["contrasts"] == alone.to_dict()["contrasts"]
    html = write_report(report, tmp_path / "out")["html"]
    assert html == tmp_path / "out" / "index.html" and "System strengths with judge j" in html.read_text()
