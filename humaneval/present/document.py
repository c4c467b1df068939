"""The report as one typed document: sections of paragraphs, tables, figures and cautions.

:func:`humaneval.report.sections.report_document` builds a :class:`ReportDocument` once from a
:class:`~humaneval.report.build.StudyReport`; :mod:`humaneval.present.renderers` turns the same
object into HTML, Markdown and LaTeX, so the three formats cannot drift apart (statsmodels'
``Summary.as_text/as_html/as_latex`` follows the same idea). Every value is text already formatted
by :mod:`humaneval.present.formatting`; the document holds no numbers to format twice.

Text is a tuple of inline pieces: plain ``str`` (escaped by each renderer) or one of the small
records below, which a renderer draws in its own markup.

Examples
--------
>>> from humaneval.present.renderers import to_markdown
>>> table = Table((Column("system"), Column("mean", align="r")), (("BART", "5.25"), ("seneca", "3.52")))
>>> doc = ReportDocument("Demo", "ratings.csv", sections=(Section("Results", (table,)),))
>>> print(to_markdown(doc, header=False))
## Results
<BLANKLINE>
| system | mean |
|---|---:|
| BART | 5.25 |
| seneca | 3.52 |
<BLANKLINE>
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias


@dataclass(frozen=True)
class Code:
    """Literal text (a formula, a command): ``<code>``, backticks, ``\\texttt``."""

    text: str


@dataclass(frozen=True)
class Strong:
    """Emphasised text."""

    text: str


@dataclass(frozen=True)
class Styled:
    """Plain text with a meaning the HTML page colours (``sig``, ``ns``, ``flag``, ``todo``)."""

    text: str
    style: str


@dataclass(frozen=True)
class Math:
    """A formula: ``tex`` in LaTeX, ``plain`` elsewhere."""

    tex: str
    plain: str


@dataclass(frozen=True)
class Sup:
    """A superscript (a rank group next to a mean)."""

    text: str


@dataclass(frozen=True)
class Link:
    """A relative link to a file of the report."""

    text: str
    href: str


Inline: TypeAlias = str | Code | Strong | Styled | Math | Sup | Link
Text: TypeAlias = tuple[Inline, ...]


def text(*parts: Inline | None) -> Text:
    """A :data:`Text` from pieces; ``None`` and empty strings are dropped."""
    return tuple(p for p in parts if p is not None and p != "")


def plain(value: Text | str) -> str:
    """The text without markup."""
    if isinstance(value, str):
        return value
    return "".join(p if isinstance(p, str) else p.plain if isinstance(p, Math) else p.text for p in value)


def as_text(value: Text | str) -> Text:
    return (value,) if isinstance(value, str) else value


@dataclass(frozen=True)
class Paragraph:
    """A paragraph; ``style`` ``body``, ``note`` (smaller, muted) or ``meta`` (a line of metadata)."""

    text: Text
    style: Literal["body", "note", "meta"] = "body"


@dataclass(frozen=True)
class Bullets:
    """A bulleted list."""

    items: tuple[Text, ...]


@dataclass(frozen=True)
class Column:
    """A table column: its header and alignment (``l``, ``r`` for numbers, ``c``)."""

    name: Text | str
    align: Literal["l", "r", "c"] = "l"
    title: str | None = None


Cell: TypeAlias = Text | str


@dataclass(frozen=True)
class Table:
    """A table of formatted cells.

    ``caption`` is said before the table; ``facts`` makes a two-column table of names and values
    with no header (the first cell of a row names it); ``id`` anchors it on the page.
    """

    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    caption: Text = ()
    id: str | None = None
    facts: bool = False

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"a row of {len(row)} cells in a table of {len(self.columns)} columns")


@dataclass(frozen=True)
class Figure:
    """A figure written next to the report: ``src`` the PNG (SVG and PDF twins beside it)."""

    src: str
    alt: str
    caption: Text
    width: int | None = None


@dataclass(frozen=True)
class FigureRow:
    """Figures side by side (one column on a narrow screen)."""

    figures: tuple[Figure, ...]


@dataclass(frozen=True)
class Stat:
    """One headline number: what it is, its value and what qualifies it."""

    label: str
    value: str
    detail: Text = ()


@dataclass(frozen=True)
class Stats:
    """Headline numbers shown side by side."""

    items: tuple[Stat, ...]
    id: str | None = None


@dataclass(frozen=True)
class Definitions:
    """Named fields with their values (a datasheet section)."""

    items: tuple[tuple[str, Text], ...]


@dataclass(frozen=True)
class Details:
    """Blocks a reader opens on demand (collapsed on the page, shown in full elsewhere)."""

    summary: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Section:
    """A titled part of the report; a section inside ``blocks`` is a subsection.

    ``nav`` is its entry in the page's navigation (default: the title); ``id`` its anchor.
    """

    title: str
    blocks: tuple[Block, ...]
    id: str | None = None
    nav: str | None = None


Block: TypeAlias = Paragraph | Bullets | Table | Figure | FigureRow | Stats | Definitions | Details | Section


@dataclass(frozen=True)
class ReportDocument:
    """The whole report, ready to render.

    ``cautions`` open it ("Read this first"); ``paper_tables`` are the booktabs tables of
    ``results.tex``; ``settings`` close it.
    """

    title: str
    source: str
    generated: str = ""
    version: str = ""
    cautions: tuple[str, ...] = ()
    sections: tuple[Section, ...] = ()
    paper_tables: tuple[Table, ...] = ()
    settings: tuple[tuple[str, str], ...] = field(default_factory=tuple)
