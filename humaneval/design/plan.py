"""The generated design: :class:`Design`, its manifest ``design.json`` and ``texts.json``.

A :class:`Design` holds the long table (:mod:`humaneval.design.table`) plus what the table cannot
say: the spec (texts as SHA-256 digests), systems, documents with their blocks, dropped documents,
check definitions and BWS/pairwise balance. The manifest lists every slot with its ordered screens
and entries; :meth:`Design.from_json` rebuilds the table from it, so ``to_json`` → ``from_json`` →
``to_json`` is byte-identical.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from humaneval.design.table import (
    DESIGN_COLUMNS,
    normalise_table,
    screen_name,
    write_design_csv,
)
from humaneval.errors import DesignError

if TYPE_CHECKING:
    from humaneval.design.criteria import Criterion
    from humaneval.design.datasheet import Datasheet
    from humaneval.design.summary import CostSettings, DesignSummary

SCHEMA_VERSION = 1
_SLOT_LEVEL = (
    "design_id",
    "annotator_slot",
    "block",
    "position",
    "screen_id",
    "method",
    "dimension",
    "round",
)
_ENTRY_COLUMNS = tuple(c for c in DESIGN_COLUMNS if c not in _SLOT_LEVEL)


@dataclass(frozen=True)
class DesignTexts:
    """The corpus of a design, kept apart from it (``texts.json``): summaries keyed ``doc|sys``."""

    documents: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)
    fillers: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"documents": self.documents, "summaries": self.summaries, "fillers": self.fillers}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DesignTexts:
        return cls(
            dict(data.get("documents", {})), dict(data.get("summaries", {})), dict(data.get("fillers", {}))
        )

    def summary(self, document: str, system: str) -> str | None:
        return self.summaries.get(f"{document}|{system}")

    def is_empty(self) -> bool:
        return not (self.documents or self.summaries or self.fillers)


@dataclass(frozen=True, eq=False)
class Design:
    """A planned study: who judges what, in which order, with which checks.

    ``table`` is the long table with the columns of docs/design.md; ``documents`` are in manifest
    order (their index is the ``d{i}`` of form field names), ``systems`` likewise (``s{j}``).
    """

    design_id: str
    spec: dict[str, Any]
    systems: tuple[str, ...]
    reference_system: str | None
    documents: tuple[str, ...]
    blocks: tuple[tuple[str, ...], ...]
    dropped_documents: tuple[str, ...]
    skipped_pairs: tuple[tuple[str, str], ...]
    table: pd.DataFrame
    checks: tuple[dict[str, Any], ...]
    balance: dict[str, Any]
    package_version: str
    warmups: tuple[dict[str, Any], ...] = ()
    cost: CostSettings | None = None
    texts: DesignTexts | None = None

    @property
    def method(self) -> str:
        return self.spec["method"]

    @property
    def dimension(self) -> str:
        return self.spec["dimension"]

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        """The criteria asked (likert): the spec's ``criteria``, else its dimension on ``scale_points``."""
        from humaneval.design.criteria import criteria_of

        return criteria_of(self)

    @property
    def slots(self) -> tuple[str, ...]:
        """Annotator slots in block order."""
        return tuple(dict.fromkeys(self.table["annotator_slot"]))

    @property
    def annotators_per_block(self) -> int:
        return 1 if self.spec["family"] == "nested" else int(self.spec["annotators_per_block"])

    def block_of(self, document: str) -> int | None:
        for b, docs in enumerate(self.blocks):
            if document in docs:
                return b
        return None

    def judgements(self, include_checks: bool = False) -> pd.DataFrame:
        """The design as the simulator wants it: ``annotator`` (= slot), ``document``, ``system``,
        ``position``, ``block``, ``is_check``, ``display_pos`` — one row per real judgement.

        Warm-up rows and repeated anchor judgements are always left out; check rows (whose
        document/system may be empty) only when ``include_checks`` is false.
        :func:`humaneval.clmm.model.sample_ratings` accepts the result.
        """
        rows = self.table[~self.table["is_warmup"] & ~self.table["is_anchor_repeat"]]
        if not include_checks:
            rows = rows[~rows["is_check"]]
        return pd.DataFrame(
            {
                "annotator": rows["annotator_slot"],
                "document": rows["document"],
                "system": rows["system"],
                "position": rows["position"],
                "block": rows["block"],
                "is_check": rows["is_check"],
                "display_pos": rows["display_pos"],
            }
        ).reset_index(drop=True)

    def with_cost(self, **settings: Any) -> Design:
        """A copy whose summary uses these :class:`~humaneval.design.summary.CostSettings`."""
        from humaneval.design.summary import CostSettings

        return replace(self, cost=CostSettings(**settings))

    def summary(self) -> DesignSummary:
        """Design summary with time and cost."""
        from humaneval.design.summary import summarize_design

        return summarize_design(self)

    def datasheet(self, **kwargs: Any) -> Datasheet:
        """HEDS-style study datasheet; see :func:`humaneval.design.datasheet.make_datasheet`."""
        from humaneval.design.datasheet import make_datasheet

        return make_datasheet(self, **kwargs)

    # -- manifest -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The ``design.json`` manifest."""
        reference = self.reference_system
        slots: list[dict[str, Any]] = []
        for row in self.table.to_dict(orient="records"):
            if not slots or slots[-1]["slot"] != row["annotator_slot"]:
                slots.append({"slot": row["annotator_slot"], "block": int(row["block"]), "screens": []})
            screens = slots[-1]["screens"]
            if not screens or screens[-1]["position"] != row["position"]:
                screens.append({"position": int(row["position"]), "entries": []})
            screens[-1]["entries"].append({c: _plain(row[c]) for c in _ENTRY_COLUMNS})
        return {
            "schema_version": SCHEMA_VERSION,
            "package_version": self.package_version,
            "design_id": self.design_id,
            "spec": self.spec,
            "systems": [
                {"index": j, "name": s, "is_reference": s == reference} for j, s in enumerate(self.systems)
            ],
            "documents": [
                {"index": i, "id": d, "block": self.block_of(d)} for i, d in enumerate(self.documents)
            ],
            "blocks": [list(docs) for docs in self.blocks],
            "dropped_documents": list(self.dropped_documents),
            "skipped_pairs": [list(p) for p in self.skipped_pairs],
            "slots": slots,
            "checks": list(self.checks),
            "scales": [c.scale().to_dict() for c in self.criteria],
            "warmups": list(self.warmups),
            "balance": self.balance,
            "cost_settings": None if self.cost is None else self.cost.to_dict(),
            "summary": self.summary().to_dict(),
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """Compact manifest JSON with sorted keys; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    @classmethod
    def from_dict(cls, manifest: dict[str, Any], texts: DesignTexts | None = None) -> Design:
        from humaneval.design.summary import CostSettings

        if manifest.get("schema_version") != SCHEMA_VERSION:
            raise DesignError(
                f"design manifest has schema_version {manifest.get('schema_version')!r}; "
                f"this package reads version {SCHEMA_VERSION}"
            )
        spec = manifest["spec"]
        constant = {
            "design_id": manifest["design_id"],
            "method": spec["method"],
            "dimension": spec["dimension"],
        }
        records = []
        for slot in manifest["slots"]:
            for screen in slot["screens"]:
                for entry in screen["entries"]:
                    records.append(
                        {
                            **constant,
                            "annotator_slot": slot["slot"],
                            "block": slot["block"],
                            "position": screen["position"],
                            "screen_id": screen_name(screen["position"]),
                            "round": spec["round"],
                            **entry,
                        }
                    )
        table = normalise_table(pd.DataFrame.from_records(records, columns=list(DESIGN_COLUMNS)))
        systems = manifest["systems"]
        reference = next((s["name"] for s in systems if s["is_reference"]), None)
        cost = manifest.get("cost_settings")
        return cls(
            design_id=manifest["design_id"],
            spec=spec,
            systems=tuple(s["name"] for s in systems),
            reference_system=reference,
            documents=tuple(d["id"] for d in manifest["documents"]),
            blocks=tuple(tuple(b) for b in manifest["blocks"]),
            dropped_documents=tuple(manifest["dropped_documents"]),
            skipped_pairs=tuple(tuple(p) for p in manifest["skipped_pairs"]),
            table=table,
            checks=tuple(manifest["checks"]),
            warmups=tuple(manifest["warmups"]),
            balance=manifest["balance"],
            package_version=manifest["package_version"],
            cost=None if cost is None else CostSettings(**cost),
            texts=texts,
        )

    @classmethod
    def from_json(cls, source: str | Path, texts: str | Path | DesignTexts | None = None) -> Design:
        """Read a manifest (a path or the JSON text) and optionally its ``texts.json``."""
        manifest = _load_json(source, "design manifest")
        if texts is not None and not isinstance(texts, DesignTexts):
            texts = DesignTexts.from_dict(_load_json(texts, "texts file"))
        return cls.from_dict(manifest, texts)

    def write(self, csv_path: str | Path) -> dict[str, Path]:
        """Write the long CSV, the manifest ``<stem>.json`` beside it and, if there are texts,
        ``<stem>.texts.json``; returns the paths by kind."""
        csv_path = Path(csv_path)
        paths = {"csv": write_design_csv(self.table, csv_path), "manifest": csv_path.with_suffix(".json")}
        self.to_json(paths["manifest"])
        if self.texts is not None and not self.texts.is_empty():
            paths["texts"] = csv_path.with_name(csv_path.stem + ".texts.json")
            paths["texts"].write_text(
                json.dumps(self.texts.to_dict(), indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
        return paths


def _plain(value: Any) -> Any:
    return value.item() if hasattr(value, "item") else value


def _load_json(source: str | Path, what: str) -> dict[str, Any]:
    text = str(source)
    if isinstance(source, Path) or not text.lstrip().startswith("{"):
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise DesignError(f"{source}: cannot read the {what} ({exc.strerror})") from None
        except UnicodeDecodeError as exc:
            raise DesignError(f"{source}: byte {exc.start} is not valid UTF-8; is it the {what}?") from None
    try:
        loaded = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DesignError(f"{source}: the {what} is not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(loaded, dict):
        raise DesignError(f"{source}: the {what} must be a JSON object, not {type(loaded).__name__}")
    return loaded
