"""Native CLMM engine versus R ``ordinal::clmm`` on the 1,500-rating Likert coherence study (issue 8).

Both engines fit the same rung in the same run; R is started (and ordinal/emmeans loaded) before
the clock runs, so R's time excludes start-up. Native times are the median of ``--repeats`` fits.
Prints, per structure, wall and CPU times (embedded R runs in this process, so ``process_time``
measures both engines alike and is robust to other jobs on a shared machine), the speed-ups and
the log-likelihoods (targets: ≥ 30× for ``intercepts``, ≥ 10× for ``maximal``, at equal or better
logLik).

    .venv/bin/python benchmarks/bench_clmm.py [--structures intercepts,maximal] [--repeats 5]
    [--data PATH] [--no-r]

``--shapes`` instead validates the default structure (maximal, or nested for nested designs)
against live R on simulated studies of several shapes (issue 8: logLik ≥ R − 0.05, β within 0.03,
SEs within 5 %, the same Tukey decisions); these R fits take minutes, hence not in the tests.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from humaneval.analysis.prepare import default_structure, prepare_clmm_data
from humaneval.clmm import fit_native
from humaneval.design.blocks import block_design
from humaneval.model import default_model, sample_ratings
from humaneval.ratings import load_ratings

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared/data/steen2021/likert_coherence_cnn_dm.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--structures", default="intercepts,maximal")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-r", action="store_true", help="time the native engine only")
    parser.add_argument("--shapes", action="store_true", help="validate on simulated designs instead")
    args = parser.parse_args()
    if args.shapes:
        validate_shapes()
        return

    data = prepare_clmm_data(load_ratings(args.data))
    use_r = not args.no_r
    if use_r:
        from humaneval.analysis.rbridge import fit_r, r_available

        use_r = r_available()  # starts R and loads the packages before any clock runs
        if not use_r:
            print("R with ordinal/emmeans is not available: native timings only")
    print(f"data: {args.data.name}, {data.nobs} ratings, {len(data.systems)} systems")
    for structure in args.structures.split(","):
        wall, cpu = [], []
        for _ in range(args.repeats):
            native, seconds = _timed(fit_native, data, structure)
            wall.append(seconds[0])
            cpu.append(seconds[1])
        t_native = (statistics.median(wall), statistics.median(cpu))
        line = (
            f"{structure:>12}: native {t_native[0]:7.3f} s wall, {t_native[1]:7.3f} s CPU "
            f"(median of {args.repeats}), logLik {native.loglik:.4f}, "
            f"max.grad {native.diagnostics.max_grad:.1e}"
        )
        if use_r:
            ref, t_r = _timed(fit_r, data, structure)
            line += (
                f" | R {t_r[0]:7.2f} s wall, {t_r[1]:7.2f} s CPU, logLik {ref.loglik:.4f} | speed-up "
                f"{t_r[0] / t_native[0]:6.1f}x wall, {t_r[1] / t_native[1]:6.1f}x CPU, "
                f"ΔlogLik (native − R) {native.loglik - ref.loglik:+.4f}, "
                f"max|Δβ| {np.max(np.abs(native.beta - ref.beta)):.2e}, "
                f"max SE ratio {np.max(np.abs(native.se / ref.se - 1)):.2%}"
            )
        print(line, flush=True)


SHAPES = {  # name: (blocks, documents per block, annotators per block, share of cells dropped)
    "nested": (30, 4, 1, 0.0),
    "crossed in blocks": (6, 5, 3, 0.0),
    "fully crossed": (1, 20, 4, 0.0),
    "unbalanced, missing cells": (6, 5, 3, 0.25),
}


def validate_shapes(seed: int = 2021) -> None:
    """Default-structure fits of both engines on simulated studies from the published model."""
    from humaneval.analysis.rbridge import fit_r

    model = default_model()
    for name, (blocks, docs, annotators, drop) in SHAPES.items():
        design = block_design(blocks, docs, annotators, model.system_names, seed=seed)
        if drop:
            design = design[np.random.default_rng(seed).random(len(design)) >= drop]
        data = prepare_clmm_data(sample_ratings(model, design, seed=seed))
        structure = default_structure(data.nested)
        native, t_native = _timed(fit_native, data, structure)
        ref, t_r = _timed(fit_r, data, structure)
        same = (native.contrasts("tukey")["p_adj"] < 0.05).tolist() == (
            ref.contrasts("tukey")["p_adj"] < 0.05
        ).tolist()
        print(
            f"{name:>26} ({data.nobs} ratings, {structure}): ΔlogLik {native.loglik - ref.loglik:+.4f}, "
            f"max|Δβ| {np.max(np.abs(native.beta - ref.beta)):.4f}, "
            f"max SE ratio {np.max(np.abs(native.se / ref.se - 1)):.2%}, same Tukey decisions {same}, "
            f"CPU native {t_native[1]:.2f} s, R {t_r[1]:.1f} s ({t_r[1] / t_native[1]:.0f}x)",
            flush=True,
        )


def _timed(fit, data, structure):
    """The fit and its (wall, CPU) seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fit(data, structure)
    return result, (time.perf_counter() - wall, time.process_time() - cpu)


if __name__ == "__main__":
    main()
