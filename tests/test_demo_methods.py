"""``humaneval demo --method pairwise|bws|rank``: the comparative study end to end on a small design."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.clmm.model import default_model
from humaneval.demo import DemoSettings, run_demo
from humaneval.errors import OptionError

SMALL = {"documents": 20, "n_resamples": 200, "n_splits": 20, "power_trials": 0}


@pytest.mark.parametrize(("method", "key"), [("pairwise", "opponent"), ("bws", "tuple_id"), ("rank", "rank")])
def test_comparative_demo_recovers_the_model_order(tmp_path, method, key):
    result = run_demo(tmp_path, seed=4, settings=DemoSettings(method=method, **SMALL))
    ratings = pd.read_csv(tmp_path / "ratings.csv")
    assert key in ratings.columns
    real = ratings[~ratings["is_check"]] if "is_check" in ratings else ratings
    # 20 documents in 4 blocks × 3 annotators: each annotator judges the 5 documents of their block
    assert real.groupby("annotator")["document"].nunique().tolist() == [5] * 12
    # the attention checks travel with the table: the two careless slots fail theirs, nobody else does
    if method != "rank":  # ranking checks are embedded in a real screen
        passed = ratings[ratings["is_check"]].groupby("annotator_slot")["check_passed"].all()
        assert sorted(passed[~passed].index) == sorted(result.careless) and passed.sum() == 10
    (part,) = result.report.criteria
    # strengths are the coherence model's effects (BART 1.37 strongest, seneca −1.17 weakest)
    model = default_model()
    strongest = model.system_names[int(model.coefficients.argmax())]
    weakest = model.system_names[int(model.coefficients.argmin())]
    systems = part.analysis.systems["system"].tolist()
    assert systems[0] == strongest and systems[-1] == weakest
    # the checks count in quality control only: not among the report's systems
    assert sorted(part.means["system"]) == sorted(model.system_names)
    if method != "rank":
        qc = result.report.qc.table
        assert (qc["checks_total"] == 2).all() and sorted(qc["checks_failed"]) == [0] * 10 + [2, 2]
    assert (tmp_path / "report" / "index.html").is_file()


def test_demo_method_is_a_cli_choice_and_refuses_criteria(tmp_path):
    result = CliRunner().invoke(main, ["demo", "--method", "da", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "'da' is not one of" in result.output
    with pytest.raises(OptionError, match="several criteria per screen are a Likert layout"):
        run_demo(tmp_path, settings=DemoSettings(method="bws", criteria=("coherence",), **SMALL))
