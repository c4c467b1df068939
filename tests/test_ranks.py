"""Rank confidence sets (humaneval.ranks, ``humaneval ranks``): the published csranks example, csranks
1.2.3's numbers on correlated estimates, coverage by simulation, analyses and hostile inputs."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.errors import OptionError, RatingsError
from humaneval.ranks import analysis_rank_sets, covariance_from_contrasts, rank_sets, read_estimates

DATA = Path(__file__).parent / "data" / "ranks"
SEQ10 = [f"p{i:02d}" for i in range(1, 11)]

#: csranks' pkgdown examples (danielwilhelm/R-CS-ranks@bd4f755, docs/reference/csranks.html, cstaubest.html):
#: csranks(x, sd) with x = seq(1, 3, length = 10), sd = 0.2, 95 %, simultaneous, stepdown; p01 … p10.
PUBLISHED_L = [7, 6, 5, 4, 3, 2, 1, 1, 1, 1]
PUBLISHED_U = [10, 10, 10, 10, 9, 8, 7, 6, 5, 4]
PUBLISHED_TOP3 = {"p05", "p06", "p07", "p08", "p09", "p10"}
#: cstauworst(x, sd, tau = 3): p01 … p07 published (one bootstrap realisation at R = 1,000);
#: csranks 1.2.3 at R = 1e5 gives p01 … p06 for every seed.
BOTTOM3 = ({f"p{i:02d}" for i in range(1, 7)}, {f"p{i:02d}" for i in range(1, 8)})

#: csranks 1.2.3, R = 1e5, seeds 1-5 all equal (csranks(x, Sigma, simul = FALSE | TRUE)) on docs10:
#: (marginal, simultaneous) per system sys01 … sys10, with the full covariance and with its diagonal only.
DOCS10_FULL = [
    ((1, 2), (1, 3)), ((1, 3), (1, 3)), ((2, 3), (1, 3)), ((4, 6), (4, 6)), ((4, 6), (4, 7)),
    ((4, 6), (4, 7)), ((7, 8), (5, 9)), ((7, 9), (7, 9)), ((8, 9), (7, 9)), ((10, 10), (10, 10)),
]  # fmt: skip
DOCS10_DIAGONAL = [
    ((1, 3), (1, 4)), ((1, 4), (1, 6)), ((1, 6), (1, 6)), ((2, 7), (1, 8)), ((3, 9), (2, 9)),
    ((3, 9), (2, 9)), ((4, 9), (4, 9)), ((5, 10), (4, 10)), ((5, 10), (5, 10)), ((9, 10), (8, 10)),
]  # fmt: skip


def bounds_by_name(result) -> dict[str, tuple[int, int]]:
    return {r.name: (int(r.rank_low), int(r.rank_high)) for r in result.ranks.itertuples()}


@pytest.fixture(scope="module")
def docs10():
    return read_estimates(DATA / "docs10_estimates.csv", DATA / "docs10_cov.csv")


@pytest.mark.parametrize("kind", ["simultaneous", "marginal"])
def test_published_example(kind):
    # marginal sets equal the simultaneous ones here (csranks 1.2.3)
    result = rank_sets(np.linspace(1, 3, 10), se=[0.2] * 10, names=SEQ10, kind=kind, top=3, draws=100_000)
    got = bounds_by_name(result)
    assert [got[n] for n in SEQ10] == list(zip(PUBLISHED_L, PUBLISHED_U, strict=True))
    assert set(result.top_set) == PUBLISHED_TOP3
    assert result.ranks["name"].tolist() == SEQ10[::-1]
    assert result.ranks["rank"].tolist() == list(range(1, 11))


def test_published_bottom_set_is_top_set_of_lower_is_better():
    result = rank_sets(
        np.linspace(1, 3, 10), se=[0.2] * 10, names=SEQ10, top=3, lower_is_better=True, draws=100_000
    )
    assert set(result.top_set) in BOTTOM3
    got = bounds_by_name(result)  # the ranks reversed: p01 is now best
    assert [got[n] for n in SEQ10[::-1]] == list(zip(PUBLISHED_L, PUBLISHED_U, strict=True))


@pytest.mark.parametrize("seed", [1, 7])
def test_docs10_full_and_diagonal_covariance(docs10, seed):
    estimates, cov, _ = docs10
    names = estimates.index.tolist()
    for expected, sigma in ((DOCS10_FULL, cov), (DOCS10_DIAGONAL, np.diag(np.diag(cov)))):
        for k, kind in enumerate(("marginal", "simultaneous")):
            got = bounds_by_name(rank_sets(estimates, sigma, kind=kind, seed=seed, draws=100_000))
            assert [got[n] for n in names] == [row[k] for row in expected], (kind, sigma is cov)
    full = rank_sets(estimates, cov, top=3, seed=seed, draws=100_000)
    assert full.top_set == ("sys01", "sys02", "sys03")
    assert rank_sets(estimates, cov, top=3, confidence=0.9, seed=seed, draws=100_000).top_set == full.top_set
    worst = rank_sets(estimates, cov, top=3, lower_is_better=True, seed=seed, draws=100_000)
    assert set(worst.top_set) == {"sys07", "sys08", "sys09", "sys10"}
    diagonal = rank_sets(estimates, np.diag(np.diag(cov)), top=3, seed=seed, draws=100_000)
    assert set(diagonal.top_set) == {f"sys0{i}" for i in range(1, 7)}


def test_contrast_covariance_keeps_the_differences_and_the_sets(docs10):
    estimates, cov, _ = docs10
    names = estimates.index.tolist()
    rows = [
        (a, b, estimates[a] - estimates[b], np.sqrt(cov[i, i] + cov[j, j] - 2 * cov[i, j]))
        for i, a in enumerate(names)
        for j, b in enumerate(names)
        if i < j
    ]
    contrasts = pd.DataFrame(rows, columns=["system_a", "system_b", "estimate", "se"])
    star = covariance_from_contrasts(estimates, contrasts)
    ones = np.ones(len(names))
    variance = np.outer(np.diag(cov), ones) + np.outer(ones, np.diag(cov)) - 2 * cov
    star_variance = np.outer(np.diag(star), ones) + np.outer(ones, np.diag(star)) - 2 * star
    np.testing.assert_allclose(star_variance, variance, rtol=1e-12, atol=1e-15)
    got = bounds_by_name(rank_sets(estimates, star, kind="marginal", draws=100_000))
    assert [got[n] for n in names] == [row[0] for row in DOCS10_FULL]
    # a contrast that is not the difference of the estimates, or a missing pair: no covariance
    assert (
        covariance_from_contrasts(estimates, contrasts.assign(estimate=contrasts["estimate"] + 0.1)) is None
    )
    assert covariance_from_contrasts(estimates, contrasts.iloc[1:]) is None


def test_coverage_by_simulation_clustered_design():
    """10 systems scored on the same 40 documents (a document effect shared by all systems, SD 1, and
    noise, SD 0.5); estimates = mean per system, covariance = sample covariance / 40. Three tied pairs
    and close neighbours, where bootstrap rank intervals fail."""
    rng = np.random.default_rng(2024)
    theta = np.array([0.0, 0.0, 0.1, 0.25, 0.25, 0.4, 0.6, 0.6, 0.8, 1.0])
    true_rank = 1 + (theta[None, :] > theta[:, None]).sum(axis=1)
    replicates, documents = 300, 40
    scores = (
        theta + rng.normal(0, 1, (replicates, documents, 1)) + rng.normal(0, 0.5, (replicates, documents, 10))
    )
    means = scores.mean(axis=1)
    centred = scores - means[:, None, :]
    covs = np.einsum("rdi,rdj->rij", centred, centred) / (documents - 1) / documents
    covered = {"marginal": np.zeros((replicates, 10), bool), "simultaneous": np.zeros((replicates, 10), bool)}
    widths: dict[str, list[float]] = {"marginal": [], "simultaneous": []}
    for r in range(replicates):
        for kind, hits in covered.items():
            found = rank_sets(means[r], covs[r], kind=kind, seed=r, draws=1000)
            table = found.ranks.sort_values("name", key=lambda s: s.astype(int))
            hits[r] = (table["rank_low"].to_numpy() <= true_rank) & (
                true_rank <= table["rank_high"].to_numpy()
            )
            widths[kind].append((table["rank_high"] - table["rank_low"]).mean())
    slack = 2.5 * np.sqrt(0.05 * 0.95 / replicates)
    assert covered["simultaneous"].all(axis=1).mean() >= 0.95 - slack
    assert covered["marginal"].mean(axis=0).min() >= 0.95 - slack
    # informative, far from [1, 10]: 3.4 and 4.1 ranks wide on average
    assert np.mean(widths["marginal"]) < 3.6 and np.mean(widths["simultaneous"]) < 4.3
    # the same intervals ignoring the shared document effect (the variances only) are much wider
    loose = rank_sets(means[0], np.diag(np.diag(covs[0])), draws=1000)
    tight = rank_sets(means[0], covs[0], draws=1000)
    assert (loose.ranks["rank_high"] - loose.ranks["rank_low"]).sum() > (
        tight.ranks["rank_high"] - tight.ranks["rank_low"]
    ).sum()


def test_pairwise_analysis_has_rank_sets_from_its_covariance():
    from humaneval.analysis import analyze
    from humaneval.comparative.simulate import simulate_pairwise_study

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(simulate_pairwise_study([0.8, 0.4, 0.0, -0.4], blocks=6, seed=3), seed=5)
    fit = result.fit
    n = len(fit.systems)
    cov = np.zeros((n, n))
    cov[1:, 1:] = fit.vcov  # treatment-coded strengths: the reference at 0
    direct = rank_sets(fit.estimates(), cov, kind="marginal", seed=5, draws=100_000)
    again = analysis_rank_sets(result, seed=5, draws=100_000)
    assert again is not None
    pd.testing.assert_frame_equal(again["marginal"].ranks, direct.ranks)
    sets = result.to_dict()["rank_sets"]
    assert set(sets) == {"marginal", "simultaneous"}
    assert sets["simultaneous"]["seed"] == 5
    assert [row["name"] for row in sets["simultaneous"]["ranks"]] == direct.ranks["name"].tolist()
    assert sets["simultaneous"]["best_set"] == ["s0"]


def test_classic_analysis_of_few_pairs_has_no_rank_sets():
    est = pd.Series([1.0, 2.0, 3.0], index=["a", "b", "c"])
    only_two = pd.DataFrame(
        {"system_a": ["a", "a"], "system_b": ["b", "c"], "estimate": [-1, -2], "se": [1, 1]}
    )
    assert covariance_from_contrasts(est, only_two) is None


def test_cli_json_and_text(tmp_path):
    runner = CliRunner()
    out = runner.invoke(
        main, ["ranks", str(DATA / "docs10_estimates.csv"), "--cov", str(DATA / "docs10_cov.csv"),
               "--kind", "marginal", "--top", "3", "--draws", "100000", "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    payload = json.loads(out.output)
    assert payload["top_set"] == ["sys01", "sys02", "sys03"]
    assert [(r["rank_low"], r["rank_high"]) for r in payload["ranks"]] == [row[0] for row in DOCS10_FULL]
    assert set(payload["ranks"][0]) == {"name", "estimate", "rank", "rank_low", "rank_high"}
    seq = tmp_path / "seq.csv"
    pd.DataFrame({"name": SEQ10, "estimate": np.linspace(1, 3, 10), "se": 0.2}).to_csv(seq, index=False)
    text = runner.invoke(main, ["ranks", str(seq), "--top", "3", "--draws", "100000"])
    assert text.exit_code == 0
    assert text.output.splitlines()[3].split() == ["p10", "3", "1", "1–4"]
    assert "may be among the 3 best: p10, p09, p08, p07, p06, p05" in text.output
    args = ["ranks", str(seq), "--top", "3", "--lower-is-better", "--json", "--seed", "3"]
    worst = runner.invoke(main, args)
    assert set(json.loads(worst.output)["top_set"]) in BOTTOM3


@pytest.mark.parametrize(
    "content, cov, message",
    [
        ("name,estimate\na,1\nb,2\n", None, "missing column 'se'"),
        ("name,estimate,se\na,1,0.1\na,2,0.1\n", None, "row 3: name 'a' appears twice"),
        ("name,estimate,se\na,1,0.1\nb,x,0.1\n", None, "row 3, column 'estimate'"),
        ("name,estimate,se\na,1,0.1\nb,inf,0.1\n", None, "not a finite number"),
        ("name,estimate\na,1\nb,2\n", "a,c\n1,0\n0,1\n", "not in the estimates: c"),
        ("name,estimate\na,1\nb,2\n", "a,b\n1,0\n", "must be square"),
        ("name,estimate\na,1\nb,2\n", "a,b\n1,2\n2,1\n", "not positive semi-definite"),
        ("name,estimate\na,1\nb,2\n", "a,b\n1,0.5\n0.2,1\n", "must be symmetric"),
        ("name,estimate\na,1\nb,2\n", "a,b\n1,1\n1,1\n", "the difference of a and b has no variance"),
        ("name,estimate,se\na,1,0.1\nb,2,0.1\n", None, "--top"),
    ],
)
def test_cli_refuses_bad_input_in_one_line(tmp_path, content, cov, message):
    path = tmp_path / "est.csv"
    path.write_text(content)
    args = ["ranks", str(path)]
    if cov is not None:
        (tmp_path / "cov.csv").write_text(cov)
        args += ["--cov", str(tmp_path / "cov.csv")]
    if message == "--top":
        args += ["--top", "3"]
        message = "top must be between 1 and the number of estimates (2)"
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 2
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.output


def test_api_refuses_bad_options():
    with pytest.raises(OptionError, match="kind"):
        rank_sets([1.0, 2.0], se=[1, 1], kind="pointwise")
    with pytest.raises(OptionError, match="draws"):
        rank_sets([1.0, 2.0], se=[1, 1], draws=10)
    with pytest.raises(OptionError, match="one of the two"):
        rank_sets([1.0, 2.0])
    with pytest.raises(OptionError, match="MB; use fewer"):
        rank_sets(np.arange(100.0), se=np.ones(100), draws=1_000_000)
    with pytest.raises(OptionError, match="confidence"):
        rank_sets([1.0, 2.0], se=[1, 1], confidence=1.0)
    with pytest.raises(RatingsError, match="missing column"):
        read_estimates(DATA / "docs10_cov.csv")


def test_report_shows_rank_sets_and_ties_with_the_best(tmp_path):
    from humaneval.comparative.simulate import simulate_pairwise_study
    from humaneval.core.ratings import load_ratings
    from humaneval.report.build import ReportSettings, build_report
    from humaneval.report.render import write_report

    frame = simulate_pairwise_study([0.8, 0.75, 0.0, -0.4], blocks=6, seed=3)
    settings = ReportSettings(n_resamples=200, n_splits=10, power_trials=0, mean_resamples=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = build_report(load_ratings(frame), settings=settings)
        files = write_report(report, tmp_path / "out")
    sets = json.loads(files["json"].read_text())["criteria"][0]["analysis"]["rank_sets"]["simultaneous"]
    md = files["markdown"].read_text()
    header = next(line for line in md.splitlines() if line.startswith("| system |"))
    assert "| letters | rank set | tied with the best |" in header
    for row in sets["ranks"]:
        line = next(line for line in md.splitlines() if line.startswith(f"| {row['name']} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        low, high = row["rank_low"], row["rank_high"]
        assert cells[5] == (f"{low}" if low == high else f"{low}–{high}")
        assert cells[6] == ("yes" if row["name"] in sets["best_set"] else "")
    assert {"s0", "s1"} <= set(sets["best_set"])  # 0.8 vs 0.75: tied with the best


def test_likert_rank_sets_agree_with_the_published_rank_groups(rank_path):
    """Steen & Markert (2021) rank coherence: Table 3.2's groups are BART (1), onmt_pg (2),
    __REFERENCE__ and abssentrw (3/4), seneca (5); the CLMM's simultaneous rank sets say the same."""
    from humaneval.analysis.workflow import analyze
    from humaneval.core.ratings import load_ratings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(load_ratings(rank_path), structure="intercepts")
    sets = result.rank_sets["simultaneous"]
    assert bounds_by_name(sets) == {
        "BART": (1, 1), "onmt_pg": (2, 2), "abssentrw": (3, 4), "__REFERENCE__": (3, 4), "seneca": (5, 5),
    }  # fmt: skip
    assert sets.best_set == ("BART",)
    assert result.to_dict()["rank_sets"]["marginal"]["kind"] == "marginal"


def test_with_rank_sets_leaves_an_analysis_without_the_field_alone():
    from dataclasses import dataclass

    from humaneval.ranks.analysis import with_rank_sets

    @dataclass(frozen=True)
    class Other:
        systems: pd.DataFrame

    other = Other(pd.DataFrame({"system": ["a", "b"], "estimate": [1.0, 0.0]}))
    assert with_rank_sets(other) is other
