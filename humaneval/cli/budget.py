"""``humaneval budget``: the cheapest block design that reaches a target power (docs/simulation.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from humaneval.cli._checks import COUNT, FINITE, NONNEG, NONNEG_F, POS, WAGE, OutputPath
from humaneval.cli._common import InputFile, emit, json_option
from humaneval.cli._judge_budget import JUDGE_OPTIONS, judge_options, run_judge_budget
from humaneval.core.deprecation import renamed_option
from humaneval.simulate.procedures import TESTS

if TYPE_CHECKING:
    from humaneval.clmm.model import OrdinalModel


def ints(text: str) -> tuple[int, ...]:
    """``"5,10,20"`` as whole numbers; anything else is a one-line option error."""
    try:
        return tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: give whole numbers separated by commas, e.g. 5,10,20") from None


def grid_options(hidden: bool = False) -> Callable[[Callable], Callable]:
    """The candidate grid and cost model of the planner (shared with the deprecated ``power --target``)."""
    options = [
        click.option(
            "--blocks",
            default="6,10,15,20,30,45,60",
            show_default=True,
            hidden=hidden,
            help="Candidate numbers of blocks B.",
        ),
        click.option(
            "--docs",
            default="2,5,10",
            show_default=True,
            hidden=hidden,
            help="Candidate documents per block D.",
        ),
        click.option(
            "--annotators",
            default="1,2,3",
            show_default=True,
            hidden=hidden,
            help="Candidate annotators per block A.",
        ),
        click.option(
            "--seconds-per-judgement",
            type=POS,
            default=None,
            hidden=hidden,
            help="Annotator time per judgement [default: the --design's seconds per screen, else 32, the "
            "reference study's mean Likert screen].",
        ),
        click.option(
            "--wage",
            type=WAGE,
            default=None,
            hidden=hidden,
            help="Pay per hour [default: the --design's wage, else 15].",
        ),
        click.option(
            "--currency",
            default=None,
            hidden=hidden,
            help="Currency of --wage and the costs [default: the --design's, else USD].",
        ),
        click.option(
            "--annotator-overhead",
            type=NONNEG_F,
            default=0.0,
            show_default=True,
            hidden=hidden,
            help="Seconds paid per annotator (recruiting, instructions).",
        ),
        click.option(
            "--max-cost", type=NONNEG_F, default=None, hidden=hidden, help="Skip designs costing more."
        ),
    ]

    def decorate(func: Callable) -> Callable:
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


@click.command()
@click.option("--target", type=float, default=None, help="Power to reach, e.g. 0.8.")
@renamed_option("--model", "--model-file", dest="model_path", type=InputFile())
@click.option(
    "--model-file",
    "model_path",
    type=InputFile(),
    default=None,
    help="CLMM parameter file (JSON) to simulate from (default: built-in coherence model).",
)
@click.option(
    "--design",
    type=InputFile(),
    default=None,
    help="A design from 'humaneval design': its systems, scale, seconds per screen, wage and currency.",
)
@click.option(
    "--pilot",
    type=InputFile(),
    default=None,
    help="Pilot ratings: fit the CLMM (native engine) and simulate from the fit, as 'power' does.",
)
@click.option(
    "--effect",
    default=None,
    metavar="A-B=V,…|V",
    help="Smallest effects on the latent scale, as for 'power' ('BART-seneca=0.5' or 0.5).",
)
@click.option(
    "--effect-points", default=None, metavar="A-B=V,…|V", help="As --effect, in expected-score points."
)
@click.option("--criterion", default=None, help="The criterion of the design or pilot to plan for.")
@grid_options()
@click.option(
    "--test",
    type=click.Choice(TESTS),
    default="artagg",
    show_default=True,
    help="The screening test (artagg: the ART on independent block means).",
)
@click.option("--trials", type=COUNT, default=200, show_default=True, help="Replicates per candidate design.")
@click.option("--effect-scale", type=FINITE, default=None, help="Multiply the model's effects.")
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--workers", type=COUNT, default=1, show_default=True, help="Local worker processes (at most the CPUs)."
)
@click.option(
    "--force",
    is_flag=True,
    help="Lift the ceilings on --trials (100,000) and --workers (the CPU count).",
)
@click.option(
    "--out", type=OutputPath(folder=True), default=None, help="Folder for budget.csv and the figure."
)
@judge_options
@json_option
def command(
    target, model_path, test, trials, effect_scale, seed, workers, force, out, as_json, **options
) -> None:
    """Find the cheapest block design (B blocks × D documents × A annotators) whose simulated power
    reaches --target, screening a grid of candidates with one cheap test. The model comes from
    --model-file, --pilot or --design with --effect, as for 'power'; money is in the design's currency
    and wage. See docs/simulation.md. With --judge-correlation or --judge-pilot: the cheapest numbers
    of human-rated and judge-only units for a judge beside the humans (docs/ppi.md)."""
    from humaneval.stats.replicates import check_run_size

    check_run_size(trials, workers, force=force)
    judge = {k: options.pop(k) for k in JUDGE_OPTIONS}
    if judge["judge_correlation"] is not None or judge["judge_pilot"] is not None:
        return run_judge_budget(target, seed, as_json, effect=options["effect"], **judge)
    if target is None:
        raise click.UsageError("Missing option '--target'.")
    run_budget(target, model_path, test, trials, effect_scale, seed, workers, out, as_json, **options)


def run_budget(
    target: float,
    model_path: str | None,
    test: str,
    trials: int,
    effect_scale: float | None,
    seed: int,
    workers: int,
    out: str | None,
    as_json: bool,
    *,
    blocks: str,
    docs: str,
    annotators: str,
    seconds_per_judgement: float | None,
    wage: float | None,
    annotator_overhead: float,
    max_cost: float | None,
    currency: str | None = None,
    design: str | None = None,
    pilot: str | None = None,
    effect: str | None = None,
    effect_points: str | None = None,
    criterion: str | None = None,
) -> None:
    """Screen the grid with :func:`~humaneval.simulate.budget.plan_budget` and print or write the plan."""
    from humaneval.simulate.budget import CostModel, design_costs, plan_budget

    model: OrdinalModel | str | None = model_path
    notes: tuple[str, ...] = ()
    if any(v is not None for v in (design, pilot, effect, effect_points)):
        from humaneval.simulate.study import plan_study

        setups, _ = plan_study(
            design, model_path, pilot, effect=effect, effect_points=effect_points,
            effect_scale=effect_scale, criterion=criterion,
        )  # fmt: skip
        model, notes, effect_scale = setups[0].model, setups[0].notes, None
        if len(setups) > 1:
            notes += (
                f"planned for criterion {setups[0].criterion} (of {len(setups)}); choose with --criterion",
            )
    planned = design_costs(design) if design is not None else {}
    cost_model = CostModel(
        seconds_per_judgement if seconds_per_judgement is not None else planned.get("seconds", 32.0),
        wage if wage is not None else planned.get("wage", 15.0),
        annotator_overhead,
        currency or planned.get("currency", "USD"),
    )
    plan = plan_budget(
        model,
        target,
        cost_model=cost_model,
        blocks=ints(blocks),
        docs=ints(docs),
        annotators=ints(annotators),
        test=test,
        max_cost=max_cost,
        trials=trials,
        seed=seed,
        effects=effect_scale,
        workers=workers,
        notes=notes,
    )
    payload = plan.to_dict()
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        plan.candidates.to_csv(folder / "budget.csv", index=False)
        payload["figure"] = str(plan.plot(folder / "budget.png"))
    emit(payload, as_json, plan.summary)
