"""The ``humaneval`` command line: a thin layer over the API.

Each subcommand is a ``click`` command named ``command`` in a module of this package, imported only
when that subcommand runs, so ``humaneval --help`` loads click and nothing else. A new subcommand is
its module plus one line in :data:`COMMANDS` (its name and the first paragraph of its help, which
``humaneval --help`` lists; tests/test_cli_startup.py checks the line matches the command). Errors
caused by input (:class:`~humaneval.errors.HumanEvalError`, click's usage errors, and unreadable or
unwritable paths) are printed as one line on stderr with exit code 2 and no traceback; Python
warnings as one line each (``warning: ...``).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import click

from humaneval import __version__
from humaneval.errors import HumanEvalError

#: subcommand → the first paragraph of its help (module: the name with ``-`` as ``_``).
COMMANDS = {
    "analyze": "Test which systems differ: system table with rank groups and pairwise contrasts.",
    "budget": "Find the cheapest block design (B blocks × D documents × A annotators) whose simulated power "
    "reaches --target, screening a grid of candidates with one cheap test.",
    "collect": "Parse collected answers (MTurk batch results, Prolific study database) into a ratings table.",
    "compare-runs": "Compare a repeat study with the original: CV* per system mean, Spearman and Kendall "
    "between the runs' system rankings, and swap_p for every pair of systems whose labels may have been "
    "exchanged.",
    "demo": "Run the whole pipeline on a simulated study: design → forms → annotators → ratings → report.",
    "design": "Generate a study design: blocks, slots, presentation order, checks, cost.",
    "forms": "Write annotation forms (Prolific preview pages, MTurk package or standalone pages) for a "
    "design.",
    "heds": "Show which questions of a HEDS 3.0 datasheet (the form's JSON) are filled and which are "
    "missing.",
    "judge": "Test whether LLM judges may replace the annotators (alt-test), beside α, τ and a bias audit.",
    "metaeval": "Meta-evaluate automatic metrics against human scores: τ_sys, τ_sum, τ_pair, τ_intra and "
    "pairwise accuracy, with bootstrap CIs, metric comparisons and bias matrices.",
    "mturk": "Create HITs, fetch and review assignments, pay bonuses and grant qualifications on MTurk.",
    "ppi": "Estimate each system's mean human score, and the differences between systems, from human ratings "
    "of some summaries and a judge's scores of all (prediction-powered inference, PPI++).",
    "power": "Simulate power (with each test's Type I error beside it) for your study: a planned design "
    "table, a block design or a pilot's fitted model, at one size or along a power curve.",
    "prolific": "Create, publish, watch, review, pay and export a Prolific study run with 'humaneval serve'.",
    "ranks": "Confidence sets for ranks of estimates from a file (name, estimate, se), with --cov for "
    "correlated estimates: which ranks each may hold, which may be the best, and with --top K which may "
    "be among the K best (Mogstad, Romano, Shaikh & Wilhelm 2024).",
    "qc": "Quality control per annotator: attention checks, failed IMCs, speed, straight-lining.",
    "reliability": "Agreement (Krippendorff's α, Fleiss' κ) and split-half reliability of a ratings file.",
    "report": "Write a study report: summary, results with figures, reliability, QC, power and datasheet.",
    "score": "Score summaries with the bundled scorers; outputs join with ``humaneval metaeval``.",
    "serve": "Run a Prolific study: 'serve init DESIGN STUDY_DIR', then 'serve STUDY_DIR'.",
    "validate": "Validate a ratings file and report its design structure (span tables: docs/spans.md).",
}


def _modules() -> set[str]:
    """Command modules present in the package (a listing of its folder: nothing is imported, and
    not even pkgutil, whose imports would cost a third of ``humaneval --help``)."""
    return {
        name.removesuffix(".py")
        for name in os.listdir(__path__[0])
        if name.endswith(".py") and not name.startswith("_")
    }


class _Group(click.Group):
    """Loads each subcommand on use and turns input errors into one line and exit code 2."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | {name.replace("_", "-") for name in _modules()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module_name = cmd_name.replace("-", "_")
        if module_name.startswith("_") or module_name not in _modules():
            return None
        return importlib.import_module(f"{__name__}.{module_name}").command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Click's lookup, with a "did you mean" for a mistyped command, as for options."""
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.6)
            if close:
                raise click.UsageError(f"no such command {name!r} (did you mean {close[0]!r}?)", ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from :data:`COMMANDS`, importing only a command missing from it."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = []
        command: click.Command | None
        for name in names:
            if name in COMMANDS:
                command = click.Command(name, help=COMMANDS[name])
            else:
                command = self.get_command(ctx, name)
                if command is None or command.hidden:
                    continue
            rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        from humaneval.cli._checks import library_error_line, one_line, one_line_warnings

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

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ):
        """Click's main, with usage errors (normally three lines) printed as one line, exit code 2.
        (The CLI's checks load only when a command runs or fails: ``--help`` needs none of them.)"""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as exc:
            from humaneval.cli._checks import usage_error_line

            click.echo(usage_error_line(exc), err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            from humaneval.cli._checks import one_line

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
