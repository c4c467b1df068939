"""The report's power note: what this design could detect, and what would detect the smallest difference.

Power from a fitted CLMM (Steen & Markert 2021; docs/simulation.md). Given a model (by default the
CLMM the analysis fitted), :func:`power_note` simulates the study's own block design — B blocks × D
documents × A annotators, read from the ratings' structure — with :func:`humaneval.simulate.simulate`
and reports per system pair the power of ARTagg (the ART on independent block means, the cheap
screening test of docs/simulation.md) and, with ``clmm_trials`` > 0, of the maximal CLMM (native engine),
each with its Monte-Carlo SE. Given the planned design table (``planned``, a
:class:`~humaneval.simulate.table_design.TableDesign` of the study's systems), the per-pair power is
simulated on that table row by row instead,
each with its Monte-Carlo SE. It then looks for the smallest design reaching ``target`` power for
the pair with the smallest model difference |β_a − β_b|: more blocks of the same shape and, when
blocks have several annotators, nested blocks (one annotator each), screened with ARTagg. Power
from fitted β is *observed power*: use it to compare designs, not as the truth.

ARTagg's exact sign-flip test over B blocks has the smallest p-value :math:`2^{1-B}`, so with
fewer than :data:`ART_MIN_BLOCKS` blocks it can never reject at 0.05: its power on such a design is
not simulated (NaN, ``artagg_can_reject`` false) and the design search starts at 6 blocks.

Every simulated power carries its Monte-Carlo SE and its exact 95 % Clopper–Pearson interval
(:func:`humaneval.simulate.experiment.clopper_pearson`, the interval ``humaneval power`` reports):
the SE √(p(1−p)/n) is 0 when no (or every) simulated study rejected, the interval is not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.clmm.model import OrdinalModel
from humaneval.core.structure import DesignStructure
from humaneval.errors import HumanEvalError
from humaneval.simulate.designs import SimDesign
from humaneval.simulate.experiment import SimulationResult, simulate
from humaneval.simulate.replicability import replicability
from humaneval.simulate.table_design import TableDesign, read_design_table

#: Fewest blocks with which ARTagg can reach p < 0.05 (its smallest p-value is 2^(1-B)).
ART_MIN_BLOCKS = 6
#: Block-count multipliers tried by the design search, from the current design upwards.
GROWTH = (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 16)


@dataclass(frozen=True, eq=False)
class PowerNote:
    """Per-pair power of the observed design and the design search for the smallest difference.

    ``pairs``: ``pair, true_difference, artagg, artagg_se, clmm, clmm_se, clmm_failed`` and the
    Clopper–Pearson bounds ``artagg_ci_low, artagg_ci_high, clmm_ci_low, clmm_ci_high`` (the CLMM
    columns are NaN when ``clmm_trials`` is 0, the ARTagg ones when it cannot reject). ``search``:
    ``blocks, docs, annotators, family, judgements, power, mc_se, ci_low, ci_high`` for every
    screened design; ``reaching`` is the one with the fewest
    judgements whose power for ``smallest_pair`` reaches ``target`` (None when none of them does).
    ``planned``: the planned design table whose rows were simulated for ``pairs`` (None: the
    observed block design ``design`` was).
    """

    design: SimDesign
    approximate: bool
    pairs: pd.DataFrame
    smallest_pair: str | None
    smallest_difference: float | None
    target: float
    search: pd.DataFrame
    reaching: dict[str, Any] | None
    trials: int
    clmm_trials: int
    clmm_rungs: dict[str, int]
    seed: int
    seconds: float
    planned: TableDesign | None = None
    #: Probability that two independent runs give the same ranking / significant pairs (ARTagg's studies).
    replicability: tuple[dict[str, Any], ...] = ()

    @property
    def artagg_can_reject(self) -> bool:
        """Whether ARTagg can reach p < 0.05 on the simulated design at all."""
        return (self.planned or self.design).blocks >= ART_MIN_BLOCKS

    def to_dict(self) -> dict[str, Any]:
        return {
            "design": self.design.to_dict(),
            "approximate": self.approximate,
            "planned": None if self.planned is None else self.planned.to_dict(),
            "test": "artagg",
            "artagg_can_reject": self.artagg_can_reject,
            "trials": self.trials,
            "clmm_trials": self.clmm_trials,
            "clmm_rungs": self.clmm_rungs,
            "seed": self.seed,
            "pairs": self.pairs.to_dict(orient="records"),
            "smallest_pair": self.smallest_pair,
            "smallest_difference": self.smallest_difference,
            "target": self.target,
            "search": self.search.to_dict(orient="records"),
            "reaching": self.reaching,
            "seconds": self.seconds,
            "replicability": list(self.replicability),
        }


def observed_design(structure: DesignStructure) -> tuple[SimDesign, bool]:
    """The block design closest to the ratings' structure, and whether it is only an approximation
    (unequal or incompletely crossed blocks are rounded to their mean size)."""
    design = SimDesign(
        structure.n_blocks,
        max(1, round(structure.block_documents.mean)),
        max(1, round(structure.block_annotators.mean)),
    )
    exact = (
        structure.blocks_fully_crossed
        and structure.block_documents.min == structure.block_documents.max
        and structure.block_annotators.min == structure.block_annotators.max
    )
    return design, not exact


def power_note(
    model: OrdinalModel,
    structure: DesignStructure,
    *,
    trials: int = 200,
    clmm_trials: int = 20,
    target: float = 0.8,
    seed: int = 1,
    workers: int = 1,
    planned: TableDesign | None = None,
) -> PowerNote:
    """Simulate the observed design (or the ``planned`` table, when its systems are the model's) under
    ``model`` and search a design reaching ``target`` power."""
    start = time.perf_counter()
    design, approximate = observed_design(structure)
    if planned is not None and not set(planned.systems) <= set(model.system_names):
        planned = None
    simulated = planned or design
    base = simulate(
        model,
        simulated,
        ("artagg",),
        trials=trials if simulated.blocks >= ART_MIN_BLOCKS else 1,
        seed=seed,
        workers=workers,
    )
    rows = base.results[base.results["pair"] != "all"]
    pairs = pd.DataFrame(
        {
            "pair": rows["pair"].to_numpy(),
            "true_difference": rows["true_difference"].to_numpy(dtype=float),
            "artagg": rows["rate"].to_numpy(dtype=float),
            "artagg_se": rows["mc_se"].to_numpy(dtype=float),
            "artagg_ci_low": rows["ci_low"].to_numpy(dtype=float),
            "artagg_ci_high": rows["ci_high"].to_numpy(dtype=float),
        }
    )
    if simulated.blocks < ART_MIN_BLOCKS:
        pairs[["artagg", "artagg_se", "artagg_ci_low", "artagg_ci_high"]] = float("nan")
    rungs: dict[str, int] = {}
    if clmm_trials > 0:
        clmm = simulate(model, simulated, ("clmm",), trials=clmm_trials, seed=seed, workers=workers)
        by_pair = clmm.results.set_index("pair")
        pairs["clmm"] = by_pair.loc[pairs["pair"], "rate"].to_numpy(dtype=float)
        pairs["clmm_se"] = by_pair.loc[pairs["pair"], "mc_se"].to_numpy(dtype=float)
        pairs["clmm_ci_low"] = by_pair.loc[pairs["pair"], "ci_low"].to_numpy(dtype=float)
        pairs["clmm_ci_high"] = by_pair.loc[pairs["pair"], "ci_high"].to_numpy(dtype=float)
        pairs["clmm_failed"] = by_pair.loc[pairs["pair"], "n_failed"].to_numpy(dtype=int)
        rungs = clmm.rungs
    else:
        nan = float("nan")
        pairs = pairs.assign(clmm=nan, clmm_se=nan, clmm_ci_low=nan, clmm_ci_high=nan, clmm_failed=0)
    nonzero = pairs[pairs["true_difference"].abs() > 1e-12]
    smallest = None if nonzero.empty else nonzero.loc[nonzero["true_difference"].abs().idxmin()]
    search = _search(model, design, smallest, trials, seed, target, workers)
    reached = search[search["power"] >= target].sort_values(["judgements", "blocks"])
    return PowerNote(
        design=design,
        approximate=approximate,
        pairs=pairs,
        smallest_pair=None if smallest is None else str(smallest["pair"]),
        smallest_difference=None if smallest is None else float(smallest["true_difference"]),
        target=target,
        search=search,
        reaching=None if reached.empty else reached.iloc[0].to_dict(),
        trials=trials,
        clmm_trials=clmm_trials,
        clmm_rungs=rungs,
        seed=seed,
        seconds=time.perf_counter() - start,
        planned=planned,
        replicability=tuple(_replicability(base)) if simulated.blocks >= ART_MIN_BLOCKS else (),
    )


def _replicability(result: SimulationResult) -> list[dict[str, Any]]:
    cfg = result.config
    return replicability(result.records, cfg.model.system_names, cfg.pairs, cfg.alpha).to_dict()


def _search(
    model: OrdinalModel,
    design: SimDesign,
    smallest: pd.Series | None,
    trials: int,
    seed: int,
    target: float,
    workers: int,
) -> pd.DataFrame:
    """ARTagg power for ``smallest`` over growing designs of each shape, until ``target`` is reached."""
    columns = ["blocks", "docs", "annotators", "family", "judgements", "power", "mc_se", "ci_low", "ci_high"]
    if smallest is None:
        return pd.DataFrame(columns=columns)
    shapes = [(design.blocks, design.annotators)]
    if design.annotators > 1:
        shapes.append((design.blocks * design.annotators, 1))  # nested, same number of judgements
    n_systems = len(model.system_names)
    rows = []
    for blocks0, annotators in shapes:
        tried: set[int] = set()
        for factor in GROWTH:
            blocks = max(1, round(blocks0 * factor))
            if blocks in tried or blocks < ART_MIN_BLOCKS:
                continue
            tried.add(blocks)
            candidate = SimDesign(blocks, design.docs, annotators)
            result = simulate(model, candidate, ("artagg",), trials=trials, seed=seed, workers=workers)
            row = result.results.set_index("pair").loc[smallest["pair"]]
            rows.append(
                {
                    "blocks": blocks,
                    "docs": design.docs,
                    "annotators": annotators,
                    "family": candidate.family,
                    "judgements": candidate.judgements(n_systems),
                    "power": float(row["rate"]),
                    "mc_se": float(row["mc_se"]),
                    "ci_low": float(row["ci_low"]),
                    "ci_high": float(row["ci_high"]),
                }
            )
            if row["rate"] >= target:
                break
    return pd.DataFrame(rows, columns=columns)


def planned_tables(design: Any) -> dict[str, TableDesign]:
    """The planned design table per criterion (``""`` for a single one) of a design path (CSV, or the
    design.json manifest) or a :class:`~humaneval.design.Design`; empty when there is none or it
    cannot be simulated (e.g. a comparative design)."""
    name = "design"
    try:
        if isinstance(design, (str, Path)):
            name = str(design)
            if Path(design).suffix.lower() == ".csv":
                return read_design_table(design)
            from humaneval.forms.write import load_design

            design = load_design(design)
        table = getattr(design, "table", None)
        if isinstance(table, pd.DataFrame):
            return TableDesign.from_frame(table, name)
    except HumanEvalError:
        pass
    return {}
