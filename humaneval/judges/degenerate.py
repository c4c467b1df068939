"""Judges that say (nearly) the same thing about every item: they can pass without judging.

On a criterion where the humans give most items the top label, a judge that always answers that
label agrees with most humans on most items, and so passes the alt-test with a high advantage
probability — while it tells no item and no system from another. Such a judge is degenerate when
one label makes up at least :data:`MODE_SHARE` of its labels, or (numeric labels) its standard
deviation is below :data:`SD_RATIO` of the humans'. The verdict names the reason and never ranks a
degenerate judge first.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humaneval.judges.data import LabelView

__all__ = ["MODE_SHARE", "SD_RATIO", "degenerate_judges"]

#: One label this share of a judge's items (or more) and the judge is degenerate.
MODE_SHARE = 0.95
#: A judge whose label SD is below this fraction of the humans' is degenerate.
SD_RATIO = 0.1


def degenerate_judges(annotations: LabelView) -> pd.DataFrame:
    """Per criterion and judge: the share of its most frequent label, the SD ratio, and why degenerate.

    Returns
    -------
    DataFrame
        ``criterion, judge, mode_share, sd_ratio`` (judge SD / human SD; NaN for categories),
        ``degenerate`` (the reason in words, or ``""``).

    Examples
    --------
    >>> from humaneval.judges.data import label_view, load_annotations
    >>> humans = {"h1": {"a": 5, "b": 5, "c": 2}, "h2": {"a": 5, "b": 4, "c": 1}}
    >>> pool = {"top": {"a": 5, "b": 5, "c": 5}, "ok": {"a": 5, "b": 4, "c": 2}}
    >>> table = label_view(load_annotations(humans, pool))
    >>> found = degenerate_judges(table).set_index("judge")["degenerate"]
    >>> found["top"], found["ok"]
    ('gives the label 5 to 100% of the items (no item told from another)', '')
    """
    rows = []
    for criterion in annotations.criteria:
        labels = annotations.of_criterion(criterion).labels()
        human = labels.loc[labels["rater_kind"] == "human", "label"]
        human_sd = float(np.std(human.to_numpy(float))) if annotations.label_kind == "numeric" else np.nan
        for judge, own in labels[labels["rater_kind"] == "judge"].groupby("annotator", sort=True)["label"]:
            counts = own.value_counts()
            share = float(counts.iloc[0] / len(own))
            ratio = np.nan
            if annotations.label_kind == "numeric" and human_sd > 0:
                ratio = float(np.std(own.to_numpy(float)) / human_sd)
            reason, mode = "", counts.index[0]
            if share >= MODE_SHARE:
                shown = f"{mode:g}" if isinstance(mode, float) else str(mode)
                reason = f"gives the label {shown} to {share:.0%} of the items (no item told from another)"
            elif ratio < SD_RATIO:
                reason = (
                    f"its labels hardly vary (SD {ratio:.2f} of the humans'): it tells few items from another"
                )
            rows.append(
                {
                    "criterion": criterion,
                    "judge": judge,
                    "mode_share": share,
                    "sd_ratio": ratio,
                    "degenerate": reason,
                }
            )
    return pd.DataFrame(rows, columns=["criterion", "judge", "mode_share", "sd_ratio", "degenerate"])
