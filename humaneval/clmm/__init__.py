"""Native CLMM engine: the models of ``ordinal::clmm`` fitted by Laplace in numpy/scipy (issue 8).

:func:`fit_native` fits one rung of the ladder (spec §5.5) to :class:`~humaneval.analysis.ClmmData`
and returns the same :class:`~humaneval.analysis.FitResult` as the R bridge, with
``engine="native"``. See ``docs/native-engine.md``.
"""

from humaneval.clmm.fit import fit_native

__all__ = ["fit_native"]
