"""``humaneval reliability``: Krippendorff's α with a KALPHA interval, Fleiss' κ, split-half reliability."""

from __future__ import annotations

import click

from humaneval._deprecation import renamed_option
from humaneval.cli._checks import NONNEG, RESAMPLES
from humaneval.cli._common import InputFile, emit, json_option, load_from_options, ratings_options
from humaneval.reliability.disagreement import LEVELS


def render_report(source: str, report) -> str:
    """The human-readable summary of one criterion's :class:`ReliabilityReport`."""

    def fmt(value: float | None, digits: int = 3) -> str:
        return "n/a" if value is None else f"{value:.{digits}f}"

    alpha = f"{fmt(report.alpha)}"
    if report.alpha_ci is not None:
        low, high = report.alpha_ci
        alpha += f"  95% CI [{low:.3f}, {high:.3f}] (KALPHA, {report.n_resamples} resamples)"
        alpha += "".join(f"; P(α < {k:g}) = {v:.3f}" for k, v in report.alpha_q.items())
    shr = "n/a"
    if report.shr is not None and report.shr_caveat:
        shr = f"{report.shr:.3f} from {report.shr_n_splits} split(s) only: not an estimate (see note)"
    elif report.shr is not None:
        shr = (
            f"{report.shr:.3f} (sd {report.shr_sd:.3f} over {report.shr_n_splits} splits); "
            f"Spearman–Brown {report.shr_spearman_brown:.3f}"
        )
    rows = [
        (f"Krippendorff's α ({report.level_of_measurement})", alpha),
        ("pairable values / units", f"{report.n_pairable} / {report.n_pairable_units}"),
        ("units with one rating (dropped)", report.n_units_dropped),
        ("Fleiss' κ", fmt(report.fleiss_kappa)),
        ("split-half reliability", shr),
        ("design", f"{report.design_family}, {report.n_blocks} blocks"),
    ]
    if report.scale is not None:
        low, high = report.scale
        rows.append(("scale", f"{low:g}-{high:g} ({'declared' if report.scale_declared else 'inferred'})"))
    width = max(len(k) for k, _ in rows)
    title = source + (f" [{report.criterion}]" if report.criterion else "")
    lines = [f"{title}: reliability"] + [f"  {k:<{width}}  {v}" for k, v in rows]
    if report.time_curve:
        lines.append("  time vs reliability, every hour (minutes: mean r; all buckets in --json)")
        lines += [
            f"    {b['minutes_from']:>5.0f}-{b['minutes_to']:<5.0f} {b['mean_r']:.3f}  (n={b['n']})"
            for b in report.time_curve
            if b["minutes_from"] % 60 == 0
        ]
    notes = [*report.notes, *([report.shr_caveat] if report.shr_caveat else [])]
    lines += [f"  note: {n}" for n in notes]
    return "\n".join(lines)


@click.command()
@renamed_option("--level", "--level-of-measurement", type=click.Choice(LEVELS))
@renamed_option("--bootstrap", "--resamples", dest="n_resamples", type=RESAMPLES)
@click.argument("ratings", type=InputFile())
@click.option(
    "--level-of-measurement",
    type=click.Choice(LEVELS),
    default="ordinal",
    show_default=True,
    help="Level of measurement of Krippendorff's α.",
)
@click.option(
    "--resamples",
    "n_resamples",
    type=RESAMPLES,
    default=5000,
    show_default=True,
    help="KALPHA bootstrap resamples for the α interval (0 = none; otherwise >= 1000).",
)
@click.option(
    "--alpha-min",
    "alpha_min",
    type=float,
    multiple=True,
    default=(0.667,),
    show_default=True,
    help="Report P(α < ALPHA_MIN) from the bootstrap; repeatable.",
)
@click.option(
    "--splits", "n_splits", type=RESAMPLES, default=1000, show_default=True, help="Split-half splits."
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--times",
    type=InputFile(),
    default=None,
    help="Timing table (annotator, time_stamp seconds) for the time-vs-reliability curve.",
)
@ratings_options
@json_option
def command(
    ratings: str,
    level_of_measurement: str,
    n_resamples: int,
    alpha_min: tuple[float, ...],
    n_splits: int,
    seed: int,
    times: str | None,
    as_json: bool,
    **options,
) -> None:
    """Agreement (Krippendorff's α, Fleiss' κ) and split-half reliability of a ratings file."""
    from humaneval.reliability.criteria import criterion_correlations
    from humaneval.reliability.report import reliability_report
    from humaneval.reliability.timing import load_annotator_times

    table = load_from_options(ratings, **options)
    per_annotator = load_annotator_times(times) if times else None
    reports = [
        reliability_report(
            part,
            level_of_measurement=level_of_measurement,
            n_resamples=n_resamples,
            alpha_min=alpha_min,
            n_splits=n_splits,
            seed=seed,
            times=per_annotator,
            criterion=criterion,
        )
        for criterion, part in table.by_criterion()
    ]
    correlations = criterion_correlations(table) if table.response == "score" else None
    payload = {
        "file": ratings,
        "criteria": [r.to_dict() for r in reports],
        "correlations": [] if correlations is None else correlations.to_dict(),
    }

    def render() -> str:
        text = "\n".join(render_report(ratings, r) for r in reports)
        if correlations is not None and not correlations.table.empty:
            text += "\n" + correlations.summary()
        return text

    emit(payload, as_json, render)
