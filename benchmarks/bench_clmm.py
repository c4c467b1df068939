"""Native CLMM engine versus R ``ordinal::clmm`` on the 1,500-rating Likert coherence study (issue 8).

Both engines fit the same rung in the same run; R is started (and ordinal/emmeans loaded) before
the clock runs, so R's time excludes start-up. Native times are the median of ``--repeats`` fits.
Prints, per structure, wall and CPU times (embedded R runs in this process, so ``process_time``
measures both engines alike and is robust to other jobs on a shared machine), the speed-ups and
the log-likelihoods (targets: ≥ 30× for ``intercepts``, ≥ 10× for ``maximal``, at equal or better
logLik).

    .venv/bin/python benchmarks/bench_clmm.py [--structures intercepts,maximal] [--repeats 5]
    [--data PATH] [--no-r]

``--formulas`` times native against R per formula (issue 16: wine, soup, the Likert study with a
position covariate, the maximal model written as a formula; target ≥ 100× at equal logLik) and
``--scaling`` times the native maximal fit on simulated studies of 1.5k … 96k ratings (target: 96k in
< 30 s, time linear in ratings). ``--breakdown`` (issue 25) counts the likelihood evaluations of one
maximal fit (optimiser and Hessian) and their mean CPU cost, on the Likert study and on simulated
20×5×3 studies with 6 and 20 systems (``--cases``), and the fit's CPU against its floor (issue 34).
``--shapes`` instead validates the default structure (maximal, or nested for nested designs) against
live R on simulated studies of several shapes (issue 8: logLik ≥ R − 0.05, β within 0.03, SEs within
5 %, the same Tukey decisions); these R fits take minutes, hence not in the tests. The reference data
come from ``shared/data`` next to the repository (or ``$HUMANEVAL_SHARED``); without them the
data-bound modes stop with one line instead of guessing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from _common import setting, shared_data

from humaneval.analysis.prepare import default_structure, prepare_clmm_data
from humaneval.clmm import fit_native
from humaneval.clmm.model import default_model, sample_ratings
from humaneval.core.ratings import load_ratings
from humaneval.design.blocks import block_design


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="ratings CSV (default: the reference Likert study in shared/data)",
    )
    parser.add_argument("--structures", default="intercepts,maximal")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-r", action="store_true", help="time the native engine only")
    parser.add_argument("--shapes", action="store_true", help="validate on simulated designs instead")
    parser.add_argument("--formulas", action="store_true", help="native vs R per formula")
    parser.add_argument("--scaling", action="store_true", help="native maximal fit at 1.5k … 96k ratings")
    parser.add_argument("--sizes", default="1500,6000,24000,96000", help="ratings for --scaling")
    parser.add_argument("--breakdown", action="store_true", help="fit cost against its evaluation floor")
    parser.add_argument(
        "--cases", default="likert,6,20", help="--breakdown fits: likert, 6 and/or 20 systems"
    )
    args = parser.parse_args()
    print(setting(), flush=True)
    if args.shapes:
        validate_shapes()
        return
    if args.scaling:
        scaling([int(n) for n in args.sizes.split(",")])
        return
    if args.data is None:
        args.data = shared_data("steen2021", "likert_coherence_cnn_dm.csv")
    if args.breakdown:
        breakdown(args.data, cases=args.cases, repeats=args.repeats)
        return
    if args.formulas:
        compare_formulas(args.data, args.repeats, use_r=not args.no_r)
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


TESTS = Path(__file__).resolve().parents[1] / "tests" / "data"


def formula_cases(likert: Path) -> list[tuple[str, str, object]]:
    """(data name, formula, data frame) of the issue-16 benchmark."""
    import pandas as pd

    wine = pd.read_csv(TESTS / "wine.csv")
    soup = pd.read_csv(TESTS / "soup.csv").assign(DAY=lambda d: d["DAY"].astype(str))
    cases = [
        ("wine", "rating ~ temp + contact + (1|judge)", wine),
        ("wine", "rating ~ temp * contact + (1|judge)", wine),
        ("wine", "rating ~ temp + contact + (1 + temp|judge)", wine),
        ("wine", "rating ~ temp + contact + (1|judge) + (1|bottle)", wine),
        ("soup", "SURENESS ~ PROD + (1|RESP) + (1|RESP:PROD)", soup),
        ("soup", "SURENESS ~ PROD + DAY + (1|RESP/PROD)", soup),
    ]
    frame = pd.read_csv(likert)
    frame["position"] = frame.groupby("annotator").cumcount() / 10
    cases += [
        ("likert", "score ~ system + position + (1|annotator) + (1|document)", frame),
        ("likert", "score ~ system + (1 + system|annotator) + (1 + system|document)", frame),
    ]
    return cases


def compare_formulas(likert: Path, repeats: int, use_r: bool = True) -> None:
    """Native vs R per formula: CPU seconds (median of ``repeats`` native fits), logLik, speed-up."""
    from humaneval.clmm import clmm_spec, fit_spec

    if use_r:
        from humaneval.clmm.rbridge import fit_r_spec, r_available

        use_r = r_available()
    for name, formula, frame in formula_cases(likert):
        spec = clmm_spec(formula, frame, reference={"system": "BART"} if "system" in formula else None)
        cpu = []
        for _ in range(repeats):
            native, seconds = _timed(lambda s, _: fit_spec(s), spec, None)
            cpu.append(seconds[1])
        line = (
            f"{name:>7} {formula:<66} native {statistics.median(cpu):7.3f} s CPU, logLik {native.loglik:.4f}"
        )
        if use_r:
            ref, t_r = _timed(lambda s, _: fit_r_spec(s), spec, None)
            ratio = t_r[1] / statistics.median(cpu)
            d_beta = np.max(np.abs(native.beta - ref.beta))
            line += (
                f" | R {t_r[1]:7.2f} s CPU, logLik {ref.loglik:.4f} | {ratio:6.0f}x, "
                f"ΔlogLik {native.loglik - ref.loglik:+.1e}, max|Δβ| {d_beta:.1e}"
            )
        print(line, flush=True)


def scaling(sizes: list[int], seed: int = 2021) -> None:
    """Native maximal fits on crossed-in-blocks studies (3 annotators × 5 documents per block)."""
    model = default_model()
    base = None
    for n in sizes:
        blocks = max(1, n // (5 * 3 * len(model.system_names)))
        design = block_design(blocks, 5, 3, model.system_names, seed=seed)
        data = prepare_clmm_data(sample_ratings(model, design, seed=seed))
        fit, seconds = _timed(fit_native, data, "maximal")
        per = seconds[1] / data.nobs * 1000
        base = base or per
        print(
            f"{data.nobs:>7} ratings ({blocks} blocks): {seconds[0]:6.2f} s wall, {seconds[1]:6.2f} s CPU, "
            f"{per:.3f} ms CPU per rating ({per / base:.2f}× the smallest), logLik {fit.loglik:.2f}, "
            f"max.grad {fit.diagnostics.max_grad:.1e}",
            flush=True,
        )


def systems_model(n_systems: int):
    """The published model widened to ``n_systems`` systems (effects spread over the published range;
    Ψ of each factor: the published intercept variance, slopes with its mean slope variance and
    correlation 0.5)."""
    from humaneval.clmm.model import OrdinalModel

    base = default_model()
    beta = np.r_[0.0, np.linspace(-1.0, 1.0, n_systems - 1)]
    effects = {}
    for factor, psi in base.random_effects.items():
        slope = float(np.mean(np.diag(psi)[1:]))
        sd = np.sqrt(np.r_[psi[0, 0], np.full(n_systems - 1, slope)])
        corr = np.full((n_systems, n_systems), 0.5) + 0.5 * np.eye(n_systems)
        effects[factor] = corr * np.outer(sd, sd)
    names = tuple(f"S{k:02d}" for k in range(n_systems))
    return OrdinalModel(names, beta, base.thresholds, effects, base.link)


def breakdown(likert: Path, seed: int = 2021, cases: str = "likert,6,20", repeats: int = 1) -> None:
    """Per fit: CPU seconds against its floor, the CPU of the evaluations the optimiser asks for.

    The floor is the CPU of L-BFGS-B's own calls of the objective (ℓ and its analytic gradient,
    mode re-solves included); the rest of a fit is the Hessian (timed as a whole), the optimum
    checks' extra evaluations and everything outside the likelihood. The former figure (issue 25)
    counted every likelihood evaluation outside the Hessian × the mean cost of all evaluations (so
    that cheaper Hessian columns lowered the floor as well); it is printed too, for comparison with
    older RESULTS.md entries. Medians of ``repeats`` fits.
    """
    wanted = cases.split(",")
    runs = []
    if "likert" in wanted:
        runs.append(("Likert maximal, 1,500 ratings", prepare_clmm_data(load_ratings(likert))))
    for n_sys in (6, 20):
        if str(n_sys) not in wanted:
            continue
        model = systems_model(n_sys) if n_sys != 6 else default_model()
        design = block_design(20, 5, 3, model.system_names, seed=seed)
        data = prepare_clmm_data(sample_ratings(model, design, seed=seed))
        runs.append((f"simulated 20×5×3, {n_sys} systems", data))
    for name, data in runs:
        rows = []
        for _ in range(repeats):
            fit, seconds, (calls, n_hess, objective, hessian) = _counted_fit(data)
            cpu, floor = seconds[1], sum(objective)
            old_floor = (len(calls) - n_hess) * statistics.mean(calls)
            rows.append((cpu, floor, hessian, cpu / floor, cpu / old_floor, statistics.mean(objective)))
        cpu, floor, hessian, ratio, old_ratio, per = (statistics.median(c) for c in zip(*rows, strict=True))
        d = fit.diagnostics
        print(
            f"{name} ({data.nobs} ratings, {fit.n_params} parameters), median of {repeats} fits: {cpu:.3f} s "
            f"CPU = {ratio:.2f}× the floor {floor:.3f} s ({len(objective)} optimiser evaluations × "
            f"{per * 1000:.2f} ms; ratios {min(r[3] for r in rows):.2f}–{max(r[3] for r in rows):.2f}); the "
            f"Hessian {hessian:.3f} s ({hessian / cpu:.0%}), the rest {cpu - floor - hessian:.3f} s; former "
            f"measure {old_ratio:.2f}× ({len(calls)} evaluations, {n_hess} in the Hessian); "
            f"logLik {fit.loglik:.4f}, max.grad {d.max_grad:.1e}, cond.H {d.cond_h:.1e}",
            flush=True,
        )


def _counted_fit(data):
    """A maximal native fit, its (wall, CPU) seconds and ``(CPU of each likelihood evaluation, how many
    of them the Hessian took, CPU of each objective call of the optimiser, CPU of the Hessian)``."""
    from humaneval.clmm import fit as fit_module
    from humaneval.clmm import laplace

    original, hessian = laplace.LaplaceProblem.evaluate, fit_module._hessian
    objective = fit_module._Likelihood.objective
    calls: list[float] = []
    marks: list[int] = []
    asked: list[float] = []
    hessian_cpu: list[float] = []

    def counted(self, *args, **kwargs):
        cpu = time.process_time()
        out = original(self, *args, **kwargs)
        calls.append(time.process_time() - cpu)
        return out

    def counted_objective(self, z):
        cpu = time.process_time()
        out = objective(self, z)
        asked.append(time.process_time() - cpu)
        return out

    def marked(*args, **kwargs):
        marks.append(len(calls))
        cpu = time.process_time()
        out = hessian(*args, **kwargs)
        hessian_cpu.append(time.process_time() - cpu)
        marks.append(len(calls))
        return out

    laplace.LaplaceProblem.evaluate, fit_module._hessian = counted, marked
    fit_module._Likelihood.objective = counted_objective
    try:
        fit, seconds = _timed(fit_native, data, "maximal")
    finally:
        laplace.LaplaceProblem.evaluate, fit_module._hessian = original, hessian
        fit_module._Likelihood.objective = objective
    n_hess = sum(marks[1::2]) - sum(marks[0::2])
    return fit, seconds, (calls, n_hess, asked, sum(hessian_cpu))


def _timed(fit, data, structure):
    """The fit and its (wall, CPU) seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fit(data, structure)
    return result, (time.perf_counter() - wall, time.process_time() - cpu)


if __name__ == "__main__":
    main()
