"""Follow-up design: the re-check round of SummEval's experts (docs/design.md).

For an item x, annotator i must revisit x when some other annotator's score differs from i's by
more than ``gap`` while all annotators other than i lie within ``agree`` of each other; when some
pair differs by more than ``gap`` and nobody is singled out this way, every annotator of x
revisits it. The result is a normal :class:`~humaneval.design.plan.Design` with ``round = 2``
whose slots are the real annotators, each with a freshly randomised order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import pandas as pd

from humaneval.core.ratings import Ratings, as_ratings
from humaneval.core.structure import cluster_labels
from humaneval.design.plan import Design
from humaneval.design.rng import stream
from humaneval.design.spec import DesignSpec, design_id
from humaneval.design.table import DESIGN_COLUMNS, normalise_table, screen_name
from humaneval.errors import DesignError


def revisit(scores: Mapping[str, float], gap: float = 2, agree: float = 1) -> set[str]:
    """Annotators who must revisit one item, given each annotator's score for it."""
    singled = set()
    for annotator, own in scores.items():
        others = [s for a, s in scores.items() if a != annotator]
        if others and max(abs(s - own) for s in others) > gap and max(others) - min(others) <= agree:
            singled.add(annotator)
    if not singled and len(scores) > 1 and max(scores.values()) - min(scores.values()) > gap:
        return set(scores)
    return singled


def recheck_design(
    ratings: Ratings | pd.DataFrame,
    dimension: str | None = None,
    gap: float = 2,
    agree: float = 1,
    *,
    seed: int = 0,
) -> Design:
    """The round-2 design that sends disagreeing annotators back to their items.

    Slots are named by the annotator ids (the same people must revisit); blocks are the clusters
    of the round-1 data; each slot sees its items in a freshly randomised order.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        Round-1 scores (attention checks are dropped).
    dimension : str, optional
        The criterion to re-check when the ratings hold several.
    gap, agree : float
        The :func:`revisit` rule: a score more than ``gap`` from another annotator's, while the
        others lie within ``agree`` of each other.
    seed : int
        Seeds the order of each slot's screens.

    Returns
    -------
    Design
        A normal design with ``round = 2`` and Likert screens; its spec records ``gap``,
        ``agree`` and the SHA-256 of the round-1 data under ``recheck``.

    Raises
    ------
    DesignError
        Rank ratings, or several criteria and no (or an unknown) ``dimension``.
    """
    from humaneval import __version__

    data = _round_one(ratings, dimension)
    documents, systems = sorted(data["document"].unique()), sorted(data["system"].unique())
    flagged = _flagged(data, gap, agree)
    spec = _recheck_spec(data, documents, systems, dimension, gap, agree, seed)
    did = design_id(spec)
    block_of = data.groupby("annotator")["block"].first()
    slots = sorted(flagged["annotator"].unique(), key=lambda a: (block_of[a], a))
    fields = _likert_fields(documents, systems)
    rows = [
        {"design_id": did, "dimension": spec["dimension"], **row}
        for annotator in slots
        for row in _slot_screens(data, flagged, annotator, int(block_of[annotator]), seed, fields)
    ]
    blocks = data.groupby("block")["document"].unique()
    return Design(
        design_id=did,
        spec=spec,
        systems=tuple(systems),
        reference_system=None,
        documents=tuple(documents),
        blocks=tuple(tuple(sorted(b)) for b in blocks),
        dropped_documents=(),
        skipped_pairs=(),
        table=_recheck_table(rows),
        checks=(),
        balance={
            "recheck": {
                "items": len(flagged[["document", "system"]].drop_duplicates()),
                "judgements": len(rows),
                "annotators": len(slots),
            }
        },
        package_version=__version__,
    )


def _round_one(ratings: Ratings | pd.DataFrame, dimension: str | None) -> pd.DataFrame:
    """The scores of ``dimension`` (checks dropped), with ``block`` = the cluster of each row."""
    ratings = as_ratings(ratings).without_checks()
    if ratings.response != "score":
        raise DesignError("a re-check round compares scores; these ratings are ranks")
    data = ratings.data
    if "criterion" in data:
        criteria = sorted(data["criterion"].unique())
        if dimension is None and len(criteria) > 1:
            raise DesignError(f"the ratings hold the criteria {criteria}; choose one with dimension=")
        if dimension is not None:
            if dimension not in criteria:
                raise DesignError(f"criterion {dimension!r} is not in the ratings; choose one of {criteria}")
            data = data[data["criterion"] == dimension]
    return data.assign(block=cluster_labels(data).to_numpy())


def _flagged(data: pd.DataFrame, gap: float, agree: float) -> pd.DataFrame:
    """(annotator, document, system) of every judgement :func:`revisit` sends back, by item."""
    flagged = []
    for (document, system), item in data.groupby(["document", "system"], sort=True):
        scores = dict(zip(item["annotator"], item["score"].astype(float), strict=True))
        flagged += [(a, document, system) for a in sorted(revisit(scores, gap, agree))]
    return pd.DataFrame(flagged, columns=["annotator", "document", "system"])


def _recheck_spec(
    data: pd.DataFrame,
    documents: list[str],
    systems: list[str],
    dimension: str | None,
    gap: float,
    agree: float,
    seed: int,
) -> dict[str, Any]:
    """The spec of the round-2 design, recording the rule and the SHA-256 of the round-1 data."""
    spec = DesignSpec(
        documents=documents,
        systems=systems,
        seed=seed,
        documents_per_block=1,
        annotators_per_block=1,
        checks_per_annotator=0,
        platform="standalone",
        dimension=dimension or "score",
        round=2,
    ).to_dict()
    source = hashlib.sha256(data.drop(columns="block").to_csv(index=False).encode("utf-8")).hexdigest()
    spec["recheck"] = {"gap": gap, "agree": agree, "ratings_sha256": source}
    spec["annotators_per_block"] = int(data.groupby("block")["annotator"].nunique().max())
    return spec


def _likert_fields(documents: list[str], systems: list[str]) -> dict[tuple[str, str], str]:
    """The Likert answer field ``lk_q0_d{i}_s{j}`` of every (document, system) cell."""
    return {
        (document, system): f"lk_q0_d{i}_s{j}"
        for i, document in enumerate(documents)
        for j, system in enumerate(systems)
    }


def _slot_screens(
    data: pd.DataFrame,
    flagged: pd.DataFrame,
    annotator: str,
    block: int,
    seed: int,
    fields: dict[tuple[str, str], str],
) -> list[dict[str, Any]]:
    """The screens of one annotator's slot: their flagged items in the slot's random order."""
    k = sorted(data.loc[data["block"] == block, "annotator"].unique()).index(annotator) + 1
    items = flagged[flagged["annotator"] == annotator]
    rows = []
    for position, i in enumerate(stream(seed, "slot", block, k).permutation(len(items))):
        document, system = items["document"].iloc[i], items["system"].iloc[i]
        rows.append(
            {
                "annotator_slot": annotator,
                "block": block,
                "position": position,
                "screen_id": screen_name(position),
                "display_pos": 0,
                "document": document,
                "system": system,
                "method": "likert",
                "field": fields[(document, system)],
                "round": 2,
            }
        )
    return rows


def _recheck_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The design table of the screens: no references, checks, warm-ups or repeated anchors."""
    table = pd.DataFrame.from_records(rows, columns=list(DESIGN_COLUMNS))
    for column in ("is_reference", "is_check", "is_warmup", "is_anchor_repeat", "screen_has_check"):
        table[column] = False
    return normalise_table(table)
