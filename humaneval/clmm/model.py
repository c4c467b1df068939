"""A frozen description of a cumulative link mixed model (CLMM) of ratings, and a sampler.

The model (docs/analysis.md, dissertation eq. 3.22 and 3.25) is

    P(Y ≤ j | u) = F(θ_j − η),   η = β_s + u_{a,0} + v_{d,0} + [s ≠ ref](u_{a,s} + v_{d,s})

with flexible thresholds θ_1 < … < θ_{K−1}, treatment-coded system effects β (the reference
system first, fixed at 0), and for each grouping factor (``annotator``, ``document``) a random
intercept plus random system slopes with an S×S covariance Ψ that may be singular.

:func:`default_model` is the coherence model published by Steen & Markert (EACL 2021), fitted to
their CNN/DailyMail Likert coherence study; the JSON layout is the one of their repository.
:func:`sample_ratings` draws a ratings table from a model for any design.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib.resources import files
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings, validate_ratings
from humaneval.errors import ModelSpecError

__all__ = [
    "OrdinalModel",
    "covariance_factor",
    "default_model",
    "sample_ratings",
    "sample_scores",
]

SeedLike = int | np.random.Generator | np.random.SeedSequence | None
#: Largest |coefficient| or |threshold| of a model (latent scale; SDs of random effects likewise): at 50
#: the logistic CDF is 1 − 2e−22, so larger values only put every rating in one category.
MAX_LATENT = 50.0


def _links():
    """The link registry (imported here, not at the top: the CLMM engine's results import this module)."""
    from humaneval.clmm.links import LINKS

    return LINKS


@dataclass(frozen=True, eq=False)
class OrdinalModel:
    """Parameters of a cumulative link mixed model over systems.

    Attributes
    ----------
    system_names:
        Systems, the reference first.
    coefficients:
        β per system in the order of ``system_names``; ``coefficients[0] == 0``.
    thresholds:
        The K−1 strictly increasing cut points θ.
    random_effects:
        Per grouping factor (column name of the design, e.g. ``"annotator"``), the covariance
        matrix of (intercept, slope of system 1, …): 1×1 for a random intercept only, S×S for
        intercept and slopes. Positive semi-definite matrices are allowed.
    link:
        The link's name, one of :data:`humaneval.clmm.links.LINKS` (``"logit"``, proportional odds,
        ``"probit"``, ``"cloglog"``, ``"loglog"`` or ``"cauchit"``).
    description:
        Free text, e.g. where the parameters come from.
    """

    system_names: tuple[str, ...]
    coefficients: np.ndarray
    thresholds: np.ndarray
    random_effects: Mapping[str, np.ndarray] = field(default_factory=dict)
    link: str = "logit"
    description: str = ""

    def __post_init__(self) -> None:
        names = tuple(str(s) for s in self.system_names)
        beta = np.asarray(self.coefficients, dtype=float)
        theta = np.asarray(self.thresholds, dtype=float)
        n_sys = len(names)
        if n_sys < 2 or len(set(names)) != n_sys:
            raise ModelSpecError("system_names must hold at least two distinct names")
        if beta.shape != (n_sys,):
            raise ModelSpecError(
                f"coefficients has {beta.size} values but there are {n_sys} systems; give one per "
                "system, the reference first and 0"
            )
        if beta[0] != 0:
            raise ModelSpecError("coefficients[0] belongs to the reference system and must be 0")
        if not np.all(np.isfinite(beta)):
            raise ModelSpecError("coefficients must be finite numbers")
        if np.abs(beta).max() > MAX_LATENT:
            raise ModelSpecError(
                f"coefficients must lie within ±{MAX_LATENT:g} on the latent scale (beyond, every rating "
                f"falls in one category); got {np.abs(beta).max():g}"
            )
        if theta.ndim != 1 or theta.size < 1 or np.any(np.diff(theta) <= 0) or not np.all(np.isfinite(theta)):
            raise ModelSpecError("thresholds must be finite and strictly increasing")
        if np.abs(theta).max() > MAX_LATENT:
            raise ModelSpecError(
                f"thresholds must lie within ±{MAX_LATENT:g} on the latent scale; got {np.abs(theta).max():g}"
            )
        if self.link not in _links():
            raise ModelSpecError(f"link must be one of {', '.join(_links())}, not {self.link!r}")
        effects = {}
        for factor, matrix in self.random_effects.items():
            effects[str(factor)] = _check_covariance(factor, matrix, n_sys)
        object.__setattr__(self, "system_names", names)
        object.__setattr__(self, "coefficients", beta)
        object.__setattr__(self, "thresholds", theta)
        object.__setattr__(self, "random_effects", effects)

    @property
    def reference(self) -> str:
        return self.system_names[0]

    @property
    def n_categories(self) -> int:
        return self.thresholds.size + 1

    def with_effects(self, coefficients: Sequence[float] | Mapping[str, float] | float) -> OrdinalModel:
        """A copy with new system effects: a full vector, a {system: β} mapping, or a scalar
        factor that scales the current effects (0 gives the null model of a Type I study)."""
        if isinstance(coefficients, Mapping):
            beta = self.coefficients.copy()
            for name, value in coefficients.items():
                if name not in self.system_names:
                    raise ModelSpecError(f"unknown system {name!r}; the model has {self.system_names}")
                beta[self.system_names.index(name)] = value
        elif np.isscalar(coefficients):
            beta = self.coefficients * float(coefficients)  # type: ignore[arg-type]
        else:
            beta = np.asarray(coefficients, dtype=float)
        return replace(self, coefficients=beta)

    def latent_variance(self) -> np.ndarray:
        """Marginal variance of η per system from all random effects."""
        var = np.zeros(len(self.system_names))
        for psi in self.random_effects.values():
            if psi.shape[0] == 1:
                var += psi[0, 0]
            else:
                diag = np.diag(psi)
                var += psi[0, 0] + np.r_[0.0, diag[1:] + 2 * psi[0, 1:]]
        return var

    def marginal_probabilities(self, n_nodes: int = 80) -> pd.DataFrame:
        """P(Y = k) per system, integrating the random effects out by Gauss–Hermite quadrature."""
        nodes, weights = np.polynomial.hermite_e.hermegauss(n_nodes)
        weights = weights / weights.sum()
        eta = self.coefficients[:, None] + np.sqrt(self.latent_variance())[:, None] * nodes[None, :]
        cdf = _links()[self.link].cdf(self.thresholds[None, None, :] - eta[:, :, None])
        cum = np.concatenate([np.zeros((*eta.shape, 1)), cdf, np.ones((*eta.shape, 1))], axis=2)
        probs = np.einsum("snk,n->sk", np.diff(cum, axis=2), weights)
        return pd.DataFrame(
            probs,
            index=pd.Index(self.system_names, name="system"),
            columns=pd.Index(range(1, self.n_categories + 1), name="category"),
        )

    def to_dict(self) -> dict[str, object]:
        """The JSON layout of the reference repository (matrices flattened row-major)."""
        return {
            "description": self.description,
            "link": self.link,
            "system_names": list(self.system_names),
            "coefficients": self.coefficients.tolist(),
            "thresholds": self.thresholds.tolist(),
            "random_effects": {k: v.ravel().tolist() for k, v in self.random_effects.items()},
        }

    @classmethod
    def from_dict(cls, spec: Mapping[str, object]) -> OrdinalModel:
        missing = [k for k in ("system_names", "coefficients", "thresholds") if k not in spec]
        if missing:
            raise ModelSpecError(f"model is missing the key(s) {', '.join(missing)}")
        return cls(
            system_names=tuple(spec["system_names"]),  # type: ignore[arg-type]
            coefficients=np.asarray(spec["coefficients"], dtype=float),
            thresholds=np.asarray(spec["thresholds"], dtype=float),
            random_effects={
                k: np.asarray(v, dtype=float)
                for k, v in dict(spec.get("random_effects") or {}).items()  # type: ignore[call-overload]
            },
            link=str(spec.get("link", "logit")),
            description=str(spec.get("description", "")),
        )

    @classmethod
    def from_json(cls, path: str | Path) -> OrdinalModel:
        """Load a model JSON such as ``model_logit_likert_cnndm_coherence.json``."""
        try:
            spec = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise ModelSpecError(f"{path}: no such file") from None
        except json.JSONDecodeError as exc:
            raise ModelSpecError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
        except RecursionError:
            raise ModelSpecError(f"{path}: nested too deeply to be a model JSON") from None
        except UnicodeDecodeError as exc:
            raise ModelSpecError(f"{path}: byte {exc.start} is not valid UTF-8; give a model JSON") from None
        try:
            return cls.from_dict(spec)
        except ModelSpecError as exc:
            raise ModelSpecError(f"{path}: {exc}") from None
        except (ValueError, TypeError, AttributeError) as exc:  # e.g. a text where a number belongs
            raise ModelSpecError(f"{path}: not a CLMM model JSON ({exc})") from None

    def to_json(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1))
        return path

    def sample(self, design: pd.DataFrame, seed: SeedLike = None) -> Ratings:
        """Shorthand for :func:`sample_ratings`."""
        return sample_ratings(self, design, seed)


def _check_covariance(factor: str, matrix: object, n_sys: int) -> np.ndarray:
    psi = np.asarray(matrix, dtype=float)
    if psi.ndim == 1:
        dim = round(np.sqrt(psi.size))
        if dim * dim != psi.size:
            raise ModelSpecError(f"random_effects[{factor!r}] has {psi.size} values, not a square number")
        psi = psi.reshape(dim, dim)
    if psi.shape not in ((1, 1), (n_sys, n_sys)):
        raise ModelSpecError(
            f"random_effects[{factor!r}] is {psi.shape[0]}×{psi.shape[1]}; expected 1×1 (intercept) "
            f"or {n_sys}×{n_sys} (intercept and system slopes)"
        )
    if not np.all(np.isfinite(psi)):
        raise ModelSpecError(f"random_effects[{factor!r}] must hold finite numbers")
    if np.abs(psi).max() > MAX_LATENT**2:
        raise ModelSpecError(
            f"random_effects[{factor!r}] must hold variances of at most {MAX_LATENT**2:g} (SD {MAX_LATENT:g})"
        )
    if not np.allclose(psi, psi.T, atol=1e-8, rtol=0):
        raise ModelSpecError(f"random_effects[{factor!r}] is not symmetric")
    if np.linalg.eigvalsh(psi).min() < -1e-8 * max(1.0, np.trace(psi)):
        raise ModelSpecError(f"random_effects[{factor!r}] is not positive semi-definite")
    return psi


def default_model() -> OrdinalModel:
    """The published CNN/DailyMail Likert coherence model of Steen & Markert (EACL 2021)."""
    text = files("humaneval").joinpath("data/coherence_model.json").read_text()
    return OrdinalModel.from_dict(json.loads(text))


def covariance_factor(psi: np.ndarray) -> np.ndarray:
    """L with L Lᵀ = Ψ by symmetric eigendecomposition; works for singular Ψ (unlike Cholesky)."""
    eigval, eigvec = np.linalg.eigh(psi)
    return eigvec * np.sqrt(np.clip(eigval, 0.0, None))


def sample_ratings(model: OrdinalModel, design: pd.DataFrame, seed: SeedLike = None) -> Ratings:
    """Sample one study from ``model`` for ``design`` (docs/analysis.md).

    ``design`` is a long table with ``annotator`` and ``document`` columns (one row per
    judgement when it has a ``system`` column, otherwise one row per annotator–document pairing
    that is scored for every system). Random effects are drawn for every grouping factor of the
    model that is a column of the design, by eigen-factorisation so that singular Ψ work; a
    category is drawn by inverse-CDF sampling. Attention-check rows (``is_check``) are kept and
    get a score drawn like any other row. Returns a validated :class:`Ratings` on the scale 1..K.

    Examples
    --------
    A study of 6 blocks × 5 documents × 3 annotators from the built-in coherence model
    (5 systems, 7-point scale):

    >>> from humaneval.design import block_design
    >>> model = default_model()
    >>> ratings = sample_ratings(model, block_design(6, 5, 3, model.system_names, seed=1), seed=1)
    >>> len(ratings.data), ratings.scale, ratings.data["annotator"].nunique()
    (450, (1.0, 7.0), 18)
    """
    rng = np.random.default_rng(seed)
    rows = design.reset_index(drop=True)
    if "system" not in rows:
        rows = rows.merge(pd.DataFrame({"system": model.system_names}), how="cross")
    system = pd.Categorical(rows["system"].astype(str), categories=model.system_names)
    unknown = rows["system"][system.codes < 0].unique()
    if len(unknown):
        raise ModelSpecError(f"design has systems {list(unknown)} that the model does not know")
    groups = {}
    for factor in model.random_effects:
        if factor in rows:
            codes, levels = pd.factorize(rows[factor])
            groups[factor] = (codes, len(levels))
    score = sample_scores(model, system.codes, groups, rng)
    out = rows.assign(score=score)
    return validate_ratings(out, scale=(1, model.n_categories))


def sample_scores(
    model: OrdinalModel,
    system: np.ndarray,
    groups: Mapping[str, tuple[np.ndarray, int]],
    rng: np.random.Generator,
) -> np.ndarray:
    """The array core of :func:`sample_ratings`: scores 1..K per row.

    ``system`` holds the system code of each row (0 = reference), ``groups`` maps each grouping
    factor to ``(level code per row, number of levels)``; factors of the model missing from
    ``groups`` contribute nothing. Simulations call this directly to skip the table round trip.
    """
    eta = model.coefficients[system].copy()
    for factor, psi in model.random_effects.items():
        if factor not in groups:
            continue
        codes, n_levels = groups[factor]
        draws = rng.standard_normal((n_levels, psi.shape[0])) @ covariance_factor(psi).T
        eta += draws[codes, 0]
        if psi.shape[0] > 1:
            slope = draws[codes, np.maximum(system, 0)]
            eta += np.where(system > 0, slope, 0.0)
    cdf = _links()[model.link].cdf(model.thresholds[None, :] - eta[:, None])
    return 1 + (rng.random(len(system))[:, None] > cdf).sum(axis=1)
