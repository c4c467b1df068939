"""``humaneval ppi``: system means and differences from human ratings and a judge (docs/ppi.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from humaneval.cli._checks import NONNEG, RESAMPLES, FiniteRange
from humaneval.cli._common import (
    InputFile,
    emit,
    json_option,
    judge_options,
    load_from_options,
    ratings_options,
)
from humaneval.clmm.contrasts import ADJUSTMENTS
from humaneval.core.deprecation import renamed_option
from humaneval.errors import OptionError, RatingsError
from humaneval.ppi.items import CLUSTERINGS
from humaneval.ppi.judged import MODELS
from humaneval.present.renderers import blocks_to_text

if TYPE_CHECKING:
    from humaneval.core.ratings import Ratings, Response


@click.command()
@renamed_option("--model", "--judge-model", type=click.Choice(MODELS))
@click.argument("ratings", type=InputFile())
@ratings_options
@judge_options
@click.option("--criterion", default=None, help="Criterion to analyse when the table has several.")
@click.option(
    "--judge-model",
    type=click.Choice(MODELS),
    default="mean",
    show_default=True,
    help="Score tables: system means (PPI++) or proportional-odds contrasts; pairwise tables get "
    "prediction-powered Bradley–Terry.",
)
@click.option(
    "--confidence-level",
    type=FiniteRange(0, 1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
)
@click.option(
    "--adjust",
    type=click.Choice(ADJUSTMENTS),
    default="tukey",
    show_default=True,
    help="Multiplicity adjustment of the system pairs (as humaneval analyze).",
)
@click.option(
    "--cluster",
    type=click.Choice(CLUSTERINGS),
    default="auto",
    show_default=True,
    help="Independent units: documents, or blocks of annotators and documents.",
)
@click.option(
    "--probabilities",
    type=InputFile(),
    default=None,
    help="document, probability: the design's chances of giving each document to the humans "
    "(humaneval design --judge-scores); the estimates are then inverse-probability weighted.",
)
@click.option(
    "--resamples",
    "n_resamples",
    type=RESAMPLES,
    default=1000,
    show_default=True,
    help="PPBoot resamples (0: no bootstrap interval).",
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@json_option
def command(
    ratings: str,
    response: Response | None,
    scale: str | None,
    allow_ties: bool,
    continuous: bool,
    columns: tuple[str, ...],
    judge: str | None,
    judge_file: str | None,
    judge_columns: dict[str, str],
    criterion: str | None,
    judge_model: str,
    confidence_level: float,
    adjust: str,
    cluster: str,
    probabilities: str | None,
    n_resamples: int,
    seed: int,
    as_json: bool,
) -> None:
    """Estimate each system's mean human score, and the differences between systems, from human
    ratings of some summaries and a judge's scores of all (prediction-powered inference, PPI++).
    The same analysis as ``humaneval analyze --judge NAME``."""
    from humaneval.analysis.workflow import analyze
    from humaneval.core.judge_scores import read_judge_scores
    from humaneval.io.tables import read_table

    table = load_from_options(ratings, response, scale, allow_ties, continuous, columns)
    scores = None if judge_file is None else read_judge_scores(judge_file, columns=judge_columns)
    result = analyze(
        table,
        judge=judge if judge is not None or scores is not None else only_judge(table),
        judge_scores=scores,
        judge_model=judge_model,
        criterion=criterion if criterion is not None else one_criterion(table),
        alpha=1 - confidence_level,
        adjust=adjust,
        cluster=cluster,
        probabilities=None if probabilities is None else read_table(probabilities, what="probabilities file"),
        n_resamples=n_resamples,
        seed=seed,
    )
    emit(result.to_dict(), as_json, lambda: blocks_to_text(result.blocks()))


def only_judge(table: Ratings) -> str:
    """The one judge of a table with judge rows; none, or several, is one clear error."""
    names = table.judge_names
    if not names:
        raise RatingsError(
            "the ratings table has no judge rows (rater_kind = judge); give the judge's scores with "
            "--judge-file"
        )
    if len(names) > 1:
        raise OptionError(f"several judges ({', '.join(names)}); choose one with --judge")
    return names[0]


def one_criterion(table: Ratings) -> str | None:
    """The table's one criterion (None without a criterion column); several is one clear error."""
    criteria = table.criteria
    if len(criteria) > 1:
        raise OptionError(f"several criteria ({', '.join(map(str, criteria))}); choose one with --criterion")
    return criteria[0]
