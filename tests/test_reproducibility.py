"""QRA's CV*, compare-runs' swapped-label test, the HEDS 3.0 JSON and the preregistration's deviations."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats
from scipy.special import gamma

from humaneval.cli import main
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.core.ratings import Ratings, load_ratings
from humaneval.design import DesignSpec, generate_design
from humaneval.errors import HumanEvalError, InsufficientDataError, RatingsError
from humaneval.report import ReportSettings, build_report
from humaneval.reproducibility import compare_runs, cv_star, heds_from_report, read_heds
from humaneval.reproducibility.heds import F, HEDSError, heds_from_design
from humaneval.reproducibility.heds_fields import FIELDS, JSON_KEYS
from humaneval.reproducibility.prereg import deviations, make_prereg, with_deviations
from tests.conftest import SHARED, shared_file

BLEU_NTS_DEF = [84.51, 84.50, 87.46, 85.60, 84.20, 86.61, 86.20]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# -- CV* -------------------------------------------------------------------------------------------


def test_cv_star_reproduces_the_published_example_to_1e9():
    values = pd.read_csv(shared_file("reproducibility", "bleu_nts_def.csv"))["value"]
    result = cv_star(values)
    assert abs(result.cv_star - 1.5616560359100269) < 1e-9
    assert abs(result.mean - 85.58285714285714) < 1e-9
    assert abs(result.sd - 1.2904233075765223) < 1e-9
    assert np.allclose(result.sd_interval, (0.4514829817654973, 2.1293636333875474), atol=1e-9, rtol=0)
    assert (result.within_one_sd, result.within_two_sd) == (5 / 7, 1.0)


@pytest.mark.parametrize(
    ("values", "published"),
    [  # Belz, Popović & Mille (2022), Table 4: CV* to three decimals
        (BLEU_NTS_DEF, 1.562),
        ([30.65, 30.65, 29.13, 30.65, 29.96], 2.487),
        ([87.50, 80.75, 89.36, 88.10, 89.64, 88.80], 4.176),
        ([31.11, 30.28, 31.11, 29.12], 3.572),
    ],
)
def test_cv_star_matches_the_papers_table_4(values, published):
    assert round(cv_star(values).cv_star, 3) == published


def test_cv_star_against_the_formula_computed_here():
    x = np.array([3.2, 4.1, 3.7, 5.0])
    n = len(x)
    c4 = np.sqrt(2 / (n - 1)) * gamma(n / 2) / gamma((n - 1) / 2)
    expected = (1 + 1 / (4 * n)) * 100 * (x - 1).std(ddof=1) / c4 / (x - 1).mean()
    result = cv_star(x, scale_min=1)
    assert result.cv_star == pytest.approx(expected, rel=1e-12)
    assert result.mean == pytest.approx(x.mean())
    low, high = result.cv_interval
    assert low < result.cv_star < high


@pytest.mark.parametrize(
    ("values", "error"),
    [([1.0], InsufficientDataError), ([1.0, float("nan")], RatingsError), ([-1.0, -2.0], RatingsError)],
)
def test_cv_star_refuses_what_it_cannot_measure(values, error):
    with pytest.raises(error):
        cv_star(values)


# -- compare-runs ----------------------------------------------------------------------------------


def _systems_table(values):
    return pd.DataFrame({"system": [f"s{i}" for i in range(len(values))], "value": values})


def test_compare_runs_flags_the_swapped_pair_of_system_values():
    original = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    repeat = [1.1, 6.1, 2.9, 4.2, 5.0, 1.9, 7.05]  # s1 and s5 exchanged
    result = compare_runs(_systems_table(original), _systems_table(repeat))
    assert result.flagged[["system_a", "system_b"]].values.tolist() == [["s1", "s5"]]
    row = result.swaps.set_index(["system_a", "system_b"]).loc[("s1", "s5")]
    assert row["r"] == pytest.approx(stats.pearsonr(original, repeat).statistic)
    fixed = repeat.copy()
    fixed[1], fixed[5] = fixed[5], fixed[1]
    assert row["r_swapped"] == pytest.approx(stats.pearsonr(original, fixed).statistic)
    ranking = result.rankings.iloc[0]
    assert ranking["spearman"] == pytest.approx(stats.spearmanr(original, repeat).statistic)
    assert ranking["kendall"] == pytest.approx(stats.kendalltau(original, repeat).statistic)
    clean = compare_runs(_systems_table(original), _systems_table(fixed))
    assert clean.flagged.empty
    assert clean.rankings.iloc[0]["spearman"] == 1.0


def _ratings(seed: int):
    model = default_model()
    design = generate_design(
        DesignSpec(
            documents=20,
            systems=list(model.system_names),
            documents_per_block=4,
            annotators_per_block=3,
            checks_per_annotator=0,
            platform="mturk",
            seed=seed,
        )
    )
    ratings = sample_ratings(model, design.judgements(), seed=seed)
    return design, ratings.with_data(ratings.data.drop(columns=["is_check"]))


def _run_of(quality: pd.DataFrame, seed: int, swap: tuple[str, str] | None = None) -> Ratings:
    """Three new annotators rate every output of ``quality`` (document, system, q) on a 1-7 scale."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(3):
        bias = rng.normal(0, 0.5)
        score = np.clip(np.rint(quality["q"] + bias + rng.normal(0, 0.7, len(quality))), 1, 7)
        rows.append(quality[["document", "system"]].assign(annotator=f"a{seed}-{k}", score=score.astype(int)))
    data = pd.concat(rows, ignore_index=True)
    if swap:
        data["system"] = data["system"].replace({swap[0]: swap[1], swap[1]: swap[0]})
    return load_ratings(data, scale=(1, 7))


@pytest.fixture(scope="module")
def outputs() -> pd.DataFrame:
    """The outputs both runs rate: 15 documents × 5 systems, each output with its own quality."""
    rng = np.random.default_rng(0)
    effects = {"A": 5.0, "B": 4.6, "C": 4.2, "D": 3.8, "E": 3.4}
    cells = [(f"d{i:02d}", s, m + rng.normal(0, 1.0)) for i in range(15) for s, m in effects.items()]
    return pd.DataFrame(cells, columns=["document", "system", "q"])


def test_compare_runs_flags_swapped_labels_in_ratings_tables_document_by_document(outputs):
    original = _run_of(outputs, 1)
    result = compare_runs(original, _run_of(outputs, 2, swap=("B", "D")))
    assert result.test == "sign-flip over documents"
    assert result.flagged[["system_a", "system_b"]].values.tolist() == [["B", "D"]]
    row = result.swaps.set_index(["system_a", "system_b"]).loc[("B", "D")]
    assert row["r_swapped"] > 0.5 > row["r"]
    honest = compare_runs(original, _run_of(outputs, 2))
    assert honest.flagged.empty
    assert honest.rankings.iloc[0]["spearman"] > result.rankings.iloc[0]["spearman"]
    measurands = result.measurands.set_index("system")
    a = measurands.loc["A"]
    assert a["cv_star"] == pytest.approx(cv_star([a["original"], a["repeat"]], scale_min=1).cv_star)


def test_compare_runs_cli_json_and_bad_input(tmp_path):
    _systems_table([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]).to_csv(tmp_path / "o.csv", index=False)
    _systems_table([1.1, 6.1, 2.9, 4.2, 5.0, 1.9, 7.05]).to_csv(tmp_path / "r.csv", index=False)
    result = run("compare-runs", str(tmp_path / "o.csv"), str(tmp_path / "r.csv"), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["flagged"] == [{"criterion": "", "system_a": "s1", "system_b": "s5"}]
    text = run("compare-runs", str(tmp_path / "o.csv"), str(tmp_path / "r.csv"))
    assert "LABELS SWAPPED? s1 ↔ s5" in text.output
    _systems_table([1.0, 2.0]).to_csv(tmp_path / "two.csv", index=False)
    bad = run("compare-runs", str(tmp_path / "o.csv"), str(tmp_path / "two.csv"))
    assert bad.exit_code == 2 and "same systems" in bad.output and "Traceback" not in bad.output


# -- HEDS ------------------------------------------------------------------------------------------

#: The fields a report with its design fills (the rest are the author's to fill in the form).
REPORT_FILLS = {
    F["experiment"],
    F["outputs"],
    F["evaluators"],
    F["recruitment"],
    F["collection"],
    F["qa"],
    F["what_seen"],
    F["criterion_name"],
    F["scale_size"],
    F["scale_range"],
    F["aggregation"],
    F["effect_size"],
    F["agreement"],
    F["agreement_score"],
}


@pytest.fixture(scope="module")
def study():
    design, ratings = _ratings(3)
    settings = ReportSettings(
        engine="native",
        n_resamples=1000,
        n_splits=50,
        mean_resamples=200,
        power_trials=0,
        clmm_power_trials=0,
    )
    return design, ratings, build_report(ratings, design=design, settings=settings)


def test_heds_from_a_report_uses_the_forms_field_names_and_fills_what_the_package_knows(study, tmp_path):
    design, ratings, report = study
    sheet = heds_from_report(report, design=design)
    assert set(sheet.filled()) == REPORT_FILLS
    written = json.loads(sheet.write(tmp_path / "heds.json").read_text())
    assert set(written) <= set(FIELDS)
    assert all(set(v) == {"data", "control", "text"} for v in written.values())
    criterion = written[F["criterion_name"]]["data"]
    assert criterion == {"coherence": "coherence"}
    assert written[F["evaluators"]]["data"] == {"": str(len(ratings.annotators))}
    assert written[F["outputs"]]["data"] == {"": "100"}  # 20 documents × 5 systems
    alpha = report.criteria[0].reliability.alpha
    assert f"alpha = {alpha:.3f}" in written[F["agreement_score"]]["data"]["coherence"]
    assert read_heds(tmp_path / "heds.json").answers == {k: v["data"] for k, v in written.items()}


def test_heds_field_list_is_the_forms():
    spec = SHARED.parent / "spec"
    if not (spec / "heds3-fields.txt").exists():
        pytest.skip("HEDS spec not available")
    names = [x.strip() for x in (spec / "heds3-fields.txt").read_text().splitlines() if x and x[0] != "#"]
    keys = [x.split("\t")[0] for x in (spec / "heds3-json-keys.txt").read_text().splitlines() if x[0] != "#"]
    assert list(FIELDS) == names and len(FIELDS) == 519
    assert set(JSON_KEYS) == set(keys)


def test_heds_before_collection_and_the_heds_command(tmp_path):
    design, _ = _ratings(4)
    sheet = heds_from_design(design)
    assert F["agreement"] not in sheet.filled() and F["collection"] in sheet.filled()
    path = sheet.write(tmp_path / "d.heds.json")
    result = run("heds", str(path), "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert set(payload["filled"]) == set(sheet.filled())
    assert F["agreement"] in payload["missing"]
    path.write_text(json.dumps({"heds-not-a-field": {"data": {}}}))
    bad = run("heds", str(path))
    assert bad.exit_code == 2 and "not a field of the HEDS 3.0 form" in bad.output
    with pytest.raises(HEDSError):
        read_heds(path)


# -- preregistration -------------------------------------------------------------------------------


def test_a_changed_exclusion_rule_is_reported_as_a_deviation(study):
    design, _, report = study
    prereg = make_prereg(design, settings=report.settings)
    assert len(prereg["hypotheses"]) == len(list(combinations(range(5), 2)))
    assert deviations(prereg, report, design=design, exclusion_policy=["prolific_rejection_eligible"]) == []
    found = deviations(prereg, report, design=design, exclusion_policy=["too_fast"])
    assert found == [
        "exclusion rule changed: annotators excluded by too_fast, preregistered prolific_rejection_eligible"
    ]
    warnings = with_deviations(report, found).warnings
    assert any(w.startswith("Deviation from the preregistration: exclusion rule changed") for w in warnings)


def test_prereg_tampering_added_tests_and_other_options_are_deviations(study):
    design, _, report = study
    prereg = make_prereg(design, settings=report.settings)
    edited = {**prereg, "alpha": 0.01}
    assert deviations(edited, report)[0].startswith("prereg.json was edited after it was frozen")
    other = make_prereg(design)  # the report's default options, not the ones this report used
    assert "analysis option n_splits is 50, preregistered 1000" in deviations(other, report)
    fewer = make_prereg(design, settings=report.settings)
    fewer["hypotheses"] = [h for h in fewer["hypotheses"] if "seneca" not in (h["system_a"], h["system_b"])]
    found = deviations(fewer, report)
    assert sum("test added after the data came in" in f for f in found) == 4
    with pytest.raises(HumanEvalError):
        deviations(prereg, report, exclusion_policy=["nonsense"])


def test_design_prereg_then_report_lists_the_deviation(tmp_path, study):
    _, ratings, _ = study
    ratings.write(tmp_path / "ratings.csv")
    out = run(
        "design", "--documents", "12", "--systems", ",".join(default_model().system_names),
        "--docs-per-block", "4", "--attention-checks", "0", "--platform", "mturk", "--seed", "3",
        "--out", str(tmp_path / "d.csv"), "--prereg", "--heds",
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    planned = json.loads((tmp_path / "d.heds.json").read_text())
    assert planned[F["power_script"]]["data"] == {"": f"humaneval power --design {tmp_path / 'd.csv'}"}
    prereg = json.loads((tmp_path / "d.prereg.json").read_text())
    assert prereg["exclusions"]["policy"] == ["prolific_rejection_eligible"]
    report = run(
        "report", str(tmp_path / "ratings.csv"), "--design", str(tmp_path / "d.csv"),
        "--prereg", str(tmp_path / "d.prereg.json"), "--exclude-policy", "straight_line",
        "--power-trials", "0", "--clmm-power-trials", "0", "--engine", "native", "--heds",
        "--out", str(tmp_path / "report"), "--json",
    )  # fmt: skip
    assert report.exit_code == 0, report.output
    payload = json.loads(report.output)
    assert any("exclusion rule changed" in w for w in payload["warnings"])
    assert not any("design differs" in w for w in payload["warnings"])
    assert "Deviation from the preregistration" in (tmp_path / "report" / "index.html").read_text()
    assert set(json.loads((tmp_path / "report" / "heds.json").read_text())) <= set(FIELDS)


# -- replicability before collection ---------------------------------------------------------------


def test_replicability_counts_agreeing_pairs_of_simulated_studies():
    from humaneval.simulate.replicability import replicability

    pairs = [(0, 1), (0, 2), (1, 2)]
    first = {"p": {"t": [0.01, 0.01, 0.5]}, "estimate": {"t": [1.0, 2.0, 1.0]}}  # 0 > 1 > 2
    second = {"p": {"t": [0.01, 0.01, 0.5]}, "estimate": {"t": [1.0, 2.0, -3.0]}}  # 0 > 2 > 1
    failed = {"p": {"t": [None, None, None]}, "estimate": {"t": [None, None, None]}}
    records = [first, first, first, second, failed]
    table = replicability(records, ["a", "b", "c"], pairs, 0.05).table.iloc[0]
    assert table["n_studies"] == 4
    assert table["same_ranking"] == pytest.approx(3 * 2 / (4 * 3))  # only the three 'first' agree
    assert table["same_significant"] == 1.0  # the same two pairs significant, same directions
    assert table["modal_ranking"] == "a > b > c" and table["modal_share"] == 0.75


def test_report_states_the_replicability_of_its_design(tmp_path):
    from humaneval.design import block_design
    from humaneval.report import write_report

    model = default_model()
    ratings = sample_ratings(model, block_design(8, 5, 2, model.system_names, seed=6), seed=6)
    settings = ReportSettings(
        engine="native", n_resamples=1000, n_splits=50, power_trials=30, clmm_power_trials=0
    )
    report = build_report(ratings, settings=settings)
    (row,) = report.criteria[0].power.replicability
    assert row["test"] == "artagg:cluster" and row["n_studies"] == 30
    top = round(row["modal_share"] * 30)  # the modal ranking's studies alone agree this often
    assert 0 <= row["same_significant"] <= 1 and top * (top - 1) / (30 * 29) <= row["same_ranking"] <= 1
    html = write_report(report, tmp_path / "r")["html"].read_text()
    assert f"same system ranking with probability {row['same_ranking']:.2f}" in html
    assert report.to_dict()["criteria"][0]["power"]["replicability"][0] == row


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"o.csv": "system,value\nA,1\nB,2\n", "r.csv": "system,value\nA,1\nB,x\n"}, "line 3: column value"),
        ({"o.csv": "system,value\nA,-1\nB,-2\n", "r.csv": "system,value\nA,-1\nB,-2\n"}, "--scale-min"),
        ({"o.csv": "system,value\nA,1\n", "r.csv": "system,value\nA,2\n"}, "at least two systems"),
        (
            {"o.csv": "system,value\n" + "".join(f"s{i},{i + 1}\n" for i in range(201)), "r.csv": "x"},
            "at most 200",
        ),
    ],
)
def test_compare_runs_refuses_bad_tables_in_one_line(tmp_path, files, message):
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    if files["r.csv"] == "x":
        (tmp_path / "r.csv").write_text(files["o.csv"])
    result = run("compare-runs", str(tmp_path / "o.csv"), str(tmp_path / "r.csv"))
    assert result.exit_code == 2 and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("content", ["not json", "[1]", '{"heds-criteria-criterion": 3}'])
def test_heds_refuses_files_that_are_not_the_forms(tmp_path, content):
    (tmp_path / "h.json").write_text(content)
    result = run("heds", str(tmp_path / "h.json"))
    assert result.exit_code == 2 and result.output.startswith("error: ") and "Traceback" not in result.output
