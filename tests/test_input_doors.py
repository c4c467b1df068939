"""Doors of issue 47, items 6-8, beyond the hostile CLI corpus: the design's probabilities file is
written only with the design and cannot run formulas; PPBoot's memory is bounded whatever the size;
the budget and PPI checks give their one line at the API too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import InsufficientDataError, OptionError, RatingsError
from humaneval.ppi import bootstrap
from humaneval.ppi.budget import ppi_budget
from humaneval.ppi.items import judged_items
from humaneval.ppi.simulate import judged_study


def _judge_pool(prefix: str) -> pd.DataFrame:
    _, judge = judged_study(n_documents=30, n_systems=2, human_share=0.5, seed=3)
    return judge.assign(document=prefix + judge["document"])


def test_design_probabilities_are_written_only_with_the_design(tmp_path):
    args = [
        "design",
        "--documents",
        "10",
        "--judge-scores",
        str(tmp_path / "judge.csv"),
        "--docs-per-block",
        "5",
    ]
    _judge_pool("=").to_csv(tmp_path / "judge.csv", index=False)
    failed = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "e.csv")])
    assert failed.exit_code == 2 and "document id '=d0000'" in failed.output
    assert not (tmp_path / "e.probabilities.csv").exists()  # on main: written with raw '=' cells, then exit 2
    _judge_pool("doc").to_csv(tmp_path / "judge.csv", index=False)
    ok = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "d.csv")])
    assert ok.exit_code == 0, ok.output
    written = pd.read_csv(tmp_path / "d.probabilities.csv")
    assert written["document"].str.startswith("docd").all() and int(written["selected"].sum()) == 10


def test_ppboot_draws_in_bounded_chunks_with_the_same_intervals(monkeypatch):
    rng = np.random.default_rng(0)
    y = rng.normal(0, 1, 300)
    f = y + rng.normal(0, 1, 300)
    codes = np.arange(300)
    targets = [(y[:60], f[:60], codes[:60], f[60:], codes[60:])]
    whole = bootstrap.ppboot_intervals(targets, 300, n_resamples=500, seed=3)
    monkeypatch.setattr(bootstrap, "MAX_CELLS", 300 * 7 + 5)  # 7 resamples at a time
    chunked = bootstrap.ppboot_intervals(targets, 300, n_resamples=500, seed=3)
    np.testing.assert_allclose(chunked, whole, rtol=1e-12)
    # 10^6 judge-only clusters and 1,000 resamples: ~8 GB at once on main, now at most MAX_CELLS counts
    assert bootstrap.MAX_CELLS * 8 * 3 < 1e9


def test_one_human_rated_block_is_refused_and_documents_still_work():
    human, judge = judged_study(n_documents=20, n_systems=2, human_share=0.5, seed=1)
    one = human.assign(annotator="a1")
    with pytest.raises(InsufficientDataError, match="one cluster gives no variance"):
        judged_items(one, judge, cluster="block")
    assert judged_items(one, judge, cluster="document").n_clusters == 20


@pytest.mark.parametrize(
    ("change", "error", "fragment"),
    [
        (lambda s: s.where(s.index != 3, np.inf), RatingsError, "score inf"),
        (lambda s: s * 1e200, RatingsError, r"beyond ±1e\+12"),
        (lambda s: 2.0 + 1e-15 * (s.index % 2), InsufficientDataError, "constant judge"),
    ],
)
def test_judge_scores_ppi_cannot_use_are_refused(change, error, fragment):
    human, judge = judged_study(n_documents=20, n_systems=2, human_share=0.5, seed=1)
    with pytest.raises(error, match=fragment):
        judged_items(human, judge.assign(score=change(judge["score"])))


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"sd": 1.0, "target_width": 1e-4}, "more than 10,000,000 human-rated units"),
        ({"sd": 1e200, "target_width": 0.3}, r"--sd 1e\+200 is out of range"),
        ({"sd": 1.0, "target_power": 0.8, "effect": 1e-200}, "--effect 1e-200 is out of range"),
    ],
)
def test_budgets_past_any_study_are_refused_at_once(options, fragment):
    with pytest.raises(OptionError, match=fragment):
        ppi_budget(correlation=0.5, human_cost=1.0, judge_cost=0.01, **options)
