"""Start-up of the command line: ``humaneval --help`` loads click and no subcommand (issue 34, goal 6)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import click
import pytest

from humaneval.cli import COMMANDS, _modules, main


def test_every_command_module_has_its_line_and_the_line_is_its_help():
    ctx = click.Context(main)
    assert set(COMMANDS) == {name.replace("_", "-") for name in _modules()}
    for name, text in COMMANDS.items():
        command = main.get_command(ctx, name)
        assert command.get_short_help_str(10_000) == text, name


def test_help_lists_every_command_without_importing_one():
    script = (
        "import sys\n"
        "from humaneval.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'pandas', 'scipy'})\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('humaneval.cli.') and '._' not in m)\n"
        "print('LOADED', heavy, loaded)\n"
    )
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.splitlines()[-1] == "LOADED [] []"
    listed = [line.split()[0] for line in out.stdout.split("Commands:")[1].splitlines() if line.strip()][:-1]
    assert listed == sorted(COMMANDS)
    assert "Test which systems differ: system table with rank groups and pairwise contrasts." in out.stdout


def test_a_command_missing_from_the_table_is_still_listed(monkeypatch):
    monkeypatch.delitem(COMMANDS, "validate")
    text = main.get_help(click.Context(main))
    assert re.search(r"\n  validate +Validate a ratings file and report its design structure\.", text)


def test_auto_engine_does_not_look_for_r(monkeypatch):
    from humaneval.cli._checks import check_engine
    from humaneval.clmm import renv

    def probe():
        raise AssertionError("R was probed")

    monkeypatch.setattr(renv, "r_problem", probe)
    assert check_engine(None, None, "auto") == "native"
    assert check_engine(None, None, "native") == "native"
    with pytest.raises(AssertionError, match="R was probed"):
        check_engine(None, None, "r")
