"""Every ``--json`` help names the docs page that holds the command's schema, and that page has it."""

from __future__ import annotations

import re
from pathlib import Path

import click
from click.testing import CliRunner

from humaneval.cli import main

ROOT = Path(__file__).resolve().parents[1]


def commands(group: click.Group, ctx: click.Context, prefix=()):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            yield from commands(command, ctx, (*prefix, name))
        else:
            yield (*prefix, name)


def test_json_help_points_to_the_docs_page_with_the_schema():
    seen = {}
    for path in commands(main, click.Context(main)):
        result = CliRunner().invoke(main, [*path, "--help"], terminal_width=400)
        assert result.exit_code == 0, (path, result.output)
        text = " ".join(result.output.split())
        if "--json" not in text:
            continue
        match = re.search(r"schema in ([^)]+)\)", text)
        assert match, (path, text)
        seen[" ".join(path)] = page = match.group(1)
        doc = (ROOT / ("README.md" if page == "the README" else page)).read_text()
        assert "--json`" in doc, (path, page)  # the page documents the command's JSON output
    assert seen["analyze"] == "docs/analysis.md" and seen["qc"] == "docs/forms.md"
    assert seen["collect prolific"] == "docs/serve.md" and seen["power"] == "docs/simulation.md"
    assert len(seen) >= 12
