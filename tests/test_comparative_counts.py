"""Pooled Bradley–Terry from win counts read in chunks (issue 41, item 4): the same estimates and
covariance as the in-memory analysis of the table, mirror rows paired across chunks, bad rows refused
with their row number; a small CSV and Parquet file stand in for the 10⁷-row benchmark."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.comparative import analyze_comparative
from humaneval.comparative.counts import analyze_counts, count_pairs, read_pair_counts
from humaneval.errors import OptionError, RatingsError


def arena(n: int = 3000, ties: float = 0.1, seed: int = 5) -> pd.DataFrame:
    """Random pairs of 6 systems, one prompt per comparison, a third of the comparisons written twice
    (mirror rows, appended at the end so that they fall in other chunks)."""
    rng = np.random.default_rng(seed)
    theta = np.array([0.8, 0.4, 0.1, 0.0, -0.3, -0.9])
    a = rng.integers(0, 6, n)
    b = (a + rng.integers(1, 6, n)) % 6
    p = 1 / (1 + np.exp(-(theta[a] - theta[b])))
    u = rng.random(n)
    score = np.where(u < ties, 0.5, np.where(u < ties + (1 - ties) * p, 1.0, 0.0))
    names = np.array([f"m{k}" for k in range(6)])
    rows = pd.DataFrame(
        {
            "annotator": np.char.add("w", rng.integers(0, 50, n).astype(str)),
            "document": np.char.add("p", np.arange(n).astype(str)),
            "system": names[a],
            "opponent": names[b],
            "score": score,
        }
    )
    some = rows.iloc[: n // 3]
    mirror = some.assign(system=some["opponent"], opponent=some["system"], score=1 - some["score"])
    return pd.concat([rows, mirror], ignore_index=True)


@pytest.fixture(scope="module")
def table():
    return arena()


@pytest.mark.parametrize("ties", [0.0, 0.1])
def test_counts_give_the_in_memory_fit(ties):
    table = arena(ties=ties)
    counts = count_pairs(table)
    assert counts.n_rows == 4000 and counts.n_comparisons == 3000
    pooled = analyze_counts(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        memory = analyze_comparative(table, inference="model")
    assert pooled.test == memory.test == ("davidson" if ties else "bradley-terry")
    np.testing.assert_allclose(pooled.fit.beta, memory.fit.beta, rtol=0, atol=1e-10)
    np.testing.assert_allclose(pooled.fit.vcov, memory.fit.vcov, rtol=1e-9, atol=0)
    assert pooled.fit.nobs == memory.fit.nobs == 3000
    pd.testing.assert_frame_equal(
        pooled.contrasts.drop(columns="test"), memory.contrasts.drop(columns="test"), rtol=1e-8
    )
    # the counts themselves, counted by hand from the first rows of the comparisons
    first = table.iloc[:3000]
    won = first[first["score"] == 1]
    assert (
        counts.wins[0, 1]
        == ((won["system"] == "m0") & (won["opponent"] == "m1")).sum()
        + ((first["score"] == 0) & (first["system"] == "m1") & (first["opponent"] == "m0")).sum()
    )


def test_chunks_of_a_csv_file_give_the_same_counts(table, tmp_path):
    whole = count_pairs(table)
    path = tmp_path / "battles.csv"
    table.to_csv(path, index=False)
    lines: list[str] = []
    chunked = read_pair_counts(path, chunk_rows=333, progress=lines.append)
    assert len(lines) == 13 and lines[-1] == "battles.csv: 4,000 rows read"
    assert chunked.systems == whole.systems
    np.testing.assert_array_equal(chunked.wins, whole.wins)
    np.testing.assert_array_equal(chunked.ties, whole.ties)
    assert (chunked.n_rows, chunked.n_comparisons) == (4000, 3000)


def test_row_groups_of_a_parquet_file_give_the_same_counts(table, tmp_path):
    pytest.importorskip("pyarrow")
    whole = count_pairs(table)
    lines: list[str] = []
    table.to_parquet(tmp_path / "battles.parquet", row_group_size=500)
    parquet = read_pair_counts(tmp_path / "battles.parquet", chunk_rows=700, progress=lines.append)
    assert lines[0] == "battles.parquet: 700 rows read of 4,000"
    np.testing.assert_array_equal(parquet.wins, whole.wins)
    np.testing.assert_array_equal(parquet.ties, whole.ties)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda t: t.assign(score=t["score"].where(t.index != 7, 2.0)),
            "score 2.0 at row 8; pairwise scores",
        ),
        (
            lambda t: t.assign(system=t["system"].where(t.index != 4, t["opponent"])),
            "row 5 compares a system",
        ),
        (lambda t: t.assign(document=t["document"].where(t.index != 9, None)), "empty 'document' at row 10"),
        (
            lambda t: pd.concat([t, t.iloc[[2999]]]),
            "two rows of a comparison repeat a comparison from the same side",
        ),
        (lambda t: pd.concat([t, t.iloc[[3]]]), "a comparison appears in 3 rows"),
        (
            lambda t: t.assign(score=t["score"].where(t.index != _decided_mirror(t), 1 - t["score"])),
            "disagree",
        ),
    ],
)
def test_bad_rows_are_refused_in_one_line(table, change, message):
    with pytest.raises(RatingsError, match=message):
        count_pairs(change(table), where="battles.csv")


def _decided_mirror(table: pd.DataFrame) -> int:
    """The first mirror row (from 3,000 on) of a comparison that was not a tie."""
    return int(table.index[(table.index >= 3000) & (table["score"] != 0.5)][0])


def test_criteria_checks_and_judges_are_honoured(table):
    two = pd.concat([table.assign(criterion="quality"), table.assign(criterion="style")], ignore_index=True)
    with pytest.raises(OptionError, match="several criteria"):
        count_pairs(two)
    one = count_pairs(two, criterion="style")
    np.testing.assert_array_equal(one.wins, count_pairs(table).wins)
    extra = table.iloc[:200].assign(annotator="gpt", rater_kind="judge")
    checks = table.iloc[:100].assign(document="check", is_check=True)
    mixed = pd.concat([table.assign(rater_kind="human", is_check=False), extra, checks], ignore_index=True)
    np.testing.assert_array_equal(count_pairs(mixed).wins, count_pairs(table).wins)
    with pytest.raises(OptionError, match="win counts allow model or naive"):
        analyze_counts(count_pairs(table), inference="two-way")


def test_cli_analyzes_a_file_by_its_win_counts(table, tmp_path):
    path = tmp_path / "battles.csv"
    table.to_csv(path, index=False)
    out = CliRunner().invoke(main, ["analyze", str(path), "--win-counts", "--json"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.stdout)
    criterion = payload["criteria"][0]
    expected = analyze_counts(count_pairs(table))
    got = pd.DataFrame(criterion["groups"]).set_index("system")["estimate"]
    np.testing.assert_allclose(got[expected.systems["system"]], expected.systems["estimate"], atol=1e-12)
    assert set(criterion["rank_sets"]) == {"marginal", "simultaneous"}
    assert criterion["win_counts"] == {"rows": 4000, "comparisons": 3000}
    refused = CliRunner().invoke(main, ["analyze", str(path), "--win-counts", "--inference", "mixed"])
    assert refused.exit_code == 2 and "win counts allow model or naive" in refused.output
    table.assign(score=table["score"].where(table.index != 5, 3.0)).to_csv(path, index=False)
    bad = CliRunner().invoke(main, ["analyze", str(path), "--win-counts"])
    assert bad.exit_code == 2
    assert (
        f"{path}: score 3.0 at line 7; pairwise scores must be 1 (won), 0 (lost) or 0.5 (tie)" in bad.output
    )
    assert "Traceback" not in bad.output
