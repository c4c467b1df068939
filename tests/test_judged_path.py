"""Issue 38: one judge file for every command, and the defects met on the humans-plus-judge path.

Every test here failed on the main branch before the fix it names."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.core.judge_scores import read_judge_scores
from humaneval.ppi.simulate import judged_study


@pytest.fixture(scope="module")
def study():
    """Humans on 40 of 120 documents (blocks of 4 documents, 3 annotators) and a judge on all."""
    human, judge = judged_study(
        n_documents=120, n_systems=3, human_share=1 / 3, n_annotators=3, docs_per_block=4, seed=8
    )
    return human, judge.assign(judge="gpt")


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


# --- one pool file, every command ----------------------------------------------------------------------


def test_every_layout_reads_to_the_same_rows(study, tmp_path):
    _, judge = study
    pool = judge.iloc[:6]
    pool.to_csv(tmp_path / "pool.csv", index=False)
    pool.to_json(tmp_path / "pool.jsonl", orient="records", lines=True)
    mapping = {"gpt": dict(zip(pool["document"] + "|" + pool["system"], pool["score"], strict=True))}
    (tmp_path / "pool.json").write_text(json.dumps(mapping))
    table = pool.rename(columns={"judge": "annotator"}).assign(rater_kind="judge")
    people = table.assign(annotator="h1", rater_kind="human", score=3)
    pd.concat([people, table]).to_csv(tmp_path / "ratings.csv", index=False)
    pool.rename(columns={"judge": "model_name", "score": "rating"}).to_csv(
        tmp_path / "renamed.csv", index=False
    )
    expected = read_judge_scores(tmp_path / "pool.csv")[["judge", "document", "system", "score"]]
    assert expected["score"].tolist() == pool["score"].tolist()
    for source, columns in (
        (tmp_path / "pool.jsonl", None),
        (tmp_path / "pool.json", None),
        (tmp_path / "ratings.csv", None),
        (tmp_path / "renamed.csv", {"model_name": "judge", "rating": "score"}),
    ):
        found = read_judge_scores(source, columns=columns)[["judge", "document", "system", "score"]]
        pd.testing.assert_frame_equal(found.reset_index(drop=True), expected, check_exact=False, rtol=1e-12)


def test_judge_ppi_design_and_report_take_the_same_pool(study, tmp_path):
    human, judge = study
    human.to_csv(tmp_path / "ratings.csv", index=False)
    judge.rename(columns={"judge": "model"}).to_csv(tmp_path / "pool.csv", index=False)
    mapped = ["--judge-file", str(tmp_path / "pool.csv"), "--judge-column", "judge=model"]
    ppi = _run("ppi", str(tmp_path / "ratings.csv"), *mapped, "--judge", "gpt", "--resamples", "0", "--json")
    assert ppi.exit_code == 0, ppi.output
    assert json.loads(ppi.stdout)["judge"] == "gpt"
    # the judge command refused this file before ("missing required column 'annotator'"); 12 items per
    # human are too few for the alt-test, so it now stops there, after reading the pool
    verdict = _run("judge", str(tmp_path / "ratings.csv"), *mapped, "--resamples", "0")
    assert verdict.exit_code == 2 and "at least 30" in verdict.output, verdict.output
    design = _run(
        "design", "--judge-scores", str(tmp_path / "pool.csv"), "--judge-column", "judge=model",
        "--documents", "12", "--docs-per-block", "4", "--out", str(tmp_path / "design.csv"),
    )  # fmt: skip
    assert design.exit_code == 0, design.output


def test_judge_cli_reads_the_pool_layout(tmp_path):
    """The alt-test on ratings and a pool file ``document, system, score, judge``: the same verdict as
    on the ratings table with the judge's rows in it."""
    from humaneval.core.ratings import load_ratings
    from humaneval.judges.verdict import assess_judges

    human, judge = judged_study(
        n_documents=40, n_systems=3, human_share=1.0, n_annotators=3, docs_per_block=40, seed=2
    )
    human.to_csv(tmp_path / "ratings.csv", index=False)
    judge.assign(judge="gpt").to_csv(tmp_path / "pool.csv", index=False)
    result = _run("judge", str(tmp_path / "ratings.csv"), "--judge-file", str(tmp_path / "pool.csv"),
                  "--resamples", "0", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    merged = pd.concat(
        [human.assign(rater_kind="human"), judge.assign(annotator="gpt", rater_kind="judge")],
        ignore_index=True,
    )
    reference = assess_judges(load_ratings(merged, continuous=True), n_resamples=0)
    found = json.loads(result.stdout)["judges"][0]
    assert found["winning_rate"] == pytest.approx(reference.verdict["winning_rate"].iloc[0])
    assert found["advantage_probability"] == pytest.approx(reference.verdict["advantage_probability"].iloc[0])


# --- item 2: judge rows and one missing human time do not sink a report --------------------------------


def test_report_accepts_judge_rows_without_seconds_and_one_untimed_human_row(study, tmp_path):
    human, judge = study
    timed = human.assign(seconds=30.0, rater_kind="human")
    timed.loc[timed.index[5], "seconds"] = np.nan
    table = pd.concat([timed, judge.rename(columns={"judge": "annotator"}).assign(rater_kind="judge")])
    table.to_csv(tmp_path / "ratings.csv", index=False)
    out = tmp_path / "report"
    result = _run("report", str(tmp_path / "ratings.csv"), "--continuous", "--out", str(out),
                  "--power-trials", "0", "--clmm-power-trials", "0", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    # the human rows' total time: every human row but one at 30 s
    assert report["study"]["total_hours"] == pytest.approx((len(human) - 1) * 30 / 3600)
    assert any("1 of 360 human ratings have no time" in w for w in report["warnings"])
    assert report["ppi"][0]["judge"] == "gpt"


# --- item 5: the defects -------------------------------------------------------------------------------


def test_ppi_with_design_probabilities_has_no_traceback(study, tmp_path):
    human, judge = study
    human.to_csv(tmp_path / "ratings.csv", index=False)
    judge.to_csv(tmp_path / "pool.csv", index=False)
    documents = sorted(judge["document"].unique())
    pd.DataFrame({"document": documents, "probability": 1 / 3}).to_csv(tmp_path / "p.csv", index=False)
    result = _run("ppi", str(tmp_path / "ratings.csv"), "--judge-file", str(tmp_path / "pool.csv"),
                  "--probabilities", str(tmp_path / "p.csv"), "--resamples", "200", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    systems = json.loads(result.stdout)["systems"]
    assert all(row["boot_ci_low"] is None for row in systems)  # IPW estimates get no PPBoot interval
    assert json.loads(result.stdout)["weighting"] == "inverse-probability"


def test_calibration_design_with_too_few_items_per_human_is_refused(study, tmp_path):
    _, judge = study
    judge.to_csv(tmp_path / "pool.csv", index=False)
    result = _run("design", "--judge-scores", str(tmp_path / "pool.csv"), "--calibration-items", "60",
                  "--docs-per-block", "3", "--out", str(tmp_path / "design.csv"))  # fmt: skip
    assert result.exit_code == 2
    assert "gives each human 6–9 items, but the alt-test needs at least 30" in result.output
    fine = _run("design", "--judge-scores", str(tmp_path / "pool.csv"), "--calibration-items", "60",
                "--docs-per-block", "10", "--out", str(tmp_path / "design.csv"))  # fmt: skip
    assert fine.exit_code == 0, fine.output


def test_budget_pilot_leaves_attention_checks_out(study, tmp_path):
    human, judge = study
    checks = human.iloc[:30].assign(document=lambda f: "check-" + f["document"], score=1, is_check=True)
    check_scores = checks.drop_duplicates(["document", "system"])[["document", "system"]].assign(score=5.0)
    pilot = pd.concat([human.assign(is_check=False), checks])
    pilot.to_csv(tmp_path / "pilot.csv", index=False)
    human.to_csv(tmp_path / "clean.csv", index=False)
    pd.concat([judge, check_scores.assign(judge="gpt")]).to_csv(tmp_path / "pool.csv", index=False)
    plans = []
    for name in ("pilot.csv", "clean.csv"):
        pool = str(tmp_path / "pool.csv")
        result = _run("budget", "--judge-pilot", str(tmp_path / name), "--judge-file", pool,
                      "--judge-cost", "0.01", "--target-width", "0.5", "--json")  # fmt: skip
        assert result.exit_code == 0, result.output
        plans.append(json.loads(result.stdout))
    assert plans[0]["sd"] == pytest.approx(plans[1]["sd"], rel=1e-12)
    assert plans[0]["correlation"] == pytest.approx(plans[1]["correlation"], rel=1e-12)


def test_active_draw_says_how_many_documents_it_chose(study, tmp_path):
    _, judge = study
    rng = np.random.default_rng(0)
    other = judge.assign(judge="claude", score=judge["score"] + rng.normal(0, 1, len(judge)))
    pd.concat([judge, other]).to_csv(tmp_path / "pool.csv", index=False)
    result = _run("design", "--judge-scores", str(tmp_path / "pool.csv"), "--documents", "25", "--choose",
                  "active", "--docs-per-block", "5", "--seed", "3",
                  "--out", str(tmp_path / "design.csv"))  # fmt: skip
    assert result.exit_code == 0, result.output
    drawn = int(pd.read_csv(tmp_path / "design.probabilities.csv")["selected"].sum())
    assert drawn != 25  # this seed's independent draws do not land on 25
    assert f"the active draw chose {drawn} of the 25 documents asked for" in result.output


def test_several_judges_are_not_averaged_silently_for_stratification(study, tmp_path):
    _, judge = study
    other = judge.assign(judge="claude", score=-judge["score"])
    pd.concat([judge, other]).to_csv(tmp_path / "pool.csv", index=False)
    args = ["design", "--judge-scores", str(tmp_path / "pool.csv"), "--documents", "20", "--choose",
            "stratified", "--docs-per-block", "5", "--out", str(tmp_path / "design.csv")]  # fmt: skip
    refused = _run(*args)
    assert refused.exit_code == 2
    assert "the pool holds 2 judges (claude, gpt)" in refused.output and "--judge NAME" in refused.output
    chosen = _run(*args, "--judge", "claude")
    assert chosen.exit_code == 0, chosen.output
    picks = pd.read_csv(tmp_path / "design.probabilities.csv")
    means = other.groupby("document")["score"].mean()
    np.testing.assert_allclose(picks.set_index("document")["judge_mean"], means.reindex(picks["document"]))


def test_ids_that_never_match_say_so_and_show_one_of_each(study, tmp_path):
    human, judge = study
    human.to_csv(tmp_path / "ratings.csv", index=False)
    judge.assign(document="doc-" + judge["document"]).to_csv(tmp_path / "pool.csv", index=False)
    result = _run("ppi", str(tmp_path / "ratings.csv"), "--judge-file", str(tmp_path / "pool.csv"))
    assert result.exit_code == 2
    assert "no document–system id of the human ratings matches" in result.output
    assert "'d0000'" in result.output or "document 'd0" in result.output
    assert "document 'doc-d0" in result.output


def test_reference_page_lists_functions_that_import_from_the_path_it_gives():
    """docs/reference.md's table of entry points: every name imports from its package (8 of the 11
    judge functions did not), and the humaneval.ppi package is listed."""
    import importlib
    import re
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "reference.md").read_text()
    rows = re.findall(r"^\| `(humaneval[\w.]*)` \| (.*?) \|$", text, re.M)
    assert "humaneval.ppi" in {package for package, _ in rows}
    missing = [
        f"{package}.{name}"
        for package, names in rows
        for name in re.findall(r"`(\w+)`", names)
        if not hasattr(importlib.import_module(package), name)
    ]
    assert missing == []


@pytest.mark.parametrize(
    ("content", "name", "extra", "message"),
    [
        ("[1, 2]", "bad.json", [], "the file holds a JSON list; the layout is {judge: {item: label}}"),
        (
            "document,system,score\nd0000,s0,high\n",
            "bad.csv",
            [],
            "score 'high' at row 0 is not a finite number",
        ),
        (
            "document,system,score\nd0000,s0,inf\n",
            "inf.csv",
            [],
            "score 'inf' at row 0 is not a finite number",
        ),
        ("passage,system,score\nd0000,s0,1\n", "cols.csv", [], "no column document"),
        (
            "document,system,score\nd0000,s0,1\n",
            "map.csv",
            ["--judge-column", "judge=nosuch"],
            "no column 'nosuch'",
        ),
        (
            "document,system,score\nd0000,s0,1\n",
            "map2.csv",
            ["--judge-column", "nonsense"],
            "write CANONICAL=NAME",
        ),
    ],
)
def test_a_bad_judge_file_is_one_line_on_every_command(study, tmp_path, content, name, extra, message):
    human, _ = study
    human.to_csv(tmp_path / "ratings.csv", index=False)
    (tmp_path / name).write_text(content)
    for command in ("ppi", "judge", "analyze", "report"):
        args = [command, str(tmp_path / "ratings.csv"), "--judge-file", str(tmp_path / name), *extra]
        if command == "report":
            args += ["--out", str(tmp_path / "r")]
        result = _run(*args)
        assert result.exit_code == 2, (command, result.output)
        assert message in result.output and result.output.count("\n") == 1, (command, result.output)
