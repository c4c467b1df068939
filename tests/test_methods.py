"""The registry of annotation methods (humaneval.methods) and load_design.

The values asserted are the rules of docs/forms.md (scales, check answers, the DA tolerance of 5
points) computed independently here, and the method names may appear in string comparisons only
inside the registry (issue 23, "one Method per method").
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from humaneval.core.responses import RANK, SCORE, lower_is_better
from humaneval.design import Design, DesignSpec, generate_design, load_design, write_design_csv
from humaneval.errors import DesignError, OptionError
from humaneval.forms import PRESETS, placeholder_texts
from humaneval.methods import ALIASES, METHODS, Method, get_method

ROOT = Path(__file__).resolve().parents[1]
NAMES = re.compile(r"""['"](likert|da|rank|ranking|bws|pairwise)['"]""")
COMPARISON = re.compile(r"==|!=| in |\bis\b")


def _comparisons() -> list[str]:
    """The lines `grep -rnE "['\\"](likert|…)['\\"]" humaneval | grep -E "==|!=| in |\\bis\\b"` prints."""
    hits = []
    for path in sorted((ROOT / "humaneval").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if NAMES.search(line) and COMPARISON.search(line):
                hits.append(f"{rel}:{n}: {line.strip()}")
    return hits


def test_method_names_are_compared_only_inside_the_registry() -> None:
    outside = [hit for hit in _comparisons() if not hit.startswith("humaneval/methods/")]
    assert outside == []


def test_the_comparison_scan_finds_a_comparison() -> None:
    # the scan itself must see what the grep sees, or the test above could never fail
    assert NAMES.search('if method == "bws":') and COMPARISON.search('if method == "bws":')
    assert NAMES.search("x in ('likert', 'da')") and COMPARISON.search("x in ('likert', 'da')")
    assert not NAMES.search('if unit == "tuple":')


# -- the registry ---------------------------------------------------------------


def test_registry_names_order_and_aliases() -> None:
    assert list(METHODS) == ["likert", "rank", "bws", "pairwise", "da", "spans"]
    assert get_method("ranking") is METHODS["rank"]
    assert get_method("slider") is METHODS["da"]
    assert ALIASES["ranking"] == "rank"
    assert get_method(METHODS["bws"]) is METHODS["bws"]
    assert all(isinstance(m, Method) and m.name == name for name, m in METHODS.items())


def test_unknown_method_is_one_clear_option_error() -> None:
    with pytest.raises(OptionError, match=r"method 'triplet' is unknown; choose one of likert, rank, bws"):
        get_method("triplet")
    with pytest.raises(OptionError):
        get_method(None)  # type: ignore[arg-type]


def test_every_method_has_a_form_widget_and_a_builtin_preset() -> None:
    script = (ROOT / "humaneval" / "templates" / "form.js").read_text(encoding="utf-8")
    for method in METHODS.values():
        assert f"function {method.widget}Widget(" in script, method.name
        name = method.preset_name(method.default_dimension)
        assert name in PRESETS and PRESETS[name].method == method.name


def test_response_kinds_and_analysis_paths() -> None:
    assert [m.response for m in METHODS.values()] == [SCORE, RANK, SCORE, SCORE, SCORE, SCORE]
    assert [m.analysis for m in METHODS.values()] == [
        "clmm",
        "clmm",
        "comparative",
        "comparative",
        "clmm",
        "spans",
    ]
    assert [m.is_comparative for m in METHODS.values()] == [False, True, True, True, False, False]
    assert [m.name for m in METHODS.values() if m.marks_spans] == ["spans"]
    assert lower_is_better("rank") and not lower_is_better("score")


# -- per method: what a valid value is and how a check is scored -------------------------------


def test_likert_values_and_checks() -> None:
    likert = get_method("likert")
    assert likert.value_range(5) == (1, 5)
    assert likert.parse_value("6", points=7) == 6.0
    assert likert.parse_value(7, points=7) == 7.0
    for bad in ("8", "0", "6.5", "٧", " 6", True, None):
        assert likert.parse_value(bad, points=7) is None, bad
    assert likert.check_passed(4.0, "4") and not likert.check_passed(5.0, "4")
    # the instructed point is an inner point 2..points-1, drawn with one integers() call
    expected = str(int(np.random.default_rng(11).integers(2, 7)))
    assert likert.draw_check_expected(np.random.default_rng(11), points=7, side="") == expected
    rng = np.random.default_rng(3)
    assert likert.draw_check_expected(rng, points=2, side="") == "1"
    assert rng.random() == np.random.default_rng(3).random()  # nothing drawn on a 2-point scale


def test_direct_assessment_values_and_checks() -> None:
    da = get_method("da")
    assert da.value_range() == (0, 100)
    assert da.parse_value("37.5") == 37.5 and da.parse_value("100") == 100.0
    assert da.parse_value("100.5") is None and da.parse_value("-1") is None
    # a slider check passes within 5 points of the instructed end
    assert da.check_passed(95.0, "100") and not da.check_passed(94.9, "100")
    assert da.check_passed(5.0, "0") and not da.check_passed(5.5, "0")
    assert da.check_text("100", best_worst_labels=("Best", "Worst")).endswith("all the way to the right.")
    draws = [da.draw_check_expected(np.random.default_rng(s), points=7, side="") for s in range(4)]
    assert draws == ["0" if np.random.default_rng(s).random() < 0.5 else "100" for s in range(4)]


def test_ranking_values_and_checks() -> None:
    rank = get_method("rank")
    assert rank.value_range() is None  # the highest rank is the screen's number of entries
    assert rank.parse_value("3", points=4) == 3.0
    assert rank.parse_value("5", points=4) is None and rank.parse_value("2.5", points=4) is None
    assert rank.parse_value("0", points=4) is None
    assert rank.check_passed(6.0, "6") and not rank.check_passed(5.0, "6")
    assert rank.check_text("6", best_worst_labels=("Best", "Worst"), n_entries=6).endswith(
        "move it to the last position of the list."
    )
    assert rank.seconds_per_screen("coherence", 4, False) == (
        pytest.approx(135.5 * 4 / 5),
        "study value for rank coherence, scaled by 4/5",
    )


def test_best_worst_values_and_checks() -> None:
    bws = get_method("bws")
    assert bws.value_range() == (-1.0, 1.0)
    assert bws.parse_value("-1") == -1.0 and bws.parse_value("0.5") is None
    assert bws.check_passed("worst", "worst") and not bws.check_passed("best", "worst")
    text = bws.check_text("worst", best_worst_labels=("Most coherent", "Least coherent"))
    assert text == "This entry checks your attention. Please choose it as 'Least coherent'."


def test_pairwise_values_and_checks() -> None:
    pairwise = get_method("pairwise")
    assert pairwise.value_range() == (0.0, 1.0)
    assert pairwise.parse_value("0.5") == 0.5 and pairwise.parse_value("2") is None
    assert pairwise.check_passed("B", "B") and not pairwise.check_passed("tie", "B")
    rng = np.random.default_rng(5)
    assert pairwise.draw_check_expected(rng, points=7, side="A") == "A"
    assert rng.random() == np.random.default_rng(5).random()  # the side is fixed, nothing drawn


def test_methods_without_a_published_timing_ask_for_a_pilot() -> None:
    seconds, source = get_method("pairwise").seconds_per_screen("coherence", 5, False)
    assert np.isnan(seconds) and "pilot" in source
    assert get_method("da").seconds_per_screen("coherence", 5, True) == (30.0, "FFCI two-text minimum")
    assert get_method("likert").seconds_per_screen("fluency", 5, False) == (
        32.0,
        "study value for likert coherence (assumed)",
    )


# -- the registry drives the stages ------------------------------------------


def _answered(method: str, bad: str | None = None) -> tuple[Design, object]:
    """A small design of ``method`` answered validly (checks as instructed) and parsed back; with
    ``bad``, the first summary's answer of every assignment is replaced by it."""
    from humaneval.collect import parse_mturk_results, results_row
    from humaneval.forms import design_payloads
    from humaneval.serve.loadtest import valid_answers
    from humaneval.serve.validate import screen_problems

    spec = DesignSpec(
        documents=6 if method == "rank" else 4,
        systems=["A", "B", "C", "D"],
        seed=7,
        method=method,
        documents_per_block=6 if method == "rank" else 2,
        annotators_per_block=2,
        platform="mturk",
        bws={"tuple_size": 3},
    )
    design = generate_design(spec)
    _, payloads = design_payloads(design, placeholder_texts(design.table), per_slot=True)
    expected = {f"ck_{c['id']}": c["expected"] for c in design.checks}
    rows = []
    for slot, payload in sorted(payloads.items()):
        (part,) = payload["slots"]
        fields = {"slot": part["slot"], "order": ",".join(s["id"] for s in part["screens"])}
        for k, screen in enumerate(part["screens"]):
            answers = valid_answers(payload["method"], payload["preset"], screen, k)
            # an attentive annotator: every check answered as instructed
            answers |= {f: expected[f] for f in answers if f in expected}
            assert screen_problems(payload["method"], payload["preset"], screen, answers) == []
            fields |= answers | {f"tm_{screen['id']}": "4,4,0"}
        if bad is not None:
            fields[next(f for f in fields if f.startswith(get_method(method).field_prefix))] = bad
        rows.append(results_row(fields, assignment_id=f"a-{slot}", worker_id=f"W{slot}"))
    return design, parse_mturk_results(pd.DataFrame(rows), design)


@pytest.mark.parametrize(
    "name", [n for n, m in METHODS.items() if not m.marks_spans]
)  # spans: test_spans_study
def test_collected_table_has_the_methods_kind_and_response(name: str) -> None:
    from humaneval.comparative import detect_kind

    method = get_method(name)
    design, parsed = _answered(name)
    assert parsed.problems.empty
    assert parsed.ratings.response == method.response
    assert get_method(detect_kind(parsed.ratings)).table_kind == method.table_kind
    checks = parsed.table[parsed.table["is_check"] & (parsed.table["system"] == "")]
    assert len(checks) == 2 * len(design.slots) and checks["check_passed"].astype(bool).all()


@pytest.mark.parametrize(
    ("name", "bad", "detail"),
    [
        ("likert", "8", "'8' is not a whole number in 1..7"),
        ("likert", "6.5", "'6.5' is not a whole number in 1..7"),
        ("da", "100.5", "'100.5' is not a number in 0..100"),
        ("rank", "5", "'5' is not a whole number in 1..4"),
    ],
)
def test_a_value_outside_the_methods_range_is_reported_not_guessed(name: str, bad: str, detail: str) -> None:
    design, parsed = _answered(name, bad)
    assert set(parsed.problems["kind"]) == {"bad_value"}
    assert set(parsed.problems["detail"]) == {detail}
    assert len(parsed.problems) == len(design.slots)


def test_design_spec_accepts_an_alias_and_keeps_the_design_id() -> None:
    by_alias = DesignSpec(documents=6, systems=["A", "B"], seed=1, method="ranking", documents_per_block=6)
    by_name = DesignSpec(documents=6, systems=["A", "B"], seed=1, method="rank", documents_per_block=6)
    assert by_alias.method == "rank" and by_alias.to_dict() == by_name.to_dict()
    with pytest.raises(DesignError, match="method 'triplet' is unknown; choose one of likert, rank"):
        DesignSpec(documents=6, systems=["A", "B"], seed=1, method="triplet")  # type: ignore[arg-type]


def test_cli_method_choices_come_from_the_registry() -> None:
    from humaneval.cli import main

    result = CliRunner().invoke(main, ["design", "--help"])
    assert result.exit_code == 0
    assert "[" + "|".join(sorted(METHODS)) + "]" in result.output.replace("\n", "").replace(" ", "")


# -- load_design ----------------------------------------------------------------


@pytest.fixture
def design() -> Design:
    return generate_design(DesignSpec(documents=4, systems=["A", "B"], seed=1, documents_per_block=2))


def test_load_design_from_every_kind_of_source(design: Design, tmp_path: Path) -> None:
    assert load_design(design) is design
    table = load_design(design.table.astype(str))
    assert isinstance(table, pd.DataFrame) and table.equals(design.table)
    lone = write_design_csv(design.table, tmp_path / "lone" / "design.csv")
    assert load_design(lone).equals(design.table)
    paths = design.write(tmp_path / "design.csv")
    for path in (paths["csv"], paths["manifest"], str(paths["manifest"])):
        loaded = load_design(path)
        assert isinstance(loaded, Design) and loaded.design_id == design.design_id


def test_load_design_refuses_what_is_not_one_design(design: Design, tmp_path: Path) -> None:
    with pytest.raises(DesignError, match="has no rows"):
        load_design(design.table.iloc[:0])
    with pytest.raises(DesignError, match="method 'triplet' is unknown"):
        load_design(design.table.assign(method="triplet"))
    mixed = design.table.assign(method=np.where(design.table.index < 3, "da", "likert"))
    with pytest.raises(DesignError, match=r"mixes \['da', 'likert'\]"):
        load_design(mixed)
    with pytest.raises(DesignError, match="cannot read a design from int"):
        load_design(3)  # type: ignore[arg-type]
    with pytest.raises(DesignError, match="no such design manifest"):
        load_design(tmp_path / "missing.json")
    with pytest.raises(DesignError, match="no such file"):
        load_design(tmp_path / "missing.csv")
