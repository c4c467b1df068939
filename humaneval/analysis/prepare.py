"""Ratings → integer-coded CLMM data, and the random-effect structures both engines fit.

docs/analysis.md (dissertation §3.6, eq. 3.22 and 3.25).

**Response coding.** Scores are used as given, ranks are negated (``y = −rank``) so that higher is
always better and a positive β means "better than the reference". The observed values, sorted,
become the ordered categories 0..K−1 (unobserved scale points drop out and remove a threshold).

**Reference system.** ``reference=`` if given, else a system named ``__REFERENCE__``,
``reference`` or ``ref`` (case-insensitive), else the first in sorted order. System codes are the
reference first, then the others in Python's sorted order (R's locale-dependent sort is never used).

The named random-effect structures and :class:`ClmmData` live in :mod:`humaneval.clmm.structures`
(re-exported here for old imports until humaneval 0.2, as is ``select_criterion`` of
:mod:`humaneval.core.ratings`); each structure is a shortcut for a formula (:func:`structure_formula`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humaneval.clmm.structures import (
    FACTORS,
    STRUCTURES,
    ClmmData,
    RandomTerm,
    Structure,
    default_structure,
    r_formula,
    random_terms,
    structure_formula,
    structure_spec,
)
from humaneval.core.ratings import Ratings, select_criterion
from humaneval.core.structure import describe_structure
from humaneval.errors import InsufficientDataError, RatingsError

REFERENCE_NAMES = ("__reference__", "reference", "ref")

#: Most distinct response values a CLMM is fitted to (beyond that the data are not ordinal).
MAX_LEVELS = 21

__all__ = [
    "FACTORS",
    "MAX_LEVELS",
    "REFERENCE_NAMES",
    "STRUCTURES",
    "ClmmData",
    "RandomTerm",
    "Structure",
    "choose_reference",
    "default_structure",
    "prepare_clmm_data",
    "r_formula",
    "random_terms",
    "select_criterion",
    "structure_formula",
    "structure_spec",
]


def choose_reference(systems: list[str] | tuple[str, ...], reference: str | None = None) -> str:
    """The reference system by the rule of docs/analysis.md: ``reference`` if given, else a system
    named ``__REFERENCE__``, ``reference`` or ``ref`` (any case), else the first in sorted order.

    Raises
    ------
    RatingsError
        ``reference`` is not one of ``systems``.

    Examples
    --------
    >>> choose_reference(["lead3", "bart", "Reference"]), choose_reference(["b", "a"])
    ('Reference', 'a')
    """
    if reference is not None:
        if reference not in systems:
            raise RatingsError(
                f"reference system {reference!r} is not in the data; choose one of {', '.join(systems)}"
            )
        return reference
    for name in sorted(systems):
        if name.lower() in REFERENCE_NAMES:
            return name
    return sorted(systems)[0]


def prepare_clmm_data(
    ratings: Ratings | pd.DataFrame, reference: str | None = None, criterion: str | None = None
) -> ClmmData:
    """Code ratings for a CLMM fit (docs/analysis.md).

    Attention checks are excluded. With several criteria in the table, ``criterion`` selects one
    (every analysis runs per criterion).
    """
    table = select_criterion(ratings, criterion)
    df = table.data
    names = table.systems
    if len(names) < 2:
        raise InsufficientDataError(f"a CLMM compares systems but the data hold only {names}")
    ref = choose_reference(names, reference)
    systems = (ref, *sorted(s for s in names if s != ref))
    oriented = table.oriented().to_numpy(dtype=float)
    levels = np.sort(pd.unique(oriented))  # hashing the values: faster than sorting them all
    if levels.size < 2:
        raise InsufficientDataError(f"every {table.response} is {levels[0]:g}; a CLMM needs ≥ 2 categories")
    if levels.size > MAX_LEVELS:
        raise RatingsError(
            f"the {table.response} has {levels.size} distinct values; a CLMM needs ordinal categories "
            f"(≤ {MAX_LEVELS}); bin the scores or use a classic test (--test ttest)"
        )
    groups, group_levels = {}, {}
    for factor in FACTORS:
        cat = pd.Categorical(df[factor])
        groups[factor] = np.asarray(cat.codes, dtype=np.int64)
        group_levels[factor] = tuple(map(str, cat.categories.tolist()))
    structure = describe_structure(table)
    return ClmmData(
        y=np.searchsorted(levels, oriented).astype(np.int64),
        levels=tuple(float(v) for v in levels),
        system=np.asarray(pd.Categorical(df["system"], categories=systems).codes, dtype=np.int64),
        systems=systems,
        groups=groups,
        group_levels=group_levels,
        response=table.response,
        nested=structure.family == "nested",
        family=structure.family,
        frame=df,
    )
