"""ISO 4217 currency codes: a design's pay is in one of them, so that no other text reaches a form,
a datasheet or a report as a currency.

References
----------
ISO 4217:2015, *Codes for the representation of currencies* (list one, active codes, as maintained by
SIX Financial Information on behalf of ISO).
"""

from __future__ import annotations

from humaneval.errors import OptionError

#: Active ISO 4217 alphabetic codes (funds and precious metals included; XTS and XXX left out).
# fmt: off
ISO_4217 = frozenset([
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BGN", "BHD",
    "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHE", "CHF",
    "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD",
    "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD",
    "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR",
    "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA",
    "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN", "NIO",
    "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB",
    "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SLL", "SOS", "SRD", "SSP", "STN", "SVC",
    "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN",
    "UYI", "UYU", "UYW", "UZS", "VED", "VES", "VND", "VUV", "WST", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC",
    "XBD", "XCD", "XCG", "XDR", "XOF", "XPD", "XPF", "XPT", "XSU", "XUA", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
])
# fmt: on


def currency_code(value: str, what: str = "currency") -> str:
    """``value`` as an ISO 4217 code (upper case), or :class:`OptionError`.

    Examples
    --------
    >>> currency_code("gbp")
    'GBP'
    >>> currency_code("<script>")
    Traceback (most recent call last):
    humaneval.errors.OptionError: currency '<script>' is not an ISO 4217 code; use e.g. USD, GBP or EUR
    """
    code = value.strip().upper() if isinstance(value, str) else ""
    if code not in ISO_4217:
        raise OptionError(f"{what} {value!r} is not an ISO 4217 code; use e.g. USD, GBP or EUR")
    return code
