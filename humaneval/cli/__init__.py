"""The ``humaneval`` command line: a thin layer over the API.

Every module of this package whose name does not start with ``_`` defines one subcommand as a
``click`` command named ``command``; they are discovered here, so a new stage adds its CLI by
adding a module. Errors caused by input (:class:`~humaneval.errors.HumanEvalError`) are printed
as one line on stderr with exit code 2 and no traceback.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from humaneval import __version__
from humaneval.errors import HumanEvalError


class _Group(click.Group):
    """Discovers subcommands and turns input errors into one line and exit code 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(
            name.replace("_", "-")
            for _, name, _ in pkgutil.iter_modules(__path__)
            if not name.startswith("_")
        )

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = cmd_name.replace("-", "_")
        if module_name.startswith("_") or module_name not in {
            n for _, n, _ in pkgutil.iter_modules(__path__)
        }:
            return None
        return importlib.import_module(f"{__name__}.{module_name}").command

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except HumanEvalError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120})
@click.version_option(__version__, prog_name="humaneval")
def main() -> None:
    """Plan, collect and analyse human evaluations of summarizers and other NLG systems."""
