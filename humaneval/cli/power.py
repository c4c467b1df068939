"""``humaneval power``: Type I error / power simulation for one design, or the budget planner."""

from __future__ import annotations

from pathlib import Path

import click

from humaneval.cli._checks import COUNT, FINITE, NONNEG, POS, OutputPath, names
from humaneval.cli._common import InputFile, emit, json_option


def _ints(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise click.BadParameter(f"{text!r}: give whole numbers separated by commas, e.g. 5,10,20") from None


@click.command()
@click.option(
    "--model",
    "model_path",
    type=InputFile(),
    default=None,
    help="CLMM JSON (default: built-in coherence model).",
)
@click.option(
    "--design",
    default="20x5x3",
    show_default=True,
    metavar="blocks=B,docs=D,annotators=A",
    help="Block design (or BxDxA).",
)
@click.option(
    "--tests",
    callback=names,
    default="ttest,art,artagg",
    show_default=True,
    help="Any of ttest, art, artagg, clmm.",
)
@click.option(
    "--aggregate",
    callback=names,
    default="none,document",
    show_default=True,
    help="Levels for ttest/art: none, document, cluster.",
)
@click.option("--trials", type=COUNT, default=1000, show_default=True)
@click.option("--null", is_flag=True, help="Type I error: set every system effect to 0.")
@click.option(
    "--effect-scale",
    type=FINITE,
    default=None,
    help="Multiply the model's effects (e.g. 0.5 for half-size effects).",
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option("--rounds", type=int, default=1000, show_default=True, help="ART randomisation rounds.")
@click.option(
    "--structure", default="auto", show_default=True, help="CLMM structure (auto: maximal, nested if A=1)."
)
@click.option(
    "--engine", type=click.Choice(["native", "r"]), default="native", show_default=True, help="CLMM engine."
)
@click.option("--workers", type=int, default=1, show_default=True, help="Local worker processes.")
@click.option(
    "--scheduler", default=None, metavar="ADDR", help="dask.distributed scheduler, e.g. tcp://10.0.0.1:8786."
)
@click.option(
    "--out", type=OutputPath(folder=True), default=None, help="Folder for the checkpoint, CSV and figure."
)
@click.option("--resume", is_flag=True, help="Continue the checkpoint in --out.")
@click.option(
    "--target", type=float, default=None, help="Budget mode: find the cheapest design reaching this power."
)
@click.option("--blocks", default="6,10,15,20,30,45,60", show_default=True, help="Budget mode: candidate B.")
@click.option("--docs", default="2,5,10", show_default=True, help="Budget mode: candidate D.")
@click.option("--annotators", default="1,2,3", show_default=True, help="Budget mode: candidate A.")
@click.option("--seconds-per-judgement", type=POS, default=32.0, show_default=True)
@click.option("--wage", type=float, default=15.0, show_default=True, help="Budget mode: pay per hour.")
@click.option(
    "--annotator-overhead",
    type=float,
    default=0.0,
    show_default=True,
    help="Budget mode: seconds per annotator (recruiting, instructions).",
)
@click.option("--max-cost", type=float, default=None, help="Budget mode: skip designs costing more.")
@click.option("--progress/--no-progress", default=True, show_default=True)
@json_option
def command(
    model_path,
    design,
    tests,
    aggregate,
    trials,
    null,
    effect_scale,
    seed,
    rounds,
    structure,
    engine,
    workers,
    scheduler,
    out,
    resume,
    target,
    blocks,
    docs,
    annotators,
    seconds_per_judgement,
    wage,
    annotator_overhead,
    max_cost,
    progress,
    as_json,
) -> None:
    """Simulate Type I error or power of significance tests for a study design (spec §6),
    or with --target find the cheapest design reaching a power (spec §7)."""
    test_names = tuple(t.strip() for t in tests.split(",") if t.strip())
    out_dir = Path(out) if out else None
    if target is not None:
        from humaneval.simulate.budget import CostModel, plan_budget

        plan = plan_budget(
            model_path,
            target,
            cost_model=CostModel(seconds_per_judgement, wage, annotator_overhead),
            blocks=_ints(blocks),
            docs=_ints(docs),
            annotators=_ints(annotators),
            test=test_names[0] if len(test_names) == 1 else "artagg",
            max_cost=max_cost,
            trials=trials,
            seed=seed,
            effects=effect_scale,
            workers=workers,
        )
        payload = plan.to_dict()
        if out_dir is not None:
            out_dir.mkdir(parents=True, exist_ok=True)
            plan.candidates.to_csv(out_dir / "budget.csv", index=False)
            payload["figure"] = str(plan.plot(out_dir / "budget.png"))
        emit(payload, as_json, lambda: _render_plan(plan))
        return
    from humaneval.simulate.experiment import simulate

    result = simulate(
        model_path,
        design,
        test_names,
        trials=trials,
        null=null,
        effects=effect_scale,
        aggregates=tuple(a.strip() for a in aggregate.split(",") if a.strip()),
        seed=seed,
        rounds=rounds,
        clmm_structure=structure,
        clmm_engine=engine,
        workers=workers,
        scheduler=scheduler,
        checkpoint=out_dir / "replicates.jsonl" if out_dir else None,
        resume=resume,
        progress=progress and not as_json,
    )
    payload = result.to_dict()
    if out_dir is not None:
        result.results.to_csv(out_dir / "results.csv", index=False)
    emit(payload, as_json, lambda: _render_result(result))


def _render_result(result) -> str:
    cfg = result.config
    kind = "Type I error" if cfg.null else "power"
    lines = [
        f"{kind} of {cfg.design.label} (B×D×A, {cfg.design.family}), "
        f"{result.overall()['n_trials'].iloc[0]} trials, seed {cfg.seed}"
    ]
    for row in result.overall().itertuples():
        extra = (
            f"  failed {row.n_failed}, excluding failures {row.rate_successful:.3f}" if row.n_failed else ""
        )
        lines.append(f"  {row.test:<6} {row.aggregate:<9} {row.rate:.3f} ± {row.mc_se:.3f}{extra}")
    if result.rungs:
        lines.append("  CLMM rungs: " + ", ".join(f"{k} {v}" for k, v in result.rungs.items()))
    return "\n".join(lines)


def _render_plan(plan) -> str:
    lines = [
        f"{len(plan.candidates)} designs screened with {plan.test} ({plan.aggregate}), "
        f"target power {plan.target:g}"
    ]
    if plan.best is not None:
        b = plan.best
        lines.append(
            f"cheapest: {b['blocks']} blocks × {b['docs']} docs × {b['annotators']} annotators "
            f"({b['total_annotators']} annotators, {b['judgements']} judgements, cost {b['cost']:.2f}), "
            f"power {b['power']:.3f} ± {b['mc_se']:.3f}"
        )
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines)
