"""Reading a design's inputs from files: the documents and the system summaries."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from humaneval.design.spec import Document, Summary
from humaneval.errors import DesignError
from humaneval.io.tables import read_table


def _text(value: object) -> str | None:
    return None if value is None or pd.isna(value) else str(value)


def read_documents(value: str | Path) -> int | list[Document]:
    """A document count (``"100"``), or a CSV/TSV/JSONL file of ids (column ``document`` or ``id``,
    else the first column) with an optional ``text`` column."""
    if str(value).isdigit():
        return int(str(value))
    if not Path(value).exists():
        raise DesignError(
            f"--documents {str(value)!r} is neither a count nor an existing file of document ids"
        )
    frame = read_table(value, what="document list")
    column = next((c for c in ("document", "id") if c in frame), frame.columns[0])
    texts = frame["text"] if "text" in frame else [None] * len(frame)
    return [Document(str(d), _text(t)) for d, t in zip(frame[column], texts, strict=True)]


def documents_of(summaries: list[Summary]) -> list[Document]:
    """The documents of a summaries table, in the order they first appear (``--summaries`` without
    ``--documents``)."""
    return [Document(d) for d in dict.fromkeys(s.document for s in summaries)]


def read_summaries(path: str | Path | None) -> list[Summary]:
    """A table ``document, system`` with an optional ``text`` (or ``summary``) column."""
    if path is None:
        return []
    frame = read_table(path, what="summaries table")
    if "document" not in frame or "system" not in frame:
        raise DesignError(f"{path}: needs the columns document, system and (optionally) text")
    text = next((c for c in ("text", "summary") if c in frame), None)
    texts = frame[text] if text else [None] * len(frame)
    return [
        Summary(str(d), str(s), _text(t))
        for d, s, t in zip(frame["document"], frame["system"], texts, strict=True)
    ]
