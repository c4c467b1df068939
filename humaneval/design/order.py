"""Presentation order, position balancing and check placement (docs/design.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from humaneval.errors import DesignError


def balanced_item_order(n_documents: int, n_systems: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """Likert/DA item order of one slot in S segments.

    Segment s holds the items (i, (i + s + r) mod S) for all documents i, with a random offset r
    per slot; segments, and the items within them, are shuffled. With d = S every segment shows
    every system once, so no system clusters at the start, where sequence bias is strongest.
    """
    offset = int(rng.integers(n_systems))
    out: list[tuple[int, int]] = []
    for s in rng.permutation(n_systems):
        segment = [(i, (i + s + offset) % n_systems) for i in range(n_documents)]
        out.extend(segment[j] for j in rng.permutation(len(segment)))
    return out


def latin_row(screen: int, slot: int, n_symbols: int) -> list[int]:
    """Symbols by display position for ranking screen ``screen`` of slot ``slot`` (both 0-based).

    Cyclic Latin square: the screen uses row (screen + slot) mod S, and row r lists the
    symbols r, r+1, … mod S. Over S consecutive screens a slot sees every symbol once in every
    display position.
    """
    row = (screen + slot) % n_symbols
    return [(row + p) % n_symbols for p in range(n_symbols)]


def check_positions(n_positions: int, n_checks: int, rng: np.random.Generator, *, what: str) -> list[int]:
    """``n_checks`` random positions in 1..n_positions−1, no two adjacent.

    Uniform over all admissible sets: choose c distinct q in 1..n−c, sort, and add 0, 1, …, c−1,
    which spreads them to gaps of at least two.
    """
    if n_checks == 0:
        return []
    room = n_positions - n_checks
    if room < n_checks:
        raise DesignError(
            f"{n_checks} attention checks do not fit into {n_positions} {what}: checks never go first "
            "nor next to each other; use fewer checks or more documents per block"
        )
    q = np.sort(rng.choice(np.arange(1, room + 1), n_checks, replace=False))
    return [int(v) + i for i, v in enumerate(q)]


def interleave(real: Sequence, checks: Sequence, check_at: Sequence[int]) -> list:
    """Merge ``real`` screens and ``checks`` so that the checks land at ``check_at``."""
    out, real_iter, check_iter = [], iter(real), iter(checks)
    at = set(check_at)
    for position in range(len(real) + len(checks)):
        out.append(next(check_iter) if position in at else next(real_iter))
    return out
