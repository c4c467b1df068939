"""Criteria of a study: what each question asks and on which scale (several per screen).

A :class:`Criterion` holds a criterion's question, definition, number of scale points and the
labels of the scale points (anchors: longer descriptions of some points). A design with several
criteria shows each text once with all its questions (SummEval rated coherence, consistency,
fluency and relevance of each summary on one screen; Fabbri et al., 2021); the form field of
question ``m`` is ``lk_q{m}_d{i}_s{j}`` and every question is required.

Built-in criteria (:data:`CRITERIA`) are the four SummEval criteria on its 1–5 scale and the
repetition criterion of Steen & Markert (2021) on 7 points; ``name:points`` (``coherence:7``)
changes the number of points. Own criteria come from a YAML or JSON file: a list of mappings
with the keys of :class:`Criterion`, or a mapping from name to such a mapping.

References
----------
Fabbri, A. R., Kryściński, W., McCann, B., Xiong, C., Socher, R. and Radev, D. (2021).
SummEval: Re-evaluating summarization evaluation. TACL 9, 391–409.

Steen, J. and Markert, K. (2021). How to evaluate a summarizer: Study design and statistical
analysis for manual linguistic quality evaluation. EACL 2021, 1861–1875.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from humaneval.core.scales import Scale
from humaneval.errors import DesignError
from humaneval.methods import METHODS

if TYPE_CHECKING:
    from humaneval.design.load import DesignLike

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")

SUMMEVAL_DEFINITIONS: dict[str, str] = {
    "coherence": "The summary as a whole should be well structured and well organised, building up from "
    "sentence to sentence into a connected account of the topic rather than a pile of related facts.",
    "consistency": "The summary should agree factually with the source: a consistent summary only states "
    "things that the source supports.",
    "fluency": "Each sentence should read well, with no formatting problems, capitalisation errors or "
    "clearly ungrammatical sentences (fragments, missing parts) that make reading hard.",
    "relevance": "The summary should pick out the important content of the source and only that; "
    "summaries that are too long, redundant or padded with unimportant information are worse.",
}


@dataclass(frozen=True)
class Criterion:
    """One question asked about every text, with its scale.

    Attributes
    ----------
    name:
        The criterion (the ``criterion`` column of the ratings), e.g. ``coherence``.
    points:
        Number of Likert points (2–11); the scale runs from 1 to ``points``.
    question:
        The question shown above the scale (default: "How would you rate the <name> of this
        summary?").
    definition:
        What the criterion means, shown in the instructions.
    labels:
        Labels of scale points keyed by the point as a string: the two ends, or every point.
    anchors:
        Longer descriptions of some points, shown under the scale.
    """

    name: str
    points: int = 5
    question: str = ""
    definition: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    anchors: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not NAME_PATTERN.fullmatch(self.name):
            raise DesignError(
                f"criterion name {self.name!r} must start with a letter and use only letters, digits, "
                "'_', '.' or '-' (max 64)"
            )
        if isinstance(self.points, bool) or not isinstance(self.points, int) or not 2 <= self.points <= 11:
            raise DesignError(
                f"criterion {self.name!r}: points must be a whole number 2–11, not {self.points!r}"
            )
        for kind in ("labels", "anchors"):
            keys = getattr(self, kind)
            bad = [k for k in keys if not (str(k).isdigit() and 1 <= int(k) <= self.points)]
            if bad:
                raise DesignError(
                    f"criterion {self.name!r}: {kind} key {bad[0]!r} is not a point of its "
                    f"1–{self.points} scale"
                )
        if not self.question:
            object.__setattr__(self, "question", f"How would you rate the {self.name} of this summary?")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def scale(self) -> Scale:
        """The declared :class:`~humaneval.core.scales.Scale` (1 to ``points``) of this criterion."""
        return Scale(
            self.name, 1, self.points, self.points, dict(self.labels), dict(self.anchors), self.question
        )

    def with_points(self, points: int) -> Criterion:
        """The same criterion on ``points`` points; end labels move to the new ends, anchors are dropped."""
        if points == self.points:
            return self
        ends = [self.labels.get("1"), self.labels.get(str(self.points))]
        labels = {k: v for k, v in zip(("1", str(points)), ends, strict=True) if v}
        return replace(self, points=points, labels=labels, anchors={})


def _builtin() -> dict[str, Criterion]:
    out = {
        name: Criterion(
            name=name,
            points=5,
            question=f"How would you rate the {name} of this summary?",
            definition=definition,
            labels={"1": "Very poor", "5": "Very good"},
        )
        for name, definition in SUMMEVAL_DEFINITIONS.items()
    }
    out["repetition"] = Criterion(
        name="repetition",
        points=7,
        question="To what extent does this summary avoid unnecessary repetition?",
        definition="Repetition problems can involve whole sentences or just single pieces of information "
        "stated more than once. Only judge unnecessary repetition; do not let other qualities affect your "
        "rating.",
        labels={"1": "Very badly", "7": "Very well"},
        anchors={
            "1": "the same facts are stated again and again, often in the same words",
            "4": "some statements are repeated, but not excessively",
            "7": "no unnecessary repetition at all",
        },
    )
    return out


#: Built-in criteria by name (SummEval's four on 1–5, repetition on 1–7).
CRITERIA: dict[str, Criterion] = _builtin()


def get_criterion(spec: str | dict[str, Any] | Criterion) -> Criterion:
    """A criterion from a built-in name (``fluency``, ``coherence:7``), a mapping or a :class:`Criterion`."""
    if isinstance(spec, Criterion):
        return spec
    if isinstance(spec, dict):
        return _from_mapping(spec, "criterion")
    text = str(spec).strip()
    name, _, points = text.partition(":")
    if name not in CRITERIA:
        raise DesignError(
            f"unknown criterion {name!r}: use one of {', '.join(sorted(CRITERIA))} (optionally "
            "name:points), or a YAML/JSON file defining your criteria"
        )
    if not points:
        return CRITERIA[name]
    if not points.strip().isdigit():
        raise DesignError(f"criterion {text!r}: write name:points with a whole number, e.g. coherence:7")
    return CRITERIA[name].with_points(int(points))


def parse_criteria(value: str | Path | Iterable[str | dict[str, Any] | Criterion]) -> tuple[Criterion, ...]:
    """Criteria from ``"coherence,fluency"``, a YAML/JSON file, or a sequence of names/mappings.

    Raises :class:`~humaneval.errors.DesignError` for unknown names, bad scales or duplicates.
    """
    if isinstance(value, Path) or (isinstance(value, str) and _looks_like_file(value)):
        items: list[Any] = load_criteria_file(value)
    elif isinstance(value, str):
        items = [part for part in (p.strip() for p in value.split(",")) if part]
    else:
        items = list(value)
    criteria = tuple(get_criterion(item) for item in items)
    if not criteria:
        raise DesignError("no criteria given; name at least one, e.g. --criteria coherence,fluency")
    names = [c.name for c in criteria]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise DesignError(f"criterion {dup!r} is listed twice; list each criterion once")
    return criteria


def load_criteria_file(path: str | Path) -> list[Criterion]:
    """Read criteria from YAML or JSON: a list of mappings, or ``{name: mapping}``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DesignError(f"{path}: no such criteria file; check the path") from None
    if path.suffix.lower() in {".yaml", ".yml"}:
        import yaml

        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise DesignError(f"{path}: not valid YAML ({exc}); fix the criteria file") from None
    else:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DesignError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if isinstance(raw, dict) and "criteria" in raw:
        raw = raw["criteria"]
    if isinstance(raw, dict):
        raw = [{"name": name, **(body or {})} for name, body in raw.items()]
    if not isinstance(raw, list) or not all(isinstance(item, dict | str) for item in raw):
        raise DesignError(f"{path}: a criteria file holds a list of criteria (name, points, question, ...)")
    return [get_criterion(item) if isinstance(item, str) else _from_mapping(item, str(path)) for item in raw]


def _from_mapping(raw: dict[str, Any], where: str) -> Criterion:
    known = set(Criterion.__dataclass_fields__)
    unknown = sorted(set(raw) - known)
    if unknown:
        raise DesignError(
            f"{where}: unknown criterion key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    if "name" not in raw:
        raise DesignError(f"{where}: every criterion needs a 'name'")
    body = dict(raw)
    base = CRITERIA.get(str(body["name"]))
    for key in ("labels", "anchors"):
        if key in body:
            body[key] = {str(k): str(v) for k, v in (body[key] or {}).items()}
    if base is not None:
        if "points" in body and body["points"] != base.points:
            base = base.with_points(body["points"]) if isinstance(body["points"], int) else base
        return replace(base, **body)
    return Criterion(**body)


def _looks_like_file(value: str) -> bool:
    return value.lower().endswith((".yaml", ".yml", ".json")) or Path(value).is_file()


def criteria_of(design: DesignLike | Mapping[str, Any]) -> tuple[Criterion, ...]:
    """The criteria a design declares: its ``criteria``, else its one dimension on ``scale_points``.

    ``design`` is a :class:`~humaneval.design.Design`, its spec mapping or anything with a
    ``spec`` mapping; a bare design table declares nothing (an empty tuple).
    """
    spec = design if isinstance(design, dict) else getattr(design, "spec", None)
    if not isinstance(spec, dict):
        return ()
    if spec.get("criteria"):
        return tuple(get_criterion(c) for c in spec["criteria"])
    method = spec.get("method")
    if method is not None and not (method in METHODS and METHODS[method].criteria):
        return ()
    return (Criterion(name=str(spec.get("dimension", "coherence")), points=int(spec.get("scale_points", 7))),)


def declares_criteria(design: DesignLike | Mapping[str, Any]) -> bool:
    """Whether the design was made with explicit criteria (``--criteria``): forms then ask their questions."""
    spec = design if isinstance(design, dict) else getattr(design, "spec", None)
    return isinstance(spec, dict) and bool(spec.get("criteria"))


def question_field(field_name: str, m: int) -> str:
    """The field of question ``m`` of an entry whose first-question field is ``field_name``."""
    return re.sub(r"^(lk|da)_q0_", rf"\1_q{m}_", field_name)


def expand_criteria(frame: pd.DataFrame, criteria: Sequence[Criterion]) -> pd.DataFrame:
    """One row per (entry, criterion) of a design table: the judgements a multi-question form collects.

    Real summary entries are repeated once per criterion with ``dimension`` = the criterion and
    ``field`` = its question's field; attention-check and warm-up entries ask the first question
    only and keep their field, with ``dimension`` = the first criterion.
    """
    if len(criteria) == 0:
        return frame
    names = [c.name for c in criteria]
    real = frame["system"].astype(str).ne("") & ~frame["is_warmup"].astype(bool)
    parts = []
    for m, name in enumerate(names):
        part = frame[real].copy() if m else frame.copy()
        part["dimension"] = name
        part["field"] = [question_field(f, m) for f in part["field"]]
        part["_q"] = m
        parts.append(part)
    out = pd.concat(parts)
    out["_row"] = out.index
    out = out.sort_values(["_row", "_q"], kind="stable").drop(columns=["_row", "_q"])
    return out.reset_index(drop=True)


def scales_of(criteria: Sequence[Criterion]) -> tuple[Scale, ...]:
    """The declared scales of ``criteria``."""
    return tuple(c.scale() for c in criteria)
