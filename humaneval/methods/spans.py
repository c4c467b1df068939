"""Error-span marking: annotators mark the erroneous spans of a text with a severity and a category
(MQM; Freitag et al., TACL 2021); Error Span Annotation adds a 0–100 score of the text after marking
(ESA; Kocmi et al., WMT 2024). The collected answers make the span table of docs/spans.md, which the
``spans`` analysis adapter scores and analyses.

One answer field per item holds the marked spans as JSON: ``{"spans": [[start, end, severity,
category], ...], "score": 0..100 or null}``, offsets counting the text's characters (Unicode code
points) from 0, ``end`` exclusive; an empty list means the annotator found no error.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from humaneval.core.responses import SCORE
from humaneval.errors import DesignError
from humaneval.methods.base import Method

SEVERITIES = ("minor", "major")
"""The severities a form offers (MQM; Freitag et al. 2021, Table 2)."""

MAX_SPANS = 200
"""Most spans one answer may hold (a text of a few hundred words has a few dozen at most)."""


@dataclass(frozen=True)
class Span:
    """One marked span of an answer."""

    start: int
    end: int
    severity: str
    category: str


@dataclass(frozen=True)
class SpanAnswer:
    """The spans one annotator marked in one text, and the ESA score when the form asked for one."""

    spans: tuple[Span, ...]
    score: float | None

    def to_json(self) -> str:
        """The canonical JSON of the answer (the export table's ``raw_value``)."""
        spans = [[s.start, s.end, s.severity, s.category] for s in self.spans]
        return json.dumps({"spans": spans, "score": self.score}, ensure_ascii=False, separators=(",", ":"))


def parse_span_answer(
    value: Any,
    length: int | None = None,
    categories: tuple[str, ...] | None = None,
    needs_score: bool | None = None,
) -> SpanAnswer | str:
    """The :class:`SpanAnswer` of a submitted value, or what is wrong with it (one short phrase).

    Parameters
    ----------
    value : Any
        The JSON text (or the decoded object) of the answer field.
    length : int, optional
        The text's length in characters: spans must end inside it.
    categories : tuple of str, optional
        The categories the form offers; None accepts any.
    needs_score : bool, optional
        True: the ESA score must be given; False: it must be absent; None: either.

    Returns
    -------
    SpanAnswer or str

    Examples
    --------
    >>> parse_span_answer('{"spans": [[0, 4, "minor", "fluency"]], "score": 70}', length=10).spans[0].end
    4
    >>> parse_span_answer('{"spans": [[4, 2, "minor", "fluency"]], "score": null}', length=10)
    'span 1: end must be after start'
    """
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return "must be the JSON of the marked spans"
    if (
        not isinstance(value, dict)
        or set(value) != {"spans", "score"}
        or not isinstance(value["spans"], list)
    ):
        return 'must be an object {"spans": [...], "score": ...}'
    if len(value["spans"]) > MAX_SPANS:
        return f"holds more than {MAX_SPANS} spans"
    spans = []
    for k, item in enumerate(value["spans"], 1):
        problem = _span_problem(item, length, categories)
        if problem:
            return f"span {k}: {problem}"
        spans.append(Span(int(item[0]), int(item[1]), item[2], item[3]))
    ordered = sorted(spans, key=_key)
    for a, b in itertools.pairwise(ordered):  # an overlap implies one between neighbours
        if a.category == b.category and b.start < a.end:
            return f"spans {a.start}-{a.end} and {b.start}-{b.end} of category {a.category!r} overlap"
    score = value["score"]
    if score is None:
        if needs_score:
            return "the score (0 to 100) is missing"
        return SpanAnswer(tuple(spans), None)
    if not _whole(score) or not 0 <= score <= 100:
        return "the score must be a whole number from 0 to 100"
    if needs_score is False:
        return "this form asks for no score"
    return SpanAnswer(tuple(spans), float(score))


def _key(span: Span) -> tuple[str, int, int]:
    return span.category, span.start, span.end


def _whole(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value == int(value)
    )


def _span_problem(item: Any, length: int | None, categories: tuple[str, ...] | None) -> str | None:
    if not isinstance(item, list) or len(item) != 4:
        return "must be [start, end, severity, category]"
    start, end, severity, category = item
    if not _whole(start) or not _whole(end) or start < 0:
        return "start and end must be whole numbers from 0"
    if end <= start:
        return "end must be after start"
    if length is not None and end > length:
        return f"ends at {int(end)}, past the text's {length} characters"
    if severity not in SEVERITIES:
        return "severity must be one of " + ", ".join(SEVERITIES)
    if not isinstance(category, str) or not category.strip():
        return "the category is missing"
    if categories is not None and category not in categories:
        return "category must be one of " + ", ".join(categories)
    return None


@dataclass(frozen=True)
class SpanMarking(Method):
    """Spans of a text and, for ESA, a 0–100 score; the export's value is the score or else the
    number of spans marked, its raw value the answer's JSON."""

    def value_range(self, points: int | None = None) -> tuple[float, float]:
        return (0, 100)

    def read_answer(self, value: Any, points: int | None = None) -> tuple[float | None, str]:
        answer = parse_span_answer(value)
        if isinstance(answer, str):
            return None, ""
        number = answer.score if answer.score is not None else float(len(answer.spans))
        return number, answer.to_json()

    def draw_check_expected(self, rng: np.random.Generator, *, points: int, side: str) -> str:
        raise DesignError(
            "span studies check attention with injected errors in real items (--check-kind injected, "
            "docs/spans.md), not with instructed screens"
        )

    def inject_error(self, text: str, rng: np.random.Generator) -> tuple[str, int, int]:
        """A word of the text repeated right after itself (a fluency error every annotator should mark);
        the error is the repeated copy.

        Examples
        --------
        >>> text, start, end = SPANS.inject_error("the cat sat", np.random.default_rng(1))
        >>> text, text[start:end]
        ('the cat cat sat', 'cat')
        """
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        if not words:
            raise DesignError("an injected-error check needs a text with at least one word")
        start, end = words[int(rng.integers(len(words)))]
        word = text[start:end]
        return f"{text[:end]} {word}{text[end:]}", end + 1, end + 1 + len(word)

    def check_passed(self, value: Any, expected: str) -> bool:
        """Whether the answer marks any character of the injected error ``expected`` (``start-end``)."""
        answer = parse_span_answer(value)
        if isinstance(answer, str):
            return False
        low, high = (int(x) for x in expected.split("-"))
        return any(s.start < high and s.end > low for s in answer.spans)


SPANS = SpanMarking(
    name="spans",
    title="error-span marking (MQM, ESA)",
    aliases=("error-spans",),
    unit="item",
    response=SCORE,
    table_kind="spans",
    analysis="spans",
    widget="spans",
    check_placement="screen",
    preset="{dimension}-spans",
    field_prefix="sp_q0_",
    integer=False,
    default_dimension="mqm",
    scale_description="error spans marked in the text, each with a severity and a category",
    marks_spans=True,
)
"""The span-marking method."""
