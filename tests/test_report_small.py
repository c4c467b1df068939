"""A 2-block study: every number the design cannot support says so, once, instead of false precision."""

from __future__ import annotations

import json
import re
from math import comb

import pytest

from humaneval.demo import DemoSettings, run_demo

TWO_BLOCKS = DemoSettings(
    documents=10,
    docs_per_block=5,
    annotators_per_block=3,
    careless=1,
    n_resamples=1000,
    n_splits=100,
    power_trials=20,
    clmm_power_trials=0,
)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    out = tmp_path_factory.mktemp("small")
    result = run_demo(out, seed=3, settings=TWO_BLOCKS)
    report = json.loads(result.files["json"].read_text())
    html = result.files["html"].read_text()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return result, report, text


def test_two_blocks_give_no_interval_and_say_why(small):
    _, report, text = small
    assert report["study"]["n_blocks"] == 2
    [part] = report["criteria"]
    # a bootstrap over 2 blocks has C(3, 2) = 3 distinct resamples: no interval at all
    assert all(m["ci_low"] is None and m["ci_high"] is None for m in part["means"])
    assert part["means_interval"]["computed"] is False and part["means_interval"]["n_blocks"] == 2
    assert comb(3, 2) == 3 and "3 distinct resamples" in part["means_interval"]["caveat"]
    widths = re.findall(r"\[(-?\d+\.\d+), (-?\d+\.\d+)\]", text)
    assert all(low != high for low, high in widths), widths  # no interval of zero width anywhere
    assert "No intervals — only 2 independent blocks" in text
    tex = small[0].files["latex"].read_text()
    assert "No intervals: only 2 independent blocks" in tex and "block bootstrap" not in tex


def test_split_half_from_one_split_is_not_an_estimate(small):
    _, report, text = small
    rel = report["criteria"][0]["reliability"]
    assert rel["shr_n_splits"] == 1 and rel["shr_sd"] is None  # one split has no spread, not sd 0
    assert rel["shr_caveat"].startswith("split-half reliability rests on the only possible split of 2 blocks")
    assert "not an estimate (1 split)" in text
    assert "sd 0.000" not in text and "over 1 splits" not in text


def test_artagg_cannot_reject_with_two_blocks(small):
    _, report, text = small
    power = report["criteria"][0]["power"]
    assert power["artagg_can_reject"] is False
    assert all(p["artagg"] is None for p in power["pairs"])
    # 2^(1-B) = 0.5 for B = 2: the exact sign-flip test never reaches 0.05
    assert "its smallest p-value is 2^(1−B) = 0.500" in text
    assert "0.00 ± 0.00" not in text and "cannot reject" in text
    assert all(row["blocks"] >= 6 for row in power["search"])  # the search skips hopeless designs
    # a simulated power of 0/20 has MC-SE 0 but a Clopper–Pearson interval [0, 1 − 0.025^(1/20)] = [0, 0.168]
    zero = [row for row in power["search"] if row["power"] == 0]
    assert zero and zero[0]["mc_se"] == 0
    assert zero[0]["ci_low"] == 0 and zero[0]["ci_high"] == pytest.approx(1 - 0.025 ** (1 / 20), abs=1e-9)
    assert "0.00 [0.00, 0.17]" in text


def test_read_this_first_states_each_fact_once_most_important_first(small):
    result, report, _ = small
    warnings = report["warnings"]
    assert len(warnings) == len(set(warnings))
    assert len([w for w in warnings if "maximal CLMM failed" in w]) <= 1  # no "Mixed-model warning" repeat
    # the three numbers the design cannot support come first, one bullet each
    assert warnings[0].startswith("Only 2 independent blocks: a randomisation test on block means (ARTagg)")
    assert warnings[1].startswith("The system means have no intervals: a bootstrap over only 2 independent")
    assert warnings[2].startswith("Split-half reliability (0.48) rests on the only possible split")
    assert not any("would not replicate well" in w for w in warnings)  # SHR is no estimate here
    assert not any("spec §" in w for w in warnings)
    md = result.files["markdown"].read_text()
    assert "sd nan" not in md and "not an estimate" in md


def test_datasheet_reads_as_words_and_derives_the_realised_wage(small):
    result, report, text = small
    sheet = report["datasheet"]["sections"]
    evaluators = sheet["sample_evaluators_design"]
    assert sheet["quality_criteria"]["source_shown"] is False  # JSON keeps the boolean
    md = result.files["datasheet"].read_text()
    assert "**source shown**: no" in md and "False" not in md and "True" not in md
    assert "source shown no" in text and "source shown False" not in text
    # realised wage = reward per annotator / median actual hours, computed from the demo's own numbers
    reward = result.design.summary().cost.reward_per_annotator
    minutes = round(report["study"]["median_minutes_per_annotator"], 1)
    assert evaluators["median_minutes_actual"] == minutes
    assert evaluators["hourly_wage_realised"] == f"{reward / (minutes / 60):.2f} USD per hour"
    assert "hourly_wage_realised" not in sheet["sample_evaluators_design"]["todo"]
    assert evaluators["hourly_wage_planned"].endswith(" USD per hour")


def test_report_qc_table_shows_failed_imcs(small):
    result, report, text = small
    assert len(result.careless) == 1
    rows = {r["annotator"]: r for r in report["qc"]["annotators"]}
    flagged = [a for a, r in rows.items() if r["prolific_rejection_eligible"]]
    assert len(flagged) == 1 and rows[flagged[0]]["imc_failed"] == 2  # the careless slot fails both checks
    assert "failed IMCs" in text and f"{flagged[0]} 25 0/2 2 " in text
    assert "humaneval qc --exclude" in text


CAPTION_OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('caption, .caption, figcaption')) {
    const box = el.getBoundingClientRect();
    // the nearest ancestor that clips (a scrolling table box) or the viewport
    let clip = {left: 0, right: width};
    for (let p = el.parentElement; p; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') {
        const r = p.getBoundingClientRect();
        clip = {left: r.left, right: r.right};
        break;
      }
    }
    const outside = box.right > Math.min(clip.right, width) + 0.5 || box.left < clip.left - 0.5;
    if (outside || el.scrollWidth > el.clientWidth + 1) {
      out.push([el.textContent.trim().slice(0, 60), Math.round(box.left), Math.round(box.right)]);
    }
  }
  return out;
}"""


@pytest.mark.browser
def test_captions_fit_a_phone_screen(small):
    from playwright.sync_api import sync_playwright

    from tests._browser import launch_chromium

    result, _, _ = small
    with sync_playwright() as p:
        browser = launch_chromium(p)
        page = browser.new_page(viewport={"width": 375, "height": 812}, device_scale_factor=2)
        page.goto(result.files["html"].resolve().as_uri())
        page.wait_for_load_state("load")
        captions = page.evaluate("document.querySelectorAll('caption, .caption, figcaption').length")
        overflowing = page.evaluate(CAPTION_OVERFLOW)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        browser.close()
    assert captions >= 6  # systems, contrasts, QC tables and the figures
    assert overflowing == []
    assert scroll <= 375  # the page itself never scrolls sideways; wide tables scroll in their box
