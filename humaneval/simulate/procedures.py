"""The significance tests a simulation runs on each sampled study.

Classic tests (``ttest``, ``art``) run at any aggregation level; ``artagg`` is the ART on
per-block means (dissertation §3.7). The CLMM test runs the fallback ladder of
:func:`humaneval.analysis.fit_clmm`; a fit that failed or raised returns no p-values
and a status, so the caller counts it as a failure and never as p = 1. What counts as a failed
fit is a :data:`FAILURE_RULES` choice (docs/simulation.md, "Intervals, failed fits, calibration").
"""

from __future__ import annotations

import signal
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from humaneval.analysis.fit import ENGINES as FIT_ENGINES
from humaneval.analysis.fit import fit_clmm, ladder
from humaneval.clmm.structures import ClmmData
from humaneval.core.ratings import Ratings
from humaneval.errors import BackendUnavailableError, DesignError
from humaneval.stats.kernels import (
    EXACT_MAX_PAIRS,
    art_exact_pvalues,
    art_pvalues_from_signs,
    paired_t_pvalues,
    random_signs,
)

TESTS = ("ttest", "art", "artagg", "clmm")
#: What makes a CLMM fit failed: ``evidence`` — the engine's own diagnostics (for the native engine
#: cond.H of the thresholds and fixed effects, docs/native-engine.md); ``reference`` — also cond.H of
#: *all* parameters above 1e6, variance parameters included, the rule of R's ``ordinal::clmm`` runs
#: behind the reference study's power files (Steen & Markert 2021).
FAILURE_RULES = ("evidence", "reference")
#: The CLMM engines of ``humaneval power --engine``: one engine per replicate (no ``both``; ``auto``
#: of the fitter is ``native``).
ENGINES = tuple(e for e in FIT_ENGINES if e not in ("both", "auto"))


@dataclass(frozen=True)
class Procedure:
    """One test at one aggregation level, e.g. ``ttest`` on per-document means."""

    test: str
    aggregate: str

    @property
    def name(self) -> str:
        return f"{self.test}:{self.aggregate}"


def expand_procedures(tests: tuple[str, ...], aggregates: tuple[str, ...]) -> tuple[Procedure, ...]:
    """Expand test names: ``ttest``/``art`` at every level of ``aggregates``, ``artagg`` on
    clusters, ``clmm`` on the judgements."""
    keys: list[Procedure] = []
    for test in tests:
        if test not in TESTS:
            raise DesignError(f"unknown test {test!r}; use any of {', '.join(TESTS)}")
        if test in ("ttest", "art"):
            keys += [Procedure(test, level) for level in aggregates]
        else:
            keys.append(Procedure(test, "cluster" if test == "artagg" else "none"))
    return tuple(dict.fromkeys(keys))


def classic_pvalues(
    key: Procedure, delta: np.ndarray, rng: np.random.Generator, n_permutations: int
) -> np.ndarray:
    """p-values of one classic test for every system pair; ``delta`` is ``(pairs, n)``.

    The ART is exact over all sign patterns for n ≤ :data:`EXACT_MAX_PAIRS` (so the floor
    2^(1−n) holds exactly), otherwise it uses ``n_permutations`` sign rows drawn from ``rng`` and shared
    by the pairs of the study.
    """
    if key.test == "ttest":
        return paired_t_pvalues(delta)
    if delta.shape[-1] <= EXACT_MAX_PAIRS:
        return art_exact_pvalues(delta)
    return art_pvalues_from_signs(delta, random_signs(rng, n_permutations, delta.shape[-1]))


@dataclass(frozen=True)
class ClmmOutcome:
    """What one CLMM fit gave: p and estimate per pair (None when failed), rung, timing, and cond.H
    of all parameters of the last fit (None when the fitter raised)."""

    pvalues: list[float] | None
    estimates: list[float] | None
    status: str
    rung: str | None
    seconds: float
    message: str = ""
    cond_h: float | None = None


def clmm_available(engine: str = "native") -> bool:
    """Whether the CLMM engine asked for can run: the native engine ships with the package; R must
    be installed with ordinal and emmeans."""
    if engine != "r":
        return True
    from humaneval.clmm.rbridge import r_available

    return r_available()


class FitTimeout(TimeoutError):
    """A CLMM fit ran longer than the per-fit time limit (counted as a failed fit).

    Not a :class:`~humaneval.errors.FitFailedError`, so the fallback ladder does not catch it: the
    limit bounds the whole replicate, every rung included.
    """


@contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the block with :class:`FitTimeout` after ``seconds`` (wall clock).

    Uses ``SIGALRM``, so it interrupts only in the main thread of a process (the simulator's own
    process and its worker processes); elsewhere (e.g. dask worker threads) the caller's check of
    the elapsed time after the fit still counts an overlong fit as failed.
    """
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable or seconds is None:
        yield
        return

    def expire(signum, frame):
        raise FitTimeout(f"the fit took longer than the time limit of {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)


def failure_reasons(diagnostics, rule: str = "evidence") -> tuple[str, ...]:
    """Why a fit counts as failed under ``rule`` (one of :data:`FAILURE_RULES`); empty if it does not.

    ``evidence`` takes the fit's own :attr:`~humaneval.clmm.result.Diagnostics.reasons`.
    ``reference`` adds R's rule: cond.H of the Hessian of all free parameters (variance parameters
    included, ``Diagnostics.cond_h``) above ``cond_tol`` (1e6). The native engine reports that cond.H
    as R does, so the reference convention can be reproduced without R; for R fits both rules agree.
    """
    reasons = tuple(diagnostics.reasons)
    if rule == "reference" and not reasons and not diagnostics.cond_h <= diagnostics.cond_tol:
        reasons = (
            f"cond.H of all parameters {diagnostics.cond_h:.3g} > {diagnostics.cond_tol:g} "
            "(the reference study's failure rule)",
        )
    return reasons


def clmm_test(
    ratings: Ratings | ClmmData,
    systems: tuple[str, ...],
    pairs: list[tuple[int, int]],
    structure: str,
    engine: str = "native",
    link: str = "logit",
    *,
    fallback: bool = True,
    timeout: float | None = None,
    failure_rule: str = "evidence",
) -> ClmmOutcome:
    """Fit a CLMM and return unadjusted z-test p-values per pair.

    Estimates are β_a − β_b on the latent scale for each pair (a, b) of ``systems``. Errors
    raised by the fitter, fits that fail under ``failure_rule`` (:func:`failure_reasons`) and fits
    longer than ``timeout`` seconds become a ``failed`` outcome carrying the message; a missing
    engine (:class:`BackendUnavailableError`) propagates. ``fallback=False`` fits only ``structure``
    (no fallback ladder); ``rung`` is the structure whose fit was used. Under the ``reference``
    rule a fit the engine accepted but the rule fails moves down the ladder like any failed fit.
    """
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), time_limit(timeout):
            # convergence warnings are tallied through the rungs and failures, not printed per replicate
            warnings.simplefilter("ignore")
            rungs, rejected = list(ladder(structure)), []
            while True:
                fit = fit_clmm(
                    ratings,
                    engine=engine,
                    structure=rungs[0],
                    link=link,
                    reference=systems[0],
                    fallback=fallback,
                )
                reasons = failure_reasons(fit.diagnostics, failure_rule)
                rungs = rungs[rungs.index(fit.structure) + 1 :] if fit.structure in rungs else []
                if not reasons or not (fallback and rungs):
                    break
                rejected.append(f"{fit.structure}: {'; '.join(reasons)}")
    except BackendUnavailableError:
        raise
    except Exception as exc:  # any fitter error is a counted failure, never a p-value
        return ClmmOutcome(
            None, None, "failed", None, time.perf_counter() - start, f"{type(exc).__name__}: {exc}"
        )
    seconds = time.perf_counter() - start
    cond_h = float(fit.diagnostics.cond_h)
    if timeout is not None and seconds > timeout:
        return ClmmOutcome(
            None,
            None,
            "failed",
            None,
            seconds,
            f"the fit took {seconds:.1f} s, over the limit of {timeout:g} s",
        )
    if reasons:
        return ClmmOutcome(None, None, "failed", None, seconds, "; ".join([*rejected, *reasons]), cond_h)
    table = fit.contrasts(adjust="none")
    # plain dict lookups: pandas' MultiIndex .loc cost as much per replicate as a small fit's optimiser
    rows = dict(
        zip(
            zip(table["system_a"], table["system_b"], strict=True),
            zip(table["p_unadj"], table["estimate"], strict=True),
            strict=True,
        )
    )
    pvalues, estimates = [], []
    for i, j in pairs:
        a, b = systems[i], systems[j]
        (p_value, estimate), sign = (rows[(a, b)], 1.0) if (a, b) in rows else (rows[(b, a)], -1.0)
        pvalues.append(float(p_value))
        estimates.append(sign * float(estimate))
    if not np.all(np.isfinite(pvalues)):
        return ClmmOutcome(
            None, None, "failed", None, seconds, "a contrast has no finite standard error", cond_h
        )
    return ClmmOutcome(pvalues, estimates, "ok", fit.structure, seconds, "; ".join(rejected), cond_h)
