"""Hostile input for the commands and readers of the newest sessions (ranks, reproducibility, span
tables, scale effects, judges, PPI, budget and design with judge scores): each case below was a
traceback, a second line, or a silently wrong number before its reader was fixed.

The harness is that of tests/test_cli_hostile.py: exit code 2, ONE ``error:`` line naming the file and
row or the option, nothing on stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from humaneval.errors import RatingsError
from tests.test_cli_hostile import assert_one_line_error, fill, run

pytestmark = pytest.mark.timeout(300)

#: Files by name: written once per module into a temporary folder.
FILES = {
    # ranks
    "est_header": "name,estimate,se\n",
    "est_one": "name,estimate,se\nA,1,0.1\n",
    "est_blank_name": "name,estimate,se\nA,1,0.1\n,2,0.2\n",
    "est_na_name": "name,estimate,se\nNA,1,0.1\nB,2,0.2\n",
    "est_two_se": "name,estimate,se,se\nA,1,0.1,9\nB,2,0.2,3\n",
    "est_neg_se": "name,estimate,se\nA,1,0.1\nB,2,-0.2\n",
    "est_huge": "name,estimate,se\nA,1e308,0.1\nB,-1e308,0.2\n",
    "est_huge_se": "name,estimate,se\nA,1,1e308\nB,2,1e308\n",
    "est_two": "name,estimate\nA,1\nB,2\n",
    "cov_two_a": "A,A\n1,0.5\n0.5,1\n",
    # compare-runs
    "values": "system,value\nA,1\nB,2\nC,3\n",
    "values_twice": "system,value\nA,1\nA,5\nB,2\nC,3\n",
    "values_doc_twice": "system,document,value\nA,d1,1\nB,d1,2\nA,d2,1\nB,d2,3\nA,d1,4\n",
    "values_huge": "system,value\nA,1e308\nB,2\nC,3\n",
    "values_two_columns": "system,value,value\nA,1,9\nB,2,9\nC,3,9\n",
    # any table read by read_table: a column named twice (the second one used to be ignored)
    "ratings_two_scores": "annotator,document,system,score,score\na1,d1,A,1,5\na1,d1,B,2,5\n",
    "ratings_spaced_twice": "annotator,document,system,score, system\na1,d1,A,1,B\na1,d1,B,2,A\n",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sweep")
    paths = {"root": root}
    for name, text in FILES.items():
        paths[name] = root / f"{name}.csv"
        paths[name].write_text(text)
    return paths


SWEEP = [
    # ranks: a header only or one row named with the file (was "not an array of shape (0,)")
    (["ranks", "{est_header}"], ["est_header.csv: 0 estimate(s)", "at least two rows"]),
    (["ranks", "{est_one}"], ["est_one.csv: 1 estimate(s)"]),
    # an empty name was read as the system 'nan' and ranked
    (["ranks", "{est_blank_name}"], ["est_blank_name.csv: row 3, column 'name': the name is empty"]),
    # a second 'se' column was renamed 'se.1' by pandas and ignored
    (["ranks", "{est_two_se}"], ["est_two_se.csv: the header names column 'se' twice"]),
    (["ranks", "{est_two}", "--cov", "{cov_two_a}"], ["cov_two_a.csv: the header names column 'A' twice"]),
    (["ranks", "{est_neg_se}"], ["est_neg_se.csv: row 3, column 'se': '-0.2' is negative"]),
    # 1e308 overflowed in the bootstrap ("warning: overflow encountered") and still printed sets
    (["ranks", "{est_huge}"], ["est_huge.csv: row 2, column 'estimate': '1e+308' is beyond ±1e+12"]),
    (["ranks", "{est_huge_se}"], ["est_huge_se.csv: row 2, column 'se'", "beyond ±1e+12"]),
    # compare-runs: a second value of a system was averaged in; 1e308 printed "CV* mean inf" with numpy's
    # overflow warnings; --scale-min nan gave CV* nan and 1e308 overflowed
    (["compare-runs", "{values}", "{values_twice}"],
     ["values_twice.csv: line 3: a second value for system 'A'", "one value per system"]),
    (["compare-runs", "{values}", "{values_doc_twice}"], ["line 6: a second value for system 'A', document"]),
    (["compare-runs", "{values}", "{values_huge}"], ["values_huge.csv: line 2: value 1e+308 is beyond"]),
    (["compare-runs", "{values}", "{values}", "--scale-min", "nan"], ["--scale-min", "not nan"]),
    (["compare-runs", "{values}", "{values}", "--scale-min", "-1e308"], ["--scale-min", "within ±1e+12"]),
    (["compare-runs", "{values}", "{values_two_columns}"],
     ["values_two_columns.csv: the header names column 'value' twice"]),
    (["validate", "{ratings_two_scores}"], ["ratings_two_scores.csv: the header names column 'score' twice"]),
    (["analyze", "{ratings_spaced_twice}"], ["the header names column 'system' twice"]),
]  # fmt: skip


@pytest.mark.parametrize("template,fragments", SWEEP, ids=[" ".join(c[0][:2]) for c in SWEEP])
def test_sweep(files, template, fragments):
    assert_one_line_error(run(*fill(template, files)), *fragments)


def test_a_system_called_na_keeps_its_name(files):
    from humaneval.ranks import read_estimates

    estimates, _, se = read_estimates(files["est_na_name"])
    assert estimates.index.tolist() == ["NA", "B"] and se is not None and se.tolist() == [0.1, 0.2]
    with pytest.raises(RatingsError, match="the name is empty"):
        read_estimates(files["est_blank_name"])


# ---------------------------------------------------------------- preregistration and HEDS files

#: Edits of a valid prereg.json that the deviations used to meet with a TypeError or AttributeError
#: after the whole analysis had run: (edit, fragment of the one line).
PREREG_DAMAGE = {
    "design-list": (lambda p: {**p, "design": [1]}, "design must be a JSON object, not list"),
    "hypotheses-numbers": (lambda p: {**p, "hypotheses": [1, 2]}, "hypotheses must be a list of objects"),
    "hypotheses-text": (lambda p: {**p, "hypotheses": "A-B"}, "hypotheses must be a list of objects"),
    "options-list": (lambda p: {**p, "analysis": {"options": [1]}}, "analysis.options must be a JSON object"),
    "policy-text": (
        lambda p: {**p, "exclusions": {**p["exclusions"], "policy": "too_fast"}},
        "exclusions.policy must be a list of QC flags",
    ),
    "rules-unknown": (
        lambda p: {**p, "exclusions": {**p["exclusions"], "qc_rules": {"nosuch": 1}}},
        "exclusions.qc_rules must be an object with keys among fast_fraction",
    ),
    "rules-text": (
        lambda p: {**p, "exclusions": {**p["exclusions"], "qc_rules": {"fast_fraction": "x"}}},
        "exclusions.qc_rules.fast_fraction must be a number, not 'x'",
    ),
}


@pytest.fixture(scope="module")
def prereg(files) -> dict[str, Path]:
    from tests.test_cli_hostile import ratings_text

    root = files["root"]
    made = run("design", "--documents", 6, "--systems", "A,B,C", "--docs-per-block", 3, "--out",
               root / "pd.csv", "--prereg")  # fmt: skip
    assert made.exit_code == 0, made.output
    (root / "ratings.csv").write_text(ratings_text())
    return {"prereg": root / "pd.prereg.json", "ratings": root / "ratings.csv", "root": root}


@pytest.mark.parametrize("damage", list(PREREG_DAMAGE))
def test_a_misshapen_prereg_is_refused_before_the_analysis(prereg, damage):
    import json

    from humaneval.reproducibility.prereg import PreregError, read_prereg

    edit, fragment = PREREG_DAMAGE[damage]
    path = prereg["root"] / f"{damage}.json"
    path.write_text(json.dumps(edit(json.loads(prereg["prereg"].read_text()))))
    with pytest.raises(PreregError, match=fragment):
        read_prereg(path)
    out = prereg["root"] / "report"
    assert_one_line_error(
        run("report", prereg["ratings"], "--prereg", path, "--out", out), path.name, fragment
    )
    assert not out.exists()


def test_a_bad_exclude_policy_is_refused_before_the_analysis(prereg):
    """Both used to be found only after the analysis: minutes of work, then exit 2."""
    base = ["report", prereg["ratings"], "--out", prereg["root"] / "report"]
    assert_one_line_error(
        run(*base, "--prereg", prereg["prereg"], "--exclude-policy", "nosuch"),
        "exclusion policy (--exclude-policy): nosuch is not a QC flag",
    )
    assert_one_line_error(run(*base, "--exclude-policy", "too_fast"), "give --prereg too")


def test_json_files_saved_with_a_byte_order_mark_are_read(prereg, tmp_path):
    """Windows editors save UTF-8 with a BOM; json.loads refused it ("Unexpected UTF-8 BOM")."""
    from humaneval.reproducibility.heds import heds_from_design, read_heds
    from humaneval.reproducibility.prereg import read_prereg

    text = prereg["prereg"].read_bytes()
    (tmp_path / "p.json").write_bytes(b"\xef\xbb\xbf" + text)
    assert read_prereg(tmp_path / "p.json") == read_prereg(prereg["prereg"])
    from humaneval.design.load import load_design

    sheet = heds_from_design(load_design(prereg["root"] / "pd.csv"))
    sheet.write(tmp_path / "h.json")
    (tmp_path / "bom.json").write_bytes(b"\xef\xbb\xbf" + (tmp_path / "h.json").read_bytes())
    assert read_heds(tmp_path / "bom.json").answers == read_heds(tmp_path / "h.json").answers
    result = run("heds", tmp_path / "bom.json")
    assert result.exit_code == 0 and "fields filled" in result.output


# ---------------------------------------------------------------- span tables


@pytest.mark.parametrize(
    ("column", "value", "fragment"),
    [
        ("score", 200, "score 200 lies outside 0–100"),
        ("score", 1e308, "score 1e+308 lies outside 0–100"),
        ("score", -1, "score -1 lies outside 0–100"),
        ("seconds", -5, "seconds -5 is negative"),
    ],
)
def test_span_scores_and_times_out_of_range_are_refused_at_the_line(tmp_path, column, value, fragment):
    """validate called these tables valid and reliability computed on them (score_alpha became a note and
    numpy's "All-NaN slice encountered" a second line)."""
    from humaneval.spans.simulate import simulate_spans

    spans, texts = simulate_spans({"A": 0.5, "B": 2.5}, n_documents=4, n_annotators=2, seed=3)
    texts.to_csv(tmp_path / "texts.csv", index=False)
    spans.assign(**{column: [value] + [50] * (len(spans) - 1)}).to_csv(tmp_path / "s.csv", index=False)
    for command in ("validate", "reliability"):
        assert_one_line_error(
            run(command, tmp_path / "s.csv", "--texts", tmp_path / "texts.csv"), "s.csv: line 2:", fragment
        )


# ---------------------------------------------------------------- budget and judge files


@pytest.mark.parametrize(
    ("judge_sd", "fragment"),
    [
        ("1e308", "--judge-sd 1e+308 is out of range"),  # was an OverflowError traceback
        ("1e-300", "--judge-sd 1e-300 is out of range"),
        ("1e20", "the two SDs must lie within a factor of 10^6"),  # was "mean width 0.0000, coverage 1.000"
        ("1e-8", "the two SDs must lie within a factor of 10^6"),
    ],
)
def test_budget_judge_sd_out_of_range(judge_sd, fragment):
    args = ["--judge-correlation", "0.5", "--sd", "1", "--judge-sd", judge_sd, "--target-width", "0.3"]
    assert_one_line_error(run("budget", *args), fragment)


def test_budget_judge_sd_in_range_still_plans():
    from humaneval.ppi.budget import ppi_budget

    plan = ppi_budget(
        correlation=0.5, sd=1.0, judge_sd=1e5, target_width=0.3, human_cost=1.0, judge_cost=0.01
    )
    assert 0.28 < plan.simulated_width <= 0.31 and 0.93 < plan.simulated_coverage < 0.97


def test_a_judge_uncertainty_that_is_not_a_number_is_refused(tmp_path):
    """It was read as missing without a word."""
    from humaneval.core.judge_scores import read_judge_scores

    path = tmp_path / "judge.csv"
    path.write_text("document,system,score,uncertainty\nd1,A,3,0.2\nd1,B,4,high\n")
    with pytest.raises(RatingsError, match="uncertainty 'high' at row 1 is not a number"):
        read_judge_scores(path)
    path.write_text("document,system,score,uncertainty\nd1,A,3,0.2\nd1,B,4,\n")
    assert read_judge_scores(path)["uncertainty"].tolist()[0] == 0.2


# ---------------------------------------------------------------- NaN passes click.FloatRange


def test_nan_options_are_refused(files, tmp_path):
    """click.FloatRange lets nan through its comparisons: ppi --confidence-level nan was numpy's
    "Quantiles must be in the range [0, 1]" traceback, report --epsilon nan wrote a report."""
    from humaneval.ppi.simulate import judged_study
    from tests.test_cli_hostile import ratings_text

    human, judge = judged_study(n_documents=10, n_systems=2, human_share=0.5, seed=1)
    human.to_csv(tmp_path / "h.csv", index=False)
    judge.to_csv(tmp_path / "j.csv", index=False)
    (tmp_path / "r.csv").write_text(ratings_text())
    cases = [
        (["ppi", tmp_path / "h.csv", "--judge-file", tmp_path / "j.csv", "--confidence-level", "nan"],
         "'--confidence-level'"),
        (["report", tmp_path / "r.csv", "--out", tmp_path / "rep", "--epsilon", "nan"], "'--epsilon'"),
        (["compare-runs", files["values"], files["values"], "--alpha", "nan"], "'--alpha'"),
    ]  # fmt: skip
    for args, option in cases:
        assert_one_line_error(run(*args), option, "'nan' is not a finite number")
    assert not (tmp_path / "rep").exists()


def test_a_summary_scored_twice_counts_once_in_the_documents_judge_mean():
    """A repeated (document, system) row weighed twice in the document's mean that the stratified and
    active draws order documents by."""
    import pandas as pd

    from humaneval.design.judged import choose_documents

    judge = pd.DataFrame(
        {"document": ["d1", "d1", "d1", "d2", "d2"], "system": ["A", "B", "B", "A", "B"],
         "score": [1.0, 3.0, 5.0, 2.0, 2.0]}
    )  # fmt: skip
    picks = choose_documents(judge, 1, strategy="random", seed=1).set_index("document")
    assert picks.loc["d1", "judge_mean"] == (1.0 + (3.0 + 5.0) / 2) / 2  # not (1 + 3 + 5) / 3
    assert picks.loc["d2", "judge_mean"] == 2.0
