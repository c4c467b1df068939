"""``humaneval demo``: the whole workflow on built-in defaults."""

from __future__ import annotations

import time
from pathlib import Path

import click

from humaneval.cli._checks import NONNEG, OutputPath, check_engine
from humaneval.methods import METHODS

#: Methods the demo can simulate: whole-number ratings (Likert) and the comparative methods.
DEMO_METHODS = tuple(name for name, m in METHODS.items() if m.is_comparative or m.integer)


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
@click.option(
    "--criteria",
    default=None,
    help="Ask several questions per summary on one screen, e.g. coherence,consistency,fluency,relevance "
    "(built-in criteria, name:points, or a YAML/JSON criteria file).",
)
@click.option(
    "--method",
    type=click.Choice(DEMO_METHODS),
    default="likert",
    show_default=True,
    help="Annotation method of the simulated study (pairwise, bws, rank: comparative judgements).",
)
@click.option(
    "--judge",
    is_flag=True,
    help="Humans and an LLM judge instead: judge-scored pool → calibration design → simulated Prolific "
    "participants → judge → ppi → report (README, 'Humans and an LLM judge').",
)
def command(out: str, seed: int, engine: str, criteria: str | None, method: str, judge: bool) -> None:
    """Run the whole pipeline on a simulated study: design → forms → annotators → ratings → report."""
    if judge:
        from humaneval.demo.judged import run_judged_demo

        start = time.perf_counter()
        judged = run_judged_demo(Path(out), seed=seed, progress=click.echo)
        click.echo(f"done in {time.perf_counter() - start:.0f} s; open {judged.files['html']}")
        return
    from humaneval.demo import DemoSettings, run_demo
    from humaneval.design.criteria import parse_criteria

    chosen = parse_criteria(criteria) if criteria else ()
    start = time.perf_counter()
    settings = DemoSettings(engine=engine, criteria=chosen, method=method)
    result = run_demo(Path(out), seed=seed, settings=settings, progress=click.echo)
    for part in result.report.criteria:
        fit = part.analysis.fit
        model = (
            part.analysis.test
            if fit is None
            else fit.structure
            if hasattr(fit, "inference")
            else f"CLMM: {fit.structure} model, {fit.engine} engine"
        )
        click.echo(
            (f"[{part.criterion}] " if len(result.report.criteria) > 1 else "")
            + f"{model}; "
            + ", ".join(f"{s.system} {s.label}" for s in part.analysis.systems.itertuples())
        )
    click.echo(f"done in {time.perf_counter() - start:.0f} s; open {result.files['html']}")
