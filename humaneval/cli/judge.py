"""``humaneval judge``: may an automatic judge replace (or join) the human annotators?"""

from __future__ import annotations

from typing import Literal

import click

from humaneval.cli import _spans as spans
from humaneval.cli._checks import NONNEG, RESAMPLES
from humaneval.cli._common import InputFile, column_renames, emit, json_option, judge_column_option
from humaneval.core.deprecation import renamed_option
from humaneval.judges.alttest import DEFAULT_PROFILE, EPSILON_BY_PROFILE


def _self_systems(values: tuple[str, ...]) -> dict[str, list[str]] | None:
    from humaneval.errors import OptionError

    out: dict[str, list[str]] = {}
    for value in values:
        judge, sep, systems = value.partition("=")
        if not sep or not judge.strip() or not systems.strip():
            raise OptionError(
                f"--self {value!r}: write JUDGE=SYSTEM[,SYSTEM...], e.g. gpt-4o=gpt-4o,gpt-4o-mini"
            )
        out.setdefault(judge.strip(), []).extend(s.strip() for s in systems.split(",") if s.strip())
    return out or None


@click.command()
@renamed_option("--judges", "--mark-judges", metavar="NAME,...")
@click.argument("humans", type=InputFile())
@click.option(
    "--judge-file",
    type=InputFile(),
    default=None,
    help="The judges' labels: the pool document, system, score, judge of humaneval ppi and design "
    "--judge-scores, JSON {judge: {item: label}}, or a long item/annotator/label table; every annotator "
    "there is a judge.",
)
@judge_column_option
@click.option(
    "--column",
    "columns",
    multiple=True,
    metavar="CANONICAL=NAME",
    help="Map a column of the HUMANS ratings table to a canonical name, e.g. document=item_id.",
)
@click.option(
    "--mark-judges",
    default=None,
    metavar="NAME,...",
    help="Annotators of HUMANS that are judges (comma-separated; formerly --judges).",
)
@click.option(
    "--epsilon",
    type=float,
    default=None,
    help="The judge's cost–benefit allowance ε in [0, 1) (default: from --profile).",
)
@click.option(
    "--profile",
    type=click.Choice(list(EPSILON_BY_PROFILE)),
    default=None,
    help="Who the humans are: ε = "
    + ", ".join(
        f"{e:g} ({p}{', the default' if p == DEFAULT_PROFILE else ''})" for p, e in EPSILON_BY_PROFILE.items()
    )
    + ".",
)
@click.option(
    "--scoring",
    type=click.Choice(["auto", "accuracy", "neg_rmse"]),
    default="auto",
    show_default=True,
    help="Alignment with the other humans: accuracy (categories, pairwise) or -RMSE (numbers).",
)
@click.option(
    "--calibration",
    type=click.Choice(["auto", "minmax", "isotonic", "off"]),
    default="auto",
    show_default=True,
    help="Put numeric judge labels on the humans' scale: auto maps judges off it (outside the humans' "
    "range, or fractional where they are whole) by min-max; minmax/isotonic map every judge; off refuses "
    "off-scale judges.",
)
@click.option("--criterion", default=None, help="Test one criterion (default: each).")
@click.option(
    "--resamples",
    "n_resamples",
    type=RESAMPLES,
    default=1000,
    show_default=True,
    help="Bootstrap resamples of the ω, ρ, α and τ intervals and P(pass) (0 = point estimates only; "
    "otherwise >= 1000).",
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--self",
    "self_systems",
    multiple=True,
    metavar="JUDGE=SYSTEM,...",
    help="Systems of a judge's own family, for the self-preference check; repeatable.",
)
@spans.texts_option
@spans.span_scoring_option
@json_option
def command(
    humans: str,
    judge_file: str | None,
    judge_columns: dict[str, str],
    columns: tuple[str, ...],
    mark_judges: str | None,
    epsilon: float | None,
    profile: str | None,
    scoring: Literal["auto", "accuracy", "neg_rmse"],
    calibration: Literal["auto", "minmax", "isotonic", "off"],
    criterion: str | None,
    n_resamples: int,
    seed: int,
    self_systems: tuple[str, ...],
    texts: str | None,
    span_scoring: str | None,
    as_json: bool,
) -> None:
    """Test whether LLM judges may replace the annotators (alt-test), beside α, τ and a bias audit.

    A span table's automatic annotators are tested on span F1 and item scores (docs/spans.md).
    """
    span_table = spans.span_table(humans, texts, span_scoring)
    if span_table is not None:
        others = scoring != "auto" or calibration != "auto" or bool(self_systems)
        found = spans.judge(span_table, judge_file, mark_judges, epsilon, profile, criterion, others)
        return spans.present(humans, found, as_json)
    from humaneval.judges.data import load_annotations
    from humaneval.judges.verdict import assess_judges

    table = load_annotations(
        humans, judge_file, judges=mark_judges, columns=column_renames(columns), judge_columns=judge_columns
    )
    result = assess_judges(
        table,
        epsilon=epsilon,
        profile=profile,
        scoring=scoring,
        criterion=criterion,
        calibration=calibration,
        n_resamples=n_resamples,
        seed=seed,
        self_systems=_self_systems(self_systems),
        progress=lambda line: click.echo(line, err=True),
    )
    emit(result.to_dict(), as_json, result.summary)
