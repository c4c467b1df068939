"""Prediction-powered Bradley–Terry strengths from human and judge pairwise verdicts.

Boyeau et al. (2025) rank models from a few human pairwise preferences and many more verdicts of a
judge: the Bradley–Terry model is a logistic regression of "a beat b" on x = e_a − e_b (strengths
treatment-coded, the first system at 0), and its PPI++ estimate minimises

    L(θ) = λ · mean_N ℓ(θ; x̃, ỹ_judge) + mean_n [ℓ(θ; x, y) − λ ℓ(θ; x, y_judge)],

ℓ the logistic loss (a tie counts half a win, and a judge may give a probability), over the ``n``
comparisons the humans made (with the judge's verdicts on the same ones) and the ``N`` the judge
alone made. The unit is a comparison of two systems on one document: its human verdict is the mean
of its annotators'. The covariance is the sandwich H⁻¹ (V_n / n + λ² V_N / N) H⁻¹ with the meat
summed over clusters (documents or blocks, :mod:`humaneval.ppi.items`); λ is tuned as in PPI++
(Angelopoulos, Duchi & Zrnic 2023, the trace of the variance) at the λ = 1 estimate, clipped to
[0, 1]. λ = 0 is the human-only Bradley–Terry fit, shown beside.

The tables have the columns of the comparative analysis (:func:`humaneval.comparative.analyze_comparative`).

References
----------
Boyeau, P., Angelopoulos, A. N., Yosef, N., Malik, J. & Jordan, M. I. (2025). AutoEval done right:
using synthetic data for model evaluation. *ICML 2025*.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import expit

from humaneval.clmm.contrasts import pairwise_contrasts
from humaneval.core.structure import cluster_labels
from humaneval.errors import InsufficientDataError, RatingsError
from humaneval.ppi.items import MIN_UNITS
from humaneval.ppi.mestimate import reference_covariance, sandwich, tuned_lambda
from humaneval.present.document import Block, Paragraph
from humaneval.present.formatting import fmt, fmt_ci, fmt_p, fmt_value_ci
from humaneval.present.printable import Printable, frame_table
from humaneval.stats.grouping import groupings

__all__ = ["PPIPairwise", "comparisons", "ppi_pairwise"]


@dataclass(frozen=True, eq=False, repr=False)
class PPIPairwise(Printable):
    """Prediction-powered Bradley–Terry strengths (``systems``) and contrasts (``contrasts``, log-odds
    a over b) with the human-only ones beside (``human_systems``, ``human_contrasts``); ``covariance`` is
    the sandwich covariance of the strengths (systems × systems, the first system's row and column 0)."""

    judge: str
    lam: float
    n: int
    big_n: int
    n_clusters: int
    adjust: str
    confidence_level: float
    systems: pd.DataFrame
    contrasts: pd.DataFrame
    human_systems: pd.DataFrame
    human_contrasts: pd.DataFrame
    covariance: pd.DataFrame | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "judge": self.judge,
            "lam": self.lam,
            "n": self.n,
            "N": self.big_n,
            "n_clusters": self.n_clusters,
            "adjust": self.adjust,
            "confidence_level": self.confidence_level,
            "groups": self.systems.to_dict(orient="records"),
            "contrasts": self.contrasts.to_dict(orient="records"),
            "human_groups": self.human_systems.to_dict(orient="records"),
            "human_contrasts": self.human_contrasts.to_dict(orient="records"),
        }

    def brief(self) -> str:
        """``judge 'gpt': 4 systems, λ = 0.420``, the ``repr``."""
        return f"judge {self.judge!r}: {len(self.systems)} systems, λ = {self.lam:.3f}"

    def blocks(self) -> tuple[Block, ...]:
        """The fit in a sentence, the strengths and the contrasts (log-odds a over b), each beside the
        human-only fit."""
        head = (
            f"prediction-powered Bradley–Terry with judge {self.judge!r}: {self.n} human-judged and "
            f"{self.big_n} judge-only comparisons, λ = {self.lam:.3f}, {self.n_clusters} clusters"
        )
        human = self.human_systems.set_index("system").loc[self.systems["system"]].reset_index()
        systems = self.systems.reset_index(drop=True).assign(
            ci=[fmt_ci(r.estimate_ci_low, r.estimate_ci_high) for r in self.systems.itertuples()],
            human_estimate=human["estimate"],
            human_ci=[fmt_ci(r.estimate_ci_low, r.estimate_ci_high) for r in human.itertuples()],
        )
        strengths = {"system": None, "estimate": fmt, "ci": None, "human_estimate": fmt, "human_ci": None}
        pairs = self.human_contrasts.reset_index(drop=True)
        contrasts = self.contrasts.reset_index(drop=True).assign(
            contrast=lambda t: t["system_a"] + " - " + t["system_b"],
            human_estimate=pairs["estimate"],
            human_se=pairs["se"],
        )
        columns = {"contrast": None, "estimate": fmt, "se": fmt, "p_adj": fmt_p, "human_estimate": fmt,
                   "human_se": fmt, "gain": fmt_value_ci}  # fmt: skip
        names = {"estimate": "strength", "ci": "CI", "human_estimate": "human-only", "human_ci": "CI"}
        return (
            Paragraph((head,)),
            frame_table(systems, strengths, names=names, align={"ci": "r", "human_ci": "r"}),
            frame_table(
                contrasts,
                columns,
                names={**names, "estimate": "log-odds", "se": "SE", "p_adj": "p adj", "human_se": "SE"},
                caption=(f"contrasts (log-odds a over b; adjust = {self.adjust})",),
            ),
        )


def comparisons(table: pd.DataFrame) -> pd.DataFrame:
    """One row per comparison ``document, a, b, y`` (a sorts before b; y = 1 a won, 0 lost, 0.5 tie,
    or a judge's probability), from a pairwise table with ``system, opponent, score`` (mirror rows of
    the same comparison are read once), keeping ``annotator`` when present."""
    for column in ("document", "system", "opponent", "score"):
        if column not in table:
            raise RatingsError(
                f"pairwise verdicts: no column {column!r}; give document, system, opponent, score"
            )
    score = pd.to_numeric(table["score"], errors="coerce")
    if score.isna().any() or not score.between(0, 1).all():
        raise RatingsError("pairwise verdicts: scores must lie in [0, 1] (1 won, 0 lost, 0.5 tie)")
    system, opponent = table["system"].astype(str), table["opponent"].astype(str)
    first = system < opponent
    out = pd.DataFrame(
        {
            "document": table["document"].astype(str),
            "a": np.where(first, system, opponent),
            "b": np.where(first, opponent, system),
            "y": np.where(first, score, 1 - score),
        }
    )
    if "annotator" in table:
        out.insert(0, "annotator", table["annotator"].astype(str))
    keys = [c for c in ("annotator", "document", "a", "b") if c in out]
    return out.groupby(keys, as_index=False, sort=True)["y"].mean()


def _design(units: pd.DataFrame, systems: list[str]) -> np.ndarray:
    index = {s: k for k, s in enumerate(systems)}
    x = np.zeros((len(units), len(systems)))
    rows = np.arange(len(units))
    x[rows, units["a"].map(index).to_numpy()] += 1
    x[rows, units["b"].map(index).to_numpy()] -= 1
    return x[:, 1:]


def _fit(x, y, f, xu, fu, lam, start=None, iterations=50):
    """Newton's method on the PPI++ logistic objective; returns θ."""
    theta = np.zeros(x.shape[1]) if start is None else start.copy()
    n, big_n = len(x), len(xu)
    for _ in range(iterations):
        p, pu = expit(x @ theta), expit(xu @ theta)
        grad = (lam * xu.T @ (pu - fu) / big_n) + x.T @ ((p - y) - lam * (p - f)) / n
        w, wu = p * (1 - p), pu * (1 - pu)
        hess = lam * (xu.T * wu) @ xu / big_n + (1 - lam) * (x.T * w) @ x / n
        hess += 1e-10 * np.eye(len(theta))
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return theta


def _terms(x, y, f, xu, fu, theta) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """H⁻¹ of the logistic equation at ``theta`` and the gradients g_y, g_f, g_u."""
    p, pu = expit(x @ theta), expit(xu @ theta)
    grads = (x * (p - y)[:, None], x * (p - f)[:, None], xu * (pu - fu)[:, None])
    w = np.r_[p * (1 - p), pu * (1 - pu)]
    xa = np.vstack([x, xu])
    return np.linalg.inv((xa.T * w) @ xa / len(xa)), grads


def ppi_pairwise(
    human: pd.DataFrame,
    judge: pd.DataFrame,
    *,
    judge_name: str = "judge",
    adjust: str = "tukey",
    confidence_level: float = 0.95,
    lam: float | None = None,
) -> PPIPairwise:
    """Prediction-powered Bradley–Terry strengths and contrasts (Boyeau et al. 2025).

    Parameters
    ----------
    human : DataFrame
        Human pairwise verdicts ``annotator, document, system, opponent, score`` (1 won, 0 lost, 0.5 tie).
    judge : DataFrame
        The judge's verdicts ``document, system, opponent, score`` (a probability allowed) on every
        comparison the humans made and more.
    adjust, confidence_level
        Of the contrasts (as ``humaneval analyze``).
    lam : float, optional
        A fixed λ; by default tuned.

    Returns
    -------
    PPIPairwise

    Examples
    --------
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> import numpy as np
    >>> table = simulate_pairwise_study([0.6, 0.2, 0.0, -0.3], blocks=40, docs_per_block=5,
    ...                                 annotators_per_block=1, seed=2)
    >>> judge = table.drop(columns="annotator").copy()
    >>> flip = np.random.default_rng(0).random(len(judge)) < 0.15   # the judge errs on 15 % of the rows
    >>> judge.loc[flip, "score"] = 1 - judge.loc[flip, "score"]
    >>> human = table[table["block"] < 8]                           # humans on 8 of the 40 blocks
    >>> result = ppi_pairwise(human, judge)
    >>> result.n, result.big_n, bool(0 < result.lam <= 1)
    (240, 960, True)
    >>> round(float(result.contrasts["gain"].median()), 2)   # the effective-n factor of the contrasts
    2.02
    """
    human_units = comparisons(human)
    judge_units = comparisons(judge)
    if "annotator" in judge_units:
        judge_units = judge_units.groupby(["document", "a", "b"], as_index=False)["y"].mean()
    labelled = human_units.groupby(["document", "a", "b"], as_index=False)["y"].mean()
    merged = labelled.merge(judge_units, on=["document", "a", "b"], how="left", suffixes=("", "_judge"))
    if merged["y_judge"].isna().any():
        row = merged[merged["y_judge"].isna()].iloc[0]
        missing = int(merged["y_judge"].isna().sum())
        raise RatingsError(
            f"judge {judge_name!r} has no verdict on {missing} of the {len(merged)} comparisons the humans "
            f"made (e.g. document {row['document']}, {row['a']} vs {row['b']}); give it every comparison "
            "the humans made"
        )
    marked = judge_units.merge(merged[["document", "a", "b"]], how="left", indicator=True)
    unlabelled = judge_units[(marked["_merge"] == "left_only").to_numpy()]
    if len(merged) < MIN_UNITS or unlabelled.empty:
        raise InsufficientDataError(
            f"{len(merged)} human-judged and {len(unlabelled)} judge-only comparisons: PPI needs at least "
            f"{MIN_UNITS} of the first and some of the second"
        )
    systems = sorted(set(judge_units["a"]) | set(judge_units["b"]) | set(merged["a"]) | set(merged["b"]))
    blocks = cluster_labels(
        human.astype({"document": str}).assign(annotator=lambda d: d.get("annotator", d["document"]))
    )
    block_of = dict(zip(human["document"].astype(str), blocks, strict=True))
    docs = pd.Index(sorted(set(merged["document"]) | set(unlabelled["document"])))
    cluster = np.array([block_of.get(d, -1 - k) for k, d in enumerate(docs)])
    cluster_codes = pd.factorize(pd.Series(cluster, index=docs))[0]
    codes = cluster_codes[docs.get_indexer(merged["document"])]
    codes_u = cluster_codes[docs.get_indexer(unlabelled["document"])]
    n_clusters = int(cluster_codes.max()) + 1
    x, xu = _design(merged, systems), _design(unlabelled, systems)
    y, f, fu = merged["y"].to_numpy(), merged["y_judge"].to_numpy(), unlabelled["y"].to_numpy()
    if lam is None:
        lam = tuned_lambda(*_terms(x, y, f, xu, fu, _fit(x, y, f, xu, fu, 1.0)), codes, n_clusters)
    theta = _fit(x, y, f, xu, fu, lam)
    vcov = sandwich(*_terms(x, y, f, xu, fu, theta), lam, codes, codes_u, n_clusters)
    human_theta = _fit(x, y, f, xu, fu, 0.0)
    human_vcov = sandwich(*_terms(x, y, f, xu, fu, human_theta), 0.0, codes, codes_u, n_clusters)
    means = (
        pd.concat(
            [
                merged.assign(system=merged["a"], win=merged["y"]),
                merged.assign(system=merged["b"], win=1 - merged["y"]),
            ]
        )
        .groupby("system")["win"]
        .mean()
    )
    tables = [
        _tables(systems, b, v, means, adjust, confidence_level)
        for b, v in ((theta, vcov), (human_theta, human_vcov))
    ]
    (systems_t, contrasts), (human_systems, human_contrasts) = tables
    contrasts["gain"] = (human_contrasts["se"] / contrasts["se"]).to_numpy() ** 2
    return PPIPairwise(
        judge=judge_name,
        lam=float(lam),
        n=len(merged),
        big_n=len(unlabelled),
        n_clusters=len(np.unique(codes)),
        adjust=adjust,
        confidence_level=confidence_level,
        systems=systems_t,
        contrasts=contrasts,
        human_systems=human_systems,
        human_contrasts=human_contrasts,
        covariance=reference_covariance(systems, vcov),
    )


def _tables(systems, beta, vcov, means, adjust, confidence_level):
    """The comparative analysis's system and contrast tables (strengths, z intervals)."""
    from scipy import stats

    contrasts = pairwise_contrasts(systems, beta, vcov, adjust=adjust, confidence_level=confidence_level)
    contrasts["win_probability"] = expit(contrasts["estimate"])
    contrasts["win_probability_low"] = expit(contrasts["ci_low"])
    contrasts["win_probability_high"] = expit(contrasts["ci_high"])
    contrasts["test"] = "ppi-bradley-terry"
    estimates = pd.Series(np.r_[0.0, beta], index=systems)
    table = groupings(means, estimates, contrasts, 1 - confidence_level)
    se = pd.Series(np.sqrt(np.r_[0.0, np.diag(vcov)]), index=systems).reindex(table["system"]).to_numpy()
    half = stats.norm.ppf(0.5 + confidence_level / 2) * se
    table.insert(3, "se", se)
    table.insert(4, "estimate_ci_low", table["estimate"] - half)
    table.insert(5, "estimate_ci_high", table["estimate"] + half)
    return table, contrasts
