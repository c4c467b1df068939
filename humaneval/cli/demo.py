"""``humaneval demo``: the whole workflow on built-in defaults."""

from __future__ import annotations

from pathlib import Path

import click

from humaneval.cli.validate import render_structure
from humaneval.demo import run_demo


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="humaneval-demo",
    show_default=True,
    help="Folder for everything the demo writes.",
)
@click.option("--seed", type=int, default=1, show_default=True)
def command(out: str, seed: int) -> None:
    """Run an end-to-end demo study on the built-in coherence model."""
    result = run_demo(Path(out), seed=seed)
    click.echo(
        f"sampled {len(result.ratings)} ratings from the built-in coherence model "
        f"(Steen & Markert, EACL 2021) into {result.ratings_path}"
    )
    click.echo(render_structure(str(result.ratings_path), result.structure))
