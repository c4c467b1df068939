"""Hostile input for the commands and readers of the newest sessions (ranks, reproducibility, span
tables, scale effects, judges, PPI, budget and design with judge scores): each case below was a
traceback, a second line, or a silently wrong number before its reader was fixed.

The harness is that of tests/test_cli_hostile.py: exit code 2, ONE ``error:`` line naming the file and
row or the option, nothing on stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from humaneval.errors import RatingsError
from tests.test_cli_hostile import assert_one_line_error, fill, run

pytestmark = pytest.mark.timeout(300)

#: Files by name: written once per module into a temporary folder.
FILES = {
    # ranks
    "est_header": "name,estimate,se\n",
    "est_one": "name,estimate,se\nA,1,0.1\n",
    "est_blank_name": "name,estimate,se\nA,1,0.1\n,2,0.2\n",
    "est_na_name": "name,estimate,se\nNA,1,0.1\nB,2,0.2\n",
    "est_two_se": "name,estimate,se,se\nA,1,0.1,9\nB,2,0.2,3\n",
    "est_neg_se": "name,estimate,se\nA,1,0.1\nB,2,-0.2\n",
    "est_huge": "name,estimate,se\nA,1e308,0.1\nB,-1e308,0.2\n",
    "est_huge_se": "name,estimate,se\nA,1,1e308\nB,2,1e308\n",
    "est_two": "name,estimate\nA,1\nB,2\n",
    "cov_two_a": "A,A\n1,0.5\n0.5,1\n",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("sweep")
    paths = {"root": root}
    for name, text in FILES.items():
        paths[name] = root / f"{name}.csv"
        paths[name].write_text(text)
    return paths


SWEEP = [
    # ranks: a header only or one row named with the file (was "not an array of shape (0,)")
    (["ranks", "{est_header}"], ["est_header.csv: 0 estimate(s)", "at least two rows"]),
    (["ranks", "{est_one}"], ["est_one.csv: 1 estimate(s)"]),
    # an empty name was read as the system 'nan' and ranked
    (["ranks", "{est_blank_name}"], ["est_blank_name.csv: row 3, column 'name': the name is empty"]),
    # a second 'se' column was renamed 'se.1' by pandas and ignored
    (["ranks", "{est_two_se}"], ["est_two_se.csv: the header names column 'se' twice"]),
    (["ranks", "{est_two}", "--cov", "{cov_two_a}"], ["cov_two_a.csv: the header names column 'A' twice"]),
    (["ranks", "{est_neg_se}"], ["est_neg_se.csv: row 3, column 'se': '-0.2' is negative"]),
    # 1e308 overflowed in the bootstrap ("warning: overflow encountered") and still printed sets
    (["ranks", "{est_huge}"], ["est_huge.csv: row 2, column 'estimate': '1e+308' is beyond ±1e+12"]),
    (["ranks", "{est_huge_se}"], ["est_huge_se.csv: row 2, column 'se'", "beyond ±1e+12"]),
]  # fmt: skip


@pytest.mark.parametrize("template,fragments", SWEEP, ids=[" ".join(c[0][:2]) for c in SWEEP])
def test_sweep(files, template, fragments):
    assert_one_line_error(run(*fill(template, files)), *fragments)


def test_a_system_called_na_keeps_its_name(files):
    from humaneval.ranks import read_estimates

    estimates, _, se = read_estimates(files["est_na_name"])
    assert estimates.index.tolist() == ["NA", "B"] and se is not None and se.tolist() == [0.1, 0.2]
    with pytest.raises(RatingsError, match="the name is empty"):
        read_estimates(files["est_blank_name"])
