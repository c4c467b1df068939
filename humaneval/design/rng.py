"""Random streams of a design.

Every random choice draws from its own ``numpy.random.Generator(PCG64)`` seeded by the
``SeedSequence`` entropy tuple ``(seed, purpose, block, k)``, never from a running counter, so
adding a block or a slot leaves the orders of all existing ones intact.
"""

from __future__ import annotations

import numpy as np

PURPOSES: dict[str, int] = {
    "documents": 1,  # document shuffle and dropped surplus
    "block": 2,  # block composition: Latin-square symbol maps
    "tuples": 3,  # BWS tuples of one pool (k = pool index within the block)
    "pairs": 4,  # pairwise schedule
    "slot": 5,  # order and checks of one annotator slot (k = 1..a)
}


def stream(seed: int, purpose: str, block: int = 0, k: int = 0) -> np.random.Generator:
    """The generator for ``purpose`` of ``block`` and index ``k``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, PURPOSES[purpose], block, k])))
