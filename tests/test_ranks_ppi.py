"""Rank confidence sets of the prediction-powered analyses (issue 41): computed from the PPI estimates
and their covariance, checked against a covariance computed by hand from the ratings and against the
sets of the same estimates and covariance computed directly."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.analysis import analyze
from humaneval.cli import main
from humaneval.ppi.simulate import judged_study
from humaneval.ranks import rank_sets
from tests.test_ppi_models import _pairwise


def _judged_table(human: pd.DataFrame, judge: pd.DataFrame) -> pd.DataFrame:
    return pd.concat(
        [human.assign(rater_kind="human"), judge.assign(annotator="gpt", rater_kind="judge")],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def means_study():
    human, judge = judged_study(n_documents=300, n_systems=5, human_share=0.3, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(human, judge_scores=judge, cluster="document", n_resamples=0, seed=3)
    return human, judge, result


def _by_hand(human: pd.DataFrame, judge: pd.DataFrame, lam: pd.Series) -> pd.DataFrame:
    """Cov(θ̂_j, θ̂_k) = Σ_d ψ_j(d) ψ_k(d) over documents: ψ = (y − λf − mean(y − λf)) / n on a human-rated
    summary, λ (f − mean f) / N on a judge-only one (PPI++ with λ fixed at its tuned value)."""
    y = human.groupby(["document", "system"])["score"].mean()
    table = judge.set_index(["document", "system"])["score"].to_frame("f").join(y.rename("y"))
    columns = {}
    for system, part in table.groupby(level="system"):
        part = part.droplevel("system")
        rated, alone = part[part["y"].notna()], part[part["y"].isna()]
        rect = rated["y"] - lam[system] * rated["f"]
        columns[system] = pd.concat(
            [(rect - rect.mean()) / len(rated), lam[system] * (alone["f"] - alone["f"].mean()) / len(alone)]
        )
    psi = pd.DataFrame(columns).fillna(0.0)
    return psi.T @ psi


def test_ppi_means_rank_sets_come_from_the_joint_covariance(means_study):
    human, judge, result = means_study
    assert result.test == "ppi-mean"
    ppi = result.result.systems.set_index("system")
    cov = _by_hand(human, judge, ppi["lam"])
    np.testing.assert_allclose(result.result.covariance.loc[cov.index, cov.columns], cov, rtol=1e-10)
    np.testing.assert_allclose(np.diag(cov), ppi.loc[cov.index, "se"] ** 2, rtol=1e-10)
    # the summaries of one document share its difficulty: the estimates are positively correlated
    off = cov.to_numpy()[~np.eye(len(cov), dtype=bool)]
    assert (off > 0).all()
    estimates = ppi["estimate"]
    sets = result.rank_sets
    assert sets is not None
    for kind in ("marginal", "simultaneous"):
        direct = rank_sets(estimates, cov.loc[estimates.index, estimates.index].to_numpy(), kind=kind, seed=3)
        pd.testing.assert_frame_equal(sets[kind].ranks, direct.ranks)
    # with the correlation ignored (the variances only) the sets are wider
    loose = rank_sets(estimates, np.diag(ppi["se"] ** 2), seed=3).ranks
    tight = sets["simultaneous"].ranks
    assert (loose["rank_high"] - loose["rank_low"]).sum() > (tight["rank_high"] - tight["rank_low"]).sum()


def test_ppi_block_design_covariance_is_the_jackknife_of_every_pair():
    """Blocks as clusters (few of them): each system's SE is a cluster jackknife; the covariance of two
    systems is the jackknife covariance over the same deleted blocks."""
    from humaneval.ppi.mean import ppi_mean
    from humaneval.ppi.systems import ppi_systems

    human, judge = judged_study(
        n_documents=240, n_systems=3, human_share=0.25, n_annotators=2, docs_per_block=6, seed=8
    )
    result = ppi_systems(human, judge, cluster="block", n_resamples=0)
    assert result.clustering == "block"
    y = human.groupby(["document", "system"])["score"].mean()
    table = judge.set_index(["document", "system"])["score"].to_frame("f").join(y.rename("y")).reset_index()
    block = human.groupby("document")["annotator"].first().str.extract(r"^b(\d+)")[0].astype(int)
    table["block"] = table["document"].map(block)
    blocks = sorted(block.unique())
    deleted = {}
    for system, part in table.groupby("system"):
        rated, alone = part[part["y"].notna()], part[part["y"].isna()]
        values = []
        for b in blocks:  # leave one human-rated block out, λ re-tuned (PPI++), the judge-only units kept
            keep = rated[rated["block"] != b]
            fit = ppi_mean(
                keep["y"],
                keep["f"],
                alone["f"],
                clusters=("b" + keep["block"].astype(int).astype(str)).to_numpy(),
                clusters_unlabeled=alone["document"].to_numpy(),
            )
            values.append(fit.estimate)
        deleted[system] = np.array(values)
    g = len(blocks)
    jack = pd.DataFrame({s: np.sqrt((g - 1) / g) * (v - v.mean()) for s, v in deleted.items()}, index=blocks)
    # the judge-only documents each form a cluster of their own: their share of λ² V(ḡ) adds to the
    # diagonal only (a document's judge-only summaries of two systems also covary)
    cov = result.covariance
    lam = result.systems.set_index("system")["lam"]
    alone = table[table["block"].isna()].pivot(index="document", columns="system", values="f")
    share = (alone - alone.mean()) * lam / len(alone)
    expected = jack.T @ jack + share.T @ share
    np.testing.assert_allclose(cov.loc[expected.index, expected.columns], expected, rtol=1e-8)
    np.testing.assert_allclose(np.diag(cov), result.systems.set_index("system").loc[cov.index, "se"] ** 2)


def test_ppi_pairwise_and_ordinal_rank_sets_use_the_sandwich_covariance():
    human, judge = _pairwise(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(_judged_table(human, judge).drop(columns="block"), judge="gpt", seed=2)
    assert result.test == "ppi-bradley-terry"
    cov = result.result.covariance
    strengths = result.systems.set_index("system")["estimate"]
    # the covariance gives the contrasts' standard errors, and the first system is the reference
    for row in result.contrasts.itertuples():
        a, b = row.system_a, row.system_b
        assert cov.loc[a, a] + cov.loc[b, b] - 2 * cov.loc[a, b] == pytest.approx(row.se**2, rel=1e-10)
    assert strengths[cov.index[0]] == 0.0 and not cov.iloc[0].any()
    names = strengths.index
    direct = rank_sets(strengths, cov.loc[names, names].to_numpy(), kind="marginal", seed=2)
    pd.testing.assert_frame_equal(result.rank_sets["marginal"].ranks, direct.ranks)
    assert result.to_dict()["rank_sets"]["simultaneous"]["best_set"] == list(
        result.rank_sets["simultaneous"].best_set
    )

    human, judge = judged_study(n_documents=300, n_systems=3, human_share=0.3, judge_noise=0.4, seed=4)
    judge = judge.assign(score=judge["score"].round().clip(1, 5).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ordinal = analyze(_judged_table(human, judge), judge="gpt", judge_model="ordinal", seed=2)
    assert ordinal.test == "ppi-ordinal"
    cov = ordinal.result.covariance
    for row in ordinal.contrasts.itertuples():
        a, b = row.system_a, row.system_b
        assert cov.loc[a, a] + cov.loc[b, b] - 2 * cov.loc[a, b] == pytest.approx(row.se**2, rel=1e-10)
    effects = ordinal.systems.set_index("system")["estimate"]
    direct = rank_sets(effects, cov.loc[effects.index, effects.index].to_numpy(), kind="simultaneous", seed=2)
    pd.testing.assert_frame_equal(ordinal.rank_sets["simultaneous"].ranks, direct.ranks)


def test_analyze_json_with_a_judge_has_rank_sets(tmp_path, means_study):
    human, judge, result = means_study
    human.to_csv(tmp_path / "human.csv", index=False)
    judge.to_csv(tmp_path / "judge.csv", index=False)
    args = ["analyze", str(tmp_path / "human.csv"), "--judge-file", str(tmp_path / "judge.csv")]
    out = CliRunner().invoke(main, [*args, "--seed", "3", "--json"])
    assert out.exit_code == 0, out.output
    payload = json.loads(out.output)
    criterion = payload["criteria"][0] if "criteria" in payload else payload
    sets = criterion["rank_sets"]
    assert set(sets) == {"marginal", "simultaneous"}
    expected = result.rank_sets["simultaneous"].ranks
    got = pd.DataFrame(sets["simultaneous"]["ranks"])
    assert got["name"].tolist() == expected["name"].tolist()
    assert got["rank_low"].tolist() == expected["rank_low"].tolist()
    assert got["rank_high"].tolist() == expected["rank_high"].tolist()
