"""MTurk batch results → ratings table (spec §4.5): synthetic round trips and every failure mode."""

from __future__ import annotations

import hashlib
import hmac

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.cli import main
from humaneval.collect import parse_mturk_results, pseudonym, results_row
from humaneval.errors import RatingsError
from humaneval.methods import get_method
from tests import _designs as designs


def small_design(method: str, **kw):
    return designs.small_design(method, **{"seed": 5, "pairwise": {"pairs": 3}, **kw})


def synthesize(design, rng: np.random.Generator, fail_checks: bool = False):
    """Random answers for every slot, as the form would post them, plus the expected ratings.

    Written from the spec's field rules (§3.6), independently of the parser: returns results
    rows and a frame (slot, document, system, value) of what each slot entered.
    """
    t = design.table
    systems = {s: j for j, s in enumerate(design.systems)}
    rows, expected = [], []
    for k, (slot, part) in enumerate(t.groupby("annotator_slot", sort=True)):
        screens = list(dict.fromkeys(part.sort_values("position")["screen_id"]))
        shown = screens[::-1]  # the page records the order actually shown
        fields = {"slot": slot, "design_id": design.design_id, "form_version": 1, "order": ",".join(shown)}
        for sid, scr in part.groupby("screen_id", sort=False):
            fields[f"tm_{sid}"] = f"{2 + k}.5,{2 + k}.5,0"
            position = shown.index(sid)
            real = scr[scr["system"] != ""]
            check = scr[scr["system"] == ""]
            for c in check.itertuples():
                want = c.check_expected
                if fail_checks:
                    want = {"best": "worst", "worst": "best", "A": "B", "B": "A"}.get(
                        want, str(int(want) - 1)
                    )
                fields[c.field] = want
            if scr["is_check"].any() and design.method in ("bws", "pairwise", "likert", "da"):
                continue
            if design.method in ("likert", "da"):
                for r in real.itertuples():
                    v = int(rng.integers(1, 6)) if design.method == "likert" else int(rng.integers(0, 101))
                    fields[r.field] = v
                    if not r.is_anchor_repeat:
                        expected.append((slot, r.document, r.system, float(v), position))
            elif design.method == "rank":
                for r, v in zip(real.itertuples(), rng.permutation(len(real)) + 1, strict=True):
                    fields[r.field] = int(v)
                    expected.append((slot, r.document, r.system, float(v), position))
            elif design.method == "bws":
                b, w = rng.choice(len(real), 2, replace=False)
                fields[f"{real.field.iloc[0]}_best"] = f"s{systems[real.system.iloc[b]]}"
                fields[f"{real.field.iloc[0]}_worst"] = f"s{systems[real.system.iloc[w]]}"
                for i, r in enumerate(real.itertuples()):
                    expected.append(
                        (slot, r.document, r.system, 1.0 if i == b else -1.0 if i == w else 0.0, position)
                    )
            else:
                side = str(rng.choice(["A", "B", "tie"]))
                fields[real.field.iloc[0]] = side
                for r in real.itertuples():
                    won = 0.5 if side == "tie" else float((r.display_pos == 0) == (side == "A"))
                    expected.append((slot, r.document, r.system, won, position))
        rows.append(
            results_row(
                fields,
                assignment_id=f"ASSIGN{k}",
                worker_id=f"WORKER{k}",
                hit_id=f"HIT{slot[:4]}",
                submit_time=f"Sat Nov 21 05:0{k}:00 UTC 2026",
                work_time=300 + k,
                inputs={"design_id": design.design_id, "block_id": slot[1:4]},
            )
        )
    frame = pd.DataFrame(expected, columns=["slot", "document", "system", "value", "position"])
    return pd.DataFrame(rows), frame


def test_bws_codes_index_the_manifest_order_not_the_sorted_ids():
    # the manifest lists systems zeta, B, alpha, ref, mid: "s0" is zeta, not the sorted-first "B"
    design = small_design(
        "bws", systems=["zeta", "B", "alpha", "ref", "mid"], documents=["d9", "d1", "d5", "d3"]
    )
    assert list(design.systems) != sorted(design.systems)
    results, expected = synthesize(design, np.random.default_rng(11))
    parsed = parse_mturk_results(results, design)
    assert parsed.problems.empty, parsed.problems
    data = parsed.ratings.without_checks().data
    best = data[data[parsed.ratings.response].astype(float) == 1.0]
    want = expected[expected["value"] == 1.0]
    key = ["slot", "document", "position"]
    got = best[["annotator_slot", "document", "position", "system"]].set_axis([*key, "system"], axis=1)
    merged = want.merge(got.astype({"position": int}), on=key, suffixes=("", "_parsed"))
    assert len(merged) == len(want) > 0
    assert (merged["system"] == merged["system_parsed"]).all()


@pytest.mark.parametrize("method", ["likert", "rank", "bws", "pairwise", "da"])
def test_round_trip_reproduces_the_entered_ratings(method):
    design = small_design(method)
    results, expected = synthesize(design, np.random.default_rng(11))
    parsed = parse_mturk_results(results, design)
    assert parsed.problems.empty, parsed.problems
    data = parsed.ratings.without_checks().data
    got = pd.DataFrame(
        {
            "slot": data["annotator_slot"],
            "document": data["document"],
            "system": data["system"],
            "value": data[parsed.ratings.response].astype(float),
            "position": data["position"].astype(int),
        }
    )
    # comparative tables keep one row per judgement: a summary appears once per screen
    key = ["slot", "document", "system", "position"]
    got = got.sort_values(key).reset_index(drop=True)
    expected = expected.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, check_categorical=False)
    # the non-check rows of the design are exactly the rows parsed back
    planned = design.table[~design.table["is_check"]]
    assert len(parsed.table[~parsed.table["is_check"]]) == len(planned)
    assert set(parsed.workers["checks_failed"]) == {0} and set(parsed.workers["checks_total"]) == {1}
    # the design's default dimension: "preference" for pairwise comparisons, else "coherence"
    assert parsed.ratings.data["criterion"].unique().tolist() == [get_method(method).default_dimension]


def test_bws_codes_use_the_manifest_system_order():
    design = small_design("bws", systems=["ref", "D", "A", "C", "B"])
    results, expected = synthesize(design, np.random.default_rng(13))
    parsed = parse_mturk_results(results, design)
    assert parsed.problems.empty
    real = parsed.ratings.without_checks().data
    got = real.set_index(["annotator_slot", "document", "system", "position"])["score"]
    want = expected.set_index(["slot", "document", "system", "position"])["value"]
    got, want = got.sort_index(), want.sort_index()
    assert got.tolist() == pytest.approx(want.tolist())


def test_grouped_summeval_layout_with_anchor_repeats():
    design = small_design(
        "likert",
        reference_system="ref",
        likert_layout="grouped",
        group_size=3,
        anchor_in_every_group=True,
        show_source=True,
        scale_points=5,
    )
    results, expected = synthesize(design, np.random.default_rng(12))
    parsed = parse_mturk_results(results, design)
    assert parsed.problems.empty
    repeats = parsed.table[parsed.table["is_anchor_repeat"]]
    assert len(repeats) > 0 and set(repeats["field"].str[-3:]) == {"_r1"}
    real = parsed.ratings.without_checks().data
    got = real.set_index(["annotator_slot", "document", "system"])["score"].sort_index()
    want = expected.set_index(["slot", "document", "system"])["value"].sort_index()
    assert got.tolist() == want.tolist() and len(got) == 40
    assert parsed.ratings.scale == (1, 5)


def test_timing_comment_and_worktime_are_kept():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(1))
    results.loc[0, "Answer.cm_s002"] = "typo in summary"
    parsed = parse_mturk_results(results, design)
    slot0 = parsed.table[parsed.table["annotator_slot"] == "b000-a1"]
    assert set(slot0["seconds"]) == {2.5} and set(slot0["hidden_count"]) == {0}
    assert slot0.loc[slot0["screen_id"] == "s002", "comment"].tolist() == ["typo in summary"]
    assert parsed.workers["work_time_seconds"].tolist() == [300, 301, 302, 303]


def test_failed_attention_checks_are_reported_per_worker():
    design = small_design("likert", checks_per_annotator=2)
    results, _ = synthesize(design, np.random.default_rng(2), fail_checks=True)
    parsed = parse_mturk_results(results, design)
    assert parsed.workers["checks_total"].tolist() == [2, 2, 2, 2]
    assert parsed.workers["imc_failed"].tolist() == [2, 2, 2, 2]
    assert parsed.workers["check_pass_rate"].tolist() == [0.0] * 4
    # the checks travel in the ratings table, so humaneval.qc scores them the same way
    from humaneval.qc import qc_report

    report = qc_report(parsed.ratings).table.set_index("annotator")
    assert report.loc[parsed.workers["annotator"], "checks_failed"].tolist() == [2, 2, 2, 2]
    assert report["prolific_rejection_eligible"].all()
    assert len(parsed.ratings.without_checks()) == 40


def test_rejected_assignments_are_excluded_by_default():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(3))
    results.loc[1, "AssignmentStatus"] = "Rejected"
    parsed = parse_mturk_results(results, design)
    assert parsed.excluded_assignments == 1 and len(parsed.workers) == 3
    assert "b000-a2" not in set(parsed.ratings.data["annotator_slot"])
    everything = parse_mturk_results(results, design, statuses=("Submitted", "Approved", "Rejected"))
    assert len(everything.workers) == 4


def test_foreign_design_is_refused():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(4))
    results.loc[2, "Input.design_id"] = "0123456789abcdef"
    with pytest.raises(RatingsError, match=r"line 4: Input\.design_id is '0123456789abcdef'"):
        parse_mturk_results(results, design)


def test_requester_website_annotation_is_not_a_foreign_design():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(4))
    results["RequesterAnnotation"] = "BatchId:5123456;OriginalHitTemplateId:928390875;"
    assert len(parse_mturk_results(results, design).workers) == 4
    results.loc[1, "RequesterAnnotation"] = "0123456789abcdef:0"
    with pytest.raises(RatingsError, match="line 3: RequesterAnnotation"):
        parse_mturk_results(results, design)


def test_assignments_of_unknown_slots_yield_no_ratings():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(4))
    results["Answer.slot"] = "b999-a1"
    parsed = parse_mturk_results(results, design)
    assert parsed.ratings is None and parsed.table.empty
    assert parsed.problems["kind"].tolist() == ["unknown_slot"] * 4
    assert parsed.workers_seen == ("WORKER0", "WORKER1", "WORKER2", "WORKER3")


def test_missing_unknown_and_out_of_range_fields_are_reported_not_guessed():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(5))
    t = design.table
    field = t.loc[(t["annotator_slot"] == "b000-a1") & ~t["is_check"], "field"].iloc[0]
    other = t.loc[(t["annotator_slot"] == "b001-a1") & ~t["is_check"], "field"].iloc[0]
    results.loc[0, f"Answer.{field}"] = "9"
    results.loc[1, "Answer.zz_extra"] = "1"
    results.loc[2, f"Answer.{other}"] = ""
    parsed = parse_mturk_results(results, design)
    problems = parsed.problems.set_index("assignment_id")
    assert (
        problems.loc["ASSIGN0", "kind"] == "bad_value"
        and "'9' is not a whole number in 1..7" in (problems.loc["ASSIGN0", "detail"])
    )
    assert (
        problems.loc["ASSIGN1", "kind"] == "unknown_field" and problems.loc["ASSIGN1", "field"] == "zz_extra"
    )
    assert problems.loc["ASSIGN2", "kind"] == "missing_field"
    kept = set(parsed.ratings.data["annotator_slot"])
    assert kept == {"b000-a2", "b001-a2"}  # unknown fields alone do not exclude an assignment


def test_duplicate_worker_keeps_the_earliest_submission():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(6))
    results.loc[3, "WorkerId"] = "WORKER0"  # WORKER0 also took b001-a2, later
    parsed = parse_mturk_results(results, design)
    flagged = parsed.workers.set_index("annotator_slot")["duplicate_worker"]
    assert flagged.to_dict() == {"b000-a1": False, "b000-a2": False, "b001-a1": False, "b001-a2": True}
    assert parsed.repost.to_dict(orient="records") == [
        {"block": 1, "hit_id": "HITb001", "annotator_slot": "b001-a2", "extra_assignments": 1}
    ]
    assert "b001-a2" not in set(parsed.ratings.data["annotator_slot"])
    assert parsed.workers_seen == ("WORKER0", "WORKER1", "WORKER2")


def test_worker_ids_are_pseudonymised_with_hmac():
    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(7))
    parsed = parse_mturk_results(results, design, salt="s3cret")
    expected = "w_" + hmac.new(b"s3cret", b"WORKER0", hashlib.sha256).hexdigest()[:12]
    assert pseudonym("WORKER0", "s3cret") == expected
    assert parsed.workers["annotator"].iloc[0] == expected
    assert not parsed.table.astype(str).isin(["WORKER0"]).any().any()
    raw = parse_mturk_results(results, design, keep_worker_ids=True)
    assert raw.ratings.annotators == ["WORKER0", "WORKER1", "WORKER2", "WORKER3"]


def test_cli_collect_mturk(tmp_path):
    design = small_design("rank")
    design.write(tmp_path / "design.csv")
    results, expected = synthesize(design, np.random.default_rng(8))
    # a real download: UTF-8 with BOM, every Answer column present in every row
    results.fillna("").to_csv(tmp_path / "Batch_results.csv", index=False, encoding="utf-8-sig")
    out = tmp_path / "ratings.csv"
    args = ["collect", "mturk", str(tmp_path / "Batch_results.csv"), "--design", str(tmp_path / "design.csv")]
    (tmp_path / "salt.txt").write_text("  s3cret\n", encoding="utf-8")
    args += ["--salt-file", str(tmp_path / "salt.txt")]
    result = CliRunner().invoke(main, [*args, "--out", str(out), "--grant-out", str(tmp_path / "grant.txt")])
    assert result.exit_code == 0, result.output
    assert "1/1 checks passed" in result.output
    ratings = pd.read_csv(out)
    assert len(ratings) == len(expected) and ratings["rank"].sum() == expected["value"].sum()
    assert set(ratings["annotator"]) == {pseudonym(f"WORKER{i}", "s3cret") for i in range(4)}
    assert (tmp_path / "grant.txt").read_text().split() == ["WORKER0", "WORKER1", "WORKER2", "WORKER3"]
    bad = CliRunner().invoke(
        main,
        [
            "collect",
            "mturk",
            str(tmp_path / "nope.csv"),
            "--design",
            str(tmp_path / "design.csv"),
            "--out",
            str(out),
        ],
    )
    assert bad.exit_code == 2 and "no such file" in bad.output


def test_api_route_answer_xml_parses_like_the_batch_csv():
    import datetime as dt

    from humaneval.collect import assignment_row

    design = small_design("likert")
    results, _ = synthesize(design, np.random.default_rng(9))
    row = results.iloc[0]
    answers = {k[7:]: v for k, v in row.items() if k.startswith("Answer.") and isinstance(v, str) and v}
    ns = "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2005-10-01/QuestionFormAnswers.xsd"
    xml = (
        f'<QuestionFormAnswers xmlns="{ns}">'
        + "".join(
            f"<Answer><QuestionIdentifier>{k}</QuestionIdentifier><FreeText>{v}</FreeText></Answer>"
            for k, v in answers.items()
        )
        + "</QuestionFormAnswers>"
    )
    start = dt.datetime(2026, 11, 21, 5, 0, tzinfo=dt.timezone.utc)
    api = assignment_row(
        {
            "AssignmentId": "ASSIGN0",
            "WorkerId": "WORKER0",
            "HITId": "HITb000",
            "AssignmentStatus": "Submitted",
            "AcceptTime": start,
            "SubmitTime": start + dt.timedelta(seconds=420),
            "Answer": xml,
        }
    )
    from_api = parse_mturk_results(pd.DataFrame([api]), design)
    from_csv = parse_mturk_results(results.iloc[[0]], design)
    assert from_api.workers["work_time_seconds"].tolist() == [420.0]
    pd.testing.assert_frame_equal(from_api.ratings.data, from_csv.ratings.data)


def fnv1a(text: str) -> int:
    """The page's slot hash (templates/form.js), written out here independently."""
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def test_block_hit_slot_collisions_are_reported(tmp_path):
    """Issue 20.6: with block HITs the page picks the slot as FNV(assignmentId) mod a, so two
    workers of one HIT can get the same slot. Real-looking ids collide; collect reports it."""
    design = small_design("likert")
    design.write(tmp_path / "design.csv")
    results, _ = synthesize(design, np.random.default_rng(4))
    ids = [f"3{k:03d}ZQXAMPLEASSIGNMENT" for k in range(40)]
    picked = {i: f"b000-a{fnv1a(i) % 2 + 1}" for i in ids}
    first = ids[0]
    second = next(i for i in ids[1:] if picked[i] == picked[first])  # what the page would do
    row = results.index[results["Answer.slot"] == picked[first]][0]
    twin = results.loc[[row]].assign(AssignmentId=second, WorkerId="WORKER9")
    results.loc[row, "AssignmentId"] = first
    other = results.index[results["Answer.slot"] == ("b000-a2" if picked[first] == "b000-a1" else "b000-a1")]
    results = pd.concat([results.drop(index=other), twin], ignore_index=True)
    parsed = parse_mturk_results(results, design)
    assert parsed.collisions.to_dict(orient="records") == [
        {
            "annotator_slot": picked[first],
            "block": 0,
            "hit_id": "HITb000",
            "assignments": 2,
            "assignment_ids": f"{first},{second}",
        }
    ]
    assert set(parsed.ratings.data["annotator"]) == set(parsed.workers["annotator"])  # answers kept
    results.to_csv(tmp_path / "batch.csv", index=False)
    args = ["collect", "mturk", str(tmp_path / "batch.csv"), "--design", str(tmp_path / "design.csv")]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "r.csv")])
    assert result.exit_code == 0, result.output
    assert (
        f"warning: slot collision: 2 assignments ({first},{second}) of HIT HITb000 got slot" in result.output
    )


def test_one_hit_per_slot_is_the_default_and_cannot_collide(tmp_path):
    from humaneval.forms import placeholder_texts, write_forms

    design = small_design("likert")
    pkg = write_forms(design, placeholder_texts(design.table), tmp_path, reward="1.00")
    assert pkg.hits["max_assignments"].tolist() == [1, 1, 1, 1]
    assert pkg.hits["slots"].tolist() == pkg.hits["hit"].tolist()  # each HIT carries exactly its slot
    results, _ = synthesize(design, np.random.default_rng(5))
    assert parse_mturk_results(results, design).collisions.empty


def test_a_repeated_batch_row_counts_once_and_drops_no_worker():
    """Issue 20.6: a batch row repeated (same AssignmentId, e.g. two downloads pasted together)
    made both copies "duplicate workers" and a legitimate worker was dropped."""
    design = small_design("likert")
    results, expected = synthesize(design, np.random.default_rng(6))
    clean = parse_mturk_results(results, design)
    approved = results.loc[[1]].assign(AssignmentStatus="Approved")
    doubled = pd.concat([results, approved, results.loc[[2]]], ignore_index=True)
    parsed = parse_mturk_results(doubled, design)
    assert parsed.duplicate_rows == 2 and not parsed.workers["duplicate_worker"].any()
    assert len(parsed.workers) == 4 and parsed.repost.empty and parsed.collisions.empty
    assert parsed.workers.set_index("assignment_id").loc["ASSIGN1", "status"] == "Approved"
    keys = ["annotator", "document", "system", "is_check"]

    def tidy(frame):
        return frame.sort_values(keys).reset_index(drop=True)

    pd.testing.assert_frame_equal(tidy(parsed.ratings.data), tidy(clean.ratings.data))
    assert len(parsed.ratings.data) == len(clean.ratings.data) == len(expected) + 4  # 4 workers' checks
    assert sorted(parsed.problems["kind"]) == ["duplicate_row", "duplicate_row"]
    # copies with different answers cannot both be right: reported and left out, never guessed
    field = next(c for c in results.columns if c.startswith("Answer.lk_"))
    changed = results.loc[[0]].assign(**{field: "1" if results.loc[0, field] != "1" else "2"})
    conflict = parse_mturk_results(pd.concat([results, changed], ignore_index=True), design)
    assert conflict.problems["kind"].tolist() == ["conflicting_rows"]
    kept = conflict.table["annotator"].isin(conflict.ratings.annotators)
    assert "ASSIGN0" not in set(conflict.table.loc[kept, "assignment_id"])
    assert len(conflict.ratings.annotators) == 3


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def _design(tmp_path):
    out = _cli("design", "--documents", "10", "--systems", "A,B", "--out", str(tmp_path / "design.csv"))
    assert out.exit_code == 0, out.output
    return tmp_path / "design.csv"


def test_collect_mturk_names_the_first_problem_when_nothing_is_usable(tmp_path):
    design = _design(tmp_path)
    results = tmp_path / "batch.csv"
    results.write_text(
        "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,Answer.slot\n"
        "H1,A1,W1,Submitted,100,0\nH1,A2,W2,Submitted,100,0\n"
    )
    out = _cli("collect", "mturk", str(results), "--design", str(design), "--out", str(tmp_path / "r.csv"))
    assert out.exit_code == 2
    assert "no usable assignment; first problem: line 2 (A1): unknown_slot slot" in out.output
    assert "(and 1 more)" in out.output and "--json" not in out.output
