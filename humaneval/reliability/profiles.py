"""Exact coincidences of Krippendorff's α by counting unit profiles: the path for few distinct values.

A unit's *profile* is how many of its values fall on each distinct value, :math:`n_u=(n_{u1},\\dots,
n_{uK})`. Its share of the coincidence matrix (eqs. 3.9–3.11 of the dissertation) is
:math:`(n_u n_u^\\top-\\operatorname{diag} n_u)/(m_u-1)`, so units with the same profile contribute the
same: α needs only how many units have each profile. A profile is one integer,
:math:`\\sum_c n_{uc}B^c` with :math:`B` one more than the largest unit, so counting profiles is a
single pass over the values and one ``bincount`` — no pairs of values, no sort, and no units × values
matrix. With :math:`P\\le U` distinct profiles the rest costs :math:`O(PK^2)`.

The pair counts are kept per unit size as integers, so the coincidences are exact; with integer
distances (nominal, ordinal on doubled mid-ranks, interval on numbers with a common denominator) α
itself is computed in rational arithmetic and correctly rounded.

References
----------
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
Communication, University of Pennsylvania. https://repository.upenn.edu/asc_papers/43
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

#: Profile keys must stay exact in float64 (the long path sums them with ``bincount`` weights).
MAX_KEY = 2**53
#: Profile keys up to this size are counted with a dense ``bincount``; larger ones are sorted.
DENSE_KEYS = 1 << 22


@dataclass(frozen=True)
class ProfileCounts:
    """Integer coincidence counts of the pairable units, split by unit size.

    Attributes
    ----------
    sizes:
        The distinct sizes :math:`m\\ge 2` of pairable units.
    pairs:
        ``pairs[s, c, k]`` = :math:`\\sum_{u:\\,m_u=\\text{sizes}[s]} n_{uc}n_{uk}-[c=k]n_{uc}`, the ordered
        pairs of values (c, k) within units of that size (int64).
    counts:
        Pairable values per code, :math:`n_c` (int64).
    present:
        Values per code over all units, pairable or not (int64).
    n_pairable_units, n_units_dropped:
        Units with at least two values, and with exactly one.
    """

    sizes: np.ndarray
    pairs: np.ndarray
    counts: np.ndarray
    present: np.ndarray
    n_pairable_units: int
    n_units_dropped: int

    def coincidence(self) -> np.ndarray:
        """The coincidence matrix :math:`o_{ck}=\\sum_m \\text{pairs}_m/(m-1)` (float)."""
        return np.tensordot(1.0 / (self.sizes - 1), self.pairs, axes=1)

    def keep(self, codes: np.ndarray) -> ProfileCounts:
        """The same counts restricted to the given codes (e.g. the values that occur)."""
        return ProfileCounts(
            self.sizes,
            self.pairs[:, codes][:, :, codes],
            self.counts[codes],
            self.present[codes],
            self.n_pairable_units,
            self.n_units_dropped,
        )


def profile_base(max_size: int, n_codes: int) -> int | None:
    """The radix :math:`B` of profile keys, or ``None`` when :math:`B^K` would not stay exact."""
    base = max_size + 1
    return base if base**n_codes <= MAX_KEY else None


def key_weights(base: int, n_codes: int, missing: bool = False) -> np.ndarray:
    """:math:`B^c` for every code ``c`` (int64), plus a trailing 0 for a missing-value code."""
    weights = base ** np.arange(n_codes, dtype=np.int64)
    return np.append(weights, 0) if missing else weights


def wide_keys(codes: np.ndarray, base: int, n_codes: int) -> np.ndarray:
    """Profile key of every unit of a coders × units code matrix whose missing cells hold ``n_codes``."""
    weights = key_weights(base, n_codes, missing=True)
    key = np.take(weights, codes[0])
    for row in codes[1:]:
        key += np.take(weights, row)
    return key


def long_keys(unit: np.ndarray, codes: np.ndarray, n_units: int, base: int, n_codes: int) -> np.ndarray:
    """Profile key of every unit from one (unit, code) pair per value (exact: keys < 2**53)."""
    weights = key_weights(base, n_codes).astype(float)
    return np.bincount(unit, weights[codes], minlength=n_units).astype(np.int64)


def count_profiles(key: np.ndarray, base: int, n_codes: int) -> ProfileCounts:
    """Integer pair counts per unit size from the profile key of every unit."""
    if base**n_codes <= max(DENSE_KEYS, 4 * len(key)):
        tally = np.bincount(key, minlength=1)
        profiles = np.flatnonzero(tally)
        tally = tally[profiles]
    else:
        profiles, tally = np.unique(key, return_counts=True)
    n = (profiles[:, None] // key_weights(base, n_codes)[None, :]) % base
    m = n.sum(axis=1)
    present = tally @ n
    pairable = m >= 2
    dropped = int(tally[m == 1].sum())
    n, m, tally = n[pairable], m[pairable], tally[pairable]
    sizes = np.unique(m)
    pairs = np.empty((len(sizes), n_codes, n_codes), dtype=np.int64)
    for s, size in enumerate(sizes):
        ns, ts = n[m == size], tally[m == size]
        pairs[s] = (ns * ts[:, None]).T @ ns
        pairs[s][np.diag_indices(n_codes)] -= ts @ ns
    return ProfileCounts(sizes, pairs, tally @ n, present, int(tally.sum()), dropped)


def integer_distances(level: str, values: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, int] | None:
    """The distance matrix of a built-in level as Python integers and their common divisor, or
    ``None`` when the distances are not rational with a small common denominator (ratio)."""
    k = len(values)
    if level == "nominal":
        return (1 - np.eye(k, dtype=np.int64)).astype(object), 1
    if level == "ordinal":
        doubled = [2 * c - n for c, n in zip(np.cumsum(counts).tolist(), counts.tolist(), strict=True)]
        points, scale = np.array(doubled, dtype=object), 4
    elif level == "interval":
        exact = [Fraction(float(v)) for v in values]
        common = math.lcm(*(f.denominator for f in exact))
        points = np.array([int(f * common) for f in exact], dtype=object)
        scale = common * common
    else:
        return None
    diff = points[:, None] - points[None, :]
    return diff * diff, scale


def exact_disagreements(pc: ProfileCounts, delta: np.ndarray, scale: int) -> tuple[Fraction, Fraction]:
    """:math:`(D_o, D_e)` as fractions from integer pair counts and distances ``delta / scale``."""
    counts = pc.counts.astype(object)
    n = int(pc.counts.sum())
    observed = sum(
        (Fraction(int((pairs.astype(object) * delta).sum()), int(size) - 1))
        for size, pairs in zip(pc.sizes, pc.pairs, strict=True)
    )
    expected_pairs = np.outer(counts, counts)
    expected_pairs[np.diag_indices(len(counts))] -= counts
    expected = int((expected_pairs * delta).sum())
    return Fraction(observed) / (n * scale), Fraction(expected, n * (n - 1) * scale)
