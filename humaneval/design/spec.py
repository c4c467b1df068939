"""What a design is generated from: :class:`DesignSpec` and its validation.

All families, methods and options of docs/design.md; the seed is required so a
design never depends on hidden randomness. Texts are optional: a design can be planned from
document ids and system names alone and the texts supplied when forms are built.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, cast

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.platforms import DEFAULT_PLATFORM, PLATFORMS, get_platform
from humaneval.errors import DesignError
from humaneval.methods import ALIASES, get_method
from humaneval.methods import METHODS as REGISTRY

METHODS: tuple[str, ...] = tuple(REGISTRY)
FAMILIES: tuple[str, ...] = ("blocks", "crossed", "nested")
REMAINDERS: tuple[str, ...] = ("spread", "drop", "error")
ORDERS: tuple[str, ...] = ("random", "balanced")
CHECK_KINDS: tuple[str, ...] = ("imc", "gold", "injected")
ID_PATTERN = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
MAX_DOCUMENTS = 20_000
"""The most documents one design holds (generating 50,000 takes about 45 s); split larger studies."""
MAX_JUDGEMENTS = 500_000
"""The most judgements (documents × systems × annotators per document) one design holds."""
MAX_SCALE_POINTS = 1_001
"""The most points of a rating scale (a 0-100 slider has 101)."""


@dataclass(frozen=True)
class Document:
    """An input text; ``text`` may be omitted when planning from ids."""

    id: str
    text: str | None = None


@dataclass(frozen=True)
class Summary:
    """The output of ``system`` for ``document``."""

    document: str
    system: str
    text: str | None = None


@dataclass(frozen=True)
class BWSOptions:
    """Best–worst scaling tuples: size k, about ``factor``·N tuples per pool."""

    tuple_size: int = 4
    factor: float = 2.0
    scope: Literal["document", "block"] = "document"
    iterations: int = 200


@dataclass(frozen=True)
class PairOptions:
    """Pairwise comparisons: ``pairs="all"`` or p pairs per document."""

    pairs: Literal["all"] | int = "all"
    allow_tie: bool = True


@dataclass(frozen=True)
class DesignSpec:
    """Inputs of :func:`~humaneval.design.generate_design`.

    ``documents`` is a count (ids ``d000``, ``d001``, …), a sequence of ids, or of
    :class:`Document`. Without ``summaries`` every (document, system) pair is assumed to exist;
    ``systems`` then is required. ``family="crossed"`` puts all documents in one block,
    ``family="nested"`` forces one annotator per block. ``likert_layout="grouped"``
    shows ``group_size`` summaries of a document per screen (SummEval), with the reference in
    every group when ``anchor_in_every_group``; ``warmup_items`` practice screens built from
    ``fillers`` open every slot (likert and da).

    ``criteria`` (likert) asks several questions about every summary on one screen: names of
    built-in criteria (``"coherence"``, ``"fluency:7"``), mappings or
    :class:`~humaneval.design.criteria.Criterion` objects, each with its own question and scale.
    ``dimension`` then becomes the comma-joined names and ``scale_points`` the first criterion's
    points (the scale of the attention checks).
    """

    documents: int | Sequence[str | Document]
    seed: int
    systems: Sequence[str] | None = None
    summaries: Sequence[Summary] = ()
    reference_system: str | None = None
    method: str = "likert"
    family: Literal["blocks", "crossed", "nested"] = "blocks"
    documents_per_block: int = 5
    annotators_per_block: int = 3
    judgements_per_summary: int | None = None
    remainder: Literal["spread", "drop", "error"] = "spread"
    order: Literal["random", "balanced"] = "random"
    shuffle_documents: bool = True
    checks_per_annotator: int = 2
    check_kinds: tuple[str, ...] = ("imc",)
    scale_points: int = 7
    warmup_items: int = 0
    likert_layout: Literal["single", "grouped"] = "single"
    group_size: int = 5
    anchor_in_every_group: bool = False
    bws: BWSOptions = field(default_factory=BWSOptions)
    pairwise: PairOptions = field(default_factory=PairOptions)
    allow_missing: bool = False
    fillers: Sequence[str] = ()
    dimension: str | None = None
    show_source: bool = False
    platform: str = DEFAULT_PLATFORM
    round: int = 1
    criteria: Sequence[Any] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if isinstance(self.method, str):
            set_(self, "method", ALIASES.get(self.method, self.method))
        if self.dimension is None:  # coherence; "preference" for pairwise comparisons
            known = REGISTRY.get(self.method)
            set_(self, "dimension", known.default_dimension if known is not None else "coherence")
        set_(self, "documents", _documents(self.documents))
        set_(self, "summaries", tuple(_summary(s) for s in self.summaries))
        if self.systems is None:
            if not self.summaries:
                raise DesignError("give the system names (systems=...) or the summaries of every system")
            set_(self, "systems", tuple(sorted({s.system for s in self.summaries})))
        else:
            set_(self, "systems", tuple(str(s) for s in self.systems))
        set_(self, "check_kinds", tuple(self.check_kinds))
        set_(self, "fillers", tuple(str(t) for t in self.fillers))
        if isinstance(self.bws, dict):
            set_(self, "bws", BWSOptions(**self.bws))
        if isinstance(self.pairwise, dict):
            set_(self, "pairwise", PairOptions(**self.pairwise))
        if self.criteria:
            from humaneval.design.criteria import parse_criteria

            criteria = parse_criteria(self.criteria)
            if not (self.method in REGISTRY and REGISTRY[self.method].criteria):
                raise DesignError(
                    f"criteria (several questions per screen) apply to likert designs, not {self.method!r}; "
                    "make one design per criterion"
                )
            set_(self, "criteria", criteria)
            set_(self, "dimension", ",".join(c.name for c in criteria))
            set_(self, "scale_points", criteria[0].points)
        else:
            set_(self, "criteria", ())
        self._validate()

    @property
    def _docs(self) -> tuple[Document, ...]:
        """``documents`` as ``__post_init__`` left it."""
        return cast("tuple[Document, ...]", self.documents)

    @property
    def _systems(self) -> tuple[str, ...]:
        """``systems`` as ``__post_init__`` left it (never None after it)."""
        return cast("tuple[str, ...]", self.systems)

    @property
    def document_ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self._docs)

    def present_pairs(self) -> set[tuple[str, str]]:
        """(document, system) pairs that have a summary; all pairs when none were given."""
        if not self.summaries:
            return {(d, s) for d in self.document_ids for s in self._systems}
        return {(s.document, s.system) for s in self.summaries}

    def missing_pairs(self) -> list[tuple[str, str]]:
        present = self.present_pairs()
        return [(d, s) for d in self.document_ids for s in self._systems if (d, s) not in present]

    def effective_blocking(self) -> tuple[int, int]:
        """(documents per block, annotators per block) after applying the family."""
        if self.family == "crossed":
            return len(self._docs), self.annotators_per_block
        if self.family == "nested":
            return self.documents_per_block, 1
        return self.documents_per_block, self.annotators_per_block

    def to_dict(self) -> dict[str, Any]:
        """Canonical JSON-able form with every text replaced by its SHA-256 digest."""
        out = asdict(self)
        out["documents"] = [{"id": d.id, "text_sha256": text_digest(d.text)} for d in self._docs]
        out["summaries"] = [
            {"document": s.document, "system": s.system, "text_sha256": text_digest(s.text)}
            for s in self.summaries
        ]
        out["fillers"] = [text_digest(t) for t in self.fillers]
        out["systems"] = list(self._systems)
        out["check_kinds"] = list(self.check_kinds)
        if self.criteria:
            out["criteria"] = [c.to_dict() for c in self.criteria]
        else:
            del out["criteria"]  # designs without criteria keep their design_id
        return out

    def _validate(self) -> None:
        """Check the spec, one concern after another (the first problem found is the error raised)."""
        self._validate_choices()
        self._validate_items()
        self._validate_sizes()
        self._validate_method()
        self._validate_summaries()
        self._warn_platform()

    def _validate_choices(self) -> None:
        """The seed and every option that names one of a fixed set of choices."""
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise DesignError(
                f"seed must be a non-negative int (designs are reproducible), not {self.seed!r}"
            )
        _choice("method", self.method, METHODS)
        _choice("family", self.family, FAMILIES)
        _choice("remainder", self.remainder, REMAINDERS)
        _choice("order", self.order, ORDERS)
        _choice("platform", self.platform, tuple(PLATFORMS))
        for kind in self.check_kinds:
            _choice("check kind", kind, CHECK_KINDS)

    def _validate_items(self) -> None:
        """Unique document and system ids, no empty document text, at least one document."""
        _ids("document", self.document_ids)
        for d in self._docs:
            if d.text is not None and not d.text.strip():
                raise DesignError(f"document {d.id!r} has an empty text; give its text or leave it out")
        _ids("system", self._systems)
        if not self._docs:
            raise DesignError("the design has no documents; give a count ≥ 1 or a list of ids")

    def _validate_sizes(self) -> None:
        """Counts, the scale, the reference system, and the size of the design (blocks, judgements)."""
        for name in ("documents_per_block", "annotators_per_block", "scale_points", "round", "group_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise DesignError(f"{name} must be a whole number ≥ 1, not {value!r}")
        if isinstance(self.checks_per_annotator, bool) or self.checks_per_annotator < 0:
            raise DesignError(f"checks_per_annotator must be ≥ 0, not {self.checks_per_annotator!r}")
        if self.reference_system is not None and self.reference_system not in self._systems:
            raise DesignError(
                f"reference system {self.reference_system!r} is not among the systems {list(self._systems)}"
            )
        if len(self._systems) < 2:
            raise DesignError(
                f"systems {list(self._systems)}: a human evaluation compares systems, so it needs at "
                "least 2 systems"
            )
        if not 2 <= self.scale_points <= MAX_SCALE_POINTS:
            raise DesignError(
                f"scale_points must be from 2 to {MAX_SCALE_POINTS} (e.g. 5 or 7), not {self.scale_points}"
            )
        judgements = len(self._docs) * len(self._systems) * self.effective_blocking()[1]
        if judgements > MAX_JUDGEMENTS:
            raise DesignError(
                f"{len(self._docs)} documents × {len(self._systems)} systems × "
                f"{self.effective_blocking()[1]} annotators each = {judgements} judgements; one design holds "
                f"at most {MAX_JUDGEMENTS}: fewer annotators per block, or split the documents into rounds"
            )
        jps = self.judgements_per_summary
        if jps is not None:
            expected = 1 if self.family == "nested" else self.annotators_per_block
            if jps != expected:
                raise DesignError(
                    f"judgements_per_summary={jps} differs from annotators per block ({expected}); "
                    "every annotator of a block judges every summary of it, so set them equal"
                )
        if self.family == "blocks" and self.documents_per_block > len(self._docs):
            raise DesignError(
                f"documents_per_block={self.documents_per_block} exceeds the {len(self._docs)} "
                f"documents; use at most {len(self._docs)} or family='crossed'"
            )

    def _validate_method(self) -> None:
        """What the annotation method allows: BWS tuples, pairs, gold checks, order, layout, warm-up."""
        method = get_method(self.method)
        if method.unit == "tuple":
            k, n = self.bws.tuple_size, self._bws_pool_size()
            if not 2 <= k < n:
                raise DesignError(
                    f"BWS tuple_size={k} must satisfy 2 ≤ tuple_size < N = {n} items per pool; "
                    "use a smaller tuple or scope='block'"
                )
            if self.bws.factor <= 0 or self.bws.iterations < 1:
                raise DesignError("BWS factor must be > 0 and iterations ≥ 1")
        if method.unit == "pair":
            p = self.pairwise.pairs
            n_pairs = len(self._systems) * (len(self._systems) - 1) // 2
            if p != "all" and (isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= n_pairs):
                raise DesignError(
                    f"pairs must be 'all' or a number of pairs per document in 1..{n_pairs}, not {p!r}"
                )
        if self.checks_per_annotator and ("injected" in self.check_kinds) != method.marks_spans:
            raise DesignError(
                "span studies check attention with injected errors in real items (--check-kind injected; "
                "docs/spans.md), not with instructed or gold screens"
                if method.marks_spans
                else f"injected-error checks are for span marking (docs/spans.md), not {self.method}"
            )
        texts = bool(self.summaries) and all(s.text and s.text.strip() for s in self.summaries)
        injected = "injected" in self.check_kinds and self.checks_per_annotator
        if injected and (len(self.check_kinds) > 1 or not texts):
            raise DesignError(
                "injected-error checks insert an error into a text of the study: give the summaries with "
                "their texts (--summaries) and the check kind injected alone"
            )
        if "gold" in self.check_kinds and self.checks_per_annotator:
            if not method.gold_checks:
                raise DesignError(f"gold checks exist for likert and da, not {self.method!r}; use 'imc'")
            if len(self.fillers) < 2:
                raise DesignError("gold checks are built from filler texts: give at least 2 fillers")
        grouped = self.likert_layout == "grouped"
        if self.order == "balanced" and (not method.rates_items or grouped):
            raise DesignError("order='balanced' applies to likert and da items in the single layout")
        _choice("likert_layout", self.likert_layout, ("single", "grouped"))
        if grouped and not method.criteria:
            raise DesignError(f"likert_layout='grouped' applies to likert, not {self.method!r}")
        if grouped and self.anchor_in_every_group and (self.reference_system is None or self.group_size < 2):
            raise DesignError("anchor_in_every_group needs a reference_system and group_size ≥ 2")
        if isinstance(self.warmup_items, bool) or self.warmup_items < 0:
            raise DesignError(f"warmup_items must be ≥ 0, not {self.warmup_items!r}")
        if self.warmup_items and (not method.rates_items or grouped):
            raise DesignError("warm-up screens exist for likert and da items in the single layout")
        if self.warmup_items and not self.fillers:
            raise DesignError("warm-up screens are built from filler texts: give fillers")

    def _warn_platform(self) -> None:
        """A design that runs but that the platform's rules make pointless to run as it is."""
        platform = get_platform(self.platform)
        if self.checks_per_annotator < (platform.checks_for_rejection or 0):
            warnings.warn(
                f"{platform.title} allows rejecting a submission only after {platform.checks_for_rejection} "
                "failed attention checks; "
                f"with checks_per_annotator={self.checks_per_annotator} no submission could be rejected",
                UserWarning,
                stacklevel=caller_stacklevel(),
            )

    def _bws_pool_size(self) -> int:
        if self.bws.scope == "block":
            return self.effective_blocking()[0] * len(self._systems)
        return len(self._systems)

    def _validate_summaries(self) -> None:
        if not self.summaries:
            return
        docs, systems, seen = set(self.document_ids), set(self._systems), set()
        for s in self.summaries:
            key = (s.document, s.system)
            if s.document not in docs:
                raise DesignError(f"summary of unknown document {s.document!r}; add it to the documents")
            if s.system not in systems:
                raise DesignError(f"summary of unknown system {s.system!r}; add it to the systems")
            if key in seen:
                raise DesignError(f"two summaries for document {s.document!r}, system {s.system!r}; keep one")
            if s.text is not None and not s.text.strip():
                raise DesignError(
                    f"summary of document {s.document!r}, system {s.system!r} has an empty text"
                )
            seen.add(key)
        missing = self.missing_pairs()
        if missing and not self.allow_missing:
            doc, system = missing[0]
            raise DesignError(
                f"{len(missing)} (document, system) pairs have no summary, e.g. ({doc!r}, {system!r}); "
                "supply them or pass allow_missing=True to skip them"
            )


def text_digest(text: str | None) -> str | None:
    """SHA-256 hex digest of a UTF-8 text (``None`` for an absent text)."""
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def design_id(spec: DesignSpec | dict[str, Any]) -> str:
    """First 16 hex digits of SHA-256 over the canonical spec JSON (texts as digests, docs/design.md)."""
    data = spec.to_dict() if isinstance(spec, DesignSpec) else spec
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()[:16]


def _documents(documents: int | Sequence[str | Document]) -> tuple[Document, ...]:
    if isinstance(documents, bool):
        raise DesignError("documents must be a count or a list of ids")
    if isinstance(documents, int):
        if documents < 1:
            raise DesignError(f"documents must be at least 1, not {documents}")
        _at_most_max_documents(documents)
        width = max(3, len(str(documents - 1)))
        return tuple(Document(f"d{i:0{width}d}") for i in range(documents))
    if isinstance(documents, str):
        raise DesignError("documents must be a count or a list of ids, not a single string")
    out = []
    for d in documents:
        if isinstance(d, Document):
            out.append(d)
        elif isinstance(d, dict):
            out.append(Document(str(d["id"]), d.get("text")))
        else:
            out.append(Document(str(d)))
    _at_most_max_documents(len(out))
    return tuple(out)


def _at_most_max_documents(n: int) -> None:
    if n > MAX_DOCUMENTS:
        raise DesignError(
            f"{n} documents: one design holds at most {MAX_DOCUMENTS}; split the documents into "
            "several designs (rounds)"
        )


def _summary(s: Summary | dict | Sequence) -> Summary:
    if isinstance(s, Summary):
        return s
    if isinstance(s, dict):
        return Summary(str(s["document"]), str(s["system"]), s.get("text"))
    return Summary(*s)


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise DesignError(f"{name} {value!r} is unknown; choose one of {', '.join(allowed)}")


def _ids(kind: str, ids: Sequence[str]) -> None:
    seen: set[str] = set()
    for value in ids:
        if not ID_PATTERN.fullmatch(value):
            raise DesignError(
                f"{kind} id {value!r} is empty or has characters outside [A-Za-z0-9_.:-] (max 128); rename it"
            )
        if value in seen:
            raise DesignError(f"{kind} id {value!r} occurs twice; {kind} ids must be unique")
        seen.add(value)
