"""Seeds of the stochastic reliability functions: every one stores the seed it used."""

from __future__ import annotations

import secrets

import numpy as np

from humaneval.stats.seeds import SeedLike


def resolve_seed(seed: SeedLike) -> tuple[np.random.Generator, int | None]:
    """A generator and the integer seed to record; ``None`` draws fresh entropy and records it,
    a passed-in generator is used as is (its seed is unknown, recorded as ``None``)."""
    if isinstance(seed, np.random.Generator):
        return seed, None
    if seed is None:
        seed = secrets.randbits(63)
    return np.random.default_rng(seed), int(seed)
