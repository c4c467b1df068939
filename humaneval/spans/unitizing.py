"""Krippendorff's unitizing α (α_u): agreement on where units lie and what they are.

Every annotator divides a continuum of ``L`` characters, category by category, into units of the
category and gaps. The observed disagreement compares the sections of every ordered pair of
annotators that overlap; the expected disagreement compares every unit with every way a section of
its length could have been placed in any annotator's gaps (Krippendorff 2004, pp. 251–256; 2013).
Computed as DKPro Statistics' ``KrippendorffAlphaUnitizingAgreement`` does: the items of a span
table are laid end to end, sorted by ``(document, system)``, into one continuum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.errors import InsufficientDataError


@dataclass(frozen=True)
class Continuum:
    """Units of several annotators on one continuum.

    Attributes
    ----------
    length : int
        Length ``L`` of the continuum.
    coder : ndarray of int
        Annotator index (``0 .. n_coders-1``) of every unit.
    category : ndarray of int
        Category index of every unit.
    start, end : ndarray of int
        Offsets of every unit on the continuum (``end`` exclusive).
    n_coders : int
        Number of annotators ``m``; an annotator without units still counts.
    """

    length: int
    coder: np.ndarray
    category: np.ndarray
    start: np.ndarray
    end: np.ndarray
    n_coders: int


def _sections(starts: np.ndarray, ends: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The units (sorted, non-overlapping) of one coder and the gaps between them: begin, length, is-unit."""
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    gap_begin = np.concatenate([[0], e])
    gap_end = np.concatenate([s, [length]])
    keep = gap_end > gap_begin
    begin = np.concatenate([s, gap_begin[keep]])
    size = np.concatenate([e - s, (gap_end - gap_begin)[keep]])
    unit = np.concatenate([np.ones(len(s), bool), np.zeros(int(keep.sum()), bool)])
    order = np.argsort(begin, kind="stable")
    return begin[order], size[order], unit[order]


def _pair_disagreement(a: tuple, b: tuple) -> float:
    """Σ δ² over the overlapping sections of two coders' partitions of the continuum."""
    ab, al, au = a
    bb, bl, bu = b
    a_end, b_end = ab + al, bb + bl
    # the sections of b overlapping section g of a: b_end > ab[g] and bb < a_end[g]
    lo = np.searchsorted(b_end, ab, side="right")
    hi = np.searchsorted(bb, a_end, side="left")
    counts = hi - lo
    g = np.repeat(np.arange(len(ab)), counts)
    h = np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(len(g))
    both = au[g] & bu[h]
    total = float(np.sum((ab[g] - bb[h])[both] ** 2 + (a_end[g] - b_end[h])[both] ** 2))
    inside = au[g] & ~bu[h] & (bb[h] <= ab[g]) & (a_end[g] <= b_end[h])
    total += float(np.sum(al[g][inside] ** 2))
    around = ~au[g] & bu[h] & (ab[g] <= bb[h]) & (b_end[h] <= a_end[g])
    total += float(np.sum(bl[h][around] ** 2))
    return total


def category_disagreements(continuum: Continuum, category: int) -> tuple[float, float]:
    """Observed and expected disagreement ``(D_o, D_e)`` of one category.

    With ``m`` coders on a continuum of length ``L``, sections ``g`` (units of the category, and the
    gaps between them) of begin ``b`` and length ``l``:

    ``D_o = Σ_{i≠j} Σ_g Σ_h δ²(g, h) / (m (m−1) L²)``, where ``δ²`` is
    ``(b_g−b_h)² + (b_g+l_g−b_h−l_h)²`` for two overlapping units, ``l_g²`` for a unit inside the
    other coder's gap (and ``l_h²`` the other way round), 0 otherwise;

    ``D_e = 4 Σ_units [ (N_c−1)(2l³−3l²+l)/3 + l² Σ_{gaps h, l_h ≥ l} (l_h−l+1) ]
    / (mL (mL(mL−1) − Σ_units l(l−1)))``, with ``N_c`` the number of units of the category over
    all coders (Krippendorff 2004, p. 254).
    """
    m, length = continuum.n_coders, continuum.length
    mask = continuum.category == category
    own = [mask & (continuum.coder == i) for i in range(m)]
    parts = [_sections(continuum.start[o], continuum.end[o], length) for o in own]
    # δ² is symmetric, so the ordered pairs i≠j are twice the pairs i<j
    observed = 2 * sum(_pair_disagreement(parts[i], parts[j]) for i in range(m) for j in range(i + 1, m))
    d_o = observed / (m * (m - 1) * float(length) ** 2)
    units = np.concatenate([size[unit] for _, size, unit in parts]).astype(float)
    gaps = np.sort(np.concatenate([size[~unit] for _, size, unit in parts]).astype(float))
    n_units = len(units)
    # Σ over gaps at least as long as the unit of (l_h − l + 1), from suffix sums of sorted gaps
    first = np.searchsorted(gaps, units, side="left")
    suffix = np.concatenate([np.cumsum(gaps[::-1])[::-1], [0.0]])
    fitting = suffix[first] - (units - 1) * (len(gaps) - first)
    within = (n_units - 1) * (2 * units**3 - 3 * units**2 + units) / 3
    numerator = 4 * float(np.sum(within + units**2 * fitting))
    ml = float(m) * length
    denominator = ml * (ml * (ml - 1) - float(np.sum(units * (units - 1))))
    return d_o, (numerator / denominator if denominator > 0 else float("nan"))


def continuum_of(
    spans: pd.DataFrame,
    lengths: pd.Series,
    items: list[tuple[str, str]],
    coders: list[str],
    categories: list[str],
) -> Continuum:
    """Lay ``items`` (in the order given, repeats allowed) end to end and place the spans on them.

    Parameters
    ----------
    spans : DataFrame
        Marked spans: ``annotator, document, system, start, end, category``.
    lengths : Series
        Item lengths indexed by ``(document, system)``.
    items : list of tuple
        The items of the continuum, in order.
    coders, categories : list of str
        The annotators and categories, giving their indices.
    """
    sizes = np.array([int(lengths[item]) for item in items], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    by_item = {key: part for key, part in spans.groupby(["document", "system"], sort=False)}
    coder_index = {c: i for i, c in enumerate(coders)}
    category_index = {c: i for i, c in enumerate(categories)}
    pieces = []
    for item, offset in zip(items, offsets, strict=True):
        part = by_item.get(item)
        if part is None:
            continue
        part = part[part["annotator"].isin(coder_index)]
        pieces.append(
            np.column_stack([
                part["annotator"].map(coder_index).to_numpy(int),
                part["category"].map(category_index).to_numpy(int),
                part["start"].to_numpy(np.int64) + offset,
                part["end"].to_numpy(np.int64) + offset,
            ])
        )  # fmt: skip
    table = np.concatenate(pieces) if pieces else np.zeros((0, 4), dtype=np.int64)
    return Continuum(int(sizes.sum()), table[:, 0], table[:, 1], table[:, 2], table[:, 3], len(coders))


def unitizing_disagreements(continuum: Continuum, n_categories: int) -> np.ndarray:
    """``(n_categories, 2)`` array of ``(D_o, D_e)`` per category."""
    if continuum.n_coders < 2:
        raise InsufficientDataError("unitizing α needs at least two annotators of the same items")
    return np.array([category_disagreements(continuum, c) for c in range(n_categories)])
