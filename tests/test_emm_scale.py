"""EMMs of a study with unused categories: the expected score is on the declared scale, the class index
keeps its own name (``mean.class``), and the categories never used are named."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.special import expit

from humaneval.analysis import analyze
from humaneval.cli import main
from humaneval.core.ratings import load_ratings


def _top_heavy() -> pd.DataFrame:
    """A 1–5 study in which only 3, 4 and 5 were used (raw means about 3.9–4.3)."""
    rng = np.random.default_rng(4)
    rows = []
    shift = {"A": 0.0, "B": 0.4, "C": 0.8}
    for a in range(8):
        lean = rng.normal(0, 0.3)
        for d in range(10):
            for system, s in shift.items():
                latent = s + lean + rng.logistic()
                rows.append((f"a{a}", f"d{d}", system, 3 + int(latent > -0.5) + int(latent > 1.2)))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "score"])


FORMULA = "score ~ system + (1|annotator)"


@pytest.fixture(scope="module")
def result():
    table = load_ratings(_top_heavy(), scale="1-5")
    return analyze(table, formula=FORMULA, emm="system")


def test_expected_score_is_the_direct_computation_from_the_fitted_probabilities(result):
    fit = result.fit
    assert [float(v) for v in fit.levels] == [3.0, 4.0, 5.0]
    eta = dict(zip(["A", "B", "C"], np.r_[0.0, fit.beta], strict=True))
    emms = result.emms.set_index(["mode", "system"])["emmean"]
    for system, value in eta.items():
        cumulative = np.r_[0.0, expit(fit.thresholds - value), 1.0]
        probs = np.diff(cumulative)
        assert emms["expected", system] == pytest.approx(probs @ np.array([3.0, 4.0, 5.0]), abs=1e-10)
        assert emms["mean.class", system] == pytest.approx(probs @ np.array([1.0, 2.0, 3.0]), abs=1e-10)
    # on the scale of the raw means (3.9–4.3), not the class index (1.9–2.3)
    raw = result.systems.set_index("system")["mean"]
    assert (emms["expected"] - raw.reindex(emms["expected"].index)).abs().max() < 0.15
    assert emms["mean.class"].max() < 3 < emms["expected"].min()


def test_unused_categories_are_named_and_the_class_index_is_labelled(result):
    categories = result.to_dict()["categories"]
    assert categories["used"] == [3.0, 4.0, 5.0]
    assert categories["declared"] == [1.0, 2.0, 3.0, 4.0, 5.0] and categories["unused"] == [1.0, 2.0]
    text = result.summary()
    assert "expected score on the scale's own values 3, 4, 5; never used: 1, 2" in text
    assert "mean.class: expected class index 1..3 over the categories used, 3, 4, 5; not a score" in text


def test_the_cli_reads_the_declared_scale_from_the_sidecar(tmp_path):
    table = load_ratings(_top_heavy(), scale="1-5")
    path = tmp_path / "ratings.csv"
    table.write(path)
    out = CliRunner().invoke(main, ["analyze", str(path), "--formula", FORMULA, "--json"])
    assert out.exit_code == 0, out.output
    [part] = json.loads(out.stdout)["criteria"]
    assert part["categories"]["unused"] == [1.0, 2.0]
    assert {row["mode"] for row in part["emmeans"]} == {"latent", "expected", "mean.class"}
