"""Deprecated import path, removed in humaneval 0.2: the R engine lives in :mod:`humaneval.clmm.rbridge`."""

from humaneval.clmm.rbridge import (
    INSTALL_HINT,
    emmeans_contrasts,
    fit_r,
    fit_r_spec,
    r_available,
    r_link,
    versions,
)

__all__ = ["INSTALL_HINT", "emmeans_contrasts", "fit_r", "fit_r_spec", "r_available", "r_link", "versions"]
