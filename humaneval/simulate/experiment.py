"""Type I error and power experiments from a CLMM (analysis specification §6.4–6.6).

Each replicate samples one study from the model for the design (:func:`humaneval.model.sample_scores`)
and runs every requested test on every system pair. A pair is *detected* when p < α **and** the
estimated direction matches the true one; significant results in the wrong direction are sign
errors, never power. Under the null (all β equal) every significant pair is a Type I error. Rates
carry the conservative Monte-Carlo SE √(p(1−p)/n) with n = trials (spec §6.6). Failed CLMM fits are
counted: ``rate`` treats them as non-significant (the reference files' convention), while
``rate_successful`` excludes them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.analysis.fit import ENGINES
from humaneval.analysis.prepare import STRUCTURES, default_structure
from humaneval.errors import BackendUnavailableError, DesignError
from humaneval.model import OrdinalModel, default_model, sample_scores
from humaneval.ratings import validate_ratings
from humaneval.simulate.designs import AGGREGATES, SimDesign, pair_differences, system_pairs
from humaneval.simulate.procedures import Procedure, classic_pvalues, clmm_test, expand_procedures
from humaneval.simulate.runner import Record, replicate_seed, run_replicates


@dataclass(frozen=True, eq=False)
class SimulationConfig:
    """Everything that determines the replicates of one experiment (picklable, sent to workers)."""

    model: OrdinalModel
    design: SimDesign
    procedures: tuple[Procedure, ...]
    seed: int = 1
    rounds: int = 1000
    alpha: float = 0.05
    null: bool = False
    clmm_structure: str = "auto"
    clmm_engine: str = "native"

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return system_pairs(len(self.model.system_names))

    @property
    def structure(self) -> str:
        """``auto`` fits ``maximal`` when A ≥ 2 and ``nested`` when A = 1 (spec §6.5 step 2)."""
        if self.clmm_structure != "auto":
            return self.clmm_structure
        return default_structure(self.design.family == "nested")

    def header(self) -> dict[str, Any]:
        return {
            "model": self.model.to_dict(),
            "design": self.design.to_dict(),
            "procedures": [p.name for p in self.procedures],
            "seed": self.seed,
            "rounds": self.rounds,
            "null": self.null,
            "clmm": {"structure": self.structure, "engine": self.clmm_engine},
        }


@lru_cache(maxsize=8)
def _design_table(design: SimDesign, systems: tuple[str, ...]) -> pd.DataFrame:
    return design.table(systems)


def simulate_replicate(config: SimulationConfig, index: int) -> Record:
    """Sample study ``index`` and run every procedure on it (JSON-able record for the checkpoint).

    ``p`` and ``estimate`` hold per pair the p-value and the estimated difference a − b (mean
    difference for classic tests, latent β difference for the CLMM); a failed fit stores None.
    """
    rng = np.random.default_rng(replicate_seed(config.seed, index))
    model, design = config.model, config.design
    n_sys = len(model.system_names)
    system, groups = design.group_codes(n_sys)
    flat = sample_scores(model, system, groups, rng)
    scores = flat.reshape(design.blocks, design.annotators, design.docs, n_sys)
    record: Record = {"replicate": index, "p": {}, "estimate": {}}
    for proc in config.procedures:
        if proc.test == "clmm":
            table = _design_table(design, model.system_names).assign(score=flat)
            ratings = validate_ratings(table, scale=(1, model.n_categories))
            outcome = clmm_test(
                ratings, model.system_names, config.pairs, config.structure, config.clmm_engine, model.link
            )
            record["p"][proc.name] = outcome.pvalues
            record["estimate"][proc.name] = outcome.estimates
            record["clmm"] = {
                "status": outcome.status,
                "rung": outcome.rung,
                "seconds": round(outcome.seconds, 3),
                "message": outcome.message,
            }
            continue
        delta = pair_differences(scores, proc.aggregate, config.pairs, totals=True)
        record["p"][proc.name] = classic_pvalues(proc, delta, rng, config.rounds).tolist()
        record["estimate"][proc.name] = (delta.mean(axis=-1) / design.unit_size(proc.aggregate)).tolist()
    return record


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Rates per test and pair of one experiment.

    ``results`` has one row per (test, aggregate, pair) plus a ``pair == "all"`` row per test:
    ``rate`` (Type I error under the null, else power = correct-direction detections), its
    ``mc_se``, ``n_trials``, ``n_failed``, ``rate_successful`` (failures excluded) with its SE,
    ``sign_error_rate`` and ``true_difference`` (β_a − β_b). ``rungs`` tallies the CLMM rungs.
    """

    config: SimulationConfig
    results: pd.DataFrame
    rungs: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

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

    def to_dict(self) -> dict[str, Any]:
        cfg = self.config
        return {
            "kind": "type1" if cfg.null else "power",
            "design": cfg.design.to_dict(),
            "model": cfg.model.to_dict(),
            "seed": cfg.seed,
            "alpha": cfg.alpha,
            "rounds": cfg.rounds,
            "clmm": {"structure": cfg.structure, "engine": cfg.clmm_engine, "rungs": self.rungs},
            "seconds": self.seconds,
            "results": self.results.to_dict(orient="records"),
        }


def _se(rate: float, n: int) -> float:
    return float(np.sqrt(rate * (1 - rate) / n)) if n > 0 and np.isfinite(rate) else float("nan")


def summarise(config: SimulationConfig, records: Sequence[Record], seconds: float = 0.0) -> SimulationResult:
    """Turn replicate records into rates with Monte-Carlo SEs (spec §6.4 step 4, §6.5 steps 3–4, §6.6)."""
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
        for pair, diff, hits, wrongs in columns:
            rate = float(hits.mean())
            rate_ok = float(hits[ok].mean()) if n_ok else float("nan")
            rows.append(
                {
                    "test": proc.test,
                    "aggregate": proc.aggregate,
                    "pair": pair,
                    "true_difference": diff,
                    "rate": rate,
                    "mc_se": _se(rate, n_trials),
                    "n_trials": n_trials,
                    "n_failed": n_trials - n_ok,
                    "rate_successful": rate_ok,
                    "mc_se_successful": _se(rate_ok, n_ok),
                    "sign_error_rate": float(wrongs.mean()),
                }
            )
    rungs = Counter(r["clmm"]["rung"] or "error" for r in records if "clmm" in r)
    return SimulationResult(config, pd.DataFrame(rows), dict(rungs), seconds)


def resolve_model(model: Any) -> OrdinalModel:
    """An :class:`OrdinalModel` from itself, a fitted ``FitResult`` (``to_model()``), a JSON path,
    or None for the built-in coherence model (:func:`humaneval.model.default_model`)."""
    if model is None:
        return default_model()
    if isinstance(model, OrdinalModel):
        return model
    if hasattr(model, "to_model"):
        return model.to_model()
    return OrdinalModel.from_json(model)


def simulate(
    model: OrdinalModel | str | Path | None = None,
    design: SimDesign | str = "20x5x3",
    tests: Sequence[str] = ("ttest", "art"),
    *,
    trials: int = 1000,
    null: bool = False,
    effects: Sequence[float] | dict[str, float] | float | None = None,
    aggregates: Sequence[str] = ("none", "document"),
    seed: int = 1,
    rounds: int = 1000,
    alpha: float = 0.05,
    clmm_structure: str = "auto",
    clmm_engine: str = "native",
    workers: int = 1,
    scheduler: str | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    progress: bool = False,
) -> SimulationResult:
    """Run a Type I error (``null=True``: all β set to 0, eq. 3.26) or power experiment.

    ``model`` is an :class:`OrdinalModel`, a fitted ``FitResult``, a model JSON path, or None for
    the built-in coherence model; ``effects`` replaces β (a vector, a {system: β} mapping, or a
    factor scaling the model's β) for prospective power with a smallest effect of interest.
    ``tests`` are any of ``ttest``, ``art`` (run at each level of ``aggregates``), ``artagg`` (ART
    on block means) and ``clmm``. The result is the same for any ``workers``/``scheduler`` given the ``seed``.
    """
    model = resolve_model(model)
    if effects is not None:
        model = model.with_effects(effects)
    if null:
        model = model.with_effects(0.0)
    if isinstance(design, str):
        design = SimDesign.parse(design)
    bad = [a for a in aggregates if a not in AGGREGATES]
    if bad:
        raise DesignError(f"unknown aggregation level(s) {bad}; use any of {', '.join(AGGREGATES)}")
    if not 0 < alpha < 1:
        raise DesignError(f"alpha must lie in (0, 1), not {alpha}")
    if clmm_structure != "auto" and clmm_structure not in STRUCTURES:
        raise DesignError(
            f"unknown CLMM structure {clmm_structure!r}; use auto or one of {', '.join(STRUCTURES)}"
        )
    config = SimulationConfig(
        model=model,
        design=design,
        procedures=expand_procedures(tuple(tests), tuple(aggregates)),
        seed=int(seed),
        rounds=int(rounds),
        alpha=float(alpha),
        null=bool(null),
        clmm_structure=clmm_structure,
        clmm_engine=clmm_engine,
    )
    for proc in config.procedures:
        if proc.test == "ttest" and design.n_pairs(proc.aggregate) < 2:
            raise DesignError(
                f"a t-test on {proc.aggregate} level needs at least 2 pairing units; design {design.label} "
                f"has {design.n_pairs(proc.aggregate)}: add blocks or use another --aggregate"
            )
    if any(p.test == "clmm" for p in config.procedures):
        _require_clmm(clmm_engine)
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
        chunk_size=1 if any(p.test == "clmm" for p in config.procedures) else None,
    )
    return summarise(config, records, time.perf_counter() - start)


def _require_clmm(engine: str) -> None:
    from humaneval.simulate.procedures import clmm_available

    if engine not in ENGINES:
        raise DesignError(f"unknown CLMM engine {engine!r}; use one of {', '.join(ENGINES)}")
    if not clmm_available(engine):
        raise BackendUnavailableError(
            f"the {engine} CLMM engine is not available; install it or drop clmm from the tests"
        )


def type1_error(
    model: OrdinalModel | str | Path | None = None, design: SimDesign | str = "1x100x3", **options
) -> SimulationResult:
    """Type I error experiment (spec §6.4): :func:`simulate` with all β = 0."""
    return simulate(model, design, null=True, **options)


def power(
    model: OrdinalModel | str | Path | None = None, design: SimDesign | str = "20x5x3", **options
) -> SimulationResult:
    """Power experiment (spec §6.5): :func:`simulate` with the model's (or the given) β."""
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
