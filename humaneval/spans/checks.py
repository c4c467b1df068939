"""Injected-error attention checks: a known error inserted into a check item must be marked.

Google's MQM releases and WMT's ESA campaigns insert errors into some items; an annotator who marks
none of the characters of an injected error missed the check.
"""

from __future__ import annotations

import pandas as pd

from humaneval.errors import OptionError, RatingsError
from humaneval.spans.table import ITEM, SpanTable


def injected_error_checks(table: SpanTable, injected: pd.DataFrame) -> pd.DataFrame:
    """Whether every annotator who saw a check item marked its injected error.

    Parameters
    ----------
    table : SpanTable
    injected : DataFrame
        ``document, system, start, end``: the inserted errors (``end`` exclusive).

    Returns
    -------
    DataFrame
        ``annotator, document, system, start, end, passed``: one row per annotator and injected
        error of an item they annotated; passed when a span of theirs covers any of its characters.

    Examples
    --------
    >>> from humaneval.spans.table import load_spans
    >>> t = load_spans(pd.DataFrame({"annotator": ["a", "b"], "document": "c1", "system": "s",
    ...     "start": [3, None], "end": [6, None], "severity": ["major", None],
    ...     "category": ["accuracy", None], "length": 20}))
    >>> injected = pd.DataFrame({"document": ["c1"], "system": ["s"], "start": [5], "end": [9]})
    >>> injected_error_checks(t, injected)[["annotator", "passed"]].to_dict("records")
    [{'annotator': 'a', 'passed': True}, {'annotator': 'b', 'passed': False}]
    """
    missing = [c for c in (*ITEM, "start", "end") if c not in injected.columns]
    if missing:
        raise RatingsError(f"injected errors: no column {missing[0]!r}; give document, system, start, end")
    errors = injected.assign(document=injected["document"].astype(str), system=injected["system"].astype(str))
    if (errors["end"] <= errors["start"]).any():
        raise RatingsError("injected errors: an end is not after its start; end is exclusive")
    seen = table.items.merge(errors, on=ITEM)
    spans = table.spans[["annotator", *ITEM, "start", "end"]].rename(columns={"start": "s", "end": "e"})
    pairs = seen.merge(spans, on=["annotator", *ITEM], how="left")
    pairs["hit"] = (pairs["s"] < pairs["end"]) & (pairs["e"] > pairs["start"])
    keys = ["annotator", *ITEM, "start", "end"]
    out = pairs.groupby(keys, sort=True)["hit"].any().rename("passed").reset_index()
    return out.astype({"passed": bool})


def flag_missed_checks(results: pd.DataFrame, min_pass: float = 0.5) -> pd.DataFrame:
    """The QC rule: annotators who marked fewer than ``min_pass`` of the injected errors they saw.

    Parameters
    ----------
    results : DataFrame
        :func:`injected_error_checks`.
    min_pass : float
        Smallest share of injected errors found that passes (0–1).

    Returns
    -------
    DataFrame
        ``annotator, checks, passed, pass_rate, flagged``.
    """
    if not 0 <= min_pass <= 1:
        raise OptionError(f"min_pass={min_pass} must lie between 0 and 1, e.g. 0.5")
    per = results.groupby("annotator")["passed"].agg(checks="size", passed="sum").reset_index()
    per["pass_rate"] = per["passed"] / per["checks"]
    per["flagged"] = per["pass_rate"] < min_pass
    return per
