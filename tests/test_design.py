"""Design generator: structure of the families, blocks, order, checks, outputs, determinism
(designs-and-forms spec §2.1–§2.4, §2.7, §2.8, §2.10, §2.12)."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from humaneval.cli import main
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.core.structure import describe_structure
from humaneval.design import (
    DESIGN_COLUMNS,
    Design,
    DesignSpec,
    Document,
    Summary,
    block_design,
    block_sizes,
    generate_design,
    read_design_csv,
)
from humaneval.design.order import check_positions, interleave
from humaneval.errors import DesignError

SYSTEMS = ["BART", "PG", "ref", "rw", "seneca"]
EACL = [
    "design",
    "--documents", "100",
    "--systems", ",".join(SYSTEMS),
    "--reference", "ref",
    "--method", "likert",
    "--docs-per-block", "5",
    "--annotators-per-block", "3",
    "--attention-checks", "2",
    "--seed", "1",
]  # fmt: skip


def spec(**kw) -> DesignSpec:
    base = {"documents": 100, "systems": SYSTEMS, "reference_system": "ref", "seed": 7}
    return DesignSpec(**{**base, **kw})


@pytest.fixture(scope="module")
def eacl(tmp_path_factory) -> tuple[pd.DataFrame, dict]:
    out = tmp_path_factory.mktemp("eacl") / "design.csv"
    result = CliRunner().invoke(main, [*EACL, "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return read_design_csv(out), json.loads(result.output)


def check_no_checks_first_or_adjacent(table: pd.DataFrame) -> None:
    for _, rows in table.groupby("annotator_slot"):
        at = sorted(rows.loc[rows["is_check"], "position"].unique())
        assert 0 not in at
        assert all(b - a >= 2 for a, b in itertools.pairwise(at))


def test_eacl_design_from_cli(eacl) -> None:
    table, payload = eacl
    assert list(table.columns) == list(DESIGN_COLUMNS)
    real = table[~table["is_check"]]
    assert real["annotator_slot"].nunique() == 60
    assert len(real) == 1500
    assert real.groupby("document")["annotator_slot"].nunique().eq(3).all()
    assert real.groupby(["document", "system"]).size().eq(3).all()
    assert real.groupby("annotator_slot")["block"].nunique().eq(1).all()
    assert real.groupby("document")["block"].nunique().eq(1).all()
    assert table.groupby("block")["annotator_slot"].nunique().eq(3).all()
    per_slot = real.groupby("annotator_slot")
    assert per_slot["document"].nunique().eq(5).all()
    assert per_slot.apply(lambda r: r.groupby("document")["system"].nunique().eq(5).all()).all()
    # 25 items + 2 stand-alone checks per slot, screens numbered 0..26
    assert (
        table.groupby("annotator_slot")["position"]
        .agg(["min", "max", "nunique"])
        .eq([0, 26, 27])
        .all(axis=None)
    )
    assert (table["is_check"].groupby(table["annotator_slot"]).sum() == 2).all()
    check_no_checks_first_or_adjacent(table)
    assert set(table["annotator_slot"]) == {f"b{b:03d}-a{k}" for b in range(20) for k in (1, 2, 3)}
    assert (table["screen_id"] == table["position"].map(lambda p: f"s{p:03d}")).all()
    assert (real["is_reference"] == (real["system"] == "ref")).all()
    assert payload["summary"]["analysed_judgements"] == 1500
    assert payload["summary"]["annotators"] == 60
    assert payload["summary"]["independent_units"] == 20


def test_eacl_check_rows_and_fields(eacl) -> None:
    table, _ = eacl
    checks = table[table["is_check"]]
    assert (checks["document"] == "").all() and (checks["system"] == "").all()
    assert set(checks["check_kind"]) == {"imc"}
    assert checks["check_expected"].astype(int).between(2, 6).all()  # interior of the 7-point scale
    assert checks["field"].nunique() == 120
    real = table[~table["is_check"]]
    # lk_q0_d{i}_s{j}: i is the manifest index of the document (d007 -> 7), j that of the system
    expected = "lk_q0_d" + real["document"].str[1:].astype(int).astype(str) + "_s"
    expected += real["system"].map({s: str(j) for j, s in enumerate(SYSTEMS)})
    assert (real["field"] == expected).all()
    assert not table.duplicated(["annotator_slot", "field"]).any()


def test_families_fully_crossed_and_nested_structure() -> None:
    model = default_model()
    crossed = generate_design(
        spec(documents=20, systems=model.system_names, reference_system=None, family="crossed")
    )
    real = crossed.judgements()
    assert real["block"].eq(0).all() and real["annotator"].nunique() == 3
    assert real.groupby("annotator")["document"].nunique().eq(20).all()
    nested = generate_design(spec(systems=model.system_names, reference_system=None, family="nested"))
    real = nested.judgements()
    assert real["annotator"].nunique() == 20
    assert real.groupby(["document", "system"]).size().eq(1).all()
    assert real.groupby("annotator")["document"].nunique().eq(5).all()
    one_each = generate_design(
        spec(
            documents=12,
            systems=model.system_names,
            family="nested",
            documents_per_block=1,
            reference_system=None,
            checks_per_annotator=1,
            platform="mturk",
        )
    )
    assert one_each.judgements()["annotator"].nunique() == 12
    for design, family, blocks in ((crossed, "fully_crossed", 1), (nested, "nested", 20)):
        structure = describe_structure(sample_ratings(model, design.judgements(), seed=1))
        assert (structure.family, structure.n_blocks) == (family, blocks)


def test_simulator_samples_the_design_with_checks_flagged() -> None:
    model = default_model()
    design = generate_design(spec(systems=model.system_names, reference_system=None))
    frame = design.judgements()
    assert list(frame.columns[:6]) == ["annotator", "document", "system", "position", "block", "is_check"]
    assert not frame["is_check"].any() and len(frame) == 1500
    ratings = sample_ratings(model, frame, seed=2)
    structure = describe_structure(ratings)
    assert (structure.family, structure.n_blocks, structure.n_annotators) == ("crossed_in_blocks", 20, 60)
    assert len(design.judgements(include_checks=True)) == 1620


@pytest.mark.parametrize(
    ("n_docs", "remainder", "sizes"),
    [
        (103, "spread", [5] * 19 + [4] * 2),
        (103, "drop", [5] * 20),
        (100, "error", [5] * 20),
        (7, "spread", [4, 3]),
    ],
)
def test_block_sizes_policy(n_docs, remainder, sizes) -> None:
    assert block_sizes(n_docs, 5, remainder) == sizes


def test_remainder_policies_never_lose_documents_silently() -> None:
    with pytest.raises(DesignError, match=r"documents_per_block=1\b|remainder='spread'"):
        generate_design(spec(documents=103, remainder="error"))
    dropped = generate_design(spec(documents=103, remainder="drop"))
    assert len(dropped.dropped_documents) == 3
    assert set(dropped.table["document"]) - {""} == set(dropped.documents) - set(dropped.dropped_documents)
    assert dropped.summary().documents_dropped == list(dropped.dropped_documents)
    spread = generate_design(spec(documents=103))
    assert sorted(len(b) for b in spread.blocks) == [4, 4] + [5] * 19
    assert set(spread.table["document"]) - {""} == set(spread.documents)
    assert any("differ in size" in w for w in spread.summary().warnings)
    unshuffled = generate_design(spec(documents=103, remainder="drop", shuffle_documents=False))
    assert len(unshuffled.dropped_documents) == 3
    assert [d for b in unshuffled.blocks for d in b] == [
        d for d in unshuffled.documents if d not in unshuffled.dropped_documents
    ]


def test_check_positions_are_uniform_over_admissible_sets() -> None:
    rng = np.random.default_rng(0)
    seen = {tuple(check_positions(6, 2, rng, what="screens")) for _ in range(400)}
    # positions 1..5, two checks, not adjacent: C(4, 2) = 6 sets
    assert seen == {(1, 3), (1, 4), (1, 5), (2, 4), (2, 5), (3, 5)}
    with pytest.raises(DesignError, match="do not fit"):
        check_positions(5, 3, rng, what="screens")
    assert interleave(["a", "b", "c"], ["X"], [2]) == ["a", "b", "X", "c"]


def test_rank_checks_are_embedded_never_first_screen() -> None:
    design = generate_design(spec(method="rank"))
    table = design.table
    checks = table[table["is_check"]]
    assert len(checks) == 120 and table["position"].max() == 4
    check_no_checks_first_or_adjacent(table)
    hosts = checks[["annotator_slot", "position"]].apply(tuple, axis=1)
    screens = table.set_index(["annotator_slot", "position"])
    for host in hosts:
        screen = screens.loc[host]
        assert len(screen) == 6 and screen["is_check"].sum() == 1
        assert screen.loc[~screen["is_check"], "screen_has_check"].all()
    assert (checks["check_expected"] == "6").all()
    assert [c["embedded"] for c in design.checks] == [True] * 120


def test_balanced_order_mixes_systems_in_every_segment() -> None:
    design = generate_design(spec(order="balanced", checks_per_annotator=0, platform="standalone"))
    real = design.table
    for _, rows in real.groupby("annotator_slot"):
        systems = rows.sort_values("position")["system"].to_numpy().reshape(5, 5)
        documents = rows.sort_values("position")["document"].to_numpy().reshape(5, 5)
        for segment, docs in zip(systems, documents, strict=True):
            assert len(set(segment)) == 5 and len(set(docs)) == 5


def test_outputs_round_trip_and_are_deterministic(tmp_path) -> None:
    docs = [Document(f"doc{i}", f"Text {i} <b>é</b>") for i in range(10)]
    summaries = [Summary(d.id, s, f'{s} says "{d.id}", ${{x}}') for d in docs for s in ("A", "B", "C")]

    def make(seed: int) -> Design:
        options = {"method": "rank", "checks_per_annotator": 1, "platform": "standalone"}
        spec = DesignSpec(documents=docs, summaries=summaries, seed=seed, **options)
        return generate_design(spec)

    design = make(3)
    paths = design.write(tmp_path / "design.csv")
    assert sorted(paths) == ["csv", "manifest", "texts"]
    assert (tmp_path / "design.json").exists() and (tmp_path / "design.texts.json").exists()
    assert read_design_csv(paths["csv"]).equals(design.table)
    again = Design.from_json(paths["manifest"], texts=paths["texts"])
    assert again.table.equals(design.table)
    assert again.to_json() == design.to_json()
    assert again.texts.summary("doc3", "B") == 'B says "doc3", ${x}'
    manifest = json.loads(paths["manifest"].read_text())
    assert "Text 0" not in paths["manifest"].read_text()
    assert len(manifest["spec"]["documents"][0]["text_sha256"]) == 64
    assert {"schema_version", "package_version", "design_id", "slots", "checks", "summary"} <= set(manifest)
    twin = make(3)
    assert twin.design_id == design.design_id and twin.to_json() == design.to_json()
    twin.write(tmp_path / "twin.csv")
    assert (tmp_path / "twin.csv").read_bytes() == paths["csv"].read_bytes()
    assert make(4).design_id != design.design_id


def test_adding_a_block_keeps_existing_slot_orders() -> None:
    small = generate_design(spec(documents=10, shuffle_documents=False))
    large = generate_design(spec(documents=15, shuffle_documents=False))
    columns = ["annotator_slot", "position", "document", "system", "check_expected"]
    head = large.table[large.table["block"] < 2][columns].reset_index(drop=True)
    assert head.equals(small.table[columns])


def test_block_design_unchanged() -> None:
    table = block_design(2, 3, 2, ["A", "B"], seed=1)
    assert list(table.columns) == ["block", "annotator", "document", "system", "position"]
    assert len(table) == 2 * 3 * 2 * 2
    assert table.groupby("annotator")["position"].apply(lambda p: sorted(p) == list(range(6))).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"annotators_per_block": 0}, "annotators_per_block must be a whole number ≥ 1"),
        ({"documents_per_block": 101}, "exceeds the 100 documents"),
        ({"reference_system": "gold"}, "reference system 'gold' is not among"),
        ({"systems": ["A", "A"]}, "system id 'A' occurs twice"),
        ({"systems": ["A", "B C"]}, r"system id 'B C' is empty or has characters"),
        ({"documents": 0}, "documents must be at least 1"),
        ({"systems": ["A"], "method": "rank", "reference_system": None}, "needs at least 2 systems"),
        ({"method": "bws", "bws": {"tuple_size": 5}}, r"2 ≤ tuple_size < N = 5"),
        ({"seed": "1"}, "seed must be a non-negative int"),
        ({"judgements_per_summary": 2}, "judgements_per_summary=2 differs"),
        ({"method": "poll"}, "method 'poll' is unknown"),
        ({"method": "pairwise", "pairwise": {"pairs": 11}}, r"pairs per document in 1\.\.10"),
        ({"checks_per_annotator": 26, "documents": 10}, "do not fit"),
        ({"check_kinds": ("gold",)}, "at least 2 fillers"),
        ({"method": "rank", "order": "balanced"}, "order='balanced' applies to likert"),
    ],
)
def test_impossible_inputs_raise_design_error(kwargs, message) -> None:
    with pytest.raises(DesignError, match=message):
        generate_design(spec(**kwargs))


def test_summaries_are_validated() -> None:
    docs = ["x", "y"]
    full = [Summary(d, s, "t") for d in docs for s in ("A", "B")]
    with pytest.raises(DesignError, match=r"1 \(document, system\) pairs have no summary"):
        DesignSpec(documents=docs, summaries=full[:-1], seed=1, documents_per_block=1)
    with pytest.raises(DesignError, match="two summaries"):
        DesignSpec(documents=docs, summaries=[*full, full[0]], seed=1, documents_per_block=1)
    with pytest.raises(DesignError, match="empty text"):
        DesignSpec(
            documents=docs, summaries=[*full[:-1], Summary("y", "B", "  ")], seed=1, documents_per_block=1
        )
    design = generate_design(
        DesignSpec(
            documents=docs,
            summaries=full[:-1],
            seed=1,
            documents_per_block=1,
            allow_missing=True,
            checks_per_annotator=1,
            platform="standalone",
        )
    )
    assert design.skipped_pairs == (("y", "B"),)
    assert len(design.judgements()) == 9


def test_prolific_warns_with_fewer_than_two_checks() -> None:
    with pytest.warns(UserWarning, match="only after 2 failed attention checks") as record:
        spec(checks_per_annotator=1)
    assert record[0].filename == __file__  # the warning points at the line that made the spec
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spec(checks_per_annotator=1, platform="mturk")


def test_cli_errors_are_one_line(tmp_path) -> None:
    args = [*EACL[:-2], "--seed", "1", "--reference", "gold", "--out", str(tmp_path / "d.csv")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: reference system 'gold' is not among the systems ['BART', 'PG', 'ref', 'rw', 'seneca']"
    ]


def test_cli_reads_fillers_from_a_text_file(tmp_path) -> None:
    (tmp_path / "fillers.txt").write_text("alpha text\n\n  \nbeta text\ngamma é\n", encoding="utf-8")
    options = ["--documents", "4", "--systems", "A,B", "--docs-per-block", "2", "--check-kind", "gold"]
    args = ["design", *options, "--fillers", str(tmp_path / "fillers.txt"), "--warmups", "1"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "d.csv")])
    assert result.exit_code == 0, result.output
    texts = json.loads((tmp_path / "d.texts.json").read_text(encoding="utf-8"))
    assert texts["fillers"] == {"f0": "alpha text", "f1": "beta text", "f2": "gamma é"}  # blank lines skipped


def test_cli_reads_document_and_summary_files(tmp_path) -> None:
    (tmp_path / "docs.csv").write_text("document,text\nn1,One\nn2,\nn3,Three\nn4,Four\n", encoding="utf-8")
    rows = "".join(f"n{i},{s},{s} of {i}\n" for i in range(1, 5) for s in "AB" if (i, s) != (4, "B"))
    (tmp_path / "summaries.csv").write_text("document,system,text\n" + rows, encoding="utf-8")
    out = tmp_path / "d.csv"
    files = ["--documents", str(tmp_path / "docs.csv"), "--summaries", str(tmp_path / "summaries.csv")]
    options = ["--docs-per-block", "2", "--annotators-per-block", "1", "--attention-checks", "1"]
    args = ["design", *files, *options, "--platform", "mturk", "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert (
        result.exit_code == 2
        and "1 (document, system) pairs have no summary, e.g. ('n4', 'B')" in result.output
    )
    (tmp_path / "summaries.csv").write_text("document,system,text\n" + rows + "n4,B,last\n", encoding="utf-8")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    table = read_design_csv(out)
    assert set(table["document"]) - {""} == {"n1", "n2", "n3", "n4"} and set(table["system"]) - {""} == {
        "A",
        "B",
    }
    texts = json.loads((tmp_path / "d.texts.json").read_text())
    assert texts["documents"] == {"n1": "One", "n3": "Three", "n4": "Four"}
    assert texts["summaries"]["n2|B"] == "B of 2" and texts["summaries"]["n4|B"] == "last"


def test_grouped_layout_with_anchor_in_every_group() -> None:
    systems = ["ref", *(f"m{i}" for i in range(16))]
    design = generate_design(
        DesignSpec(
            documents=10,
            systems=systems,
            reference_system="ref",
            likert_layout="grouped",
            seed=1,
            anchor_in_every_group=True,
            documents_per_block=2,
            annotators_per_block=2,
            platform="mturk",
        )
    )
    table = design.table
    real = table[~table["is_check"]]
    # 16 other systems in groups of 4 plus the reference: 4 screens of 5 per document
    assert real.groupby(["annotator_slot", "position"]).size().eq(5).all()
    assert real.groupby(["annotator_slot", "position"])["document"].nunique().eq(1).all()
    refs = real[real["system"] == "ref"].sort_values("position")
    assert refs.groupby(["annotator_slot", "document"]).size().eq(4).all()
    first = refs.groupby(["annotator_slot", "document"]).head(1)
    assert (
        not first["is_anchor_repeat"].any()
        and (first["field"] == "lk_q0_d" + first["document"].str[1:].astype(int).astype(str) + "_s0").all()
    )
    repeats = refs[refs["is_anchor_repeat"]]
    assert len(repeats) == 3 * 20 and set(repeats["field"].str[-3:]) == {"_r1", "_r2", "_r3"}
    judged = design.judgements()
    assert judged.groupby(["annotator", "document", "system"]).size().eq(1).all() and len(judged) == 340
    slots = [
        set(map(tuple, g.groupby("position")["system"].apply(sorted)))
        for _, g in real[real["document"] == real["document"].iloc[0]].groupby("annotator_slot")
    ]
    assert slots[0] != slots[1]  # group membership is drawn per annotator


def test_warmups_gold_and_da_checks() -> None:
    fillers = ["alpha text", "beta text", "gamma text"]
    design = generate_design(
        DesignSpec(
            documents=10,
            systems=["A", "B"],
            method="da",
            warmup_items=2,
            fillers=fillers,
            check_kinds=("gold", "imc"),
            seed=5,
            platform="mturk",
        )
    )
    table = design.table
    warm = table[table["is_warmup"]]
    assert all(p == [0, 1] for p in warm.groupby("annotator_slot")["position"].apply(sorted))
    assert len(design.warmups) == 2 * 6 and {w["filler"] for w in design.warmups} <= {"f0", "f1", "f2"}
    checks = table[table["is_check"]]
    assert checks["position"].min() >= 3  # after the warm-ups and never first among the real screens
    gold = checks[checks["check_kind"] == "gold"]
    imc = checks[checks["check_kind"] == "imc"]
    assert len(gold) == len(imc) == 6
    assert set(gold["check_expected"]) <= {"low", "high"} and set(imc["check_expected"]) <= {"0", "100"}
    for c in design.checks:
        if c["kind"] == "gold":
            same = c["fillers"][0] == c["fillers"][1]
            assert same == (c["expected"] == "high")
    assert design.texts.fillers == {"f0": "alpha text", "f1": "beta text", "f2": "gamma text"}
    assert len(design.judgements()) == 20 * 6 // 2
    assert Design.from_json(design.to_json()).warmups == design.warmups


@settings(max_examples=25, deadline=None)
@given(
    n_docs=st.integers(2, 23),
    per_block=st.integers(1, 6),
    annotators=st.integers(1, 3),
    n_systems=st.integers(2, 5),
    method=st.sampled_from(["likert", "rank", "pairwise", "da"]),
    checks=st.integers(0, 1),
    seed=st.integers(0, 2**32),
)
def test_generated_designs_keep_their_invariants(
    n_docs, per_block, annotators, n_systems, method, checks, seed
):
    per_block = min(per_block, n_docs)
    systems = [f"s{j}" for j in range(n_systems)]
    options = {"documents_per_block": per_block, "annotators_per_block": annotators, "platform": "mturk"}
    spec = DesignSpec(
        documents=n_docs, systems=systems, method=method, seed=seed, checks_per_annotator=checks, **options
    )
    try:
        design = generate_design(spec)
    except DesignError as error:  # a one-document ranking block has no admissible check position
        assert method == "rank" and checks and "do not fit into 1 ranking screens" in str(error)
        return
    table = design.table
    assert sorted(d for b in design.blocks for d in b) == sorted(design.documents)  # spread: nothing dropped
    assert table.groupby("annotator_slot")["block"].nunique().eq(1).all()
    for _, rows in table.groupby("annotator_slot"):
        assert sorted(rows["position"].unique()) == list(range(rows["position"].nunique()))
        for _, screen in rows.groupby("position"):
            assert sorted(screen["display_pos"]) == list(range(len(screen)))
    check_no_checks_first_or_adjacent(table)
    real = table[~table["is_check"]]
    if method in ("likert", "da", "rank"):
        assert real.groupby(["document", "system"]).size().eq(annotators).all()
        assert len(real) == n_docs * n_systems * annotators
    check_screens = table["position"].where(table["is_check"]).groupby(table["annotator_slot"]).nunique()
    assert (check_screens == checks).all()  # a pairwise/BWS check screen flags every row it shows


def test_reading_documents_and_summaries_from_files(tmp_path):
    from humaneval.design import Document, Summary, read_documents, read_summaries
    from humaneval.errors import DesignError

    docs = tmp_path / "docs.csv"
    docs.write_text("id,text\nx1,First source.\nx2,\n")
    assert read_documents("12") == 12
    assert read_documents(docs) == [Document("x1", "First source."), Document("x2", None)]
    summaries = tmp_path / "s.jsonl"
    summaries.write_text('{"document": "x1", "system": "A", "summary": "Short."}\n')
    assert read_summaries(summaries) == [Summary("x1", "A", "Short.")]
    assert read_summaries(None) == []
    with pytest.raises(DesignError, match="neither a count nor an existing file"):
        read_documents(tmp_path / "absent.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text("doc,sys\nx,A\n")
    with pytest.raises(DesignError, match="needs the columns document, system"):
        read_summaries(bad)


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_design_reads_the_documents_from_the_summaries(tmp_path):
    summaries = tmp_path / "summaries.csv"
    rows = [f"d{d},{s},text {d}{s}" for d in range(4) for s in ("A", "B", "C")]
    summaries.write_text("document,system,text\n" + "\n".join(rows) + "\n")
    out = _cli(
        "design", "--summaries", str(summaries), "--docs-per-block", "2", "--out", str(tmp_path / "d.csv")
    )
    assert out.exit_code == 0, out.output
    design = json.loads((tmp_path / "d.json").read_text())
    documents = [d["id"] for d in design["spec"]["documents"]]
    assert documents == ["d0", "d1", "d2", "d3"]


def test_design_without_documents_or_summaries_says_what_to_give(tmp_path):
    out = _cli("design", "--out", str(tmp_path / "d.csv"))
    assert out.exit_code == 2 and "give --documents" in out.output


def test_nested_design_refuses_several_annotators_per_block(tmp_path):
    args = ("design", "--documents", "10", "--systems", "A,B", "--family", "nested", "--out")
    out = _cli(*args, str(tmp_path / "d.csv"), "--annotators-per-block", "3")
    assert out.exit_code == 2
    assert "--family nested has one annotator per block, not 3; use --family blocks" in out.output
    assert _cli(*args, str(tmp_path / "e.csv")).exit_code == 0
    assert _cli(*args, str(tmp_path / "f.csv"), "--annotators-per-block", "1").exit_code == 0
