"""Known biases of LLM judges, measured where the data allow, each next to the humans' own value.

- **Position** (pairwise tables whose rows name the system shown first in a ``shown_first``
  column, with a judge shown both orders of a pair): the flip rate, the share of pairs whose
  preferred system changes with the order (Wilson 95% interval). Zheng et al. (2023) call its
  complement position consistency.
- **Verbosity** (a ``length`` column: the length of each system's output): in pairwise tables the
  share of decisive judgements won by the longer output; in rating tables Kendall's τ between the
  label and the length — for the judge and for the humans on the same items.
- **Self-preference** (``self_systems = {judge: [its own family's systems]}``): in pairwise tables
  the judge's win rate for its own family's outputs against others, beside the humans' win rate on
  the same pairs; in rating tables the mean label of its family's outputs minus the others', beside
  the same difference from the humans.

References
----------
Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS 2023.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings
from humaneval.judges.data import LabelView, label_view
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_value_ci
from humaneval.present.printable import Printable, frame_table

__all__ = ["BiasAudit", "bias_audit"]

COLUMNS = [
    "criterion",
    "judge",
    "check",
    "judge_value",
    "judge_low",
    "judge_high",
    "human_value",
    "human_low",
    "human_high",
    "n",
]
_MEANING = {
    "position_flip_rate": "share of pairs whose preferred system changes with the order shown",
    "longer_wins": "share of decisive pairwise judgements won by the longer output",
    "length_tau": "Kendall's τ between label and output length",
    "self_win_rate": "win rate of the judge's own family's outputs against others",
    "self_mean_difference": "mean label of the judge's own family's outputs minus the others'",
}


@dataclass(frozen=True, eq=False, repr=False)
class BiasAudit(Printable):
    """One row per criterion, judge and check (``check`` names the measure, see :data:`_MEANING`)."""

    table: pd.DataFrame

    def brief(self) -> str:
        """``checks of gpt, claude: position_flip_rate, longer_wins``, the ``repr``."""
        judges = ", ".join(dict.fromkeys(self.table["judge"]))
        return f"checks of {judges}: {', '.join(dict.fromkeys(self.table['check']))}"

    def blocks(self) -> tuple[Block, ...]:
        """One row per judge and check (the judge's value beside the humans', with intervals), then
        what each check measures."""
        rows = list(self.table.itertuples())
        shown = self.table.assign(
            judge_value=[fmt_value_ci(r.judge_value, r.judge_low, r.judge_high) for r in rows],
            human_value=[fmt_value_ci(r.human_value, r.human_low, r.human_high) for r in rows],
        )
        columns = ["judge", "check", "judge_value", "human_value", "n"]
        if self.table["criterion"].notna().any():
            columns.insert(0, "criterion")
        names = {"judge_value": "judge value", "human_value": "humans"}
        meanings = tuple((f"{check}: {_MEANING[check]}",) for check in dict.fromkeys(self.table["check"]))
        return (
            Paragraph(("Bias audit (judge beside the humans on the same items):",)),
            frame_table(shown, columns, names=names, align=dict.fromkeys(names, "r")),
            Bullets(meanings),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "checks": [
                {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                for row in self.table.to_dict(orient="records")
            ],
            "meaning": dict(_MEANING),
        }


@shared_docs
def bias_audit(
    ratings: Ratings | LabelView,
    *,
    self_systems: Mapping[str, Sequence[str]] | None = None,
    criterion: str | None = None,
) -> BiasAudit | None:
    """Position, verbosity and self-preference checks the data allow (``None`` when none do).

    Parameters
    ----------
    ratings : Ratings
        Humans and judges (judge rows ``rater_kind = judge``) with ``document``, ``system`` and, for
        pairwise tables, ``opponent``; ``shown_first`` and ``length`` columns enable the position and
        verbosity checks.
    self_systems : mapping, optional
        ``{judge: [systems of its own family]}``.
    criterion : str, optional
        %(criterion_or_each)s

    Returns
    -------
    BiasAudit or None

    Examples
    --------
    A judge that prefers whichever system it is shown first, on one pair seen in both orders:

    >>> import pandas as pd
    >>> from humaneval.core.ratings import load_ratings
    >>> rows = [("j", "d1", "a", "b", "a", 1), ("j", "d1", "b", "a", "a", 0),
    ...         ("j", "d1", "a", "b", "b", 0), ("j", "d1", "b", "a", "b", 1)]
    >>> columns = ["annotator", "document", "system", "opponent", "shown_first", "score"]
    >>> table = load_ratings(pd.DataFrame(rows, columns=columns), judges="j")
    >>> bias_audit(table).table[["check", "judge_value", "n"]].to_dict("records")
    [{'check': 'position_flip_rate', 'judge_value': 1.0, 'n': 1}]
    """
    annotations = label_view(ratings)
    data = annotations.data
    if "system" not in data or annotations.label_kind != "numeric":
        return None
    criteria = annotations.criteria if criterion is None else [criterion]
    rows: list[dict[str, Any]] = []
    for name in criteria:
        part = annotations.of_criterion(name).data
        judges = sorted(part.loc[part["rater_kind"] == "judge", "annotator"].unique())
        humans = part[part["rater_kind"] == "human"]
        pairwise = "opponent" in part
        for judge in judges:
            mine = part[part["annotator"] == judge]
            found: list[dict[str, Any] | None] = []
            if pairwise and "shown_first" in part:
                found.append(_position(mine, humans))
            if "length" in part and (not pairwise or "opponent_length" in part):
                found.append(_longer_wins(mine, humans) if pairwise else _length_tau(mine, humans))
            if self_systems and judge in self_systems:
                own = {str(s) for s in self_systems[judge]}
                found.append(_self_win(mine, humans, own) if pairwise else _self_mean(mine, humans, own))
            rows += [dict(r, criterion=name, judge=judge) for r in found if r is not None]
    if not rows:
        return None
    return BiasAudit(table=pd.DataFrame(rows)[COLUMNS])


def _rate(hits: int, n: int) -> tuple[float, float, float]:
    if n == 0:
        return math.nan, math.nan, math.nan
    low, high = proportion_confint(hits, n, alpha=0.05, method="wilson")
    return hits / n, float(low), float(high)


def _row(check: str, judge: tuple[float, float, float], human: tuple[float, float, float], n: int) -> dict:
    return {
        "check": check,
        "judge_value": judge[0],
        "judge_low": judge[1],
        "judge_high": judge[2],
        "human_value": human[0],
        "human_low": human[1],
        "human_high": human[2],
        "n": int(n),
    }


def _flips(rows: pd.DataFrame) -> tuple[int, int]:
    """Pairs a rater saw in both orders, and how many of them changed the preferred system."""
    if rows.empty:
        return 0, 0
    pref = rows.groupby(["annotator", "document", "system", "opponent", "shown_first"])["label"].mean()
    wide = pref.unstack("shown_first")
    both = []
    for (_, _, first, second), values in wide.iterrows():
        if (
            first in values
            and second in values
            and not pd.isna(values[first])
            and not pd.isna(values[second])
        ):
            both.append(np.sign(values[first] - 0.5) != np.sign(values[second] - 0.5))
    return int(np.sum(both)), len(both)


def _position(mine: pd.DataFrame, humans: pd.DataFrame) -> dict | None:
    flips, n = _flips(mine)
    if n == 0:
        return None
    h_flips, h_n = _flips(humans)
    return _row("position_flip_rate", _rate(flips, n), _rate(h_flips, h_n), n)


def _longer(rows: pd.DataFrame) -> tuple[int, int]:
    """Decisive judgements between outputs of different length, and how many the longer one won."""
    own = rows["length"].to_numpy(dtype=float)
    other = rows["opponent_length"].to_numpy(dtype=float)
    label = rows["label"].to_numpy(dtype=float)
    decisive = (label != 0.5) & (own != other) & ~np.isnan(own) & ~np.isnan(other)
    longer_won = np.where(own > other, label > 0.5, label < 0.5)
    return int((longer_won & decisive).sum()), int(decisive.sum())


def _longer_wins(mine: pd.DataFrame, humans: pd.DataFrame) -> dict | None:
    hits, n = _longer(mine)
    if n == 0:
        return None
    return _row("longer_wins", _rate(hits, n), _rate(*_longer(humans)), n)


def _length_tau(mine: pd.DataFrame, humans: pd.DataFrame) -> dict | None:
    judge = mine.groupby("item").agg(label=("label", "mean"), length=("length", "first")).dropna()
    people = humans.groupby("item").agg(label=("label", "mean"), length=("length", "first")).dropna()
    people = people.reindex(judge.index).dropna()
    if len(judge) < 3:
        return None
    tau = stats.kendalltau(judge["label"], judge["length"]).statistic
    human_tau = (
        stats.kendalltau(people["label"], people["length"]).statistic if len(people) >= 3 else math.nan
    )
    nan = (math.nan, math.nan)
    return _row("length_tau", (float(tau), *nan), (float(human_tau), *nan), len(judge))


def _wins(rows: pd.DataFrame, own: set[str]) -> tuple[int, int, set]:
    """Decisive judgements of an own-family output against another family's, and how many it won."""
    first, second = rows["system"].isin(own), rows["opponent"].isin(own)
    mixed = rows[first != second]
    own_won = np.where(mixed["system"].isin(own), mixed["label"] > 0.5, mixed["label"] < 0.5)
    decisive = (mixed["label"] != 0.5).to_numpy()
    keys = set(zip(mixed["document"], mixed["system"], mixed["opponent"], strict=True))
    return int((own_won & decisive).sum()), int(decisive.sum()), keys


def _self_win(mine: pd.DataFrame, humans: pd.DataFrame, own: set[str]) -> dict | None:
    hits, n, keys = _wins(mine, own)
    if n == 0:
        return None
    same = humans[
        [k in keys for k in zip(humans["document"], humans["system"], humans["opponent"], strict=True)]
    ]
    h_hits, h_n, _ = _wins(same, own)
    return _row("self_win_rate", _rate(hits, n), _rate(h_hits, h_n), n)


def _self_mean(mine: pd.DataFrame, humans: pd.DataFrame, own: set[str]) -> dict | None:
    def difference(rows: pd.DataFrame) -> float:
        is_own = rows["system"].isin(own)
        if not is_own.any() or is_own.all():
            return math.nan
        return float(rows.loc[is_own, "label"].mean() - rows.loc[~is_own, "label"].mean())

    value = difference(mine)
    if math.isnan(value):
        return None
    nan = (math.nan, math.nan)
    same = humans[humans["item"].isin(mine["item"])]
    return _row("self_mean_difference", (value, *nan), (difference(same), *nan), mine["item"].nunique())
