"""The span table of a collected span-marking study (``humaneval collect prolific`` or ``mturk``).

Every answer of the span-marking method holds the spans an annotator marked in one text
(:mod:`humaneval.methods.spans`); the export table keeps it as ``raw_value``. Here each answer of an
annotator whose answers are analysable (those of the results' ratings table: complete, non-surplus,
non-rejected participants; no duplicate workers) becomes its rows of the span table (one per span, or
one empty row when nothing was marked), with the screen's ``seconds`` and the ESA ``score`` when the
form asked for one; the item lengths come from the texts the study was created with.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from humaneval.collect.mturk import MTurkResults
from humaneval.collect.prolific import ProlificResults, read_prolific
from humaneval.errors import RatingsError
from humaneval.io.studydb import DB_NAME, connect
from humaneval.methods import get_method
from humaneval.methods.spans import parse_span_answer
from humaneval.spans.table import ID_COLUMNS, SPAN_COLUMNS, SpanTable, load_spans


def texts_frame(summaries: Mapping[str, str]) -> pd.DataFrame:
    """The texts file (``document, system, text``) of summaries keyed ``document|system`` (texts.json)."""
    cells = [(*key.split("|", 1), text) for key, text in summaries.items()]
    return pd.DataFrame(cells, columns=["document", "system", "text"])


def study_texts(path: str | Path) -> pd.DataFrame:
    """The texts (``document, system, text``) a collection-server study was created with."""
    path = Path(path)
    path = path / DB_NAME if path.is_dir() else path
    connection = connect(path)
    try:
        row = connection.execute("SELECT texts_json FROM study").fetchone()
    finally:
        connection.close()
    return texts_frame(json.loads(row["texts_json"])["summaries"])


def collected_spans(results: ProlificResults | MTurkResults, texts: pd.DataFrame) -> SpanTable:
    """The validated span table of a span-marking study's export.

    Parameters
    ----------
    results : ProlificResults or MTurkResults
        :func:`humaneval.collect.prolific.read_prolific` of the study, or
        :func:`humaneval.collect.mturk.parse_mturk_results` of its batch.
    texts : DataFrame
        ``document, system, text`` (:func:`study_texts`, :func:`texts_frame`).

    Returns
    -------
    SpanTable

    Raises
    ------
    RatingsError
        When the study is not a span-marking study, or nobody has completed it.
    """
    table = results.table
    if not len(table) or not get_method(str(table["method"].iloc[0])).marks_spans:
        raise RatingsError("the study is not a span-marking study; its answers make a ratings table")
    kept = set() if results.ratings is None else set(results.ratings.data["annotator"].astype(str))
    usable = table["annotator"].astype(str).isin(kept)
    usable &= ~table["is_check"].astype(bool) & ~table["is_warmup"].astype(bool)
    rows = []
    for answer in table[usable & (table["raw_value"] != "")].itertuples(index=False):
        parsed = parse_span_answer(answer.raw_value)
        if isinstance(parsed, str):  # the server stored only valid answers; a damaged row is refused
            raise RatingsError(
                f"the answer of {answer.annotator} on ({answer.document}, {answer.system}) {parsed}"
            )
        base = {"annotator": answer.annotator, "document": answer.document, "system": answer.system,
                "seconds": answer.seconds, "score": parsed.score}  # fmt: skip
        marked = [
            dict(zip(SPAN_COLUMNS, (s.start, s.end, s.severity, s.category), strict=True))
            for s in parsed.spans
        ]
        rows += [{**base, **span} for span in marked] or [{**base, **dict.fromkeys(SPAN_COLUMNS)}]
    if not rows:
        raise RatingsError("no participant has completed the study yet; nothing written")
    frame = pd.DataFrame(rows, columns=[*ID_COLUMNS, *SPAN_COLUMNS, "seconds", "score"])
    if frame["score"].isna().all():
        frame = frame.drop(columns=["score"])
    return load_spans(frame, texts=texts)


def read_study_spans(path: str | Path) -> SpanTable:
    """:func:`collected_spans` of the study database (or folder) ``path``."""
    return collected_spans(read_prolific(path), study_texts(path))
