"""The registry of crowdsourcing platforms: one :class:`Platform` per platform, looked up by name.

Every stage asks the registry what differs between platforms (pay rules and currency, how the
forms are packaged, which parser reads the results, which API client talks to the platform, how
a participant finishes) instead of comparing platform names; adding a platform is one record
plus one line in :data:`PLATFORMS` (docs/platforms.md, "Adding a platform"). The record names
its parser and API client as ``"module:function"`` strings, loaded on first use by
:meth:`Platform.load`, so this module sits below the design layer and imports none of them.

Pay rules: Prolific enforces at least £6.00 / $8.00 per hour and recommends £9.00 / $12.00
("Prolific's payment principles", researcher-help.prolific.com, checked November 2026); study
rewards go to its API in the minor unit (pence / cents) while bonus amounts are in pounds /
dollars (Prolific API reference, docs.prolific.com: "Create study", "Create bonus payments").
MTurk publishes no minimum; the package uses $12.00 (SummEval's target and Prolific's USD
recommendation) and sends USD strings with two decimals. Amazon stopped accepting new MTurk
requesters on 2026-07-30; existing requesters continue.

Examples
--------
>>> from humaneval.core.platforms import PLATFORMS, get_platform
>>> list(PLATFORMS)
['prolific', 'mturk', 'standalone']
>>> prolific = get_platform("prolific")
>>> prolific.currency, prolific.hourly_pay("GBP"), prolific.forms
('GBP', (9.0, 6.0), 'server')
>>> get_platform("mturk").hourly_pay("EUR")  # another currency falls back to the platform's own
(12.0, 12.0)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from humaneval.errors import OptionError


@dataclass(frozen=True)
class Platform:
    """What differs between crowdsourcing platforms.

    Attributes
    ----------
    name, title : str
        The registry key (the design's ``platform``) and the name shown to people.
    currency : str
        The default currency of a design costed for this platform.
    pay : mapping of str to (float, float)
        ``currency → (default, minimum)`` hourly pay in major units.
    reward_unit : {"minor", "major"}
        The unit the platform's API takes a reward in (Prolific: pence / cents; MTurk: USD).
    bonus_unit : {"minor", "major"}
        The unit of bonus amounts (both platforms: pounds / dollars with two decimals).
    forms : {"server", "hits", "pages"}
        How the forms reach annotators: served by ``humaneval serve`` (the written pages are a
        preview), an MTurk package of HITs, or standalone pages.
    form_per : {"slot", "block"}
        The default unit of one written form (an MTurk HIT per annotator slot; a page per block).
    routes : bool
        Whether the package offers MTurk's API and batch routes.
    completion : {"completion_code", "external_submit", "none"}
        How a participant finishes: Prolific's completion-code URL, MTurk's ``externalSubmit``,
        or nothing (pilots).
    checks_for_rejection : int or None
        Failed attention checks the platform requires before a submission may be rejected
        (Prolific: two); ``None`` when it states no rule.
    parser, client : str or None
        ``"module:function"`` of the results reader and of the API client factory.
    docs : str
        The documentation page.
    note : str
        What a user must know first (e.g. the platform takes no new customers).
    """

    name: str
    title: str
    currency: str
    pay: Mapping[str, tuple[float, float]]
    reward_unit: str
    bonus_unit: str
    forms: str
    form_per: str
    routes: bool
    completion: str
    checks_for_rejection: int | None = None
    parser: str | None = None
    client: str | None = None
    docs: str = "docs/platforms.md"
    note: str = ""

    def hourly_pay(self, currency: str | None = None) -> tuple[float, float]:
        """``(default, minimum)`` hourly pay in ``currency`` (default: the platform's own)."""
        return self.pay.get(currency or self.currency, self.pay[self.currency])

    def load(self, what: str) -> Callable[..., Any]:
        """The function named by ``parser`` or ``client``, imported now.

        Raises
        ------
        OptionError
            When the platform has none (e.g. standalone pages have no API client).
        """
        target = getattr(self, what)
        if not target:
            raise OptionError(f"platform {self.name!r} has no {what}; see {self.docs}")
        module, _, function = target.partition(":")
        return getattr(importlib.import_module(module), function)


PROLIFIC = Platform(
    name="prolific",
    title="Prolific",
    currency="GBP",
    pay=MappingProxyType({"GBP": (9.00, 6.00), "USD": (12.00, 8.00)}),
    reward_unit="minor",
    bonus_unit="major",
    forms="server",
    form_per="block",
    routes=False,
    completion="completion_code",
    checks_for_rejection=2,
    parser="humaneval.collect.prolific:read_prolific",
    client="humaneval.platforms.prolific:prolific_client",
)
MTURK = Platform(
    name="mturk",
    title="Amazon Mechanical Turk",
    currency="USD",
    pay=MappingProxyType({"USD": (12.00, 12.00)}),
    reward_unit="major",
    bonus_unit="major",
    forms="hits",
    form_per="slot",
    routes=True,
    completion="external_submit",
    parser="humaneval.collect.mturk:parse_mturk_results",
    client="humaneval.platforms.mturk:mturk_client",
    note="closed to new requesters since 2026-07-30 (existing requesters continue); new studies: Prolific",
)
STANDALONE = Platform(
    name="standalone",
    title="standalone pages (pilots)",
    currency="GBP",
    pay=MappingProxyType({"GBP": (9.00, 6.00), "USD": (12.00, 8.00)}),
    reward_unit="major",
    bonus_unit="major",
    forms="pages",
    form_per="block",
    routes=False,
    completion="none",
    docs="docs/forms.md",
)

PLATFORMS: MappingProxyType[str, Platform] = MappingProxyType(
    {p.name: p for p in (PROLIFIC, MTURK, STANDALONE)}
)
"""Every platform by name; the first is the default where a platform must be chosen."""

DEFAULT_PLATFORM = next(iter(PLATFORMS))


def get_platform(name: str | Platform | None = None) -> Platform:
    """The :class:`Platform` called ``name`` (``None``: the default, Prolific).

    Raises
    ------
    OptionError
        For an unknown name; the message lists the known ones.

    Examples
    --------
    >>> get_platform().name, get_platform("mturk").reward_unit
    ('prolific', 'major')
    """
    if isinstance(name, Platform):
        return name
    if name is None:
        name = DEFAULT_PLATFORM
    found = PLATFORMS.get(name) if isinstance(name, str) else None
    if found is None:
        raise OptionError(f"platform {name!r} is unknown; choose one of {', '.join(PLATFORMS)}")
    return found


__all__ = ["DEFAULT_PLATFORM", "MTURK", "PLATFORMS", "PROLIFIC", "STANDALONE", "Platform", "get_platform"]
