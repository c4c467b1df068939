"""Smallest effects of interest and the model for a study's own systems.

Power for a planned study needs a model of *its* systems: :func:`model_for_systems` re-expresses a
model (a pilot fit, a model JSON, the built-in coherence model) for the systems of the design —
re-parameterised exactly when the model knows them all, otherwise by carrying over its thresholds
and an exchangeable summary of its random-effect variances. :func:`parse_effects` and
:func:`apply_effects` then set the differences the study must detect, on the latent scale
(``"BART-seneca=0.5"``) or as differences in expected score (solved numerically with the random
effects integrated out), and :func:`scale_variances` scales every variance component.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy import optimize

from humaneval.clmm.links import get_link
from humaneval.clmm.model import MAX_LATENT, OrdinalModel
from humaneval.errors import DesignError

#: Pseudo-system of a bare effect: every system against the reference.
EVERY = "*"
_GH_NODES = 60


@dataclass(frozen=True)
class Effect:
    """β_system − β_versus = value (``versus`` None: the reference; ``system`` EVERY: all systems)."""

    system: str
    versus: str | None
    value: float


def parse_effects(text: str, systems: Sequence[str] | None = None) -> tuple[Effect, ...]:
    """Read ``"BART-seneca=0.5, onmt_pg=0.2"`` or a bare ``"0.5"`` (every system vs the reference).

    ``A-B=v`` means β_A − β_B = v, ``A=v`` means A − reference = v. With ``systems`` given,
    names may contain ``-`` (the split that names two systems is taken). Repeated pairs and
    non-finite values are refused.
    """
    items: list[Effect] = []
    seen: set[tuple[str, str | None]] = set()
    for part in filter(None, (p.strip() for p in str(text).split(","))):
        key, sep, value = part.rpartition("=") if "=" in part else ("", "", part)
        try:
            number = float(value)
        except ValueError:
            raise DesignError(
                f"effect {part!r}: {value.strip()!r} is not a number; write e.g. BART-seneca=0.5 or 0.5"
            ) from None
        if not abs(number) <= MAX_LATENT:  # NaN and ±inf fail too
            raise DesignError(
                f"effect {part!r}: the size must be a finite number within ±{MAX_LATENT:g} on the latent "
                "scale (beyond, every rating falls in one category), e.g. 0.5"
            )
        effect = Effect(EVERY, None, number) if not sep else _pair(key.strip(), number, systems, part)
        pair = (effect.system, effect.versus)
        if pair in seen or (effect.versus, effect.system) in seen:
            raise DesignError(f"effect {part!r}: this pair is given twice; give each pair once")
        seen.add(pair)
        items.append(effect)
    if not items:
        raise DesignError(f"no effect in {text!r}; write e.g. BART-seneca=0.5 or 0.5")
    if len(items) > 1 and any(e.system == EVERY for e in items):
        raise DesignError("a bare effect size applies to every system; do not combine it with named pairs")
    return tuple(items)


def _pair(key: str, value: float, systems: Sequence[str] | None, part: str) -> Effect:
    if systems is not None:
        if key in systems:
            return Effect(key, None, value)
        for i, char in enumerate(key):
            if char == "-" and key[:i].strip() in systems and key[i + 1 :].strip() in systems:
                return Effect(key[:i].strip(), key[i + 1 :].strip(), value)
        raise DesignError(
            f"effect {part!r}: {key!r} does not name a system or a pair A-B of {', '.join(systems)}"
        )
    first, sep, second = key.partition("-")
    return Effect(first.strip(), second.strip() if sep else None, value)


def expected_score(model: OrdinalModel, system: int, beta: float | None = None) -> float:
    """E[Y] (scale 1..K) of one system with the random effects integrated out (Gauss–Hermite)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(_GH_NODES)
    weights = weights / weights.sum()
    b = model.coefficients[system] if beta is None else beta
    eta = b + math.sqrt(model.latent_variance()[system]) * nodes
    cdf = get_link(model.link).cdf(model.thresholds[None, :] - eta[:, None])
    # E[Y] = 1 + Σ_j P(Y > j) = 1 + Σ_j (1 − F(θ_j − η))
    return float(1.0 + ((1.0 - cdf).sum(axis=1) * weights).sum())


def _solve_points(model: OrdinalModel, system: int, target: float) -> float:
    """The β of ``system`` whose expected score is ``target``."""
    k = model.n_categories
    if not 1.0 < target < k:
        raise DesignError(
            f"no effect can move the expected score of {model.system_names[system]} to {target:.3g} "
            f"on a 1..{k} scale; choose a smaller difference in points"
        )

    def gap(beta: float) -> float:
        return expected_score(model, system, beta) - target

    low, high = -5.0, 5.0
    while gap(low) > 0:
        low *= 2
    while gap(high) < 0:
        high *= 2
    return float(optimize.brentq(gap, low, high, xtol=1e-10))


def apply_effects(model: OrdinalModel, effects: Sequence[Effect], points: bool = False) -> OrdinalModel:
    """Set the given differences, in order; ``points=True`` reads the values as expected-score points.

    ``A-B=v`` moves A (or, when A is the reference, B) so that A − B = v with B kept; a bare
    effect sets every non-reference system to v against the reference (the pairs among them then
    have no true difference, and their per-pair rows are rejection rates under the null). The
    final effects must satisfy every given difference (conflicting pairs are refused).
    """
    names = model.system_names
    beta = model.coefficients.copy()
    targets: list[tuple[int, int, float]] = []
    for effect in effects:
        if effect.system == EVERY:
            pairs = [(s, 0) for s in range(1, len(names))]
        else:
            pairs = [(_index(names, effect.system), _index(names, effect.versus or names[0]))]
        for a, b in pairs:
            if a == b:
                raise DesignError(f"effect {names[a]}-{names[b]}: a system cannot differ from itself")
            targets.append((a, b, effect.value))
            move, keep, sign = (b, a, -1.0) if a == 0 else (a, b, 1.0)
            current = replace(model, coefficients=beta)
            if points:
                goal = expected_score(current, keep) + sign * effect.value
                beta[move] = _solve_points(current, move, goal)
            else:
                beta[move] = beta[keep] + sign * effect.value
    final = replace(model, coefficients=beta)
    for a, b, value in targets:
        got = expected_score(final, a) - expected_score(final, b) if points else beta[a] - beta[b]
        if abs(got - value) > 1e-6 * max(1.0, abs(value)):
            raise DesignError(
                f"the effects conflict: {names[a]}-{names[b]} ends at {got:.3g}, not {value:g}; give "
                "differences that can hold together (e.g. each system against one other)"
            )
    return final


def _index(names: tuple[str, ...], name: str) -> int:
    if name not in names:
        raise DesignError(f"effect names {name!r}, which is not a system of the model ({', '.join(names)})")
    return names.index(name)


def scale_variances(model: OrdinalModel, factor: float) -> OrdinalModel:
    """A copy with every random-effect covariance multiplied by ``factor`` (≥ 0)."""
    if not (math.isfinite(factor) and factor >= 0):
        raise DesignError(f"the variance scale must be a finite number ≥ 0, not {factor!r}")
    return replace(model, random_effects={k: v * factor for k, v in model.random_effects.items()})


def _to_totals(n: int) -> np.ndarray:
    """A with w = A u: per-system random effect (intercept + slope) from (intercept, slopes)."""
    a = np.eye(n)
    a[1:, 0] = 1.0
    return a


def model_for_systems(model: OrdinalModel, systems: Sequence[str]) -> tuple[OrdinalModel, list[str]]:
    """``model`` for ``systems`` (the first is the reference) and notes on what was carried over.

    When the model knows every system, β and Ψ are re-expressed exactly for the new reference
    and order (systems it has beyond them are dropped). Otherwise the thresholds and link are
    kept, each factor's per-system random effects get the model's mean variance and mean
    covariance between systems (an exchangeable Ψ), and every β is 0 (set effects with
    :func:`apply_effects`).
    """
    systems = tuple(str(s) for s in systems)
    if len(systems) < 2:
        raise DesignError(f"a power simulation compares systems, but the design has only {list(systems)}")
    old = model.system_names
    n_new = len(systems)
    if set(systems) <= set(old):
        if systems == old:
            return model, []
        pick = np.zeros((n_new, len(old)))
        pick[np.arange(n_new), [old.index(s) for s in systems]] = 1.0
        back = np.linalg.inv(_to_totals(n_new))
        effects = {}
        for factor, psi in model.random_effects.items():
            if psi.shape[0] == 1:
                effects[factor] = psi
            else:
                t = back @ pick @ _to_totals(len(old))
                effects[factor] = t @ psi @ t.T
        beta = model.coefficients[[old.index(s) for s in systems]]
        dropped = [s for s in old if s not in systems]
        notes = [f"model systems not in the design are dropped: {', '.join(dropped)}"] if dropped else []
        return (
            OrdinalModel(
                systems, beta - beta[0], model.thresholds - beta[0], effects, model.link, model.description
            ),
            notes,
        )
    effects = {}
    for factor, psi in model.random_effects.items():
        if psi.shape[0] == 1:
            effects[factor] = psi
            continue
        totals = _to_totals(len(old)) @ psi @ _to_totals(len(old)).T
        var = float(np.mean(np.diag(totals)))
        cov = float(np.mean(totals[~np.eye(len(old), dtype=bool)]))
        cov = min(max(cov, -var / (n_new - 1)), var)
        exchangeable = np.full((n_new, n_new), cov) + np.eye(n_new) * (var - cov)
        back = np.linalg.inv(_to_totals(n_new))
        effects[factor] = back @ exchangeable @ back.T
    notes = [
        f"the model does not know the design's systems; kept its {model.n_categories}-point thresholds "
        "and, per random factor, its mean per-system variance and covariance between systems; every "
        "system effect starts at 0"
    ]
    out = OrdinalModel(
        systems,
        np.zeros(n_new),
        model.thresholds,
        effects,
        model.link,
        f"transferred from: {model.description}",
    )
    return out, notes
