"""Validating one submitted screen against its form payload (docs/serve.md "Errors", docs/forms.md).

The expected answer fields are exactly those the form widgets record (``templates/form.js``):
Likert/DA one value per entry (``lk_…``/``da_…``/``ck_…``/``wu_…``); ranking one rank per entry
(plus ``rkraw_…`` with ties); BWS ``{field}_best``/``_worst`` (entry codes) or, on a check
screen, ``ck_…`` = best/worst/none; pairwise the screen field = ``A``/``B``/``tie``; span marking
one JSON answer per entry (:func:`~humaneval.methods.spans.parse_span_answer`). Each problem is
one short message that names the field but never echoes the submitted text. Numbers are read by
:func:`humaneval.collect.values.parse_number`, the rule the exports use, so a screen the server
stored always reaches the exported ratings.
"""

from __future__ import annotations

import math
from typing import Any

from humaneval.errors import DesignError
from humaneval.methods import get_method
from humaneval.methods.bws import CHOICES
from humaneval.methods.pairwise import SIDES
from humaneval.methods.spans import parse_span_answer
from humaneval.methods.values import parse_number

MAX_COMMENT = 2000
TIMING_KEYS = ("shown_at", "answered_at", "seconds", "visible_seconds", "hidden_count")


def screen_problems(method: str, preset: dict[str, Any], screen: dict[str, Any], answers: Any) -> list[str]:
    """Every problem of ``answers`` (field → value) for ``screen``; empty when valid."""
    if not isinstance(answers, dict):
        return ["answers must be an object mapping field names to values"]
    expected = _expected(method, preset, screen)
    problems = [f"unknown field {name!r} for this screen" for name in answers if name not in expected]
    values: dict[str, float | str] = {}
    for name, check in expected.items():
        if name not in answers:
            problems.append(f"missing field {name!r}")
            continue
        value, problem = check(answers[name])
        if problem:
            problems.append(f"{name}: {problem}")
        else:
            values[name] = value
    if not problems:
        problems += _screen_rules(method, preset, screen, values)
    return problems


def timing_problems(timing: Any) -> list[str]:
    """Timings must be non-negative finite numbers (``hidden_count`` a whole number)."""
    if not isinstance(timing, dict):
        return ["timing must be an object with " + ", ".join(TIMING_KEYS)]
    problems = [f"unknown timing field {name!r}" for name in timing if name not in TIMING_KEYS]
    for name in TIMING_KEYS:
        value = timing.get(name)
        if value is None:
            problems.append(f"missing timing field {name!r}")
        elif not _is_number(value) or value < 0:
            problems.append(f"timing {name} must be a non-negative number")
        elif name == "hidden_count" and value != int(value):
            problems.append("timing hidden_count must be a whole number")
    return problems


def comment_problems(comment: Any) -> list[str]:
    if comment is None or (isinstance(comment, str) and len(comment) <= MAX_COMMENT):
        return []
    if not isinstance(comment, str):
        return ["comment must be a string"]
    return [f"comment is longer than {MAX_COMMENT} characters"]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _integer(low: int, high: int):
    def check(value: Any) -> tuple[Any, str | None]:
        number = parse_number(value)
        if number is None or number != int(number) or not low <= number <= high:
            return None, f"must be a whole number from {low} to {high}"
        return int(number), None

    return check


def _choice(options: tuple[str, ...]):
    def check(value: Any) -> tuple[Any, str | None]:
        if not isinstance(value, str) or value not in options:
            return None, "must be one of " + ", ".join(options)
        return value, None

    return check


def _spans(length: int, preset: dict[str, Any]):
    categories = tuple(preset.get("categories") or ())
    needs_score = bool(preset.get("esa_score"))

    def check(value: Any) -> tuple[Any, str | None]:
        answer = parse_span_answer(value, length, categories, needs_score)
        return (None, answer) if isinstance(answer, str) else (answer, None)

    return check


def _expected(method: str, preset: dict[str, Any], screen: dict[str, Any]) -> dict[str, Any]:
    entries = screen["entries"]
    kind = get_method(method)
    if kind.marks_spans:
        return {e["field"]: _spans(e["length"], preset) for e in entries}
    if kind.rates_items:
        # the slider and the scale both send whole numbers
        bounds = kind.value_range(int(preset["points"]))
        if bounds is None:
            raise DesignError(f"the {method} method rates items but declares no value range")
        low, high = bounds
        check = _integer(int(low), int(high))
        out: dict[str, Any] = {e["field"]: check for e in entries}
        for q, question in enumerate(preset.get("questions") or ()):  # several questions per summary
            for e in entries:
                if not e.get("check") and e["field"].startswith("lk_q0_"):
                    out[e["field"].replace("lk_q0_", f"lk_q{q}_", 1)] = _integer(1, int(question["points"]))
        return out
    if kind.unit == "document":
        n_real = sum(not e.get("check") for e in entries)
        out = {}
        for e in entries:
            out[e["field"]] = _integer(1, len(entries) if e.get("check") else n_real)
            if e.get("raw_field"):
                out[e["raw_field"]] = _integer(1, len(entries))
        return out
    if kind.unit == "tuple":
        if screen["field"].startswith("ck_"):
            return {e["field"]: _choice(CHOICES) for e in entries if e.get("check")}
        codes = tuple(e["code"] for e in entries)
        return {screen["field"] + "_best": _choice(codes), screen["field"] + "_worst": _choice(codes)}
    sides = SIDES if preset.get("allow_tie", True) else SIDES[:2]
    return {screen["field"]: _choice(sides)}


def _screen_rules(
    method: str, preset: dict[str, Any], screen: dict[str, Any], values: dict[str, Any]
) -> list[str]:
    """Rules across fields: a ranking is a permutation (or competition ranking with ties); best ≠ worst."""
    field = screen.get("field", "")
    unit = get_method(method).unit
    if (
        unit == "tuple"
        and not field.startswith("ck_")
        and values[field + "_best"] == values[field + "_worst"]
    ):
        return ["best and worst must be different summaries"]
    if unit != "document":
        return []
    entries = screen["entries"]
    real = sorted(values[e["field"]] for e in entries if not e.get("check"))
    positions = [values[e["field"]] for e in entries if e.get("check")]
    if preset.get("allow_ties"):
        competition = [1 + sum(r < value for r in real) for value in real]
        if real != competition:
            return ["ranks must be competition ranks (1, 1, 3, ...)"]
    elif real != list(range(1, len(real) + 1)):
        return [f"ranks must use each of 1..{len(real)} exactly once"]
    if len(set(positions)) != len(positions):
        return ["attention-check positions must differ"]
    return []
