"""The design generator: :func:`generate_design` (docs/design.md, "Method notes").

Documents are shuffled and cut into blocks; each block gets its screens (one per
item for likert/da, one per document for rank, one per tuple for bws, one per pair for pairwise);
each annotator slot of the block sees them in its own order with attention checks at random
positions, never first and never adjacent. Every random choice has its own stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from humaneval.design.blocks import cut_blocks
from humaneval.design.bws import bws_balance, bws_tuples
from humaneval.design.order import balanced_item_order, check_positions, interleave, latin_row
from humaneval.design.pairwise import pair_balance, pair_schedule
from humaneval.design.plan import Design, DesignTexts
from humaneval.design.rng import stream
from humaneval.design.spec import DesignSpec, Document, design_id
from humaneval.design.table import (
    BOOL_COLUMNS,
    DESIGN_COLUMNS,
    STR_COLUMNS,
    normalise_table,
    screen_name,
    slot_name,
)
from humaneval.errors import DesignError
from humaneval.methods import get_method
from humaneval.methods.base import Method

_DEFAULTS: dict[str, Any] = {c: "" for c in STR_COLUMNS} | {c: False for c in BOOL_COLUMNS}


@dataclass
class _Screen:
    entries: list[dict[str, Any]]
    check_id: int | None = None
    key: tuple[str, str] | None = None


@dataclass
class _Builder:
    spec: DesignSpec
    doc_index: dict[str, int] = field(init=False)
    sys_index: dict[str, int] = field(init=False)
    present: set[tuple[str, str]] = field(init=False)
    checks: list[dict[str, Any]] = field(default_factory=list)
    warmups: list[dict[str, Any]] = field(default_factory=list)
    bws_stats: list[Any] = field(default_factory=list)
    pairs: list[tuple[str, str, str]] = field(default_factory=list)
    n_tuples: int = 0
    method: Method = field(init=False)
    injected: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.method = get_method(self.spec.method)
        self.doc_index = {d: i for i, d in enumerate(self.spec.document_ids)}
        self.sys_index = {s: j for j, s in enumerate(_systems(self.spec))}
        self.present = self.spec.present_pairs()

    def systems_of(self, document: str) -> list[str]:
        return [s for s in _systems(self.spec) if (document, s) in self.present]

    def entry(self, document: str, system: str, **extra: Any) -> dict[str, Any]:
        out = {"document": document, "system": system, "is_reference": system == self.spec.reference_system}
        prefix = self.method.field_prefix
        if prefix:
            out["field"] = f"{prefix}d{self.doc_index[document]}_s{self.sys_index[system]}"
        return {**out, **extra}

    # -- screens of one block ------------------------------------------------------

    def block_screens(self, block: int, docs: list[str], pair_ids: dict[str, list[tuple]]) -> list[_Screen]:
        unit = self.method.unit
        if unit == "item":
            return [_Screen([self.entry(d, s)], key=(d, s)) for d in docs for s in self.systems_of(d)]
        if unit == "document":
            return [_Screen([self.entry(d, s) for s in self.systems_of(d)]) for d in docs]
        if unit == "pair":
            return [
                _Screen(
                    [
                        self.entry(d, left, pair_id=pid, opponent=right, field=f"pw_{pid}"),
                        self.entry(d, right, pair_id=pid, opponent=left, field=f"pw_{pid}"),
                    ]
                )
                for d in docs
                for pid, left, right in pair_ids[d]
            ]
        return self.bws_screens(block, docs)

    def bws_screens(self, block: int, docs: list[str]) -> list[_Screen]:
        options = self.spec.bws
        if options.scope == "block":
            pools = [[(d, s) for d in docs for s in self.systems_of(d)]]
        else:
            pools = [[(d, s) for s in self.systems_of(d)] for d in docs]
        screens = []
        for k, pool in enumerate(pools):
            if not 2 <= options.tuple_size < len(pool):
                raise DesignError(
                    f"BWS tuple_size={options.tuple_size} needs more than {len(pool)} items in the pool of "
                    f"block {block}; use smaller tuples"
                )
            tuples = bws_tuples(
                len(pool),
                options.tuple_size,
                options.factor,
                iterations=options.iterations,
                rng=stream(self.spec.seed, "tuples", block, k),
            )
            self.bws_stats.append(bws_balance(tuples, len(pool)))
            for members in tuples:
                tid = f"t{self.n_tuples}"
                self.n_tuples += 1
                items = [pool[m] for m in members]
                screens.append(
                    _Screen(
                        [
                            self.entry(d, s, tuple_id=tid, field=f"bw_{tid}", opponent=_others(items, (d, s)))
                            for d, s in items
                        ]
                    )
                )
        return screens

    # -- one slot: order and checks ------------------------------------------

    def slot_screens(
        self,
        real: list[_Screen],
        docs: list[str],
        rng: np.random.Generator,
        slot: int,
        symbols: np.ndarray | None,
    ) -> list[_Screen]:
        spec = self.spec
        if spec.likert_layout == "grouped":
            return self.grouped_screens(docs, rng)
        if spec.order == "balanced":
            by_key = {s.key: s for s in real}
            systems = _systems(spec)
            ordered = [
                by_key[(docs[i], systems[j])]
                for i, j in balanced_item_order(len(docs), len(systems), rng)
                if (docs[i], systems[j]) in by_key
            ]
        else:
            ordered = [real[i] for i in rng.permutation(len(real))]
        screens = []
        for j, screen in enumerate(ordered):
            entries = [dict(e) for e in screen.entries]
            if self.method.entry_order == "latin":
                by_system = {e["system"]: e for e in entries}
                assert symbols is not None  # drawn for every latin-order block
                systems = _systems(spec)
                names = [systems[symbols[m]] for m in latin_row(j, slot, len(systems))]
                entries = [by_system[n] for n in names if n in by_system]
            elif self.method.entry_order == "shuffled":
                entries = [entries[i] for i in rng.permutation(len(entries))]
            screens.append(_Screen(entries))
        return screens

    def grouped_screens(self, docs: list[str], rng: np.random.Generator) -> list[_Screen]:
        """SummEval layout: groups of ``group_size`` summaries of one document, drawn
        per slot; with anchors every group holds the reference and its later showings are
        ``is_anchor_repeat`` with the field suffix ``_r{n}``."""
        spec = self.spec
        groups = []
        for d in docs:
            systems = self.systems_of(d)
            anchor = (
                spec.reference_system
                if spec.anchor_in_every_group and spec.reference_system in systems
                else None
            )
            others = [systems[i] for i in rng.permutation(len(systems)) if systems[i] != anchor]
            size = spec.group_size - (anchor is not None)
            chunks = [others[i : i + size] for i in range(0, len(others), size)] or [[]]
            groups += [(d, [anchor, *chunk] if anchor else chunk) for chunk in chunks]
        shown: dict[str, int] = {}
        screens = []
        for g in rng.permutation(len(groups)):
            d, members = groups[g]
            entries = []
            for s in (members[i] for i in rng.permutation(len(members))):
                entry = self.entry(d, s)
                if s == spec.reference_system and spec.anchor_in_every_group:
                    repeat = shown.get(d, 0)
                    shown[d] = repeat + 1
                    if repeat:
                        entry.update(is_anchor_repeat=True, field=f"{entry['field']}_r{repeat}")
                entries.append(entry)
            screens.append(_Screen(entries))
        return screens

    def add_warmups(self, screens: list[_Screen], rng: np.random.Generator) -> list[_Screen]:
        """``warmup_items`` practice screens from filler texts before everything else."""
        n = self.spec.warmup_items
        fillers = rng.choice(len(self.spec.fillers), n, replace=n > len(self.spec.fillers))
        self.warmups += [{"position": i, "filler": f"f{f}"} for i, f in enumerate(fillers)]
        warmups = [
            _Screen([{"document": "", "system": "", "is_warmup": True, "field": f"wu_{i}"}]) for i in range(n)
        ]
        return warmups + screens

    def add_checks(
        self, screens: list[_Screen], block_items: list[tuple[str, str]], rng: np.random.Generator
    ) -> list[_Screen]:
        spec = self.spec
        n_checks = spec.checks_per_annotator
        if self.method.check_placement == "embedded":
            for position in check_positions(len(screens), n_checks, rng, what="ranking screens"):
                screen = screens[position]
                expected = str(len(screen.entries) + 1)
                entry = self.check_entry("imc", expected, rng)
                for e in screen.entries:
                    e["screen_has_check"] = True
                screen.entries.insert(int(rng.integers(len(screen.entries) + 1)), entry)
                screen.check_id = len(self.checks) - 1
            return screens
        at = check_positions(len(screens) + n_checks, n_checks, rng, what="screens")
        checks = [
            self.check_screen(spec.check_kinds[i % len(spec.check_kinds)], block_items, rng)
            for i in range(n_checks)
        ]
        return interleave(screens, checks, at)

    def check_screen(
        self, kind: str, block_items: list[tuple[str, str]], rng: np.random.Generator
    ) -> _Screen:
        """A stand-alone check screen: an instruction in place of the summary
        (likert/da), or an extra tuple/pair in which one entry asks to be chosen (bws/pairwise)
        among real summaries that are flagged ``is_check`` and never analysed."""
        method = self.method
        if kind == "injected":
            return self.injected_check(block_items, rng)
        if method.check_placement == "screen":
            if kind == "gold":
                expected = "low" if rng.random() < 0.5 else "high"
            else:
                expected = method.draw_check_expected(rng, points=self.spec.scale_points, side="")
            return _Screen([self.check_entry(kind, expected, rng)], check_id=len(self.checks) - 1)
        tuples = method.unit == "tuple"
        if tuples and self.spec.bws.scope == "document":
            # like the real tuples, a check tuple shows summaries of one document
            documents = sorted({d for d, _ in block_items})
            chosen = documents[int(rng.integers(len(documents)))]
            block_items = [item for item in block_items if item[0] == chosen]
        n_others = min(self.spec.bws.tuple_size - 1 if tuples else 1, len(block_items))
        picks = rng.choice(len(block_items), n_others, replace=False)
        at = int(rng.integers(n_others + 1))
        side = "A" if at == 0 else "B"
        expected = method.draw_check_expected(rng, points=self.spec.scale_points, side=side)
        entry = self.check_entry(kind, expected, rng)
        entries = [
            self.entry(*block_items[p], is_check=True, check_kind=kind, field=entry["field"]) for p in picks
        ]
        entries.insert(at, entry)
        return _Screen(entries, check_id=len(self.checks) - 1)

    def injected_check(self, block_items: list[tuple[str, str]], rng: np.random.Generator) -> _Screen:
        """A check screen showing a text of the block with a known error inserted (span methods,
        docs/spans.md); the text is kept with the fillers (``inj{id}`` in texts.json)."""
        texts = {(s.document, s.system): s.text for s in self.spec.summaries if s.text}
        candidates = [item for item in block_items if texts.get(item)]
        document, system = candidates[int(rng.integers(len(candidates)))]
        text, start, end = self.method.inject_error(texts[(document, system)], rng)
        c = len(self.checks)
        expected = f"{start}-{end}"
        self.injected[f"inj{c}"] = text
        self.checks.append(
            {"id": c, "kind": "injected", "expected": expected, "fillers": [f"inj{c}"],
             "document": document, "system": system}
        )  # fmt: skip
        entry = {"document": "", "system": "", "is_check": True, "check_kind": "injected"}
        return _Screen([{**entry, "check_expected": expected, "field": f"ck_{c}"}], check_id=c)

    def check_entry(self, kind: str, expected: str, rng: np.random.Generator) -> dict[str, Any]:
        c = len(self.checks)
        definition = {"id": c, "kind": kind, "expected": expected, "fillers": []}
        if kind == "gold":
            fillers = rng.choice(len(self.spec.fillers), 2, replace=False)
            pair = [int(fillers[0]), int(fillers[1] if expected == "low" else fillers[0])]
            definition["fillers"] = [f"f{i}" for i in pair]
        else:
            definition["instruction"] = self.method.imc_instruction(expected)
        self.checks.append(definition)
        return {
            "document": "",
            "system": "",
            "is_check": True,
            "check_kind": kind,
            "check_expected": expected,
            "field": f"ck_{c}",
        }


def _others(items: list[tuple[str, str]], me: tuple[str, str]) -> str:
    if len({d for d, _ in items}) == 1:
        return ";".join(s for d, s in items if (d, s) != me)
    return ";".join(f"{d}|{s}" for d, s in items if (d, s) != me)


def generate_design(spec: DesignSpec) -> Design:
    """Generate the planned design of ``spec`` (docs/design.md).

    Deterministic: the same spec (including ``seed``) gives the same table, manifest and
    ``design_id`` on every platform.

    Parameters
    ----------
    spec : DesignSpec
        Documents, systems, method (``likert``, ``da``, ``rank``, ``bws``, ``pairwise``), block
        sizes, attention checks, ordering and the seed.

    Returns
    -------
    Design
        ``table`` (one row per screen entry: ``annotator_slot, block, position, document,
        system, is_check, …``), the check and warm-up definitions, ``design_id`` and
        ``summary()`` (counts, cost estimate and warnings about power).

    Raises
    ------
    DesignError
        An impossible spec (too few documents for a block, an unknown method or check kind, …).

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    Ten documents in blocks of 5, each block rated by 3 annotators, one attention check each:

    >>> from humaneval.design import DesignSpec
    >>> design = generate_design(DesignSpec(documents=10, systems=["A", "B", "C"], seed=1,
    ...                                     documents_per_block=5, annotators_per_block=3,
    ...                                     checks_per_annotator=1, platform="mturk"))
    >>> design.design_id, design.table.shape, int(design.table["is_check"].sum())
    ('ba4075bf878a7807', (96, 22), 6)
    >>> summary = design.summary()
    >>> summary.blocks, summary.annotators, summary.analysed_judgements
    (2, 6, 90)
    """
    from humaneval import __version__

    docs_per_block, annotators = spec.effective_blocking()
    ids = _document_order(spec, docs_per_block)
    blocks, dropped = cut_blocks(ids, docs_per_block, spec.remainder)
    builder = _Builder(spec)
    pair_ids = _schedule_pairs(spec, builder, blocks, ids)
    constant: dict[str, Any] = {
        "design_id": design_id(spec),
        "method": spec.method,
        "dimension": spec.dimension,
        "round": spec.round,
    }
    rows = [
        row
        for b, docs in enumerate(blocks)
        for row in _block_rows(spec, builder, b, docs, annotators, pair_ids, constant)
    ]
    table = normalise_table(pd.DataFrame.from_records(rows, columns=list(DESIGN_COLUMNS)))
    kept = set(ids) - set(dropped)
    return Design(
        design_id=constant["design_id"],
        spec=spec.to_dict(),
        systems=_systems(spec),
        reference_system=spec.reference_system,
        documents=spec.document_ids,
        blocks=tuple(tuple(docs) for docs in blocks),
        dropped_documents=tuple(dropped),
        skipped_pairs=tuple(p for p in spec.missing_pairs() if p[0] in kept),
        table=table,
        checks=tuple(builder.checks),
        warmups=tuple(builder.warmups),
        balance=_balance(spec, builder, table),
        package_version=__version__,
        texts=_texts(spec, builder.injected),
    )


def _document_order(spec: DesignSpec, docs_per_block: int) -> list[str]:
    """The documents in the order they are cut into blocks: shuffled, or with the remainder that
    ``remainder="drop"`` leaves out drawn at random and moved to the end."""
    ids = list(spec.document_ids)
    rng = stream(spec.seed, "documents")
    if spec.shuffle_documents:
        return [ids[i] for i in rng.permutation(len(ids))]
    if spec.remainder == "drop" and len(ids) % docs_per_block:
        drop = set(rng.choice(len(ids), len(ids) % docs_per_block, replace=False).tolist())
        return [d for i, d in enumerate(ids) if i not in drop] + [d for i, d in enumerate(ids) if i in drop]
    return ids


def _schedule_pairs(
    spec: DesignSpec, builder: _Builder, blocks: list[list[str]], ids: list[str]
) -> dict[str, list[tuple[str, str, str]]]:
    """Per document its pairwise comparisons ``(pair_id, left, right)`` (empty unless the method
    compares pairs); only pairs whose two summaries exist, recorded in ``builder.pairs`` too."""
    pair_ids: dict[str, list[tuple[str, str, str]]] = {d: [] for d in ids}
    if builder.method.unit != "pair":
        return pair_ids
    in_order = [d for docs in blocks for d in docs]
    for n, (d, left, right) in enumerate(
        c
        for c in pair_schedule(in_order, _systems(spec), spec.pairwise.pairs)
        if (c[0], c[1]) in builder.present and (c[0], c[2]) in builder.present
    ):
        pair_ids[d].append((f"p{n}", left, right))
        builder.pairs.append((d, left, right))
    return pair_ids


def _block_rows(
    spec: DesignSpec,
    builder: _Builder,
    b: int,
    docs: list[str],
    annotators: int,
    pair_ids: dict[str, list[tuple[str, str, str]]],
    constant: dict[str, Any],
) -> list[dict[str, Any]]:
    """The table rows of block ``b``: each annotator slot's screens with its checks and warm-ups."""
    real = builder.block_screens(b, docs, pair_ids)
    items = [(d, s) for d in docs for s in builder.systems_of(d)]
    symbols = (
        stream(spec.seed, "block", b).permutation(len(_systems(spec)))
        if builder.method.entry_order == "latin"
        else None
    )
    rows = []
    for k in range(1, annotators + 1):
        slot_rng = stream(spec.seed, "slot", b, k)
        screens = builder.slot_screens(real, docs, slot_rng, k - 1, symbols)
        screens = builder.add_checks(screens, items, slot_rng)
        first_warmup = len(builder.warmups)
        if spec.warmup_items:
            screens = builder.add_warmups(screens, slot_rng)
        slot = slot_name(b, k)
        for warmup in builder.warmups[first_warmup:]:
            warmup["slot"] = slot
        for position, screen in enumerate(screens):
            for display_pos, entry in enumerate(screen.entries):
                rows.append(
                    {
                        **_DEFAULTS,
                        **constant,
                        "annotator_slot": slot,
                        "block": b,
                        "position": position,
                        "screen_id": screen_name(position),
                        "display_pos": display_pos,
                        **entry,
                    }
                )
            if screen.check_id is not None:
                builder.checks[screen.check_id].update(
                    slot=slot,
                    block=b,
                    position=position,
                    screen_id=screen_name(position),
                    embedded=builder.method.check_placement == "embedded",
                )
    return rows


def _balance(spec: DesignSpec, builder: _Builder, table: pd.DataFrame) -> dict[str, Any]:
    unit = builder.method.unit
    if unit == "tuple":
        stats = builder.bws_stats
        return {
            builder.method.name: {
                "pools": len(stats),
                "n_tuples": sum(s.n_tuples for s in stats),
                "tuples_per_pool_min": min(s.n_tuples for s in stats),
                "tuples_per_pool_max": max(s.n_tuples for s in stats),
                "appearances_min": min(s.appearances_min for s in stats),
                "appearances_max": max(s.appearances_max for s in stats),
                "pair_min": min(s.pair_min for s in stats),
                "pair_mean": float(np.mean([s.pair_mean for s in stats])),
                "pair_max": max(s.pair_max for s in stats),
                "never_together": sum(s.never_together for s in stats),
            }
        }
    if unit == "pair":
        return {builder.method.name: pair_balance(builder.pairs, _systems(spec)).to_dict()}
    if unit == "document":
        # order among the real summaries of a screen: an embedded check shifts the entries below it
        real = table[~table["is_check"]]
        real = real.assign(rank_pos=real.groupby(["annotator_slot", "position"]).cumcount())
        counts = real.groupby(["annotator_slot", "system", "rank_pos"]).size()
        cells = counts.unstack(["system", "rank_pos"], fill_value=0)
        return {
            "rank_positions": {
                "per_slot_cell_min": int(cells.min(axis=None)),
                "per_slot_cell_max": int(cells.max(axis=None)),
            }
        }
    return {}


def _texts(spec: DesignSpec, injected: dict[str, str]) -> DesignTexts | None:
    texts = DesignTexts(
        documents={d.id: d.text for d in _documents(spec) if d.text is not None},
        summaries={f"{s.document}|{s.system}": s.text for s in spec.summaries if s.text is not None},
        fillers={**{f"f{i}": t for i, t in enumerate(spec.fillers)}, **injected},
    )
    return None if texts.is_empty() else texts


def _systems(spec: DesignSpec) -> tuple[str, ...]:
    """``spec.systems`` as ``DesignSpec.__post_init__`` left them: a tuple, never None."""
    assert isinstance(spec.systems, tuple)
    return spec.systems


def _documents(spec: DesignSpec) -> tuple[Document, ...]:
    """``spec.documents`` as ``DesignSpec.__post_init__`` left them: a tuple of documents."""
    assert isinstance(spec.documents, tuple)
    return spec.documents
