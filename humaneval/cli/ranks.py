"""``humaneval ranks``: confidence sets for the ranks of anyone's estimates (docs/ranks.md)."""

from __future__ import annotations

import click

from humaneval.cli._checks import NONNEG, FiniteRange
from humaneval.cli._common import InputFile, emit, json_option
from humaneval.ranks.estimates import DEFAULT_SEED
from humaneval.ranks.sets import DEFAULT_DRAWS, KINDS, MAX_DRAWS


@click.command()
@click.argument("estimates", type=InputFile())
@click.option(
    "--cov",
    "cov_path",
    type=InputFile(),
    default=None,
    help="CSV of the covariance matrix: a header of the names, one row per name in that order "
    "(default: independent estimates with the file's se column).",
)
@click.option(
    "--confidence",
    type=FiniteRange(min=0, max=1, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
)
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default="simultaneous",
    show_default=True,
    help="simultaneous: all sets cover jointly; marginal: each set covers its own rank.",
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Also list the estimates that may be among the K best (the τ-best set).",
)
@click.option("--lower-is-better", is_flag=True, help="Rank 1 is the lowest estimate.")
@click.option("--seed", type=NONNEG, default=DEFAULT_SEED, show_default=True)
@click.option(
    "--draws",
    type=click.IntRange(100, MAX_DRAWS),
    default=DEFAULT_DRAWS,
    show_default=True,
    help="Parametric bootstrap draws of the critical values.",
)
@json_option
def command(
    estimates: str,
    cov_path: str | None,
    confidence: float,
    kind: str,
    top: int | None,
    lower_is_better: bool,
    seed: int,
    draws: int,
    as_json: bool,
) -> None:
    """Confidence sets for ranks of estimates from a file (name, estimate, se), with --cov for correlated
    estimates: which ranks each may hold, which may be the best, and with --top K which may be among
    the K best (Mogstad, Romano, Shaikh & Wilhelm 2024)."""
    from humaneval.ranks.estimates import rank_sets
    from humaneval.ranks.files import read_estimates

    values, cov, se = read_estimates(estimates, cov_path)
    result = rank_sets(
        values, cov, se=se, confidence=confidence, kind=kind, top=top,
        lower_is_better=lower_is_better, seed=seed, draws=draws,
    )  # fmt: skip
    emit({"file": estimates, "cov": cov_path, **result.to_dict()}, as_json, result.summary)
