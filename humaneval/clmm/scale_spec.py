"""The scale part of a location–scale CLMM: fixed scale effects and a random log-scale intercept.

:class:`ScaleSpec` holds it; :func:`humaneval.clmm.formula.clmm_spec` (``scale=``) builds it with the
formula parser.

``scale = "~ annotator"`` gives every annotator but the reference its own log-spread ζ_a (as
``ordinal::clm(..., scale = ~annotator)``); ``scale = "~ (1 | annotator)"`` draws the log-spreads
from N(0, σ_s²); both may be combined with other fixed terms (``"~ x + (1 | annotator)"``).
docs/native-engine.md, "Scale effects".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humaneval.clmm.spec import RandomEffect


@dataclass(frozen=True, eq=False)
class ScaleSpec:
    """The scale design of a :class:`~humaneval.clmm.spec.ClmmSpec`.

    Attributes
    ----------
    formula:
        The one-sided scale formula as given (``"~ annotator"``).
    w:
        n × r fixed scale design without an intercept column (the thresholds fix the overall spread).
    names:
        Names of the r columns as R prints them (``annotator2``).
    random:
        The grouping factor of a random log-scale intercept, or None.
    fixed_spec:
        formulaic's model spec of the fixed scale part (new data → w), None without fixed terms.
    """

    formula: str
    w: np.ndarray
    names: tuple[str, ...]
    random: RandomEffect | None = None
    fixed_spec: object | None = None

    @property
    def n_zeta(self) -> int:
        return len(self.names)
