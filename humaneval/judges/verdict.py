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

import pandas as pd

from humaneval.errors import DataWarning
from humaneval.judges.agreement import JudgeAgreement, judge_agreement
from humaneval.judges.alttest import AltTestResult, Scoring, alt_test
from humaneval.judges.bias import BiasAudit, bias_audit
from humaneval.judges.data import Annotations, read_annotations

__all__ = ["TAU_FLOOR", "JudgeAssessment", "assess_judges", "verdict_table"]

#: A system-level τ interval reaching below this is a flag for a judge that passed the alt-test.
TAU_FLOOR = 0.5
VERDICT_COLUMNS = [
    "criterion",
    "judge",
    "winning_rate",
    "advantage_probability",
    "passed",
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


@dataclass(frozen=True, eq=False)
class JudgeAssessment:
    """The alt-test, agreement and bias audit of every judge, and the verdict table joining them.

    Attributes
    ----------
    verdict:
        One row per criterion and judge (:data:`VERDICT_COLUMNS`); ``flags`` lists the
        disagreements between the statistics in words.
    alt_test, agreement, bias:
        The parts (``bias`` is ``None`` when the data allow no audit).
    """

    verdict: pd.DataFrame
    alt_test: AltTestResult
    agreement: JudgeAgreement
    bias: BiasAudit | None
    source: str | None = None

    def summary(self) -> str:
        lines = [self.alt_test.summary().splitlines()[0], "", "Verdict (judges side by side):"]
        shown = self.verdict.assign(
            passed=self.verdict["passed"].map({True: "yes", False: "no"}),
            alpha_with_judge=[
                _cell(r.alpha_with_judge, r.alpha_with_judge_low, r.alpha_with_judge_high)
                for r in self.verdict.itertuples()
            ],
            tau_system=[
                _cell(r.tau_system, r.tau_system_low, r.tau_system_high) for r in self.verdict.itertuples()
            ],
            alpha_humans=[_cell(v) for v in self.verdict["alpha_humans"]],
            tau_item=[_cell(v) for v in self.verdict["tau_item"]],
        )
        columns = [
            "judge",
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
        lines.append(shown[columns].to_string(index=False, float_format=lambda v: f"{v:.2f}"))
        for row in self.verdict.itertuples():
            for flag in row.flags:
                lines.append(f"Flag: {row.judge}: {flag}")
        lines += [f"Caution: {c}" for c in self.alt_test.cautions]
        if self.bias is not None and not self.bias.table.empty:
            lines += ["", self.bias.summary()]
        lines += [f"Note: {n}" for n in self.agreement.notes]
        return "\n".join(lines)

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
            "cautions": list(self.alt_test.cautions),
        }


def assess_judges(
    annotations: Annotations | Any,
    *,
    epsilon: float | None = None,
    profile: str | None = None,
    scoring: Scoring = "auto",
    criterion: str | None = None,
    n_resamples: int = 1000,
    seed: int | None = 1,
    self_systems: Mapping[str, Sequence[str]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> JudgeAssessment:
    """Alt-test, agreement and bias audit of every judge, and the verdict table.

    Parameters
    ----------
    annotations : Annotations
        Humans and judges (or anything :func:`~humaneval.judges.data.read_annotations` reads).
    epsilon, profile, scoring, criterion :
        As for :func:`~humaneval.judges.alttest.alt_test`.
    n_resamples, seed :
        Of the α and τ intervals (0 resamples: point estimates only).
    self_systems : mapping, optional
        ``{judge: [systems of the judge's own family]}`` for the self-preference audit.
    progress : callable, optional
        Called with a line before each stage (the size first).

    Returns
    -------
    JudgeAssessment
    """
    table = annotations if isinstance(annotations, Annotations) else read_annotations(annotations)
    with warnings.catch_warnings():  # the cautions travel in the result (and its summary) instead
        warnings.simplefilter("ignore", DataWarning)
        test = alt_test(table, epsilon=epsilon, profile=profile, scoring=scoring, criterion=criterion)
    say = progress or (lambda _line: None)  # after the fast alt-test, so that bad input stays one line
    n_criteria = len(table.criteria) if criterion is None else 1
    size = f"{len(table.judge_names)} judge(s) × {table.data['item'].nunique()} items"
    size += f" × {n_criteria} criteria" if n_criteria > 1 else ""
    say(f"{size}, {len(table.human_names)} humans: α and τ of each judge ({n_resamples} resamples)")
    agreement = judge_agreement(table, n_resamples=n_resamples, seed=seed, criterion=criterion)
    bias = bias_audit(table, self_systems=self_systems, criterion=criterion)
    return JudgeAssessment(
        verdict=verdict_table(test, agreement),
        alt_test=test,
        agreement=agreement,
        bias=bias,
        source=table.source,
    )


def verdict_table(test: AltTestResult, agreement: JudgeAgreement) -> pd.DataFrame:
    """Join the alt-test and the agreement per judge and flag where they disagree.

    Flags: passes the alt-test but the system-level τ interval reaches below :data:`TAU_FLOOR` (or,
    without resamples, τ itself is below it);
    passes but the α interval with the judge lies wholly below the humans' α; fails but ranks the
    systems like the humans (τ interval above the floor); the judge with the highest advantage
    probability is not the one with the highest system-level τ.
    """
    keys = ["criterion", "judge"]
    left = test.table.assign(criterion=test.table["criterion"].astype(object))
    right = agreement.table.assign(criterion=agreement.table["criterion"].astype(object))
    joined = left.merge(right.drop(columns=["n_items"], errors="ignore"), on=keys, how="left")
    flags: list[list[str]] = [[] for _ in range(len(joined))]
    for k, row in enumerate(joined.itertuples()):
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
    for _, group in joined.groupby(joined["criterion"].astype(str), sort=False, dropna=False):
        if len(group) < 2 or group["tau_system"].isna().all():
            continue
        best_rho = group["advantage_probability"].idxmax()
        best_tau = group["tau_system"].idxmax()
        if best_rho != best_tau:
            flags[best_rho].append(
                f"highest advantage probability ({joined.at[best_rho, 'advantage_probability']:.2f}), but "
                f"{joined.at[best_tau, 'judge']} has the higher system-level τ "
                f"({joined.at[best_tau, 'tau_system']:.2f} against {joined.at[best_rho, 'tau_system']:.2f})"
            )
    joined["flags"] = flags
    return joined[VERDICT_COLUMNS]


def _num(value: float | None) -> float:
    return float(value) if value is not None and not pd.isna(value) else math.nan


def _cell(value: float, low: float = math.nan, high: float = math.nan) -> str:
    if pd.isna(value):
        return "–"
    return f"{value:.2f} [{low:.2f}, {high:.2f}]" if not pd.isna(low) else f"{value:.2f}"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        for row in frame.to_dict(orient="records")
    ]
