"""Integer-coded system-comparison data and the named random-effect structures (the ladder).

docs/native-engine.md (dissertation §3.6, eq. 3.22 and 3.25). :class:`ClmmData` is the
ratings table coded for a CLMM of system differences (built by
:func:`humaneval.analysis.prepare_clmm_data`); the named structures are shortcuts for formulas
(``d_s`` is a numeric 0/1 dummy for each non-reference system ``s``):

- ``maximal``: ``score ~ system + (1 + system | annotator) + (1 + system | document)``; unstructured Ψ.
- ``nested``: ``score ~ system + (1 + system | annotator)``; unstructured Ψ for annotators only.
- ``uncorrelated``: ``score ~ system + (system || annotator) + (system || document)``; diagonal Ψ.
- ``intercepts``: ``score ~ system + (1 | annotator) + (1 | document)``.

In nested designs (every document judged by one annotator) the ``uncorrelated`` and
``intercepts`` structures drop the document terms (docs/analysis.md); ``maximal`` there equals ``nested``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from humaneval.clmm.spec import ClmmSpec, RandomEffect
from humaneval.errors import OptionError

Structure = Literal["maximal", "nested", "uncorrelated", "intercepts"]
STRUCTURES: tuple[str, ...] = ("maximal", "nested", "uncorrelated", "intercepts")
FACTORS = ("annotator", "document")


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
        The design family of :func:`humaneval.core.structure.describe_structure`.
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


def default_structure(nested: bool) -> str:
    """``nested`` for nested designs, ``maximal`` otherwise (docs/analysis.md)."""
    return "nested" if nested else "maximal"


def random_terms(structure: str, nested: bool = False) -> tuple[RandomTerm, ...]:
    """The random-effect terms of ``structure`` (see the module table)."""
    if structure not in STRUCTURES:
        raise OptionError(f"unknown model structure {structure!r}; use one of {', '.join(STRUCTURES)}")
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


def structure_formula(structure: str, nested: bool = False, response: str = "score") -> str:
    """The named ``structure`` as a formula in the syntax of :mod:`humaneval.clmm.formula`.

    Examples
    --------
    >>> structure_formula("maximal")
    'score ~ system + (1 + system | annotator) + (1 + system | document)'
    """
    bars = []
    for term in random_terms(structure, nested):
        expr = "1" if term.covariance == "intercept" else "system"
        sep = "||" if term.covariance == "diagonal" else "|"
        bars.append(f"({'1 + ' if term.covariance == 'unstructured' else ''}{expr} {sep} {term.factor})")
    return f"{response} ~ system + " + " + ".join(bars)


def structure_spec(data: ClmmData, structure: str) -> ClmmSpec:
    """The :class:`ClmmSpec` of ``structure`` on system-comparison ``data`` (no formula parsing)."""
    x = data.dummies()
    slope_names = ("(Intercept)", *(f"system{s}" for s in data.systems[1:]))
    terms = []
    for term in random_terms(structure, data.nested):
        size = term.size(len(data.systems))
        z = data.slopes()[:, :size]
        blocks = (1,) * size if term.covariance == "diagonal" else (size,)
        terms.append(
            RandomEffect(
                factor=term.factor,
                codes=data.groups[term.factor],
                z=z,
                columns=slope_names[:size],
                blocks=blocks,
                levels=data.group_levels.get(term.factor, ()),
            )
        )
    return ClmmSpec(
        y=data.y,
        levels=tuple(f"{v:g}" for v in data.levels),
        x=x,
        beta_names=slope_names[1:],
        terms=tuple(terms),
        formula=structure_formula(structure, data.nested, data.response),
        response=data.response,
    )
