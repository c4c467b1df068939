"""Prediction-powered system means and paired differences from human ratings and one judge.

Per system, the PPI++ estimate of the mean human score of its summaries (:func:`humaneval.ppi.mean.ppi_mean`)
uses the summaries the humans rated (``n``) and those only the judge scored (``N``); per pair of
systems, the same estimator on the documents where both were judged: the paired difference of the
human scores, corrected by the judge's paired difference. Beside each: the human-only estimate of
the same units, the effective-n factor ``gain`` (V̂_human / V̂_PPI) and the PPBoot percentile interval
(:mod:`humaneval.ppi.bootstrap`). Intervals are normal (z) intervals, cluster-robust over documents or
blocks (:mod:`humaneval.ppi.items`); pair p-values are adjusted as in ``humaneval analyze``.

With inclusion probabilities (a design that sampled documents for the humans, :mod:`humaneval.design.judged`),
the inverse-probability-weighted form :func:`humaneval.ppi.mean.ipw_mean` replaces the PPI++ mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from humaneval.clmm.contrasts import adjust_pvalues, check_adjust, critical_value, tukey_p, tukey_quantile
from humaneval.errors import InsufficientDataError, RatingsError
from humaneval.ppi.bootstrap import ppboot_intervals
from humaneval.ppi.items import MIN_UNITS, Items, judged_items
from humaneval.ppi.mean import MeanEstimate, influence_covariance, ipw_mean, ppi_mean
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_p
from humaneval.present.printable import Printable, frame_table

__all__ = ["PPIAnalysis", "ppi_systems"]

#: At or below this many human-rated clusters, a skewed criterion's normal intervals may under-cover
#: (simulations/ppi_coverage.py, docs/ppi.md); at or below FEW_N, any criterion's may.
SMALL_N = 40
FEW_N = 20
#: |skewness| of the human scores from which a criterion counts as skewed (ceiling-heavy).
SKEWED = 0.8


@dataclass(frozen=True, eq=False)
class PPIAnalysis(Printable):
    """The outcome of :func:`ppi_systems` (and ``humaneval ppi``).

    ``systems`` has one row per system: ``estimate``, ``se``, ``ci_low``, ``ci_high`` (PPI++), ``lam``,
    ``human_estimate``, ``human_se``, ``human_ci_low``, ``human_ci_high`` (humans only, same units),
    ``boot_ci_low``, ``boot_ci_high`` (PPBoot), ``df`` (∞, or G − 1 with blocks as clusters),
    ``n_human``, ``n_judge_only``, ``n_clusters``, ``gain`` with its interval ``gain_low``, ``gain_high``,
    ``n_effective`` and ``judge_mean``.
    ``contrasts`` has the contrast-table columns of docs/vocabulary.md (``system_a − system_b``) and the
    same extra columns, with ``human_p_adj``. ``covariance`` is the covariance of the system estimates
    (systems × systems, from their contributions per cluster:
    :func:`humaneval.ppi.mean.influence_covariance`), whose diagonal is ``se²``; the rank sets of the
    systems are computed from it.
    """

    judge: str
    criterion: str | None
    confidence_level: float
    adjust: str
    clustering: str
    n_clusters: int
    weighting: str
    systems: pd.DataFrame
    contrasts: pd.DataFrame
    n_resamples: int
    seed: int | None
    cautions: tuple[str, ...] = field(default=())
    covariance: pd.DataFrame | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` schema of ``humaneval ppi`` (docs/ppi.md)."""
        return {
            "judge": self.judge,
            "criterion": self.criterion,
            "confidence_level": self.confidence_level,
            "adjust": self.adjust,
            "clustering": self.clustering,
            "n_clusters": self.n_clusters,
            "weighting": self.weighting,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "systems": self.systems.to_dict(orient="records"),
            "contrasts": self.contrasts.to_dict(orient="records"),
            "cautions": list(self.cautions),
        }

    def blocks(self) -> tuple[Block, ...]:
        """The clusters and variances in a sentence, the cautions, the system table and the paired
        differences (``summary()`` is their text)."""
        unit = "documents" if self.clustering == "document" else "blocks of annotators and documents"
        variance = (
            "cluster-jackknife variances with t(G − 1) intervals, G the human-rated blocks"
            if self.clustering == "block"
            else "cluster-robust variances"
        )
        weights = "inverse-probability weights from the design" if self.weighting != "none" else "unweighted"
        head = f"prediction-powered inference (PPI++) with judge {self.judge!r}" + (
            f", criterion {self.criterion}" if self.criterion else ""
        )
        out: list[Block] = [
            Paragraph((f"{head}; clusters: {self.n_clusters} {unit} ({variance}); {weights}",))
        ]
        if self.cautions:
            out.append(Bullets(tuple((f"warning: {c}",) for c in self.cautions)))
        names = {
            "estimate": "PPI mean", "lam": "λ", "human_estimate": "human", "n_human": "n",
            "n_judge_only": "N", "gain_low": "gain low", "gain_high": "gain high",
            "boot_ci_low": "PPBoot low", "boot_ci_high": "PPBoot high",
        }  # fmt: skip
        columns = ["system", "estimate", "ci_low", "ci_high", "lam", "human_estimate", "human_ci_low",
                   "human_ci_high", "n_human", "n_judge_only", "gain", "gain_low", "gain_high", "boot_ci_low",
                   "boot_ci_high"]  # fmt: skip
        out.append(frame_table(self.systems, columns, names=names))
        if len(self.contrasts):
            pairs = self.contrasts.assign(
                contrast=self.contrasts["system_a"] + " - " + self.contrasts["system_b"]
            )
            shown = ["contrast", "estimate", "se", "p_adj", "ci_low", "ci_high", "human_ci_low",
                     "human_ci_high", "n_human", "gain", "gain_low", "gain_high"]  # fmt: skip
            caption = f"paired differences over shared documents (a − b; adjust = {self.adjust})"
            formats = {c: fmt_p if c == "p_adj" else None for c in shown}
            names = {**names, "estimate": "estimate", "p_adj": "p adj"}
            out.append(frame_table(pairs, formats, names=names, caption=(caption,)))
        return tuple(out)


def ppi_systems(
    human: pd.DataFrame,
    judge: pd.DataFrame,
    *,
    judge_name: str = "judge",
    criterion: str | None = None,
    confidence_level: float = 0.95,
    adjust: str = "holm",
    cluster: str = "auto",
    probabilities: pd.DataFrame | None = None,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> PPIAnalysis:
    """PPI++ system means and paired differences with their human-only and PPBoot counterparts.

    Parameters
    ----------
    human : DataFrame
        Human ratings ``annotator, document, system, score`` (one criterion).
    judge : DataFrame
        The judge's scores ``document, system, score``: every human-rated summary and more.
    judge_name, criterion : str
        Shown in the output.
    confidence_level : float
        Of every interval.
    adjust : {"holm", "tukey", "bonferroni", "none"}
        Multiplicity adjustment of the pair p-values and intervals (as ``humaneval analyze``).
    cluster : {"auto", "document", "block"}
        The independent units (:mod:`humaneval.ppi.items`).
    probabilities : DataFrame, optional
        ``document, probability``: the chance each document's summaries were given to the humans,
        when a design sampled them (:func:`humaneval.design.judged.choose_documents`); the estimators
        then take their inverse-probability-weighted form.
    n_resamples, seed
        Of the PPBoot intervals (0 resamples: none).

    Returns
    -------
    PPIAnalysis
        System and contrast tables with ``summary()`` and ``to_dict()``.

    Raises
    ------
    RatingsError, InsufficientDataError
        Bad input (:func:`humaneval.ppi.items.judged_items`); fewer than 10 human-rated summaries of a
        system.

    Examples
    --------
    >>> from humaneval.ppi.simulate import judged_study
    >>> human, judge = judged_study(n_documents=200, n_systems=3, human_share=0.2, seed=3)
    >>> result = ppi_systems(human, judge, n_resamples=0)
    >>> print(result.systems[["system", "n_human", "n_judge_only"]].to_string(index=False))
    system  n_human  n_judge_only
        s0       40           160
        s1       40           160
        s2       40           160
    >>> bool((result.systems["gain"] > 1).all())
    True
    """
    check_adjust(adjust)
    items = judged_items(human, judge, judge_name=judge_name, cluster=cluster)
    weights = _document_probabilities(items, probabilities)
    table = items.table
    systems = items.systems
    docs = pd.Index(sorted(table["document"].unique()))
    row = docs.get_indexer(table["document"])
    col = pd.Index(systems).get_indexer(table["system"])
    human_wide = np.full((len(docs), len(systems)), np.nan)
    judge_wide = np.full((len(docs), len(systems)), np.nan)
    human_wide[row, col] = table["human"].to_numpy()
    judge_wide[row, col] = table["judge"].to_numpy()
    clusters = np.zeros(len(docs), dtype=int)
    clusters[row] = table["cluster"].to_numpy()
    doc_weights, doc_strata = _per_document(weights, docs)
    blocks = items.clustering == "block"
    cautions: list[str] = []
    flags: dict[str, list[str]] = {"small-skewed": [], "useless": [], "capped": []}

    rows, pair_rows, targets, means = [], [], [], []
    for k, system in enumerate(systems):
        judged = np.isfinite(judge_wide[:, k])
        y, f = human_wide[judged, k], judge_wide[judged, k]
        n_human = int(np.isfinite(y).sum())
        if n_human < MIN_UNITS:
            raise InsufficientDataError(
                f"system {system!r} has human ratings of only {n_human} summaries; PPI needs at least "
                f"{MIN_UNITS} (rate more of its summaries, or leave the system out)"
            )
        if n_human == len(y):
            raise InsufficientDataError(
                f"the judge scored no summary of system {system!r} beyond those the humans rated; PPI needs "
                "judge scores of further summaries"
            )
        pi, strata = (None if v is None else v[judged] for v in (doc_weights, doc_strata))
        est, target = _estimate(y, f, clusters[judged], pi, confidence_level, blocks, strata)
        targets.append(target)
        means.append(est)
        rows.append({"system": system, **_columns(est), "judge_mean": float(f.mean())})
        for flag in _flags(y[np.isfinite(y)], est):
            flags[flag].append(system)
    for a, b in combinations(range(len(systems)), 2):
        both = np.isfinite(judge_wide[:, a]) & np.isfinite(judge_wide[:, b])
        y = human_wide[both, a] - human_wide[both, b]
        f = judge_wide[both, a] - judge_wide[both, b]
        names = {"system_a": systems[a], "system_b": systems[b]}
        labelled = int(np.isfinite(y).sum())
        if labelled < MIN_UNITS or labelled == len(y):
            pair_rows.append({**names, **_columns(None)})
            targets.append(None)
            continue
        pi, strata = (None if v is None else v[both] for v in (doc_weights, doc_strata))
        est, target = _estimate(y, f, clusters[both], pi, confidence_level, blocks, strata)
        targets.append(target)
        pair_rows.append({**names, **_columns(est)})
    usable = [t for t in targets if t is not None]
    if n_resamples and usable:  # the weighted (IPW) estimates have no PPBoot interval
        intervals = iter(
            ppboot_intervals(
                usable,
                items.n_clusters,
                n_resamples=n_resamples,
                confidence_level=confidence_level,
                seed=seed,
            )
        )
        bounds = [next(intervals) if t is not None else (np.nan, np.nan) for t in targets]
    else:
        bounds = [(np.nan, np.nan)] * len(targets)
    for row, (low, high) in zip(rows + pair_rows, bounds, strict=True):
        row["boot_ci_low"], row["boot_ci_high"] = float(low), float(high)
    cautions = _cautions(flags, items.judge, items.clustering) + cautions
    system_table = pd.DataFrame(rows)
    contrasts = _contrast_table(pair_rows, len(systems), adjust, confidence_level)
    cautions += _missing_pairs(contrasts)
    return PPIAnalysis(
        judge=items.judge,
        criterion=criterion,
        confidence_level=confidence_level,
        adjust=adjust,
        clustering=items.clustering,
        n_clusters=items.n_clusters,
        weighting="none" if weights is None else "inverse-probability",
        systems=system_table,
        contrasts=contrasts,
        n_resamples=n_resamples,
        seed=seed,
        cautions=tuple(cautions),
        covariance=pd.DataFrame(influence_covariance(means), index=systems, columns=systems),
    )


def _missing_pairs(contrasts: pd.DataFrame) -> list[str]:
    """A caution naming how many pairs of systems have no paired difference."""
    missing = contrasts["estimate"].isna().sum() if len(contrasts) else 0
    if not missing:
        return []
    return [
        f"{missing} of {len(contrasts)} system pairs share fewer than {MIN_UNITS} documents rated by "
        "humans for both systems (or no document only the judge scored), so they have no paired "
        "difference; give the humans whole documents (all systems), as humaneval design --judge-scores "
        "does"
    ]


def _document_probabilities(items: Items, probabilities: pd.DataFrame | None) -> pd.DataFrame | None:
    """The design's inclusion probability (and stratum, if any) of every judged document, checked
    against the ratings."""
    if probabilities is None:
        return None
    if "document" not in probabilities or "probability" not in probabilities:
        raise RatingsError(
            "probabilities: give the columns document, probability (humaneval design --judge-scores)"
        )
    table = probabilities.astype({"document": str}).drop_duplicates("document").set_index("document")
    values = pd.to_numeric(table["probability"], errors="coerce")
    documents = pd.Index(items.table["document"].unique())
    missing = documents.difference(values.dropna().index)
    if len(missing):
        raise RatingsError(
            f"probabilities: no probability for {len(missing)} judged documents (e.g. {missing[0]}); give "
            "one for every document of the pool"
        )
    chosen = values.reindex(documents)
    if ((chosen <= 0) | (chosen > 1)).any():
        raise RatingsError("probabilities: every probability must lie in (0, 1]")
    if "stratum" in table:  # a stratified draw: the variance is centred within strata
        return pd.DataFrame(
            {"probability": chosen, "stratum": table["stratum"].astype(str).reindex(documents)}
        )
    return chosen.to_frame("probability")


def _per_document(
    weights: pd.DataFrame | None, docs: pd.Index
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The inclusion probability and stratum (None when absent) of every document, in ``docs`` order."""
    if weights is None:
        return None, None
    strata = weights["stratum"].reindex(docs).to_numpy() if "stratum" in weights else None
    return weights["probability"].reindex(docs).to_numpy(), strata


def _estimate(y, f, clusters, probability, confidence_level, small_sample=False, strata=None):
    """One PPI estimate (PPI++ or, with design probabilities, IPW) and its PPBoot target."""
    if probability is not None:
        est = ipw_mean(y, f, probability, clusters=clusters, strata=strata, confidence_level=confidence_level)
        return est, None  # PPBoot has no weighted form here: the IPW estimate gets no bootstrap interval
    labelled = np.isfinite(y)
    est = ppi_mean(
        y[labelled],
        f[labelled],
        f[~labelled],
        clusters=clusters[labelled],
        clusters_unlabeled=clusters[~labelled],
        confidence_level=confidence_level,
        small_sample=small_sample,
    )
    return est, (y[labelled], f[labelled], clusters[labelled], f[~labelled], clusters[~labelled])


def _columns(est: MeanEstimate | None) -> dict[str, float | int]:
    names = (
        "estimate",
        "se",
        "ci_low",
        "ci_high",
        "lam",
        "human_estimate",
        "human_se",
        "human_ci_low",
        "human_ci_high",
    )
    if est is None:
        return {
            **dict.fromkeys(names, np.nan),
            "df": np.nan,
            "n_human": 0,
            "n_judge_only": 0,
            "n_clusters": 0,
            "gain": np.nan,
            "gain_low": np.nan,
            "gain_high": np.nan,
            "n_effective": np.nan,
        }
    return {
        **{k: getattr(est, k) for k in names},
        "df": est.df,
        "n_human": est.n,
        "n_judge_only": est.n_unlabeled,
        "n_clusters": est.n_clusters,
        "gain": est.gain,
        "gain_low": est.gain_low,
        "gain_high": est.gain_high,
        "n_effective": est.n_effective,
    }


def _flags(y: np.ndarray, est: MeanEstimate) -> list[str]:
    """Which cautions apply to one system: ``useless`` (λ = 0), ``capped`` (λ = 1), ``small-skewed``."""
    out = []
    if est.lam == 0:
        out.append("useless")
    if est.lam == 1:
        out.append("capped")
    skew = float(stats.skew(y)) if np.ptp(y) > 0 else 0.0
    if est.n_clusters <= FEW_N or (est.n_clusters <= SMALL_N and abs(skew) >= SKEWED):
        out.append("small-skewed")
    return out


def _cautions(flags: dict[str, list[str]], judge: str, clustering: str) -> list[str]:
    """One caution per kind, naming the systems it concerns."""
    texts = {
        "useless": f"the judge {judge!r} does not track the humans (λ = 0) for {{}}: there the PPI "
        "estimate is the human-only one",
        "capped": "λ reached its cap of 1 (PPI++ clips it to [0, 1]) for {}: the judge's scores vary less "
        "than the humans'; putting them on the rating scale with a fixed linear map may narrow the "
        "intervals further",
        "small-skewed": f"at most {FEW_N} human-rated clusters, or at most {SMALL_N} on a skewed criterion "
        f"(|skewness| ≥ {SKEWED:g}), for {{}}: "
        + (
            "with blocks as clusters the intervals are cluster-jackknife t(G − 1) intervals (λ re-tuned per "
            "deleted block; they held 0.95 or more with 5 blocks in simulation, docs/ppi.md), and the gain "
            "errs low; the PPBoot interval under-covers with so few clusters"
            if clustering == "block"
            else "normal intervals under-cover there in simulation (0.90–0.93 instead of 0.95, docs/ppi.md); "
            "read the PPBoot interval beside them"
        ),
    }
    return [texts[kind].format(", ".join(systems)) for kind, systems in flags.items() if systems]


def _contrast_table(rows: list[dict], n_systems: int, adjust: str, confidence_level: float) -> pd.DataFrame:
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    z = table["estimate"] / table["se"]
    human_z = table["human_estimate"] / table["human_se"]
    n_pairs = int(table["estimate"].notna().sum())
    finite = table.pop("df").to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    dof = float(finite.min()) if len(finite) else np.inf  # blocks: t(G − 1), the fewest clusters of a pair
    table.insert(4, "statistic", z)
    table.insert(5, "df", dof)
    table.insert(6, "p_unadj", 2 * stats.t.sf(np.abs(z), dof))
    table.insert(7, "p_adj", _adjusted(z.to_numpy(), adjust, n_systems, dof))
    table.insert(8, "adjust", adjust)
    if adjust == "tukey":
        critical = tukey_quantile(n_systems, confidence_level, dof) / np.sqrt(2.0)
    elif np.isfinite(dof):
        tail = (1 - confidence_level) / (2 * (max(n_pairs, 1) if adjust in ("holm", "bonferroni") else 1))
        critical = stats.t.ppf(1 - tail, dof)
    else:
        critical = critical_value(adjust, n_systems, max(n_pairs, 1), confidence_level)
    table["ci_low"] = table["estimate"] - critical * table["se"]
    table["ci_high"] = table["estimate"] + critical * table["se"]
    table["human_ci_low"] = table["human_estimate"] - critical * table["human_se"]
    table["human_ci_high"] = table["human_estimate"] + critical * table["human_se"]
    table["human_p_adj"] = _adjusted(human_z.to_numpy(), adjust, n_systems, dof)
    table["better"] = pd.Series(
        [
            (a if e > 0 else b) if p < 1 - confidence_level else None
            for a, b, e, p in zip(
                table["system_a"], table["system_b"], table["estimate"], table["p_adj"], strict=True
            )
        ],
        dtype=object,
    )
    table["test"] = "z" if not np.isfinite(dof) else "t"
    return table


def _adjusted(z: np.ndarray, adjust: str, n_systems: int, dof: float = np.inf) -> np.ndarray:
    ok = np.isfinite(z)
    out = np.full(z.shape, np.nan)
    if not ok.any():
        return out
    if adjust == "tukey":
        out[ok] = tukey_p(z[ok], n_systems, dof)
    else:
        out[ok] = adjust_pvalues(2 * stats.t.sf(np.abs(z[ok]), dof), adjust)
    return out
