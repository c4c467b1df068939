"""``humaneval report``: one study report (HTML + figures, JSON, Markdown, LaTeX) from a ratings file."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from humaneval.cli import _spans as spans
from humaneval.cli._checks import NONNEG, FiniteRange, OutputPath, check_design, check_engine, check_preset
from humaneval.cli._common import (
    InputFile,
    emit,
    json_option,
    judge_column_option,
    load_from_options,
    ratings_options,
)
from humaneval.clmm.structures import STRUCTURES
from humaneval.core.deprecation import renamed_option
from humaneval.errors import OptionError
from humaneval.judges.alttest import DEFAULT_PROFILE, EPSILON_BY_PROFILE
from humaneval.report.build import POWER_MINUTES

if TYPE_CHECKING:
    from humaneval.design.plan import Design


@click.command()
@renamed_option("--model", "--model-file", type=InputFile())
@renamed_option("--analysis-model", "--structure", type=click.Choice(["auto", *STRUCTURES]))
@click.argument("ratings", type=InputFile())
@click.option(
    "--design",
    type=InputFile(),
    callback=check_design,
    default=None,
    help="Planned design (design.csv or design.json): adds the design summary and the datasheet.",
)
@click.option(
    "--model-file",
    type=InputFile(),
    default=None,
    help="CLMM JSON to simulate power from (default: the model the analysis fits).",
)
@click.option(
    "--times",
    type=InputFile(),
    default=None,
    help="Timing table (annotator, time_stamp seconds) for the time-vs-reliability curve.",
)
@click.option(
    "--engine",
    type=click.Choice(["auto", "r", "native"]),
    callback=check_engine,
    default="auto",
    show_default=True,
    help="CLMM engine of the analysis (auto: native; R only with --engine r).",
)
@click.option(
    "--structure",
    type=click.Choice(["auto", *STRUCTURES]),
    default="auto",
    show_default=True,
    help="Random-effect structure of the CLMM.",
)
@click.option(
    "--preset",
    callback=check_preset,
    default=None,
    metavar="NAME|FILE",
    help="Forms preset the study used (fills the datasheet's form fields; with --design).",
)
@click.option(
    "--seed",
    type=NONNEG,
    default=1,
    show_default=True,
    help="Seed of every random step (bootstrap, splits, simulation).",
)
@click.option(
    "--power-trials",
    type=NONNEG,
    default=200,
    show_default=True,
    help="Simulated studies per design for ARTagg power (0 = no power note).",
)
@click.option(
    "--clmm-power-trials",
    type=NONNEG,
    default=20,
    show_default=True,
    help="Simulated studies for the CLMM's power on this design (about 1-3 s each).",
)
@click.option(
    "--scale-use",
    is_flag=True,
    help="Add each criterion's annotator scale-use figure (one more CLMM fit per criterion).",
)
@click.option(
    "--power-minutes",
    type=FiniteRange(min=0, min_open=True),
    default=POWER_MINUTES,
    show_default=True,
    help="CPU minutes the power of a pairwise or best-worst study may take: the time is estimated from "
    "the analysis's fit first, and fewer studies are simulated to fit (none below 20, with a note).",
)
@click.option(
    "--style-columns",
    default=None,
    metavar="COLUMNS",
    help="Pairwise tables: comma-separated style-difference columns entered as covariates of the "
    "Bradley-Terry model, as in 'humaneval analyze --style-columns' (docs/analysis.md).",
)
@click.option(
    "--out",
    type=OutputPath(folder=True),
    default="report",
    show_default=True,
    help="Folder for index.html and the other files.",
)
@click.option("--heds", is_flag=True, help="Also write heds.json: the HEDS 3.0 datasheet in the form's JSON.")
@click.option(
    "--prereg",
    type=InputFile(),
    default=None,
    help="The study's prereg.json (design --prereg): every deviation from it is listed in 'Read this first'.",
)
@click.option(
    "--exclude-policy",
    default=None,
    metavar="FLAG[,FLAG]",
    help="With --prereg: the QC flags the ratings were cleaned with (qc --exclude), compared with the "
    "preregistered exclusion rule.",
)
@ratings_options
@click.option(
    "--judge-file",
    type=InputFile(),
    default=None,
    help="The judges' scores of the pool (the file of humaneval ppi and design --judge-scores): adds the "
    "judge assessment and the prediction-powered analysis (docs/judges.md, docs/ppi.md).",
)
@judge_column_option
@spans.texts_option
@spans.scoring_option
@click.option(
    "--profile",
    type=click.Choice(list(EPSILON_BY_PROFILE)),
    default=None,
    help="Who the humans are, for the judges' alt-test: ε = "
    + ", ".join(f"{e:g} ({p})" for p, e in EPSILON_BY_PROFILE.items())
    + f" (default {DEFAULT_PROFILE}).",
)
@click.option(
    "--epsilon",
    type=FiniteRange(0, 1, max_open=True),
    default=None,
    help="The alt-test's cost–benefit allowance ε (default: from --profile).",
)
@json_option
def command(
    ratings: str,
    design: str | None,
    model_file: str | None,
    times: str | None,
    engine: str,
    structure: str,
    preset: str | None,
    seed: int,
    power_trials: int,
    clmm_power_trials: int,
    power_minutes: float,
    style_columns: str | None,
    out: str,
    heds: bool,
    prereg: str | None,
    exclude_policy: str | None,
    judge_file: str | None,
    judge_columns: dict[str, str],
    profile: str | None,
    epsilon: float | None,
    scale_use: bool,
    as_json: bool,
    texts: str | None,
    scoring: str | None,
    **options,
) -> None:
    """Write a study report: summary, results with figures, reliability, QC, power and datasheet."""
    from humaneval.report.build import ReportSettings, build_report
    from humaneval.report.render import write_report

    table = spans.span_table(ratings, texts, scoring) or load_from_options(ratings, **options)
    settings = ReportSettings(
        engine=engine,
        structure=structure,
        seed=seed,
        power_trials=power_trials,
        clmm_power_trials=clmm_power_trials,
        power_minutes=power_minutes,
        style=tuple(c.strip() for c in (style_columns or "").split(",") if c.strip()),
        epsilon=epsilon,
        profile=profile,
        scale_use=scale_use,
    )
    scores = None
    if judge_file is not None:
        from humaneval.core.judge_scores import read_judge_scores

        scores = read_judge_scores(judge_file, columns=judge_columns)
    planned, policy = None, None
    if prereg is not None:  # read and checked before the analysis, which takes minutes
        from humaneval.reproducibility.prereg import check_policy, read_prereg

        planned = read_prereg(prereg)
        if exclude_policy is not None:
            policy = check_policy([f.strip() for f in exclude_policy.split(",") if f.strip()])
    elif exclude_policy is not None:
        raise OptionError("--exclude-policy is compared with a preregistration: give --prereg too")
    progress = None if as_json else (lambda msg: click.echo(msg, err=True))
    report = build_report(
        table,
        design=design,
        model=model_file,
        times=times,
        preset=preset,
        settings=settings,
        source=ratings,
        progress=progress,
        judge_scores=scores,
    )
    if planned is not None:
        from humaneval.reproducibility.prereg import deviations, with_deviations

        found = deviations(planned, report, design=_design(design), exclusion_policy=policy)
        report = with_deviations(report, found)
    files = write_report(report, Path(out))
    if heds:
        from humaneval.reproducibility.heds import heds_from_report

        files["heds"] = heds_from_report(report, design=design).write(Path(out) / "heds.json")
    payload = {"out": str(out), "files": {k: str(v) for k, v in files.items()}, "warnings": report.warnings}
    emit(payload, as_json, lambda: f"report written to {files['html']}")


def _design(path: str | None) -> Design | None:
    """The design with its manifest (None without one: its hash cannot be compared)."""
    if path is None:
        return None
    from humaneval.design.load import load_design
    from humaneval.design.plan import Design

    loaded = load_design(path)
    return loaded if isinstance(loaded, Design) else None
