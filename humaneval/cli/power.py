"""``humaneval power``: Type I error and power simulation of one study, at one size or along a curve."""

from __future__ import annotations

from pathlib import Path

import click

from humaneval.cli import _spans as spans
from humaneval.cli._checks import COUNT, FINITE, NONNEG, NONNEG_F, POS, OutputPath, names
from humaneval.cli._common import InputFile, emit, json_option
from humaneval.cli.budget import grid_options, run_budget
from humaneval.clmm.structures import STRUCTURES
from humaneval.core.deprecation import renamed_option
from humaneval.errors import DesignError
from humaneval.simulate.curve import ALONG
from humaneval.simulate.experiment import FAILED_FITS
from humaneval.simulate.procedures import ENGINES, FAILURE_RULES

#: The options of the budget planner that ``power --target`` (deprecated) passes on.
GRID_KEYS = (
    "blocks", "docs", "annotators", "seconds_per_judgement", "wage", "annotator_overhead", "max_cost",
)  # fmt: skip


@click.command()
@renamed_option("--model", "--model-file", dest="model_path", type=InputFile())
@renamed_option("--rounds", "--permutations", dest="n_permutations", type=COUNT)
@click.option(
    "--model-file",
    "model_path",
    type=InputFile(),
    default=None,
    help="CLMM parameter file (JSON) to simulate from (default: built-in coherence model).",
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
    type=click.Choice(ALONG),
    default=None,
    help="Power curve along this factor (with --breaks).",
)
@click.option("--breaks", default=None, metavar="1,3,5,10", help="Sizes of the --along factor.")
@click.option(
    "--failed-fits",
    type=click.Choice(FAILED_FITS),
    default="rescue",
    show_default=True,
    help="How a failed CLMM fit counts: rescued down the fallback ladder, as not significant (with "
    "--no-fallback --failure-rule reference: the reference study's convention), or excluded.",
)
@click.option(
    "--no-fallback", is_flag=True, help="Never walk the fallback ladder (with --failed-fits miss/exclude)."
)
@click.option(
    "--failure-rule",
    type=click.Choice(FAILURE_RULES),
    default="evidence",
    show_default=True,
    help="What makes a CLMM fit failed: the engine's diagnostics (evidence: cond.H of thresholds and "
    "effects), or also cond.H > 1e6 over all parameters incl. variances (reference: R's rule in the "
    "reference study; with --failed-fits miss --no-fallback it reproduces that study's power).",
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
@click.option("--trials", type=COUNT, default=1000, show_default=True, help="Simulated studies (≤ 100,000).")
@click.option("--null", is_flag=True, help="Type I error: set every system effect to 0.")
@click.option(
    "--effect-scale",
    type=FINITE,
    default=None,
    help="Multiply the model's effects (e.g. 0.5 for half-size effects).",
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--permutations",
    "n_permutations",
    type=COUNT,
    default=1000,
    show_default=True,
    help="Monte-Carlo sign patterns of the ART when a study has more than 10 pairs (else exact).",
)
@click.option(
    "--structure",
    type=click.Choice(["auto", *STRUCTURES]),
    default="auto",
    show_default=True,
    help="CLMM structure (auto: maximal, nested if A=1).",
)
@click.option(
    "--engine", type=click.Choice(ENGINES), default="native", show_default=True, help="CLMM engine."
)
@click.option(
    "--workers", type=COUNT, default=1, show_default=True, help="Local worker processes (at most the CPUs)."
)
@click.option(
    "--force",
    is_flag=True,
    help="Lift the ceilings on --trials (100,000) and --workers (the CPU count).",
)
@click.option(
    "--scheduler", default=None, metavar="ADDR", help="dask.distributed scheduler, e.g. tcp://10.0.0.1:8786."
)
@click.option(
    "--out", type=OutputPath(folder=True), default=None, help="Folder for the checkpoint, CSV and figure."
)
@click.option("--resume", is_flag=True, help="Continue the checkpoint in --out.")
@click.option("--target", type=float, default=None, hidden=True, help="Deprecated: use 'humaneval budget'.")
@grid_options(hidden=True)
@click.option("--progress/--no-progress", default=True, show_default=True)
@click.option(
    "--alt-test",
    "alt_test",
    default=None,
    metavar="humans=3,pool=3,labels=categorical,noise_humans=0.3,...,epsilon=0.1/0.15/0.2",
    help="Plan an LLM-judge calibration instead: simulate the alternative-annotator test (docs/judges.md) at "
    "--breaks items (default 30,50,75,100,150,200) with --trials data sets each; 'default' for the defaults. "
    "pool: humans in the study (each labels items × humans / pool items; the test needs 30 per human); "
    "labels=numeric: ratings 1..points with noise SDs sd_humans, sd_judge (default 5, 0.8, 0.8), "
    "scored by -RMSE.",
)
@click.option(
    "--scale-heterogeneity",
    "scale_heterogeneity",
    default=None,
    metavar="annotators=30,documents=30,docs_per_annotator=6,effect=0.5,sd_log_scale=0.4,...",
    help="Annotators who use the scale differently: simulate a crossed design whose annotators each have a "
    "log-spread ~ N(0, sd_log_scale²) (also sd_annotator, sd_document) and fit the standard and the scale "
    "CLMM to each study: coverage, power and (unless --no-calibration) Type I error of the system contrast, "
    "and σ_s's coverage (docs/simulation.md). --trials studies (default here 200); 'default' for the "
    "defaults.",
)
@spans.texts_option
@spans.span_scoring_option
@json_option
def command(**opts) -> None:
    """Simulate power (with each test's Type I error beside it) for your study: a planned design
    table, a block design or a pilot's fitted model, at one size or along a power curve. The
    cheapest design for a target power is 'humaneval budget'. See docs/simulation.md."""
    from humaneval.stats.replicates import check_run_size

    check_run_size(opts["trials"], opts["workers"], force=opts["force"])
    if opts["calibration_trials"] is not None:
        check_run_size(opts["calibration_trials"], force=opts["force"], option="--calibration-trials")
    if opts["alt_test"] is not None:
        _alt_test(opts)
        return
    if opts["scale_heterogeneity"] is not None:
        _scale_heterogeneity(opts)
        return
    if opts["target"] is not None:
        _budget_alias(opts)
        return
    if opts["pilot"] is not None and spans.power(opts):  # a span pilot (docs/spans.md)
        return
    if (opts["along"] is None) != (opts["breaks"] is None):
        raise DesignError("--along and --breaks go together, e.g. --along annotators --breaks 1,3,5,10")
    if opts["design"] is not None and _comparative(opts):
        return
    if opts["annotator_sd"] is not None:
        raise DesignError("--annotator-sd applies to pairwise and BWS designs; a CLMM has --variance-scale")
    setups, fitted = _plan(opts)
    tests = tuple(t.strip() for t in opts["tests"].split(",") if t.strip())
    options = _simulation_options(opts)
    out_dir = Path(opts["out"]) if opts["out"] else None
    if fitted is not None and not opts["as_json"]:
        click.echo(fitted.summary())
    runs = []
    for setup in setups:
        folder = out_dir / setup.criterion if out_dir is not None and setup.criterion else out_dir
        run = _curve if opts["along"] is not None else _point
        runs.append(run(setup, tests, options, folder, opts))
    _emit(runs, fitted, opts["as_json"])


def _alt_test(opts: dict) -> None:
    """``power --alt-test``: how often a judge of given quality passes the alt-test, by number of items."""
    from humaneval.judges.simulation import simulate_alt_test

    keys = {
        "humans": int, "pool": int, "labels": str, "categories": int, "noise_humans": float,
        "noise_judge": float, "points": int, "sd_humans": float, "sd_judge": float, "epsilon": str,
    }  # fmt: skip
    settings: dict = {}
    spec = "" if opts["alt_test"].strip() == "default" else opts["alt_test"]
    for part in filter(None, (p.strip() for p in spec.split(","))):
        key, sep, value = part.partition("=")
        if not sep or key.strip() not in keys:
            raise DesignError(f"--alt-test {part!r}: use KEY=VALUE with KEY one of {', '.join(keys)}")
        try:
            settings[key.strip()] = keys[key.strip()](value.strip())
        except ValueError:
            raise DesignError(f"--alt-test {part!r}: {value.strip()!r} is not a number") from None
    epsilons = [float(e) for e in settings.pop("epsilon", "0.1/0.15/0.2").split("/")]
    sizes = [int(b) for b in (opts["breaks"] or "30,50,75,100,150,200").split(",") if b.strip()]
    names = {"humans": "n_humans", "pool": "pool_size", "categories": "n_categories"}
    result = simulate_alt_test(
        sizes,
        epsilons=epsilons,
        n_trials=opts["trials"],
        seed=opts["seed"],
        **{names.get(k, k): v for k, v in settings.items()},
    )
    emit(result.to_dict(), opts["as_json"], result.summary)


def _scale_heterogeneity(opts: dict) -> None:
    """``power --scale-heterogeneity``: does ignoring how annotators use the scale inflate Type I error or
    cost power?"""
    from humaneval.simulate.scale import scale_design, scale_power

    source = click.get_current_context().get_parameter_source("trials")
    trials = 200 if source == click.core.ParameterSource.DEFAULT else opts["trials"]
    result = scale_power(
        scale_design(opts["scale_heterogeneity"]), trials, seed=opts["seed"], calibration=opts["calibration"]
    )
    emit(result.to_dict(), opts["as_json"], result.summary)


def _comparative(opts: dict) -> bool:
    """Power of a pairwise or BWS design (:mod:`humaneval.comparative.power`); False for others."""
    from humaneval.comparative.power import run_power

    out = Path(opts["out"]) if opts["out"] else None
    unused = {
        "--model-file": opts["model_path"],
        "--pilot": opts["pilot"],
        "--formula": opts["formula"],
        "--effect-points": opts["effect_points"],
        "--effect-scale": opts["effect_scale"],
    }
    found = run_power(
        opts["design"],
        effect=opts["effect"],
        annotator_sd=opts["annotator_sd"],
        null=opts["null"],
        trials=opts["trials"],
        seed=opts["seed"],
        calibration=opts["calibration"],
        calibration_trials=opts["calibration_trials"],
        out=out,
        progress=opts["progress"] and not opts["as_json"],
        unused=unused,
        along=opts["along"],
        breaks=opts["breaks"],
        resume=opts["resume"],
        workers=opts["workers"],
        scheduler=opts["scheduler"],
    )
    if found is None:
        return False
    emit(found.to_dict(), opts["as_json"], found.summary)
    return True


def _budget_alias(opts: dict) -> None:
    """``power --target``: the budget planner under its old name, for one release."""
    click.echo(
        "warning: 'humaneval power --target' is deprecated and will be removed in the next release; "
        "use 'humaneval budget --target' (same options)",
        err=True,
    )
    tests = [t.strip() for t in opts["tests"].split(",") if t.strip()]
    grid = {k: opts[k] for k in GRID_KEYS}
    run_budget(
        opts["target"],
        opts["model_path"],
        tests[0] if len(tests) == 1 else "artagg",
        opts["trials"],
        opts["effect_scale"],
        opts["seed"],
        opts["workers"],
        opts["out"],
        opts["as_json"],
        **grid,
    )


def _plan(opts: dict):
    """The model and design of each criterion to simulate, and the pilot fit if there is one."""
    from humaneval.simulate.study import plan_study

    return plan_study(
        opts["design"],
        opts["model_path"],
        opts["pilot"],
        effect=opts["effect"],
        effect_points=opts["effect_points"],
        effect_scale=opts["effect_scale"],
        variance_scale=opts["variance_scale"],
        structure=opts["structure"],
        formula=opts["formula"],
        criterion=opts["criterion"],
    )


def _simulation_options(opts: dict) -> dict:
    """The keyword arguments of :func:`humaneval.simulate.simulate` the options ask for."""
    return dict(
        trials=opts["trials"],
        null=opts["null"],
        aggregates=tuple(a.strip() for a in opts["aggregate"].split(",") if a.strip()),
        seed=opts["seed"],
        n_permutations=opts["n_permutations"],
        structure=opts["structure"],
        clmm_engine=opts["engine"],
        failed_fits=opts["failed_fits"],
        fallback=not opts["no_fallback"],
        fit_timeout=opts["fit_timeout"],
        failure_rule=opts["failure_rule"],
        calibrate=opts["calibration"] and not opts["null"],
        calibration_trials=opts["calibration_trials"],
        workers=opts["workers"],
        scheduler=opts["scheduler"],
        resume=opts["resume"],
        progress=opts["progress"] and not opts["as_json"],
    )


def _curve(setup, tests, options, folder, opts) -> tuple[dict, str]:
    """A power curve along ``--along`` at ``--breaks``: payload and text (table and figures in ``folder``)."""
    from humaneval.simulate.curve import power_curve

    curve = power_curve(
        setup.model,
        setup.design,
        opts["along"],
        opts["breaks"],
        tests,
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
    return payload, curve.summary(setup.design, setup.notes)


def _point(setup, tests, options, folder, opts) -> tuple[dict, str]:
    """Power (or Type I error) at one design: payload and text (results and figures in ``folder``)."""
    from humaneval.simulate.curve import plot_result
    from humaneval.simulate.experiment import simulate

    result = simulate(
        setup.model,
        setup.design,
        tests,
        checkpoint=folder / "replicates.jsonl" if folder else None,
        **options,
    )
    payload = {**setup.to_dict(), **result.to_dict()}
    text = render_result(result, setup.notes)
    if not result.config.null and result.records:
        from humaneval.simulate.replicability import replicability

        agree = replicability(
            result.records, result.config.model.system_names, result.config.pairs, result.config.alpha
        )
        payload["replicability"] = agree.to_dict()
        text += "\n\n" + agree.summary()
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        result.results.to_csv(folder / "results.csv", index=False)
        payload["files"] = [str(folder / "results.csv")] + [
            str(p) for p in plot_result(result, folder / "power")
        ]
    return payload, text


def _emit(runs: list[tuple[dict, str]], fitted, as_json: bool) -> None:
    """One payload, or ``{"criteria": [...]}`` for several; the pilot fit beside each."""
    payloads = [payload for payload, _ in runs]
    if fitted is not None:
        for payload in payloads:
            payload["pilot"] = fitted.to_dict()
    single = payloads[0] if len(payloads) == 1 else {"criteria": payloads}
    emit(single, as_json, lambda: "\n\n".join(text for _, text in runs))


def render_result(result, notes=()) -> str:
    """The text of one power (or Type I error) run (:meth:`SimulationResult.summary`)."""
    return result.summary(notes)
