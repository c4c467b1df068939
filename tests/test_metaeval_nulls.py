"""metaeval --compare: the permutation p and the bootstrap interval use the same resampling unit, and the
output says which null each tests (a small p beside an interval over 0 is not a contradiction)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.metaeval import meta_evaluate, permutation_test
from humaneval.metaeval.report import compare_metrics

KEY = pd.MultiIndex.from_product(
    [[f"d{i}" for i in range(12)], ["s1", "s2", "s3", "s4"]], names=["document", "system"]
)


def _scores(seed: int = 3) -> tuple[pd.Series, pd.Series, pd.Series]:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=(4, 12)) + np.arange(4)[:, None]
    good = human + rng.normal(scale=0.5, size=human.shape)
    poor = human + rng.normal(scale=2.0, size=human.shape)
    as_series = lambda m: pd.Series(m.T.ravel(), index=KEY)  # noqa: E731
    return as_series(human), as_series(good), as_series(poor)


def test_the_permutations_swap_over_the_bootstrap_unit():
    human, good, poor = _scores()
    result = meta_evaluate(human, {"A": good, "B": poor}, "sys,sum", n_resamples=200, mode="systems", seed=1)
    [entry] = compare_metrics(result, [("A", "B")], n_permutations=200, seed=2)
    assert entry["resampling"] == "systems"
    direct = permutation_test(
        result.scores.human, result.scores.metrics["A"], result.scores.metrics["B"], "sum",
        coefficient=result.coefficient, method="systems", n_permutations=200, seed=2,
    )  # fmt: skip
    [row] = [r for r in entry["levels"] if r["measure"] == "tau_sum"]
    assert row["p_unadj"] == direct.p_value
    assert set(entry["nulls"]) == {"permutation", "bootstrap"}
    assert "exchangeable" in entry["nulls"]["permutation"] and "new systems" in entry["nulls"]["bootstrap"]


def test_the_cli_explains_the_two_nulls_and_writes_the_floor_of_p(tmp_path):
    human, good, poor = _scores()
    for name, series in (("h", human), ("a", good), ("b", poor)):
        series.rename("score").reset_index().to_csv(tmp_path / f"{name}.csv", index=False)
    args = [
        "metaeval", "--human", str(tmp_path / "h.csv"), "--metric", f"A={tmp_path / 'a.csv'}",
        "--metric", f"B={tmp_path / 'b.csv'}", "--levels", "sys", "--resamples", "200", "--seed", "1",
        "--compare", "A,B", "--permutations", "99",
    ]  # fmt: skip
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert "p: on these systems and documents, are A's and B's scores exchangeable" in out.output
    assert "interval: how far A − B varies over new systems and documents" in out.output
    payload = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    [row] = payload["comparisons"][0]["levels"]
    if row["p_adj"] <= 0.01:  # the smallest p 99 permutations can give is 1/100
        assert "p ≤ 0.0100" in out.output
