"""One table per study: may each judge replace (or join) the annotators — every statistic side by side.

The alt-test, α and τ answer different questions, and they can disagree: a judge can beat the
humans item by item (a high advantage probability) yet rank the systems unlike them (a low
system-level τ). The verdict table puts ω, ρ, α with the judge and system τ in one row per judge
and flags each disagreement in words, so that no single number picks the judge.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings
from humaneval.errors import DataWarning
from humaneval.judges.agreement import JudgeAgreement, judge_agreement
from humaneval.judges.alttest import AltTestResult, Scoring, alt_test
from humaneval.judges.bias import BiasAudit, bias_audit
from humaneval.judges.calibration import Calibration
from humaneval.judges.data import label_view
from humaneval.judges.degenerate import degenerate_judges
from humaneval.judges.uncertainty import VerdictUncertainty, verdict_uncertainty
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_value_ci
from humaneval.present.printable import Printable, frame_table

__all__ = ["RESAMPLES", "TAU_FLOOR", "JudgeAssessment", "assess_judges", "verdict_table"]

#: A system-level τ interval reaching below this is a flag for a judge that passed the alt-test.
TAU_FLOOR = 0.5
#: A system-level τ this close to 0 (or undefined) marks a judge that does not rank the systems.
TAU_NEAR_ZERO = 0.1
#: Resamples of every interval of the verdict, for ``humaneval judge`` and the report alike.
RESAMPLES = 1000
VERDICT_COLUMNS = [
    "criterion",
    "judge",
    "rank",
    "winning_rate",
    "winning_rate_low",
    "winning_rate_high",
    "advantage_probability",
    "advantage_probability_low",
    "advantage_probability_high",
    "passed",
    "pass_probability",
    "degenerate",
    "alpha_humans",
    "alpha_with_judge",
    "alpha_with_judge_low",
    "alpha_with_judge_high",
    "tau_item",
    "tau_system",
    "tau_system_low",
    "tau_system_high",
    "n_items",
    "n_humans",
    "flags",
]


@dataclass(frozen=True, eq=False, repr=False)
class JudgeAssessment(Printable):
    """The alt-test, agreement and bias audit of every judge, and the verdict table joining them.

    Attributes
    ----------
    verdict:
        One row per criterion and judge (:data:`VERDICT_COLUMNS`): ``rank`` by the advantage
        probability ρ with degenerate judges last, intervals of ω and ρ and the pass probability
        (:mod:`~humaneval.judges.uncertainty`), ``degenerate`` (why the judge tells too few items
        or systems apart, or empty); ``flags`` lists the disagreements between the statistics in
        words.
    alt_test, agreement, bias:
        The parts (``bias`` is ``None`` when the data allow no audit).
    """

    verdict: pd.DataFrame
    alt_test: AltTestResult
    agreement: JudgeAgreement
    bias: BiasAudit | None
    source: str | None = None

    def brief(self) -> str:
        """``ε = 0.2, accuracy: 6 judges, 2 pass; 1 flag``, the ``repr``."""
        flags = sum(len(f) for f in self.verdict["flags"])
        return f"{self.alt_test.brief()}; {flags} flag{'' if flags == 1 else 's'}"

    def blocks(self) -> tuple[Block, ...]:
        """The alt-test's settings, the verdict table (ω, ρ, passed, α and τ per judge), the flags and
        cautions, the bias audit and the agreement's notes."""
        rows = list(self.verdict.itertuples())
        shown = self.verdict.assign(
            passed=[_passed(r.passed, r.pass_probability) for r in rows],
            **{
                name: [
                    fmt_value_ci(getattr(r, name), getattr(r, f"{name}_low"), getattr(r, f"{name}_high"))
                    for r in rows
                ]
                for name in ("winning_rate", "advantage_probability", "alpha_with_judge", "tau_system")
            },
            alpha_humans=[fmt_value_ci(v) for v in self.verdict["alpha_humans"]],
            tau_item=[fmt_value_ci(v) for v in self.verdict["tau_item"]],
        )
        columns = [
            "judge",
            "rank",
            "winning_rate",
            "advantage_probability",
            "passed",
            "alpha_humans",
            "alpha_with_judge",
            "tau_item",
            "tau_system",
            "n_items",
            "n_humans",
        ]
        if self.verdict["criterion"].notna().any():
            columns.insert(0, "criterion")
        out: list[Block] = [
            Paragraph((self.alt_test.heading(),)),
            frame_table(
                shown,
                columns,
                align=dict.fromkeys(columns[columns.index("winning_rate") :], "r"),
                caption=("Verdict (judges side by side):",),
            ),
            Paragraph((PASSED,), style="note"),
        ]
        said = [f"Flag: {r.judge}: {flag}" for r in rows for flag in r.flags]
        said += [f"Caution: {c}" for c in self.alt_test.cautions]
        if said:
            out.append(Bullets(tuple((line,) for line in said)))
        if self.bias is not None and not self.bias.table.empty:
            out += self.bias.blocks()
        if self.agreement.notes:
            out.append(Bullets(tuple((f"Note: {n}",) for n in self.agreement.notes)))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.source,
            "epsilon": self.alt_test.epsilon,
            "q": self.alt_test.q,
            "scoring": self.alt_test.scoring,
            "judges": _records(self.verdict),
            "humans": _records(self.alt_test.humans),
            "agreement": self.agreement.to_dict(),
            "bias": None if self.bias is None else self.bias.to_dict(),
            "calibration": _records(self.alt_test.calibration),
            "cautions": list(self.alt_test.cautions),
        }


#: How to read the verdict table's ``passed`` and ``rank``.
PASSED = "passed: yes/no (P(pass) over resamples of items and humans); rank: by ρ, degenerate last."
#: Verdict columns computed after the merge (the order of the judges and their flags).
DERIVED_COLUMNS = ("rank", "flags")


def assess_judges(
    ratings: Ratings | Any,
    *,
    epsilon: float | None = None,
    profile: str | None = None,
    scoring: Scoring = "auto",
    criterion: str | None = None,
    n_resamples: int = RESAMPLES,
    seed: int | None = 1,
    calibration: Calibration = "auto",
    self_systems: Mapping[str, Sequence[str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> JudgeAssessment:
    """Alt-test, agreement and bias audit of every judge, and the verdict table.

    Parameters
    ----------
    ratings : Ratings
        Humans and judges, the judges' rows marked ``rater_kind = judge`` (or anything
        :func:`~humaneval.judges.data.read_annotations` reads).
    epsilon, profile, scoring, criterion :
        As for :func:`~humaneval.judges.alttest.alt_test`.
    n_resamples, seed :
        Of the ω, ρ, α and τ intervals and the pass probability (0 resamples: point estimates only).
    calibration : {"auto", "minmax", "isotonic", "off"}
        How numeric judge labels are put on the humans' scale
        (:func:`~humaneval.judges.calibration.calibrate`); α uses the calibrated labels too.
    self_systems : mapping, optional
        ``{judge: [systems of the judge's own family]}`` for the self-preference audit.
    progress : callable, optional
        Called with a line before each stage (the size first).

    Returns
    -------
    JudgeAssessment
    """
    table = label_view(ratings)
    with warnings.catch_warnings():  # the cautions travel in the result (and its summary) instead
        warnings.simplefilter("ignore", DataWarning)
        test = alt_test(
            table,
            epsilon=epsilon,
            profile=profile,
            scoring=scoring,
            criterion=criterion,
            calibration=calibration,
            seed=seed,
        )
    table = test.annotations if test.annotations is not None else table
    say = progress or (lambda _line: None)  # after the fast alt-test, so that bad input stays one line
    n_criteria = len(table.criteria) if criterion is None else 1
    size = f"{len(table.judge_names)} judge(s) × {table.data['item'].nunique()} items"
    size += f" × {n_criteria} criteria" if n_criteria > 1 else ""
    say(f"{size}, {len(table.human_names)} humans: α and τ of each judge ({n_resamples} resamples)")
    agreement = judge_agreement(table, n_resamples=n_resamples, seed=seed, criterion=criterion)
    bias = bias_audit(table, self_systems=self_systems, criterion=criterion)
    spread = degenerate_judges(table if criterion is None else table.of_criterion(criterion))
    if criterion is not None:
        spread["criterion"] = criterion
    uncertainty = verdict_uncertainty(test, n_resamples=n_resamples, seed=seed) if n_resamples else None
    return JudgeAssessment(
        verdict=verdict_table(test, agreement, spread, uncertainty),
        alt_test=test,
        agreement=agreement,
        bias=bias,
        source=table.source,
    )


def verdict_table(
    test: AltTestResult,
    agreement: JudgeAgreement,
    spread: pd.DataFrame | None = None,
    uncertainty: VerdictUncertainty | None = None,
) -> pd.DataFrame:
    """Join the alt-test, its uncertainty and the agreement per judge and flag where they disagree.

    Flags: a degenerate judge (one label nearly everywhere, labels that hardly vary, or a system τ
    that is undefined or within :data:`TAU_NEAR_ZERO` of 0 where the other judges have one); passes
    the alt-test but the system-level τ interval reaches below :data:`TAU_FLOOR` (or, without
    resamples, τ itself is below it); passes but the α interval with the judge lies wholly below
    the humans' α; fails but ranks the systems like the humans (τ interval above the floor); the
    judge ranked first by ρ ranks the systems worse than another judge — only when the paired
    bootstrap interval of the τ difference excludes 0.
    """
    keys = ["criterion", "judge"]
    left = test.table.assign(criterion=test.table["criterion"].astype(object))
    right = agreement.table.assign(criterion=agreement.table["criterion"].astype(object))
    joined = left.merge(right.drop(columns=["n_items"], errors="ignore"), on=keys, how="left")
    for frame in (spread, None if uncertainty is None else uncertainty.table):
        if frame is not None and not frame.empty:
            extra = frame.assign(criterion=frame["criterion"].astype(object))
            joined = joined.merge(extra, on=keys, how="left")
    for column in VERDICT_COLUMNS:
        if column not in joined and column not in DERIVED_COLUMNS:
            joined[column] = "" if column == "degenerate" else math.nan
    joined["degenerate"] = joined["degenerate"].fillna("").astype(str)
    flags: list[list[str]] = [[] for _ in range(len(joined))]
    for _, group in joined.groupby(joined["criterion"].astype(str), sort=False, dropna=False):
        has_tau = group["tau_system"].notna().any()
        for k, row in group.iterrows():
            if not has_tau or row.degenerate:
                continue
            if pd.isna(row.tau_system):
                joined.at[k, "degenerate"] = "its system-level τ is undefined: it does not rank the systems"
            elif abs(row.tau_system) < TAU_NEAR_ZERO:
                joined.at[k, "degenerate"] = (
                    f"its system-level τ is {row.tau_system:.2f}, near 0: it does not rank the systems"
                )
    for k, row in enumerate(joined.itertuples()):
        if row.degenerate:
            flags[k].append(f"degenerate: {row.degenerate}; ranked after the other judges")
        if row.passed and _num(row.tau_system_low) < TAU_FLOOR:
            flags[k].append(
                f"passes the alt-test, but its system-level τ interval reaches below {TAU_FLOOR:g} "
                f"({row.tau_system_low:.2f}): it may rank the systems unlike the humans"
            )
        elif row.passed and pd.isna(row.tau_system_low) and _num(row.tau_system) < TAU_FLOOR:
            flags[k].append(  # point estimates only (no resamples)
                f"passes the alt-test, but its system-level τ is {row.tau_system:.2f}, below {TAU_FLOOR:g}: "
                "it may rank the systems unlike the humans"
            )
        if row.passed and _num(row.alpha_with_judge_high) < _num(row.alpha_humans):
            flags[k].append(
                f"passes the alt-test, but adding it lowers α (with it {row.alpha_with_judge:.2f}, interval "
                f"up to {row.alpha_with_judge_high:.2f}; humans alone {row.alpha_humans:.2f})"
            )
        if not row.passed and _num(row.tau_system_low) >= TAU_FLOOR:
            flags[k].append(
                f"fails the alt-test, yet ranks the systems like the humans (system τ {row.tau_system:.2f}, "
                f"interval from {row.tau_system_low:.2f})"
            )
    joined["rank"] = 0
    for _, group in joined.groupby(joined["criterion"].astype(str), sort=False, dropna=False):
        order = group.assign(_bad=group["degenerate"] != "").sort_values(
            ["_bad", "advantage_probability"], ascending=[True, False], kind="stable"
        )
        joined.loc[order.index, "rank"] = np.arange(1, len(order) + 1)
        _best_flag(joined, order[order["_bad"] == False], agreement, flags)  # noqa: E712
    joined["flags"] = flags
    return joined[VERDICT_COLUMNS]


def _best_flag(
    joined: pd.DataFrame, usable: pd.DataFrame, agreement: JudgeAgreement, flags: list[list[str]]
) -> None:
    """Flag the judge ranked first by ρ when another judge ranks the systems surely better."""
    if len(usable) < 2 or usable["tau_system"].isna().all():
        return
    first, best_tau = usable.index[0], usable["tau_system"].idxmax()
    criterion = joined.at[first, "criterion"]
    boot = agreement.tau_bootstrap.get(criterion)
    if first == best_tau or boot is None:
        return
    a, b = joined.at[best_tau, "judge"], joined.at[first, "judge"]
    diff = boot.difference(a, b).set_index("level").loc["sys"]
    if not diff["ci_low"] > 0:
        return
    where = f" on {criterion}" if criterion is not None else ""
    flags[first].append(
        f"highest advantage probability{where} ({joined.at[first, 'advantage_probability']:.2f}), but {a} "
        f"ranks the systems better (system τ {joined.at[best_tau, 'tau_system']:.2f} against "
        f"{joined.at[first, 'tau_system']:.2f}; paired difference interval [{diff['ci_low']:.2f}, "
        f"{diff['ci_high']:.2f}])"
    )


def _passed(passed: bool, probability: float) -> str:
    return ("yes" if passed else "no") + ("" if pd.isna(probability) else f" ({probability:.2f})")


def _num(value: float | None) -> float:
    return float(value) if value is not None and not pd.isna(value) else math.nan


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        for row in frame.to_dict(orient="records")
    ]
