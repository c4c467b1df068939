"""Studies others can repeat (docs/reproducibility.md): QRA's CV*, comparing a repeat with the original,
the HEDS 3.0 datasheet in the form's own JSON, and a frozen preregistration with the report's deviations.
"""

from humaneval.reproducibility.compare import RunComparison, compare_runs
from humaneval.reproducibility.heds import HEDS, heds_from_design, heds_from_report, read_heds
from humaneval.reproducibility.prereg import deviations, make_prereg, read_prereg, write_prereg
from humaneval.reproducibility.qra import CVStar, cv_star

__all__ = [
    "HEDS",
    "CVStar",
    "RunComparison",
    "compare_runs",
    "cv_star",
    "deviations",
    "heds_from_design",
    "heds_from_report",
    "make_prereg",
    "read_heds",
    "read_prereg",
    "write_prereg",
]
