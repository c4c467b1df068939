"""The ``humaneval`` command line: a thin layer over the API.

Every module of this package whose name does not start with ``_`` defines one subcommand as a
``click`` command named ``command``; they are discovered here, so a new stage adds its CLI by
adding a module. Errors caused by input (:class:`~humaneval.errors.HumanEvalError`, click's usage
errors, and unreadable or unwritable paths) are printed as one line on stderr with exit code 2 and
no traceback; Python warnings as one line each (``warning: ...``).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from humaneval import __version__
from humaneval.cli._checks import library_error_line, one_line, one_line_warnings, usage_error_line
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
            with one_line_warnings():
                return super().invoke(ctx)
        except HumanEvalError as exc:
            click.echo(f"error: {one_line(exc)}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except Exception as exc:
            if isinstance(exc, BrokenPipeError):  # the reader of stdout (e.g. `head`) has gone
                sys.exit(0)
            line = library_error_line(exc)
            if line is None:
                raise
            click.echo(line, err=True)
            sys.exit(2)

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        """Click's main, with usage errors (normally three lines) printed as one line, exit code 2."""
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.UsageError as exc:
            click.echo(usage_error_line(exc), err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"error: {one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120})
@click.version_option(__version__, prog_name="humaneval")
def main() -> None:
    """Plan, collect and analyse human evaluations of summarizers and other NLG systems."""
