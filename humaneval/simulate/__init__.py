"""Monte-Carlo Type I error and power simulation from a CLMM (docs/simulation.md).

- :mod:`~humaneval.simulate.kernels`: vectorised paired t-test and approximate randomisation test.
- :mod:`~humaneval.simulate.designs`: block designs as arrays, aggregation levels.
- :mod:`~humaneval.simulate.procedures`: the tests run per replicate (classic tests and the CLMM).
- :mod:`humaneval.stats.replicates` (below both this package and :mod:`humaneval.comparative`): seeded
  replicates on processes or dask, JSONL checkpoint.
- :mod:`~humaneval.simulate.experiment`: :func:`simulate`, :func:`type1_error`, :func:`power`, :func:`sweep`.
- :mod:`~humaneval.simulate.obspower`: the reference study's cached power p-values.
- :mod:`~humaneval.simulate.budget`: the cheapest design reaching a target power, power curves.
- :mod:`~humaneval.simulate.table_design`: a planned design table simulated row by row.
- :mod:`~humaneval.simulate.pilot`, :mod:`~humaneval.simulate.effects`, :mod:`~humaneval.simulate.study`:
  a model from pilot ratings, smallest effects of interest, the model and design of one's own study.
- :mod:`~humaneval.simulate.curve`: power curves along blocks, documents or annotators.
"""

from humaneval.simulate.budget import BudgetPlan, CostModel, plan_budget
from humaneval.simulate.curve import PowerCurve, power_curve
from humaneval.simulate.designs import SimDesign
from humaneval.simulate.experiment import SimulationResult, power, simulate, sweep, type1_error
from humaneval.simulate.pilot import PilotModel, pilot_model
from humaneval.simulate.study import StudySetup, plan_study
from humaneval.simulate.table_design import TableDesign, read_design_table
from humaneval.stats.kernels import art_exact_pvalues, art_pvalues, min_attainable_p, paired_t_pvalues

__all__ = [
    "BudgetPlan",
    "CostModel",
    "PilotModel",
    "PowerCurve",
    "SimDesign",
    "SimulationResult",
    "StudySetup",
    "TableDesign",
    "art_exact_pvalues",
    "art_pvalues",
    "min_attainable_p",
    "paired_t_pvalues",
    "pilot_model",
    "plan_budget",
    "plan_study",
    "power",
    "power_curve",
    "read_design_table",
    "simulate",
    "sweep",
    "type1_error",
]
