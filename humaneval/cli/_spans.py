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


def span_scoring_option(func: Callable) -> Callable:
    """``--span-scoring mqm|esa``: :func:`scoring_option` where ``--scoring`` means something else (judge)."""
    return click.option(
        "--span-scoring",
        type=click.Choice(SCORING_CHOICES),
        default=None,
        help="Span tables: the item scores of the alt-test on scores, by MQM weights or the annotators' ESA "
        "scores (default: esa when the table has a score column, else mqm; docs/spans.md).",
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


def judge(
    table: SpanTable,
    judge_file: str | None,
    mark_judges: str | None,
    epsilon: float | None,
    profile: str | None,
    criterion: str | None,
    other_options: bool,
) -> Any:
    """``humaneval judge`` of a span table: the alt-test of its annotators named by ``--mark-judges``
    (:func:`humaneval.spans.judge.span_judge_test`); ``other_options``: a ratings table's options given."""
    from humaneval.spans.judge import span_judge_test
    from humaneval.spans.scoring import default_scoring

    if other_options:
        raise OptionError(
            "a span table is tested on span F1 and on item scores (--span-scoring); it takes no --scoring, "
            "--calibration or --self (docs/spans.md)"
        )
    if judge_file is not None or not mark_judges:
        raise OptionError(
            "an automatic span annotator is an annotator of the span table: name it with --mark-judges NAME "
            "(no --judge-file; docs/spans.md)"
        )
    part = table.for_criterion(criterion)
    names = [n.strip() for n in mark_judges.split(",") if n.strip()]
    return span_judge_test(
        part, names, scoring=part.scoring or default_scoring(part), epsilon=epsilon, profile=profile
    )


def power(opts: dict[str, Any]) -> bool:
    """``humaneval power --pilot SPANS.csv``: the power of a planned span study with the pilot's error
    rates (:func:`humaneval.spans.power.pilot_power`); False when the pilot is not a span table."""
    pilot = span_table(opts["pilot"], opts["texts"], opts["span_scoring"])
    if pilot is None:
        return False
    from humaneval.simulate.designs import SimDesign
    from humaneval.spans.power import pilot_power

    given = [f"--{k.replace('_', '-')}" for k in SPAN_POWER_UNUSED if opts.get(k) not in (None, False)]
    if given:
        raise OptionError(
            f"a span pilot simulates error spans, not a CLMM: it takes no {', '.join(given)} (docs/spans.md)"
        )
    if opts["design"] is None:
        documents, annotators = int(pilot.data["document"].nunique()), len(pilot.annotators)
    else:
        design = SimDesign.parse(opts["design"])
        documents, annotators = design.blocks * design.docs, design.annotators
    result = pilot_power(
        pilot, n_documents=documents, n_annotators=annotators, trials=opts["trials"], seed=opts["seed"]
    )
    present(opts["pilot"], result, opts["as_json"])
    return True


SPAN_POWER_UNUSED = ("model_path", "formula", "effect", "effect_points", "effect_scale", "along", "null")
"""``power`` options of the CLMM simulation that a span pilot refuses."""
