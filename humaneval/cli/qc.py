"""``humaneval qc``: quality-control flags per annotator, and explicit, logged exclusions."""

from __future__ import annotations

from pathlib import Path

import click
import pandas as pd

from humaneval.cli._common import InputFile, emit, json_option, load_from_options, ratings_options
from humaneval.methods import get_method
from humaneval.methods.kinds import detect_kind
from humaneval.qc import FLAGS

#: Columns of the exclusion log besides ``annotator`` and ``reasons`` (when the QC table has them).
LOG_COLUMNS = ("n_judgements", "checks_total", "checks_failed", "imc_failed", "total_seconds")


def exclusion_log(log: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """``annotator, reasons`` and the QC numbers behind the reasons, one row per excluded annotator."""
    extra = [c for c in LOG_COLUMNS if c in table]
    return log.merge(table[["annotator", *extra]], on="annotator", how="left")


def _stem_path(ratings: str, suffix: str) -> Path:
    path = Path(ratings)
    return path.with_name(f"{path.stem}{suffix}")


@click.command()
@click.argument("ratings", type=InputFile())
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="FLAG[,FLAG]",
    help="Drop the annotators carrying any of these flags (repeatable): "
    + ", ".join(FLAGS)
    + ". Writes the cleaned ratings (--out) and the exclusion log (--log).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --exclude: the cleaned ratings (default: RATINGS-cleaned.csv beside the input).",
)
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="With --exclude: the exclusion log (default: RATINGS-exclusions.csv beside the input).",
)
@click.option(
    "--table", "table_path", type=click.Path(dir_okay=False), default=None, help="Write the QC table as CSV."
)
@click.option(
    "--fast-fraction",
    type=float,
    default=1 / 3,
    show_default="1/3",
    help="too_fast: total time below this fraction of the median annotator's.",
)
@click.option(
    "--min-seconds-per-screen",
    type=float,
    default=None,
    help="too_fast also when the median seconds per screen is below this.",
)
@click.option(
    "--long-run-fraction",
    type=float,
    default=0.8,
    show_default=True,
    help="long_run: the longest run of one answer covers at least this share of the items.",
)
@click.option(
    "--min-failed-checks",
    type=int,
    default=2,
    show_default=True,
    help="prolific_rejection_eligible: at least this many failed instructed checks (IMCs).",
)
@ratings_options
@json_option
def command(
    ratings: str,
    exclude: tuple[str, ...],
    out: str | None,
    log_path: str | None,
    table_path: str | None,
    fast_fraction: float,
    min_seconds_per_screen: float | None,
    long_run_fraction: float,
    min_failed_checks: int,
    as_json: bool,
    **options,
) -> None:
    """Quality control per annotator: attention checks, failed IMCs, speed, straight-lining.

    Flags only warn; --exclude removes the flagged annotators explicitly and logs who and why
    (docs/forms.md, "Quality control")."""
    from humaneval.errors import RatingsError
    from humaneval.qc import QCRules, apply_exclusions, qc_report

    if not 0 < fast_fraction < 1 or not 0 < long_run_fraction <= 1 or min_failed_checks < 1:
        raise RatingsError(
            "--fast-fraction must lie in (0, 1), --long-run-fraction in (0, 1] and --min-failed-checks be ≥ 1"
        )
    table = load_from_options(ratings, **options)
    rules = QCRules(
        fast_fraction=fast_fraction,
        min_seconds_per_screen=min_seconds_per_screen,
        long_run_fraction=long_run_fraction,
        min_failed_checks_for_rejection=min_failed_checks,
    )
    report = qc_report(table, rules, unit=get_method(detect_kind(table)).unit)
    policy = tuple(dict.fromkeys(f.strip() for item in exclude for f in item.split(",") if f.strip()))
    unknown = [f for f in policy if f not in FLAGS]
    if unknown:
        raise RatingsError(f"--exclude {unknown[0]}: not a QC flag; use one of {', '.join(FLAGS)}")
    payload: dict[str, object] = {
        "file": ratings,
        **report.to_dict(),
        "flagged": [str(a) for a in report.flagged()["annotator"]],
        "excluded": None,
    }
    if table_path:
        report.table.to_csv(table_path, index=False)
        payload["table"] = table_path
    summary = ""
    if policy:
        result = apply_exclusions(table, report, policy)
        log = exclusion_log(result.log, report.table)
        cleaned = result.ratings.write(Path(out) if out else _stem_path(ratings, "-cleaned.csv"))
        log_file = Path(log_path) if log_path else _stem_path(ratings, "-exclusions.csv")
        log.to_csv(log_file, index=False)
        payload["excluded"] = {
            "policy": list(policy),
            "annotators": log.to_dict(orient="records"),
            "ratings": str(cleaned),
            "log": str(log_file),
            "n_rows_kept": len(result.ratings.data),
            "n_annotators_kept": len(result.ratings.annotators),
        }
        summary = (
            f"\nexcluded {len(log)} of {len(report.table)} annotators ({', '.join(policy)}); "
            f"{len(result.ratings.data)} ratings without attention checks → {cleaned}; log → {log_file}"
        )
    emit(
        payload,
        as_json,
        lambda: (
            report.summary(ratings)
            + ("" if policy else "; nobody excluded (use --exclude FLAG to drop them)")
            + summary
        ),
    )
