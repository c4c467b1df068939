"""The judge-beside-humans mode of ``humaneval budget``: the cheapest numbers of human-rated and
judge-only units (:func:`humaneval.ppi.budget.ppi_budget`, docs/ppi.md)."""

from __future__ import annotations

from collections.abc import Callable

import click

from humaneval.cli._checks import COUNT, NONNEG_F, POS
from humaneval.cli._common import InputFile, emit, judge_column_option

JUDGE_OPTIONS = (
    "judge_correlation",
    "judge_pilot",
    "judge_file",
    "judge",
    "judge_columns",
    "sd",
    "judge_sd",
    "target_width",
    "human_cost",
    "judge_cost",
    "max_units",
)


def judge_options(func: Callable) -> Callable:
    """The options of the judge-beside-humans planner (:func:`humaneval.ppi.budget.ppi_budget`)."""
    options: list[Callable[[Callable], Callable]] = [
        click.option(
            "--judge-correlation",
            type=click.FloatRange(-1, 1, min_open=True, max_open=True),
            default=None,
            help="Plan human and judge ratings for a judge with this correlation to the humans "
            "(docs/ppi.md).",
        ),
        click.option(
            "--judge-pilot",
            type=InputFile(),
            default=None,
            help="A pilot ratings table with judge scores (rows rater_kind=judge, or --judge-file): "
            "its human SD and judge correlation.",
        ),
        click.option("--judge-file", type=InputFile(), default=None, help="The pilot's judge scores."),
        judge_column_option,
        click.option("--judge", default=None, metavar="NAME", help="The pilot's judge, when it has several."),
        click.option(
            "--sd", type=POS, default=None, help="SD of a unit's human score (with --judge-correlation)."
        ),
        click.option(
            "--judge-sd",
            type=POS,
            default=None,
            help="SD of the judge's scores (default: --sd, a judge on the humans' scale; --judge-pilot "
            "measures it). PPI++ caps λ at 1, so a judge on a compressed scale gains less.",
        ),
        click.option(
            "--target-width", type=POS, default=None, help="Full width of the 95% interval to reach."
        ),
        click.option(
            "--human-cost",
            type=POS,
            default=1.0,
            show_default=True,
            help="Cost of one unit's human rating(s).",
        ),
        click.option(
            "--judge-cost", type=NONNEG_F, default=0.01, show_default=True, help="Cost of one judge score."
        ),
        click.option(
            "--max-units", type=COUNT, default=None, help="At most this many units in the pool (n + N)."
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def run_judge_budget(target: float | None, seed: int, as_json: bool, effect: str | None = None, **o) -> None:
    """The cheapest (n, N) of :func:`~humaneval.ppi.budget.ppi_budget`, printed or as JSON; ``effect``
    (``--effect``) is the difference a target power is against, one number in the ratings' units."""
    from humaneval.errors import OptionError
    from humaneval.ppi.budget import judged_pilot_relation, ppi_budget

    try:
        difference = None if effect is None else float(effect)
    except ValueError:
        raise OptionError(
            f"--effect {effect!r}: with --judge-correlation or --judge-pilot give one number, the difference "
            "in the ratings' units the target power is against, e.g. 0.25"
        ) from None

    sd, correlation, judge_sd = o["sd"], o["judge_correlation"], o["judge_sd"]
    if o["judge_pilot"] is not None:
        from humaneval.core.judge_scores import read_judge_scores
        from humaneval.core.ratings import load_ratings

        # validated like every ratings table: attention checks are not summaries of the study
        pilot = load_ratings(o["judge_pilot"], continuous=True).data
        if "is_check" in pilot:
            pilot = pilot[~pilot["is_check"]]
        scores = (
            None
            if o["judge_file"] is None
            else read_judge_scores(o["judge_file"], columns=o["judge_columns"])
        )
        pilot_sd, pilot_r, pilot_judge_sd = judged_pilot_relation(pilot, o["judge"], scores)
        sd = pilot_sd if sd is None else sd
        correlation = pilot_r if correlation is None else correlation
        judge_sd = pilot_judge_sd if judge_sd is None else judge_sd
    if sd is None:
        raise OptionError(
            "--judge-correlation needs --sd, the SD of a unit's human score (or give --judge-pilot)"
        )
    plan = ppi_budget(
        sd,
        correlation,
        human_cost=o["human_cost"],
        judge_cost=o["judge_cost"],
        target_width=o["target_width"],
        target_power=target if o["target_width"] is None else None,
        effect=difference,
        max_units=o["max_units"],
        seed=seed,
        judge_sd=judge_sd,
    )
    emit(plan.to_dict(), as_json, plan.summary)
