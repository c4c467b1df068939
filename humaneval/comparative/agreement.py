"""How much annotators agree on comparative judgements: Krippendorff's α (nominal) on the choices.

A *unit* is one comparison that several annotators make: the same pair of systems on the same
document (pairwise), or the same set of summaries of one document (best–worst; an annotator's
second showing of the same set pairs with the others' second showing). Its values are
the annotators' choices — the winning system or ``tie``; the best and, separately, the worst
summary of the tuple — and α is Krippendorff's nominal α over them, with the KALPHA bootstrap
interval (Hayes & Krippendorff 2007) of :func:`humaneval.reliability.bootstrap.kalpha_bootstrap`.
``observed_agreement`` (1 − D_o) is the share of pairs of annotators who chose the same, and
``majority_share`` the share of judgements that agree with their unit's most frequent choice.
Units judged once are left out (counted in ``n_units_single``).

References
----------
Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, 2nd ed., ch. 11.
Hayes, A. F. & Krippendorff, K. (2007). Answering the call for a standard reliability measure for
coding data. Communication Methods and Measures 1(1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import InsufficientDataError
from humaneval.methods import get_method
from humaneval.present.document import Block, Column, Paragraph, Table
from humaneval.present.formatting import fmt, fmt_estimate_ci
from humaneval.present.printable import Printable


@dataclass(frozen=True)
class ChoiceAgreement:
    """Agreement on one kind of choice (``winner``, ``best`` or ``worst``)."""

    choice: str
    alpha: float
    ci: tuple[float, float]
    observed_agreement: float
    majority_share: float
    n_units: int
    n_judgements: int
    n_units_single: int

    def to_dict(self) -> dict[str, object]:
        return {
            "choice": self.choice,
            "alpha": self.alpha,
            "ci": list(self.ci),
            "observed_agreement": self.observed_agreement,
            "majority_share": self.majority_share,
            "n_units": self.n_units,
            "n_judgements": self.n_judgements,
            "n_units_single": self.n_units_single,
        }


@dataclass(frozen=True)
class ComparativeAgreement(Printable):
    """Agreement of a pairwise or best–worst table: one :class:`ChoiceAgreement` per choice."""

    kind: str
    choices: tuple[ChoiceAgreement, ...]
    n_resamples: int
    seed: int | None

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "level_of_measurement": "nominal",
            "choices": [c.to_dict() for c in self.choices],
            "n_resamples": self.n_resamples,
            "seed": self.seed,
        }

    def blocks(self) -> tuple[Block, ...]:
        rows = tuple(
            (
                c.choice,
                fmt_estimate_ci(c.alpha, c.ci[0], c.ci[1]),
                fmt(c.observed_agreement),
                fmt(c.majority_share),
                str(c.n_units),
                str(c.n_judgements),
            )
            for c in self.choices
        )
        columns = ("choice", "α [95% CI]", "pairs agreeing", "with the majority", "units", "judgements")
        return (
            Paragraph(
                (
                    f"agreement on {self.kind} choices "
                    f"(Krippendorff's α, nominal; KALPHA {self.n_resamples} resamples)",
                )
            ),
            Table(tuple(Column(c, align="l" if k == 0 else "r") for k, c in enumerate(columns)), rows),
        )


def choice_table(ratings: Ratings | pd.DataFrame, kind: str) -> pd.DataFrame:
    """One row per judgement: ``annotator``, ``unit`` and one column per choice (``winner``, or
    ``best`` and ``worst``)."""
    data = as_ratings(ratings).without_checks().data
    if get_method(kind).unit == "pair":
        score = pd.to_numeric(data["score"])
        system, opponent = data["system"].astype(str), data["opponent"].astype(str)
        first = system < opponent
        rows = data[first]
        winner = np.where(
            score[first] == 1, system[first], np.where(score[first] == 0, opponent[first], "tie")
        )
        unit = rows["document"].astype(str) + "|" + system[first] + "|" + opponent[first]
        return pd.DataFrame(
            {"annotator": rows["annotator"].to_numpy(), "unit": unit.to_numpy(), "winner": winner}
        )
    if get_method(kind).unit == "tuple":
        keys = ["annotator", "document", "tuple_id"]
        frame = data.assign(system=data["system"].astype(str), score=pd.to_numeric(data["score"]))
        grouped = frame.groupby(keys, sort=False)
        members = grouped["system"].agg(lambda s: "|".join(sorted(s)))
        best = frame[frame["score"] == 1].set_index(keys)["system"]
        worst = frame[frame["score"] == -1].set_index(keys)["system"]
        out = pd.DataFrame({"members": members, "best": best, "worst": worst}).reset_index()
        # a set of summaries shown twice to one annotator: the k-th showings form one unit
        again = out.groupby(["annotator", "document", "members"], sort=False).cumcount().astype(str)
        out["unit"] = out["document"].astype(str) + "|" + out["members"] + "|" + again
        return out[["annotator", "unit", "best", "worst"]]
    raise InsufficientDataError(f"agreement on choices is defined for pairwise and bws tables, not {kind}")


def comparative_agreement(
    ratings: Ratings | pd.DataFrame, kind: str, *, n_resamples: int = 1000, seed: int | None = 1
) -> ComparativeAgreement:
    """Krippendorff's nominal α, observed agreement and majority share of the annotators' choices.

    Raises
    ------
    InsufficientDataError
        When no comparison was made by two or more annotators.

    Examples
    --------
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> table = simulate_pairwise_study([1.0, 0.0, -1.0], blocks=3, seed=1)
    >>> agreement = comparative_agreement(table, "pairwise", n_resamples=1000)
    >>> agreement.choices[0].choice
    'winner'
    """
    from humaneval.reliability.alpha import krippendorff_alpha
    from humaneval.reliability.bootstrap import kalpha_bootstrap
    from humaneval.reliability.data import from_long

    table = choice_table(ratings, kind)
    found = []
    for choice in ("winner",) if get_method(kind).unit == "pair" else ("best", "worst"):
        part = table[["annotator", "unit", choice]].dropna()
        sizes = part.groupby("unit")["annotator"].transform("size")
        paired = part[sizes >= 2]
        if paired.empty:
            raise InsufficientDataError(
                "every comparison was made by a single annotator, so there is no agreement to measure"
            )
        data = from_long(paired, unit=["unit"], coder="annotator", value=choice)
        alpha = krippendorff_alpha(data, "nominal")
        boot = kalpha_bootstrap(data, "nominal", n_resamples=n_resamples, seed=seed)
        modal = paired.groupby("unit")[choice].agg(lambda v: v.value_counts().iloc[0])
        found.append(
            ChoiceAgreement(
                choice=choice,
                alpha=float(alpha.alpha),
                ci=(float(boot.ci[0]), float(boot.ci[1])),
                observed_agreement=float(1.0 - alpha.D_o),
                majority_share=float(modal.sum() / len(paired)),
                n_units=int(paired["unit"].nunique()),
                n_judgements=len(paired),
                n_units_single=int(part.loc[sizes < 2, "unit"].nunique()),
            )
        )
    return ComparativeAgreement(kind, tuple(found), n_resamples, seed)
