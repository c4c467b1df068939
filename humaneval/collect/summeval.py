"""SummEval's public annotations (``model_annotations.aligned.jsonl``) as a ratings table.

SummEval (Fabbri et al., 2021) had 100 CNN/DailyMail documents × 16 systems rated on coherence,
consistency, fluency and relevance (1–5) by 3 experts and 5 crowd workers each. Its annotation file
has one JSON object per line: ``id`` (the document), ``model_id`` (the system, ``M0`` … ``M23``),
``expert_annotations`` and ``turker_annotations`` (lists of ``{"coherence": 2, "consistency": 5,
"fluency": 3, "relevance": 3}``), plus texts and references that are not needed here.
:func:`load_summeval` turns it into the long table every stage reads, one row per (annotator,
document, system, criterion), with the SummEval 1–5 scale of each criterion declared — so
``humaneval reliability``, ``analyze`` and ``report`` re-analyse SummEval directly (see
docs/reliability.md and docs/analysis.md), e.g. per criterion with the CLMM.

Annotator identities: the file names no annotator. The three experts rated every summary and are
taken to be the same three people in the same list position on every line (``expert1`` …
``expert3``). Crowd annotations carry no worker ids and need not come from the same workers on
different lines: with ``annotators="position"`` (default) list position k is named ``turker{k}``
(an approximation that lets a model have an annotator effect), with ``annotators="unique"`` every
crowd annotation is its own annotator (no annotator effect can be estimated).

References
----------
Fabbri, A. R., Kryściński, W., McCann, B., Xiong, C., Socher, R. and Radev, D. (2021).
SummEval: Re-evaluating summarization evaluation. TACL 9, 391–409.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings, validate_ratings
from humaneval.design.criteria import CRITERIA
from humaneval.errors import RatingsError

SUMMEVAL_CRITERIA: tuple[str, ...] = ("coherence", "consistency", "fluency", "relevance")
GROUPS = {"expert": "expert_annotations", "turker": "turker_annotations"}


def load_summeval(
    path: str | Path,
    *,
    annotations: Literal["expert", "turker", "both"] = "expert",
    criteria: tuple[str, ...] | None = None,
    annotators: Literal["position", "unique"] = "position",
) -> Ratings:
    """Read SummEval's ``model_annotations.aligned.jsonl`` into a validated ratings table.

    Parameters
    ----------
    path:
        The JSON-lines annotation file.
    annotations:
        ``"expert"`` (the three experts, what the paper analyses), ``"turker"`` (the five crowd
        workers) or ``"both"``; the table has an ``annotator_group`` column (``expert``/``turker``).
    criteria:
        The criteria to keep (default: all four).
    annotators:
        How crowd annotations are named: ``"position"`` (``turker1`` … by list position) or
        ``"unique"`` (one annotator per annotation); see the module docstring.

    Returns
    -------
    Ratings
        Columns ``annotator, document, system, criterion, score, annotator_group``, with the
        declared 1–5 scale of every criterion (written as ``<stem>.scale.json`` by ``write``).

    Examples
    --------
    >>> ratings = load_summeval("model_annotations.aligned.jsonl")  # doctest: +SKIP
    >>> ratings.write("summeval.csv")  # doctest: +SKIP
    """
    if annotations not in ("expert", "turker", "both"):
        raise RatingsError(f"annotations must be expert, turker or both, not {annotations!r}")
    if annotators not in ("position", "unique"):
        raise RatingsError(f"annotators must be position or unique, not {annotators!r}")
    chosen = tuple(criteria) if criteria else SUMMEVAL_CRITERIA
    unknown = [c for c in chosen if c not in SUMMEVAL_CRITERIA]
    if unknown:
        raise RatingsError(
            f"SummEval has no criterion {unknown[0]!r}; choose from {', '.join(SUMMEVAL_CRITERIA)}"
        )
    groups = ("expert", "turker") if annotations == "both" else (annotations,)
    path = Path(path)
    rows: list[tuple] = []
    labels: list[str] = []
    for number, item in _lines(path):
        where = f"{path}: line {number}"
        for key in ("id", "model_id"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise RatingsError(
                    f"{where}: no {key!r}; is this SummEval's model_annotations.aligned.jsonl?"
                )
        document, system = item["id"].strip(), item["model_id"].strip()
        for group in groups:
            entries = item.get(GROUPS[group])
            if not isinstance(entries, list):
                raise RatingsError(f"{where}: {GROUPS[group]!r} must be a list of ratings")
            for k, entry in enumerate(entries, start=1):
                if not isinstance(entry, dict):
                    raise RatingsError(f"{where}: {GROUPS[group]}[{k - 1}] is not an object of ratings")
                if group == "turker" and annotators == "unique":
                    annotator = f"turker:{document}:{system}:{k}"
                else:
                    annotator = f"{group}{k}"
                for criterion in chosen:
                    if criterion not in entry:
                        raise RatingsError(f"{where}: {GROUPS[group]}[{k - 1}] has no {criterion!r}")
                    rows.append((annotator, document, system, criterion, entry[criterion], group))
                    labels.append(number)
    if not rows:
        raise RatingsError(f"{path}: no {' or '.join(GROUPS[g] for g in groups)} found")
    frame = pd.DataFrame(
        rows, columns=["annotator", "document", "system", "criterion", "score", "annotator_group"]
    )
    scales = tuple(CRITERIA[c].scale() for c in chosen)
    return validate_ratings(frame, response="score", scale=scales, source=str(path), lines=np.asarray(labels))


def _lines(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RatingsError(f"{path}: no such file; check the path") from None
    except UnicodeDecodeError as exc:
        raise RatingsError(f"{path}: byte {exc.start} is not valid UTF-8") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RatingsError(f"{path}: line {number}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise RatingsError(f"{path}: line {number}: JSON nested too deeply for SummEval") from None
        if not isinstance(item, dict):
            raise RatingsError(f"{path}: line {number}: expected a JSON object per line")
        yield number, item
