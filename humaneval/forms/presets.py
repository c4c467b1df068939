"""Question presets: instructions, question, scale and labels of one study dimension.

Wording and defaults follow the docs/forms.md: the study's coherence and
repetition presets (Steen & Markert; 7-point Likert and ranking), the SummEval Likert 1–5 presets
(Fabbri et al.; source shown) and the FFCI-style direct-assessment sliders. Custom presets are
JSON or YAML files with the same keys. Preset text is trusted plain text: paragraphs separated
by blank lines, ``**bold**`` allowed; the form escapes everything else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from humaneval.design.criteria import SUMMEVAL_DEFINITIONS, Criterion
from humaneval.errors import DesignError
from humaneval.methods import METHODS as REGISTRY

METHODS = tuple(REGISTRY)

MQM_CATEGORIES = (
    "Accuracy/Mistranslation",
    "Accuracy/Omission",
    "Accuracy/Addition",
    "Fluency/Grammar",
    "Fluency/Spelling",
    "Fluency/Punctuation",
    "Terminology",
    "Style",
    "Non-translation",
    "Other",
)
"""The error categories of the MQM preset: top-level and common subcategories of Freitag et al. (2021)."""


@dataclass(frozen=True)
class Preset:
    """Everything a form says about one dimension.

    ``overview`` may contain ``{n}`` (the number of screens). ``labels`` maps scale points
    (as strings) to labels: the two ends, or every point. ``rank_ends`` and
    ``best_worst_labels`` are (best, worst) pairs. ``questions`` (likert) lists several
    questions asked about every summary on one screen (built by :func:`criteria_preset`), each
    with ``name``, ``question``, ``points``, ``labels`` and ``anchors``; ``points``, ``labels``
    and ``question`` are then those of the first, which attention checks use. ``categories`` (spans)
    are the error categories an annotator chooses from; ``esa_score`` (spans) asks for a 0–100 score
    of the text after marking (Error Span Annotation).
    """

    name: str
    dimension: str
    method: str
    overview: str
    definition: str = ""
    question: str = ""
    points: int = 7
    labels: dict[str, str] = field(default_factory=dict)
    anchors: dict[str, str] = field(default_factory=dict)
    rank_ends: tuple[str, str] = ("Best", "Worst")
    best_worst_labels: tuple[str, str] = ("Best", "Worst")
    pair_labels: tuple[str, str, str] = ("Summary A", "Summary B", "About the same")
    allow_ties: bool = False
    allow_tie: bool = True
    show_source: bool = False
    two_texts: bool = False
    title: str = ""
    questions: tuple[dict[str, Any], ...] = ()
    categories: tuple[str, ...] = ()
    esa_score: bool = False

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise DesignError(
                f"preset {self.name!r}: method {self.method!r} is not one of {', '.join(METHODS)}"
            )
        if REGISTRY[self.method].marks_spans and not self.categories:
            raise DesignError(f"preset {self.name!r}: a span-marking preset lists its error categories")
        low, high = REGISTRY[self.method].preset_points or (self.points, self.points)
        if not low <= self.points <= high:
            raise DesignError(
                f"preset {self.name!r}: points must be between {low} and {high}, not {self.points}"
            )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["overview"] = self.overview_text()
        return out

    def overview_text(self) -> str:
        """The overview plus, for rankings, the ties sentence built from ``allow_ties`` (docs/forms.md)."""
        if not REGISTRY[self.method].ties_option:
            return self.overview
        ties = (
            "If two summaries are equally good you may give them the same rank."
            if self.allow_ties
            else "Every position must be used exactly once."
        )
        return f"{self.overview} {ties}"

    def with_options(self, **changes: Any) -> Preset:
        return replace(self, **changes)

    def scale_points(self) -> list[int]:
        """The points of every question's scale (one entry without ``questions``)."""
        return [int(q["points"]) for q in self.questions] or [self.points]


def criteria_preset(criteria: Sequence[Criterion], *, show_source: bool = False) -> Preset:
    """The likert form preset that asks every criterion of ``criteria`` about each summary.

    The overview names the criteria, the definition section lists each one's definition, and
    ``questions`` carries each question with its own scale; the first criterion's scale is the
    one attention checks use.
    """
    names = [c.name for c in criteria]
    first = criteria[0]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    what = "article and a summary of it" if show_source else "summary"
    n_questions = "one question" if len(names) == 1 else f"{len(names)} questions"
    return Preset(
        name="criteria:" + ",".join(names),
        dimension=",".join(names),
        method="likert",
        title=f"Rate the {listed} of summaries",
        overview=f"You will see {{n}} screens, each with a {what}, and answer {n_questions} about the "
        f"summary: its {listed}. Each question has its own scale; please answer every question. Judge "
        "each summary on its own, without comparing it with others.",
        definition="\n\n".join(
            f"**{c.name.capitalize()}**: {c.definition}" for c in criteria if c.definition
        ),
        question=first.question,
        points=first.points,
        labels=dict(first.labels),
        anchors=dict(first.anchors),
        show_source=show_source,
        questions=tuple(
            {
                "name": c.name,
                "question": c.question,
                "points": c.points,
                "labels": dict(c.labels),
                "anchors": dict(c.anchors),
            }
            for c in criteria
        ),
    )


_COHERENCE_DEFINITION = (
    "A coherent text makes sense as a whole: its information follows a logical order, and you can "
    "always tell which people, things and events are meant. If it is hard to tell who or what a pronoun "
    "or noun phrase points to, the text is usually less coherent than one whose references can all be "
    "resolved. The same holds for a text whose information jumps around without visible order or keeps "
    "repeating itself, compared with a well-organised one."
)
_REPETITION_DEFINITION = (
    "Repetition problems can involve whole sentences or just single pieces of information stated more "
    "than once. Example: 'The museum will reopen on 3 March. The 3 March reopening will be marked with a "
    "concert.' mentions the date twice.\n\nOnly judge unnecessary repetition; do not let other qualities, "
    "such as how good the summary is overall, affect your rating."
)
_SUMMEVAL = SUMMEVAL_DEFINITIONS


def _builtin() -> dict[str, Preset]:
    presets = [
        Preset(
            name="coherence-likert7",
            dimension="coherence",
            method="likert",
            title="Rate the coherence of summaries",
            overview="You will read {n} summaries, one at a time, and rate how coherent each one is on a "
            "scale from 1 (very poor coherence) to 7 (perfect coherence). Some summaries may be about the "
            "same or similar content. Do not compare summaries with each other; judge each one on its own.",
            definition=_COHERENCE_DEFINITION,
            question="How coherent is this summary?",
            points=7,
            labels={"1": "Very poor coherence", "7": "Perfect coherence"},
        ),
        Preset(
            name="coherence-rank",
            dimension="coherence",
            method="rank",
            title="Order summaries by coherence",
            overview="You will see {n} sets of summaries; all summaries in a set are about the same topic. "
            "Put the summaries of each set in order of coherence, the most coherent one first and the "
            "least coherent one last.",
            definition=_COHERENCE_DEFINITION,
            question="Order these summaries from most to least coherent.",
            rank_ends=("Most coherent", "Least coherent"),
        ),
        Preset(
            name="repetition-likert7",
            dimension="repetition",
            method="likert",
            title="Rate repetition in summaries",
            overview="You will read {n} summaries and rate how well each one avoids unnecessary repetition.",
            definition=_REPETITION_DEFINITION,
            question="To what extent does this summary avoid unnecessary repetition?",
            points=7,
            labels={"1": "Very badly", "7": "Very well"},
            anchors={
                "1": "the same facts are stated again and again, often in the same words",
                "4": "some statements are repeated, but not excessively",
                "7": "no unnecessary repetition at all",
            },
        ),
        Preset(
            name="repetition-rank",
            dimension="repetition",
            method="rank",
            title="Order summaries by repetition",
            overview="You will see {n} sets of summaries about the same topic. Order each set by how well "
            "the summaries avoid unnecessary repetition: the summary with the least unnecessary repetition "
            "first, the one with the most last.",
            definition=_REPETITION_DEFINITION,
            question="Order these summaries from least to most unnecessary repetition.",
            rank_ends=("Least unnecessary repetition", "Most unnecessary repetition"),
        ),
        Preset(
            name="da-coherence",
            dimension="coherence",
            method="da",
            title="How well does a text flow?",
            overview="You will read {n} texts and say how much you agree with a statement about each one by "
            "moving a slider.",
            question="The text below flows naturally from one sentence to the next.",
            labels={"0": "Strongly disagree", "100": "Strongly agree"},
        ),
        Preset(
            name="da-overlap",
            dimension="overlap",
            method="da",
            title="Compare the information in two texts",
            overview="You will read {n} pairs of texts and judge how much information they share by moving "
            "a slider.",
            question="How much of the information in text A can also be found in text B?",
            labels={"0": "0 %", "100": "100 %"},
            two_texts=True,
        ),
    ]
    for dim, definition in _SUMMEVAL.items():
        presets.append(
            Preset(
                name=f"summeval-{dim}-likert5",
                dimension=dim,
                method="likert",
                title=f"Rate the {dim} of summaries",
                overview=f"You will read {{n}} screens, each with a news article and summaries of it, and "
                f"rate the {dim} of every summary on a scale from 1 (worst) to 5 (best).",
                definition=definition,
                question=f"How would you rate the {dim} of this summary?",
                points=5,
                labels={"1": "Very poor", "5": "Very good"},
                show_source=True,
            )
        )
    for dim in ("coherence", "repetition"):
        base = next(p for p in presets if p.name == f"{dim}-rank")
        best, worst = base.rank_ends
        presets.append(
            replace(
                base,
                name=f"{dim}-bws",
                method="bws",
                title=f"Pick the best and worst summary ({dim})",
                overview=f"You will see {{n}} sets of summaries. In each set, choose the summary that is "
                f"best and the one that is worst for {dim}.",
                question="Which summary is best and which is worst?",
                best_worst_labels=(best, worst),
            )
        )
        presets.append(
            replace(
                base,
                name=f"{dim}-pairwise",
                method="pairwise",
                title=f"Compare two summaries ({dim})",
                overview=f"You will see {{n}} pairs of summaries. For each pair, say which summary is better "
                f"for {dim}.",
                question="Which summary is more coherent?"
                if dim == "coherence"
                else "Which summary avoids unnecessary repetition better?",
            )
        )
    rank = next(p for p in presets if p.name == "coherence-rank")
    presets.append(
        replace(
            rank,
            name="preference-pairwise",
            dimension="preference",
            method="pairwise",
            title="Which summary is better?",
            overview="You will see {n} pairs of summaries. For each pair, say which summary is better "
            "overall, or that they are about the same.",
            definition="",
            question="Which summary is better?",
        )
    )
    return {p.name: p for p in (*presets, *_span_presets())}


def _span_presets() -> list[Preset]:
    """The span-marking presets: MQM (severity and category) and ESA (severity, then a 0–100 score)."""
    return [
        Preset(
            name="mqm-spans",
            dimension="mqm",
            method="spans",
            title="Mark the errors in a text",
            overview="You will read {n} texts. Mark every error you find: select its words with the mouse, "
            "or move with the arrow keys and hold Shift to select; choose its severity and category, then "
            "press **Mark** (or the M key). A text without errors needs no marks.",
            definition="A **major** error misleads or confuses the reader; a **minor** error is noticeable "
            "but does not hinder understanding (MQM, Freitag et al. 2021).",
            question="Mark every error in the text below.",
            categories=MQM_CATEGORIES,
        ),
        Preset(
            name="esa-spans",
            dimension="esa",
            method="spans",
            title="Mark the errors in a text, then score it",
            overview="You will read {n} texts. Mark every error you find: select its words with the mouse, "
            "or move with the arrow keys and hold Shift to select; choose its severity, then press **Mark** "
            "(or the M key). Then score the text from 0 (nonsense) to 100 (perfect).",
            definition="A **major** error misleads or confuses the reader; a **minor** error is noticeable "
            "but does not hinder understanding (Error Span Annotation, Kocmi et al. 2024).",
            question="Mark every error in the text below, then score it.",
            categories=("error",),
            esa_score=True,
            labels={"0": "Nonsense", "100": "Perfect"},
        ),
    ]


PRESETS: dict[str, Preset] = _builtin()


def get_preset(name_or_path: str | Path | Preset, **overrides: Any) -> Preset:
    """A built-in preset by name, or a custom preset from a JSON/YAML file; ``overrides`` replace keys.

    Raises
    ------
    DesignError
        An unknown name or an unreadable or invalid preset file.

    Examples
    --------
    >>> preset = get_preset("coherence-likert7")
    >>> preset.method, preset.points
    ('likert', 7)
    >>> get_preset("coherence-likert7", title="Coherence").title
    'Coherence'
    """
    if isinstance(name_or_path, Preset):
        preset = name_or_path
    elif str(name_or_path) in PRESETS:
        preset = PRESETS[str(name_or_path)]
    else:
        path = Path(name_or_path)
        if not path.exists():
            raise DesignError(
                f"unknown preset {str(name_or_path)!r}: use one of {', '.join(sorted(PRESETS))} or the path "
                "of a JSON/YAML preset file"
            )
        preset = load_preset(path)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    return replace(preset, **overrides) if overrides else preset


def load_preset(path: str | Path) -> Preset:
    """Read a custom preset (keys of :class:`Preset`; ``name`` defaults to the file stem)."""
    path = Path(path)
    if path.is_dir():
        raise DesignError(f"{path}: is a folder; give a built-in preset name or a JSON/YAML preset file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DesignError(
            f"{path}: byte {exc.start} is not valid UTF-8; a preset is a JSON/YAML text file saved as UTF-8"
        ) from None
    if path.suffix.lower() in {".yaml", ".yml"}:
        import yaml

        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise DesignError(f"{path}: not valid YAML ({exc}); fix the preset file") from None
    else:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DesignError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise DesignError(f"{path}: a preset file must hold a mapping of keys such as overview, question")
    known = set(Preset.__dataclass_fields__)
    unknown = sorted(set(raw) - known)
    if unknown:
        raise DesignError(
            f"{path}: unknown preset key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    for key in ("method", "overview"):
        if key not in raw:
            raise DesignError(f"{path}: the preset needs a {key!r} key")
    raw.setdefault("name", path.stem)
    raw.setdefault("dimension", raw["name"])
    for key in ("labels", "anchors"):
        raw[key] = {str(k): str(v) for k, v in (raw.get(key) or {}).items()}
    for key in ("rank_ends", "best_worst_labels", "pair_labels", "questions", "categories"):
        if key in raw:
            raw[key] = tuple(raw[key])
    return Preset(**raw)
