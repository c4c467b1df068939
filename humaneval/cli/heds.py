"""``humaneval heds``: what a HEDS 3.0 datasheet file has filled and what is still missing."""

from __future__ import annotations

import click

from humaneval.cli._common import InputFile, emit, json_option


@click.command()
@click.argument("file", type=InputFile())
@json_option
def command(file: str, as_json: bool) -> None:
    """Show which questions of a HEDS 3.0 datasheet (the form's JSON) are filled and which are missing."""
    from humaneval.reproducibility.heds import read_heds

    sheet = read_heds(file)
    payload = {
        "file": file,
        "criteria": sheet.criteria,
        "filled": {f: sheet.answers[f] for f in sheet.filled()},
        "missing": sheet.missing(),
    }
    emit(payload, as_json, sheet.summary)
