"""From the long design table to the screens a form shows, and the answer field of every cell.

Field names follow docs/forms.md: ``lk_q0_d{i}_s{j}[_r{n}]`` (Likert),
``da_q0_d{i}_s{j}`` (slider), ``rk_d{i}_s{j}`` / ``rkraw_d{i}_s{j}`` (ranking),
``bw_t{t}_best|_worst`` (best–worst, value = entry code ``s{j}`` or ``c{c}``), ``pw_p{p}``
(pairwise: ``A``/``B``/``tie``) and ``ck_{c}`` (attention checks); ``i``/``j`` index the
documents and systems in the manifest order of a ``Design`` (sorted ids for a bare table). A
``field`` the design generator already filled in is kept; empty ones are derived here, so
hand-made design tables work too. The same functions serve the form builder and the results
parser, so the two cannot disagree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.design.load import DesignLike, load_design
from humaneval.design.plan import Design
from humaneval.design.table import normalise_table, read_design_csv
from humaneval.errors import DesignError
from humaneval.forms.presets import Preset
from humaneval.forms.texts import Texts
from humaneval.methods import get_method

Order = tuple[tuple[str, ...], tuple[str, ...]]
"""(documents, systems) in the order the field indices ``d{i}``/``s{j}`` count them."""


def design_frame(design: DesignLike) -> pd.DataFrame:
    """The canonical design table, with every answer field, of a ``Design``, a table or a ``design.csv``.

    The design is checked by :func:`~humaneval.design.load_design`; a path is read as the bare
    CSV (fields index the sorted ids), a ``Design`` in its manifest order.
    """
    loaded = load_design(read_design_csv(design) if isinstance(design, str | Path) else design)
    frame = normalise_table(loaded.table) if isinstance(loaded, Design) else loaded
    return with_fields(frame, design_order(design))


def design_order(design: Any) -> Order | None:
    """(documents, systems) in the manifest order of a ``Design``; ``None`` for a bare table or path."""
    if hasattr(design, "documents") and hasattr(design, "systems"):
        return tuple(design.documents), tuple(design.systems)
    return None


def with_fields(frame: pd.DataFrame, order: Order | None = None) -> pd.DataFrame:
    """Fill every empty ``field`` with its docs/forms.md name (see module docstring).

    Stand-alone check entries get ``ck_{c}`` (c counts checks in slot/position order); the real
    summaries padding a BWS or pairwise check screen share their screen's check field. ``order``
    is the design's :func:`design_order` (``None``: the sorted ids).
    """
    frame = frame.sort_values(["annotator_slot", "position", "display_pos"], kind="stable").reset_index(
        drop=True
    )
    docs, systems = index_maps(frame, order)
    method = get_method(frame["method"].iloc[0])
    prefix = method.field_prefix
    fields = frame["field"].tolist()
    repeats: dict[tuple[str, str, str], int] = {}
    screen_check: dict[tuple[str, int], str] = {}
    for k, row in enumerate(frame.itertuples(index=False)):
        if row.is_check and not row.system:
            fields[k] = fields[k] or f"ck_{len(screen_check)}"
            screen_check[(row.annotator_slot, row.position)] = fields[k]
    for k, row in enumerate(frame.itertuples(index=False)):
        if fields[k]:
            continue
        if row.is_warmup and not row.system:
            fields[k] = f"wu_{row.position}"
        elif row.is_check:
            fields[k] = screen_check.get((row.annotator_slot, row.position), "")
        elif method.screen_key:
            fields[k] = f"{method.screen_field_prefix}{getattr(row, method.screen_key)}"
        else:
            key = (row.annotator_slot, row.document, row.system)
            repeats[key] = repeats.get(key, -1) + 1
            suffix = f"_r{repeats[key]}" if row.is_anchor_repeat and repeats[key] else ""
            fields[k] = f"{prefix}d{docs[row.document]}_s{systems[row.system]}{suffix}"
    frame["field"] = fields
    return frame


def entry_code(row: Any, systems: dict[str, int], docs: dict[str, int], mixed_documents: bool) -> str:
    """The value a BWS choice stores for an entry: ``s{j}``, ``d{i}_s{j}`` (mixed pools) or ``c{c}``."""
    if not row.system:
        return "c" + row.field[3:]
    code = f"s{systems[row.system]}"
    return f"d{docs[row.document]}_{code}" if mixed_documents else code


def index_maps(frame: pd.DataFrame, order: Order | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """(document → i, system → j): ``order`` (a ``Design``'s :func:`design_order`), else the sorted ids."""
    documents, systems = order or (
        sorted(set(frame["document"]) - {""}),
        sorted(set(frame["system"]) - {""}),
    )
    return {d: i for i, d in enumerate(documents)}, {s: j for j, s in enumerate(systems)}


def check_text(method: str, expected: str, preset: Preset, n_entries: int = 1) -> str:
    """The instruction an attention-check entry shows in place of a summary (the method's
    :meth:`~humaneval.methods.Method.check_text`)."""
    return get_method(method).check_text(
        expected, best_worst_labels=preset.best_worst_labels, n_entries=n_entries
    )


def block_payloads(
    frame: pd.DataFrame,
    texts: Texts,
    preset: Preset,
    *,
    per_slot: bool = False,
    checks: dict[str, dict[str, Any]] | None = None,
    warmups: dict[tuple[str, int], str] | None = None,
    extra: dict[str, Any] | None = None,
    order: Order | None = None,
) -> dict[str, dict[str, Any]]:
    """One JSON-able form payload per block (or per slot with ``per_slot``), keyed by block/slot id.

    A payload holds the preset, the texts it needs (keyed ``sum:doc|sys``, ``doc:doc``,
    ``chk:field``), and for each slot its ordered screens with their entries and fields.
    ``order`` is the design's :func:`design_order` (``None``: the sorted ids).
    """
    method = frame["method"].iloc[0]
    texts.require(frame, sources=preset.show_source)
    docs, systems = index_maps(frame, order)
    design_id = frame["design_id"].iloc[0]
    payloads: dict[str, dict[str, Any]] = {}
    group_key = "annotator_slot" if per_slot else "block"
    for key, part in frame.groupby(group_key, sort=True):
        name = str(key) if per_slot else f"b{int(key):03d}"
        store: dict[str, str] = {}
        slots = []
        for slot, rows in part.groupby("annotator_slot", sort=True):
            screens = [
                _screen(method, screen_rows, texts, preset, store, docs, systems, checks or {}, warmups or {})
                for _, screen_rows in rows.groupby("position", sort=True)
            ]
            slots.append({"slot": slot, "screens": screens})
        payloads[name] = {
            "design_id": design_id,
            "form_version": 1,
            "block": int(part["block"].iloc[0]),
            "method": method,
            "dimension": preset.dimension,
            "preset": preset.to_dict(),
            "texts": store,
            "slots": slots,
            **(extra or {}),
        }
    return payloads


def _screen(
    method: str,
    rows: pd.DataFrame,
    texts: Texts,
    preset: Preset,
    store: dict[str, str],
    docs: dict[str, int],
    systems: dict[str, int],
    checks: dict[str, dict[str, Any]],
    warmups: dict[tuple[str, int], str],
) -> dict[str, Any]:
    kind = get_method(method)
    rows = rows.sort_values("display_pos", kind="stable")
    real_docs = sorted(set(rows["document"]) - {""})
    entries = []
    for row in rows.itertuples(index=False):
        entry: dict[str, Any] = {"field": row.field}
        if row.is_warmup and not row.system:
            key = f"wu:{row.annotator_slot}:{row.field}"
            filler = warmups.get((row.annotator_slot, int(row.position)))
            if filler is None or filler not in texts.fillers:
                raise DesignError(
                    f"warm-up screen {row.screen_id} of slot {row.annotator_slot} needs its filler text "
                    f"{filler!r}; pass the Design with its texts.json fillers"
                )
            store[key] = texts.fillers[filler]
        elif row.is_check and not row.system:
            key = f"chk:{row.field}"
            if row.check_kind in ("gold", "injected"):  # texts of the design's fillers
                fillers = list(checks.get(row.field, {}).get("fillers", []))
                missing = [f for f in fillers if f not in texts.fillers]
                if not fillers or missing:
                    raise DesignError(
                        f"{row.check_kind} check {row.field} of slot {row.annotator_slot} needs its texts "
                        f"{missing or '(none defined)'}; pass the Design with its texts.json fillers"
                    )
                store[key] = texts.fillers[fillers[0]]
                if len(fillers) > 1:
                    store[f"{key}:b"] = texts.fillers[fillers[1]]
                    entry["text2"] = f"{key}:b"
            else:
                store[key] = check_text(method, row.check_expected, preset, len(rows))
            entry["check"] = True
        else:
            key = f"sum:{row.document}|{row.system}"
            store[key] = texts.summary(row.document, row.system)
        entry["text"] = key
        if kind.marks_spans:  # the server checks that spans end inside the text (in code points)
            entry["length"] = len(store[key])
        if kind.raw_field_prefix and preset.allow_ties and not entry.get("check"):
            entry["raw_field"] = row.field.replace(kind.field_prefix, kind.raw_field_prefix, 1)
        if kind.entry_codes:
            entry["code"] = entry_code(row, systems, docs, len(real_docs) > 1)
        entries.append(entry)
    first = rows.iloc[0]
    screen: dict[str, Any] = {"id": first["screen_id"], "entries": entries}
    if kind.screen_field_prefix:
        screen["field"] = _screen_field(kind.screen_field_prefix, rows)
    if preset.show_source and len(real_docs) == 1:
        store[f"doc:{real_docs[0]}"] = texts.documents[real_docs[0]]
        screen["source"] = f"doc:{real_docs[0]}"
    return screen


def _screen_field(prefix: str, rows: pd.DataFrame) -> str:
    """The per-screen field of BWS (``bw_t{t}``) and pairwise (``pw_p{p}``) screens."""
    fields = [f for f in rows["field"] if f.startswith(prefix)]
    if fields:
        return fields[0]
    return next(f for f in rows["field"] if f.startswith("ck_"))
