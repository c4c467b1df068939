"""Which evaluation of the Laplace likelihood a fit uses (all give the same numbers).

In order: :mod:`humaneval.clmm.scalar` for a single scalar random term (diagonal H),
:mod:`humaneval.clmm.sparse` for diagonal terms with mostly-zero design rows (mixed-effects
Bradley–Terry), :mod:`humaneval.clmm.blocks` for small blocks when numba is installed, else the
general path of :mod:`humaneval.clmm.laplace`. The compiled kernels (the scalar path's, the block
path, the fused link terms of the others) are used where :mod:`humaneval.clmm.compiled` expects
them to save more than they cost to load. ``HUMANEVAL_FASTPATH=0`` leaves out the scalar and block
paths (e.g. to compare); ``HUMANEVAL_FUSED=0`` keeps every path on numpy, ``HUMANEVAL_FUSED=1``
compiles every path that can be.
"""

from __future__ import annotations

import os

from humaneval.clmm import compiled, fused
from humaneval.clmm.blocks import BlockLaplaceProblem, blocks_apply
from humaneval.clmm.design import RandomDesign
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.scalar import ScalarLaplaceProblem, scalar_applies
from humaneval.clmm.sparse import SparseLaplaceProblem, sparse_applies


def laplace_problem(y, x, design: RandomDesign, link: str, n_thresholds: int) -> LaplaceProblem:
    """The :class:`~humaneval.clmm.laplace.LaplaceProblem` (or subclass) for this design and link."""
    fast = os.environ.get("HUMANEVAL_FASTPATH", "") != "0"
    fused.choose(False)
    effects = sum(t.size for t in design.terms)
    n_params = n_thresholds + x.shape[1] + sum(t.n_params for t in design.terms)
    if fast and scalar_applies(design):
        use = link == "logit" and compiled.worth(compiled.saving(len(y), effects, n_params))
        return ScalarLaplaceProblem(y, x, design, link, n_thresholds, compiled=use)
    cls: type[LaplaceProblem] = LaplaceProblem
    if sparse_applies(design):
        cls = SparseLaplaceProblem
    elif fast and blocks_apply(design, link):
        cls = BlockLaplaceProblem
    if cls is BlockLaplaceProblem:
        if not compiled.worth(compiled.saving(len(y), effects, n_params)):
            cls = LaplaceProblem
    elif (
        link == "logit"
        and len(y) >= fused.MIN_ROWS
        and compiled.worth(compiled.saving(len(y), effects, n_params, "terms"))
    ):
        fused.choose(True)
        fused.load()
    return cls(y, x, design, link, n_thresholds)
