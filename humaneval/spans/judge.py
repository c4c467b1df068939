"""Automatic span annotators as judges: the alternative-annotator test on span F1 and on item scores.

A metric that marks error spans (xCOMET-style, or an LLM asked for MQM spans) is one more annotator of
the span table whose name is given as a judge. The alt-test (Calderon, Reichart & Dror 2025) asks, for
every left-out human, whether the judge agrees with the other humans at least as well as that human
does — once with the character-level F1 of the marked spans, once with the item scores (−RMSE).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from humaneval.errors import RatingsError
from humaneval.judges.alttest import AltTestResult, alt_test
from humaneval.judges.data import load_annotations
from humaneval.present.document import Block, Paragraph
from humaneval.present.formatting import fmt
from humaneval.present.printable import Printable, frame_table
from humaneval.spans.scoring import item_scores
from humaneval.spans.table import ITEM, SpanTable

NONE = "none"
"""The label of an item marked without errors."""


def _chars(label: str) -> set[int]:
    if label == NONE:
        return set()
    out: set[int] = set()
    for part in label.split(";"):
        start, end = part.split("-")
        out.update(range(int(start), int(end)))
    return out


def label_f1(label: object, others: np.ndarray) -> float:
    """Mean character-level F1 of one span label with each of ``others`` (two empty labels agree: 1).

    Examples
    --------
    >>> label_f1("0-4", np.array(["2-6", "none"]))  # F1 0.5 with the first, 0 with the second
    0.25
    """
    mine = _chars(str(label))
    values = []
    for other in others:
        theirs = _chars(str(other))
        size = len(mine) + len(theirs)
        values.append(1.0 if size == 0 else 2 * len(mine & theirs) / size)
    return float(np.mean(values))


def span_labels(table: SpanTable) -> dict[str, dict[str, str]]:
    """Annotator → item (``document|system``) → marked character ranges (``"3-6;10-12"`` or ``"none"``)."""
    out: dict[str, dict[str, str]] = {}
    for (annotator, document, system), part in table.data.groupby(["annotator", *ITEM]):
        spans = part[part["start"].notna()].sort_values("start")
        ranges = ";".join(f"{int(s)}-{int(e)}" for s, e in zip(spans["start"], spans["end"], strict=True))
        out.setdefault(str(annotator), {})[f"{document}|{system}"] = ranges or NONE
    return out


@dataclass(frozen=True, repr=False)
class SpanJudgeResult(Printable):
    """The alt-test of span judges on both kinds of agreement (``humaneval judge SPANS.csv``).

    Attributes
    ----------
    span_f1 : AltTestResult
        On the marked characters (scoring: mean F1 with the other humans).
    scores : AltTestResult
        On the item scores under ``scoring`` (−RMSE).
    scoring : str
    """

    span_f1: AltTestResult
    scores: AltTestResult
    scoring: str

    def to_dict(self) -> dict[str, Any]:
        """``judge --json`` of a span table: ``kind``, ``scoring`` and the two alt-tests' JSON."""
        return {
            "kind": "spans",
            "scoring": self.scoring,
            "span_f1": self.span_f1.to_dict(),
            "scores": self.scores.to_dict(),
        }

    def blocks(self, source: str | None = None) -> tuple[Block, ...]:
        """Both alt-tests: on the marked characters, then on the item scores."""
        out: list[Block] = [
            Paragraph(
                (
                    f"{source + ': ' if source else ''}alternative-annotator test (Calderon et al., 2025) of "
                    f"span annotators, ε = {self.span_f1.epsilon:g}, Benjamini–Yekutieli q = "
                    f"{self.span_f1.q:g}; a judge passes when it beats at least half of the humans (ω ≥ 0.5)",
                )
            )
        ]
        columns = {
            "judge": None,
            "winning_rate": fmt,
            "advantage_probability": fmt,
            "passed": lambda v: "yes" if v else "no",
            "n_items": None,
            "n_humans": None,
        }
        for what, result in (
            ("marked characters (mean F1 with the other humans)", self.span_f1),
            (f"{self.scoring} item scores (−RMSE)", self.scores),
        ):
            out.append(frame_table(result.table, columns, caption=(f"on the {what}",)))
            out += [Paragraph((f"caution: {c}",), "note") for c in result.cautions]
        return tuple(out)

    def brief(self) -> str:
        passed = self.span_f1.table["passed"] & self.scores.table["passed"].to_numpy()
        return f"{int(passed.sum())} of {len(passed)} judges pass on spans and scores ({self.scoring})"


def span_judge_test(
    table: SpanTable,
    judges: Sequence[str],
    *,
    scoring: str = "mqm",
    epsilon: float | None = None,
    profile: str | None = None,
    min_items: int = 30,
) -> SpanJudgeResult:
    """Run the alt-test of the judges among the table's annotators on span F1 and on item scores.

    Parameters
    ----------
    table : SpanTable
        Humans and judges in one span table.
    judges : sequence of str
        The annotators that are automatic annotators.
    scoring : str
        Scoring rule of the item scores (:data:`~humaneval.spans.scoring.SCORING_RULES`).
    epsilon, profile, min_items
        As :func:`humaneval.judges.alt_test`.

    Returns
    -------
    SpanJudgeResult

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025). The alternative annotator test for LLM-as-a-judge.
    ACL 2025.
    """
    unknown = [j for j in judges if j not in set(table.annotators)]
    if unknown or not judges:
        raise RatingsError(
            f"judge {unknown[0] if unknown else ''!r} is not an annotator of the span table; name annotators "
            f"of it ({', '.join(table.annotators)})"
        )
    labels = span_labels(table)
    humans = {k: v for k, v in labels.items() if k not in judges}
    machine = {k: v for k, v in labels.items() if k in judges}
    f1 = alt_test(
        load_annotations(humans, machine),
        epsilon=epsilon,
        profile=profile,
        scoring=label_f1,
        min_items=min_items,
    )
    scores = item_scores(table, scoring)
    by_rater: dict[str, dict[str, float]] = {}
    for row in scores.itertuples(index=False):
        by_rater.setdefault(str(row.annotator), {})[f"{row.document}|{row.system}"] = float(row.score)
    score_humans = {k: v for k, v in by_rater.items() if k not in judges}
    score_judges = {k: v for k, v in by_rater.items() if k in judges}
    on_scores = alt_test(
        load_annotations(score_humans, score_judges),
        epsilon=epsilon,
        profile=profile,
        scoring="neg_rmse",
        min_items=min_items,
    )
    return SpanJudgeResult(span_f1=f1, scores=on_scores, scoring=scoring)
