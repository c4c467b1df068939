"""Put a judge's numeric labels on the humans' scale before comparing them with the humans.

The alt-test's −RMSE and Krippendorff's α with the judge measure distances between labels, so
they assume the judge speaks the humans' scale: a judge whose labels are an affine change of a
perfect judge's (×20, or (x − 3)/2) fails both, although Kendall's τ, which sees only the order,
is unchanged. A judge is *off the scale* when its labels leave the humans' range, or are not whole
numbers where every human label is one. Such a judge is mapped onto the humans' scale by one of
two monotone maps, and the map is reported with the result:

- ``minmax``: the affine map of the judge's own range onto the humans' range. It uses no human
  label (only the ends of the scale), so nothing is learnt from the data it is then tested on.
- ``isotonic``: the increasing step function that best predicts the mean human label from the
  judge's label, cross-fitted: the items are split into folds, and each fold's labels come from
  the map fitted on the other folds, so a calibrated label never uses the human labels of its
  own item (predictions between fitted points are interpolated linearly).

Both maps depend on the judge's labels only through their order and affine position, so ω, ρ
and α of a calibrated judge are the same for x and a·x + b (a > 0). Each calibrated label is
rounded to 1e-9 so that floating-point noise from the map never turns a tie into a win.

References
----------
Calderon, N., Reichart, R. & Dror, R. (2025). The Alternative Annotator Test for LLM-as-a-Judge.
ACL 2025 (−RMSE scoring of numeric labels).
Barlow, R. E. et al. (1972). Statistical Inference under Order Restrictions. Wiley (isotonic
regression, the pool-adjacent-violators algorithm).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

import numpy as np
import pandas as pd
from scipy.optimize import isotonic_regression

from humaneval.errors import OptionError, RatingsError
from humaneval.judges.data import LabelView

__all__ = ["CALIBRATIONS", "Calibration", "calibrate", "off_scale"]

Calibration = Literal["auto", "minmax", "isotonic", "off"]
#: ``auto`` maps off-scale judges by min–max and leaves the others; ``off`` refuses off-scale judges.
CALIBRATIONS = ("auto", "minmax", "isotonic", "off")
#: Folds of the cross-fitted isotonic map.
FOLDS = 5
_DIGITS = 9


def off_scale(judge: np.ndarray, human: np.ndarray) -> str:
    """Why ``judge``'s labels are off the humans' scale, or ``""`` when they are on it.

    Examples
    --------
    >>> off_scale(np.array([20.0, 100.0]), np.array([1.0, 5.0]))
    'labels 20 to 100 leave the humans’ range 1 to 5'
    >>> off_scale(np.array([-1.0, 0.5]), np.array([1.0, 3.0, 5.0]))
    'labels -1 to 0.5 leave the humans’ range 1 to 5'
    >>> off_scale(np.array([1.5, 4.5]), np.array([1.0, 3.0, 5.0]))
    'labels are fractional (e.g. 1.5) where every human label is a whole number'
    >>> off_scale(np.array([2.0, 4.0]), np.array([1.0, 5.0]))
    ''
    """
    lo, hi = float(np.min(human)), float(np.max(human))
    jlo, jhi = float(np.min(judge)), float(np.max(judge))
    if jlo < lo or jhi > hi:
        return f"labels {jlo:g} to {jhi:g} leave the humans’ range {lo:g} to {hi:g}"
    whole = np.all(human == np.round(human))
    fraction = judge[judge != np.round(judge)]
    if whole and len(fraction):
        return f"labels are fractional (e.g. {fraction[0]:g}) where every human label is a whole number"
    return ""


def calibrate(
    annotations: LabelView, method: Calibration = "auto", *, seed: int | None = 1
) -> tuple[LabelView, pd.DataFrame]:
    """Map judges' numeric labels onto the humans' scale (see the module notes).

    Parameters
    ----------
    annotations : LabelView
        Humans and judges with numeric labels (categorical tables are returned unchanged).
    method : {"auto", "minmax", "isotonic", "off"}
        ``auto``: min–max map of the judges that are off the scale, the others unchanged;
        ``minmax`` / ``isotonic``: that map for every judge; ``off``: no map, and an off-scale
        judge is refused.
    seed : int, optional
        Of the isotonic map's fold split.

    Returns
    -------
    (LabelView, DataFrame)
        The table with mapped judge labels (several samples of a judge are reduced to their mean
        first), and one row per criterion and judge: ``criterion, judge, off_scale`` (the reason,
        or empty), ``calibration`` (``minmax``, ``isotonic`` or ``none``), ``slope, intercept`` (of
        the min–max map; NaN otherwise).

    Raises
    ------
    RatingsError
        ``off`` and a judge off the scale. A judge that gives one label only is left unmapped (no
        map spreads it) with the reason in ``off_scale``; the verdict flags it as degenerate.
    OptionError
        An unknown method.

    Examples
    --------
    A judge answering on 0–100 is mapped onto the humans' 1–5:

    >>> from humaneval.judges.data import label_view, load_annotations
    >>> humans = {"h1": {"a": 1, "b": 3, "c": 5}, "h2": {"a": 2, "b": 3, "c": 4}}
    >>> table, report = calibrate(label_view(load_annotations(humans, {"m": {"a": 0, "b": 50, "c": 100}})))
    >>> table.labels().query("annotator == 'm'")["label"].tolist()
    [1.0, 3.0, 5.0]
    >>> report[["judge", "calibration", "slope", "intercept"]].to_dict("records")
    [{'judge': 'm', 'calibration': 'minmax', 'slope': 0.04, 'intercept': 1.0}]
    """
    if method not in CALIBRATIONS:
        raise OptionError(f"unknown calibration {method!r}; use one of {', '.join(CALIBRATIONS)}")
    columns = ["criterion", "judge", "off_scale", "calibration", "slope", "intercept"]
    if annotations.label_kind != "numeric" or not annotations.judge_names:
        return annotations, pd.DataFrame(columns=columns)
    where = f"{annotations.source}: " if annotations.source else ""
    data = annotations.data
    criterion = data["criterion"] if "criterion" in data else pd.Series(None, index=data.index, dtype=object)
    rows, mapped = [], data["label"].astype(float).to_numpy().copy()
    changed = False
    for name in annotations.criteria:
        in_criterion = (criterion == name).to_numpy() if name is not None else np.ones(len(data), bool)
        human = in_criterion & (data["rater_kind"] == "human").to_numpy()
        if not human.any():
            continue
        h = mapped[human]
        for judge in annotations.judge_names:
            own = in_criterion & (data["annotator"] == judge).to_numpy()
            if not own.any():
                continue
            reason = off_scale(mapped[own], h)
            use = method if method != "auto" else ("minmax" if reason else "none")
            if method == "off" and reason:
                raise RatingsError(
                    f"{where}judge {judge!r}{_of(name)}: {reason}, so −RMSE and α would compare it on the "
                    "wrong scale; map it with --calibration minmax (or isotonic), or rescale it yourself"
                )
            use = "none" if use == "off" else use
            slope = intercept = np.nan
            j = mapped[own]
            if use != "none" and np.ptp(j) == 0:  # no map spreads one label; the verdict flags it degenerate
                use = "none"
                reason = (reason + "; " if reason else "") + f"one label ({j[0]:g}) only: left unmapped"
            if use != "none":
                if use == "minmax":
                    slope = float(np.ptp(h) / np.ptp(j))
                    intercept = float(h.min() - slope * j.min())
                    mapped[own] = np.round(h.min() + (j - j.min()) * (np.ptp(h) / np.ptp(j)), _DIGITS)
                else:
                    mapped[own] = _isotonic(data[own | human], judge, seed)
                changed = True
            rows.append(
                {
                    "criterion": name,
                    "judge": judge,
                    "off_scale": reason,
                    "calibration": use,
                    "slope": slope,
                    "intercept": intercept,
                }
            )
    report = pd.DataFrame(rows, columns=columns)
    if not changed:
        return annotations, report
    return replace(annotations, data=data.assign(label=mapped)), report


def _isotonic(part: pd.DataFrame, judge: str, seed: int | None) -> np.ndarray:
    """Cross-fitted isotonic map of ``judge``'s rows of ``part`` onto the mean human label per item."""
    is_judge = (part["annotator"] == judge).to_numpy()
    judged = part[is_judge]
    x_item = judged.groupby("item", sort=False)["label"].mean()
    y_item = part[~is_judge].groupby("item")["label"].mean().reindex(x_item.index)
    items = x_item.index[y_item.notna().to_numpy()]
    if len(items) < 2 * FOLDS:
        raise RatingsError(
            f"judge {judge!r}: the cross-fitted isotonic calibration needs at least {2 * FOLDS} items with "
            f"human labels ({len(items)} here); use --calibration minmax"
        )
    rng = np.random.default_rng(seed)
    fold = pd.Series(rng.permutation(np.arange(len(x_item)) % FOLDS), index=x_item.index)
    out = pd.Series(np.nan, index=x_item.index)
    for k in range(FOLDS):
        train = items[(fold.reindex(items) != k).to_numpy()]
        x, y = x_item[train].to_numpy(), y_item[train].to_numpy()
        order = np.argsort(x, kind="stable")
        fitted = isotonic_regression(y[order], increasing=True).x
        xs, first = np.unique(x[order], return_index=True)
        # equal judge labels share one fitted value (the pool of their block)
        fit_at = np.add.reduceat(fitted, first) / np.diff(np.r_[first, len(x)])
        held = fold.index[(fold == k).to_numpy()]
        out[held] = np.interp(x_item[held].to_numpy(), xs, fit_at)
    return np.round(out.reindex(judged["item"]).to_numpy(), _DIGITS)


def _of(name: str | None) -> str:
    return f" ({name})" if name is not None else ""
