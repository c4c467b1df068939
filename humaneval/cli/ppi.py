"""``humaneval ppi``: system means and differences from human ratings and a judge (docs/ppi.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from humaneval.cli._checks import NONNEG, RESAMPLES
from humaneval.cli._common import InputFile, emit, json_option, load_from_options, ratings_options
from humaneval.clmm.contrasts import ADJUSTMENTS
from humaneval.ppi.items import CLUSTERINGS
from humaneval.ppi.judged import MODELS

if TYPE_CHECKING:
    from humaneval.core.ratings import Response


@click.command()
@click.argument("ratings", type=InputFile())
@ratings_options
@click.option("--judge", default=None, metavar="NAME", help="The judge (needed when there are several).")
@click.option(
    "--judge-file",
    type=InputFile(),
    default=None,
    help="The judge's scores: document, system, score (optional judge, criterion columns).",
)
@click.option("--criterion", default=None, help="Criterion to analyse when the table has several.")
@click.option(
    "--model",
    type=click.Choice(MODELS),
    default="mean",
    show_default=True,
    help="Score tables: system means (PPI++) or proportional-odds contrasts; pairwise tables get "
    "prediction-powered Bradley–Terry.",
)
@click.option(
    "--confidence-level",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
)
@click.option(
    "--adjust",
    type=click.Choice(ADJUSTMENTS),
    default="holm",
    show_default=True,
    help="Multiplicity adjustment of the system pairs.",
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
@click.option("--seed", type=NONNEG, default=0, show_default=True)
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
    criterion: str | None,
    model: str,
    confidence_level: float,
    adjust: str,
    cluster: str,
    probabilities: str | None,
    n_resamples: int,
    seed: int,
    as_json: bool,
) -> None:
    """Estimate each system's mean human score, and the differences between systems, from human
    ratings of some summaries and a judge's scores of all (prediction-powered inference, PPI++)."""
    from humaneval.io.tables import read_table
    from humaneval.ppi.judged import analyze_ppi

    table = load_from_options(ratings, response, scale, allow_ties, continuous, columns)
    result = analyze_ppi(
        table,
        judge=judge,
        judge_scores=judge_file,
        criterion=criterion,
        model=model,
        confidence_level=confidence_level,
        adjust=adjust,
        cluster=cluster,
        probabilities=None if probabilities is None else read_table(probabilities, what="probabilities file"),
        n_resamples=n_resamples,
        seed=seed,
    )
    emit(result.to_dict(), as_json, result.summary)
