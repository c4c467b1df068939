"""Analysis benchmark: Python contrasts vs emmeans, and the classic tests on the reference study.

Fits the R intercept-only CLMM of the Likert coherence study once, then times
``FitResult.contrasts`` against ``pairs(emmeans(model, "system"))`` for Tukey and unadjusted
p-values, and checks they agree. Both sides get one warm-up and the same ``--repeats`` timed calls
(CPU seconds, best and median). Ours is timed twice: *cold*, with the cached studentized-range
quantile cleared before every call (what a single analysis pays, and what emmeans pays every
time), and *warm* (repeated calls in one session). emmeans is timed through rpy2 (what
``--engine r`` costs a user, including the conversion to pandas) and inside R
(``proc.time`` around the same number of calls). Also times the four classic tests.

Usage: ``python benchmarks/bench_analysis.py [--repeats 20]`` (needs R with ordinal and emmeans,
and the reference data).
"""

from __future__ import annotations

import argparse
from functools import partial

import numpy as np
from _common import setting, shared_data, timed

from humaneval.analysis import fit_clmm
from humaneval.analysis.classic import TESTS, classic_test
from humaneval.analysis.contrasts import tukey_quantile
from humaneval.analysis.rbridge import _start, emmeans_contrasts, versions
from humaneval.core.ratings import load_ratings


def cold(fit, adjust: str):
    tukey_quantile.cache_clear()
    return fit.contrasts(adjust=adjust)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    ratings = load_ratings(shared_data("steen2021", "likert_coherence_cnn_dm.csv"))
    print(setting("rpy2"))
    print("R: " + ", ".join(f"{k} {v}" for k, v in versions().items()))
    fit = fit_clmm(ratings, engine="r", structure="intercepts")
    print(f"R intercepts fit: {fit.diagnostics.fit_seconds:.1f} s; {args.repeats} timed calls per side")
    robjects = _start()
    for adjust in ("tukey", "none"):
        ours_cold = timed(partial(cold, fit, adjust), args.repeats)
        ours_warm = timed(partial(fit.contrasts, adjust=adjust), args.repeats)
        theirs = timed(partial(emmeans_contrasts, adjust), args.repeats)
        in_r = (
            robjects.r(
                f'local({{humaneval_emmeans_pairs("{adjust}"); t <- proc.time(); '
                f'for (i in 1:{args.repeats}) humaneval_emmeans_pairs("{adjust}"); '
                "d <- proc.time() - t; d[['user.self']] + d[['sys.self']]})"
            )[0]
            / args.repeats
        )
        gap = np.max(np.abs(fit.contrasts(adjust=adjust)["p_adj"].to_numpy() - theirs.value["p.value"]))
        print(
            f"contrasts adjust={adjust}: ours cold {ours_cold.best_cpu * 1e3:.2f} ms (median "
            f"{ours_cold.median_cpu * 1e3:.2f}), warm {ours_warm.best_cpu * 1e3:.2f} ms | emmeans via rpy2 "
            f"{theirs.best_cpu * 1e3:.1f} ms (median {theirs.median_cpu * 1e3:.1f}), inside R "
            f"{in_r * 1e3:.1f} ms per call | ratio (emmeans rpy2 / ours cold) "
            f"{theirs.best_cpu / ours_cold.best_cpu:.0f}x, (inside R / ours cold) "
            f"{in_r / ours_cold.best_cpu:.0f}x | max |Δp| {gap:.1e}"
        )
    for test in TESTS:
        result = timed(partial(classic_test, ratings, test, "none", seed=1), repeats=3)
        print(f"{test} (10 pairs, 300 units): {result.best_cpu * 1e3:.0f} ms CPU")


if __name__ == "__main__":
    main()
