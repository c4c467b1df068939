"""The R engine: ``ordinal::clmm`` (and ``emmeans`` for cross-checks) through rpy2.

This is the only module that touches rpy2 or R (docs/native-engine.md). Embedded R is started
on the first use and reused for every later fit; the R functions in ``r/clmm.R`` (shipped as
``humaneval/r``) are sourced once. Data are sent as plain integer code vectors and the ordered
response factor and the system factor are built in R with explicit levels, because a pandas
ordered Categorical with integer categories does not convert to an R ordered factor. Results come
back under ``localconverter(default_converter + pandas2ri.converter)``.

Embedded R is single-threaded and not re-entrant: calls are serialised by a lock, and parallel
work must use processes (one embedded R each).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from functools import cache
from importlib.resources import as_file, files
from typing import Any, TypedDict, TypeVar

import numpy as np
import pandas as pd

from humaneval.clmm.formula import _model_matrix, parse_formula, r_name
from humaneval.clmm.links import get_link
from humaneval.clmm.renv import require_r
from humaneval.clmm.result import Attempt, FitResult, assess
from humaneval.clmm.spec import ClmmSpec
from humaneval.clmm.structures import ClmmData, r_formula, random_terms
from humaneval.errors import BackendUnavailableError, FitFailedError, ModelSpecError

INSTALL_HINT = (
    "install R with `apt-get install r-base-core r-cran-ordinal r-cran-emmeans` and rpy2 with "
    '`pip install "humaneval[r]"`, or use engine="native"'
)
_LOCK = threading.RLock()
T = TypeVar("T")


@cache
def _start() -> Any:
    """Start embedded R, load ordinal and emmeans and source r/clmm.R; return ``robjects``.

    rpy2 prepends R's library folders to ``LD_LIBRARY_PATH`` while starting R. The running process
    has loaded its libraries by then, but every subprocess started later (a server, a dask worker)
    would resolve Python's own extension modules against Debian's libraries and fail, so the
    variable is restored.
    """
    require_r(INSTALL_HINT)  # in a subprocess: a broken R ends the process that embeds it
    saved = os.environ.get("LD_LIBRARY_PATH")
    try:
        import rpy2.robjects as robjects
    except Exception as exc:  # rpy2 missing, or R missing/broken (ImportError, OSError, RuntimeError...)
        raise BackendUnavailableError(
            f"R engine unavailable ({type(exc).__name__}: {exc}); {INSTALL_HINT}"
        ) from None
    finally:
        if saved is None:
            os.environ.pop("LD_LIBRARY_PATH", None)
        else:
            os.environ["LD_LIBRARY_PATH"] = saved
    ok = robjects.r(
        'requireNamespace("ordinal", quietly = TRUE) && requireNamespace("emmeans", quietly = TRUE)'
    )
    if not bool(ok[0]):
        raise BackendUnavailableError(f"the R packages ordinal and emmeans are not installed; {INSTALL_HINT}")
    with as_file(files("humaneval") / "r" / "clmm.R") as script:
        robjects.r["source"](str(script))
    return robjects


def r_available() -> bool:
    """Whether R with ordinal and emmeans is usable through rpy2 (starts R on the first call)."""
    try:
        with _LOCK:
            _start()
    except BackendUnavailableError:
        return False
    return True


@cache
def versions() -> dict[str, str]:
    """Versions of R, ordinal, emmeans and rpy2."""
    import rpy2

    robjects = _start()
    found = robjects.r["humaneval_versions"]()
    out = {str(k): str(v) for k, v in zip(found.names, found, strict=True)}
    out["rpy2"] = rpy2.__version__
    return out


def _call(name: str, *args: Any, **kwargs: Any) -> Any:
    """Call an R function of r/clmm.R with pandas conversion active; R errors stay R errors."""
    from rpy2.robjects import default_converter, pandas2ri
    from rpy2.robjects.conversion import localconverter

    robjects = _start()
    with _LOCK, localconverter(default_converter + pandas2ri.converter):
        result = robjects.r[name](*args, **kwargs)
        if hasattr(result, "names") and not isinstance(result, pd.DataFrame):
            return {str(k): _py(result.rx2(str(k))) for k in result.names}
        return result


def _py(value: Any) -> Any:
    """An R vector (already converted where pandas2ri applies) as a numpy array or DataFrame."""
    if isinstance(value, pd.DataFrame):
        return value
    return np.asarray(value)


def fit_r(data: ClmmData, structure: str, link: str = "logit") -> FitResult:
    """Fit one rung of the ladder with ``ordinal::clmm`` (Laplace, nlminb, flexible thresholds).

    Returns a result whose diagnostics say whether the fit failed (docs/analysis.md); raises
    :class:`~humaneval.errors.FitFailedError` only when R produced no estimates at all.
    """
    terms = random_terms(structure, data.nested)
    name_in_r = r_link(link, single_intercept=len(terms) == 1 and terms[0].covariance == "intercept")
    _start()
    from rpy2.robjects.vectors import IntVector, StrVector

    formula = r_formula(structure, data.nested, data.systems)
    out = _call(
        "humaneval_fit",
        IntVector(data.y.tolist()),
        len(data.levels),
        IntVector(data.system.tolist()),
        StrVector(list(data.systems)),
        IntVector(data.groups["annotator"].tolist()),
        IntVector(data.groups["document"].tolist()),
        formula,
        name_in_r,
    )
    if "error" in out:
        raise FitFailedError(f"R clmm failed for the {structure} model ({formula}): {out['error'][0]}")
    beta = out["beta"].astype(float)
    if beta.size != len(data.systems) - 1:
        raise FitFailedError(f"R clmm returned {beta.size} system effects for {len(data.systems)} systems")
    vcov = np.atleast_2d(out["vcov"].astype(float))
    effects = _random_effects(out["random_effects"], structure, data)
    diagnostics = assess(
        **_r_diagnostics(out),
        vcov=vcov,
        random_effects=effects,
    )
    attempt = Attempt(
        engine="r", structure=structure, seconds=diagnostics.fit_seconds, diagnostics=diagnostics
    )
    return FitResult(
        engine="r",
        structure=structure,
        link=link,
        systems=data.systems,
        response=data.response,
        levels=data.levels,
        thresholds=out["alpha"].astype(float),
        beta=beta,
        vcov=vcov,
        random_effects=effects,
        loglik=float(out["loglik"][0]),
        aic=float(out["aic"][0]),
        nobs=int(out["nobs"][0]),
        diagnostics=diagnostics,
        attempts=(attempt,),
        versions=versions(),
        formula=formula,
    )


def r_link(link: str, single_intercept: bool = False) -> str:
    """The name under which ``ordinal::clmm`` fits ``link``.

    ``ordinal::clm`` and ``ordinal::clmm`` define cloglog as F(x) = 1 − exp(−eˣ) and loglog as
    F(x) = exp(−e⁻ˣ), as the native engine does, except in the code path ``clmm`` (2022.11.16) takes
    for a model whose only random term is one random intercept (``(1 | judge)``, Laplace or
    quadrature): there it fits the other Gumbel distribution under each name (on the wine data its
    "loglog" fit has the logLik of the clm-defined cloglog model, while with two random terms or with
    random slopes the names agree; tests/r/clmm_formulas.R and tests/test_clmm_formula.py,
    tests/test_clmm_links.py). ``single_intercept`` says the model is of that kind, and the
    link's ``r_name_single_intercept`` is used.
    """
    record = get_link(link)
    return (record.r_name_single_intercept or record.r_name) if single_intercept else record.r_name


def fit_r_spec(spec: ClmmSpec, link: str = "logit", *, progress: bool = False) -> FitResult:
    """Fit a formula-built :class:`ClmmSpec` with ``ordinal::clmm`` (Laplace, nlminb).

    The model frame is sent as plain vectors with explicit factor levels (the reference first), and
    the formula as written, except that ``(x || g)`` bars, which ``clmm`` does not know, become
    ``(1 | g) + (0 + d | g)`` with numeric columns d of the term's design. ``progress`` shows the
    elapsed time on stderr while R runs. Raises :class:`FitFailedError` only when R gives no estimates.
    """
    if spec.frame is None or not spec.formula:
        raise ModelSpecError("the R engine fits specs built from a formula (clmm_spec), not from matrices")
    _start()
    from rpy2.robjects.vectors import FloatVector, ListVector, StrVector

    parsed = parse_formula(spec.formula.split(", nAGQ")[0])
    frame = spec.frame
    columns: dict[str, Any] = {}
    levels: dict[str, Any] = {}
    for col in frame.columns:
        if col == parsed.response:
            continue
        if col in spec.factors:
            factor_levels = spec.factors[col]
            columns[col] = StrVector([factor_levels[c] for c in frame[col].cat.codes])
            levels[col] = StrVector(list(factor_levels))
        elif col in parsed.columns:
            text = frame[col].astype(str)
            columns[col] = StrVector(text.tolist())
            levels[col] = StrVector(sorted(text.unique()))
        else:
            columns[col] = FloatVector(frame[col].to_numpy(dtype=float).tolist())
    columns[parsed.response] = StrVector([spec.levels[k] for k in spec.y])
    bars, dummies = [], {}
    for i, bar in enumerate(parsed.bars):
        if not bar.uncorrelated:
            bars.append(f"({bar.expr} | {bar.group})")
            continue
        mm = _model_matrix(bar.expr, frame, frame)
        for k, column in enumerate(mm.columns):
            name = r_name(column, spec.factors)
            if name == "(Intercept)":
                bars.append(f"(1 | {bar.group})")
                continue
            dummy = f"re{i}.{k}"
            columns[dummy] = FloatVector(np.asarray(mm[column], dtype=float).tolist())
            dummies[dummy] = name
            bars.append(f"(0 + {dummy} | {bar.group})")
    formula = f"{parsed.response} ~ {parsed.fixed} + " + " + ".join(bars)
    call = lambda: _call(  # noqa: E731
        "humaneval_fit_formula",
        ListVector(columns),
        ListVector(levels),
        parsed.response,
        StrVector(list(spec.levels)),
        formula,
        r_link(link, single_intercept=len(bars) == 1 and bars[0].startswith("(1 |")),
        spec.threshold,
    )
    out = with_progress(call, f"R clmm: {spec.formula}") if progress else call()
    if "error" in out:
        raise FitFailedError(f"R clmm failed for {formula}: {out['error'][0]}")
    names = [str(n) for n in np.atleast_1d(out["beta_names"])]
    if sorted(names) != sorted(spec.beta_names):
        raise FitFailedError(f"R clmm estimated {names}, not the columns {list(spec.beta_names)}")
    order = np.array([names.index(n) for n in spec.beta_names], dtype=int)
    alpha = np.atleast_1d(out["alpha"].astype(float))
    n_a = alpha.size
    full = np.atleast_2d(out["vcov"].astype(float))
    index = np.r_[np.arange(n_a), n_a + order]
    vcov_tb = full[np.ix_(index, index)]
    vcov = vcov_tb[n_a:, n_a:]
    beta = np.atleast_1d(out["beta"].astype(float))[order]
    effects = _formula_random_effects(out["random_effects"], spec, dummies)
    diagnostics = assess(
        **_r_diagnostics(out),
        vcov=vcov,
        random_effects=effects,
        beta=beta,
        thresholds=spec.jacobian @ alpha,
        beta_names=tuple(spec.beta_names),
    )
    return FitResult(
        engine="r",
        structure="formula",
        link=link,
        systems=(),
        response=spec.response,
        levels=tuple(spec.levels),
        thresholds=spec.jacobian @ alpha,
        beta=beta,
        vcov=vcov,
        random_effects=effects,
        loglik=float(out["loglik"][0]),
        aic=float(out["aic"][0]),
        nobs=int(out["nobs"][0]),
        diagnostics=diagnostics,
        attempts=(
            Attempt(
                engine="r", structure="formula", seconds=diagnostics.fit_seconds, diagnostics=diagnostics
            ),
        ),
        versions=versions(),
        formula=spec.formula,
        beta_names=tuple(spec.beta_names),
        threshold=spec.threshold,
        tau=alpha,
        vcov_theta_beta=vcov_tb,
        random_columns={t.factor: tuple(t.columns) for t in spec.terms},
        n_params=int(out["n_params"][0]),
        spec=spec,
    )


class _RDiagnostics(TypedDict):
    """The keyword arguments of :func:`assess` that r/clmm.R reports."""

    code: int
    message: str
    max_grad: float
    cond_h: float
    n_iter: int
    fit_seconds: float
    extra_warnings: tuple[str, ...]


def _r_diagnostics(out: dict[str, Any]) -> _RDiagnostics:
    """The convergence facts r/clmm.R reports, as keyword arguments of :func:`assess`."""
    return {
        "code": int(out["code"][0]),
        "message": str(out["message"][0]),
        "max_grad": float(out["max_grad"][0]),
        "cond_h": float(out["cond_h"][0]),
        "n_iter": int(out["n_iter"][0]),
        "fit_seconds": float(out["seconds"][0]),
        "extra_warnings": tuple(str(w) for w in np.atleast_1d(out["warnings"])),
    }


def with_progress(call: Callable[[], T], label: str) -> T:
    """Run ``call`` while a thread shows the elapsed time on stderr (R gives no progress itself).

    R is started first, so a missing or broken R is one error line, not a progress line and an error.
    """
    from tqdm import tqdm

    _start()

    done = threading.Event()

    def tick() -> None:
        with tqdm(desc=label, bar_format="{desc}: {elapsed} elapsed", leave=False) as bar:
            while not done.wait(0.5):
                bar.refresh()

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        return call()
    finally:
        done.set()
        thread.join()


def _formula_random_effects(
    frame: pd.DataFrame, spec: ClmmSpec, dummies: dict[str, str]
) -> dict[str, np.ndarray]:
    """R's VarCorr entries placed into one Ψ per grouping factor of ``spec``.

    R names a second bar of the same factor ``judge.1`` and orders the parts of ``a:b`` its own way.
    """
    by_key = {frozenset(t.factor.split(":")): t for t in spec.terms}
    out = {t.factor: np.zeros((t.size, t.size)) for t in spec.terms}
    for factor, a, b, value in zip(
        frame["factor"], frame["term_a"], frame["term_b"], frame["value"], strict=True
    ):
        name = str(factor)
        head, _, tail = name.rpartition(".")
        if head and tail.isdigit():
            name = head
        term = by_key.get(frozenset(name.split(":")))
        if term is None:
            raise FitFailedError(f"R returned a variance for {factor!r}, which the model does not have")
        i = term.columns.index(dummies.get(str(a), str(a)))
        j = term.columns.index(dummies.get(str(b), str(b)))
        out[term.factor][i, j] = float(value)
    return out


def _random_effects(frame: pd.DataFrame, structure: str, data: ClmmData) -> dict[str, np.ndarray]:
    """Assemble R's VarCorr terms into one covariance matrix per factor (intercept, then slopes).

    R names the slope terms ``system<name>`` (correlated) or ``d<i>`` (uncorrelated dummies).
    """
    n_sys = len(data.systems)
    index = {"(Intercept)": 0}
    index.update({f"system{name}": i for i, name in enumerate(data.systems[1:], 1)})
    index.update({f"d{i}": i for i in range(1, n_sys)})
    out = {}
    for term in random_terms(structure, data.nested):
        size = term.size(n_sys)
        psi = np.zeros((size, size))
        rows = frame[frame["factor"] == term.factor]
        for a, b, value in zip(rows["term_a"], rows["term_b"], rows["value"], strict=True):
            psi[index[str(a)], index[str(b)]] = float(value)
        out[term.factor] = psi
    return out


def emmeans_contrasts(adjust: str = "tukey") -> pd.DataFrame:
    """``pairs(emmeans(model, "system"), adjust=, infer=c(TRUE, TRUE))`` of the latest R fit.

    Only for cross-checking :meth:`FitResult.contrasts`, which computes the same numbers in Python.
    """
    robjects = _start()
    if not bool(robjects.r('exists("model", envir = .humaneval)')[0]):
        raise FitFailedError("no R fit in this session yet; run fit_r first")
    return _call("humaneval_emmeans_pairs", adjust)
