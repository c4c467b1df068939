"""Monte-Carlo Type I error and power simulation from a CLMM (analysis specification §4, §6, §7).

- :mod:`~humaneval.simulate.kernels`: vectorised paired t-test and approximate randomisation test.
- :mod:`~humaneval.simulate.designs`: block designs as arrays, aggregation levels.
- :mod:`~humaneval.simulate.procedures`: the tests run per replicate (classic tests and the CLMM).
- :mod:`~humaneval.simulate.runner`: seeded replicates on processes or dask, JSONL checkpoint.
- :mod:`~humaneval.simulate.experiment`: :func:`simulate`, :func:`type1_error`, :func:`power`, :func:`sweep`.
- :mod:`~humaneval.simulate.obspower`: the reference study's cached power p-values.
- :mod:`~humaneval.simulate.budget`: the cheapest design reaching a target power, power curves.
"""

from humaneval.simulate.designs import SimDesign
from humaneval.simulate.experiment import SimulationResult, power, simulate, sweep, type1_error
from humaneval.simulate.kernels import (
    art_exact_pvalues,
    art_pvalues,
    min_attainable_p,
    paired_t_pvalues,
)

__all__ = [
    "SimDesign",
    "SimulationResult",
    "art_exact_pvalues",
    "art_pvalues",
    "min_attainable_p",
    "paired_t_pvalues",
    "power",
    "simulate",
    "sweep",
    "type1_error",
]
