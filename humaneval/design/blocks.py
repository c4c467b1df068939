"""Block designs: B blocks × D documents per block × A annotators per block.

:func:`block_design` is the simulator's compact design table; :func:`cut_blocks` cuts a list of
documents into blocks with the remainder policy of docs/design.md

Block b owns documents bD … bD+D−1 and annotators bA … bA+A−1, and every annotator of a block
judges every summary of every document of that block. A = 1 gives the fully nested design,
B = 1 the fully crossed design, and A ≥ 2 with B > 1 crossed-within-blocks designs such as the
EACL 2021 study (20 × 5 × 3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from humaneval.errors import DesignError


def block_design(
    blocks: int,
    docs_per_block: int,
    annotators_per_block: int,
    systems: Sequence[str],
    *,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Long design table ``block, annotator, document, system, position``.

    With a ``seed`` each annotator sees their screens (one per summary) in an independent random
    order; without one, in document-then-system order. ``position`` is 0-based per annotator.

    Parameters
    ----------
    blocks : int
        Number of blocks B.
    docs_per_block : int
        Documents per block D.
    annotators_per_block : int
        Annotators per block A; each rates every summary of the block's documents.
    systems : sequence of str
        At least two distinct systems.
    seed : int or Generator, optional
        Seed of the screen orders.

    Returns
    -------
    DataFrame
        B × A × D × |systems| rows.

    Raises
    ------
    DesignError
        A count below 1, or fewer than two distinct systems.

    Examples
    --------
    >>> table = block_design(2, 3, 2, ["A", "B"])
    >>> table.shape, table["annotator"].nunique(), table["document"].nunique()
    ((24, 5), 4, 6)
    >>> table.head(3).values.tolist()
    [[0, 'a0', 'd0', 'A', 0], [0, 'a0', 'd0', 'B', 1], [0, 'a0', 'd1', 'A', 2]]
    """
    for name, value in (
        ("blocks", blocks),
        ("docs_per_block", docs_per_block),
        ("annotators_per_block", annotators_per_block),
    ):
        if int(value) != value or value < 1:
            raise DesignError(f"{name} must be a whole number of at least 1, not {value!r}")
    systems = [str(s) for s in systems]
    if len(systems) < 2 or len(set(systems)) != len(systems):
        raise DesignError("a design needs at least two distinct systems")
    b = np.repeat(np.arange(blocks), annotators_per_block * docs_per_block * len(systems))
    a = np.tile(np.repeat(np.arange(annotators_per_block), docs_per_block * len(systems)), blocks)
    d = np.tile(np.repeat(np.arange(docs_per_block), len(systems)), blocks * annotators_per_block)
    s = np.tile(np.arange(len(systems)), blocks * annotators_per_block * docs_per_block)
    width = max(len(str(blocks * annotators_per_block - 1)), len(str(blocks * docs_per_block - 1)))
    table = pd.DataFrame(
        {
            "block": b,
            "annotator": [f"a{i:0{width}d}" for i in b * annotators_per_block + a],
            "document": [f"d{i:0{width}d}" for i in b * docs_per_block + d],
            "system": np.asarray(systems)[s],
        }
    )
    per_annotator = docs_per_block * len(systems)
    order = np.tile(np.arange(per_annotator), blocks * annotators_per_block)
    if seed is not None:
        rng = np.random.default_rng(seed)
        order = np.concatenate([rng.permutation(per_annotator) for _ in range(blocks * annotators_per_block)])
    return table.assign(position=order)


def block_sizes(n_documents: int, docs_per_block: int, remainder: str = "spread") -> list[int]:
    """Sizes of the blocks that ``n_documents`` are cut into (docs/design.md).

    ``spread``: B = ⌈D/d⌉ blocks whose sizes differ by at most one, larger first (D = 103, d = 5 →
    19 blocks of 5 and 2 of 4); ``drop``: ⌊D/d⌋ full blocks; ``error``: d must divide D.

    Examples
    --------
    >>> sizes = block_sizes(103, 5)
    >>> len(sizes), sizes.count(5), sizes.count(4)
    (21, 19, 2)
    >>> len(block_sizes(103, 5, "drop"))
    20
    """
    if docs_per_block > n_documents:
        raise DesignError(
            f"{docs_per_block} documents per block but only {n_documents} documents; "
            f"use at most {n_documents} documents per block"
        )
    if remainder == "spread":
        n_blocks = math.ceil(n_documents / docs_per_block)
        base, extra = divmod(n_documents, n_blocks)
        return [base + 1] * extra + [base] * (n_blocks - extra)
    if remainder == "drop":
        return [docs_per_block] * (n_documents // docs_per_block)
    if remainder == "error":
        if n_documents % docs_per_block:
            divisors = [k for k in range(1, n_documents + 1) if n_documents % k == 0]
            nearest = min(divisors, key=lambda k: (abs(k - docs_per_block), k))
            raise DesignError(
                f"{n_documents} documents do not split into blocks of {docs_per_block}; use "
                f"documents_per_block={nearest}, or remainder='spread' (unequal blocks) or 'drop'"
            )
        return [docs_per_block] * (n_documents // docs_per_block)
    raise DesignError(f"remainder {remainder!r} is unknown; choose spread, drop or error")


def cut_blocks(
    documents: Sequence[str], docs_per_block: int, remainder: str = "spread"
) -> tuple[list[list[str]], list[str]]:
    """Cut already shuffled ``documents`` into consecutive blocks; return (blocks, dropped).

    Under ``drop`` the surplus is the tail of the (shuffled, hence randomly chosen) list.
    """
    sizes = block_sizes(len(documents), docs_per_block, remainder)
    blocks, start = [], 0
    for size in sizes:
        blocks.append(list(documents[start : start + size]))
        start += size
    return blocks, list(documents[start:])
