"""The response kinds of a ratings table: scores (higher is better) and ranks (lower is better).

Every layer needs to know which way a response orders systems; this module holds that fact below
the ratings table and the annotation methods, which both import it.
"""

from __future__ import annotations

from typing import Final

SCORE: Final = "score"
"""Response kind of scores: higher is better."""
RANK: Final = "rank"
"""Response kind of ranks: lower is better (1 = best)."""
RESPONSES: tuple[str, ...] = (SCORE, RANK)
"""The response kinds of a ratings table."""


def lower_is_better(response: str) -> bool:
    """Whether a response kind orders its values with lower = better (ranks).

    Parameters
    ----------
    response : str
        ``"score"`` or ``"rank"`` (:data:`RESPONSES`).

    Returns
    -------
    bool
        True for ranks, False for scores.

    Examples
    --------
    >>> lower_is_better("rank"), lower_is_better("score")
    (True, False)
    """
    return response == RANK
