"""Correlation between criteria (issue 18) and the one JSON shape of ``humaneval reliability``."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.core.ratings import load_ratings
from humaneval.reliability import criterion_correlations


def halo_table() -> pd.DataFrame:
    """Annotator x answers fluency exactly like coherence, annotator y half-agrees.

    Hand-computed Spearman ρ: within x 1, within y 0.5 (ranks 1,2,3 vs 1,3,2), over the six
    judgements 12/16 = 0.75; system means coherence (1, 2, 3) vs fluency (1, 2.5, 2.5):
    ranks (1, 2, 3) vs (1, 2.5, 2.5): 1.5 / sqrt(2 · 1.5) = √3/2.
    """
    coherence = {"x": [1, 2, 3], "y": [1, 2, 3]}
    fluency = {"x": [1, 2, 3], "y": [1, 3, 2]}
    rows = []
    for annotator in ("x", "y"):
        for k, system in enumerate("ABC"):
            rows.append((annotator, "d1", system, "coherence", coherence[annotator][k]))
            rows.append((annotator, "d1", system, "fluency", fluency[annotator][k]))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "criterion", "score"])


def test_hand_computed_correlations():
    [row] = criterion_correlations(load_ratings(halo_table())).to_dict()
    assert row["criterion_a"] == "coherence" and row["criterion_b"] == "fluency"
    assert row["n_judgements"] == 6 and row["rho"] == pytest.approx(0.75)
    assert row["n_annotators"] == 2 and row["rho_within_annotator"] == pytest.approx(0.75)
    assert row["n_systems"] == 3 and row["rho_systems"] == pytest.approx(np.sqrt(3) / 2)


def test_one_criterion_and_undefined_values():
    one = halo_table().query("criterion == 'coherence'")
    assert criterion_correlations(load_ratings(one)).table.empty
    flat = halo_table()
    flat.loc[flat["criterion"] == "fluency", "score"] = 4  # no variation: ρ undefined, not 0
    [row] = criterion_correlations(load_ratings(flat)).to_dict()
    assert row["rho"] is None and row["rho_within_annotator"] is None and row["n_annotators"] == 0


def test_json_has_one_shape(tmp_path):
    path = tmp_path / "r.csv"
    halo_table().to_csv(path, index=False)
    runner = CliRunner()
    both = json.loads(runner.invoke(main, ["reliability", str(path), "--json", "--resamples", "0"]).output)
    assert set(both) == {"file", "criteria", "correlations"}
    assert [c["criterion"] for c in both["criteria"]] == ["coherence", "fluency"]
    assert both["correlations"][0]["rho"] == pytest.approx(0.75)
    one = tmp_path / "one.csv"
    halo_table().query("criterion == 'coherence'").drop(columns="criterion").to_csv(one, index=False)
    single = json.loads(runner.invoke(main, ["reliability", str(one), "--json", "--resamples", "0"]).output)
    assert set(single) == {"file", "criteria", "correlations"}
    assert len(single["criteria"]) == 1 and single["criteria"][0]["criterion"] is None
    assert single["correlations"] == []
    text = runner.invoke(main, ["reliability", str(path), "--resamples", "0"]).output
    row = r"^coherence – fluency +0\.750 \(n=6\) +0\.750 \(2 annotators\) +0\.866 \(3 systems\)$"
    assert re.search(row, text, re.M)


def test_each_criterion_reports_its_declared_scale(tmp_path):
    from humaneval.core.scales import Scale, write_scales

    path = tmp_path / "r.csv"
    halo_table().to_csv(path, index=False)
    write_scales(tmp_path / "r.scale.json", (Scale("coherence", 1, 5, 5), Scale("fluency", 1, 7, 7)))
    runner = CliRunner()
    payload = json.loads(runner.invoke(main, ["reliability", str(path), "--json", "--resamples", "0"]).output)
    assert [(c["scale"], c["scale_declared"]) for c in payload["criteria"]] == [
        ([1, 5], True),
        ([1, 7], True),
    ]
    text = runner.invoke(main, ["reliability", str(path), "--resamples", "0"]).output
    assert re.search(r"^scale:\s+1-7 \(declared\)$", text, flags=re.M)
    (tmp_path / "r.scale.json").unlink()
    inferred = json.loads(
        runner.invoke(main, ["reliability", str(path), "--json", "--resamples", "0"]).output
    )
    assert [(c["scale"], c["scale_declared"]) for c in inferred["criteria"]] == [([1, 3], False)] * 2
