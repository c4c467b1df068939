"""Is R usable? Checked in a subprocess before R is embedded in this one.

Embedded R that cannot start (``R_HOME`` pointing nowhere, a broken install) does not raise: R's
initialiser prints its own lines and ends the whole process. So before :mod:`rpy2` is imported,
a short-lived Python subprocess starts R, loads ``ordinal`` and ``emmeans`` and reports back;
only when that worked is R embedded here. The answer is cached for the process and passed to
child processes (workers) through the environment.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

from humaneval.errors import BackendUnavailableError

#: Seconds the probe may take (starting R and loading two packages takes about 2 s).
PROBE_TIMEOUT = 120
_OK_VARIABLE = "HUMANEVAL_R_PROBED"
_PROBE = """
import logging
logging.disable(logging.CRITICAL)
import rpy2.robjects as ro
found = ro.r('requireNamespace("ordinal", quietly = TRUE) && requireNamespace("emmeans", quietly = TRUE)')
print("ok" if bool(found[0]) else "no-packages")
"""


def _fingerprint() -> str:
    return f"ok:{os.environ.get('R_HOME', '')}:{os.environ.get('PATH', '')}"


@cache
def r_problem() -> str | None:
    """Why R cannot be used, in a few words; ``None`` when R with ordinal and emmeans works.

    Returns
    -------
    str or None
        E.g. ``"rpy2 is not installed"``, ``"R_HOME=/nonexistent is not a folder"`` or
        ``"R did not start (Fatal error: unable to open the base package)"``.

    Examples
    --------
    >>> r_problem() is None or isinstance(r_problem(), str)
    True
    """
    if os.environ.get(_OK_VARIABLE) == _fingerprint():
        return None
    if importlib.util.find_spec("rpy2") is None:
        return "rpy2 is not installed"
    r_home = os.environ.get("R_HOME")
    if r_home is not None and not Path(r_home).is_dir():
        return f"R_HOME={r_home} is not a folder"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"R did not start within {PROBE_TIMEOUT} s"
    except OSError as exc:
        return f"cannot run the R check ({exc.strerror})"
    answer = proc.stdout.strip().splitlines()[-1:] or [""]
    if proc.returncode == 0 and answer[0] == "ok":
        os.environ[_OK_VARIABLE] = _fingerprint()
        return None
    if answer[0] == "no-packages":
        return "the R packages ordinal and emmeans are not installed"
    said = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
    detail = said[-1] if said else f"exit code {proc.returncode}"
    return f"R did not start ({detail[:200]})"


def require_r(hint: str) -> None:
    """Raise :class:`BackendUnavailableError` (one line: the reason and ``hint``) unless R works."""
    problem = r_problem()
    if problem is not None:
        raise BackendUnavailableError(f"R engine unavailable: {problem}; {hint}")
