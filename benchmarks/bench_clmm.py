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
        "--cold", action="store_true", help="`humaneval analyze` in fresh processes: the first fit's CPU"
    )
    parser.add_argument(
        "--paths", action="store_true", help="CPU per evaluation, numpy vs compiled, against compiled.saving"
    )
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
    if args.cold:
        cold(args.data, args.structures.split(","), args.repeats, use_r=not args.no_r)
        return
    if args.paths:
        paths(args.data, args.repeats)
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
    """Per fit: CPU seconds against its floor, measured two ways, on the path a fit takes by default.

    The *package's* floor is the CPU of L-BFGS-B's own calls of the objective (ℓ and its analytic
    gradient, mode re-solves included) at their actual cost, re-runs from the boundary probe and the
    optimum check included. The *honest* floor counts the same calls at the cost of an evaluation
    near the optimum (the median of the optimiser's last five calls: warm modes, few Newton steps),
    which is what a fit would cost if every call were as cheap as a converged one. The rest of a fit
    is the Hessian (timed as a whole), the optimum checks' extra evaluations and everything outside
    the likelihood. Every evaluation is counted on the problem the fit dispatched to (general, block,
    scalar or sparse path). Medians of ``repeats`` fits after an untimed one (warm: the kernels the
    path uses are loaded; ``--cold`` times first fits).
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
        _counted_fit(data)  # untimed: the path's first use in the process (numba's load) is not the fit's
        for _ in range(repeats):
            fit, seconds, (calls, n_hess, objective, hessian, path) = _counted_fit(data)
            cpu, floor = seconds[1], sum(objective)
            honest = len(objective) * statistics.median(objective[-5:])
            rows.append((cpu, floor, honest, hessian, cpu / floor, cpu / honest, statistics.mean(objective)))
        cpu, floor, honest, hessian, ratio, honest_ratio, per = (
            statistics.median(c) for c in zip(*rows, strict=True)
        )
        d = fit.diagnostics
        print(
            f"{name} ({data.nobs} ratings, {fit.n_params} parameters, {path} path), median of {repeats} "
            f"fits: {cpu:.3f} s CPU = {ratio:.2f}× the package's floor {floor:.3f} s ({len(objective)} "
            f"optimiser evaluations × {per * 1000:.2f} ms; ratios {min(r[4] for r in rows):.2f}–"
            f"{max(r[4] for r in rows):.2f}) = {honest_ratio:.2f}× the honest floor {honest:.3f} s (the same "
            f"calls × {honest / len(objective) * 1000:.2f} ms near the optimum); the Hessian {hessian:.3f} s "
            f"({hessian / cpu:.0%}, {n_hess} evaluations), the rest {cpu - floor - hessian:.3f} s; "
            f"{len(calls)} evaluations in all; logLik {fit.loglik:.4f}, max.grad {d.max_grad:.1e}, "
            f"cond.H {d.cond_h:.1e}",
            flush=True,
        )


def _counted_fit(data):
    """A maximal native fit, its (wall, CPU) seconds and ``(CPU of each likelihood evaluation, how many
    of them the Hessian took, CPU of each objective call of the optimiser, CPU of the Hessian, the
    path's class name)``; evaluations are counted on the problem the fit dispatched to."""
    from humaneval.clmm import fit as fit_module

    likelihood, hessian = fit_module._likelihood, fit_module._hessian
    objective = fit_module._Likelihood.objective
    calls: list[float] = []
    marks: list[int] = []
    asked: list[float] = []
    hessian_cpu: list[float] = []
    path: list[str] = []

    def counting(*args, **kwargs):
        model = likelihood(*args, **kwargs)
        problem = fit_module._laplace(model.problem)
        original = problem.evaluate
        path.append(type(problem).__name__)

        def counted(*a, **k):
            cpu = time.process_time()
            out = original(*a, **k)
            calls.append(time.process_time() - cpu)
            return out

        problem.evaluate = counted
        return model

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

    fit_module._likelihood, fit_module._hessian = counting, marked
    fit_module._Likelihood.objective = counted_objective
    try:
        fit, seconds = _timed(fit_native, data, "maximal")
    finally:
        fit_module._likelihood, fit_module._hessian = likelihood, hessian
        fit_module._Likelihood.objective = objective
    n_hess = sum(marks[1::2]) - sum(marks[0::2])
    return fit, seconds, (calls, n_hess, asked, sum(hessian_cpu), path[-1])


COLD_RUN = """
import json, sys, time
from humaneval.clmm import fit as fit_module
fit, spent = fit_module._fit, []
def timed(*args, **kwargs):
    cpu = time.process_time()
    out = fit(*args, **kwargs)
    spent.append(time.process_time() - cpu)
    return out
fit_module._fit = timed
from humaneval.cli import main
cpu = time.process_time()
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    total = time.process_time() - cpu
    sys.stderr.write(json.dumps({"fits": spent, "command": total, "numba": "numba" in sys.modules}) + "\\n")
"""


def cold(likert: Path, structures: list[str], repeats: int, use_r: bool = True) -> None:
    """``humaneval analyze --structure S --json`` in a fresh interpreter each time: the CPU seconds of
    the fit (``_fit``, i.e. what ``fit_seconds`` times), the whole command after imports, and the
    ``fit_seconds`` the command reports (wall time: inflated on a loaded machine). With numba as
    installed, and with ``HUMANEVAL_FUSED=0`` (the paths a machine without numba takes). Medians of
    ``repeats`` processes. Then, in this process and the same run, the warm native fit (median of
    ``repeats`` after an untimed one) and one ``ordinal::clmm`` fit of the same model (R started
    beforehand), with R's CPU over the cold and the warm native fit (issue 40: ≥ 100× through the
    CLI)."""
    import json
    import os
    import subprocess
    import sys

    first: dict[str, float] = {}
    for structure in structures:
        for label, fused in (("numba installed", ""), ("without numba", "0")):
            env = {**os.environ, "HUMANEVAL_FUSED": fused}
            fit_cpu, command, reported, loaded = [], [], [], []
            for _ in range(repeats):
                argv = ["analyze", str(likert), "--structure", structure, "--json"]
                out = subprocess.run(
                    [sys.executable, "-c", COLD_RUN, *argv],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=True,
                )
                spent = json.loads(out.stderr.strip().splitlines()[-1])
                fit_cpu.append(spent["fits"][0])
                command.append(spent["command"])
                loaded.append(spent["numba"])
                criterion = json.loads(out.stdout)["criteria"][0]
                reported.append(criterion["diagnostics"]["fit_seconds"])
            first.setdefault(structure, statistics.median(fit_cpu))
            print(
                f"{structure:>10}, {label:<15}: first fit {statistics.median(fit_cpu):.3f} s CPU (runs "
                f"{', '.join(f'{c:.3f}' for c in fit_cpu)}), analyze command "
                f"{statistics.median(command):.2f} s CPU after start-up, fit_seconds (wall) "
                f"{statistics.median(reported):.3f}, numba loaded {any(loaded)}; "
                f"median of {repeats} processes",
                flush=True,
            )
    _cold_against_r(likert, structures, repeats, first, use_r)


def _cold_against_r(
    likert: Path, structures: list[str], repeats: int, first: dict[str, float], use_r: bool
) -> None:
    """The warm native fit and one R fit per structure, each against the cold first fit of :func:`cold`."""
    data = prepare_clmm_data(load_ratings(likert))
    if use_r:
        from humaneval.clmm.rbridge import fit_r, r_available

        use_r = r_available()  # starts R and loads ordinal before any clock runs
        if not use_r:
            print("R with ordinal is not available: native timings only")
    for structure in structures:
        fit_native(data, structure)  # untimed
        cpu = []
        for _ in range(repeats):
            native, seconds = _timed(fit_native, data, structure)
            cpu.append(seconds[1])
        warm = statistics.median(cpu)
        line = (
            f"{structure:>10}: warm native fit {warm:.3f} s CPU (median of {repeats}), "
            f"logLik {native.loglik:.4f}"
        )
        if use_r:
            ref, t_r = _timed(fit_r, data, structure)
            line += (
                f" | R ordinal::clmm {t_r[1]:.2f} s CPU ({t_r[0]:.1f} s wall), logLik {ref.loglik:.4f}: "
                f"R / cold CLI fit {t_r[1] / first[structure]:.0f}×, R / warm fit {t_r[1] / warm:.0f}×, "
                f"max|Δβ| {np.max(np.abs(native.beta - ref.beta)):.1e}"
            )
        print(line, flush=True)


def paths(likert: Path, repeats: int, seed: int = 2021) -> None:
    """CPU of one likelihood evaluation (ℓ and gradient, modes re-solved after a small step in β) on the
    numpy general path and on the compiled block path, median of ``repeats`` ≥ 3 after a warm-up, with
    the per-evaluation cost :mod:`humaneval.clmm.compiled` assumes for the numpy path beside it: the
    measurements its constants come from."""
    import os

    import pandas as pd
    from threadpoolctl import threadpool_limits

    from humaneval.clmm import compiled
    from humaneval.clmm.blocks import BlockLaplaceProblem
    from humaneval.clmm.design import random_design
    from humaneval.clmm.fit import _likelihood, _start_vector
    from humaneval.clmm.formula import clmm_spec
    from humaneval.clmm.laplace import LaplaceProblem
    from humaneval.clmm.structures import structure_spec

    likert_data = prepare_clmm_data(load_ratings(likert))
    wine = pd.read_csv(Path(__file__).resolve().parents[1] / "tests" / "data" / "wine.csv")
    cases = [
        ("wine, (1|judge) + (1|bottle)", clmm_spec("rating ~ temp + contact + (1|judge) + (1|bottle)", wine)),
        ("Likert intercepts", structure_spec(likert_data, "intercepts")),
        ("Likert maximal", structure_spec(likert_data, "maximal")),
    ]
    model = default_model()
    for blocks in (80, 320):
        data = prepare_clmm_data(
            sample_ratings(model, block_design(blocks, 5, 3, model.system_names, seed=seed), seed=seed)
        )
        for structure in ("intercepts", "maximal"):
            cases.append((f"simulated {structure}", structure_spec(data, structure)))
    env = os.environ.get("HUMANEVAL_FUSED")
    os.environ["HUMANEVAL_FUSED"] = "1"
    try:
        with threadpool_limits(1):
            for name, spec in cases:
                fit_model = _likelihood(spec, "logit", 1)
                tau, beta, factors = fit_model.layout.split(
                    _start_vector(spec, fit_model.layout, "logit", None)
                )
                design = random_design(spec.terms)
                per = []
                for cls in (LaplaceProblem, BlockLaplaceProblem):
                    problem = cls(spec.y, spec.x, design, "logit", spec.jacobian.shape[0])
                    problem.evaluate(spec.jacobian @ tau, beta, factors)
                    cpu = []
                    for _ in range(max(repeats, 3)):
                        start = time.process_time()
                        problem.evaluate(spec.jacobian @ tau, beta * 1.0001 + 1e-4, factors)
                        cpu.append(time.process_time() - start)
                    per.append(statistics.median(cpu))
                effects = sum(t.size for t in design.terms)
                assumed = compiled.OVERHEAD + spec.nobs * (compiled.PER_ROW + compiled.PER_EFFECT * effects)
                print(
                    f"{name:<30} {spec.nobs:>6} rows, {effects:>2} effects per row: "
                    f"numpy {per[0] * 1e3:7.2f} ms "
                    f"(assumed {assumed * 1e3:6.2f}), compiled blocks {per[1] * 1e3:7.2f} ms "
                    f"(ratio {per[1] / per[0]:.2f})",
                    flush=True,
                )
    finally:
        if env is None:
            os.environ.pop("HUMANEVAL_FUSED")
        else:
            os.environ["HUMANEVAL_FUSED"] = env


def _timed(fit, data, structure):
    """The fit and its (wall, CPU) seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = fit(data, structure)
    return result, (time.perf_counter() - wall, time.process_time() - cpu)


if __name__ == "__main__":
    main()
