"""Forms without a browser: presets, field names, texts, escaping, MTurk package files (spec §3–4)."""

from __future__ import annotations

import base64
import csv
import dataclasses
import json
import re
import warnings
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.design import DesignSpec, generate_design
from humaneval.errors import DesignError, OptionError
from humaneval.forms import (
    PRESETS,
    Texts,
    design_frame,
    get_preset,
    html_question,
    load_texts,
    placeholder_texts,
    render_form,
    write_forms,
)
from humaneval.forms.render import decode_base64url_payload, script_json
from tests._designs import small_design

HOSTILE = "</script><img src=x onerror=alert(1)> ]]> ${payload} é 😀 שלום"


def payload_of(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="hx-payload">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


def test_study_presets_carry_the_study_wording():
    lk = PRESETS["coherence-likert7"]
    assert (lk.points, lk.labels, lk.show_source) == (
        7,
        {"1": "Very poor coherence", "7": "Perfect coherence"},
        False,
    )
    assert lk.question == "How coherent is this summary?"
    rep = PRESETS["repetition-likert7"]
    assert rep.labels == {"1": "Very badly", "7": "Very well"} and len(rep.anchors) == 3
    assert PRESETS["coherence-rank"].rank_ends == ("Most coherent", "Least coherent")
    for dim in ("coherence", "consistency", "fluency", "relevance"):
        p = PRESETS[f"summeval-{dim}-likert5"]
        assert (p.points, p.show_source, p.dimension) == (5, True, dim)
    assert PRESETS["da-overlap"].labels == {"0": "0 %", "100": "100 %"}


def test_rank_overview_says_ties_or_permutation_never_both():
    once, tie = "Every position must be used exactly once.", "you may give them the same rank"
    strict = get_preset("coherence-rank").overview_text()
    ties = get_preset("coherence-rank", allow_ties=True).overview_text()
    assert once in strict and tie not in strict
    assert tie in ties and once not in ties


def test_custom_preset_file(tmp_path):
    path = tmp_path / "clarity.json"
    path.write_text(json.dumps({"method": "likert", "overview": "Rate {n} texts.", "points": 4}))
    preset = get_preset(str(path))
    assert (preset.name, preset.points, preset.dimension) == ("clarity", 4, "clarity")
    path.write_text(json.dumps({"method": "likert", "overview": "x", "colour": "red"}))
    with pytest.raises(DesignError, match="unknown preset key"):
        get_preset(str(path))
    with pytest.raises(DesignError, match="unknown preset 'nope'"):
        get_preset("nope")


def test_fields_follow_spec_naming_for_hand_made_tables():
    rows = []
    for pos, (doc, system) in enumerate([("dB", "x"), ("dA", "y"), ("dA", "x")]):
        rows.append({"position": pos, "document": doc, "system": system, "is_check": False})
    rows.append({"position": 3, "document": "", "system": "", "is_check": True, "check_expected": "2"})
    frame = pd.DataFrame(rows).assign(
        design_id="hand",
        annotator_slot="b000-a1",
        block=0,
        display_pos=0,
        screen_id=lambda f: [f"s{p:03d}" for p in f["position"]],
        method="likert",
        dimension="coherence",
        round=1,
    )
    for column in ("is_reference", "is_warmup", "is_anchor_repeat", "screen_has_check"):
        frame[column] = False
    for column in ("check_kind", "tuple_id", "pair_id", "opponent", "field"):
        frame[column] = ""
    frame["check_expected"] = frame["check_expected"].fillna("")
    fields = design_frame(frame)["field"].tolist()
    # documents sorted dA=0, dB=1; systems x=0, y=1; the check is ck_0
    assert fields == ["lk_q0_d1_s0", "lk_q0_d0_s1", "lk_q0_d0_s0", "ck_0"]


def test_forms_of_a_design_index_its_manifest_order():
    # manifest order differs from sorted order: d{i}_s{j} index the manifest, not the sorted ids
    from humaneval.forms.screens import design_order, index_maps
    from humaneval.forms.write import design_payloads

    systems, documents = ["zeta", "B", "alpha", "ref", "mid"], ["d9", "d1", "d5", "d3"]
    likert = small_design("likert", systems=systems, documents=documents)
    assert design_order(likert) == (tuple(documents), tuple(systems))
    assert design_order(likert.table) is None
    blank = likert.table.assign(field=[f if f.startswith("ck_") else "" for f in likert.table["field"]])
    derived = design_frame(dataclasses.replace(likert, table=blank))
    row = derived[(derived["document"] == "d5") & (derived["system"] == "alpha")].iloc[0]
    assert row["field"] == "lk_q0_d2_s2"
    # a bare table has no manifest: its indices count the sorted ids (d5 → 2, alpha → 1)
    bare = design_frame(blank)
    assert bare[(bare["document"] == "d5") & (bare["system"] == "alpha")]["field"].iloc[0] == "lk_q0_d2_s1"
    assert index_maps(bare)[1] == {"B": 0, "alpha": 1, "mid": 2, "ref": 3, "zeta": 4}
    bws = small_design("bws", systems=systems, documents=documents)
    _, payloads = design_payloads(bws, placeholder_texts(bws.table))
    entries = [e for p in payloads.values() for s in p["slots"] for sc in s["screens"] for e in sc["entries"]]
    codes = {e["text"].split("|")[1]: e["code"] for e in entries if e["text"].startswith("sum:")}
    assert codes == {"zeta": "s0", "B": "s1", "alpha": "s2", "ref": "s3", "mid": "s4"}


def test_design_fields_are_kept_and_payload_holds_every_screen():
    design = small_design("rank")
    pkg_payload = payload_of(render_form(_payload(design)))
    slots = {s["slot"]: s for s in pkg_payload["slots"]}
    assert set(slots) == {"b000-a1", "b000-a2"}
    table = design.table[design.table["annotator_slot"] == "b000-a1"]
    shown = [e["field"] for s in slots["b000-a1"]["screens"] for e in s["entries"]]
    assert shown == table.sort_values(["position", "display_pos"])["field"].tolist()
    check = next(e for s in slots["b000-a1"]["screens"] for e in s["entries"] if e.get("check"))
    assert pkg_payload["texts"][check["text"]] == (
        "This entry checks your attention. Please move it to the last position of the list."
    )


def _payload(design, texts=None):
    from humaneval.forms import block_payloads
    from humaneval.forms.mturk import submit_config
    from humaneval.forms.screens import design_order

    frame = design_frame(design)
    preset = get_preset(
        f"{design.dimension}-{design.method}" if design.method != "likert" else "coherence-likert7"
    )
    return block_payloads(
        frame,
        texts or placeholder_texts(frame),
        preset,
        extra={"submit": submit_config(False)},
        order=design_order(design),
    )["b000"]


def test_hostile_text_is_inert_and_round_trips(tmp_path):
    design = small_design("likert")
    texts = placeholder_texts(design.table)
    summaries = dict(texts.summaries)
    target = next(iter(summaries))
    summaries[target] = HOSTILE
    hostile = Texts(summaries, texts.documents)
    html = render_form(_payload(design, hostile))
    assert "<img" not in html and "</script><img" not in html and "onerror=alert(1)>" not in html
    assert payload_of(html)["texts"][f"sum:{target[0]}|{target[1]}"] == HOSTILE
    assert "\u2028" not in script_json({"t": "a\u2028b"}) and "\\u2028" in script_json({"t": "a\u2028b"})
    xml = html_question(html)
    root = ET.fromstring(xml.encode("utf-8"))
    ns = "{http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd}"
    assert root.find(f"{ns}HTMLContent").text == html
    assert root.find(f"{ns}FrameHeight").text == "0"


def test_question_xml_size_limit():
    with pytest.raises(DesignError, match="65,535"):
        html_question("x" * 70_000)


def test_missing_texts_name_the_cells():
    design = small_design("likert")
    texts = placeholder_texts(design.table)
    summaries = dict(texts.summaries)
    del summaries[("d000", "B")]
    with pytest.raises(DesignError, match=r"1 design cell\(s\) have no summary text: d000\|B"):
        write_forms(design, Texts(summaries), "unused")


def test_texts_from_tables(tmp_path):
    summaries = tmp_path / "summaries.csv"
    summaries.write_text(
        'document,system,text\nd1,A,"Line one\nline two"\nd1,B,Ünïcode 😀\n', encoding="utf-8"
    )
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"document": "d1", "text": "Source"}) + "\n", encoding="utf-8")
    texts = load_texts(summaries, docs)
    assert texts.summaries == {("d1", "A"): "Line one\nline two", ("d1", "B"): "Ünïcode 😀"}
    assert texts.documents == {"d1": "Source"}
    bad = tmp_path / "bad.csv"
    bad.write_text("document,text\nd1,x\n")
    with pytest.raises(DesignError, match="missing column"):
        load_texts(bad)


def test_placeholder_texts_are_labelled():
    texts = placeholder_texts(small_design().table)
    assert len(texts.summaries) == 20
    assert all(
        t.startswith("[PLACEHOLDER TEXT]") for t in [*texts.summaries.values(), *texts.documents.values()]
    )


def test_mturk_package_files(tmp_path):
    design = small_design("likert")
    texts = placeholder_texts(design.table)
    summaries = dict(texts.summaries)
    summaries[("d000", "A")] = HOSTILE
    pkg = write_forms(
        design,
        Texts(summaries, texts.documents),
        tmp_path,
        reward="1.80",
        estimated_minutes=15,
        hit_per="block",
    )
    assert pkg.hits["max_assignments"].tolist() == [2, 2]
    params = json.loads((tmp_path / "hits" / "b000" / "hit_params.json").read_text())
    assert params["Reward"] == "1.80" and params["MaxAssignments"] == 2
    assert params["AssignmentDurationInSeconds"] == 2700
    assert params["RequesterAnnotation"] == f"{design.design_id}:0"
    assert [q["QualificationTypeId"] for q in params["QualificationRequirements"]] == [
        "00000000000000000040",
        "000000000000000000L0",
        "00000000000000000071",
    ]
    template = (tmp_path / "template.html").read_text()
    assert re.findall(r"\$\{[^}]*\}", template) == ["${payload}"]
    assert "$" not in template.replace("${payload}", "")
    with open(tmp_path / "batch_input.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["block_id"] for r in rows] == ["0", "1"]
    decoded = decode_base64url_payload(rows[0]["payload"])
    assert decoded["texts"]["sum:d000|A"] == HOSTILE
    assert "=" not in rows[0]["payload"] and base64.urlsafe_b64decode(rows[0]["payload"] + "==")
    readme = (tmp_path / "README.md").read_text()
    assert "`000000000000000000L0` | GreaterThanOrEqualTo | 97" in readme
    assert "US, GB, AU" in readme


def test_hit_per_slot_has_one_assignment_each(tmp_path):
    pkg = write_forms(small_design(), placeholder_texts(small_design().table), tmp_path)  # the default
    assert pkg.hits["hit"].tolist() == ["b000-a1", "b000-a2", "b001-a1", "b001-a2"]
    assert set(pkg.hits["max_assignments"]) == {1}
    assert "one per annotator slot (one assignment each" in (tmp_path / "README.md").read_text()


def test_preset_method_must_match_design():
    with pytest.raises(DesignError, match="preset 'coherence-rank' is for 'rank' screens"):
        write_forms(
            small_design(), placeholder_texts(small_design().table), "unused", preset="coherence-rank"
        )


def test_cli_forms(tmp_path):
    design = small_design("pairwise")
    design.write(tmp_path / "design.csv")
    out = tmp_path / "forms"
    args = ["forms", str(tmp_path / "design.csv"), "--placeholder-texts", "--out", str(out), "--json"]
    result = CliRunner().invoke(main, [*args, "--hit-per", "block"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [h["hit"] for h in report["hits"]] == ["b000", "b001"]
    assert (out / "hits" / "b001" / "question.xml").exists() and (out / "preview" / "b000.html").exists()
    (tmp_path / "instr.txt").write_text("Compare {n} pairs.\n\nBe **careful**.", encoding="utf-8")
    again = CliRunner().invoke(
        main,
        [
            "forms",
            str(tmp_path / "design.csv"),
            "--placeholder-texts",
            "--out",
            str(tmp_path / "f2"),
            "--instructions",
            str(tmp_path / "instr.txt"),
            "--platform",
            "standalone",
        ],
    )
    assert again.exit_code == 0, again.output
    preset = payload_of((tmp_path / "f2" / "preview" / "b000.html").read_text())["preset"]
    assert (preset["overview"], preset["definition"]) == ("Compare {n} pairs.\n\nBe **careful**.", "")
    failed = CliRunner().invoke(main, ["forms", str(tmp_path / "design.csv"), "--out", str(out)])
    assert failed.exit_code == 2 and "carries no texts" in failed.output
    (tmp_path / "empty.csv").write_bytes(b"")
    for args, message in [
        (["forms", str(tmp_path / "empty.csv")], "empty.csv: the file is empty"),
        (["forms", str(tmp_path / "gone.csv")], "gone.csv: no such file"),
        (["forms", str(tmp_path / "design.csv"), "--texts", str(tmp_path)], "is a folder"),
    ]:
        failed = CliRunner().invoke(main, [*args, "--out", str(out)])
        assert failed.exit_code == 2 and message in failed.output and len(failed.output.splitlines()) == 1


def test_standalone_pages_prolific_preview_and_unknown_platform(tmp_path):
    design = small_design("da")
    pkg = write_forms(design, placeholder_texts(design.table), tmp_path, platform="standalone")
    assert sorted(p.name for p in pkg.files) == ["b000.html", "b001.html"]
    assert not (tmp_path / "hits").exists() and not (tmp_path / "README.md").exists()
    html = (tmp_path / "preview" / "b000.html").read_text()
    payload = payload_of(html)
    assert payload["method"] == "da" and payload["preset"]["labels"] == {
        "0": "Strongly disagree",
        "100": "Strongly agree",
    }
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)  # no external resources
    # Prolific's forms are served by `humaneval serve`: the same pages as a preview, plus a README
    prolific = write_forms(design, placeholder_texts(design.table), tmp_path / "p", platform="prolific")
    assert sorted(p.name for p in prolific.files) == ["README.md", "b000.html", "b001.html"]
    assert "humaneval serve init" in (tmp_path / "p" / "README.md").read_text()
    assert not (tmp_path / "p" / "hits").exists()
    with pytest.raises(OptionError, match="platform 'crowdflower' is unknown; choose one of prolific, mturk"):
        write_forms(design, placeholder_texts(design.table), tmp_path, platform="crowdflower")


def test_a_study_block_fits_in_one_html_question(tmp_path):
    """The reference study's block (5 documents × 5 systems, 3 annotators, 2 checks) with
    summaries of about 450 characters stays under MTurk's 65,535-byte question limit."""
    design = generate_design(
        DesignSpec(
            documents=5,
            systems=["BART", "PG", "rw", "seneca", "ref"],
            method="likert",
            documents_per_block=5,
            annotators_per_block=3,
            seed=1,
            platform="mturk",
        )
    )
    cells = design.table.loc[design.table["system"] != "", ["document", "system"]].drop_duplicates()
    texts = Texts({(d, s): f"{d} {s} " + "word " * 90 for d, s in cells.itertuples(index=False)})
    write_forms(design, texts, tmp_path, route="api", hit_per="block")
    size = (tmp_path / "hits" / "b000" / "question.xml").stat().st_size
    assert 25 * 450 < size < 65_535


def test_design_costed_for_prolific_but_formed_for_mturk_warns(tmp_path):
    """Issue 20.9: the pay of a Prolific design (GBP, Prolific's rates) is no MTurk Reward."""
    from humaneval.errors import CostWarning

    prolific = small_design(platform="prolific", checks_per_annotator=2)
    with pytest.warns(
        CostWarning,
        match=r"costed for prolific \(GBP, at prolific's pay rates\) but these are Amazon Mechanical Turk "
        r"forms: set the Reward in USD",
    ):
        pkg = write_forms(prolific, placeholder_texts(prolific.table), tmp_path / "p", platform="mturk")
    assert len(pkg.warnings) == 1 and pkg.to_dict()["warnings"] == list(pkg.warnings)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CostWarning)  # an MTurk design formed for MTurk: silent
        assert (
            write_forms(small_design(), placeholder_texts(small_design().table), tmp_path / "m").warnings
            == ()
        )
        standalone = write_forms(
            prolific, placeholder_texts(prolific.table), tmp_path / "s", platform="standalone"
        )
        assert standalone.warnings == ()
    paths = prolific.write(tmp_path / "design.csv")
    out = str(tmp_path / "c")
    result = CliRunner().invoke(
        main, ["forms", str(paths["manifest"]), "--placeholder-texts", "--platform", "mturk", "--out", out]
    )
    assert result.exit_code == 0 and "  warning: the design was costed for prolific" in result.output


@pytest.mark.parametrize(
    "data",
    [{"summaries": ["a", "b"]}, {"documents": "d1"}, {"fillers": 3}],
)
def test_texts_json_of_the_wrong_shape_is_one_design_error(data):
    # a list or a string where texts.json holds a mapping was a bare ValueError / TypeError
    from humaneval.forms.texts import texts_from_json

    with pytest.raises(DesignError, match="must map names to texts"):
        texts_from_json(data)


def test_texts_json_fillers_may_be_a_list():
    from humaneval.forms.texts import texts_from_json

    texts = texts_from_json({"summaries": {"d1|A": "text"}, "fillers": ["one", "two"]})
    assert texts.fillers == {"0": "one", "1": "two"} and texts.summaries == {("d1", "A"): "text"}
