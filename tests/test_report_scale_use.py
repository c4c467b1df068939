"""The report's annotator scale-use part (issue 43): figure, and one sentence on whether it matters.

The numbers of the sentence are checked against the two CLMM fits computed here (with and without a
random annotator log-scale); the report is built by the CLI with ``--scale-use``.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis.scale import ScaleUse, scale_use
from humaneval.cli import main
from humaneval.clmm import fit_spec
from humaneval.clmm.formula import clmm_spec
from humaneval.clmm.scale import ScaleTest
from humaneval.simulate.scale import ScaleDesign, simulate_scale_study

FORMULA = "score ~ system + (1 | annotator) + (1 | document)"


@pytest.fixture(scope="module")
def table():
    return simulate_scale_study(ScaleDesign(n_annotators=24, sd_log_scale=0.6), seed=8)


def test_the_sentence_reports_the_two_fits(table):
    use = scale_use(table)
    scaled = fit_spec(clmm_spec(FORMULA, table, scale="~ (1 | annotator)"))
    null = fit_spec(clmm_spec(FORMULA, table))
    change = abs(scaled.beta[0] - null.beta[0]) / null.se[0]
    assert use.max_change == pytest.approx(change, rel=1e-6) and use.term == "systems1"
    assert use.sd == pytest.approx(scaled.scale.sd, rel=1e-9) and 0.3 < use.sd < 1.0
    assert use.test.statistic == pytest.approx(2 * (scaled.loglik - null.loglik), abs=1e-6)
    spread = np.exp(scaled.scale.groups["log_spread"])
    significant = [abs(f.beta[0] / f.se[0]) > 1.959964 for f in (scaled, null)]
    assert use.flipped == (() if significant[0] == significant[1] else ("systems1",))
    moved = f"{change:.2f}"
    assert use.sentence() == (
        f"Scale use differs between annotators (log-spread SD {use.sd:.2f}, spreads {spread.min():.2f}–"
        f"{spread.max():.2f}× the median annotator's; LR test p < 0.0001); modelling it "
        + (f"changes no system coefficient by more than {moved} standard errors" if float(moved) < 1
           else f"moves systems1 by {moved} standard errors")
        + ", and none changes its significance at 5 %."
    )  # fmt: skip


def test_a_coefficient_whose_significance_changes_is_named():
    use = ScaleUse(
        groups=pd.DataFrame({"annotator": ["a", "b", "c"], "log_spread": [-0.5, 0.0, 0.7]}),
        sd=0.5,
        sd_se=0.1,
        test=ScaleTest(1.0, 1, 0.2, True, -10.0, -10.5),
        max_change=1.234,
        term="systemB",
        flipped=("systemB",),
    )
    assert use.sentence() == (
        "Scale use does not differ detectably between annotators (log-spread SD 0.50, spreads 0.61–2.01× "
        "the median annotator's; LR test p = 0.2000); modelling it moves systemB by 1.23 standard errors, "
        "and the significance at 5 % of systemB changes."
    )


def test_report_with_scale_use_draws_the_figure_and_says_whether_it_matters(table, tmp_path):
    path = tmp_path / "ratings.csv"
    table.to_csv(path, index=False)
    out = tmp_path / "report"
    args = ["report", str(path), "--scale-use", "--power-trials", "20", "--clmm-power-trials", "0"]
    result = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    for suffix in ("png", "svg", "pdf"):
        assert (out / f"scale-use.{suffix}").stat().st_size > 1000
    markdown = (out / "report.md").read_text()
    assert "![Annotator scale use](scale-use.png)" in markdown
    [sentence] = re.findall(r"Scale use differs between annotators .*?significance at 5 %[^.]*\.", markdown)
    assert sentence == scale_use(table).sentence()
