"""Span tables in the commands: ``validate``, ``reliability``, ``analyze`` and ``report`` read them with
:func:`span_table` and call the API as with ratings; the table's method decides what it computes
(``describe_structure``, ``reliability_report`` and ``analyze`` look it up in their registries).

A file is a span table when its header has ``start``, ``end`` and ``category`` columns
(:func:`humaneval.spans.table.is_span_table`); see docs/spans.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from humaneval.cli._common import emit
from humaneval.errors import OptionError

if TYPE_CHECKING:
    from humaneval.spans.table import SpanTable

SCORING_CHOICES = ("mqm", "esa")
"""The names of :data:`humaneval.spans.scoring.SCORING_RULES` (kept here so the CLI starts without pandas)."""


def texts_option(func: Callable) -> Callable:
    """``--texts TEXTS.csv``: the annotated texts (document, system, text) of a span table."""
    return click.option(
        "--texts",
        default=None,
        type=click.Path(dir_okay=False),
        help="Span tables: the annotated texts (document, system, text) giving item lengths (docs/spans.md).",
    )(func)


def scoring_option(func: Callable) -> Callable:
    """``--scoring mqm|esa``: the scoring rule turning a span table into item scores."""
    return click.option(
        "--scoring",
        type=click.Choice(SCORING_CHOICES),
        default=None,
        help="Span tables: item scores by MQM weights or the annotators' ESA scores "
        "(default: esa when the table has a score column, else mqm).",
    )(func)


def span_table(path: str, texts: str | None, scoring: str | None) -> SpanTable | None:
    """The span table when the file's header is one (docs/spans.md), else None; ``--texts`` and
    ``--scoring`` given for another file are refused."""
    from humaneval.spans.scoring import get_scoring
    from humaneval.spans.table import is_span_file, load_spans

    if is_span_file(path):
        return load_spans(path, texts=texts, scoring=None if scoring is None else get_scoring(scoring).name)
    if texts is not None or scoring is not None:
        raise OptionError(
            f"{path}: --texts and --scoring apply to span tables (docs/spans.md); this is not one"
        )
    return None


def present(path: str, result: Any, as_json: bool) -> None:
    """Print what the API made of a span table (``describe_structure``, ``reliability_report``): its
    ``to_dict()`` after the file with ``--json``, else its summary titled by the file."""
    emit({"file": path, **result.to_dict()}, as_json, lambda: result.summary(path))
