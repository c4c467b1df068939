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

import pandas as pd

from humaneval.design.plan import Design
from humaneval.design.rng import stream
from humaneval.design.spec import DesignSpec, design_id
from humaneval.design.table import DESIGN_COLUMNS, normalise_table, screen_name
from humaneval.errors import DesignError
from humaneval.ratings import Ratings, as_ratings
from humaneval.structure import cluster_labels


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

    ``dimension`` selects the criterion when the ratings have several. Slots are named by the
    annotator ids (the same people must revisit); blocks are the clusters of the round-1 data.
    """
    from humaneval import __version__

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
    data = data.assign(block=cluster_labels(data).to_numpy())
    documents, systems = sorted(data["document"].unique()), sorted(data["system"].unique())
    doc_index = {d: i for i, d in enumerate(documents)}
    sys_index = {s: j for j, s in enumerate(systems)}
    flagged = []
    for (document, system), item in data.groupby(["document", "system"], sort=True):
        scores = dict(zip(item["annotator"], item["score"].astype(float), strict=True))
        flagged += [(a, document, system) for a in sorted(revisit(scores, gap, agree))]
    spec_dict = DesignSpec(
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
    spec_dict["recheck"] = {"gap": gap, "agree": agree, "ratings_sha256": source}
    spec_dict["annotators_per_block"] = int(data.groupby("block")["annotator"].nunique().max())
    did = design_id(spec_dict)
    block_of = data.groupby("annotator")["block"].first()
    rows = []
    by_annotator = pd.DataFrame(flagged, columns=["annotator", "document", "system"])
    slots = sorted(by_annotator["annotator"].unique(), key=lambda a: (block_of[a], a))
    for annotator in slots:
        block = int(block_of[annotator])
        k = sorted(data.loc[data["block"] == block, "annotator"].unique()).index(annotator) + 1
        items = by_annotator[by_annotator["annotator"] == annotator]
        for position, i in enumerate(stream(seed, "slot", block, k).permutation(len(items))):
            document, system = items["document"].iloc[i], items["system"].iloc[i]
            rows.append(
                {
                    "design_id": did,
                    "annotator_slot": annotator,
                    "block": block,
                    "position": position,
                    "screen_id": screen_name(position),
                    "display_pos": 0,
                    "document": document,
                    "system": system,
                    "method": "likert",
                    "dimension": spec_dict["dimension"],
                    "field": f"lk_q0_d{doc_index[document]}_s{sys_index[system]}",
                    "round": 2,
                }
            )
    table = pd.DataFrame.from_records(rows, columns=list(DESIGN_COLUMNS))
    for column in ("is_reference", "is_check", "is_warmup", "is_anchor_repeat", "screen_has_check"):
        table[column] = False
    blocks = data.groupby("block")["document"].unique()
    return Design(
        design_id=did,
        spec=spec_dict,
        systems=tuple(systems),
        reference_system=None,
        documents=tuple(documents),
        blocks=tuple(tuple(sorted(b)) for b in blocks),
        dropped_documents=(),
        skipped_pairs=(),
        table=normalise_table(table),
        checks=(),
        balance={
            "recheck": {
                "items": len(by_annotator[["document", "system"]].drop_duplicates()),
                "judgements": len(rows),
                "annotators": len(slots),
            }
        },
        package_version=__version__,
    )
