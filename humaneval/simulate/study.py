"""The researcher's own study: which model and which design a power run simulates, and why.

:func:`plan_study` turns the inputs a researcher has — a design (``BxDxA`` or a planned table),
pilot ratings or a model, a smallest effect of interest, a variance scale — into one
:class:`StudySetup` per criterion, with notes saying what was taken from where. The CLI's
``humaneval power`` and the API share it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.analysis.prepare import choose_reference
from humaneval.clmm.model import OrdinalModel
from humaneval.core.ratings import Ratings, as_ratings
from humaneval.errors import DesignError, ModelSpecError
from humaneval.simulate.designs import SimDesign
from humaneval.simulate.effects import apply_effects, model_for_systems, parse_effects, scale_variances
from humaneval.simulate.experiment import resolve_model
from humaneval.simulate.pilot import PilotModel, pilot_model
from humaneval.simulate.table_design import TableDesign, read_design_table

#: Smallest effect used when the model does not know the design's systems and none is given.
DEFAULT_POINTS = 0.5


@dataclass(frozen=True, eq=False)
class StudySetup:
    """The model and design of one criterion, and what was done to get them."""

    criterion: str
    model: OrdinalModel
    design: SimDesign | TableDesign
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"criterion": self.criterion or None, "notes": list(self.notes)}


def is_design_file(text: str) -> bool:
    """Whether ``--design`` names a table rather than ``blocks=…`` / ``BxDxA``."""
    return Path(text).suffix.lower() in (".csv", ".tsv", ".txt") or Path(text).is_file()


def _file_designs(path: str) -> dict[str, TableDesign]:
    """The tables of a design file; several questions on every screen make one table each."""
    tables = read_design_table(path)
    criteria = planned_criteria(path)
    if len(tables) == 1 and len(criteria) > 1:
        (table,) = tables.values()
        tables = {name: replace(table, criterion=name) for name in criteria}
    return tables


def plan_study(
    design: str | SimDesign | TableDesign | None = None,
    model: Any = None,
    pilot: Ratings | pd.DataFrame | str | Path | None = None,
    *,
    effect: str | None = None,
    effect_points: str | None = None,
    effect_scale: float | None = None,
    variance_scale: float | None = None,
    structure: str = "auto",
    formula: str | None = None,
    criterion: str | None = None,
) -> tuple[list[StudySetup], PilotModel | None]:
    """The model and design per criterion for a power run.

    Parameters
    ----------
    design:
        ``"blocks=20,docs=5,annotators=3"``/``"20x5x3"``, a design CSV written by ``humaneval
        design`` (one setup per criterion in it), a :class:`TableDesign`, or None: the pilot's own
        design when a pilot is given, else 20 × 5 × 3.
    model:
        A model (JSON path, :class:`OrdinalModel`, fit) or None for the built-in coherence model.
        Ignored when ``pilot`` is given.
    pilot:
        Pilot ratings (a table or a file): the CLMM fitted to them (:func:`pilot_model`) is the model.
    effect, effect_points:
        Smallest effects of interest, on the latent scale or in expected-score points
        (:func:`~humaneval.simulate.effects.parse_effects`): ``"BART-seneca=0.5"`` or ``"0.5"``.
    effect_scale:
        Multiply the model's effects instead.
    variance_scale:
        Multiply every random-effect variance (e.g. 1.5 when the pilot's annotators were unusually
        homogeneous).
    structure, formula, criterion:
        How the pilot is fitted (:func:`pilot_model`).

    Returns
    -------
    tuple of (list of StudySetup, PilotModel or None)
        One setup (``model``, ``design``, ``notes``) per criterion, and the pilot's fit.

    Raises
    ------
    DesignError
        More than one effect option, or a malformed design.

    Examples
    --------
    >>> setups, pilot = plan_study("10x5x3", effect_points="0.5")
    >>> (setup,) = setups
    >>> setup.design, pilot
    (SimDesign(blocks=10, docs=5, annotators=3), None)
    >>> setup.notes[1]
    'effects set in expected-score points: 0.5'
    """
    if sum(v is not None for v in (effect, effect_points, effect_scale)) > 1:
        raise DesignError("give only one of --effect, --effect-points and --effect-scale")
    fitted = None
    if pilot is not None:
        if isinstance(pilot, (str, Path)):
            from humaneval.core.ratings import load_ratings

            pilot = load_ratings(Path(pilot))
        pilot = as_ratings(pilot)
        fitted = pilot_model(pilot, structure=structure, formula=formula, criterion=criterion)
        base = fitted.model
        source = "the pilot's fit"
    else:
        base = resolve_model(model)
        source = (
            "the model file" if model is not None else "the built-in coherence model (Steen & Markert 2021)"
        )
    designs: dict[str, SimDesign | TableDesign]
    if design is None:
        if pilot is not None:
            rows = pilot.without_checks().data
            designs = dict(TableDesign.from_frame(rows, "pilot design"))
            if criterion is not None:
                designs = {k: v for k, v in designs.items() if k in ("", criterion)}
        else:
            designs = {"": SimDesign(20, 5, 3)}
    elif isinstance(design, (SimDesign, TableDesign)):
        designs = {getattr(design, "criterion", ""): design}
    elif is_design_file(design):
        designs = dict(_file_designs(design))
        points = planned_scale_points(design)  # a pilot keeps the scale it was fitted on
        if points is not None and points != base.n_categories and fitted is None:
            base = with_scale_points(base, points)
            source += f", its thresholds spread over the design's {points}-point scale"
    else:
        designs = {"": SimDesign.parse(design)}
    if criterion is not None and len(designs) > 1:
        if criterion not in designs:
            raise DesignError(f"criterion {criterion!r} is not in the design; it has {', '.join(designs)}")
        designs = {criterion: designs[criterion]}
    setups = []
    for name, plan in designs.items():
        notes = [f"model: {source}"]
        current = base
        if isinstance(plan, TableDesign):
            systems = _ordered_systems(plan, base)
            current, extra = model_for_systems(base, systems)
            notes += extra
        known = not isinstance(plan, TableDesign) or set(plan.systems) <= set(base.system_names)
        if effect is not None:
            current = apply_effects(current, parse_effects(effect, current.system_names))
            notes.append(f"effects set on the latent scale: {effect}")
        elif effect_points is not None:
            current = apply_effects(current, parse_effects(effect_points, current.system_names), points=True)
            notes.append(f"effects set in expected-score points: {effect_points}")
        elif effect_scale is not None:
            if not np.isfinite(effect_scale):
                raise DesignError(f"--effect-scale must be a finite number, not {effect_scale!r}")
            try:
                current = current.with_effects(float(effect_scale))
            except ModelSpecError as exc:
                raise DesignError(f"--effect-scale {effect_scale:g}: {exc}") from None
            notes.append(f"the model's effects multiplied by {effect_scale:g}")
        elif not known:
            current = apply_effects(current, parse_effects(str(DEFAULT_POINTS)), points=True)
            notes.append(
                f"no effect given: every system is {DEFAULT_POINTS:g} points (expected score) better than "
                f"the reference {current.system_names[0]}; set your smallest effect of interest with "
                "--effect or --effect-points"
            )
        if variance_scale is not None:
            current = scale_variances(current, variance_scale)
            notes.append(f"random-effect variances multiplied by {variance_scale:g}")
        beta = ", ".join(
            f"{s} {b:+.3f}" for s, b in zip(current.system_names, current.coefficients, strict=True)
        )
        notes.append(f"simulated effects (latent, vs {current.system_names[0]}): {beta}")
        setups.append(StudySetup(name, current, plan, tuple(notes)))
    return setups, fitted


def planned_criteria(design_csv: str | Path) -> list[str]:
    """The criteria ``humaneval design --criteria`` recorded in the manifest beside the design CSV
    (empty when it asks one question)."""
    manifest = Path(design_csv).with_suffix(".json")
    try:
        criteria = json.loads(manifest.read_text())["spec"]["criteria"]
        return [str(c["name"]) for c in criteria or ()]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def planned_scale_points(design_csv: str | Path) -> int | None:
    """The scale points ``humaneval design`` recorded in the manifest beside the design CSV, if any."""
    manifest = Path(design_csv).with_suffix(".json")
    try:
        points = json.loads(manifest.read_text())["spec"]["scale_points"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return int(points) if isinstance(points, int) and points >= 2 else None


def with_scale_points(model: OrdinalModel, points: int) -> OrdinalModel:
    """``model`` on a ``points``-point scale: K − 1 thresholds spread evenly over the model's range
    of thresholds (its first to its last), so the latent scale and the effects keep their meaning."""
    theta = model.thresholds
    if points == 2:
        spread = np.array([theta.mean()])
    elif theta.size == 1:
        spread = theta[0] + np.linspace(-1.0, 1.0, points - 1)
    else:
        spread = np.interp(np.linspace(0, theta.size - 1, points - 1), np.arange(theta.size), theta)
    return replace(model, thresholds=spread)


def _ordered_systems(design: TableDesign, model: OrdinalModel) -> tuple[str, ...]:
    """The design's systems, reference first: the model's reference if planned, else the table's."""
    systems = list(design.systems)
    reference = model.reference if model.reference in systems else choose_reference(systems)
    return (reference, *sorted(s for s in systems if s != reference))
