"""The texts a form shows: summaries keyed by (document, system), source documents and fillers.

Input formats (docs/forms.md): the design's ``texts.json``
(``documents``, ``summaries`` keyed ``doc|sys``, ``fillers``), or a CSV/TSV/JSONL table of
``document, system, text`` plus an optional table of ``document, text`` for the sources. Texts
are untrusted: they are stored verbatim (no normalisation) and only ever rendered as text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from humaneval.errors import DesignError, RatingsError
from humaneval.io.tables import read_table_lines

PLACEHOLDER_LABEL = "[PLACEHOLDER TEXT]"


@dataclass(frozen=True)
class Texts:
    """Summaries ``{(document, system): text}``, sources ``{document: text}`` and ``fillers``."""

    summaries: Mapping[tuple[str, str], str]
    documents: Mapping[str, str] = field(default_factory=dict)
    fillers: Mapping[str, str] = field(default_factory=dict)

    def summary(self, document: str, system: str) -> str:
        return self.summaries[(document, system)]

    def require(self, cells: pd.DataFrame, *, sources: bool = False) -> None:
        """Raise :class:`DesignError` listing every design cell (document, system) without a text."""
        pairs = cells.loc[(cells["document"] != "") & (cells["system"] != ""), ["document", "system"]]
        pairs = sorted(set(map(tuple, pairs.to_numpy().tolist())))
        missing = [f"{d}|{s}" for d, s in pairs if (d, s) not in self.summaries]
        if missing:
            shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            raise DesignError(
                f"{len(missing)} design cell(s) have no summary text: {shown}; add them to the texts file "
                "(columns document, system, text)"
            )
        if sources:
            docs = sorted({d for d, _ in pairs} - set(self.documents))
            if docs:
                shown = ", ".join(docs[:10]) + (f" and {len(docs) - 10} more" if len(docs) > 10 else "")
                raise DesignError(
                    f"the preset shows the source document, but {len(docs)} document(s) have no source "
                    f"text: {shown}; give a documents file (columns document, text)"
                )

    def to_json(self) -> dict[str, dict[str, str]]:
        """The ``texts.json`` layout: summaries keyed ``doc|sys``."""
        return {
            "documents": dict(self.documents),
            "summaries": {f"{d}|{s}": t for (d, s), t in self.summaries.items()},
            "fillers": dict(self.fillers),
        }


def texts_from_json(data: Mapping[str, object], source: str = "texts.json") -> Texts:
    """Build :class:`Texts` from the ``texts.json`` mapping of the design."""
    summaries = {}
    for key, text in _mapping(data, "summaries", source).items():
        document, sep, system = str(key).partition("|")
        if not sep:
            raise DesignError(f"{source}: summary key {key!r} is not of the form 'document|system'")
        summaries[(document, system)] = str(text)
    fillers = data.get("fillers")
    if isinstance(fillers, list):
        data = {**data, "fillers": {str(i): t for i, t in enumerate(fillers)}}
    return Texts(
        summaries=summaries,
        documents={str(k): str(v) for k, v in _mapping(data, "documents", source).items()},
        fillers={str(k): str(v) for k, v in _mapping(data, "fillers", source).items()},
    )


def _mapping(data: Mapping[str, object], key: str, source: str) -> Mapping[object, object]:
    """``data[key]`` as a mapping (empty when absent); anything else is one clear error."""
    value = data.get(key) or {}
    if not isinstance(value, Mapping):
        raise DesignError(f"{source}: {key!r} must map names to texts, not be a {type(value).__name__}")
    return value


def load_texts(summaries: str | Path | Mapping, documents: str | Path | None = None) -> Texts:
    """Read texts from ``texts.json`` or a ``document, system, text`` table (+ optional sources table)."""
    if isinstance(summaries, Mapping):
        texts = texts_from_json(summaries, "texts")
    elif Path(summaries).suffix.lower() == ".json":
        path = Path(summaries)
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            raise DesignError(f"{path}: no such file; check the path") from None
        except json.JSONDecodeError as exc:
            raise DesignError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
        texts = texts_from_json(data, str(path))
    else:
        frame = _table(summaries, ("document", "system", "text"))
        pairs = {}
        for row in frame.itertuples(index=False):
            key = (row.document, row.system)
            if key in pairs:
                raise DesignError(
                    f"{summaries}: two texts for document {key[0]!r}, system {key[1]!r}; "
                    "keep one row per document and system"
                )
            pairs[key] = row.text
        texts = Texts(summaries=pairs)
    if documents is not None:
        frame = _table(documents, ("document", "text"))
        texts = Texts(
            texts.summaries, dict(zip(frame["document"], frame["text"], strict=True)), texts.fillers
        )
    return texts


def _table(path: str | Path, columns: tuple[str, ...]) -> pd.DataFrame:
    try:
        frame, lines = read_table_lines(path, what="texts table")
    except RatingsError as exc:
        raise DesignError(str(exc)) from None
    missing = [c for c in columns if c not in frame]
    if missing:
        raise DesignError(
            f"{path}: missing column(s) {', '.join(missing)} (found: {', '.join(map(str, frame.columns))}); "
            f"a texts table needs the columns {', '.join(columns)}"
        )
    frame = frame[list(columns)].copy()
    for column in columns:
        empty = frame.index[frame[column].isna()]
        if len(empty):
            line = lines[empty[0]]
            raise DesignError(f"{path}: line {line}: empty {column!r}; every row needs a {column}")
        frame[column] = frame[column].astype(str)
    return frame


def placeholder_texts(design: pd.DataFrame, *, sources: bool = True) -> Texts:
    """Clearly labelled stand-in texts for every (document, system) cell of a design.

    For demos and pilots of the form layout only: every text starts with ``[PLACEHOLDER TEXT]``
    and names its cell, so it can never be mistaken for study material.

    Examples
    --------
    >>> from humaneval.design import block_design
    >>> texts = placeholder_texts(block_design(1, 1, 2, ["A", "B"]))
    >>> print(texts.summaries[("d0", "B")])  # doctest: +ELLIPSIS
    [PLACEHOLDER TEXT] Summary of document d0 written by system B. Replace this ...
    """
    cells = design.loc[(design["document"] != "") & (design["system"] != ""), ["document", "system"]]
    pairs = sorted(set(map(tuple, cells.to_numpy().tolist())))
    summaries = {
        (d, s): f"{PLACEHOLDER_LABEL} Summary of document {d} written by system {s}. "
        "Replace this with the real summary before running the study."
        for d, s in pairs
    }
    documents = (
        {
            d: f"{PLACEHOLDER_LABEL} Source document {d}.\n\nThe real article text goes here."
            for d in sorted({d for d, _ in pairs})
        }
        if sources
        else {}
    )
    return Texts(summaries=summaries, documents=documents)
