"""The scale part of a location–scale CLMM: fixed scale effects and a random log-scale intercept.

``scale = "~ annotator"`` gives every annotator but the reference its own log-spread ζ_a (as
``ordinal::clm(..., scale = ~annotator)``); ``scale = "~ (1 | annotator)"`` draws the log-spreads
from N(0, σ_s²); both may be combined with other fixed terms (``"~ x + (1 | annotator)"``).
docs/native-engine.md, "Scale effects".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from humaneval.clmm.spec import RandomEffect
from humaneval.errors import ModelSpecError


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


def parse_scale(scale: str) -> tuple[str, str | None]:
    """The fixed part and the random log-scale's grouping factor of a one-sided scale formula.

    Examples
    --------
    >>> parse_scale("~ annotator")
    ('annotator', None)
    >>> parse_scale("~ (1 | annotator)")
    ('1', 'annotator')
    """
    from humaneval.clmm.formula import parse_formula

    text = str(scale).strip()
    if not text.startswith("~") or "~" in text[1:]:
        raise ModelSpecError(
            f"scale formula {scale!r} must be one-sided, e.g. '~ annotator' or '~ (1 | annotator)'"
        )
    parsed = parse_formula(f"scale {text}")
    if len(parsed.bars) > 1:
        raise ModelSpecError(f"scale formula {scale!r}: at most one random term such as (1 | annotator)")
    group = None
    if parsed.bars:
        bar = parsed.bars[0]
        if bar.expr.strip() != "1" or ":" in bar.group or bar.uncorrelated:
            raise ModelSpecError(
                f"scale formula {scale!r}: only a random intercept (1 | factor) of the log-scale is "
                f"supported, not {bar}"
            )
        group = bar.group.strip()
    if group is None and parsed.fixed.strip() in ("", "0", "1"):
        raise ModelSpecError(
            f"scale formula {scale!r} has no term; e.g. '~ annotator' or '~ (1 | annotator)'"
        )
    return parsed.fixed, group


def scale_columns(scale: str, data: pd.DataFrame) -> tuple[list[str], str | None]:
    """The data columns the scale formula uses: the fixed part's, and the random term's factor."""
    from humaneval.clmm.formula import term_names

    fixed, group = parse_scale(scale)
    names = set(term_names(fixed))
    cols = [c for c in data.columns if c in names]
    missing = [n for n in [*names, *([group] if group else [])] if n not in data.columns]
    if missing:
        raise ModelSpecError(
            f"column {sorted(missing)[0]!r} of the scale formula is not in the data; "
            f"columns are {', '.join(map(str, data.columns))}"
        )
    return cols, group


def categorical_identifiers(data: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``data`` with the integer columns among ``columns`` as factors (levels in numeric order).

    A scale formula names who rates (``~ annotator``); integer annotator ids are identifiers, as
    ``factor(annotator)`` in R, not a covariate. A numeric scale covariate must be a float column.
    """
    ints = [c for c in columns if pd.api.types.is_integer_dtype(data[c])]
    if not ints:
        return data
    out = data.copy()
    for c in ints:
        out[c] = pd.Categorical(out[c], categories=sorted(pd.unique(out[c].dropna())))
    return out


def scale_spec(
    scale: str, frame: pd.DataFrame, raw: pd.DataFrame, factors: Mapping[str, tuple[str, ...]]
) -> ScaleSpec:
    """The :class:`ScaleSpec` of ``scale`` on the model frame (factors coded as in the location part)."""
    from humaneval.clmm.formula import _model_matrix, _with_intercept, r_name

    fixed, group = parse_scale(scale)
    mm = _model_matrix(f"1 + {_with_intercept(fixed)}", frame, frame)
    columns = [r_name(c, factors) for c in mm.columns]
    w_full = np.asarray(mm, dtype=float)
    keep = [k for k, c in enumerate(columns) if c != "(Intercept)"]
    random = None
    if group is not None:
        codes, uniques = pd.factorize(raw[group].astype(str), sort=True)
        random = RandomEffect(
            group, codes, np.ones(len(frame)), ("(Intercept)",), levels=tuple(str(u) for u in uniques)
        )
        if random.n_groups < 3:
            raise ModelSpecError(
                f"a random log-scale needs at least 3 levels of {group!r}, not {random.n_groups}; "
                f"use fixed scale effects ('~ {group}')"
            )
    return ScaleSpec(
        formula=str(scale).strip(),
        w=w_full[:, keep],
        names=tuple(columns[k] for k in keep),
        random=random,
        fixed_spec=mm.model_spec if keep else None,
    )
