"""Ratings → integer-coded CLMM data, and the random-effect structures both engines fit.

Analysis specification §5.1–§5.2 (dissertation §3.6, eq. 3.22 and 3.25).

**Response coding.** Scores are used as given, ranks are negated (``y = −rank``) so that higher is
always better and a positive β means "better than the reference". The observed values, sorted,
become the ordered categories 0..K−1 (unobserved scale points drop out and remove a threshold).

**Reference system.** ``reference=`` if given, else a system named ``__REFERENCE__``,
``reference`` or ``ref`` (case-insensitive), else the first in sorted order. System codes are the
reference first, then the others in Python's sorted order (R's locale-dependent sort is never used).

**Structures** (R formulas as fitted by :mod:`humaneval.analysis.rbridge`; ``d_s`` is a numeric
0/1 dummy for each non-reference system ``s``):

- ``maximal``: ``y ~ system + (system|annotator) + (system|document)``; unstructured S×S Ψ per factor.
- ``nested``: ``y ~ system + (system|annotator)``; unstructured S×S Ψ for annotators only.
- ``uncorrelated``: ``y ~ system + (1|annotator) + (0+d_s|annotator) + … + (1|document) +
  (0+d_s|document) + …``; diagonal S×S Ψ per factor.
- ``intercepts``: ``y ~ system + (1|annotator) + (1|document)``; 1×1 Ψ per factor.

In nested designs (every document judged by one annotator) the ``uncorrelated`` and
``intercepts`` structures drop the document terms (spec §5.1); ``maximal`` there equals ``nested``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.errors import InsufficientDataError, ModelSpecError, RatingsError
from humaneval.ratings import Ratings, as_ratings
from humaneval.structure import describe_structure

Structure = Literal["maximal", "nested", "uncorrelated", "intercepts"]
STRUCTURES: tuple[str, ...] = ("maximal", "nested", "uncorrelated", "intercepts")
REFERENCE_NAMES = ("__reference__", "reference", "ref")
FACTORS = ("annotator", "document")

#: Most distinct response values a CLMM is fitted to (beyond that the data are not ordinal).
MAX_LEVELS = 21


@dataclass(frozen=True, eq=False)
class ClmmData:
    """Integer-coded data for one CLMM fit (one criterion, attention checks excluded).

    Attributes
    ----------
    y:
        Category codes 0..K−1, higher = better.
    levels:
        The response value of each code (e.g. 1..7, or −4..0 for negated 0-based ranks).
    system:
        System codes 0..S−1; 0 is the reference.
    systems:
        System names, the reference first, then the others in sorted order.
    groups:
        ``{"annotator": codes, "document": codes}``.
    group_levels:
        The id of each group code.
    response:
        ``"score"`` or ``"rank"``.
    nested:
        Whether every document was judged by a single annotator (design family ``nested``).
    family:
        The design family of :func:`humaneval.structure.describe_structure`.
    """

    y: np.ndarray
    levels: tuple[float, ...]
    system: np.ndarray
    systems: tuple[str, ...]
    groups: dict[str, np.ndarray]
    group_levels: dict[str, tuple[str, ...]]
    response: str
    nested: bool = False
    family: str = "irregular"
    frame: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def nobs(self) -> int:
        return int(self.y.size)

    @property
    def n_categories(self) -> int:
        return len(self.levels)

    @property
    def reference(self) -> str:
        return self.systems[0]

    def dummies(self) -> np.ndarray:
        """Treatment-coded fixed-effect design X (n × S−1): column s−1 is 1 where system == s."""
        return (self.system[:, None] == np.arange(1, len(self.systems))[None, :]).astype(float)

    def slopes(self) -> np.ndarray:
        """Random-effect design per group (n × S): an intercept column, then the system dummies."""
        return np.column_stack([np.ones(self.nobs), self.dummies()])


@dataclass(frozen=True)
class RandomTerm:
    """One grouping factor of a structure and the form of its covariance matrix."""

    factor: str
    covariance: Literal["unstructured", "diagonal", "intercept"]

    def size(self, n_systems: int) -> int:
        """Dimension of the random-effect vector per group."""
        return 1 if self.covariance == "intercept" else n_systems


def choose_reference(systems: list[str] | tuple[str, ...], reference: str | None = None) -> str:
    """The reference system by the rule of spec §5.1."""
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


def default_structure(nested: bool) -> str:
    """``nested`` for nested designs, ``maximal`` otherwise (spec §5.1 table)."""
    return "nested" if nested else "maximal"


def random_terms(structure: str, nested: bool = False) -> tuple[RandomTerm, ...]:
    """The random-effect terms of ``structure`` (see the module table)."""
    if structure not in STRUCTURES:
        raise ModelSpecError(f"unknown model structure {structure!r}; use one of {', '.join(STRUCTURES)}")
    factors = ("annotator",) if nested or structure == "nested" else FACTORS
    kind = {"maximal": "unstructured", "nested": "unstructured", "uncorrelated": "diagonal"}.get(
        structure, "intercept"
    )
    return tuple(RandomTerm(f, kind) for f in factors)  # type: ignore[arg-type]


def r_formula(structure: str, nested: bool, systems: tuple[str, ...]) -> str:
    """The R formula of ``structure`` (dummies are named ``d1``, ``d2``, … for systems[1:])."""
    parts = []
    for term in random_terms(structure, nested):
        if term.covariance == "unstructured":
            parts.append(f"(system|{term.factor})")
        elif term.covariance == "intercept":
            parts.append(f"(1|{term.factor})")
        else:
            parts.append(f"(1|{term.factor})")
            parts += [f"(0+d{i}|{term.factor})" for i in range(1, len(systems))]
    return "y ~ system + " + " + ".join(parts)


def select_criterion(ratings: Ratings | pd.DataFrame, criterion: str | None = None) -> Ratings:
    """The ratings of one criterion, attention checks excluded (every analysis runs per criterion)."""
    table = as_ratings(ratings).without_checks()
    if "criterion" not in table.data:
        if criterion is not None:
            raise RatingsError(f"criterion {criterion!r} given but the table has no criterion column")
        return table
    criteria = table.criteria
    if criterion is None:
        if len(criteria) == 1:
            return table
        raise RatingsError(
            f"the table has {len(criteria)} criteria ({', '.join(map(str, criteria))}); "
            "analyse one at a time, e.g. --criterion coherence"
        )
    if criterion not in criteria:
        choices = ", ".join(map(str, criteria))
        raise RatingsError(f"criterion {criterion!r} is not in the table; choose one of {choices}")
    return table.with_data(table.data[table.data["criterion"] == criterion])


def prepare_clmm_data(
    ratings: Ratings | pd.DataFrame, reference: str | None = None, criterion: str | None = None
) -> ClmmData:
    """Code ratings for a CLMM fit (spec §5.1–5.2).

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
    levels = np.unique(oriented)
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
        group_levels[factor] = tuple(str(c) for c in cat.categories)
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
