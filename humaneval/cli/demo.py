"""``humaneval demo``: the whole workflow on built-in defaults."""

from __future__ import annotations

import time
from pathlib import Path

import click

from humaneval.cli._checks import NONNEG, OutputPath, check_engine


@click.command()
@click.option(
    "--out",
    type=OutputPath(folder=True),
    default="humaneval-demo",
    show_default=True,
    help="Folder for everything the demo writes.",
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--engine",
    type=click.Choice(["native", "auto", "r"]),
    callback=check_engine,
    default="native",
    show_default=True,
    help="CLMM engine (the maximal R fit of the demo study takes about 5 minutes on 2 cores).",
)
def command(out: str, seed: int, engine: str) -> None:
    """Run the whole pipeline on a simulated study: design → forms → annotators → ratings → report."""
    from humaneval.demo import DemoSettings, run_demo

    start = time.perf_counter()
    result = run_demo(Path(out), seed=seed, settings=DemoSettings(engine=engine), progress=click.echo)
    for part in result.report.criteria:
        fit = part.analysis.fit
        click.echo(
            f"CLMM: {fit.structure} model, {fit.engine} engine; "
            + ", ".join(f"{s.system} {s.label}" for s in part.analysis.systems.itertuples())
        )
    click.echo(f"done in {time.perf_counter() - start:.0f} s; open {result.files['html']}")
