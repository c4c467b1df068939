"""The two setup commands: `make demo` installs only what the demo uses, `make test` what the tests need."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def dry_run(target: str) -> str:
    """The commands ``make`` would run for ``target`` from scratch (``-B``: as on a fresh machine).

    CI runs the suite from inside ``make test``: the outer make's variables are dropped so the
    dry run prints only the commands (no "Entering directory" lines).
    """
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS"}}
    return subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout


def test_make_demo_installs_only_the_runtime_dependencies():
    commands = dry_run("demo")
    assert "pip install --quiet -e .\n" in commands
    for heavy in ("torch", "spacy", "playwright", "nli", "nlp", "apt-get", "[r"):
        assert heavy not in commands, heavy
    assert commands.rstrip().endswith("humaneval demo --out humaneval-demo")


def test_make_test_installs_what_the_suite_needs():
    commands = dry_run("test")
    assert "pip install --quiet torch==2.13.0" in commands
    assert 'pip install --quiet -e ".[r,dev,nlp,nli]"' in commands
    assert "r-cran-ordinal r-cran-emmeans" in commands and "chromium" in commands
    installs = [line for line in commands.splitlines() if "apt-get install" in line]
    assert len(installs) == 2 and all("--no-install-recommends" in line for line in installs)
    # R is installed only when it cannot load the packages, however it got there
    assert "Rscript -e 'library(ordinal); library(emmeans)'" in commands
    # one pytest-xdist worker per core: the suite stays within 15 minutes on 2 cores
    assert commands.rstrip().endswith("python -m pytest -n auto")
    # the type and lint checks run first, so CI enforces them (issue 39)
    assert commands.index("ruff check humaneval tests") < commands.index("mypy") < commands.index("-m pytest")
