"""The one type of a ``seed`` argument across the package."""

from __future__ import annotations

import numpy as np

#: What a ``seed`` argument accepts: an integer (reproducible), a generator (used as is) or ``None``
#: (fresh entropy). The default value stays with each function.
SeedLike = int | np.random.Generator | None
