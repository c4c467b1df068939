"""Analysis benchmark: Python contrasts vs emmeans, and the classic tests on the reference study.

Fits the R intercept-only CLMM of the Likert coherence study once (about 8 s), then times
``FitResult.contrasts`` (spec §5.4 in Python) against ``pairs(emmeans(model, "system"))`` in the
embedded R for Tukey and unadjusted p-values, and checks they agree. Also times the four classic
tests on the 1,500 ratings. Usage: ``python benchmarks/bench_analysis.py [LIKERT.csv]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from humaneval.analysis import fit_clmm
from humaneval.analysis.classic import TESTS, classic_test
from humaneval.analysis.rbridge import emmeans_contrasts
from humaneval.ratings import load_ratings

DEFAULT = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "steen2021" / "likert_coherence_cnn_dm.csv"
)


def best_of(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(path: Path) -> None:
    ratings = load_ratings(path)
    fit = fit_clmm(ratings, engine="r", structure="intercepts")
    print(f"R intercepts fit: {fit.diagnostics.fit_seconds:.1f} s")
    for adjust in ("tukey", "none"):
        ours = best_of(lambda a=adjust: fit.contrasts(adjust=a))
        theirs = best_of(lambda a=adjust: emmeans_contrasts(a))
        gap = np.max(
            np.abs(fit.contrasts(adjust=adjust)["p_adj"].to_numpy() - emmeans_contrasts(adjust)["p.value"])
        )
        print(
            f"contrasts adjust={adjust}: ours {ours * 1e3:.1f} ms, emmeans {theirs * 1e3:.1f} ms, "
            f"ratio {theirs / ours:.1f}x, max |Δp| {gap:.1e}"
        )
    for test in TESTS:
        seconds = best_of(lambda t=test: classic_test(ratings, t, "none", seed=1), repeat=3)
        print(f"{test} (10 pairs, 300 units): {seconds * 1e3:.0f} ms")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)
