"""Type I error and power experiments from a CLMM (docs/simulation.md).

Each replicate samples one study from the model for the design (:func:`humaneval.clmm.model.sample_scores`)
and runs every requested test on every system pair. A pair is *detected* when p < α **and** the
estimated direction matches the true one; significant results in the wrong direction are sign
errors, never power. Under the null (all β equal) every significant pair is a Type I error. Rates
carry the conservative Monte-Carlo SE √(p(1−p)/n) with n = trials. Failed CLMM fits are
counted: ``rate`` treats them by the ``failed_fits`` convention, ``rate_successful`` excludes them;
what counts as failed is the ``failure_rule``.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.analysis.fit import ENGINES
from humaneval.analysis.prepare import prepare_clmm_data
from humaneval.clmm.compiled import warm_kernels
from humaneval.clmm.model import OrdinalModel, default_model, sample_scores
from humaneval.clmm.structures import STRUCTURES, ClmmData, default_structure
from humaneval.core.deprecation import renamed, renamed_attribute
from humaneval.core.docstrings import shared_docs
from humaneval.errors import BackendUnavailableError, DesignError, ModelSpecError
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt, fmt_estimate_ci
from humaneval.present.printable import Printable, frame_table
from humaneval.simulate.designs import SimDesign, pair_differences, system_pairs
from humaneval.simulate.procedures import (
    FAILURE_RULES,
    Procedure,
    classic_pvalues,
    clmm_test,
    expand_procedures,
)
from humaneval.simulate.table_design import TableDesign, clmm_data
from humaneval.stats.kernels import AGGREGATES
from humaneval.stats.proportions import CALIBRATION_RANGE, calibration_warnings, clopper_pearson
from humaneval.stats.replicates import Record, replicate_seed, run_replicates

#: How a replicate whose CLMM fit failed counts (see :func:`simulate`).
FAILED_FITS = ("rescue", "miss", "exclude")
#: Largest working memory one replicate may need (the sampler holds rows × categories floats).
MAX_REPLICATE_BYTES = 2**30


@dataclass(frozen=True, eq=False)
class SimulationConfig:
    """Everything that determines the replicates of one experiment (picklable, sent to workers)."""

    model: OrdinalModel
    design: SimDesign | TableDesign
    procedures: tuple[Procedure, ...]
    seed: int = 1
    n_permutations: int = 1000
    alpha: float = 0.05
    null: bool = False
    requested_structure: str = "auto"
    clmm_engine: str = "native"
    failed_fits: str = "rescue"
    fallback: bool = True
    fit_timeout: float | None = None
    failure_rule: str = "evidence"
    token: str = field(default_factory=lambda: uuid.uuid4().hex)

    rounds = renamed_attribute("rounds", "n_permutations")
    clmm_structure = renamed_attribute("clmm_structure", "requested_structure")

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return system_pairs(len(self.model.system_names))

    @property
    def structure(self) -> str:
        """The structure fitted: ``requested_structure``, where ``auto`` fits ``maximal`` when A ≥ 2
        and ``nested`` when A = 1."""
        if self.requested_structure != "auto":
            return self.requested_structure
        return default_structure(self.design.family == "nested")

    def header(self) -> dict[str, Any]:
        return {
            "model": self.model.to_dict(),
            "design": self.design.to_dict(),
            "procedures": [p.name for p in self.procedures],
            "seed": self.seed,
            "n_permutations": self.n_permutations,
            "null": self.null,
            "clmm": {
                "structure": self.structure,
                "engine": self.clmm_engine,
                "failed_fits": self.failed_fits,
                "failure_rule": self.failure_rule,
                "fallback": self.fallback,
                "fit_timeout": self.fit_timeout,
            },
        }


#: The grouping factors of every simulated design (block designs and design tables alike).
SIMULATED_GROUPS = ("annotator", "document")

#: Per process: the design's codes and coded CLMM data of the configs seen (keyed by token).
_PREPARED: dict[str, tuple[np.ndarray, dict[str, tuple[np.ndarray, int]], ClmmData | None]] = {}


def _prepared(config: SimulationConfig):
    """System and group codes of the design and its CLMM template, computed once per process."""
    if config.token not in _PREPARED:
        model, design = config.model, config.design
        if isinstance(design, TableDesign):
            system, groups = design.group_codes(model.system_names)
        else:
            system, groups = design.group_codes(len(model.system_names))
        template = None
        if any(p.test == "clmm" for p in config.procedures):
            rows = design.table(model.system_names)
            dummy = 1 + (np.arange(len(rows)) % 2)
            template = prepare_clmm_data(rows.assign(score=dummy), reference=model.system_names[0])
        if len(_PREPARED) >= 8:
            _PREPARED.pop(next(iter(_PREPARED)))
        _PREPARED[config.token] = (system, groups, template)
    return _PREPARED[config.token]


def simulate_replicate(config: SimulationConfig, index: int) -> Record:
    """Sample study ``index`` and run every procedure on it (JSON-able record for the checkpoint).

    ``p`` and ``estimate`` hold per pair the p-value and the estimated difference a − b (mean
    difference for classic tests, latent β difference for the CLMM); a failed fit stores None.
    """
    with warm_kernels():  # many fits: the compiled kernels pay their load together
        return _replicate(config, index)


def _replicate(config: SimulationConfig, index: int) -> Record:
    rng = np.random.default_rng(replicate_seed(config.seed, index))
    model, design = config.model, config.design
    n_sys = len(model.system_names)
    system, groups, template = _prepared(config)
    flat = sample_scores(model, system, groups, rng)
    record: Record = {"replicate": index, "p": {}, "estimate": {}}
    for proc in config.procedures:
        if proc.test == "clmm":
            outcome = clmm_test(
                clmm_data(template, flat),
                model.system_names,
                config.pairs,
                config.structure,
                config.clmm_engine,
                model.link,
                fallback=config.fallback and config.failed_fits == "rescue",
                timeout=config.fit_timeout,
                failure_rule=config.failure_rule,
            )
            record["p"][proc.name] = outcome.pvalues
            record["estimate"][proc.name] = outcome.estimates
            record["clmm"] = {
                "status": outcome.status,
                "rung": outcome.rung,
                "seconds": round(outcome.seconds, 3),
                "message": outcome.message,
                "cond_h": outcome.cond_h,
            }
            continue
        if isinstance(design, TableDesign):
            deltas = design.pair_differences(flat, system, n_sys, proc.aggregate, config.pairs)
            record["p"][proc.name] = [
                float(classic_pvalues(proc, d[None, :], rng, config.n_permutations)[0]) for d in deltas
            ]
            record["estimate"][proc.name] = [float(d.mean()) if d.size else float("nan") for d in deltas]
            continue
        scores = flat.reshape(design.blocks, design.annotators, design.docs, n_sys)
        delta = pair_differences(scores, proc.aggregate, config.pairs, totals=True)
        record["p"][proc.name] = classic_pvalues(proc, delta, rng, config.n_permutations).tolist()
        record["estimate"][proc.name] = (delta.mean(axis=-1) / design.unit_size(proc.aggregate)).tolist()
    return record


@dataclass(frozen=True, eq=False, repr=False)
class SimulationResult(Printable):
    """Rates per test and pair of one experiment.

    ``results`` has one row per (test, aggregate, pair) plus a ``pair == "all"`` row per test:
    ``rate`` (Type I error under the null, else power = correct-direction detections, with failed
    CLMM fits counted by the ``failed_fits`` convention), its ``mc_se`` and 95 % Clopper–Pearson
    interval ``ci_low``–``ci_high``, ``n_trials`` (the denominator), ``n_failed``,
    ``rate_successful`` (failures excluded) with its SE, ``sign_error_rate`` and
    ``true_difference`` (β_a − β_b). ``rungs`` tallies the CLMM replicates per rung used and
    ``failed``. A power run may carry ``calibration``: the same tests' Type I error on the same
    design under the null model.
    """

    config: SimulationConfig
    results: pd.DataFrame
    rungs: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    calibration: SimulationResult | None = None
    #: The simulated studies' records (p-values and estimates per test and pair).
    records: tuple[Record, ...] = ()

    def overall(self) -> pd.DataFrame:
        """The ``pair == "all"`` rows, one per test and aggregation level."""
        return self.results[self.results["pair"] == "all"].reset_index(drop=True)

    def rate(self, test: str, aggregate: str | None = None, pair: str = "all") -> float:
        rows = self.results[(self.results["test"] == test) & (self.results["pair"] == pair)]
        if aggregate is not None:
            rows = rows[rows["aggregate"] == aggregate]
        if len(rows) != 1:
            raise DesignError(f"no unique result for test={test!r}, aggregate={aggregate!r}, pair={pair!r}")
        return float(rows["rate"].iloc[0])

    def calibration_warnings(self) -> list[str]:
        """One line per test whose simulated Type I error lies outside :data:`CALIBRATION_RANGE`."""
        if self.calibration is None:
            return []
        return calibration_warnings(self.calibration.overall(), self.config.alpha)

    def blocks(self, notes: Sequence[str] = ()) -> tuple[Block, ...]:
        """The rates as ``humaneval power`` prints them: one row per test and aggregation level with its
        95 % interval (and the Type I error of a calibration run), the CLMM rungs, and one line per
        ``notes`` entry and per calibration warning."""
        cfg = self.config
        kind = "Type I error" if cfg.null else "power"
        calibration = None if self.calibration is None else self.calibration.overall()
        overall = self.overall()
        rows = overall.assign(
            level=[level_label(r.test, r.aggregate) for r in overall.itertuples()],
            rate_ci=[fmt_estimate_ci(r.rate, r.ci_low, r.ci_high) for r in overall.itertuples()],
        )
        columns = ["test", "level", "rate_ci"]
        if calibration is not None:
            rows["type1"] = [fmt_estimate_ci(r.rate, r.ci_low, r.ci_high) for r in calibration.itertuples()]
            columns.append("type1")
        names = {"rate_ci": f"{kind} [95% CI]", "type1": "Type I [95% CI]"}
        said = [
            *(self._rung_lines() if self.rungs else []),
            *(f"warning: {w}" for w in self.calibration_warnings()),
        ]
        return (
            Paragraph((f"{kind} of {design_line(cfg.design)}, seed {cfg.seed}",)),
            *([Bullets(tuple((note,) for note in notes))] if notes else []),
            frame_table(rows, columns, names=names),
            *([Bullets(tuple((line,) for line in said))] if said else []),
        )

    def _rung_lines(self) -> list[str]:
        cfg = self.config
        total = sum(self.rungs.values())
        convention = {
            "rescue": "failed fits rescued down the fallback ladder; failing every rung = not significant",
            "miss": "a failed fit counts as not significant",
            "exclude": "failed fits are left out of the power",
        }[cfg.failed_fits]
        convention += {
            "evidence": "; failed = the engine's diagnostics",
            "reference": "; failed also when cond.H of all parameters > 1e6 (the reference study's rule)",
        }[cfg.failure_rule]
        lines = [
            f"CLMM fits ({total} replicates): "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.rungs.items()))
            + f"; {convention}"
        ]
        clmm = self.overall()
        clmm = clmm[clmm["test"] == "clmm"]
        if not clmm.empty and not cfg.null:
            row = clmm.iloc[0]
            shown = [
                f"{name} {fmt(row['rate_' + name])}"
                for name in ("rescue", "miss", "exclude")
                if np.isfinite(row["rate_" + name])
            ]
            lines.append("CLMM power by failed-fit convention: " + ", ".join(shown))
        if self.calibration is not None and self.calibration.rungs:
            lines.append(
                "CLMM fits under the null: "
                + ", ".join(f"{k} {v}" for k, v in sorted(self.calibration.rungs.items()))
            )
        return lines

    def brief(self) -> str:
        """The kind of run, the design, the seed and the overall rate per test (the ``repr``)."""
        cfg = self.config
        rates = ", ".join(
            f"{row.test}/{row.aggregate} {fmt(row.rate)}" for row in self.overall().itertuples()
        )
        kind = "type1" if cfg.null else "power"
        return f"{kind} of {cfg.design.label}, seed {cfg.seed}: {rates}"

    def to_dict(self) -> dict[str, Any]:
        cfg = self.config
        out = {
            "kind": "type1" if cfg.null else "power",
            "design": cfg.design.to_dict(),
            "model": cfg.model.to_dict(),
            "seed": cfg.seed,
            "alpha": cfg.alpha,
            "n_permutations": cfg.n_permutations,
            "clmm": {
                "structure": cfg.structure,
                "engine": cfg.clmm_engine,
                "failed_fits": cfg.failed_fits,
                "failure_rule": cfg.failure_rule,
                "fallback": cfg.fallback and cfg.failed_fits == "rescue",
                "fit_timeout": cfg.fit_timeout,
                "rungs": self.rungs,
            },
            "seconds": self.seconds,
            "results": self.results.to_dict(orient="records"),
        }
        if self.calibration is not None:
            out["calibration"] = {
                "range": list(CALIBRATION_RANGE),
                "results": self.calibration.overall().to_dict(orient="records"),
                "rungs": self.calibration.rungs,
                "warnings": self.calibration_warnings(),
            }
        return out


def level_label(test: str, aggregate: str) -> str:
    """The level column of ``humaneval power``: the CLMM models every judgement (it has no
    aggregation level), a classic test its aggregation level.

    Examples
    --------
    >>> level_label("clmm", "none"), level_label("ttest", "document")
    ('judgement', 'document')
    """
    return "judgement" if test == "clmm" else aggregate


def design_line(design: SimDesign | TableDesign) -> str:
    """What was simulated: the block design, or the planned table row by row."""
    if isinstance(design, TableDesign):
        return (
            f"the planned table {design.label}, simulated row by row as planned ({design.judgements():,} "
            f"judgements, {design.blocks} blocks, {design.total_annotators} annotators, "
            f"{design.total_documents} documents; {design.family})"
        )
    return f"{design.label} (B×D×A, {design.family})"


def _se(rate: float, n: int) -> float:
    return float(np.sqrt(rate * (1 - rate) / n)) if n > 0 and np.isfinite(rate) else float("nan")


def summarise(config: SimulationConfig, records: Sequence[Record], seconds: float = 0.0) -> SimulationResult:
    """Turn replicate records into rates with Monte-Carlo SEs and exact intervals (docs/simulation.md).

    Failed CLMM fits count as non-significant under ``rescue`` (after the fallback ladder) and
    ``miss``; under ``exclude`` the rate is over the successful fits only.
    """
    names = config.model.system_names
    beta = config.model.coefficients
    pairs = config.pairs
    truth = np.array([beta[i] - beta[j] for i, j in pairs])
    true_sign = np.sign(np.where(np.abs(truth) < 1e-12, 0.0, truth))
    n_trials = len(records)
    rows = []
    for proc in config.procedures:
        raw_p = [r["p"][proc.name] for r in records]
        ok = np.array([p is not None for p in raw_p])
        p = np.array([q if q is not None else [np.nan] * len(pairs) for q in raw_p], dtype=float)
        est = np.array(
            [
                e if e is not None else [np.nan] * len(pairs)
                for e in (r["estimate"][proc.name] for r in records)
            ],
            dtype=float,
        )
        significant = (p < config.alpha) & ok[:, None]
        direction = np.sign(est)
        hit = np.where(true_sign == 0, significant, significant & (direction == true_sign))
        wrong = significant & (true_sign != 0) & (direction == -true_sign)
        n_ok = int(ok.sum())
        scope = true_sign == 0 if config.null or not np.any(true_sign != 0) else true_sign != 0
        per_trial = [hit[:, scope].mean(axis=1), wrong[:, scope].mean(axis=1)]
        columns = [("all", float("nan"), per_trial[0], per_trial[1])]
        columns += [
            (f"{names[i]} - {names[j]}", truth[k], hit[:, k].astype(float), wrong[:, k].astype(float))
            for k, (i, j) in enumerate(pairs)
        ]
        exclude = config.failed_fits == "exclude" and proc.test == "clmm"
        # a replicate rescued by a lower rung is a failure under miss/exclude: all three from one run
        first = ok & np.array([r.get("clmm", {}).get("rung") in (None, config.structure) for r in records])
        walked = config.failed_fits == "rescue" and config.fallback
        for pair, diff, hits, wrongs in columns:
            rate_all = float(hits.mean())
            rate_ok = float(hits[ok].mean()) if n_ok else float("nan")
            rate, n = (rate_ok, n_ok) if exclude else (rate_all, n_trials)
            low, high = clopper_pearson(rate, n)
            conventions = {"rate_rescue": np.nan, "rate_miss": np.nan, "rate_exclude": np.nan}
            if proc.test == "clmm":
                conventions = {
                    "rate_rescue": rate_all if walked else np.nan,
                    "rate_miss": float(np.where(first, hits, 0.0).mean()),
                    "rate_exclude": float(hits[first].mean()) if first.any() else np.nan,
                }
            rows.append(
                {
                    "test": proc.test,
                    "aggregate": proc.aggregate,
                    "pair": pair,
                    "true_difference": diff,
                    "rate": rate,
                    "mc_se": _se(rate, n),
                    "ci_low": low,
                    "ci_high": high,
                    "n_trials": n,
                    "n_failed": n_trials - n_ok,
                    "rate_successful": rate_ok,
                    "mc_se_successful": _se(rate_ok, n_ok),
                    "sign_error_rate": float(wrongs.mean()),
                    **conventions,
                }
            )
    rungs = Counter(
        "failed" if r["clmm"].get("status") == "failed" else r["clmm"].get("rung") or "failed"
        for r in records
        if "clmm" in r
    )
    return SimulationResult(config, pd.DataFrame(rows), dict(rungs), seconds, records=tuple(records))


def resolve_model(model: Any) -> OrdinalModel:
    """An :class:`OrdinalModel` from itself, a fitted ``FitResult`` (``to_model()``), a JSON path,
    or None for the built-in coherence model (:func:`humaneval.clmm.model.default_model`)."""
    if model is None:
        return default_model()
    if isinstance(model, OrdinalModel):
        return model
    if hasattr(model, "to_model"):
        return model.to_model()
    return OrdinalModel.from_json(model)


@renamed(rounds="n_permutations", clmm_structure="structure")
def simulate(
    model: OrdinalModel | str | Path | None = None,
    design: SimDesign | TableDesign | str = "20x5x3",
    tests: Sequence[str] = ("ttest", "art"),
    *,
    trials: int = 1000,
    null: bool = False,
    effects: Sequence[float] | dict[str, float] | float | None = None,
    aggregates: Sequence[str] = ("none", "document"),
    seed: int = 1,
    n_permutations: int = 1000,
    alpha: float = 0.05,
    structure: str = "auto",
    clmm_engine: str = "native",
    failed_fits: str = "rescue",
    fallback: bool = True,
    fit_timeout: float | None = None,
    failure_rule: str = "evidence",
    calibrate: bool = False,
    calibration_trials: int | None = None,
    workers: int = 1,
    scheduler: str | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    progress: bool = False,
) -> SimulationResult:
    """Run a Type I error (``null=True``: all β set to 0, eq. 3.26) or power experiment.

    Parameters
    ----------
    model:
        An :class:`OrdinalModel`, a fitted ``FitResult``, a model JSON path, or None for the
        built-in coherence model.
    design:
        A :class:`SimDesign` (or ``"BxDxA"``) or a :class:`TableDesign` (a planned table, row by row).
    tests:
        Any of ``ttest``, ``art`` (run at each level of ``aggregates``), ``artagg`` (ART on block
        means) and ``clmm``.
    effects:
        Replaces β (a vector, a {system: β} mapping, or a factor scaling the model's β) for
        prospective power with a smallest effect of interest.
    n_permutations:
        Monte-Carlo sign patterns of the ART when a study has more pairs than
        :data:`~humaneval.stats.kernels.EXACT_MAX_PAIRS` (formerly ``rounds``).
    structure:
        Random-effect structure of the CLMM test (``auto``: maximal, nested when A = 1; formerly
        ``clmm_structure``).
    clmm_engine:
        ``native`` or ``r`` (:data:`~humaneval.simulate.procedures.ENGINES`).
    failed_fits:
        How a replicate whose CLMM fit failed counts: ``rescue`` (default) walks the fallback
        ladder and uses the simpler model's p-values, counting a replicate that fails on every
        rung as non-significant; ``miss`` counts a failed fit of the requested structure as
        non-significant (with ``fallback=False`` and ``failure_rule="reference"``, the reference
        study's convention); ``exclude`` leaves failed replicates
        out of the denominator (power among successful fits).
    fallback:
        ``False`` never walks the ladder (only meaningful with ``miss`` or ``exclude``).
    fit_timeout:
        Seconds one CLMM fit may take; a longer fit counts as failed.
    failure_rule:
        What makes a CLMM fit failed (:data:`~humaneval.simulate.procedures.FAILURE_RULES`):
        ``evidence`` (default) the engine's own diagnostics; ``reference`` also fails a fit whose
        cond.H over all parameters, variance parameters included, exceeds 1e6 — R's rule in the
        reference study. ``failed_fits="miss", fallback=False, failure_rule="reference"`` is that
        study's power convention.
    calibrate:
        For a power run, also simulate the same tests on the same design under the null model
        (``calibration_trials``, default ``trials``); the result's ``calibration`` and
        :meth:`SimulationResult.calibration_warnings` report the Type I error beside the power.

    The result is the same for any ``workers``/``scheduler`` given the ``seed``. Settings are
    checked before any work starts: bad values raise :class:`~humaneval.errors.DesignError`.

    Returns
    -------
    SimulationResult
        ``results`` (rate, Monte-Carlo SE and Clopper–Pearson interval per test, aggregate and
        pair), ``overall()`` (the ``pair == "all"`` rows), ``rungs`` and, with ``calibrate``,
        ``calibration``; ``summary()`` is the text of ``humaneval power``.

    Raises
    ------
    DesignError
        An unknown test, aggregate, structure or failed-fit rule, non-finite effects, too few
        trials, or a design too small for a test.

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    The built-in coherence model on 100 summaries per system from one block of 20 documents × 3
    annotators: a t-test that treats every rating as independent rejects a true null far more
    often than 5 % (Steen & Markert 2021):

    >>> result = simulate(design="1x20x3", tests=("ttest",), null=True, trials=200, seed=1)
    >>> result
    <SimulationResult type1 of 1x20x3, seed 1: ttest/none 0.190, ttest/document 0.146>
    >>> result.overall()[["aggregate", "rate", "ci_low", "ci_high"]].round(3).values.tolist()
    [['none', 0.19, 0.138, 0.251], ['document', 0.146, 0.101, 0.203]]
    """
    model = _generating_model(model, effects, null)
    if isinstance(design, str):
        design = SimDesign.parse(design)
    settings = (
        n_permutations, alpha, workers, aggregates, structure, failed_fits, fallback, fit_timeout,
        failure_rule,
    )  # fmt: skip
    _check_settings(trials, *settings)
    if calibrate and calibration_trials is not None:
        _check_settings(calibration_trials, *settings)
    check_size(design, model)
    extra = sorted(set(model.random_effects) - set(SIMULATED_GROUPS))
    if extra:
        raise ModelSpecError(
            f"the model has random effects of {', '.join(extra)}, which the simulated design does not "
            f"have (it has {', '.join(SIMULATED_GROUPS)}); their variance would be dropped: remove them"
        )
    if isinstance(design, TableDesign):
        design.group_codes(model.system_names)  # every planned system must be in the model
    config = SimulationConfig(
        model=model,
        design=design,
        procedures=expand_procedures(tuple(tests), tuple(aggregates)),
        seed=int(seed),
        n_permutations=int(n_permutations),
        alpha=float(alpha),
        null=bool(null),
        requested_structure=structure,
        clmm_engine=clmm_engine,
        failed_fits=failed_fits,
        fallback=bool(fallback),
        fit_timeout=None if fit_timeout is None else float(fit_timeout),
        failure_rule=failure_rule,
    )
    _check_pairing_units(config)
    run_options: dict[str, Any] = {
        "workers": workers,
        "scheduler": scheduler,
        "resume": resume,
        "progress": progress,
    }
    result = _run(config, trials, checkpoint=checkpoint, **run_options)
    if not calibrate or null:
        return result
    calibration = _calibration(
        config, tests, aggregates, calibration_trials or trials, checkpoint=checkpoint, **run_options
    )
    return replace(result, calibration=calibration, seconds=result.seconds + calibration.seconds)


def _generating_model(model: Any, effects: Any, null: bool) -> OrdinalModel:
    """The model replicates are drawn from: ``model`` with ``effects`` as β, or all β = 0 under the null."""
    model = resolve_model(model)
    if effects is not None:
        _check_effects(effects)
        model = model.with_effects(effects)
    if not np.all(np.isfinite(model.coefficients)):
        raise DesignError(f"system effects must be finite numbers, not {model.coefficients.tolist()}")
    if null:
        model = model.with_effects(0.0)
    return model


def _check_pairing_units(config: SimulationConfig) -> None:
    """Refuse a t-test on a level where the design has fewer than two pairing units."""
    design = config.design
    for proc in config.procedures:
        if proc.test == "ttest" and design.n_pairs(proc.aggregate) < 2:
            raise DesignError(
                f"a t-test on {proc.aggregate} level needs at least 2 pairing units; design "
                f"{design.label} has {design.n_pairs(proc.aggregate)}: add blocks or use another --aggregate"
            )


def _run(
    config: SimulationConfig,
    trials: int,
    *,
    workers: int,
    scheduler: str | None,
    checkpoint: str | Path | None,
    resume: bool,
    progress: bool,
) -> SimulationResult:
    """Run the ``trials`` replicates of ``config`` (checkpointed, resumable) and summarise them."""
    has_clmm = any(p.test == "clmm" for p in config.procedures)
    if has_clmm:
        _require_clmm(config.clmm_engine)
    start = time.perf_counter()
    records = run_replicates(
        simulate_replicate,
        config,
        trials,
        header=config.header(),
        workers=workers,
        scheduler=scheduler,
        checkpoint=checkpoint,
        resume=resume,
        progress=progress,
        max_chunk=5 if has_clmm else 50,
        desc="Type I error" if config.null else "power",
        size=f"design {config.design.label}, "
        f"{config.design.judgements(len(config.model.system_names)):,} judgements each, "
        f"{', '.join(p.name for p in config.procedures)}",
    )
    return summarise(config, records, time.perf_counter() - start)


def _calibration(
    config: SimulationConfig,
    tests: Sequence[str],
    aggregates: Sequence[str],
    trials: int,
    *,
    checkpoint: str | Path | None,
    **run_options: Any,
) -> SimulationResult:
    """The same tests on the same design under the null model, checkpointed beside the power run
    (``<stem>-null<suffix>``)."""
    null_checkpoint = None
    if checkpoint is not None:
        path = Path(checkpoint)
        null_checkpoint = path.with_name(f"{path.stem}-null{path.suffix}")
    return simulate(
        config.model,
        config.design,
        tests,
        trials=trials,
        null=True,
        aggregates=aggregates,
        seed=config.seed,
        n_permutations=config.n_permutations,
        alpha=config.alpha,
        structure=config.requested_structure,
        clmm_engine=config.clmm_engine,
        failed_fits=config.failed_fits,
        fallback=config.fallback,
        fit_timeout=config.fit_timeout,
        failure_rule=config.failure_rule,
        checkpoint=null_checkpoint,
        **run_options,
    )


def _check_effects(effects: Any) -> None:
    values = list(effects.values()) if isinstance(effects, dict) else np.atleast_1d(effects).tolist()
    try:
        finite = all(np.isfinite(float(v)) for v in values)
    except (TypeError, ValueError):
        finite = False
    if not finite:
        raise DesignError(f"effects must be finite numbers, not {effects!r}")


def _check_settings(
    trials: int,
    n_permutations: int,
    alpha: float,
    workers: int,
    aggregates: Sequence[str],
    structure: str,
    failed_fits: str,
    fallback: bool,
    fit_timeout: float | None,
    failure_rule: str = "evidence",
) -> None:
    """Refuse impossible settings in one line before any work starts."""
    for name, value in (("trials", trials), ("n_permutations", n_permutations), ("workers", workers)):
        if isinstance(value, bool) or int(value) != value or value < 1:
            raise DesignError(f"{name} must be a whole number of at least 1, not {value!r}")
    bad = [a for a in aggregates if a not in AGGREGATES]
    if bad:
        raise DesignError(f"unknown aggregation level(s) {bad}; use any of {', '.join(AGGREGATES)}")
    if not 0 < alpha < 1:
        raise DesignError(f"alpha must lie in (0, 1), not {alpha}")
    if structure != "auto" and structure not in STRUCTURES:
        raise DesignError(f"unknown CLMM structure {structure!r}; use auto or one of {', '.join(STRUCTURES)}")
    if failed_fits not in FAILED_FITS:
        choices = ", ".join(FAILED_FITS)
        raise DesignError(f"unknown failed-fits convention {failed_fits!r}; use one of {choices}")
    if failure_rule not in FAILURE_RULES:
        raise DesignError(f"unknown failure rule {failure_rule!r}; use one of {', '.join(FAILURE_RULES)}")
    if failed_fits == "rescue" and not fallback:
        raise DesignError(
            "failed fits cannot be rescued without the fallback ladder; use --failed-fits miss or exclude "
            "with --no-fallback"
        )
    if fit_timeout is not None and not (np.isfinite(fit_timeout) and fit_timeout > 0):
        raise DesignError(f"the fit timeout must be a positive number of seconds, not {fit_timeout!r}")


def check_size(design: SimDesign | TableDesign, model: OrdinalModel) -> None:
    """Refuse a design whose replicates would not fit in memory (:data:`MAX_REPLICATE_BYTES`)."""
    rows = design.judgements(len(model.system_names))
    need = rows * (model.n_categories + 8) * 8
    if need > MAX_REPLICATE_BYTES:
        raise DesignError(
            f"design {design.label} has {rows:,} judgements; one simulated study would need "
            f"{need / 2**30:.1f} GiB (limit {MAX_REPLICATE_BYTES / 2**30:.0f} GiB): plan fewer blocks, "
            "documents or annotators"
        )


def _require_clmm(engine: str) -> None:
    from humaneval.simulate.procedures import clmm_available

    if engine not in ENGINES:
        raise DesignError(f"unknown CLMM engine {engine!r}; use one of {', '.join(ENGINES)}")
    if not clmm_available(engine):
        raise BackendUnavailableError(
            f"the {engine} CLMM engine is not available; install it or drop clmm from the tests"
        )


@shared_docs
def type1_error(
    model: OrdinalModel | str | Path | None = None, design: SimDesign | str = "1x100x3", **options
) -> SimulationResult:
    """Type I error experiment: :func:`simulate` with all β = 0.

    Parameters
    ----------
    model : OrdinalModel, FitResult, path or None
        %(generating_model)s
    design : SimDesign or str
        ``"BxDxA"`` (blocks × documents × annotators per block).
    **options
        As for :func:`simulate` (``tests``, ``trials``, ``seed``, ``aggregates``, …).

    Returns
    -------
    SimulationResult
        Each test's rejection rate under the null.

    Raises
    ------
    DesignError
        As :func:`simulate`.

    Examples
    --------
    >>> result = type1_error(design="1x20x3", tests=("ttest",), trials=200, seed=1)
    >>> result.overall()["rate"].round(3).tolist()
    [0.19, 0.146]
    """
    return simulate(model, design, null=True, **options)


@shared_docs
def power(
    model: OrdinalModel | str | Path | None = None,
    design: SimDesign | TableDesign | str = "20x5x3",
    **options,
) -> SimulationResult:
    """Power experiment: :func:`simulate` with the model's (or the given) β.

    Unless ``calibrate=False``, the tests' Type I error on the same design is simulated too
    (``result.calibration``, :meth:`SimulationResult.calibration_warnings`).

    Parameters
    ----------
    model : OrdinalModel, FitResult, path or None
        %(generating_model)s
    design : SimDesign, TableDesign or str
        ``"BxDxA"`` or a planned table.
    **options
        As for :func:`simulate` (``tests``, ``trials``, ``effects``, ``calibrate``, …).

    Returns
    -------
    SimulationResult
        Power = the rate of significant results in the true direction.

    Raises
    ------
    DesignError
        As :func:`simulate`.

    References
    ----------
    Steen, J., & Markert, K. (2021). How to evaluate a summarizer: study design and statistical
    analysis for manual linguistic quality evaluation. EACL 2021.

    Examples
    --------
    The ART on block means of 10 blocks × 5 documents × 3 annotators:

    >>> power(design="10x5x3", tests=("artagg",), trials=100, seed=1, calibrate=False)
    <SimulationResult power of 10x5x3, seed 1: artagg/cluster 0.768>
    """
    options.setdefault("calibrate", True)
    return simulate(model, design, null=False, **options)


def sweep(
    designs: Sequence[SimDesign | str],
    model: OrdinalModel | str | Path | None = None,
    *,
    checkpoint_dir: str | Path | None = None,
    **options: Any,
) -> pd.DataFrame:
    """:func:`simulate` over several designs: the ``pair == "all"`` rows with the design as columns.

    With ``checkpoint_dir`` each design streams to ``<dir>/<BxDxA>.jsonl`` (resumable).

    Parameters
    ----------
    designs : sequence of SimDesign or str
        The designs (``"BxDxA"``).
    model : OrdinalModel, path or None
        The generating model.
    checkpoint_dir : path, optional
        Folder of per-design checkpoints.
    **options
        As for :func:`simulate`.

    Returns
    -------
    DataFrame
        The ``overall()`` rows of every design with ``blocks``, ``docs``, ``annotators``,
        ``total_annotators`` and ``rungs``.

    Examples
    --------
    >>> table = sweep(["5x5x3", "10x5x3"], tests=("artagg",), trials=100, seed=1)
    >>> table[["blocks", "rate"]].round(3).values.tolist()
    [[5.0, 0.0], [10.0, 0.768]]
    """
    frames = []
    for design in designs:
        design = SimDesign.parse(design) if isinstance(design, str) else design
        if checkpoint_dir is not None:
            options["checkpoint"] = Path(checkpoint_dir) / f"{design.label}.jsonl"
        result = simulate(model, design, **options)
        info = design.to_dict()
        columns = {k: info[k] for k in ("blocks", "docs", "annotators", "total_annotators")}
        rungs = ", ".join(f"{k}: {v}" for k, v in sorted(result.rungs.items()))
        frames.append(result.overall().assign(**columns, rungs=rungs))
    return pd.concat(frames, ignore_index=True)
