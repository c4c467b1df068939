"""Checks every command runs on its options before any work, and the one-line form of problems.

Output paths are checked when click parses them (:class:`OutputPath`), so that a report or a
simulation never runs for minutes only to fail when it writes. Problems are printed as one
line each: errors as ``error: ...`` (exit code 2), Python warnings as ``warning: ...``.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from humaneval.errors import OptionError


class FiniteRange(click.FloatRange):
    """``click.FloatRange`` that also refuses ``nan`` and ``inf`` (which pass its comparisons)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number

    def _describe_range(self) -> str:
        # click would print an unbounded range as "x<=None" in --help
        if self.min is None and self.max is None:
            return "finite"
        return super()._describe_range()


#: Option types for sizes, counts and rates, so that no command accepts a value that makes no sense.
COUNT = click.IntRange(min=1)
NONNEG = click.IntRange(min=0)
POS = FiniteRange(min=0, min_open=True)
NONNEG_F = FiniteRange(min=0)
RATE = FiniteRange(0, 1, max_open=True)
FINITE = FiniteRange()
#: Upper bounds where a huge value would exhaust memory or overflow (a bootstrap of 1e20 resamples).
RESAMPLES = click.IntRange(0, 1_000_000)
SECONDS = FiniteRange(0, 86_400)
DURATION = FiniteRange(0, 86_400, min_open=True)
FACTOR = FiniteRange(0, 100, min_open=True)
SHARE = FiniteRange(0, 10)
MINUTES = FiniteRange(0, 525_600, min_open=True)
WAGE = FiniteRange(0, 10_000)


def one_line(text: object) -> str:
    """``text`` with every run of whitespace (newlines included) folded into one space."""
    return " ".join(str(text).split())


def _existing_ancestor(path: Path) -> Path:
    """The nearest ancestor of ``path`` (itself excluded) that exists, as a file or a folder."""
    for parent in path.absolute().parents:
        if parent.exists():
            return parent
    return Path(path.absolute().anchor)


def check_output_path(path: str | Path, *, folder: bool = False, option: str = "--out") -> Path:
    """Check that ``path`` can be written before any work is done.

    A file must not be a folder; a folder must not be a file. In both cases the parent must be an
    existing, writable folder: a mistyped path fails at once instead of after the analysis, and
    no stray folders are created.

    Parameters
    ----------
    path:
        The file or folder the command will write.
    folder:
        Whether ``path`` is a folder (created if missing) rather than a file.
    option:
        The option that named the path, for the message.

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    OptionError
        With one line naming the option, the path, what is wrong and how to fix it.

    Examples
    --------
    >>> check_output_path("/nonexistent/study/design.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    humaneval.errors.OptionError: --out ...: the folder /nonexistent/study does not exist; create it first ...
    """
    path = Path(path)
    where = f"{option} {path}"
    if not str(path).strip():
        raise OptionError(f"{option}: the path is empty; give a {'folder' if folder else 'file'} path")
    if folder and path.exists() and not path.is_dir():
        raise OptionError(f"{where}: is a file, not a folder; give a folder path")
    if not folder and path.is_dir():
        raise OptionError(f"{where}: is a folder; give a file path, e.g. {path / 'out.csv'}")
    parent = path.absolute().parent
    if not parent.is_dir():
        ancestor = _existing_ancestor(path)
        if ancestor.is_dir():
            raise OptionError(
                f"{where}: the folder {path.parent} does not exist; create it first or choose another path"
            )
        raise OptionError(f"{where}: {ancestor} is a file, not a folder; choose another path")
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK | (os.X_OK if target.is_dir() else 0)):
        raise OptionError(f"{where}: {target} is not writable (permission denied); choose another path")
    folder_of_target = target if target.is_dir() else target.parent
    refused = _cannot_create_in(folder_of_target)
    if refused:  # os.access says yes to root everywhere, also on /proc or a read-only mount
        raise OptionError(f"{where}: {folder_of_target} is not writable ({refused}); choose another path")
    return path


def _cannot_create_in(folder: Path) -> str | None:
    """Why no file can be created in ``folder`` (an anonymous temporary file is tried), or None."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            return None
    except OSError as exc:
        return (exc.strerror or type(exc).__name__).lower()


class OutputPath(click.ParamType):
    """A click type for a file or folder the command writes; see :func:`check_output_path`."""

    name = "path"

    def __init__(self, folder: bool = False, suffixes: tuple[str, ...] = ()) -> None:
        self.folder = folder
        self.suffixes = suffixes

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if param is not None and getattr(param, "opts", None) and param.param_type_name == "option":
            option = param.opts[0]
        else:
            option = (param.human_readable_name if param is not None else "path").upper()
        check_output_path(value, folder=self.folder, option=option)
        if self.suffixes and Path(value).suffix.lower() not in self.suffixes:
            raise OptionError(
                f"{option} {value}: write a {', '.join(self.suffixes[:-1])} or {self.suffixes[-1]} file "
                f"(the name's ending chooses the format)"
            )
        return str(value)


#: Image formats the figures can be written in.
IMAGE = OutputPath(suffixes=(".png", ".pdf", ".svg", ".jpg", ".jpeg", ".tif", ".tiff", ".eps", ".webp"))


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` replacement: ``warning: <message>`` on one line, no source line."""
    click.echo(f"warning: {one_line(message)}", err=True)


@contextmanager
def one_line_warnings() -> Iterator[None]:
    """Print Python warnings as one clean line each while the block runs."""
    saved = warnings.showwarning
    warnings.showwarning = show_warning
    try:
        yield
    finally:
        warnings.showwarning = saved


def usage_error_line(exc: click.UsageError) -> str:
    """A click usage error (normally a usage line, a hint and the message) as one line."""
    message = one_line(exc.format_message()).rstrip(".")
    message = message[:1].lower() + message[1:]
    if exc.ctx is not None:
        message += f"; see '{exc.ctx.command_path} --help'"
    return f"error: {message}"


def library_error_line(exc: BaseException) -> str | None:
    """The one-line message of an error that bad input or the environment, not the code, causes (a
    library error a reader let through); ``None`` for every other exception."""
    if isinstance(exc, MemoryError):
        return "error: out of memory; use a smaller input or smaller sizes"
    if isinstance(exc, UnicodeDecodeError):
        return f"error: an input file is not valid UTF-8 (byte {exc.start}); save it as UTF-8"
    sqlite3 = sys.modules.get("sqlite3")  # never imported: the error is not one of its (a lean --help)
    if sqlite3 is not None and isinstance(exc, sqlite3.DatabaseError):
        return f"error: an SQLite database is damaged or not a database ({one_line(exc)}); check the path"
    if type(exc).__module__.startswith("pandas") and type(exc).__name__ in ("EmptyDataError", "ParserError"):
        return f"error: an input table is empty or malformed ({one_line(exc)}); check the file"
    if isinstance(exc, OSError):
        reason = exc.strerror or one_line(exc) or type(exc).__name__
        name = f"{exc.filename}: " if exc.filename else ""
        return f"error: {name}{reason}; check the path, its permissions and free disk space"
    return None


def check_design(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: load the design a path names now, so that a bad design fails before any work."""
    if value is not None:
        from humaneval.forms.write import load_design

        load_design(value)
    return value


def check_preset(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: resolve a forms preset (built-in name or file) now, before any work."""
    if value is not None:
        from humaneval.forms.presets import get_preset

        get_preset(value)
    return value


def money(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: a positive amount with at most two decimals (e.g. ``1.80``), as given."""
    if value is None:
        return None
    option = param.opts[0] if getattr(param, "opts", None) else param.human_readable_name
    try:
        amount = float(value)
    except ValueError:
        amount = float("nan")
    decimals = value.strip().partition(".")[2]
    if not amount > 0 or amount == float("inf") or len(decimals) > 2:
        raise OptionError(f"{option} {value!r}: give a positive amount with at most two decimals, e.g. 1.80")
    return value.strip()


def check_engine(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """Click callback of ``--engine``: ``r`` and ``both`` must find a working R now (checked in a
    subprocess), before any work. ``auto`` is the native engine: R is not even looked for."""
    if value == "auto":
        return "native"
    if value in ("r", "both"):
        from humaneval.clmm.rbridge import INSTALL_HINT
        from humaneval.clmm.renv import require_r

        require_r(INSTALL_HINT.replace('engine="native"', "--engine native"))
    return value


def names(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: a comma-separated list of names must name at least one."""
    if value is not None and not [part for part in value.split(",") if part.strip()]:
        option = param.opts[0] if getattr(param, "opts", None) else param.human_readable_name
        raise OptionError(f"{option} {value!r}: name at least one, separated by commas")
    return value
