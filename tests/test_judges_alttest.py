"""The alternative-annotator test against the authors' printed numbers, an independent loop, and
hostile input; agreement, the verdict table and ``humaneval judge`` end to end."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from humaneval.errors import DataWarning, InsufficientDataError, OptionError, RatingsError
from humaneval.judges import load_annotations
from humaneval.judges.agreement import judge_agreement
from humaneval.judges.alttest import alt_test, resolve_epsilon
from humaneval.judges.data import label_view
from humaneval.judges.verdict import assess_judges
from tests.conftest import shared_file

JUDGES = ["gemini_flash", "gemini_pro", "gpt-4o", "llama-31", "gpt-4o-mini", "mistral-v03"]
#: The authors' notebook (alt_test_example.ipynb, nitaytech/AltTest): ω / ρ per judge, and the data
#: sets' humans and items (../shared/data/alttest/README.md).
_TABLE = """
mtbench     accuracy 0.2  3  120 0.00/0.72 0.00/0.76 0.00/0.77 0.00/0.69 0.00/0.74 0.00/0.68
wax         accuracy 0.1  8  246 0.38/0.69 0.50/0.74 0.50/0.73 0.00/0.57 0.00/0.59 0.00/0.50
lgbteen     accuracy 0.2  4  880 0.25/0.71 0.00/0.67 0.75/0.77 0.00/0.72 0.75/0.76 0.25/0.75
cebab_stars neg_rmse 0.1  10 711 0.60/0.82 0.80/0.87 0.90/0.90 0.60/0.85 0.90/0.89 0.50/0.83
lesion      neg_rmse 0.15 6  500 0.17/0.71 1.00/0.81 0.00/0.62 -         0.67/0.73 -
"""
PUBLISHED = {
    name: (
        scoring,
        float(eps),
        int(humans),
        int(items),
        [None if c == "-" else tuple(map(float, c.split("/"))) for c in cells],
    )
    for name, scoring, eps, humans, items, *cells in (line.split() for line in _TABLE.strip().splitlines())
}


def files(name: str) -> tuple[str, str]:
    return (
        str(shared_file("alttest", name, "human_annotations.json")),
        str(shared_file("alttest", name, "llm_annotations.json")),
    )


def expected(name: str) -> dict[str, tuple[float, float]]:
    return {j: v for j, v in zip(JUDGES, PUBLISHED[name][4], strict=True) if v is not None}


def test_done_when_mtbench_cli_prints_the_published_numbers():
    humans, judges = files("mtbench")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "humaneval",
            "judge",
            humans,
            "--judge-file",
            judges,
            "--epsilon",
            "0.2",
            "--scoring",
            "accuracy",
            "--resamples",
            "0",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = {r["judge"]: r for r in json.loads(out.stdout)["judges"]}
    assert set(rows) == set(JUDGES)
    for judge, (omega, rho) in expected("mtbench").items():
        row = rows[judge]
        assert (round(row["winning_rate"], 2), round(row["advantage_probability"], 2)) == (omega, rho), judge
        assert row["passed"] is (omega >= 0.5) and row["n_items"] == 120 and row["n_humans"] == 3


@pytest.mark.parametrize("name", ["wax", "lgbteen", "cebab_stars", "lesion"])
def test_every_published_number_of_the_other_data_sets(name):
    scoring, epsilon, n_humans, n_items, _ = PUBLISHED[name]
    result = alt_test(load_annotations(*files(name)), epsilon=epsilon, scoring=scoring)
    assert result.cautions == ()  # every item has 3+ humans, every human 30+ items
    table = result.table.set_index("judge")
    assert list(table.index) == sorted(expected(name))
    for judge, (omega, rho) in expected(name).items():
        row = table.loc[judge]
        assert round(row["winning_rate"], 2) == omega and round(row["advantage_probability"], 2) == rho, judge
        assert row["passed"] == (omega >= 0.5) and row["n_items"] == n_items and row["n_humans"] == n_humans
    # auto picks the authors' scoring: −RMSE for the numeric stars and lesion ratings, accuracy otherwise
    assert alt_test(load_annotations(*files(name)), epsilon=epsilon).scoring == scoring


# -- an independent loop, the authors' procedure written out item by item ---------------------------


def loop_alt_test(humans: dict, judge: dict, score, eps: float, min_items: int = 30) -> tuple[float, float]:
    by_item: dict[str, list[str]] = {}
    for h, labels in humans.items():
        for i in labels:
            by_item.setdefault(i, []).append(h)
    keep = {i for i, hs in by_item.items() if len(hs) >= 2 and i in judge}
    p_values, rhos = [], []
    for h, labels in humans.items():
        items = [i for i in labels if i in keep]
        if len(items) < min_items:
            continue
        judge_ind, human_ind = [], []
        for i in items:
            others = [humans[o][i] for o in by_item[i] if o != h]
            hs, js = score(labels[i], others), score(judge[i], others)
            judge_ind.append(js >= hs)
            human_ind.append(hs >= js)
        d = np.array(human_ind, float) - np.array(judge_ind, float)
        p_values.append(stats.ttest_1samp(d, eps, alternative="less").pvalue)
        rhos.append(np.mean(judge_ind))
    rejected = multipletests(p_values, alpha=0.05, method="fdr_by")[0]
    return float(np.mean(rejected)), float(np.mean(rhos))


def accuracy(label, others) -> float:
    return float(np.mean([label == o for o in others]))


def neg_rmse(label, others) -> float:
    return -float(np.sqrt(np.mean([(label - o) ** 2 for o in others])))


def random_study(seed: int, numeric: bool, n_items: int = 80, n_humans: int = 5):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    humans = {}
    for h in range(n_humans):
        labels = {}
        for i, t in enumerate(truth):
            if rng.random() < 0.75:  # sparse: not every human labels every item
                value = int(np.clip(t + rng.integers(-1, 2), 1, 5))
                labels[f"i{i}"] = value if numeric else "abcde"[value - 1]
        humans[f"h{h}"] = labels
    judges = {}
    for j, noise in enumerate((0, 1, 2)):
        values = np.clip(truth + rng.integers(-noise, noise + 1, n_items), 1, 5)
        if numeric and j == 2:
            # averaged samples: half points, on the 1-5 range (their min-max map is the identity)
            values = np.clip(values + 0.5 * rng.integers(0, 2, n_items), 1, 5)
        judges[f"j{j}"] = {
            f"i{i}": (float(v) if numeric else "abcde"[int(v) - 1]) for i, v in enumerate(values)
        }
    return humans, judges


@pytest.mark.parametrize("numeric", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_vectorised_equals_the_item_by_item_loop(seed, numeric):
    humans, judges = random_study(seed, numeric)
    score = neg_rmse if numeric else accuracy
    for eps in (0.05, 0.2):
        result = alt_test(load_annotations(humans, judges), epsilon=eps).table.set_index("judge")
        for name, labels in judges.items():
            omega, rho = loop_alt_test(humans, labels, score, eps)
            assert result.loc[name, "winning_rate"] == pytest.approx(omega, abs=1e-12)
            assert result.loc[name, "advantage_probability"] == pytest.approx(rho, abs=1e-12)
    # a user's scoring function goes through the same loop
    custom = alt_test(load_annotations(humans, judges), epsilon=0.1, scoring=score).table.set_index("judge")
    for name, labels in judges.items():
        omega, rho = loop_alt_test(humans, labels, score, 0.1)
        assert (custom.loc[name, "winning_rate"], custom.loc[name, "advantage_probability"]) == pytest.approx(
            (omega, rho), abs=1e-12
        )


def test_epsilon_profiles_and_range():
    assert [resolve_epsilon(profile=p) for p in ("expert", "skilled", "crowd")] == [0.2, 0.15, 0.1]
    assert resolve_epsilon() == 0.1
    for bad in (1.0, -0.1, 1.5):
        with pytest.raises(OptionError, match=r"outside \[0, 1\)"):
            resolve_epsilon(bad)


# -- hostile input: one line each ----------------------------------------------------------------


def test_bad_input_is_one_line():
    humans, judges = random_study(0, False)
    partial = {"j0": {k: v for k, v in list(judges["j0"].items())[5:]}}
    with pytest.raises(
        RatingsError, match=r"judge 'j0' has no label for 5 of the 75 items .*\(i0, i1, i2 and 2 more\)"
    ):
        alt_test(load_annotations(humans, partial))
    with pytest.raises(RatingsError, match="judge 'x' labels none of the 75 items"):
        alt_test(load_annotations(humans, {"x": {"other": "a"}}))
    single = {"h0": {f"i{i}": "a" for i in range(40)}, "h1": {f"k{i}": "a" for i in range(40)}}
    with pytest.raises(RatingsError, match="every item has a single human label"):
        alt_test(load_annotations(single, {"j": {f"i{i}": "a" for i in range(40)}}))
    with pytest.raises(RatingsError, match="mix label types"):
        load_annotations({"h": {"i": 3}}, {"j": {"i": "a"}})
    with pytest.raises(OptionError, match=r"--epsilon 1.0 is outside \[0, 1\)"):
        alt_test(load_annotations(humans, judges), epsilon=1.0)
    with pytest.raises(RatingsError, match="no judge"):
        alt_test(load_annotations(humans))
    with pytest.raises(OptionError, match="neg_rmse needs numeric labels"):
        alt_test(load_annotations(humans, judges), scoring="neg_rmse")


def test_few_items_follow_the_authors_guidance():
    humans, judges = random_study(3, True, n_items=25)
    with pytest.raises(InsufficientDataError, match="no human has 30 items"):
        alt_test(load_annotations(humans, judges))
    humans, judges = random_study(3, True, n_items=60)
    humans["h4"] = dict(list(humans["h4"].items())[:10])
    with pytest.warns(DataWarning, match="fewer than 30 items left out"):
        result = alt_test(load_annotations(humans, judges))
    assert result.table["n_humans"].iloc[0] == 4 and any("(h4)" in c for c in result.cautions)
    assert "h4" not in set(result.humans["human"])


def test_cli_bad_input_exit_code_2(tmp_path):
    humans, _judges = random_study(0, False)
    (tmp_path / "h.json").write_text(json.dumps(humans))
    (tmp_path / "j.json").write_text(json.dumps({"x": {"nope": "a"}}))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "humaneval",
            "judge",
            str(tmp_path / "h.json"),
            "--judge-file",
            str(tmp_path / "j.json"),
        ],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "labels none of the 75 items" in out.stderr


# -- agreement and the verdict -------------------------------------------------------------------


def test_alpha_with_and_without_judge_matches_the_krippendorff_package():
    krippendorff = pytest.importorskip("krippendorff")
    humans, judges = random_study(5, True)
    table = load_annotations(humans, judges)
    result = judge_agreement(table, n_resamples=0).table.set_index("judge")
    items = sorted({i for labels in humans.values() for i in labels})
    matrix = np.array([[labels.get(i, np.nan) for i in items] for labels in humans.values()], float)
    alone = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
    with_j0 = krippendorff.alpha(
        reliability_data=np.vstack([matrix, [judges["j0"][i] for i in items]]), level_of_measurement="ordinal"
    )
    assert result.loc["j0", "alpha_humans"] == pytest.approx(alone, abs=1e-9)
    assert result.loc["j0", "alpha_with_judge"] == pytest.approx(with_j0, abs=1e-9)
    mean = pd.DataFrame(matrix, columns=items).mean()
    tau = stats.kendalltau(mean.to_numpy(), [judges["j1"][i] for i in items]).statistic
    assert result.loc["j1", "tau_item"] == pytest.approx(tau, abs=1e-12)


def likert_with_judges(seed: int = 0, n_documents: int = 60) -> pd.DataFrame:
    """6 systems × 60 documents, 3 humans per summary; a judge that follows each summary's quality but
    reverses the small differences between systems, and a noisy judge that keeps their order."""
    rng = np.random.default_rng(seed)
    quality = np.linspace(-0.3, 0.3, 6)
    rows = []
    for d in range(n_documents):
        for s, q in enumerate(quality):
            latent = q + rng.normal(0, 1.0)
            for a in range(3):
                score = int(np.clip(np.round(3 + latent + rng.normal(0, 0.6)), 1, 5))
                rows.append((f"a{(d + a) % 6}", f"d{d}", f"s{s}", score, "human"))
            rows.append(
                ("reversed", f"d{d}", f"s{s}", int(np.clip(np.round(3 + latent - 2 * q), 1, 5)), "judge")
            )
            noisy = int(np.clip(np.round(3 + latent + rng.normal(0, 1.5)), 1, 5))
            rows.append(("noisy", f"d{d}", f"s{s}", noisy, "judge"))
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "score", "rater_kind"])


def test_verdict_flags_a_judge_that_passes_but_ranks_systems_backwards(tmp_path):
    path = tmp_path / "study.csv"
    likert_with_judges().to_csv(path, index=False)
    result = assess_judges(str(path), epsilon=0.2, n_resamples=1000)
    verdict = result.verdict.set_index("judge")
    assert verdict.loc["reversed", "passed"] and verdict.loc["reversed", "tau_system"] < 0
    assert not verdict.loc["noisy", "passed"] and verdict.loc["noisy", "tau_system"] == pytest.approx(0.6)
    flags = " ".join(verdict.loc["reversed", "flags"])
    assert "passes the alt-test, but its system-level τ interval reaches below 0.5" in flags
    assert "highest advantage probability" in flags and "noisy ranks the systems better" in flags
    assert "Flag: reversed" in result.summary() and result.to_dict()["judges"][1]["judge"] == "reversed"
    points = assess_judges(str(path), epsilon=0.2, n_resamples=0).verdict.set_index("judge")
    assert "its system-level τ is -0.60, below 0.5" in " ".join(points.loc["reversed", "flags"])


def test_report_has_a_judge_section_with_the_numbers_of_humaneval_judge(tmp_path):
    from humaneval.core.ratings import load_ratings
    from humaneval.report import ReportSettings, build_report, write_report

    ratings = load_ratings(likert_with_judges())
    settings = ReportSettings(
        engine="native", n_resamples=1000, n_splits=50, mean_resamples=1000, power_trials=0
    )
    report = build_report(ratings, settings=settings)
    files = write_report(report, tmp_path)
    page = (tmp_path / "report.md").read_text()
    assert "## LLM judges" in page and "| reversed | 1.00 | 0.86 | yes |" in page
    assert "reversed: passes the alt-test, but its system-level τ interval reaches below 0.5" in page
    assert (tmp_path / "judges.png").is_file() and "judges" in files
    saved = json.loads((tmp_path / "report.json").read_text())["judges"]["judges"]
    direct = assess_judges(ratings, n_resamples=1000, seed=1).to_dict()["judges"]
    assert saved == json.loads(json.dumps(direct))  # the report presents what the API decided
    assert report.structure.n_ratings == 1080  # the human rows only


def test_criteria_are_tested_separately_and_judge_samples_are_averaged():
    one = likert_with_judges(n_documents=20)
    two = pd.concat(
        [one.assign(criterion="coherence"), one.assign(criterion="fluency", score=6 - one["score"])]
    )
    both = alt_test(load_annotations(two), epsilon=0.2).table.set_index(["criterion", "judge"])
    alone = alt_test(load_annotations(one), epsilon=0.2).table.set_index("judge")
    for judge in ("noisy", "reversed"):
        for criterion in ("coherence", "fluency"):  # 6 − score mirrors the scale: −RMSE is unchanged
            assert both.loc[(criterion, judge), "winning_rate"] == alone.loc[judge, "winning_rate"]
            assert (
                both.loc[(criterion, judge), "advantage_probability"]
                == alone.loc[judge, "advantage_probability"]
            )
    # two samples of a judge whose mean is the one label above: the same test
    judge = one[one["annotator"] == "reversed"]
    lower, upper = judge.assign(score=judge["score"] - 1), judge.assign(score=judge["score"] + 1)
    inside = (judge["score"] > 1) & (judge["score"] < 5)
    sampled = pd.concat([one[one["annotator"] != "reversed"], lower[inside], upper[inside], judge[~inside]])
    again = alt_test(load_annotations(sampled), epsilon=0.2).table.set_index("judge")
    assert again.loc["reversed", "advantage_probability"] == alone.loc["reversed", "advantage_probability"]


def test_a_pairwise_judgement_is_one_item():
    rows = []
    rng = np.random.default_rng(4)
    for d in range(40):
        truth = rng.integers(0, 2)
        for who, kind, noise in (
            ("h1", "human", 0.2),
            ("h2", "human", 0.2),
            ("h3", "human", 0.2),
            ("j", "judge", 0.1),
        ):
            win = float(truth if rng.random() > noise else 1 - truth)
            rows += [(who, f"d{d}", "a", "b", win, kind), (who, f"d{d}", "b", "a", 1 - win, kind)]
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score", "rater_kind"])
    annotations = load_annotations(table)
    assert set(label_view(annotations).data["item"]) == {f"d{d}|a|b" for d in range(40)}
    result = alt_test(annotations, epsilon=0.2)
    assert result.scoring == "accuracy" and result.table.iloc[0]["n_items"] == 40
    side = table[table["system"] == "a"]  # each judgement once, as the share of a's wins
    humans = {
        h: dict(zip(part["document"], part["score"], strict=True)) for h, part in side.groupby("annotator")
    }
    judge = humans.pop("j")
    omega, rho = loop_alt_test(humans, judge, accuracy, 0.2)
    assert (
        result.table.iloc[0]["winning_rate"],
        result.table.iloc[0]["advantage_probability"],
    ) == pytest.approx((omega, rho))


def test_pairwise_system_tau_uses_win_rates():
    rows = []
    strength = {"a": 2.0, "b": 1.0, "c": 0.0, "d": -1.0}
    rng = np.random.default_rng(5)
    pairs = [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    for doc in range(30):
        for x, y in pairs:
            p = 1 / (1 + np.exp(strength[y] - strength[x]))
            for who, kind in (("h1", "human"), ("h2", "human"), ("h3", "human"), ("fan", "judge")):
                # the judge prefers d, the weakest system, whenever d is in the pair
                win = float(rng.random() < p) if not (kind == "judge" and "d" in (x, y)) else float(y != "d")
                rows += [(who, f"d{doc}", x, y, win, kind), (who, f"d{doc}", y, x, 1 - win, kind)]
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score", "rater_kind"])
    row = judge_agreement(load_annotations(table), n_resamples=1000).table.iloc[0]
    # humans' win rates order a > b > c > d; the judge puts d (it wins every pair) first
    human = table[table.rater_kind == "human"].groupby("system")["score"].mean()
    judge = table[table.rater_kind == "judge"].groupby("system")["score"].mean()
    assert row["tau_system"] == pytest.approx(stats.kendalltau(human, judge.reindex(human.index)).statistic)
    assert row["tau_system"] < 0.5 and row["n_systems"] == 4


def test_indicators_without_spread_have_an_exact_answer():
    humans = {f"h{k}": {f"i{i}": "a" for i in range(40)} for k in range(3)}
    same = alt_test(load_annotations(humans, {"copy": {f"i{i}": "a" for i in range(40)}}), epsilon=0.1)
    wrong = alt_test(load_annotations(humans, {"off": {f"i{i}": "b" for i in range(40)}}), epsilon=0.1)
    assert same.table.iloc[0]["winning_rate"] == 1.0 and same.humans["statistic"].isna().all()
    assert wrong.table.iloc[0]["winning_rate"] == 0.0 and (wrong.humans["p_value"] == 1.0).all()
