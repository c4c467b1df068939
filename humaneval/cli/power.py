"""``humaneval power``: Type I error / power simulation for one design, or the budget planner."""

from __future__ import annotations

from pathlib import Path

import click
import numpy as np

from humaneval.cli._checks import COUNT, FINITE, NONNEG, NONNEG_F, POS, OutputPath, names
from humaneval.cli._common import InputFile, emit, json_option
from humaneval.errors import DesignError


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
    default=None,
    metavar="FILE|blocks=B,docs=D,annotators=A",
    help="A design CSV from 'humaneval design' (simulated row by row, each criterion), or a block design "
    "(BxDxA). Default: the pilot's own design, else 20x5x3.",
)
@click.option(
    "--pilot",
    type=InputFile(),
    default=None,
    help="Pilot ratings: fit the CLMM (native engine) and simulate from the fit.",
)
@click.option("--formula", default=None, help="Model formula for the pilot fit (general CLMM engine).")
@click.option("--criterion", default=None, help="Simulate only this criterion of the design or pilot.")
@click.option(
    "--effect",
    default=None,
    metavar="A-B=V,…|V",
    help="Smallest effects on the latent scale: 'BART-seneca=0.5', 'BART=0.5' (vs the reference), or a bare "
    "0.5 for every system vs the reference.",
)
@click.option(
    "--effect-points",
    default=None,
    metavar="A-B=V,…|V",
    help="As --effect, in points of expected score (solved with the random effects integrated out).",
)
@click.option("--variance-scale", type=POS, default=None, help="Multiply every random-effect variance.")
@click.option(
    "--annotator-sd",
    type=NONNEG_F,
    default=None,
    help="Pairwise/BWS designs: SD of the annotator × system deviations (logit scale; default 0.5).",
)
@click.option(
    "--along",
    type=click.Choice(["blocks", "documents", "annotators"]),
    default=None,
    help="Power curve along this factor (with --breaks).",
)
@click.option("--breaks", default=None, metavar="1,3,5,10", help="Sizes of the --along factor.")
@click.option(
    "--failed-fits",
    type=click.Choice(["rescue", "miss", "exclude"]),
    default="rescue",
    show_default=True,
    help="A failed CLMM fit: rescued down the fallback ladder, counted as non-significant (reference "
    "convention), or excluded.",
)
@click.option(
    "--no-fallback", is_flag=True, help="Never walk the fallback ladder (with --failed-fits miss/exclude)."
)
@click.option(
    "--fit-timeout",
    type=POS,
    default=900.0,
    show_default=True,
    help="Seconds per CLMM fit, all rungs together; longer counts as failed.",
)
@click.option(
    "--calibration/--no-calibration",
    default=True,
    show_default=True,
    help="Report each test's Type I error on the same design beside its power.",
)
@click.option("--calibration-trials", type=COUNT, default=None, help="Null replicates (default: --trials).")
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
    pilot,
    formula,
    criterion,
    effect,
    effect_points,
    variance_scale,
    annotator_sd,
    along,
    breaks,
    failed_fits,
    no_fallback,
    fit_timeout,
    calibration,
    calibration_trials,
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
    """Simulate power (with each test's Type I error beside it) for your study: a planned design
    table, a block design or a pilot's fitted model, at one size or along a power curve; or with
    --target find the cheapest block design reaching a power. See docs/simulation.md."""
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
    if design is not None:
        from humaneval.comparative.power import run_power

        found = run_power(
            design, effect=effect, annotator_sd=annotator_sd, null=null, trials=trials, seed=seed,
            calibration=calibration, calibration_trials=calibration_trials, out=out_dir,
            progress=progress and not as_json,
            unused={"--model": model_path, "--pilot": pilot, "--formula": formula,
                    "--effect-points": effect_points, "--effect-scale": effect_scale, "--resume": resume},
            along=along, breaks=breaks,
        )  # fmt: skip
        if found is not None:
            return emit(found.to_dict(), as_json, found.summary)
    if annotator_sd is not None:
        raise DesignError("--annotator-sd applies to pairwise and BWS designs; a CLMM has --variance-scale")
    from humaneval.simulate.study import plan_study

    if (along is None) != (breaks is None):
        raise DesignError("--along and --breaks go together, e.g. --along annotators --breaks 1,3,5,10")
    setups, fitted = plan_study(
        design,
        model_path,
        pilot,
        effect=effect,
        effect_points=effect_points,
        effect_scale=effect_scale,
        variance_scale=variance_scale,
        structure=structure,
        formula=formula,
        criterion=criterion,
    )
    options = dict(
        trials=trials,
        null=null,
        aggregates=tuple(a.strip() for a in aggregate.split(",") if a.strip()),
        seed=seed,
        rounds=rounds,
        clmm_structure=structure,
        clmm_engine=engine,
        failed_fits=failed_fits,
        fallback=not no_fallback,
        fit_timeout=fit_timeout,
        calibrate=calibration and not null,
        calibration_trials=calibration_trials,
        workers=workers,
        scheduler=scheduler,
        resume=resume,
        progress=progress and not as_json,
    )
    payloads, texts = [], []
    if fitted is not None and not as_json:
        click.echo(fitted.summary())
    for setup in setups:
        folder = out_dir / setup.criterion if out_dir is not None and setup.criterion else out_dir
        if along is not None:
            from humaneval.simulate.curve import power_curve

            curve = power_curve(
                setup.model,
                setup.design,
                along,
                breaks,
                test_names,
                checkpoint=folder / "checkpoints" if folder else None,
                **options,
            )
            payload = {**setup.to_dict(), "kind": "power_curve", **curve.to_dict()}
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
                curve.table.to_csv(folder / "power_curve.csv", index=False)
                payload["files"] = [str(folder / "power_curve.csv")] + [
                    str(p) for p in curve.plot(folder / "power_curve")
                ]
            payloads.append(payload)
            texts.append(_render_curve(setup, curve))
            continue
        from humaneval.simulate.curve import plot_result
        from humaneval.simulate.experiment import simulate

        result = simulate(
            setup.model,
            setup.design,
            test_names,
            checkpoint=folder / "replicates.jsonl" if folder else None,
            **options,
        )
        payload = {**setup.to_dict(), **result.to_dict()}
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            result.results.to_csv(folder / "results.csv", index=False)
            payload["files"] = [str(folder / "results.csv")] + [
                str(p) for p in plot_result(result, folder / "power")
            ]
        payloads.append(payload)
        texts.append(_render_result(result, setup.notes))
    if fitted is not None:
        for payload in payloads:
            payload["pilot"] = fitted.to_dict()
    single = payloads[0] if len(payloads) == 1 else {"criteria": payloads}
    emit(single, as_json, lambda: "\n\n".join(texts))


def _interval(rate: float, low: float, high: float) -> str:
    return f"{rate:.3f} [{low:.3f}, {high:.3f}]"


def _render_curve(setup, curve) -> str:
    lines = [f"power curve along {curve.along} ({setup.criterion or 'one criterion'})"]
    lines += [f"  {n}" for n in setup.notes]
    head = f"  {'break':>6} {'test':<6} {'level':<9} {'power [95% CI]':<24} failed"
    calibrated = "type1" in curve.table
    lines.append(head + ("  Type I [95% CI]" if calibrated else ""))
    for row in curve.table.to_dict(orient="records"):
        line = (
            f"  {row['break']:>6} {row['test']:<6} {row['aggregate']:<9} "
            f"{_interval(row['rate'], row['ci_low'], row['ci_high']):<24} {row['n_failed']:>6}"
        )
        if calibrated:
            line += "  " + _interval(row["type1"], row["type1_ci_low"], row["type1_ci_high"])
        lines.append(line)
    return "\n".join(lines)


def _render_result(result, notes=()) -> str:
    cfg = result.config
    kind = "Type I error" if cfg.null else "power"
    shape = "B×D×A, " if hasattr(cfg.design, "docs") else ""
    lines = [f"{kind} of {cfg.design.label} ({shape}{cfg.design.family}), seed {cfg.seed}"]
    lines += [f"  {n}" for n in notes]
    calibration = None if result.calibration is None else result.calibration.overall()
    lines.append(
        f"  {'test':<6} {'level':<9} {kind + ' [95% CI]':<26}"
        + ("  Type I [95% CI]" if calibration is not None else "")
    )
    for k, row in enumerate(result.overall().itertuples()):
        line = f"  {row.test:<6} {row.aggregate:<9} {_interval(row.rate, row.ci_low, row.ci_high):<26}"
        if calibration is not None:
            cal = calibration.iloc[k]
            line += "  " + _interval(cal["rate"], cal["ci_low"], cal["ci_high"])
        lines.append(line)
    if result.rungs:
        total = sum(result.rungs.values())
        convention = {
            "rescue": "failed fits rescued down the fallback ladder; failing every rung = not significant",
            "miss": "a failed fit counts as not significant (reference convention)",
            "exclude": "failed fits are left out of the power",
        }[cfg.failed_fits]
        lines.append(
            f"  CLMM fits ({total} replicates): "
            + ", ".join(f"{k} {v}" for k, v in sorted(result.rungs.items()))
            + f"; {convention}"
        )
        clmm = result.overall()
        clmm = clmm[clmm["test"] == "clmm"]
        if not clmm.empty and not cfg.null:
            row = clmm.iloc[0]
            shown = [
                f"{name} {row['rate_' + name]:.3f}"
                for name in ("rescue", "miss", "exclude")
                if np.isfinite(row["rate_" + name])
            ]
            lines.append("  CLMM power by failed-fit convention: " + ", ".join(shown))
        if result.calibration is not None and result.calibration.rungs:
            lines.append(
                "  CLMM fits under the null: "
                + ", ".join(f"{k} {v}" for k, v in sorted(result.calibration.rungs.items()))
            )
    lines += [f"  warning: {w}" for w in result.calibration_warnings()]
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
            f"power {_interval(b['power'], b['ci_low'], b['ci_high'])}"
        )
    lines += [f"note: {n}" for n in plan.notes]
    return "\n".join(lines)
