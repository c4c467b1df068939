"""Deprecated aliases of renamed parameters and command-line options (removed in :data:`REMOVED_IN`).

:func:`renamed` maps an old keyword of a function to its new name with a :class:`DeprecationWarning`
(shown by default in scripts and notebooks, where the old name is written);
:func:`renamed_option` keeps an old command-line option as a hidden alias that prints one
deprecation line on stderr. Giving both the old and the new name is an :class:`OptionError`.
The names themselves are listed in docs/vocabulary.md.

:func:`caller_stacklevel` is the ``stacklevel`` that makes a warning point at the first line outside
the package, however many package frames (such as these wrappers) lie between.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from humaneval.errors import OptionError

F = TypeVar("F", bound=Callable[..., Any])

#: The release that removes every deprecated name, option and import path.
REMOVED_IN = "0.2"
_PACKAGE = str(Path(__file__).resolve().parent.parent) + "/"


def caller_stacklevel() -> int:
    """``stacklevel`` for :func:`warnings.warn` that points at the first frame outside the package.

    Call it in the argument list of ``warnings.warn`` (``stacklevel=caller_stacklevel()``): a warning
    raised deep inside ``analyze()`` then names the user's line, not a package function or the
    deprecation wrapper around it.

    Examples
    --------
    >>> def inner():
    ...     return caller_stacklevel()
    >>> inner()  # called from here, outside the package: the caller of inner() is level 1
    1
    """
    frame = inspect.currentframe()
    frame = frame.f_back if frame is not None else None  # the function that warns: level 1
    level = 1
    while frame is not None and _in_package(frame):
        frame = frame.f_back
        level += 1
    return level


def _in_package(frame: Any) -> bool:
    """A frame of the package's code, or the ``__init__`` a dataclass of the package generated (its
    code has no file, but it runs ``__post_init__`` from the package)."""
    code = frame.f_code
    if code.co_filename.startswith(_PACKAGE):
        return True
    return code.co_filename == "<string>" and code.co_name == "__init__" and _defines_in_package(frame)


def _defines_in_package(frame: Any) -> bool:
    self = frame.f_locals.get("self")
    module = type(self).__module__ if self is not None else ""
    return module == "humaneval" or module.startswith("humaneval.")


def renamed(**old_to_new: str) -> Callable[[F], F]:
    """Accept the old keyword names of a function's renamed parameters for one more release.

    Parameters
    ----------
    **old_to_new
        ``old="new"`` for each renamed keyword.

    Returns
    -------
    callable
        A decorator. A call with ``old=`` warns (:class:`DeprecationWarning`, naming the new keyword)
        and passes the value as ``new=``; a call with both raises :class:`OptionError`.

    Examples
    --------
    >>> @renamed(level="confidence_level")
    ... def interval(x, *, confidence_level=0.95):
    ...     return confidence_level
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     interval(1, level=0.9)
    0.9
    """

    def decorator(func: F) -> F:
        name = func.__name__ if "<locals>" in func.__qualname__ else func.__qualname__
        name = name.removesuffix(".__init__")

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in old_to_new.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise OptionError(
                        f"{name}() got both {old}= and {new}=; use {new}= only ({old}= is deprecated)"
                    )
                warnings.warn(
                    f"{name}(): {old}= is deprecated and will be removed in humaneval {REMOVED_IN}; "
                    f"use {new}=",
                    DeprecationWarning,
                    stacklevel=caller_stacklevel(),
                )
                kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        wrapper.__renamed__ = dict(old_to_new)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorator


def renamed_option(old: str, new: str, dest: str | None = None, **option: Any) -> Callable[[F], F]:
    """Keep the command-line option ``old`` as a hidden, deprecated alias of ``new``.

    Parameters
    ----------
    old, new
        The option names, e.g. ``"--level"`` and ``"--confidence-level"``.
    dest
        The parameter name of ``new`` in the command function (default: derived from ``new``).
    **option
        Further :func:`click.option` arguments of the alias (``type``, ``is_flag``, ...).

    Returns
    -------
    callable
        A decorator for a click command (place it above ``@click.command()``'s other options).
        Using ``old`` prints ``warning: OLD is deprecated; use NEW`` on stderr and sets ``new``;
        using both is an :class:`OptionError` (one line, exit code 2).
    """
    import click
    from click.core import ParameterSource

    dest = dest or new.lstrip("-").replace("-", "_")
    alias = "deprecated_" + old.lstrip("-").replace("-", "_")

    def decorator(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            value = kwargs.pop(alias, None)
            if value is not None:
                ctx = click.get_current_context()
                if ctx.get_parameter_source(dest) not in (None, ParameterSource.DEFAULT):
                    raise OptionError(f"{old} and {new} both given; use {new} only ({old} is deprecated)")
                click.echo(
                    f"warning: {old} is deprecated and will be removed in humaneval {REMOVED_IN}; use {new}",
                    err=True,
                )
                kwargs[dest] = value
            return func(*args, **kwargs)

        return click.option(old, alias, default=None, hidden=True, **option)(wrapper)  # type: ignore[return-value]

    return decorator


def renamed_attribute(old: str, new: str) -> property:
    """A read-only attribute ``old`` of a result class that returns ``new`` with a deprecation warning.

    Examples
    --------
    >>> class Result:
    ...     confidence_level = 0.95
    ...     confidence = renamed_attribute("confidence", "confidence_level")
    """

    def get(self: Any) -> Any:
        warnings.warn(
            f"{type(self).__name__}.{old} is deprecated and will be removed in humaneval {REMOVED_IN}; "
            f"use .{new}",
            DeprecationWarning,
            stacklevel=caller_stacklevel(),
        )
        return getattr(self, new)

    return property(get, doc=f"Deprecated alias of :attr:`{new}`.")
