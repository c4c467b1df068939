"""How many judgements a table's rows hold: a method judges rows, pairs or tuples (``Method.unit``)."""

from __future__ import annotations

import pandas as pd


def judgements_in(rows: pd.DataFrame, unit: str) -> int:
    r"""The judgements in ``rows`` (no attention checks) of a table whose method judges ``unit``\ s
    (``Method.unit``): a pair is two rows, a tuple one row per shown summary, else a row each."""
    if unit == "pair":
        return len(rows) // 2
    if unit == "tuple":
        return len(rows.drop_duplicates(["annotator", "tuple_id"]))
    return len(rows)
