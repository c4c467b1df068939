"""One table, one model: ``analyze()``, ``humaneval analyze --json`` and ``humaneval report`` agree for
every table kind (Likert, several criteria, ranking, best–worst, pairwise)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import ADAPTERS, SystemAnalysis, adapter_for, analyze, joint
from humaneval.cli import main
from humaneval.comparative import ComparativeAnalysis
from humaneval.comparative.simulate import (
    simulate_bws_study,
    simulate_pairwise_study,
    simulate_ranking_study,
)
from humaneval.core.ratings import as_ratings
from humaneval.errors import OptionError
from humaneval.io.datasets import wine_ratings

STRENGTHS = [0.6, 0.0, -0.6]
LAYOUT = {"blocks": 4, "docs_per_block": 3, "annotators_per_block": 3, "seed": 5}


def _two_criteria() -> pd.DataFrame:
    table = wine_ratings()
    return pd.concat(
        [table.assign(criterion="bitterness"), table.assign(criterion="sweetness", score=6 - table["score"])]
    )


TABLES = {
    "likert": (wine_ratings, "clmm", "clmm"),
    "criteria": (_two_criteria, "clmm", "clmm"),
    "ranking": (lambda: simulate_ranking_study(STRENGTHS, **LAYOUT), "clmm", "clmm"),
    "bws": (lambda: simulate_bws_study([*STRENGTHS, 0.3, -0.3], **LAYOUT), "comparative", "maxdiff"),
    "pairwise": (lambda: simulate_pairwise_study(STRENGTHS, **LAYOUT), "comparative", "mixed-bradley-terry"),
}


def _api(table: pd.DataFrame) -> list[dict]:
    ratings = as_ratings(table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = [analyze(ratings, criterion=name) for name in ratings.criteria]
    assert all(isinstance(result, SystemAnalysis) for result in found)
    return [result.to_dict() for result in found]


#: The CLMM's compiled and numpy paths agree to 1e-8 (tests/test_clmm_scalar.py); which one a fit takes
#: depends on the fits before it in the process (humaneval.clmm.compiled), and the three doors here run
#: in one process.
RTOL = 1e-7


def _same(left: dict, right: dict) -> None:
    """Same model, estimates and p-values (JSON round trip: compare as floats)."""
    for key in ("test", "kind", "criterion", "structure", "formula", "reference"):
        assert left[key] == right[key], key
    for key in ("contrasts", "groups"):
        a, b = pd.DataFrame(left[key]), pd.DataFrame(right[key])
        np.testing.assert_allclose(a["estimate"].astype(float), b["estimate"].astype(float), rtol=RTOL)
    a, b = pd.DataFrame(left["contrasts"]), pd.DataFrame(right["contrasts"])
    assert list(a["system_a"]) == list(b["system_a"]) and list(a["system_b"]) == list(b["system_b"])
    for key in ("p_adj", "p_unadj", "se"):
        np.testing.assert_allclose(a[key].astype(float), b[key].astype(float), rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize("kind", list(TABLES))
def test_api_cli_and_report_fit_the_same_model(kind, tmp_path):
    make, adapter, model = TABLES[kind]
    table = make()
    path = tmp_path / f"{kind}.csv"
    table.to_csv(path, index=False)
    joint._FITS.clear()  # each door fits for itself: the same numbers come from the same decision
    api = _api(table)
    joint._FITS.clear()
    assert adapter_for(table, api[0]["criterion"])[0].name == adapter
    assert api[0]["test"] == model
    cli = CliRunner().invoke(main, ["analyze", str(path), "--json"])
    assert cli.exit_code == 0, cli.output
    cli_parts = json.loads(cli.stdout)["criteria"]
    joint._FITS.clear()
    out = tmp_path / "report"
    report = CliRunner().invoke(
        main,
        ["report", str(path), "--out", str(out), "--power-trials", "0", "--clmm-power-trials", "0", "--json"],
    )
    assert report.exit_code == 0, report.output
    report_parts = [c["analysis"] for c in json.loads((out / "report.json").read_text())["criteria"]]
    assert len(api) == len(cli_parts) == len(report_parts) == (2 if kind == "criteria" else 1)
    if kind == "criteria":  # several criteria: one joint model, from every door
        assert all("system * criterion" in part["formula"] for part in (*api, *cli_parts, *report_parts))
    for mine, theirs, reported in zip(api, cli_parts, report_parts, strict=True):
        _same(mine, theirs)
        _same(mine, reported)


def test_pairwise_table_gets_bradley_terry_not_a_clmm_of_win_scores():
    table = simulate_pairwise_study(STRENGTHS, **LAYOUT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(table)
    assert isinstance(result, ComparativeAnalysis)
    assert result.test == "mixed-bradley-terry" and result.kind == "pairwise"
    # strengths ordered as simulated (0.6 > 0 > −0.6)
    assert list(result.systems["system"]) == ["s0", "s1", "s2"]


def test_every_method_names_a_registered_adapter():
    import humaneval.spans  # noqa: F401  (registers the spans adapter with the analysis layer)
    from humaneval.methods import METHODS

    assert {m.analysis for m in METHODS.values()} <= set(ADAPTERS)


def test_inference_is_refused_for_the_clmm():
    with pytest.raises(OptionError, match="inference 'two-way' applies to pairwise"):
        analyze(wine_ratings(), inference="two-way")


def test_plackett_luce_is_for_rankings_only():
    with pytest.raises(OptionError, match="Plackett–Luce model is for ranking tables"):
        analyze(wine_ratings(), "plackett-luce")
    ranking = simulate_ranking_study(STRENGTHS, **LAYOUT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(ranking, "plackett-luce", n_resamples=50)
    assert result.test == "plackett-luce" and result.kind == "ranking"


# --- humans and a judge: analyze(..., judge=J) = analyze --judge = ppi = the report's PPI section ---


def _judged_likert(seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    from humaneval.ppi.simulate import judged_study

    human, judge = judged_study(
        n_documents=90, n_systems=3, human_share=0.4, n_annotators=3, docs_per_block=4, seed=seed
    )
    return human, judge.assign(judge="gpt")


def _judged_criteria() -> tuple[pd.DataFrame, pd.DataFrame]:
    parts = [_judged_likert(seed) for seed in (3, 4)]
    human = pd.concat(
        [h.assign(criterion=c) for (h, _), c in zip(parts, ("fluency", "relevance"), strict=True)]
    )
    judge = pd.concat(
        [j.assign(criterion=c) for (_, j), c in zip(parts, ("fluency", "relevance"), strict=True)]
    )
    return human, judge


def _judged_pairwise() -> tuple[pd.DataFrame, pd.DataFrame]:
    table = simulate_pairwise_study(
        [0.5, 0.0, -0.4], blocks=60, docs_per_block=3, annotators_per_block=2, seed=7
    )
    judge = table[table["annotator"] == table.groupby("block")["annotator"].transform("first")]
    judge = judge.drop(columns=["annotator", "block"]).assign(judge="gpt")
    return table[table["block"] < 20].drop(columns="block"), judge


JUDGED = {
    "likert": (_judged_likert, "mean", "ppi-mean"),
    "criteria": (_judged_criteria, "mean", "ppi-mean"),
    "ordinal": (_judged_likert, "ordinal", "ppi-ordinal"),
    "pairwise": (_judged_pairwise, "mean", "ppi-bradley-terry"),
}


def _same_ppi(left: dict, right: dict) -> None:
    assert (left["test"], left["judge"], left["criterion"]) == (
        right["test"],
        right["judge"],
        right["criterion"],
    )
    a, b = pd.DataFrame(left["groups"]), pd.DataFrame(right["groups"])
    assert list(a["system"]) == list(b["system"]) and list(a["letters"]) == list(b["letters"])
    np.testing.assert_allclose(a["estimate"].astype(float), b["estimate"].astype(float), rtol=1e-12)
    a, b = pd.DataFrame(left["contrasts"]), pd.DataFrame(right["contrasts"])
    assert list(a["system_a"]) == list(b["system_a"]) and list(a["system_b"]) == list(b["system_b"])
    for column in ("estimate", "se", "p_adj", "ci_low", "ci_high"):
        np.testing.assert_allclose(
            a[column].astype(float), b[column].astype(float), rtol=1e-12, err_msg=column
        )


@pytest.mark.parametrize("kind", list(JUDGED))
def test_api_cli_ppi_and_report_give_one_judged_answer(kind, tmp_path):
    make, model, test = JUDGED[kind]
    human, judge = make()
    ratings, pool = tmp_path / "ratings.csv", tmp_path / "pool.csv"
    human.to_csv(ratings, index=False)
    judge.to_csv(pool, index=False)
    table = as_ratings(human)
    found = [
        analyze(table, judge="gpt", judge_scores=pool, judge_model=model, criterion=c, n_resamples=0)
        for c in table.criteria
    ]
    assert all(isinstance(result, SystemAnalysis) for result in found)  # an adapter like the others
    api = [result.to_dict() for result in found]
    assert all(part["test"] == test for part in api)
    runner = CliRunner()
    common = ["--judge-file", str(pool), "--judge", "gpt", "--judge-model", model, "--json"]
    cli = runner.invoke(main, ["analyze", str(ratings), *common])
    assert cli.exit_code == 0, cli.output
    cli_parts = json.loads(cli.stdout)["criteria"]
    joint._FITS.clear()
    ppi_parts = []
    for criterion in table.criteria:
        where = [] if criterion is None else ["--criterion", criterion]
        ppi = runner.invoke(main, ["ppi", str(ratings), *common, "--resamples", "0", *where])
        assert ppi.exit_code == 0, ppi.output
        ppi_parts.append(json.loads(ppi.stdout))
    assert len(api) == len(cli_parts) == len(ppi_parts) == (2 if kind == "criteria" else 1)
    for mine, theirs, ppi in zip(api, cli_parts, ppi_parts, strict=True):
        _same_ppi(mine, theirs)
        _same_ppi(mine, ppi)
    if kind in ("likert", "pairwise"):  # the report carries the same PPI estimates and contrasts
        out = tmp_path / "report"
        args = ["report", str(ratings), "--judge-file", str(pool), "--out", str(out)]
        report = runner.invoke(main, [*args, "--power-trials", "0", "--clmm-power-trials", "0", "--json"])
        assert report.exit_code == 0, report.output
        reported = json.loads((out / "report.json").read_text())["ppi"]
        assert len(reported) == 1
        _same_ppi(api[0], reported[0])
        tex = (out / "results.tex").read_text()
        assert "Prediction-powered estimates with judge gpt" in tex
        assert json.loads((out / "report.json").read_text())["judges"] is None or "LLM judges beside" in tex
