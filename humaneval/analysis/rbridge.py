"""The R engine (moved to :mod:`humaneval.clmm.rbridge`; re-exported for compatibility)."""

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
