"""When fits load the compiled kernels (humaneval.clmm.compiled): by expected saving against the load.

The rule is deterministic (sizes, not timings or history): a one-shot fit of the 1,500-rating study
stays on numpy, a large fit loads the kernels, and inside a power run (warm_kernels) every fit uses
them; what earlier fits of the process did never changes a fit's path (one table, one answer).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from humaneval.clmm import clmm_spec, compiled
from humaneval.clmm.blocks import BlockLaplaceProblem
from humaneval.clmm.fit import _likelihood
from humaneval.clmm.laplace import LaplaceProblem
from humaneval.clmm.scalar import ScalarLaplaceProblem

pytest.importorskip("numba")

DATA = Path(__file__).parent / "data"
CROSSED = "rating ~ temp + contact + (1|judge) + (1|bottle)"


@pytest.fixture
def fresh(monkeypatch):
    """A process state where no kernel has been loaded and no power run is under way."""
    monkeypatch.delenv("HUMANEVAL_FUSED", raising=False)
    monkeypatch.delenv("HUMANEVAL_FASTPATH", raising=False)
    monkeypatch.setattr(compiled, "_loaded", [False])
    monkeypatch.setattr(compiled, "_warm", [0])


@pytest.fixture(scope="module")
def wine() -> pd.DataFrame:
    return pd.read_csv(DATA / "wine.csv")


def test_a_fit_pays_its_own_load_or_runs_in_a_power_run(fresh):
    small = compiled.LOAD_SECONDS / 2.5
    assert [compiled.worth(small) for _ in range(4)] == [False] * 4  # no history: one table, one answer
    assert compiled.worth(compiled.LOAD_SECONDS)
    with compiled.warm_kernels():
        assert compiled.worth(0.0)
    assert not compiled.worth(small)


def test_a_loaded_process_decides_as_a_fresh_one_and_settings_override(fresh, monkeypatch):
    compiled.mark_loaded()
    assert not compiled.worth(0.01)
    monkeypatch.setenv("HUMANEVAL_FUSED", "0")
    assert not compiled.worth(100.0)
    with compiled.warm_kernels():
        assert not compiled.worth(100.0)
    monkeypatch.setenv("HUMANEVAL_FUSED", "1")
    assert compiled.worth(0.0)


def test_saving_grows_with_rows_effects_and_parameters():
    # the 1,500-rating study: intercepts (2 effects, 12 parameters), maximal (10 effects, 40)
    intercepts, maximal = compiled.saving(1500, 2, 12), compiled.saving(1500, 10, 40)
    assert intercepts < maximal < compiled.LOAD_SECONDS < compiled.saving(6000, 10, 40)
    assert compiled.saving(6000, 10, 40, "terms") < compiled.saving(6000, 10, 40)


def test_dispatch_by_cost(fresh, wine, monkeypatch):
    spec = clmm_spec(CROSSED, wine)
    assert type(_likelihood(spec, "logit", 1).problem) is LaplaceProblem  # 72 rows: not worth a load
    scalar = _likelihood(clmm_spec("rating ~ temp + (1|judge)", wine), "logit", 1).problem
    assert type(scalar) is ScalarLaplaceProblem and scalar._kernel is None
    assert not compiled.loaded()
    monkeypatch.setattr(compiled, "OVERHEAD", 1.0)  # as if every evaluation cost a second
    assert type(_likelihood(spec, "logit", 1).problem) is BlockLaplaceProblem
    assert _likelihood(clmm_spec("rating ~ temp + (1|judge)", wine), "logit", 1).problem._kernel is not None


def test_a_fresh_process_fits_small_studies_without_loading_numba(wine):
    """Nothing imports numba for a one-shot small fit (its load would cost more than the fit)."""
    code = (
        "import sys, pandas as pd\n"
        "from humaneval.clmm import clmm_spec, fit_spec\n"
        f"fit = fit_spec(clmm_spec({CROSSED!r}, pd.read_csv({str(DATA / 'wine.csv')!r})))\n"
        "print(round(fit.loglik, 4), 'numba' in sys.modules)\n"
    )
    env = {"PYTHONPATH": str(Path(__file__).parents[1]), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["-81.5654", "False"]  # ordinal::clmm: −81.5654
