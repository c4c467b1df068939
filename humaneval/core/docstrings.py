"""Parameter texts that several docstrings share word for word, kept in one place.

A docstring writes ``%(name)s`` where a shared text goes and its function is decorated with
:func:`shared_docs`, which substitutes the texts of :data:`PARAMETERS` when the module is imported
(only ``%(name)s`` of a known name is replaced; other ``%`` signs stay as written).

Examples
--------
>>> @shared_docs
... def test(alpha=0.05):
...     '''A test.
...
...     Parameters
...     ----------
...     alpha : float
...         %(alpha)s
...     '''
>>> print(test.__doc__.splitlines()[5].strip())
Significance level of the ``better`` column.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable)

#: Shared parameter descriptions, by placeholder name.
PARAMETERS: dict[str, str] = {
    "alpha": "Significance level of the ``better`` column.",
    "adjust": "Multiple-comparison adjustment of ``p_adj``.",
    "adjust_intervals": "Multiple-comparison adjustment of ``p_adj`` and the intervals.",
    "aggregate": "The pairing unit: each rating (``none``), the mean per document, or per cluster.",
    "confidence_level": "Confidence level of ``ci_low``/``ci_high``.",
    "criterion": "The criterion to analyse when the table has several.",
    "criterion_or_each": "One criterion (default: each).",
    "criterion_when_several": "The criterion, when the table has several.",
    "estimates": "System → estimate (higher = better).",
    "generating_model": "The generating model (None: the built-in coherence model).",
    "likert_points": "Points of the rating scale (Likert).",
    "min_items": "Humans with fewer items are left out of the t-tests (the authors' 30).",
    "link": "``logit``, ``probit``, ``cloglog``, ``loglog`` or ``cauchit``.",
    "one_criterion_ratings": (
        "One criterion's ratings (``annotator, document, system`` and ``score`` or ``rank``)."
    ),
    "r_progress": "Show the elapsed time while R fits.",
}
_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


def shared_docs(func: F) -> F:
    """``func`` with each ``%(name)s`` of its docstring replaced by ``PARAMETERS[name]``."""
    if func.__doc__:
        func.__doc__ = _PLACEHOLDER.sub(lambda m: PARAMETERS.get(m.group(1), m.group(0)), func.__doc__)
    return func
