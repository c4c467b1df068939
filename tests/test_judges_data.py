"""Judges in the data: rater_kind, --judges, the annotation readers, and every human analysis
leaving the judge rows out (each stage's numbers equal those of the table without judges)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from humaneval.core.ratings import Ratings, load_ratings, mark_judges
from humaneval.errors import RatingsError
from humaneval.io.datasets import wine_ratings
from humaneval.judges import load_annotations, read_annotations
from humaneval.judges.data import label_view


def with_judge(table: pd.DataFrame, samples: int = 2, seed: int = 0) -> pd.DataFrame:
    """``table`` plus a judge that scores every summary ``samples`` times (kind spelt JUDGE)."""
    summaries = table.drop_duplicates([c for c in table if c not in ("annotator", "score", "is_check")])
    rows = pd.concat([summaries.assign(annotator="gpt-4o", rater_kind="JUDGE")] * samples, ignore_index=True)
    low, high = int(table["score"].min()), int(table["score"].max())
    rows["score"] = np.random.default_rng(seed).integers(low, high + 1, len(rows))
    return pd.concat([table.assign(rater_kind="human"), rows], ignore_index=True)


# -- the data model ------------------------------------------------------------------------------


def test_rater_kind_marks_judges_and_samples_are_not_duplicates():
    ratings = load_ratings(with_judge(wine_ratings()), scale="1-5")
    assert ratings.judge_names == ["gpt-4o"] and ratings.has_judges
    assert len(ratings.judges()) == 16 and len(ratings.humans()) == 72
    assert set(ratings.data["rater_kind"]) == {"human", "judge"}
    assert ratings.without_checks().data.equals(ratings.humans().data)
    plain = load_ratings(wine_ratings())
    assert plain.judge_names == [] and not plain.has_judges and len(plain.judges()) == 0
    assert plain.humans() is plain and "rater_kind" not in plain.data


def test_a_human_rating_twice_is_still_a_duplicate_and_a_bad_kind_one_line():
    table = wine_ratings()
    with pytest.raises(RatingsError, match="duplicate rating"):
        load_ratings(pd.concat([table, table.head(1)]))
    with pytest.raises(RatingsError, match=r"rater_kind' must be human or judge, found 'robot' at row 3"):
        load_ratings(table.assign(rater_kind=["human"] * 3 + ["robot"] + ["human"] * 68))


def test_judges_option_names_annotators_and_refuses_strangers():
    table = pd.concat([wine_ratings(), wine_ratings().query("annotator == '1'")], ignore_index=True)
    ratings = load_ratings(table, judges="1")  # annotator 1's repeated rows are now samples
    assert ratings.judge_names == ["1"] and len(ratings.judges()) == 16
    assert mark_judges(load_ratings(wine_ratings()), ["2", "3"]).judge_names == ["2", "3"]
    with pytest.raises(RatingsError, match=r"--mark-judges names 'gpt', which is not an annotator"):
        load_ratings(wine_ratings(), judges="1,gpt")


def test_judge_samples_of_a_ranking_are_allowed():
    ranks = pd.DataFrame(
        {
            "annotator": ["a"] * 3 + ["j"] * 6,
            "document": "d",
            "system": list("xyz") * 3,
            "rank": [1, 2, 3, 1, 2, 3, 2, 1, 3],
            "rater_kind": ["human"] * 3 + ["judge"] * 6,
        }
    )
    assert load_ratings(ranks).judge_names == ["j"]
    with pytest.raises(RatingsError, match="not a permutation"):
        load_ratings(ranks.assign(rater_kind="human"))


def test_json_layout_long_table_and_two_files(tmp_path):
    humans = {"h1": {"i1": 1, "i2": 3, "i3": 2}, "h2": {"i1": 2, "i2": 3, "i3": 2}}
    (tmp_path / "h.json").write_text(json.dumps(humans))
    (tmp_path / "j.json").write_text(json.dumps({"gpt": {"i1": [2, 3], "i2": 3}}))
    ratings = load_annotations(tmp_path / "h.json", tmp_path / "j.json")
    # one table type: the judge's rows are ratings rows marked rater_kind = judge, its samples kept
    assert isinstance(ratings, Ratings) and ratings.judge_names == ["gpt"] and len(ratings.judges()) == 3
    assert (
        set(ratings.data["system"]) == {"-"}
        and ratings.humans().data["item"].tolist() == ["i1", "i2", "i3"] * 2
    )
    table = label_view(ratings)
    assert table.label_kind == "numeric"
    labels = table.labels().set_index(["item", "annotator"])["label"]
    assert labels[("i1", "gpt")] == 2.5  # two samples averaged
    long = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "a", "a"],
            "annotator": ["h1", "h2", "h1", "h2", "llm", "llm"],
            "label": ["yes", "no", "no", "no", "yes", "no"],
            "rater_kind": ["human"] * 4 + ["Judge"] * 2,
        }
    )
    long.to_csv(tmp_path / "long.csv", index=False)
    ratings = read_annotations(tmp_path / "long.csv")
    # words keep their text; the score is their code (no = 1, yes = 2), shared by humans and judges
    assert ratings.data[["score", "label_text"]].drop_duplicates().values.tolist() == [[2, "yes"], [1, "no"]]
    table = label_view(ratings)
    assert (
        table.label_kind == "categorical"
        and table.judge_names == ["llm"]
        and table.human_names == ["h1", "h2"]
    )
    # the most frequent sample wins; a tie goes to the label sampled first
    assert table.labels().query("annotator == 'llm'")["label"].tolist() == ["yes"]
    same = load_annotations(long.drop(columns="rater_kind"), judges="llm")
    assert same.judge_names == ["llm"]
    # a judge file of words beside human words: one coding over both
    both = load_annotations({"h1": {"a": "yes", "b": "maybe"}}, {"llm": {"a": "no", "b": "yes"}})
    coded = both.data.set_index(["annotator", "document"])[["score", "label_text"]]
    assert coded.loc[("llm", "a")].tolist() == [2, "no"] and coded.loc[("h1", "b")].tolist() == [1, "maybe"]


def test_annotation_errors_are_one_line(tmp_path):
    with pytest.raises(RatingsError, match=r"labels mix numbers and words \(3 at row 0, 'tie' at row 1\)"):
        read_annotations({"h1": {"i1": 3, "i2": "tie"}})
    with pytest.raises(RatingsError, match="mix label types"):
        load_annotations({"h1": {"i1": 3}}, {"gpt": {"i1": "A"}})
    with pytest.raises(RatingsError, match="human annotator 'h1' labels item 'a' more than once"):
        read_annotations(pd.DataFrame({"item": ["a", "a"], "annotator": ["h1", "h1"], "label": [1, 2]}))
    with pytest.raises(RatingsError, match="missing column 'label'"):
        read_annotations(pd.DataFrame({"item": ["a"], "annotator": ["h1"], "answer": [1]}))
    with pytest.raises(RatingsError, match="'h1' is both a human and a judge"):
        load_annotations({"h1": {"i1": 3}}, {"h1": {"i1": 2}})
    (tmp_path / "bad.json").write_text(json.dumps({"h1": [1, 2]}))
    with pytest.raises(RatingsError, match=r"annotator 'h1' maps to list"):
        read_annotations(tmp_path / "bad.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(RatingsError, match=r"list.json: the file holds a JSON list; the layout is"):
        read_annotations(tmp_path / "list.json")
    (tmp_path / "deep.json").write_text('{"h1": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(RatingsError, match=r"deep.json: the JSON is nested too deeply"):
        read_annotations(tmp_path / "deep.json")
    (tmp_path / "empty.json").write_text("{}")
    with pytest.raises(RatingsError, match=r"no labels"):
        read_annotations(tmp_path / "empty.json")
    with pytest.raises(RatingsError, match=r"label inf at row 0 is not a finite number"):
        read_annotations({"j": {"a": float("inf")}})
    lines = tmp_path / "lines.json"  # JSON lines of the long table are read as such
    lines.write_text(
        '{"item": "a", "annotator": "h", "label": 1}\n{"item": "a", "annotator": "g", "label": 2}\n'
    )
    assert label_view(read_annotations(lines)).human_names == ["g", "h"]


def test_a_ratings_table_as_annotations(tmp_path):
    path = tmp_path / "ratings.csv"
    with_judge(wine_ratings()).to_csv(path, index=False)
    ratings = read_annotations(path)
    assert isinstance(ratings, Ratings) and ratings.judge_names == ["gpt-4o"]
    table = label_view(ratings)
    assert table.label_kind == "numeric" and table.judge_names == ["gpt-4o"]
    assert table.data["item"].iloc[0] == "1|cold-no" and len(table.labels()) == 72 + 8
    assert label_view(load_ratings(wine_ratings(), judges="9")).judge_names == ["9"]


def test_a_pool_file_joins_a_ratings_table_as_judge_rows(tmp_path):
    """The pool layout ``document, system, score, judge`` appended to a ratings table: judge rows of
    the same table, off the humans' declared scale allowed (the analyses calibrate them)."""
    ratings = load_ratings(wine_ratings(), scale="1-5")
    pool = ratings.data.drop_duplicates(["document", "system"])[["document", "system"]].astype(str)
    pool = pool.assign(score=np.arange(len(pool)) * 10.5, judge="metric")
    pool.to_csv(tmp_path / "pool.csv", index=False)
    both = load_annotations(ratings, tmp_path / "pool.csv")
    assert both.judge_names == ["metric"] and len(both.judges()) == 8 and len(both.humans()) == 72
    assert both.scale == (1.0, 5.0) and both.data["score"].max() == 73.5 and both.continuous
    assert isinstance(both.data["document"].dtype, pd.CategoricalDtype)
    humans = both.without_checks().data
    pd.testing.assert_frame_equal(humans, ratings.data.assign(rater_kind="human"), check_dtype=False)
    view = label_view(both).labels().set_index(["item", "annotator"])["label"]
    expected = pool.set_index(pool["document"] + "|" + pool["system"])["score"]
    assert view.xs("metric", level="annotator").to_dict() == expected.to_dict()


# -- every human analysis leaves the judges out ---------------------------------------------------


@pytest.fixture(scope="module")
def pair():
    return load_ratings(wine_ratings(), scale="1-5"), load_ratings(with_judge(wine_ratings()), scale="1-5")


def test_reliability_alpha_and_shr_ignore_judges(pair):
    from humaneval.reliability import reliability_report, split_half_reliability

    plain, judged = pair
    a = reliability_report(plain, n_resamples=1000, n_splits=50, seed=1).to_dict()
    b = reliability_report(judged, n_resamples=1000, n_splits=50, seed=1).to_dict()
    assert a == b and a["alpha"] is not None
    assert (
        split_half_reliability(judged, seed=2, split="annotators_documents").to_dict()
        == split_half_reliability(plain, seed=2, split="annotators_documents").to_dict()
    )


def test_analyze_clmm_and_classic_ignore_judges(pair):
    from humaneval.analysis import analyze

    plain, judged = pair
    a, b = analyze(plain), analyze(judged)
    pd.testing.assert_frame_equal(a.contrasts, b.contrasts)
    a, b = analyze(plain, test="wilcoxon"), analyze(judged, test="wilcoxon")
    pd.testing.assert_frame_equal(a.contrasts, b.contrasts)


def test_power_pilot_ignores_judges(pair):
    from humaneval.simulate.pilot import pilot_model

    plain, judged = pair
    assert pilot_model(judged).to_dict() == pilot_model(plain).to_dict()


def test_qc_screens_humans_only_and_exclusion_keeps_judges(pair):
    from humaneval.qc import QCRules, apply_exclusions, qc_report

    plain, judged = pair
    a, b = qc_report(plain), qc_report(judged)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert "gpt-4o" not in set(b.table["annotator"])
    kept = apply_exclusions(judged, b, policy=("straight_line",)).ratings
    assert kept.judge_names == ["gpt-4o"] and len(kept.judges()) == 16
    assert QCRules() == a.rules


def test_comparative_ignores_judges():
    from humaneval.comparative import analyze_comparative

    wins = {("A", "B"): 3, ("B", "A"): 1, ("A", "C"): 2, ("C", "A"): 2, ("B", "C"): 3, ("C", "B"): 1}
    rows = []
    for k, (winner, loser) in enumerate(p for p, n in wins.items() for _ in range(n)):
        rows += [("w0", f"d{k}", winner, loser, 1.0), ("w0", f"d{k}", loser, winner, 0.0)]
    table = pd.DataFrame(rows, columns=["annotator", "document", "system", "opponent", "score"])
    judge = table.assign(annotator="gpt", score=1 - table["score"], rater_kind="judge")
    mixed = pd.concat([table.assign(rater_kind="human"), judge, judge], ignore_index=True)
    a, b = analyze_comparative(table, inference="model"), analyze_comparative(mixed, inference="model")
    assert b.fit.nobs == a.fit.nobs == 12
    pd.testing.assert_frame_equal(a.systems, b.systems)


def test_report_numbers_ignore_judges(pair):
    from humaneval.report.build import ReportSettings, build_report

    plain, judged = pair
    settings = ReportSettings(
        n_resamples=1000, n_splits=20, mean_resamples=1000, power_trials=5, clmm_power_trials=0
    )
    a = build_report(plain, settings=settings).to_dict()["criteria"]
    b = build_report(judged, settings=settings).to_dict()["criteria"]
    assert a[0]["reliability"]["alpha"] is not None
    assert json.dumps(untimed(a), sort_keys=True, default=str) == json.dumps(
        untimed(b), sort_keys=True, default=str
    )


def untimed(value: object) -> object:
    """The report without its wall-clock times (``fit_seconds``, ``seconds``)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if not str(k).endswith("seconds")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def test_an_inferred_scale_is_the_humans():
    table = with_judge(wine_ratings())
    table.loc[table["rater_kind"] == "JUDGE", "score"] = 9  # a judge on its own 0-10 scale
    ratings = load_ratings(table)
    assert ratings.scale == (1.0, 5.0) and ratings.judges().data["score"].max() == 9
