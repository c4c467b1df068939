"""Quality control of annotators: attention checks, completion time, straight-lining.

QC only *flags*; excluding annotators is an explicit, logged call (:func:`apply_exclusions`, or
``humaneval qc --exclude``; docs/forms.md, "Quality control"). Flags:

- attention checks: ``checks_total``, ``checks_failed``, ``check_pass_rate`` over all checks;
  ``imc_failed`` counts the failed instructional manipulation checks (IMCs: rows whose
  ``check_kind`` is ``imc`` or missing, so gold controls are left out) and
  ``prolific_rejection_eligible`` is ``imc_failed ≥ 2`` (Prolific's rule — failing gold
  controls or other criteria is never grounds for rejection);
- ``too_fast``: total time below ``fast_fraction`` × the median total of all annotators, or median
  time per screen below ``min_seconds_per_screen``;
- ``straight_line`` (all non-check answers identical) and ``long_run`` (the longest run of identical
  consecutive answers covers ≥ ``long_run_fraction`` of the items) for scale ratings. These are
  warnings only: uniform answers can be honest when most summaries are good.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.core.units import judgements_in
from humaneval.errors import RatingsError
from humaneval.present.document import Block, Column, Paragraph, Table
from humaneval.present.formatting import MISSING, fmt
from humaneval.present.printable import Printable

__all__ = [
    "FLAGS",
    "Exclusion",
    "QCReport",
    "QCRules",
    "apply_exclusions",
    "check_outcomes",
    "qc_report",
]


@dataclass(frozen=True)
class QCRules:
    """Thresholds of the QC flags (the package defaults; docs/forms.md)."""

    fast_fraction: float = 1 / 3
    min_seconds_per_screen: float | None = None
    long_run_fraction: float = 0.8
    min_failed_checks_for_rejection: int = 2


#: The flags (``humaneval qc --exclude`` accepts them), with the words the summary prints.
FLAGS = {
    "prolific_rejection_eligible": "failed checks",
    "too_fast": "too fast",
    "straight_line": "same answer throughout",
    "long_run": "long run of one answer",
}


@dataclass(frozen=True, eq=False)
class QCReport(Printable):
    """One row per annotator (``table``) and the rules that produced it."""

    table: pd.DataFrame
    rules: QCRules = field(default_factory=QCRules)

    def flagged(self) -> pd.DataFrame:
        """Annotators with at least one flag."""
        flags = ["too_fast", "straight_line", "long_run", "prolific_rejection_eligible"]
        present = [f for f in flags if f in self.table]
        return self.table[self.table[present].any(axis=1)] if present else self.table.iloc[:0]

    def to_dict(self) -> dict[str, object]:
        return {"annotators": self.table.to_dict(orient="records"), "rules": self.rules.__dict__}

    def blocks(self, source: str = "ratings") -> tuple[Block, ...]:
        """The per-annotator table, flagged annotators marked, and how many were flagged."""
        table = self.table
        rows = tuple(_summary_row(r) for r in table.to_dict(orient="records"))
        header = ("annotator", "judgements", "checks passed", "failed IMCs", "minutes", "flags")
        columns = tuple(Column(name, align="l" if k in (0, 5) else "r") for k, name in enumerate(header))
        return (
            Paragraph((f"{source}: quality control of {len(table)} annotators",)),
            Table(columns, rows),
            Paragraph((f"{len(self.flagged())} of {len(table)} annotators flagged",)),
        )


def _summary_row(r: dict) -> tuple[str, ...]:
    checks = f"{r['checks_total'] - r['checks_failed']}/{r['checks_total']}" if r["checks_total"] else MISSING
    minutes = fmt(r.get("total_seconds", np.nan) / 60, 1)
    flags = ", ".join(label for name, label in FLAGS.items() if r.get(name) is True or r.get(name) == 1)
    imc = str(r["imc_failed"]) if r["checks_total"] else MISSING
    return (str(r["annotator"]), str(r["n_judgements"]), checks, imc, minutes, flags)


def check_outcomes(ratings: Ratings) -> pd.Series:
    """Whether each attention-check row was passed (NA for rows that are not checks).

    Uses a ``check_passed`` column when the collector already evaluated the checks, otherwise
    compares the response with ``check_expected`` (the instructed value).
    """
    data = ratings.data
    outcome = pd.Series(pd.NA, index=data.index, dtype="boolean")
    if "is_check" not in data:
        return outcome
    checks = data["is_check"].astype(bool)
    if "check_passed" in data:
        outcome[checks] = data.loc[checks, "check_passed"]
    elif "check_expected" in data:
        expected = pd.to_numeric(data.loc[checks, "check_expected"], errors="coerce")
        outcome[checks] = (ratings.values[checks] == expected).astype("boolean")
    else:
        raise RatingsError(
            "attention-check rows (is_check) need a 'check_expected' or 'check_passed' column to be scored"
        )
    return outcome


def _longest_run(values: np.ndarray) -> int:
    if len(values) == 0:
        return 0
    changes = np.flatnonzero(np.diff(values) != 0)
    bounds = np.r_[-1, changes, len(values) - 1]
    return int(np.diff(bounds).max())


def qc_report(ratings: Ratings | pd.DataFrame, rules: QCRules | None = None, unit: str = "row") -> QCReport:
    """Per-annotator quality-control flags (attention checks, speed, straight-lining) of the humans;
    ``n_judgements`` counts judgements of the method's ``unit`` (``Method.unit``: a pairwise judgement
    is a pair of rows)."""
    ratings = as_ratings(ratings).humans()
    rules = rules or QCRules()
    data = ratings.data.assign(_passed=check_outcomes(ratings))
    is_check = data["is_check"].astype(bool) if "is_check" in data else pd.Series(False, index=data.index)
    rows = []
    for annotator, part in data.groupby("annotator", sort=True):
        checks = part[is_check[part.index]]
        answers = part[~is_check[part.index]]
        if "position" in answers:
            answers = answers.sort_values("position")
        values = answers[ratings.response].to_numpy()
        failed_checks = ~checks["_passed"].fillna(False).astype(bool)
        is_imc = checks["check_kind"].fillna("imc").eq("imc") if "check_kind" in checks else True
        failed = int(failed_checks.sum())
        imc_failed = int((failed_checks & is_imc).sum())
        row: dict[str, object] = {
            "annotator": annotator,
            "n_judgements": judgements_in(answers, unit),
            "checks_total": len(checks),
            "checks_failed": failed,
            "check_pass_rate": (1 - failed / len(checks)) if len(checks) else np.nan,
            "imc_failed": imc_failed,
            "prolific_rejection_eligible": imc_failed >= rules.min_failed_checks_for_rejection,
        }
        if ratings.response == "score" and len(values):
            row["straight_line"] = bool(len(values) > 1 and np.all(values == values[0]))
            row["long_run"] = _longest_run(values) >= rules.long_run_fraction * len(values)
        if "seconds" in part and part["seconds"].notna().any():
            screens = part.drop_duplicates("position") if "position" in part else part
            # rounded: sums of decimal seconds would print as 193.30000000000004
            row["total_seconds"] = round(float(screens["seconds"].sum()), 3)
            row["median_seconds"] = round(float(screens["seconds"].median()), 3)
        rows.append(row)
    table = pd.DataFrame(rows)
    if "total_seconds" in table:
        slow_enough = table["total_seconds"] >= rules.fast_fraction * table["total_seconds"].median()
        if rules.min_seconds_per_screen is not None:
            slow_enough &= table["median_seconds"] >= rules.min_seconds_per_screen
        table["too_fast"] = ~slow_enough & table["total_seconds"].notna()
    return QCReport(table=table, rules=rules)


@dataclass(frozen=True, eq=False)
class Exclusion:
    """The ratings that remain after an explicit exclusion, and the log of who was excluded and why."""

    ratings: Ratings
    log: pd.DataFrame


def apply_exclusions(
    ratings: Ratings | pd.DataFrame,
    report: QCReport,
    policy: tuple[str, ...] = ("prolific_rejection_eligible",),
) -> Exclusion:
    """Drop annotators carrying any of the ``policy`` flags; attention-check rows are dropped too.

    Judge rows stay: quality control screens the human annotators only.
    """
    ratings = as_ratings(ratings)
    unknown = [flag for flag in policy if flag not in report.table]
    if unknown:
        raise RatingsError(
            f"exclusion policy names flags the QC report does not have: {', '.join(unknown)}; "
            f"available: {', '.join(c for c in report.table.columns if report.table[c].dtype == bool)}"
        )
    hit = report.table[list(policy)].fillna(False).astype(bool)
    excluded = report.table.loc[hit.any(axis=1), ["annotator"]].assign(
        reasons=hit[hit.any(axis=1)].apply(lambda r: ", ".join(r.index[r]), axis=1)
    )
    kept = ratings.data[~ratings.data["annotator"].isin(excluded["annotator"])]
    if "is_check" in kept:
        kept = kept[~kept["is_check"]]
    return Exclusion(ratings=ratings.with_data(kept), log=excluded.reset_index(drop=True))
