"""``humaneval reliability``: Krippendorff's α with a KALPHA interval, Fleiss' κ, split-half reliability."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from humaneval.cli import _spans as spans
from humaneval.cli._checks import NONNEG, RESAMPLES, FiniteRange
from humaneval.cli._common import InputFile, emit, json_option, load_from_options, ratings_options
from humaneval.core.deprecation import renamed_option
from humaneval.reliability.disagreement import LEVELS

if TYPE_CHECKING:
    from humaneval.reliability.alpha import Level


@click.command()
@renamed_option("--level", "--level-of-measurement", type=click.Choice(LEVELS))
@renamed_option("--bootstrap", "--resamples", dest="n_resamples", type=RESAMPLES)
@click.argument("ratings", type=InputFile())
@click.option(
    "--level-of-measurement",
    type=click.Choice(LEVELS),
    default="ordinal",
    show_default=True,
    help="Level of measurement of Krippendorff's α.",
)
@click.option(
    "--resamples",
    "n_resamples",
    type=RESAMPLES,
    default=5000,
    show_default=True,
    help="KALPHA bootstrap resamples for the α interval (0 = none; otherwise >= 1000).",
)
@click.option(
    "--alpha-min",
    "alpha_min",
    type=FiniteRange(-1, 1),
    multiple=True,
    default=(0.667,),
    show_default=True,
    help="Report P(α < ALPHA_MIN) from the bootstrap; repeatable.",
)
@click.option(
    "--splits", "n_splits", type=RESAMPLES, default=1000, show_default=True, help="Split-half splits."
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--times",
    type=InputFile(),
    default=None,
    help="Timing table (annotator, time_stamp seconds) for the time-vs-reliability curve.",
)
@ratings_options
@spans.texts_option
@spans.scoring_option
@json_option
def command(
    ratings: str,
    level_of_measurement: Level,
    n_resamples: int,
    alpha_min: tuple[float, ...],
    n_splits: int,
    seed: int,
    times: str | None,
    as_json: bool,
    texts: str | None,
    scoring: str | None,
    **options,
) -> None:
    """Agreement (Krippendorff's α, Fleiss' κ) and split-half reliability of a ratings file.

    A span table gets unitizing α, span F1 and score α instead (docs/spans.md).
    """
    from humaneval.reliability.criteria import criterion_correlations
    from humaneval.reliability.report import reliability_report

    span_table = spans.span_table(ratings, texts, scoring)
    if span_table is not None:
        return spans.present(
            ratings, reliability_report(span_table, n_resamples=n_resamples, seed=seed), as_json
        )
    from humaneval.reliability.timing import load_annotator_times

    table = load_from_options(ratings, **options)
    per_annotator = load_annotator_times(times) if times else None
    reports = [
        reliability_report(
            part,
            level_of_measurement=level_of_measurement,
            n_resamples=n_resamples,
            alpha_min=alpha_min,
            n_splits=n_splits,
            seed=seed,
            times=per_annotator,
            criterion=criterion,
        )
        for criterion, part in table.by_criterion()
    ]
    correlations = criterion_correlations(table) if table.response == "score" else None
    payload = {
        "file": ratings,
        "criteria": [r.to_dict() for r in reports],
        "correlations": [] if correlations is None else correlations.to_dict(),
    }

    def render() -> str:
        text = "\n".join(r.summary(ratings) for r in reports)
        if correlations is not None and not correlations.table.empty:
            text += "\n" + correlations.summary()
        return text

    emit(payload, as_json, render)
