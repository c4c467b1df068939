"""Large analyses (issue 34 goal 3, issue 33 item 4): the size, model and estimate said at once,
progress, a convergence criterion that scales with the data, and a ceiling with a way forward."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

import numpy as np
import pytest

from humaneval.analysis.fit import fit_clmm
from humaneval.analysis.plan import CEILING_MINUTES, check_ceiling, plan_fit
from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm import fit_native
from humaneval.clmm.fit import _relative_gradient
from humaneval.clmm.result import REL_GRAD_TOL, Diagnostics
from humaneval.clmm.structures import ClmmData
from humaneval.errors import OptionError


def million_rows(path, n_blocks: int = 13_334) -> int:
    """A crossed-in-blocks Likert file (5 systems × 5 documents × 3 annotators per block), ≥ 10^6 rows."""
    rng = np.random.default_rng(7)
    block = np.repeat(np.arange(n_blocks), 75)
    within = np.tile(np.arange(75), n_blocks)
    annotator = block * 3 + within // 25
    document = block * 5 + (within // 5) % 5
    system = within % 5
    score = np.clip(np.round(3 + system * 0.3 + rng.normal(0, 1.2, block.size)), 1, 5).astype(int)
    rows = zip(annotator.tolist(), document.tolist(), system.tolist(), score.tolist(), strict=True)
    path.write_text(
        "annotator,document,system,score\n" + "".join(f"a{a},d{d},s{s},{y}\n" for a, d, s, y in rows)
    )
    return block.size


@pytest.mark.timeout(240)
def test_a_million_ratings_say_size_model_and_estimate_at_once(tmp_path):
    path = tmp_path / "million.csv"
    n = million_rows(path)
    assert n >= 1_000_000
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "humaneval", "analyze", str(path), "--structure", "intercepts"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    said = []
    try:
        for line in process.stderr:
            said.append(line.rstrip("\n"))
            if "estimated" in line:
                break
    finally:
        process.kill()
        process.wait()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert said[0] == f"reading {path} ({path.stat().st_size / 2**20:.0f} MiB)"
    assert said[1].startswith(
        f"{n:,} ratings (5 systems, {3 * 13_334:,} annotators, {5 * 13_334:,} documents): native CLMM, "
        "intercepts structure, 10 parameters; estimated "
    ), said
    # reading, validating and coding 10^6 rows, not the fit: a few CPU-seconds (wall time is shared)
    assert cpu < 15, (cpu, wall)


def coded(nobs: int, n_systems: int, n_annotators: int, n_documents: int) -> ClmmData:
    """Coded data of the given size (the plan needs sizes only, never the values)."""
    codes = np.zeros(nobs, dtype=np.int64)
    return ClmmData(
        y=codes % 5,
        levels=(1.0, 2.0, 3.0, 4.0, 5.0),
        system=codes,
        systems=tuple(f"s{k}" for k in range(n_systems)),
        groups={"annotator": codes, "document": codes},
        group_levels={
            "annotator": tuple(map(str, range(n_annotators))),
            "document": tuple(map(str, range(n_documents))),
        },
        response="score",
    )


def test_plan_counts_the_parameters_and_grows_linearly():
    data = coded(96_000, 5, 3_840, 6_400)
    maximal, intercepts = plan_fit(data, "maximal"), plan_fit(data, "intercepts")
    assert (maximal.n_params, intercepts.n_params) == (4 + 4 + 2 * 15, 4 + 4 + 2)
    assert intercepts.seconds < maximal.seconds
    bigger = plan_fit(coded(960_000, 5, 38_400, 64_000), "maximal")
    assert bigger.seconds == pytest.approx(10 * maximal.seconds)
    assert bigger.memory_bytes < 4 * 2**30  # goal 3: the maximal fit of 10^6 ratings within 4 GiB
    assert "960,000 ratings (5 systems, 38,400 annotators, 64,000 documents)" in bigger.line()


def test_the_ceiling_refuses_with_a_way_forward_before_any_fit():
    data = coded(2_000_000, 20, 80_000, 130_000)
    plan = plan_fit(data, "maximal")
    assert plan.minutes > CEILING_MINUTES
    with pytest.raises(OptionError) as caught:
        check_ceiling(data, plan, CEILING_MINUTES)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("the maximal CLMM of 2,000,000 ratings is estimated at")
    assert "--structure intercepts (about" in message and "--max-minutes " in message
    check_ceiling(data, plan, None)  # lifted
    start = time.process_time()
    with pytest.raises(OptionError, match="above the ceiling of 30 min"):
        fit_clmm(data, structure="maximal")
    assert time.process_time() - start < 1.0  # refused before any work


def test_relative_gradient_is_the_newton_step_in_standard_errors():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(6, 6))
    info = a @ a.T + 6 * np.eye(6)
    grad = rng.normal(size=6)
    step = np.linalg.solve(info, grad)
    se = np.sqrt(np.diag(np.linalg.inv(info)))
    assert _relative_gradient(info, grad) == pytest.approx(np.max(np.abs(step) / se), rel=1e-10)


def test_a_large_max_grad_with_a_tiny_newton_step_has_converged():
    base = dict(converged=True, code=0, message="", cond_h=10.0, n_iter=5, singular=False, fit_seconds=1.0)
    assert not Diagnostics(max_grad=0.02, rel_grad=1e-4, **base).failed
    assert Diagnostics(max_grad=0.02, rel_grad=10 * REL_GRAD_TOL, **base).reasons == (
        "max.grad 0.02 > 0.01, relative gradient 0.02",
    )
    assert Diagnostics(max_grad=0.02, **base).reasons == ("max.grad 0.02 > 0.01",)  # R: no relative gradient


def test_progress_lines_leave_the_fit_unchanged(likert_path, monkeypatch):
    from humaneval.clmm import fit as native
    from humaneval.core.ratings import load_ratings

    data = prepare_clmm_data(load_ratings(likert_path))
    quiet = fit_native(data, "intercepts")
    monkeypatch.setattr(native, "PROGRESS_SECONDS", 0.0)
    lines: list[str] = []
    loud = fit_native(data, "intercepts", progress=lines.append)
    assert lines[0].startswith("native CLMM: optimising, 1 likelihood evaluations, best logLik ")
    assert lines[-1].startswith("native CLMM: standard errors, ")
    np.testing.assert_array_equal(loud.beta, quiet.beta)
    assert quiet.diagnostics.rel_grad < 1e-3 and quiet.diagnostics.max_grad < 1e-3
