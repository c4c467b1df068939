"""One table, one model: ``analyze()``, ``humaneval analyze --json`` and ``humaneval report`` agree for
every table kind (Likert, several criteria, ranking, best–worst, pairwise)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import ADAPTERS, SystemAnalysis, adapter_for, analyze
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


def _same(left: dict, right: dict) -> None:
    """Same model, estimates and p-values (JSON round trip: compare as floats)."""
    for key in ("test", "kind", "criterion", "structure", "formula", "reference"):
        assert left[key] == right[key], key
    for key in ("contrasts", "groups"):
        a, b = pd.DataFrame(left[key]), pd.DataFrame(right[key])
        assert list(a["estimate"].round(10)) == list(b["estimate"].round(10))
    a, b = pd.DataFrame(left["contrasts"]), pd.DataFrame(right["contrasts"])
    assert list(a["system_a"]) == list(b["system_a"]) and list(a["system_b"]) == list(b["system_b"])
    np.testing.assert_allclose(a["p_adj"].astype(float), b["p_adj"].astype(float), rtol=1e-9)
    np.testing.assert_allclose(a["p_unadj"].astype(float), b["p_unadj"].astype(float), rtol=1e-9)
    np.testing.assert_allclose(a["se"].astype(float), b["se"].astype(float), rtol=1e-9)


@pytest.mark.parametrize("kind", list(TABLES))
def test_api_cli_and_report_fit_the_same_model(kind, tmp_path):
    make, adapter, model = TABLES[kind]
    table = make()
    path = tmp_path / f"{kind}.csv"
    table.to_csv(path, index=False)
    api = _api(table)
    assert adapter_for(table, api[0]["criterion"])[0].name == adapter
    assert api[0]["test"] == model
    cli = CliRunner().invoke(main, ["analyze", str(path), "--json"])
    assert cli.exit_code == 0, cli.output
    cli_parts = json.loads(cli.stdout)["criteria"]
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
