"""Deprecated import path, removed in humaneval 0.2: the one rule for reading a numeric answer.

It lives in :mod:`humaneval.methods.values`, the low layer every method's value parser uses.
"""

from humaneval.methods.values import MAX_NUMBER_TEXT, parse_number

__all__ = ["MAX_NUMBER_TEXT", "parse_number"]
