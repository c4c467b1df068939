"""Labels that are numbers written as text (``"4"`` in JSON): read them as the numbers they are.

A JSON string is a category by the reader's rule, so 1–5 ratings typed as strings would be scored
by accuracy (exact matches) instead of −RMSE, and a judge one point off on every item would be as
wrong as one four points off. When every label of a table parses as a finite number, the alt-test
and the agreement statistics use the numbers, and say so in a caution.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from humaneval.judges.data import LabelView

__all__ = ["numbers_from_text"]


def numbers_from_text(annotations: LabelView) -> LabelView | None:
    """The table with numeric labels when every categorical label parses as a finite number, else None.

    Examples
    --------
    >>> from humaneval.judges.data import label_view
    >>> table = label_view({"h1": {"a": "1", "b": "4"}, "h2": {"a": "2", "b": "5"}})
    >>> table.label_kind, numbers_from_text(table).label_kind
    ('categorical', 'numeric')
    >>> numbers_from_text(label_view({"h1": {"a": "yes"}, "h2": {"a": "1"}})) is None
    True
    """
    if annotations.label_kind != "categorical":
        return None
    numbers = pd.to_numeric(annotations.data["label"], errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(numbers).all():
        return None
    return replace(annotations, data=annotations.data.assign(label=numbers), label_kind="numeric")
