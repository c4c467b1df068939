"""The one rule for reading a numeric answer, shared by the collection server and the exports.

The server (:mod:`humaneval.serve.validate`) acknowledges a screen only if every numeric answer
passes :func:`parse_number`, and the exports (:mod:`humaneval.collect.mturk`, used for MTurk and
Prolific alike) read the same text with the same function, so an answer the server stored is
never turned into a missing value later. Only plain ASCII decimals are numbers: ``"7"``,
``"-3"``, ``"7.0"``, ``"6.5e1"``; Python's extra spellings (``"٧"``, ``"0_7"``, ``" 7 "``,
``"inf"``) are refused where they arrive.
"""

from __future__ import annotations

import math
import re
from typing import Any

MAX_NUMBER_TEXT = 32  # the longest repr of a float, "-1.2345678901234567e-308", has 24
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def parse_number(value: Any) -> float | None:
    """``value`` as a finite float, or ``None`` when it is not a number by the rule above.

    A JSON number (``int``/``float``, never ``bool``) or a string of at most 32 characters that
    is a plain ASCII decimal (every float's ``str`` is one, so a JSON number and its text agree).

    Examples
    --------
    >>> parse_number("7.0"), parse_number(6), parse_number("0_7"), parse_number("٧")
    (7.0, 6.0, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value) if not isinstance(value, int) or abs(value) < 2**63 else math.inf
    elif isinstance(value, str) and len(value) <= MAX_NUMBER_TEXT and _DECIMAL.fullmatch(value):
        number = float(value)
    else:
        return None
    return number if math.isfinite(number) else None
