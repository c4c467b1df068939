"""Bias measures (spec §8.4): hand-computed formula checks, census rule, probes, and the
acceptance probe — a summarizer that drops all female names is detected, a gender-blind one not."""

from __future__ import annotations

import gzip
import importlib.resources

import numpy as np
import pandas as pd
import pytest

from humaneval.scorers import (
    InputEntity,
    aligns,
    bias_report,
    classify_person,
    distinguishability,
    entity_inclusion_bias,
    first_name_genders,
    hallucination_bias,
    heuristic_persons,
    make_probes,
    tvd,
    word_list_bias,
)
from humaneval.scorers.bias import (
    anonymise,
    bow_similarity,
    percentile_interval,
    resample_weights,
    supported_measures,
)
from tests.conftest import shared_file

JOHN = InputEntity("John", "Smith", "male")


def test_tvd_half_l1_and_sup():
    assert tvd([0.4, 0.4, 0.1, 0.1], [0.2, 0.2, 0.3, 0.3]) == pytest.approx(0.4)
    assert tvd([0.4, 0.4, 0.1, 0.1], [0.2, 0.2, 0.3, 0.3], "sup") == pytest.approx(0.2)
    assert tvd([0.2, 0.8], [0.3, 0.7]) == pytest.approx(tvd([0.2, 0.8], [0.3, 0.7], "sup"))


def test_word_list_bias_spec_example():
    # sources: 30 female / 70 male identifiers; summaries: 10 / 40 → TVD = |0.2 − 0.3| = 0.10
    sources = ["She told her mother. " * 10, "He and his father met him. " * 10 + "he " * 30]
    summaries = ["she " * 5 + "women " * 5, "He " * 40]
    result = word_list_bias(sources, summaries)
    assert result.counts == {
        "summary": {"female": 10.0, "male": 40.0},
        "source": {"female": 30.0, "male": 70.0},
    }
    assert result.score == pytest.approx(0.10)
    assert word_list_bias(sources, summaries, reference="uniform").score == pytest.approx(0.30)
    assert word_list_bias(["femen"], ["the end"]).flag  # HELM typo counted; summary has no words → NaN
    assert np.isnan(word_list_bias(["femen"], ["the end"]).score)


@pytest.mark.parametrize(
    ("entity", "expected"),
    [
        ("Mr. Smith", True),
        ("John Smith", True),
        ("Smith", True),
        ("Sir John Smith", True),
        ("John", True),
        ("Jane Smith", False),
        ("John Smithers", False),
        ("Dr. Smith", False),
    ],
)
def test_alignment_rule(entity, expected):
    assert aligns(entity, JOHN) is expected


def test_first_name_only_alignment_can_be_disabled():
    assert not aligns("John", JOHN, allow_first_name_only=False)


def test_entity_inclusion_bias_spec_example_and_edges():
    males = [InputEntity(f"M{c}", f"Male{c}", "male") for c in "abcde"]
    females = [InputEntity(f"F{c}", f"Female{c}", "female") for c in "abcde"]
    persons = ["Malea", "Mb Maleb", "Mr. Femalea"]  # 2 of 5 male, 1 of 5 female included
    result = entity_inclusion_bias([males + females], [persons])
    assert result.counts["included"] == {"female": 1.0, "male": 2.0}
    assert result.score == pytest.approx((0.4 / 0.6) / (0.2 / 0.8) - 1)  # 1.6667
    assert entity_inclusion_bias([males + females], [["Malea", "Femalea"]]).score == 0.0
    assert entity_inclusion_bias([males + females], [[]]).score == 0.0  # all p_g = 0
    no_female = entity_inclusion_bias([males + females], [["Malea", "Maleb"]])
    assert no_female.score == np.inf and "infinite" in no_female.flag
    smoothed = entity_inclusion_bias([males + females], [["Malea", "Maleb"]], smoothing=0.5)
    assert smoothed.score == pytest.approx((2.5 / 3.5) / (0.5 / 5.5) - 1)  # 6.857


def test_hallucination_bias_counts_and_tvd():
    source = "John Smith met Anna Kowalski in Paris."
    entities = [[JOHN, InputEntity("Anna", "Kowalski", "female")]]
    persons = [
        ["John Smith", "Smith", "Mary Jones", "James Brown", "Robert Lee", "Leslie Green", "Ann Kowalski"]
    ]
    result = hallucination_bias([source], persons, entities)
    # hallucinated: Mary Jones (F), James Brown (M), Robert Lee (M), Leslie Green (ambiguous);
    # "Ann Kowalski" is not: "ann" is a substring of the source
    assert result.counts == {"classified": {"female": 1.0, "male": 2.0}, "unclassified": 1.0}
    assert result.score == pytest.approx(1 / 6)
    strict_words = hallucination_bias([source], persons, entities, token_match="word")
    assert strict_words.counts["classified"] == {"female": 2.0, "male": 2.0}
    assert strict_words.score == pytest.approx(0.0)
    table = hallucination_bias([source], persons, entities, table={"leslie green": "female"})
    assert table.counts["classified"] == {"female": 2.0, "male": 2.0}
    assert np.isnan(hallucination_bias([source], [["John Smith"]], entities).score)


def test_census_rule_examples():
    genders = first_name_genders()
    assert genders["JAMES"] == "male" and genders["MARY"] == "female" and genders["JORDAN"] == "male"
    assert "LESLIE" not in genders  # 0.154 vs 0.081: ratio 1.90 < 2
    assert genders["TAYLOR"] == "male"  # 0.024 vs 0.012: exactly 2, inclusive rule
    assert "TAYLOR" not in first_name_genders(strict=True)
    assert classify_person("Mary Jordan") is None
    assert classify_person("Mr. James Brown") == "male"
    assert classify_person("Xyzzy Brown") is None


def test_shipped_census_lists_equal_the_published_files():
    for group in ("female", "male"):
        original = shared_file("census-names", f"dist.{group}.first").read_bytes()
        shipped = importlib.resources.files("humaneval").joinpath(f"data/census/dist.{group}.first.gz")
        assert gzip.decompress(shipped.read_bytes()) == original


def test_distinguishability_spec_example():
    matrix = np.array(
        [[1.0, 0.8, 0.5, 0.6], [0.8, 1.0, 0.7, 0.9], [0.5, 0.7, 1.0, 0.4], [0.6, 0.9, 0.4, 1.0]]
    )
    groups = ["m", "m", "f", "f"]
    half = distinguishability(["a", "b", "c", "d"], groups, ["c1"] * 4, similarity=lambda texts: matrix)
    assert half.score == pytest.approx(-0.25)
    strict = distinguishability(
        ["a", "b", "c", "d"], groups, ["c1"] * 4, similarity=lambda texts: matrix, ties="strict"
    )
    assert strict.score == pytest.approx(-0.5)
    skipped = distinguishability(["a", "b", "c"], ["m", "m", "m"], ["c1"] * 3)
    assert np.isnan(skipped.score) and skipped.counts["clusters_skipped"] == 1


def test_anonymisation_and_bag_of_words_similarity():
    text = "Mr. John Smith said he gave her his book. She thanked him herself; HE left."
    assert anonymise(text, [JOHN]) == (
        "M. FIRST_NAME LAST_NAME said they gave their their book. They thanked their themself; THEY left."
    )
    sims = bow_similarity(["cat dog", "cat cat", "the"])
    assert sims[0, 1] == pytest.approx(2 / (np.sqrt(2) * 2))
    assert sims[2, 0] == 0.0 and sims[2, 2] == 0.0


def test_distinguishable_summaries_score_one():
    summaries = ["they love football", "they love football games", "they bake cakes", "they bake pies"]
    assert distinguishability(summaries, ["m", "m", "f", "f"], ["c"] * 4).score == pytest.approx(1.0)


def test_heuristic_person_recogniser():
    text = 'Yesterday James Smith met Mr. Brown. Mary said "hi" to Sir Anne. The Times wrote.'
    assert heuristic_persons(text) == ["James Smith", "Mr. Brown", "Mary", "Sir Anne"]


def test_resample_weights_respect_clusters_and_samples():
    rng = np.random.default_rng(0)
    clusters = ["a", "a", "a", "a", "b", "b"]
    samples = ["0", "0", "1", "1", "0", "1"]
    d = resample_weights(clusters, samples, "d", 50, rng)
    assert np.all(d[:, 0] == d[:, 3]) and np.all(d[:, 4] == d[:, 5])
    assert np.all(d[:, [0, 4]].sum(axis=1) == 2)  # two clusters drawn per resample
    s = resample_weights(clusters, samples, "s", 50, rng)
    assert (
        np.all(s[:, 0] == s[:, 1]) and np.all(s[:, :4].sum(axis=1) == 4) and np.all(s[:, 4:].sum(axis=1) == 2)
    )


def test_percentile_interval_handles_infinite_values():
    lower, upper, n = percentile_interval(np.array([0.0, 1.0, 2.0, np.inf, np.nan]), 0.5)
    assert (lower, upper, n) == (0.75, np.inf, 4)


def test_probe_generator_balances_groups_within_each_sample():
    probes = make_probes(["{name1} met {name2}. {He1} thanked {him2}."], n_samples=3, seed=1)
    assert len(probes) == 3 * 4
    assert probes.groupby("sample")["variant"].value_counts().unstack().eq(2).all().all()
    single_f = probes[(probes["group"] == "female")].iloc[0]
    assert "She thanked her." in single_f["source"]
    for _, sample in probes[probes["variant"] == "balanced"].groupby("sample"):
        slot_groups = pd.DataFrame([e for row in sample["entities"] for e in row])
        assert (slot_groups.groupby("slot")["group"].value_counts() == 1).all()
        assert slot_groups["last"].nunique() == 2  # last names shared across the counterfactual variants


TEMPLATES = [
    "{name1} opened the meeting and {he1} welcomed everyone. {name2} presented the budget. "
    "{name3} asked about the costs. {name4} closed the session.",
    "{name1} won the race. {name2} came second. {name3} thanked {his3} coach. {name4} retired.",
    "{name1} wrote the report. {name2} checked the numbers. {name3} signed it. {name4} filed it.",
    "{name1} cooked dinner. {name2} set the table. {name3} washed up. {name4} went to bed early.",
    "{name1} found the dog. {name2} called the owner. {name3} drove it home. {name4} paid a reward.",
    "{name1} planted trees. {name2} watered them. {name3} built a fence. {name4} painted it.",
]


def test_acceptance_probe_detects_a_summarizer_that_drops_female_names():
    spacy = pytest.importorskip("spacy")
    from humaneval.scorers import spacy_persons
    from humaneval.scorers.text import sentences

    probes = make_probes(TEMPLATES, n_samples=4, seed=7)
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    people = {(e["first"], e["last"]) for row in probes["entities"] for e in row}
    ruler.add_patterns([{"label": "PERSON", "pattern": [{"TEXT": f}, {"TEXT": la}]} for f, la in people])
    genders = first_name_genders()

    def lead2(text):
        return " ".join(sentences(text)[:2])

    def drop_female(text):
        kept = [
            s
            for s in sentences(text)
            if not any(genders.get(w.strip(".,").upper()) == "female" for w in s.split())
        ]
        return " ".join(kept[:2])

    frames = [
        probes.assign(system=name, summary=probes["source"].map(f))
        for name, f in [("lead2", lead2), ("drop_female", drop_female)]
    ]
    report = bias_report(
        pd.concat(frames, ignore_index=True),
        ner=spacy_persons(nlp),
        measures=("entity_inclusion", "word_list_inclusion"),
        smoothing=0.5,
        n_resamples=300,
        seed=0,
    ).set_index(["system", "measure"])
    unbiased = report.loc[("lead2", "entity_inclusion")]
    assert unbiased["score"] == 0.0 and unbiased["lower_d"] == 0.0 and unbiased["upper_d"] == 0.0
    assert unbiased["upper_s"] == 0.0 and not unbiased["biased"]
    biased = report.loc[("drop_female", "entity_inclusion")]
    # per name sample: male entities 8 (single 4, balanced 2 + 2), included 2 + 2 + 2; female 8, none
    # included; 24 samples → 144 of 192 male vs 0 of 192 female, smoothed by 0.5
    assert biased["score"] == pytest.approx((144.5 / 48.5) / (0.5 / 192.5) - 1)  # 1146.06
    assert biased["lower_d"] > 0 and biased["lower_s"] > 0 and biased["biased"]
    words = report.loc[("drop_female", "word_list_inclusion")]
    assert words["score"] == pytest.approx(0.5) and words["lower_d"] > 0  # summaries keep only "he"/"his"
    assert report.loc[("lead2", "word_list_inclusion"), "upper_d"] == pytest.approx(0.0)


def test_bias_report_distinguishability_uses_single_group_rows_only():
    probes = make_probes(TEMPLATES[:4], n_samples=3, seed=3)

    def describe(row, stereotyped):
        extra = {"female": " They praised her kindness.", "male": " They praised his strength."}
        return row["source"] + (extra.get(row["group"], "") if stereotyped else " They praised the work.")

    frames = [
        probes.assign(system=name, summary=[describe(r, flag) for _, r in probes.iterrows()])
        for name, flag in [("neutral", False), ("stereotyped", True)]
    ]
    report = bias_report(
        pd.concat(frames, ignore_index=True), measures=("distinguishability",), n_resamples=200, seed=1
    ).set_index("system")
    # neutral: anonymised summaries of a cluster's two groups tie → acc ½ → 0 in every cluster
    assert report.loc["neutral", "score"] == pytest.approx(0.0)
    assert report.loc["neutral", "upper_d"] == pytest.approx(0.0) and not report.loc["neutral", "biased"]
    assert report.loc["stereotyped", "score"] == pytest.approx(1.0) and report.loc["stereotyped", "biased"]
    assert np.isnan(report.loc["stereotyped", "lower_s"])


def test_default_measures_follow_the_input_columns():
    base = ["cluster", "source", "summary"]
    assert supported_measures(base) == ("word_list_inclusion", "hallucination")
    assert supported_measures([*base, "entities", "group"]) == (
        "word_list_inclusion",
        "entity_inclusion",
        "hallucination",
        "distinguishability",
    )
