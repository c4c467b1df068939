"""Span tables in the commands: ``validate`` and ``reliability`` hand them here, ``analyze`` and ``report``
read them with :func:`span_table` and go on as with ratings (the ``spans`` analysis adapter).

A file is a span table when its header has ``start``, ``end`` and ``category`` columns
(:func:`humaneval.spans.table.is_span_table`); see docs/spans.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from humaneval.cli._common import emit, facts_text
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


def validate(path: str, texts: str | None, as_json: bool) -> None:
    """``humaneval validate`` of a span table."""
    from humaneval.spans.table import load_spans

    table = load_spans(path, texts=texts)
    data = table.data
    info: dict[str, Any] = {
        "file": path,
        "kind": "span annotations",
        "n_spans": len(table.spans),
        "n_items": len(table.lengths),
        "n_annotators": len(table.annotators),
        "n_documents": int(data["document"].nunique()),
        "n_systems": len(table.systems),
        "n_unmarked": int(data["start"].isna().sum()),
        "categories": table.categories,
        "severities": sorted(table.spans["severity"].dropna().unique()),
        "scores": "score" in data and bool(data["score"].notna().any()),
    }

    def render() -> str:
        rows = [
            ("spans", info["n_spans"]),
            ("items", f"{info['n_items']} ({info['n_documents']} documents × {info['n_systems']} systems)"),
            ("annotators", info["n_annotators"]),
            ("marked error-free", f"{info['n_unmarked']} annotator × item"),
            ("categories", ", ".join(info["categories"]) or "-"),
            ("severities", ", ".join(info["severities"]) or "-"),
            ("ESA scores", "yes" if info["scores"] else "no"),
        ]
        return facts_text(f"{path}: valid (span annotations)", rows)

    emit(info, as_json, render)


def reliability(
    path: str, texts: str | None, scoring: str | None, n_resamples: int, seed: int, as_json: bool
) -> None:
    """``humaneval reliability`` of a span table."""
    from humaneval.spans.agreement import span_reliability
    from humaneval.spans.table import load_spans

    result = span_reliability(load_spans(path, texts=texts), scoring, n_resamples=n_resamples, seed=seed)
    emit({"file": path, **result.to_dict()}, as_json, lambda: result.summary(path))
