"""The matrix-level description of a CLMM that both engines fit: y, X, random terms, thresholds.

A cumulative link mixed model (``ordinal::clmm``) for an ordered response y ∈ {0, …, K−1} is

    P(y_i ≤ j | b) = F(θ_j − x_iᵀβ − Σ_f z_{f,i}ᵀ b_{f, g_f(i)}),   b_{f,g} ~ N(0, Ψ_f),  θ = J τ,

with F the inverse link, X the fixed-effect design *without* an intercept column (the thresholds
absorb it, as in ``clmm``), one :class:`RandomEffect` per grouping factor f (its group code g_f(i)
and its design row z_{f,i}), and J the threshold structure (flexible: J = I; equidistant and
symmetric as in ``ordinal``'s ``makeThresholds``).

:class:`ClmmSpec` is what :func:`humaneval.clmm.fit_spec` fits. It is built from a formula and a
data frame by :func:`humaneval.clmm.formula.clmm_spec`, or directly from matrices with
:meth:`ClmmSpec.from_matrices`, e.g. for models whose design is not a formula (a mixed-effects
Bradley–Terry model with ±1 columns).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from humaneval.errors import InsufficientDataError, ModelSpecError, OptionError

THRESHOLDS: tuple[str, ...] = ("flexible", "equidistant", "symmetric")


@dataclass(frozen=True, eq=False)
class RandomEffect:
    """One grouping factor: each observation's group and its random-effect design row.

    Attributes
    ----------
    factor:
        Name of the grouping factor as R prints it (``judge``, ``RESP:PROD``).
    codes:
        Group code 0..G−1 of each observation.
    z:
        n × q design rows (a column of ones for a random intercept).
    columns:
        Names of the q columns as R prints them (``(Intercept)``, ``tempwarm``).
    blocks:
        Sizes of the correlated blocks of Ψ, in column order: ``(q,)`` unstructured, ``(1,)*q``
        diagonal (``(x || g)``), anything between for terms merged from several bars.
    levels:
        The name of each group code.
    """

    factor: str
    codes: np.ndarray
    z: np.ndarray
    columns: tuple[str, ...]
    blocks: tuple[int, ...] = ()
    levels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        codes = np.asarray(self.codes, dtype=np.int64)
        z = np.asarray(self.z, dtype=float)
        if z.ndim == 1:
            z = z[:, None]
        if z.ndim != 2 or z.shape[0] != codes.size:
            raise ModelSpecError(f"random term {self.factor}: z must have one row per observation")
        if codes.size and codes.min() < 0:
            raise ModelSpecError(f"random term {self.factor}: group codes must be 0, 1, …")
        blocks = tuple(int(b) for b in self.blocks) or (z.shape[1],)
        if sum(blocks) != z.shape[1] or min(blocks) < 1:
            raise ModelSpecError(f"random term {self.factor}: blocks {blocks} do not add up to {z.shape[1]}")
        columns = tuple(self.columns) or tuple(f"z{k}" for k in range(z.shape[1]))
        if len(columns) != z.shape[1]:
            raise ModelSpecError(f"random term {self.factor}: {len(columns)} names for {z.shape[1]} columns")
        n_groups = int(codes.max()) + 1 if codes.size else 0
        levels = tuple(self.levels) or tuple(str(g) for g in range(n_groups))
        object.__setattr__(self, "codes", codes)
        object.__setattr__(self, "z", z)
        object.__setattr__(self, "blocks", blocks)
        object.__setattr__(self, "columns", columns)
        object.__setattr__(self, "levels", levels)

    @property
    def size(self) -> int:
        return int(self.z.shape[1])

    @property
    def n_groups(self) -> int:
        return len(self.levels)

    @property
    def covariance(self) -> str:
        """``intercept`` (q = 1), ``unstructured``, ``diagonal`` or ``block``."""
        if self.size == 1:
            return "intercept"
        if len(self.blocks) == 1:
            return "unstructured"
        return "diagonal" if all(b == 1 for b in self.blocks) else "block"


def threshold_jacobian(n_thresholds: int, threshold: str) -> np.ndarray:
    """J with θ = J τ for ``ordinal``'s threshold structures (flexible, equidistant, symmetric)."""
    k = n_thresholds
    if threshold == "flexible":
        return np.eye(k)
    if threshold not in THRESHOLDS:
        raise OptionError(f"threshold must be one of {', '.join(THRESHOLDS)}, not {threshold!r}")
    if k < 2:
        raise ModelSpecError(f"{threshold} thresholds need a response with 3 or more categories")
    if threshold == "equidistant":
        return np.column_stack([np.ones(k), np.arange(k)])
    if k % 2:  # θ = central ± spacing_j
        m = (k + 1) // 2
        jac = np.zeros((k, m))
        jac[:, 0] = 1.0
        for j in range(1, m):
            jac[m - 1 - j, j] = -1.0
            jac[m - 1 + j, j] = 1.0
        return jac
    m = (k + 2) // 2  # θ = central.1 − spacing_j below, central.2 + spacing_j above
    half = k // 2
    jac = np.zeros((k, m))
    jac[:half, 0] = 1.0
    jac[half:, 1] = 1.0
    for j in range(1, half):
        jac[half - 1 - j, 1 + j] = -1.0
        jac[half + j, 1 + j] = 1.0
    return jac


def threshold_names(levels: Sequence[str], threshold: str) -> tuple[str, ...]:
    """Names of τ as R prints them ("1|2", …; threshold.1/spacing; central/spacing.j)."""
    k = len(levels) - 1
    if threshold == "flexible":
        return tuple(f"{a}|{b}" for a, b in itertools.pairwise(levels))
    if threshold == "equidistant":
        return ("threshold.1", "spacing")
    if k % 2:
        return ("central", *(f"spacing.{j}" for j in range(1, (k + 1) // 2)))
    return ("central.1", "central.2", *(f"spacing.{j}" for j in range(1, k // 2)))


@dataclass(frozen=True, eq=False)
class ClmmSpec:
    """Everything an engine needs to fit one CLMM (module docstring).

    Attributes
    ----------
    y:
        Response category codes 0..K−1 (higher = later category).
    levels:
        Label of each category, in order.
    x:
        n × p fixed-effect design without an intercept column.
    beta_names:
        Names of the p columns (``tempwarm``, ``tempwarm:contactyes``).
    terms:
        The random terms, one per grouping factor.
    threshold:
        ``flexible``, ``equidistant`` or ``symmetric``.
    formula:
        The model formula (for display and for the R engine), "" for a matrix-level spec.
    response:
        Name of the response column.
    frame:
        The model frame (rows used, columns as coded) when built from a formula.
    fixed_spec:
        The formulaic model spec of the fixed part (new data → X, for predictions and EMMs).
    scale:
        Scale effects (:class:`~humaneval.clmm.scale_spec.ScaleSpec`) or None; a spec with scale
        effects may have no random terms (a CLM).
    """

    y: np.ndarray
    levels: tuple[str, ...]
    x: np.ndarray
    beta_names: tuple[str, ...]
    terms: tuple[RandomEffect, ...]
    threshold: str = "flexible"
    formula: str = ""
    response: str = "y"
    frame: Any = field(default=None, repr=False)
    fixed_spec: Any = field(default=None, repr=False)
    factors: dict[str, tuple[str, ...]] = field(default_factory=dict)
    scale: Any = None  # a humaneval.clmm.scale_spec.ScaleSpec: scale effects (docs/native-engine.md)

    @classmethod
    def from_matrices(
        cls,
        y: Sequence[int] | np.ndarray,
        x: np.ndarray | None,
        terms: Sequence[RandomEffect],
        *,
        beta_names: Sequence[str] | None = None,
        levels: Sequence[str] | None = None,
        threshold: str = "flexible",
    ) -> ClmmSpec:
        """A spec from category codes, a fixed design without intercept and random terms.

        Examples
        --------
        >>> import numpy as np
        >>> spec = ClmmSpec.from_matrices(
        ...     [0, 1, 2, 1], np.array([[0.0], [1.0], [1.0], [0.0]]),
        ...     [RandomEffect("judge", [0, 0, 1, 1], np.ones(4), ("(Intercept)",))],
        ...     beta_names=["treated"],
        ... )
        >>> spec.n_thresholds
        2
        """
        y = np.asarray(y, dtype=np.int64)
        n_cat = int(y.max()) + 1 if y.size else 0
        labels = tuple(str(v) for v in (levels if levels is not None else range(n_cat)))
        x = np.zeros((y.size, 0)) if x is None else np.asarray(x, dtype=float).reshape(y.size, -1)
        names = tuple(beta_names) if beta_names is not None else tuple(f"x{k + 1}" for k in range(x.shape[1]))
        return cls(y=y, levels=labels, x=x, beta_names=names, terms=tuple(terms), threshold=threshold)

    def __post_init__(self) -> None:
        y = np.asarray(self.y, dtype=np.int64)
        object.__setattr__(self, "y", y)
        if y.size == 0:
            raise InsufficientDataError("a CLMM needs at least one observation")
        if y.min() < 0 or y.max() >= len(self.levels):
            raise ModelSpecError(f"response codes must lie in 0..{len(self.levels) - 1}")
        if len(self.levels) < 2:
            raise InsufficientDataError("a CLMM needs responses in at least two categories")
        if self.x.shape != (y.size, len(self.beta_names)):
            raise ModelSpecError(f"x must be {y.size} × {len(self.beta_names)}, not {self.x.shape}")
        if not self.terms and self.scale is None:
            raise ModelSpecError(
                "a CLMM needs at least one random-effect term such as (1 | annotator); "
                "a model without one is a CLM (ordinal::clm)"
            )
        for term in self.terms:
            if term.codes.size != y.size:
                raise ModelSpecError(f"random term {term.factor} has {term.codes.size} rows for {y.size}")
        threshold_jacobian(len(self.levels) - 1, self.threshold)

    @property
    def nobs(self) -> int:
        return int(self.y.size)

    @property
    def n_categories(self) -> int:
        return len(self.levels)

    @property
    def n_thresholds(self) -> int:
        """Number of free threshold parameters τ."""
        return int(self.jacobian.shape[1])

    @property
    def jacobian(self) -> np.ndarray:
        return threshold_jacobian(len(self.levels) - 1, self.threshold)

    @property
    def threshold_names(self) -> tuple[str, ...]:
        return threshold_names(self.levels, self.threshold)
