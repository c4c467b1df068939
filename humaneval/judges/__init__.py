"""Automatic judges (LLM judges, metrics) beside human annotators.

A judge is a rater marked as one (``rater_kind = judge`` or ``--mark-judges NAME,...``); the human
analyses leave judges out (:meth:`humaneval.core.ratings.Ratings.without_checks`). This package reads
judge labels into the one ratings table (:mod:`humaneval.core.judge_scores`, :mod:`humaneval.judges.data`)
and asks whether a judge may replace or join the annotators (docs/judges.md).
"""

from humaneval.core.judge_scores import read_judge_scores
from humaneval.judges.agreement import JudgeAgreement, judge_agreement
from humaneval.judges.alttest import AltTestResult, alt_test, resolve_epsilon
from humaneval.judges.bias import BiasAudit, bias_audit
from humaneval.judges.data import load_annotations, read_annotations
from humaneval.judges.planning import CalibrationPlan, plan_calibration
from humaneval.judges.simulation import simulate_alt_test
from humaneval.judges.verdict import JudgeAssessment, assess_judges, verdict_table

__all__ = [
    "AltTestResult",
    "BiasAudit",
    "CalibrationPlan",
    "JudgeAgreement",
    "JudgeAssessment",
    "alt_test",
    "assess_judges",
    "bias_audit",
    "judge_agreement",
    "load_annotations",
    "plan_calibration",
    "read_annotations",
    "read_judge_scores",
    "resolve_epsilon",
    "simulate_alt_test",
    "verdict_table",
]
