"""Pairwise comparisons: all pairs or a balanced subset per document (docs/design.md).

A round-robin schedule (circle method, a "bye" when S is odd) is flattened into a cyclic list that
holds every unordered pair once; walking it over the documents, p pairs at a time, makes pair
frequencies differ by at most one. The k-th occurrence of a pair puts the lexicographically first
system on the left when k is even and on the right when k is odd.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class PairBalance:
    """How often each unordered pair and each system was compared, and left/right balance."""

    n_comparisons: int
    pair_min: int
    pair_max: int
    pairs_never: int
    system_min: int
    system_max: int
    left_minus_right_max: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def round_robin(systems: Sequence[str]) -> list[tuple[str, str]]:
    """All unordered pairs of ``systems`` as a flattened circle-method schedule (rounds in order).

    Each round pairs every system once (one sits out when their number is odd).

    Examples
    --------
    >>> round_robin(["A", "B", "C", "D"])
    [('A', 'D'), ('B', 'C'), ('A', 'C'), ('D', 'B'), ('A', 'B'), ('C', 'D')]
    """
    players: list[str | None] = list(systems)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    flat = []
    rotating = players[1:]
    for _ in range(n - 1):
        row = [players[0], *rotating]
        for i in range(n // 2):
            a, b = row[i], row[n - 1 - i]
            if a is not None and b is not None:
                flat.append((a, b))
        rotating = rotating[-1:] + rotating[:-1]
    return flat


def pair_schedule(
    documents: Sequence[str], systems: Sequence[str], pairs: int | str = "all"
) -> list[tuple[str, str, str]]:
    """``(document, left, right)`` comparisons in document order.

    ``pairs`` comparisons per document (``"all"``: every pair) walk through :func:`round_robin`
    across documents, so every pair is compared about equally often; a pair's sides alternate.

    Examples
    --------
    One comparison per document still covers every pair of three systems:

    >>> schedule = pair_schedule(["d1", "d2", "d3"], ["A", "B", "C"], pairs=1)
    >>> schedule
    [('d1', 'B', 'C'), ('d2', 'A', 'C'), ('d3', 'A', 'B')]
    >>> balance = pair_balance(schedule, ["A", "B", "C"])
    >>> balance.pair_min, balance.pair_max, balance.pairs_never
    (1, 1, 0)
    """
    cycle = round_robin(systems)
    per_doc = len(cycle) if pairs == "all" else int(pairs)
    occurrences: Counter[frozenset[str]] = Counter()
    out = []
    for m, document in enumerate(documents):
        for q in range(per_doc):
            a, b = cycle[(m * per_doc + q) % len(cycle)]
            first, second = sorted((a, b))
            key = frozenset((a, b))
            left, right = (first, second) if occurrences[key] % 2 == 0 else (second, first)
            occurrences[key] += 1
            out.append((document, left, right))
    return out


def pair_balance(comparisons: Sequence[tuple[str, str, str]], systems: Sequence[str]) -> PairBalance:
    """Balance statistics of ``(document, left, right)`` comparisons over ``systems``."""
    pairs = Counter(frozenset((left, right)) for _, left, right in comparisons)
    counts = [pairs[frozenset(p)] for p in round_robin(systems)]
    per_system = Counter(s for _, left, right in comparisons for s in (left, right))
    left = Counter(left for _, left, _ in comparisons)
    right = Counter(right for _, _, right in comparisons)
    return PairBalance(
        n_comparisons=len(comparisons),
        pair_min=min(counts),
        pair_max=max(counts),
        pairs_never=sum(c == 0 for c in counts),
        system_min=min(per_system[s] for s in systems),
        system_max=max(per_system[s] for s in systems),
        left_minus_right_max=max(abs(left[s] - right[s]) for s in systems),
    )
