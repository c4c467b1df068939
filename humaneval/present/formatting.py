"""How every number is written in text: CLI output, ``summary()`` of results and the report.

One place, so that the terminal, the Markdown/LaTeX report and a result's ``summary()`` show the
same digits and the same mark for a missing value (an en dash, :data:`MISSING`).

Examples
--------
>>> fmt(0.81463)
'0.815'
>>> fmt(float("nan"))
'–'
>>> fmt_p(0.00002), fmt_p(0.0421)
('<.0001', '0.0421')
>>> p_is(0.0421)
'p = 0.0421'
>>> fmt_ci(0.1, 0.25)
'[0.100, 0.250]'
>>> fmt_estimate_ci(0.2621, 0.2113, 0.3184)
'0.262 [0.211, 0.318]'
>>> fmt_power(0.26, 0.21, 0.32)
'0.26 [0.21, 0.32]'
"""

from __future__ import annotations

import math
from typing import Any

#: The mark of a missing or undefined number.
MISSING = "–"


def is_missing(value: Any) -> bool:
    """``None``, NaN or an infinite number."""
    if value is None:
        return True
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def fmt(value: Any, digits: int = 3) -> str:
    """A number with ``digits`` decimals; a missing value as :data:`MISSING`."""
    return MISSING if is_missing(value) else f"{value:.{digits}f}"


def fmt_p(value: Any) -> str:
    """A p-value with four decimals, ``<.0001`` below that."""
    if is_missing(value):
        return MISSING
    return "<.0001" if value < 1e-4 else f"{value:.4f}"


def p_is(value: Any) -> str:
    """``p < 0.0001`` or ``p = 0.0123``."""
    if is_missing(value):
        return f"p = {MISSING}"
    return "p < 0.0001" if value < 1e-4 else f"p = {value:.4f}"


def fmt_ci(low: Any, high: Any, digits: int = 3) -> str:
    """An interval ``[low, high]``; :data:`MISSING` when the lower end is missing."""
    if is_missing(low):
        return MISSING
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def fmt_estimate_ci(value: Any, low: Any, high: Any, digits: int = 3) -> str:
    """An estimate and its interval, ``0.262 [0.211, 0.318]``."""
    if is_missing(value):
        return MISSING
    return f"{fmt(value, digits)} {fmt_ci(low, high, digits)}"


def fmt_power(rate: Any, low: Any, high: Any) -> str:
    """A simulated power with its 95 % Clopper–Pearson interval, ``0.26 [0.21, 0.32]``."""
    if is_missing(rate):
        return MISSING
    return f"{rate:.2f} [{low:.2f}, {high:.2f}]"


def fmt_value_ci(value: Any, low: Any = None, high: Any = None, digits: int = 2) -> str:
    """An estimate with its interval when it has one: ``0.52 [0.41, 0.60]``, else ``0.52``.

    Examples
    --------
    >>> fmt_value_ci(0.5213, 0.41, 0.6), fmt_value_ci(0.5213), fmt_value_ci(float("nan"), 0.1, 0.2)
    ('0.52 [0.41, 0.60]', '0.52', '–')
    """
    if is_missing(value):
        return MISSING
    return fmt(value, digits) if is_missing(low) else f"{fmt(value, digits)} {fmt_ci(low, high, digits)}"
