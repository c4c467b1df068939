"""What a CLMM fit will cost, said before it starts, and the ceiling past which it is refused.

A fit of the native engine costs about the same CPU time per rating at every size (it is linear in
the ratings, docs/native-engine.md) and grows with the dimension of the random effects: one random
intercept per factor is cheap, ``maximal`` carries an S × S covariance per factor (S systems).
:func:`plan_fit` turns the coded data into a :class:`FitPlan` — size, model, number of parameters,
an estimate of CPU time and memory — from constants measured with ``benchmarks/bench_clmm.py
--scaling`` (benchmarks/RESULTS.md, "scale and speed"). The estimate is for one idle core;
a busy machine takes longer in wall time.

A fit whose estimate exceeds the ceiling (:data:`CEILING_MINUTES`, 30 CPU-minutes) is refused with
one line that names the cheaper structures that fit under it and the option that lifts the ceiling
(``max_minutes=None`` in the API, ``--max-minutes`` on the command line); docs/analysis.md,
"Large studies".
"""

from __future__ import annotations

from dataclasses import dataclass

from humaneval.clmm.structures import STRUCTURES, ClmmData, random_terms
from humaneval.errors import OptionError

#: Estimated CPU minutes above which a fit is refused unless the caller lifts the ceiling.
CEILING_MINUTES = 30.0
#: Fits estimated to take at least this many seconds say their plan before they start.
PLAN_SECONDS = 5.0

# CPU seconds per rating (AMD EPYC core, benchmarks/RESULTS.md "scale and speed"): a fixed part
# (reading, coding, the contrasts) plus, per random-effect term of dimension q, a + b·q^2.33 — the
# exponent from maximal fits of 6 and 20 systems (0.15–0.24 ms and 2.4 ms per rating).
_PER_RATING = 5e-6
_PER_TERM = {"intercept": 2.0e-5, "diagonal": 2.0e-5, "unstructured": 0.0}
_PER_TERM_Q = {"intercept": 0.0, "diagonal": 3.0e-6, "unstructured": 1.5e-6}
_GROWTH = {"intercept": 0.0, "diagonal": 1.0, "unstructured": 2.33}
# bytes per rating: the table, the coded data, and per term the n × q design and evaluation arrays
_BYTES_PER_RATING = 500.0
_BYTES_PER_RATING_Q = 150.0


@dataclass(frozen=True)
class FitPlan:
    """The size of a CLMM fit and what it is expected to cost (:func:`plan_fit`)."""

    nobs: int
    n_systems: int
    n_annotators: int
    n_documents: int
    structure: str
    engine: str
    n_params: int
    seconds: float
    memory_bytes: float

    @property
    def minutes(self) -> float:
        return self.seconds / 60.0

    def line(self) -> str:
        """One line: size, model and estimate, e.g. for the start of ``humaneval analyze``."""
        return (
            f"{self.nobs:,} ratings ({self.n_systems} systems, {self.n_annotators:,} annotators, "
            f"{self.n_documents:,} documents): {self.engine} CLMM, {self.structure} structure, "
            f"{self.n_params} parameters; estimated {_duration(self.seconds)} CPU and "
            f"{self.memory_bytes / 2**30:.1f} GiB"
        )


def plan_fit(data: ClmmData, structure: str, engine: str = "native") -> FitPlan:
    """The :class:`FitPlan` of fitting ``structure`` to ``data`` (no fitting is done).

    Examples
    --------
    >>> from humaneval.analysis.prepare import prepare_clmm_data
    >>> from humaneval.io.datasets import wine_ratings
    >>> plan = plan_fit(prepare_clmm_data(wine_ratings()), "intercepts")
    >>> plan.nobs, plan.n_params, plan.seconds < 0.1
    (72, 9, True)
    """
    n_systems = len(data.systems)
    terms = random_terms(structure, data.nested)
    per_rating = _PER_RATING
    memory = _BYTES_PER_RATING
    n_params = data.n_categories - 1 + n_systems - 1
    for term in terms:
        q = term.size(n_systems)
        kind = term.covariance
        per_rating += _PER_TERM[kind] + _PER_TERM_Q[kind] * q ** _GROWTH[kind]
        memory += _BYTES_PER_RATING_Q * q
        n_params += q * (q + 1) // 2 if term.covariance == "unstructured" else q
    return FitPlan(
        nobs=data.nobs,
        n_systems=n_systems,
        n_annotators=len(data.group_levels.get("annotator", ())),
        n_documents=len(data.group_levels.get("document", ())),
        structure=structure,
        engine=engine,
        n_params=n_params,
        seconds=per_rating * data.nobs,
        memory_bytes=memory * data.nobs,
    )


def check_ceiling(data: ClmmData, plan: FitPlan, max_minutes: float | None) -> None:
    """Raise :class:`OptionError` (one line with a way forward) when ``plan`` exceeds ``max_minutes``."""
    if max_minutes is None or plan.minutes <= max_minutes:
        return
    cheaper = [
        plan_fit(data, name, plan.engine)
        for name in STRUCTURES[STRUCTURES.index(plan.structure) + 1 :]
        if name != "nested" or data.nested
    ]
    within = [p for p in cheaper if p.minutes <= max_minutes]
    forward = (
        "; fit a cheaper structure: "
        + ", ".join(f"--structure {p.structure} (about {_duration(p.seconds)})" for p in within)
        if within
        else "; analyse a random subset of annotators or documents"
    )
    raise OptionError(
        f"the {plan.structure} CLMM of {plan.nobs:,} ratings is estimated at {_duration(plan.seconds)} CPU, "
        f"above the ceiling of {max_minutes:g} min{forward}, or raise the ceiling with --max-minutes "
        f"{_raise_to(plan.minutes)} (max_minutes= in the API)"
    )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s" if seconds >= 1 else "< 1 s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _raise_to(minutes: float) -> int:
    """A round number of minutes above ``minutes``."""
    step = 10 if minutes < 120 else 60
    return int((minutes // step + 1) * step)
