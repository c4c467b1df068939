"""The examples in the docstrings run and reproduce their numbers (published ones where they exist,
e.g. Krippendorff's 2011 α = 0.815 from :mod:`humaneval.datasets`), without ../shared and without R."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import humaneval

#: Modules whose examples need R (renv starts it) or write figures (slow); they run elsewhere.
EXCLUDED = {"humaneval.__main__", "humaneval.renv", "humaneval.plotting"}
#: The examples that must exist at least (issue 23: "at least 30 doctested examples run in CI").
MIN_EXAMPLES = 30


def _modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(humaneval.__path__, "humaneval.")]
    return sorted(name for name in names if name not in EXCLUDED)


def _examples(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    return [test for test in doctest.DocTestFinder().find(module) if test.examples]


def _run(test: doctest.DocTest) -> doctest.TestResults:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failures: list[str] = []
    result = runner.run(test, out=failures.append)
    assert result.failed == 0, "".join(failures)
    return result


@pytest.mark.parametrize(
    "name", [n for n in _modules() if n.startswith(("humaneval.datasets", "humaneval.formatting"))]
)
def test_published_examples(name):
    assert sum(_run(test).attempted for test in _examples(name)) >= 7


def test_every_docstring_example_runs():
    attempted = 0
    for name in _modules():
        for test in _examples(name):
            attempted += _run(test).attempted
    assert attempted >= MIN_EXAMPLES, attempted
