"""The CLMM with a random annotator log-scale against the maximal CLMM on the 1,500-rating study (issue 43).

Times, on the Likert coherence data of Steen & Markert (2021), the scale model the report's scale-use part
fits (``score ~ system + (1|annotator) + (1|document)``, ``scale = ~ (1|annotator)``: joint Laplace over
all random effects, Hessian by central differences of the analytic gradient), the maximal CLMM
``(1 + system|annotator) + (1|document)`` and ``clm(score ~ system + annotator, scale = ~annotator)``
(130 parameters, exact Hessian). Goal: the random-scale fit ≤ 10× the maximal CLMM's CPU time. Prints
the setting, CPU and wall times (best and median of ``--repeats`` after a warm-up), the log-likelihoods
and the ratio.

    nice .venv/bin/python benchmarks/bench_scale.py [--repeats 3]
"""

from __future__ import annotations

import argparse

import pandas as pd
from _common import setting, shared_data, timed

from humaneval.clmm import fit_spec
from humaneval.clmm.formula import clmm_spec

GOAL = 10.0
MODELS = {
    "random log-scale": ("score ~ system + (1 | annotator) + (1 | document)", "~ (1 | annotator)"),
    "maximal CLMM": ("score ~ system + (1 + system | annotator) + (1 | document)", None),
    "clm, scale = ~annotator": ("score ~ system + annotator", "~ annotator"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    data = pd.read_csv(shared_data("steen2021", "likert_coherence_cnn_dm.csv")).astype({"annotator": str})
    print(setting())
    cpu = {}
    for name, (formula, scale) in MODELS.items():
        spec = clmm_spec(formula, data, scale=scale)
        timing = timed(lambda spec=spec: fit_spec(spec), repeats=args.repeats)
        fit = timing.value
        cpu[name] = timing.median_cpu
        print(f"{name}: {timing}; logLik {fit.loglik:.3f}, max.grad {fit.diagnostics.max_grad:.1e}")
    ratio = cpu["random log-scale"] / cpu["maximal CLMM"]
    verdict = "meets" if ratio <= GOAL else "misses"
    print(f"random log-scale / maximal CLMM (median CPU): {ratio:.2f} ({verdict} the goal ≤ {GOAL:g})")


if __name__ == "__main__":
    main()
