"""How a judge agrees with the humans: Krippendorff's α with and without it, and Kendall's τ.

Per judge (and criterion):

- α of the humans alone and of the humans plus the judge as one more coder, each with its KALPHA
  bootstrap interval (:func:`humaneval.reliability.kalpha_bootstrap`; nominal for categorical
  labels, ordinal for numbers). A judge that fits in lowers α no more than another human would.
- Kendall's τ between the judge's label and the mean human label, over all items (the summary
  level, ``tau_item``) and over the systems' means (``tau_system``, when the labels come from a
  ratings table with at least three systems), with percentile intervals that resample documents
  (:func:`humaneval.metaeval.bootstrap`). In pairwise tables a summary's score is its win rate
  (both sides of each judgement). Categorical labels have no order: τ is left empty.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings
from humaneval.errors import ReliabilityWarning
from humaneval.judges.data import LabelView, label_view
from humaneval.metaeval.bootstrap import BootstrapResult, bootstrap
from humaneval.metaeval.levels import correlation_levels
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_value_ci
from humaneval.present.printable import Printable, frame_table
from humaneval.reliability.alpha import Level, krippendorff_alpha
from humaneval.reliability.bootstrap import kalpha_bootstrap
from humaneval.reliability.data import from_long

__all__ = ["JudgeAgreement", "judge_agreement"]

AGREEMENT = "Agreement: Krippendorff's α (KALPHA 95% CI) and Kendall's τ with the mean human label"


@dataclass(frozen=True, eq=False, repr=False)
class JudgeAgreement(Printable):
    """α and τ per judge: ``table`` has ``criterion, judge, alpha_humans (+ _low, _high),
    alpha_with_judge (+ _low, _high), tau_item (+ _low, _high), tau_system (+ _low, _high),
    n_items, n_documents, n_systems``."""

    table: pd.DataFrame
    n_resamples: int
    seed: int | None
    notes: tuple[str, ...] = field(default=())
    #: Per criterion, the paired bootstrap of every judge's τ (None without resamples or systems).
    tau_bootstrap: dict[str | None, BootstrapResult | None] = field(default_factory=dict, repr=False)

    def brief(self) -> str:
        """``3 judges, 1000 resamples``, the ``repr``."""
        return f"{self.table['judge'].nunique()} judges, {self.n_resamples} resamples"

    def blocks(self) -> tuple[Block, ...]:
        """One row per judge: α of the humans and with the judge, τ per item and per system (each
        with its interval), then the notes."""
        shown = self.table.assign(
            **{
                name: [
                    fmt_value_ci(getattr(r, name), getattr(r, f"{name}_low"), getattr(r, f"{name}_high"))
                    for r in self.table.itertuples()
                ]
                for name in ("alpha_humans", "alpha_with_judge", "tau_item", "tau_system")
            }
        )
        columns = ["judge", "alpha_humans", "alpha_with_judge", "tau_item", "tau_system"]
        if self.table["criterion"].notna().any():
            columns.insert(0, "criterion")
        names = {"alpha_humans": "α humans", "alpha_with_judge": "α with judge", "tau_item": "τ item",
                 "tau_system": "τ system"}  # fmt: skip
        out: list[Block] = [
            Paragraph((AGREEMENT,)),
            frame_table(shown, columns, names=names, align=dict.fromkeys(names, "r")),
        ]
        if self.notes:
            out.append(Bullets(tuple((f"Note: {n}",) for n in self.notes)))
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        records = [
            {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in self.table.to_dict(orient="records")
        ]
        return {
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "judges": records,
            "notes": list(self.notes),
        }


@shared_docs
def judge_agreement(
    ratings: Ratings | LabelView,
    *,
    n_resamples: int = 1000,
    seed: int | None = 1,
    criterion: str | None = None,
) -> JudgeAgreement:
    """α of the humans with and without each judge, and τ between each judge and the human mean.

    Parameters
    ----------
    ratings : Ratings
        Humans and judges, the judges' rows marked ``rater_kind = judge``
        (:func:`~humaneval.judges.data.load_annotations` reads the other layouts).
    n_resamples : int
        Bootstrap resamples of every interval (at least 1000; 0 = point estimates only).
    seed : int, optional
        Seed of the resamples (the same for every judge, so the intervals are paired).
    criterion : str, optional
        %(criterion_or_each)s

    Returns
    -------
    JudgeAgreement

    Examples
    --------
    >>> from humaneval.judges import load_annotations
    >>> humans = {f"h{k}": {f"i{i}": (i + k) % 5 for i in range(40)} for k in range(3)}
    >>> judge = {"copy": {f"i{i}": (i + 1) % 5 for i in range(40)}}
    >>> row = judge_agreement(load_annotations(humans, judge)).table.iloc[0]
    >>> float(round(row.tau_item, 2)), math.isnan(row.tau_system)
    (0.6, True)
    """
    annotations = label_view(ratings)
    criteria = annotations.criteria if criterion is None else [criterion]
    level: Level = "nominal" if annotations.label_kind == "categorical" else "ordinal"
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    boots: dict[str | None, BootstrapResult | None] = {}
    for name in criteria:
        labels = annotations.of_criterion(name).labels()
        humans = labels[labels["rater_kind"] == "human"]
        base = _alpha(humans, level, n_resamples, seed)
        layout = _layout(annotations.of_criterion(name).data, humans["item"].unique())
        judges = sorted(labels.loc[labels["rater_kind"] == "judge", "annotator"].unique())
        own = {j: labels[(labels["annotator"] == j) & labels["item"].isin(humans["item"])] for j in judges}
        taus, boots[name] = _taus(humans, own, layout, level, n_resamples, seed)
        for judge in judges:
            joint = _alpha(pd.concat([humans, own[judge]]), level, n_resamples, seed)
            row: dict[str, Any] = {"criterion": name, "judge": judge}
            row.update(_prefixed("alpha_humans", base))
            row.update(_prefixed("alpha_with_judge", joint))
            row.update(taus[judge])
            rows.append(row)
    if annotations.label_kind == "categorical":
        notes.append("the labels are categories without an order, so Kendall's τ is left empty")
    return JudgeAgreement(
        table=pd.DataFrame(rows), n_resamples=n_resamples, seed=seed, notes=tuple(notes), tau_bootstrap=boots
    )


def _alpha(
    frame: pd.DataFrame, level: Level, n_resamples: int, seed: int | None
) -> tuple[float, float, float]:
    data = from_long(frame, unit=["item"], coder="annotator", value="label")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ReliabilityWarning)
        if not n_resamples:
            return krippendorff_alpha(data, level).alpha, math.nan, math.nan
        boot = kalpha_bootstrap(data, level, n_resamples=n_resamples, seed=seed, alpha_min=())
    return boot.alpha, boot.ci[0], boot.ci[1]


def _layout(data: pd.DataFrame, items: np.ndarray) -> pd.DataFrame:
    """``item → document, system``: from a ratings table, else every item its own document."""
    if {"document", "system"} <= set(data.columns):
        columns = ["document", "system"] + (["opponent"] if "opponent" in data else [])
        return data.drop_duplicates("item").set_index("item")[columns]
    return pd.DataFrame({"document": items, "system": "all"}, index=pd.Index(items, name="item"))


def _taus(
    humans: pd.DataFrame,
    judges: dict[str, pd.DataFrame],
    layout: pd.DataFrame,
    level: str,
    n_resamples: int,
    seed,
) -> tuple[dict[str, dict[str, Any]], BootstrapResult | None]:
    """τ of every judge with the mean human label; one bootstrap for all judges (paired resamples)."""
    empty = dict.fromkeys(
        ["tau_item", "tau_item_low", "tau_item_high", "tau_system", "tau_system_low", "tau_system_high"],
        math.nan,
    )
    cells = layout.reindex(pd.Index(humans["item"].unique()))
    systems = pd.concat([cells["system"], cells["opponent"]]) if "opponent" in cells else cells["system"]
    n_docs, n_sys = cells["document"].nunique(), systems.nunique()
    counts = {"n_items": len(cells), "n_documents": int(n_docs), "n_systems": int(n_sys)}
    out = {judge: empty | counts for judge in judges}
    if level == "nominal" or not judges:
        return out, None
    mean = humans.groupby("item")["label"].mean().reindex(cells.index)
    H, P = _system_document(cells, mean), {}
    for judge, rows in judges.items():
        P[judge] = _system_document(cells, rows.set_index("item")["label"].reindex(cells.index)).reindex(
            index=H.index, columns=H.columns
        )
    levels = ("sum", "sys") if n_sys >= 3 else ("sum",)
    keys = {"sum": "tau_item", "sys": "tau_system"}
    if not n_resamples:
        for judge, matrix in P.items():
            values = correlation_levels(H.to_numpy(float), matrix.to_numpy(float), levels=levels)
            for name in levels:
                out[judge][keys[name]] = values[f"tau_{name}"].estimate
        return out, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = bootstrap(
            H.to_numpy(float),
            {judge: matrix.to_numpy(float) for judge, matrix in P.items()},
            levels=levels,
            mode="documents",
            n_resamples=n_resamples,
            seed=seed,
        )
    for row in boot.table.itertuples():
        key = keys[row.level]
        out[row.metric][key], out[row.metric][f"{key}_low"], out[row.metric][f"{key}_high"] = (
            float(row.estimate),
            float(row.ci_low),
            float(row.ci_high),
        )
    return out, boot if n_sys >= 3 else None


def _system_document(cells: pd.DataFrame, values: pd.Series) -> pd.DataFrame:
    """Systems × documents of ``values`` per item; a pairwise item scores both sides (win rates)."""
    frame = pd.DataFrame({"document": cells["document"], "system": cells["system"], "v": values})
    if "opponent" in cells:
        frame = pd.concat([frame, frame.assign(system=cells["opponent"], v=1 - frame["v"])])
    return frame.pivot_table(index="system", columns="document", values="v", aggfunc="mean", dropna=False)


def _prefixed(name: str, values: tuple[float, float, float]) -> dict[str, float]:
    return {name: values[0], f"{name}_low": values[1], f"{name}_high": values[2]}
