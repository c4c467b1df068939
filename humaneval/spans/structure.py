"""What ``humaneval validate`` reports of a span table: its counts, categories and severities.

:func:`describe_spans` is the span tables' entry of :func:`humaneval.core.structure.describe_structure`
(registered by :mod:`humaneval.spans.adapter`), so ``describe_structure(load_spans(path))`` is what
``humaneval validate SPANS.csv`` prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from humaneval.present.document import Block, Column, Paragraph, Table
from humaneval.present.printable import Printable
from humaneval.spans.table import SpanTable

KIND = "span annotations"
"""The ``kind`` that ``validate --json`` names a span table by (docs/spans.md)."""


@dataclass(frozen=True, repr=False)
class SpanStructure(Printable):
    """Counts of a validated span table (the keys of ``validate --json``, docs/spans.md)."""

    n_spans: int
    n_items: int
    n_annotators: int
    n_documents: int
    n_systems: int
    n_unmarked: int
    categories: tuple[str, ...]
    severities: tuple[str, ...]
    scores: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "n_spans": self.n_spans,
            "n_items": self.n_items,
            "n_annotators": self.n_annotators,
            "n_documents": self.n_documents,
            "n_systems": self.n_systems,
            "n_unmarked": self.n_unmarked,
            "categories": list(self.categories),
            "severities": list(self.severities),
            "scores": self.scores,
        }

    def brief(self) -> str:
        return f"{self.n_spans} spans, {self.n_items} items, {self.n_annotators} annotators"

    def blocks(self, source: str | None = None) -> tuple[Block, ...]:
        """The validation summary, titled by ``source`` (e.g. the file)."""
        rows = (
            ("spans", str(self.n_spans)),
            ("items", f"{self.n_items} ({self.n_documents} documents × {self.n_systems} systems)"),
            ("annotators", str(self.n_annotators)),
            ("marked error-free", f"{self.n_unmarked} annotator × item"),
            ("categories", ", ".join(self.categories) or "-"),
            ("severities", ", ".join(self.severities) or "-"),
            ("ESA scores", "yes" if self.scores else "no"),
        )
        head = Paragraph((f"{source or 'span table'}: valid ({KIND})",))
        return head, Table((Column(""), Column("")), rows, facts=True)


def describe_spans(table: SpanTable) -> SpanStructure:
    """The counts of a span table.

    Examples
    --------
    >>> import pandas as pd
    >>> from humaneval.spans.table import load_spans
    >>> t = load_spans(pd.DataFrame({"annotator": ["a", "b"], "document": "d", "system": "s",
    ...     "start": [0, None], "end": [4, None], "severity": ["minor", None],
    ...     "category": ["x", None], "length": 10}))
    >>> describe_spans(t)
    <SpanStructure 1 spans, 1 items, 2 annotators>
    """
    data = table.data
    return SpanStructure(
        n_spans=len(table.spans),
        n_items=len(table.lengths),
        n_annotators=len(table.annotators),
        n_documents=int(data["document"].nunique()),
        n_systems=len(table.systems),
        n_unmarked=int(data["start"].isna().sum()),
        categories=tuple(table.categories),
        severities=tuple(sorted(table.spans["severity"].dropna().unique())),
        scores="score" in data and bool(data["score"].notna().any()),
    )
