"""Bringing collected answers back into the validated ratings table, one module per platform.

:mod:`humaneval.collect.mturk` parses MTurk batch results (docs/forms.md, "Parsing results");
:mod:`humaneval.collect.summeval` reads SummEval's public annotation file.
"""

from humaneval.collect.mturk import (
    MTurkResults,
    answers_from_xml,
    assignment_row,
    parse_mturk_results,
    pseudonym,
    results_row,
)
from humaneval.collect.summeval import load_summeval

__all__ = [
    "MTurkResults",
    "answers_from_xml",
    "assignment_row",
    "load_summeval",
    "parse_mturk_results",
    "pseudonym",
    "results_row",
]
