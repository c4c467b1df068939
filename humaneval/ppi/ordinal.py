"""A prediction-powered system contrast for the proportional-odds (cumulative-logit) model.

The human ratings Y ∈ {1, …, K} of a summary of system s follow P(Y ≤ k) = logit⁻¹(α_k − β_s)
(β treatment-coded, the first system at 0): the population-averaged proportional-odds model,
fitted as an M-estimator (no random effects). The judge gives every summary a category Ŷ on the same
scale (:func:`judge_categories` bins a continuous judge by its own quantiles over the pool, without
looking at the human ratings). The PPI++ estimate (Angelopoulos et al. 2023, §M-estimation;
Angelopoulos, Duchi & Zrnic 2023) minimises

    L(θ) = λ · mean_N ℓ(θ; s̃, Ŷ) + mean_n [ℓ(θ; s, Y) − λ ℓ(θ; s, Ŷ)],

ℓ the negative log-likelihood of one rating, over the n human ratings (each with the judge's category
of its summary) and the N judge-only summaries: the judge's fit on the pool, with the gradient of its
error on the human-rated part as the correction. Its covariance is the cluster-robust sandwich
H⁻¹ M H⁻¹ with H the Hessian of L and M the sum over clusters (documents or blocks) of the squared
summed per-unit gradient contributions; λ is tuned as in PPI++ for the system effects (the trace of
their variance at the λ = 1 estimate), clipped to [0, 1]; λ = 0 is the human-only fit, shown beside.

What is proven and what is checked: for independent units, consistency and asymptotic normality of
the PPI++ M-estimator with this sandwich are theorems of the two papers (the loss is smooth and the
human-only model identifiable); with a fixed λ the estimator is consistent for the human-only
model's target whatever the judge. The cluster-robust version rests on the usual many-clusters
argument (independent clusters, their number growing), not on a theorem in those papers, and the
coverage of the intervals at the sizes of real studies is checked by simulation
(simulations/ppi_coverage.py, docs/ppi.md). The target is the marginal (population-averaged) log
odds ratio, which is smaller in magnitude than the conditional one of a CLMM with random effects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.special import expit

from humaneval.clmm.contrasts import pairwise_contrasts
from humaneval.errors import InsufficientDataError, RatingsError
from humaneval.ppi.items import MIN_UNITS
from humaneval.ppi.mestimate import reference_covariance, sandwich, tuned_lambda
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt, fmt_p, fmt_value_ci
from humaneval.present.printable import Printable, frame_table

__all__ = ["PPIOrdinal", "judge_categories", "ppi_ordinal"]


@dataclass(frozen=True, eq=False, repr=False)
class PPIOrdinal(Printable):
    """PPI and human-only proportional-odds system effects and contrasts (log odds ratios); ``covariance``
    is the sandwich covariance of the PPI system effects (systems × systems, the first system's row and
    column 0)."""

    judge: str
    lam: float
    n: int
    big_n: int
    n_clusters: int
    systems: tuple[str, ...]
    thresholds: np.ndarray
    contrasts: pd.DataFrame
    human_contrasts: pd.DataFrame
    converged: bool
    cautions: tuple[str, ...] = ()
    covariance: pd.DataFrame | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "judge": self.judge,
            "lam": self.lam,
            "n": self.n,
            "N": self.big_n,
            "n_clusters": self.n_clusters,
            "thresholds": self.thresholds.tolist(),
            "contrasts": self.contrasts.to_dict(orient="records"),
            "human_contrasts": self.human_contrasts.to_dict(orient="records"),
            "converged": self.converged,
            "cautions": list(self.cautions),
        }

    def brief(self) -> str:
        """``judge 'gpt': 3 contrasts, λ = 0.420``, the ``repr``."""
        return f"judge {self.judge!r}: {len(self.contrasts)} contrasts, λ = {self.lam:.3f}"

    def blocks(self) -> tuple[Block, ...]:
        """The fit in a sentence, the contrasts (log odds ratios) beside the human-only ones, the
        cautions."""
        head = (
            f"prediction-powered proportional-odds model with judge {self.judge!r}: {self.n} human ratings, "
            f"{self.big_n} judge-only summaries, λ = {self.lam:.3f}, {self.n_clusters} clusters"
        )
        human = self.human_contrasts.reset_index(drop=True)
        shown = self.contrasts.reset_index(drop=True).assign(
            contrast=lambda t: t["system_a"] + " - " + t["system_b"],
            human_estimate=human["estimate"],
            human_se=human["se"],
        )
        columns = {"contrast": None, "estimate": fmt, "se": fmt, "p_adj": fmt_p, "human_estimate": fmt,
                   "human_se": fmt, "gain": fmt_value_ci}  # fmt: skip
        names = {"estimate": "log OR", "se": "SE", "p_adj": "p adj", "human_estimate": "human-only",
                 "human_se": "SE"}  # fmt: skip
        out: list[Block] = [Paragraph((head,)), frame_table(shown, columns, names=names)]
        if self.cautions:
            out.append(Bullets(tuple((f"Caution: {c}",) for c in self.cautions)))
        return tuple(out)


def judge_categories(scores: pd.Series, n_categories: int, low: int = 1) -> pd.Series:
    """A continuous judge's scores as ``n_categories`` ordered categories ``low, low + 1, …``: equal-
    frequency bins of its own scores over the pool (the human ratings are not used)."""
    ranks = scores.rank(method="first").to_numpy()
    return pd.Series(low + ((ranks - 1) * n_categories // len(ranks)).astype(int), index=scores.index)


def _thresholds(phi: np.ndarray, k1: int) -> np.ndarray:
    return np.cumsum(np.r_[phi[0], np.exp(phi[1:k1])])


def _unit_terms(alpha, beta, s, y, n_cat):
    """Per unit: the loss and its gradient in (α, β) of the proportional-odds model."""
    eta = np.r_[0.0, beta][s]
    bounds = np.r_[-np.inf, alpha, np.inf]
    upper, lower = bounds[y] - eta, bounds[y - 1] - eta
    fu, fl = expit(upper), expit(lower)
    prob = np.maximum(fu - fl, 1e-300)
    du, dl = fu * (1 - fu), fl * (1 - fl)
    grad = np.zeros((len(s), len(alpha) + len(beta)))
    rows = np.arange(len(s))
    up, lo = y - 1, y - 2  # index of α_y and α_{y-1}
    ok = y <= n_cat - 1
    grad[rows[ok], up[ok]] -= du[ok] / prob[ok]
    ok = y >= 2
    grad[rows[ok], lo[ok]] += dl[ok] / prob[ok]
    dbeta = (du - dl) / prob
    has = s > 0
    grad[rows[has], len(alpha) + s[has] - 1] += dbeta[has]
    return -np.log(prob), grad


class _Problem:
    def __init__(self, s, y, f, su, fu, n_cat, n_sys):
        self.s, self.y, self.f, self.su, self.fu = s, y, f, su, fu
        self.n_cat, self.k1, self.n_sys = n_cat, n_cat - 1, n_sys

    def split(self, theta):
        return theta[: self.k1], theta[self.k1 :]

    def terms(self, theta, lam):
        alpha, beta = self.split(theta)
        ly, gy = _unit_terms(alpha, beta, self.s, self.y, self.n_cat)
        lf, gf = _unit_terms(alpha, beta, self.s, self.f, self.n_cat)
        lu, gu = _unit_terms(alpha, beta, self.su, self.fu, self.n_cat)
        value = lam * lu.mean() + (ly - lam * lf).mean() if len(lu) else ly.mean()
        grad = lam * gu.mean(0) + (gy - lam * gf).mean(0)
        return value, grad, (gy, gf, gu)

    def fit(self, lam, start):
        def objective(phi):
            alpha = _thresholds(phi, self.k1)
            theta = np.r_[alpha, phi[self.k1 :]]
            value, grad, _ = self.terms(theta, lam)
            jac = np.zeros_like(phi)
            ga = grad[: self.k1]
            tail = np.cumsum(ga[::-1])[::-1]  # Σ_{k ≥ j} ∂L/∂α_k
            jac[0] = tail[0]
            jac[1 : self.k1] = tail[1:] * np.exp(phi[1 : self.k1])
            jac[self.k1 :] = grad[self.k1 :]
            return value, jac

        result = optimize.minimize(
            objective, start, jac=True, method="BFGS", options={"gtol": 1e-9, "maxiter": 500}
        )
        phi = result.x
        return (
            np.r_[_thresholds(phi, self.k1), phi[self.k1 :]],
            phi,
            bool(result.success or result.status == 2),
        )

    def hessian(self, theta, lam):
        eps = 1e-5
        cols = []
        for j in range(len(theta)):
            step = np.zeros_like(theta)
            step[j] = eps
            cols.append((self.terms(theta + step, lam)[1] - self.terms(theta - step, lam)[1]) / (2 * eps))
        h = np.array(cols)
        return (h + h.T) / 2


def _tuned(problem: _Problem, phi0, codes, n_clusters: int, cautions: list[str]) -> float:
    """PPI++'s λ for the system effects from the λ = 1 fit; 0 with a caution when that fit is singular."""
    theta1, _, _ = problem.fit(1.0, phi0)
    _, _, grads = problem.terms(theta1, 1.0)
    try:
        inv_h = np.linalg.inv(problem.hessian(theta1, 1.0))[problem.k1 :]
    except np.linalg.LinAlgError:
        # e.g. a category the judge never uses: no tuning possible
        cautions.append(
            "the λ = 1 fit that tunes λ is singular (a category the judge or the humans never use?): "
            "λ = 0, the human-only estimate; bin the judge more coarsely to use it"
        )
        return 0.0
    return tuned_lambda(inv_h, grads, codes, n_clusters)


def _vcov(problem: _Problem, theta, lam: float, codes, codes_u, n_clusters: int) -> np.ndarray:
    """The sandwich covariance at (θ, λ); a singular fit is one line, not a traceback."""
    _, _, grads = problem.terms(theta, lam)
    try:
        inv_h = np.linalg.inv(problem.hessian(theta, lam))
    except np.linalg.LinAlgError:
        raise InsufficientDataError(
            f"the proportional-odds fit is singular (λ = {lam:g}): some rating category or system has too "
            "few ratings; merge sparse categories or rate more documents"
        ) from None
    return sandwich(inv_h, grads, lam, codes, codes_u, n_clusters)


def ppi_ordinal(
    human: pd.DataFrame,
    judge: pd.DataFrame,
    *,
    judge_name: str = "judge",
    scale: tuple[int, int] | None = None,
    clusters: pd.Series | None = None,
    adjust: str = "tukey",
    confidence_level: float = 0.95,
    lam: float | None = None,
) -> PPIOrdinal:
    """Prediction-powered proportional-odds system contrasts with cluster-robust sandwich variances.

    Parameters
    ----------
    human : DataFrame
        ``annotator, document, system, score`` with whole-number scores on ``scale``.
    judge : DataFrame
        ``document, system, score``: the judge's category of every summary (whole numbers on the same
        scale; bin a continuous judge with :func:`judge_categories`).
    scale : (int, int), optional
        The rating scale (default: the range of the human and judge scores).
    clusters : Series, optional
        Cluster of each document (default: each document its own).
    adjust, confidence_level
        Of the contrasts.
    lam : float, optional
        A fixed λ; by default tuned.

    Examples
    --------
    >>> from humaneval.ppi.simulate import judged_study
    >>> human, judge = judged_study(n_documents=300, n_systems=3, human_share=0.3, judge_noise=0.4, seed=4)
    >>> judge = judge.assign(score=judge["score"].round().clip(1, 5).astype(int))
    >>> result = ppi_ordinal(human, judge)
    >>> result.n, result.big_n, bool(result.converged)
    (270, 630, True)
    >>> bool((result.contrasts["gain"] > 1).all())
    True
    """
    judge = judge.astype({"document": str, "system": str})
    human = human.astype({"document": str, "system": str})
    for name, frame in (("human ratings", human), (f"judge {judge_name!r}", judge)):
        values = pd.to_numeric(frame["score"], errors="coerce")
        if values.isna().any() or (values != values.round()).any():
            raise RatingsError(
                f"{name}: the ordinal model needs whole-number scores (bin a continuous judge)"
            )
    low, high = scale or (
        int(min(human["score"].min(), judge["score"].min())),
        int(max(human["score"].max(), judge["score"].max())),
    )
    n_cat = high - low + 1
    systems = sorted(judge["system"].unique())
    index = {s: k for k, s in enumerate(systems)}
    judged = judge.set_index(["document", "system"])["score"]
    key = pd.MultiIndex.from_frame(human[["document", "system"]])
    f_lab = judged.reindex(key)
    if f_lab.isna().any():
        raise RatingsError(
            f"judge {judge_name!r} has no category for {int(f_lab.isna().sum())} human ratings' summaries"
        )
    rated = set(map(tuple, human[["document", "system"]].drop_duplicates().to_numpy()))
    only = judge[[(d, s) not in rated for d, s in zip(judge["document"], judge["system"], strict=True)]]
    if len(human) < MIN_UNITS or only.empty:
        raise InsufficientDataError(
            f"{len(human)} human ratings and {len(only)} judge-only summaries: too few"
        )
    s = human["system"].map(index).to_numpy()
    y = human["score"].astype(int).to_numpy() - low + 1
    f = f_lab.astype(int).to_numpy() - low + 1
    su = only["system"].map(index).to_numpy()
    fu = only["score"].astype(int).to_numpy() - low + 1
    docs = pd.Index(sorted(set(human["document"]) | set(only["document"])))
    cluster_of = (
        pd.Series(np.arange(len(docs)), index=docs)
        if clusters is None
        else clusters.astype(str).reindex(docs)
    )
    codes_all = pd.factorize(cluster_of)[0]
    codes = codes_all[docs.get_indexer(human["document"])]
    codes_u = codes_all[docs.get_indexer(only["document"])]
    n_clusters = int(codes_all.max()) + 1
    problem = _Problem(s, y, f, su, fu, n_cat, len(systems))
    counts = np.bincount(y, minlength=n_cat + 1)[1:]
    cum = np.clip(np.cumsum(counts)[:-1] / len(y), 0.02, 0.98)
    logits = np.log(cum / (1 - cum))
    start = np.r_[logits[0], np.log(np.maximum(np.diff(logits), 0.1)), np.zeros(len(systems) - 1)]
    human_theta, phi0, ok_h = problem.fit(0.0, start)
    cautions: list[str] = []
    if lam is None:
        lam = _tuned(problem, phi0, codes, n_clusters, cautions)
    theta, _, ok = problem.fit(lam, phi0)

    k1 = n_cat - 1
    tables, covariances = [], []
    for th, lm in ((theta, lam), (human_theta, 0.0)):
        v = _vcov(problem, th, lm, codes, codes_u, n_clusters)
        covariances.append(v[k1:, k1:])
        # β_s is the shift of system s's latent score: higher = better, as the CLMM's system effects
        tables.append(
            pairwise_contrasts(
                systems, th[k1:], v[k1:, k1:], adjust=adjust, confidence_level=confidence_level
            )
        )
    contrasts, human_contrasts = tables
    contrasts["gain"] = (human_contrasts["se"] / contrasts["se"]).to_numpy() ** 2
    contrasts["test"] = human_contrasts["test"] = "ppi-proportional-odds"
    return PPIOrdinal(
        judge=judge_name,
        lam=float(lam),
        n=len(y),
        big_n=len(fu),
        n_clusters=len(np.unique(codes)),
        systems=tuple(systems),
        thresholds=theta[:k1],
        contrasts=contrasts,
        human_contrasts=human_contrasts,
        converged=ok and ok_h,
        cautions=tuple(cautions),
        covariance=reference_covariance(systems, covariances[0]),
    )
