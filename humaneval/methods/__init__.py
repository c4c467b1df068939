"""The registry of annotation methods: one :class:`Method` per method, looked up by name.

Every stage asks the registry what differs between methods (screens, answer fields, valid
values, attention-check scoring, ratings table, analysis) instead of comparing method names;
adding a method is one module plus one line in :data:`METHODS` (docs/methods.md).

Examples
--------
>>> from humaneval.methods import METHODS, get_method
>>> list(METHODS)
['likert', 'rank', 'bws', 'pairwise', 'da', 'spans']
>>> get_method("ranking").name, get_method("ranking").response
('rank', 'rank')
>>> get_method("likert").parse_value("6", points=7), get_method("likert").parse_value("8", points=7)
(6.0, None)
"""

from __future__ import annotations

from types import MappingProxyType

from humaneval.core.responses import RANK, RESPONSES, SCORE, lower_is_better
from humaneval.errors import OptionError
from humaneval.methods.base import Method
from humaneval.methods.bws import BWS
from humaneval.methods.da import DA
from humaneval.methods.likert import LIKERT
from humaneval.methods.pairwise import PAIRWISE
from humaneval.methods.ranking import RANKING
from humaneval.methods.spans import SPANS

METHODS: MappingProxyType[str, Method] = MappingProxyType(
    {m.name: m for m in (LIKERT, RANKING, BWS, PAIRWISE, DA, SPANS)}
)
"""Every annotation method by canonical name, in the order the documentation lists them."""

ALIASES: MappingProxyType[str, str] = MappingProxyType(
    {alias: m.name for m in METHODS.values() for alias in m.aliases}
)
"""Other accepted names (and ratings-table kinds) → canonical name."""

_BY_NAME = {**{name: name for name in METHODS}, **ALIASES}


def get_method(name: str | Method) -> Method:
    """The :class:`Method` called ``name`` (a canonical name or an alias such as ``"ranking"``).

    Parameters
    ----------
    name : str or Method
        A name of :data:`METHODS`, an alias of :data:`ALIASES`, or a ratings-table kind of
        :func:`humaneval.comparative.detect_kind`; a :class:`Method` is returned as it is.

    Returns
    -------
    Method

    Raises
    ------
    OptionError
        For an unknown name; the message lists the known ones.

    Examples
    --------
    >>> get_method("da").value_range()
    (0, 100)
    """
    if isinstance(name, Method):
        return name
    canonical = _BY_NAME.get(name) if isinstance(name, str) else None
    if canonical is None:
        raise OptionError(f"method {name!r} is unknown; choose one of {', '.join(METHODS)}")
    return METHODS[canonical]


__all__ = [
    "ALIASES",
    "METHODS",
    "RANK",
    "RESPONSES",
    "SCORE",
    "Method",
    "get_method",
    "lower_is_better",
]
