"""Which evaluation of the Laplace likelihood a fit uses (all give the same numbers).

In order: :mod:`humaneval.clmm.scalar` for a single scalar random term (diagonal H),
:mod:`humaneval.clmm.sparse` for diagonal terms with mostly-zero design rows (mixed-effects
Bradley–Terry), :mod:`humaneval.clmm.blocks` for small blocks when numba is installed, else the
general path of :mod:`humaneval.clmm.laplace`. ``HUMANEVAL_FASTPATH=0`` leaves out the scalar and
block paths (e.g. to compare); ``HUMANEVAL_FUSED=0`` keeps every path on numpy.
"""

from __future__ import annotations

import os

from humaneval.clmm.blocks import BlockLaplaceProblem, blocks_apply
from humaneval.clmm.design import RandomDesign
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.scalar import ScalarLaplaceProblem, scalar_applies
from humaneval.clmm.sparse import SparseLaplaceProblem, sparse_applies


def laplace_problem(y, x, design: RandomDesign, link: str, n_thresholds: int) -> LaplaceProblem:
    """The :class:`~humaneval.clmm.laplace.LaplaceProblem` (or subclass) for this design and link."""
    fast = os.environ.get("HUMANEVAL_FASTPATH", "") != "0"
    if fast and scalar_applies(design):
        cls: type[LaplaceProblem] = ScalarLaplaceProblem
    elif sparse_applies(design):
        cls = SparseLaplaceProblem
    elif fast and blocks_apply(design, link, len(y)):
        cls = BlockLaplaceProblem
    else:
        cls = LaplaceProblem
    return cls(y, x, design, link, n_thresholds)
