"""``humaneval compare-runs``: a repeat study against the original (docs/reproducibility.md)."""

from __future__ import annotations

import click

from humaneval.cli._checks import NONNEG, FiniteRange
from humaneval.cli._common import InputFile, emit, json_option


@click.command()
@click.argument("original", type=InputFile())
@click.argument("repeat", type=InputFile())
@click.option(
    "--scale-min",
    type=float,
    default=None,
    help="Lowest value of the scale, subtracted before CV* [default: the ratings' scale minimum; 0 for "
    "system, value files].",
)
@click.option(
    "--alpha",
    type=FiniteRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="Level at which swap_p flags a pair of systems.",
)
@click.option(
    "--permutations",
    type=click.IntRange(99, 1_000_000),
    default=9999,
    show_default=True,
    help="Random permutations when the exact test has too many.",
)
@click.option("--seed", type=NONNEG, default=1, show_default=True, help="Seed of the random permutations.")
@json_option
def command(
    original: str,
    repeat: str,
    scale_min: float | None,
    alpha: float,
    permutations: int,
    seed: int,
    as_json: bool,
) -> None:
    """Compare a repeat study with the original: CV* per system mean, Spearman and Kendall between the
    runs' system rankings, and swap_p for every pair of systems whose labels may have been exchanged.

    ORIGINAL and REPEAT are two ratings tables of the same systems, or two tables system, value
    (optional criterion, document columns)."""
    from humaneval.reproducibility.compare import compare_runs

    result = compare_runs(
        original, repeat, scale_min=scale_min, alpha=alpha, n_permutations=permutations, seed=seed
    )
    emit({"original": original, "repeat": repeat, **result.to_dict()}, as_json, result.summary)
