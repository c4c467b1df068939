"""Shared CLI pieces: loading ratings with the common options and printing results."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from humaneval.cli._checks import check_preset
from humaneval.core.ratings import ID_COLUMNS, OPTIONAL_COLUMNS, Ratings, Response, load_ratings
from humaneval.core.responses import RESPONSES
from humaneval.errors import RatingsError
from humaneval.io.serialization import jsonable

if TYPE_CHECKING:
    import pandas as pd

    from humaneval.present.printable import Formatter

CANONICAL = ID_COLUMNS + RESPONSES + OPTIONAL_COLUMNS


def ratings_options(func: Callable) -> Callable:
    """Add the options every command that reads a ratings file understands."""
    options = [
        click.option(
            "--response",
            type=click.Choice(RESPONSES),
            default=None,
            help="Response column (default: whichever of score/rank exists).",
        ),
        click.option(
            "--scale",
            default=None,
            metavar="LOW-HIGH",
            help="Declared rating scale, e.g. 1-7; values outside are errors.",
        ),
        click.option("--allow-ties", is_flag=True, help="Accept tied ranks."),
        click.option(
            "--continuous", is_flag=True, help="Accept non-integer scores (sliders, direct assessment)."
        ),
        click.option(
            "--column",
            "columns",
            multiple=True,
            metavar="CANONICAL=NAME",
            help="Map a column of the file to a canonical name, e.g. document=item_id.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def judge_options(func: Callable) -> Callable:
    """Add the options of the commands that read humans and a judge together: ``--judge`` (which judge),
    ``--judge-file`` (its scores, any layout of :func:`~humaneval.core.judge_scores.read_judge_scores`) and
    ``--judge-column`` (map the judge file's columns, as ``--column`` maps the ratings file's)."""
    options: list[Callable[[Callable], Callable]] = [
        click.option(
            "--judge", default=None, metavar="NAME", help="The judge (needed when there are several)."
        ),
        click.option(
            "--judge-file",
            type=InputFile(),
            default=None,
            help="The judge's scores: document, system, score (optional judge, criterion, opponent columns), "
            "a ratings table with rater_kind, or JSON {judge: {item: label}} (docs/judges.md).",
        ),
        judge_column_option,
    ]
    for option in reversed(options):
        func = option(func)
    return func


def judge_column_option(func: Callable) -> Callable:
    """``--judge-column CANONICAL=NAME``: map a column of the judge file to a canonical name."""
    return click.option(
        "--judge-column",
        "judge_columns",
        multiple=True,
        metavar="CANONICAL=NAME",
        callback=lambda ctx, param, value: _judge_renames(value),
        help="Map a column of the judge file to a canonical name, e.g. judge=model_name.",
    )(func)


def _judge_renames(value: tuple[str, ...]) -> dict[str, str]:
    from humaneval.core.judge_scores import judge_column_renames

    return judge_column_renames(value)


def column_renames(columns: tuple[str, ...]) -> dict[str, str]:
    """``--column CANONICAL=NAME`` items as ``{NAME: CANONICAL}``; a malformed item is one error."""
    renames = {}
    for item in columns:
        canonical, sep, name = item.partition("=")
        if not sep or not canonical or not name:
            raise RatingsError(f"--column {item!r}: write CANONICAL=NAME, e.g. document=item_id")
        if canonical.strip() not in CANONICAL:
            raise RatingsError(
                f"--column {item!r}: {canonical.strip()!r} is not a column humaneval reads; "
                f"use one of {', '.join(CANONICAL)}"
            )
        renames[name.strip()] = canonical.strip()
    return renames


def load_from_options(
    path: str,
    response: Response | None,
    scale: str | None,
    allow_ties: bool,
    continuous: bool,
    columns: tuple[str, ...],
) -> Ratings:
    """Load a ratings file as the options of :func:`ratings_options` ask."""
    renames = column_renames(columns)
    return load_ratings(
        Path(path),
        response=response,
        scale=scale,
        allow_ties=allow_ties,
        continuous=continuous,
        columns=renames,
    )


def emit(payload: dict[str, Any], as_json: bool, render: Callable[[], str]) -> None:
    """Print ``payload`` as JSON with ``--json``, otherwise the human-readable ``render()``."""
    if as_json:
        click.echo(json.dumps(jsonable(payload), indent=2))
    else:
        click.echo(render())


#: Where the ``--json`` schema of each command module (or ``module.function``) is documented. The keys
#: follow docs/vocabulary.md: one name per concept, and a table's rows are keyed by its DataFrame's columns.
JSON_SCHEMA_DOCS = {
    "analyze": "docs/analysis.md",
    "budget": "docs/simulation.md",
    "collect.mturk": "docs/forms.md",
    "compare_runs": "docs/reproducibility.md",
    "collect.prolific": "docs/serve.md",
    "collect.summeval": "docs/forms.md",
    "mturk": "docs/platforms.md",
    "prolific": "docs/platforms.md",
    "design": "docs/design.md",
    "forms": "docs/forms.md",
    "heds": "docs/reproducibility.md",
    "judge": "docs/judges.md",
    "metaeval": "docs/metaeval.md",
    "power": "docs/simulation.md",
    "ppi": "docs/ppi.md",
    "qc": "docs/forms.md",
    "ranks": "docs/ranks.md",
    "reliability": "docs/reliability.md",
    "report": "docs/report.md",
    "score": "docs/scorers.md",
    "serve": "docs/serve.md",
    "validate": "the README",
}


def json_option(func: Callable) -> Callable:
    """``--json``; its help names the docs page with the command's schema (:data:`JSON_SCHEMA_DOCS`)."""
    module = func.__module__.rsplit(".", 1)[-1]
    page = JSON_SCHEMA_DOCS.get(f"{module}.{func.__name__}", JSON_SCHEMA_DOCS.get(module, "docs/"))
    return click.option(
        "--json", "as_json", is_flag=True, help=f"Print machine-readable JSON (schema in {page})."
    )(func)


class InputFile(click.Path):
    """An input file that must exist. Unlike ``click.Path(exists=True)``, a missing file or a folder is
    an input error: one line on stderr and exit code 2, like every other bad input."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if Path(value).is_dir():
            raise RatingsError(f"{value}: is a folder; give the path of a file")
        if not Path(value).is_file():
            raise RatingsError(f"{value}: no such file; check the path")
        return super().convert(value, param, ctx)


def read_text(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: the UTF-8 text of the :class:`InputFile` an option names (``None`` if not given)."""
    if value is None:
        return None
    from humaneval.io.tables import decode_utf8

    return decode_utf8(Path(value).read_bytes(), value)


def form_options(func: Callable) -> Callable:
    """Add the options of the commands that build forms from a design (``forms``, ``serve init``):
    the texts, the source documents, the preset, ties in rankings and a consent statement."""
    options = [
        click.option(
            "--texts",
            type=InputFile(),
            default=None,
            help="texts.json, or a table document, system, text (default: the design's <stem>.texts.json).",
        ),
        click.option(
            "--documents", type=InputFile(), default=None, help="Source documents: a table document, text."
        ),
        click.option(
            "--preset",
            callback=check_preset,
            default=None,
            help="Built-in preset name or a JSON/YAML preset file "
            "(default: from the design's method and dimension).",
        ),
        click.option(
            "--allow-ties/--no-ties", default=None, help="Ranking: allow tied ranks (default: the preset's)."
        ),
        click.option(
            "--consent",
            type=InputFile(),
            callback=read_text,
            default=None,
            help="Text file with a consent statement; the start page then asks 'I agree'.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def facts_text(title: str, rows: list[tuple[str, object]]) -> str:
    """``title`` and one ``name: value`` fact a line, through the shared renderer."""
    from humaneval.present.document import Column, Paragraph, Table
    from humaneval.present.renderers import blocks_to_text

    facts = Table((Column(""), Column("")), tuple((k, str(v)) for k, v in rows), facts=True)
    return blocks_to_text([Paragraph((title,)), facts])


def plan_text(
    head: str,
    plan: pd.DataFrame,
    columns: Mapping[str, Formatter | None] | list[str],
    after: Sequence[str] = (),
) -> str:
    """A review plan: ``head``, one row per submission in ``columns`` and the lines ``after``, through
    the shared renderer."""
    from humaneval.present.document import Block, Paragraph
    from humaneval.present.printable import frame_table
    from humaneval.present.renderers import blocks_to_text

    blocks: list[Block] = [Paragraph((head,))]
    if len(plan):
        blocks.append(frame_table(plan, columns))
    blocks += [Paragraph((line,)) for line in after]
    return blocks_to_text(blocks)
