"""The mixed-effects Bradley–Terry fit: native CLMM engine against ``ordinal::clmm`` on the same ±1 design.

Two simulated pairwise studies (annotator SD 1.0): 240 comparisons of 5 systems (4 blocks × 2 documents × 3
annotators) and 900 comparisons of 4 systems (10 blocks × 5 documents × 3 annotators). The design
of :func:`humaneval.comparative.mixed.mixed_spec` (annotator and document terms, diagonal
covariances) is fitted by :func:`humaneval.clmm.fit_spec` (median of 5 runs) and by
``ordinal::clmm`` in ``Rscript`` (its ``system.time``, R's start-up excluded); the script prints
both times, their ratio and the largest |Δβ| and |Δ logLik|.
Usage: ``python benchmarks/bench_comparative_mixed.py`` (needs Rscript with the ordinal package).
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.clmm import fit_spec
from humaneval.comparative import build_judgements, mixed_design
from humaneval.comparative.mixed import mixed_spec
from humaneval.comparative.simulate import simulate_pairwise_study

R_SCRIPT = """
library(ordinal)
d <- read.csv("{path}")
d$y <- factor(d$y)
d$annotator <- factor(d$annotator); d$document <- factor(d$document)
z <- grep("^z", names(d), value = TRUE); x <- grep("^x", names(d), value = TRUE)
bars <- c(sprintf("(0 + %s | annotator)", z), sprintf("(0 + %s | document)", z))
f <- as.formula(paste("y ~", paste(x, collapse = " + "), "+", paste(bars, collapse = " + ")))
t <- system.time(fit <- clmm(f, data = d))[["elapsed"]]
cat(t, as.numeric(logLik(fit)), coef(fit)[x], "\\n")
"""


def study(name: str, table: pd.DataFrame, folder: Path) -> None:
    judgements = build_judgements(table)
    spec = mixed_spec(mixed_design(judgements), judgements.systems)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        fit = fit_spec(spec)
        times.append(time.perf_counter() - start)
    z = spec.terms[0].z
    frame = pd.DataFrame(
        {
            "annotator": spec.terms[0].codes,
            "document": spec.terms[1].codes,
            "y": spec.y,
            **{f"x{k}": spec.x[:, k] for k in range(spec.x.shape[1])},
            **{f"z{k}": z[:, k] for k in range(z.shape[1])},
        }
    )
    path = folder / f"{name}.csv"
    frame.to_csv(path, index=False)
    script = folder / f"{name}.R"
    script.write_text(R_SCRIPT.format(path=path))
    out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True, check=True).stdout.split()
    r_time, r_loglik, r_beta = float(out[0]), float(out[1]), np.array(out[2:], dtype=float)
    native = float(np.median(times))
    print(
        f"{name}: {spec.nobs} comparisons, {len(judgements.systems)} systems; native {native:.3f} s, "
        f"ordinal::clmm {r_time:.2f} s ({r_time / native:.0f}x); "
        f"max |Δβ| {np.abs(fit.beta - r_beta).max():.1e}, "
        f"|Δ logLik| {abs(fit.loglik - r_loglik):.1e}; native failed: {fit.diagnostics.failed}"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small = simulate_pairwise_study(
            [0.3, 0.1, 0.0, -0.2, -0.4], blocks=4, docs_per_block=2, annotator_sd=1.0, seed=11
        )
        study("240 judgements", small, folder)
        large = simulate_pairwise_study([0.6, 0.2, 0.0, -0.8], blocks=10, annotator_sd=1.0, seed=12)
        study("900 judgements", large, folder)


if __name__ == "__main__":
    main()
