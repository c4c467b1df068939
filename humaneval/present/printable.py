"""Results that print through the shared renderers.

A result builds its document blocks once (:meth:`Printable.blocks`); the terminal text
(``summary()``, what the CLI prints), a notebook's HTML and Markdown reprs come from those blocks
through :mod:`humaneval.present.renderers`, so every format shows the same digits
(:mod:`humaneval.present.formatting`) and no result formats a table by hand.

Examples
--------
>>> from dataclasses import dataclass
>>> from humaneval.present.document import Paragraph
>>> @dataclass(frozen=True)
... class Mean(Printable):
...     value: float
...     def blocks(self):
...         return (Paragraph((f"mean {fmt(self.value)}",)),)
>>> Mean(5.2512).summary()
'mean 5.251'
>>> Mean(float("nan"))._repr_html_()
'<div class="humaneval">\\n<p>mean –</p>\\n</div>'
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from humaneval.present.document import Block, Cell, Column, Table, Text
from humaneval.present.formatting import MISSING, fmt
from humaneval.present.renderers import blocks_to_html, blocks_to_markdown, blocks_to_text, plain_text

Formatter = Callable[[Any], "Cell"]


class Printable:
    """Mixin: :meth:`summary`, ``_repr_html_`` and ``_repr_markdown_`` from :meth:`blocks`, and a
    one-line ``repr`` (``<Class brief>``) from :meth:`brief` (a dataclass result declares
    ``repr=False`` so that its generated field dump does not replace it)."""

    def blocks(self, *args: Any, **kwargs: Any) -> tuple[Block, ...]:
        """The result as document blocks (paragraphs, tables, bullets); a result may take options
        such as the title of its source."""
        raise NotImplementedError

    def summary(self, *args: Any, **kwargs: Any) -> str:
        """The result as plain text, as the command line prints it (the arguments go to ``blocks``)."""
        return blocks_to_text(self.blocks(*args, **kwargs))

    def brief(self) -> Text | str:
        """What the result is in one line (its ``repr``, after the class name); default: nothing."""
        return ()

    def __repr__(self) -> str:
        said = plain_text(self.brief())
        return f"<{type(self).__name__}{' ' if said else ''}{said}>"

    def _repr_html_(self) -> str:
        return blocks_to_html(self.blocks())

    def _repr_markdown_(self) -> str:
        return blocks_to_markdown(self.blocks())


def frame_table(
    frame: pd.DataFrame,
    columns: Mapping[str, Formatter | None] | Sequence[str],
    *,
    names: Mapping[str, str] | None = None,
    caption: Text = (),
    align: Mapping[str, Literal["l", "r", "c"]] | None = None,
) -> Table:
    """A :class:`~humaneval.present.document.Table` of ``frame``'s ``columns``.

    Parameters
    ----------
    frame : DataFrame
        One row per table row.
    columns : mapping of column to formatter, or sequence of columns
        A formatter turns a value into a cell (default: numbers by
        :func:`~humaneval.present.formatting.fmt`, everything else by ``str``).
    names : mapping, optional
        Header text per column (default: the column's name).
    caption : Text
        Said before the table.
    align : mapping, optional
        Alignment per column (default: ``r`` for numeric columns, ``l`` otherwise).

    Returns
    -------
    Table

    Examples
    --------
    >>> from humaneval.present.renderers import blocks_to_text
    >>> frame = pd.DataFrame({"system": ["a", "b"], "estimate": [0.5, float("nan")]})
    >>> print(blocks_to_text([frame_table(frame, ["system", "estimate"])]))
    system  estimate
    a          0.500
    b              –
    """
    formatters = dict(columns) if isinstance(columns, Mapping) else dict.fromkeys(columns)
    names = names or {}
    align = align or {}
    table_columns = tuple(
        Column(
            names.get(c, c),
            align=align.get(c, "r" if pd.api.types.is_numeric_dtype(frame[c].dtype) else "l"),
        )
        for c in formatters
    )
    rows = tuple(
        tuple((formatters[c] or _default)(value) for c, value in zip(formatters, values, strict=True))
        for values in frame[list(formatters)].itertuples(index=False, name=None)
    )
    return Table(table_columns, rows, caption=caption)


def _default(value: Any) -> str:
    if value is None:
        return MISSING
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return fmt(value)
    return str(value)
