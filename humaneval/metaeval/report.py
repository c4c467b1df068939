"""One-call meta-evaluation and its presentations.

:func:`meta_evaluate` aligns human and metric scores by key, computes the requested measures
for every metric and, with ``n_resamples > 0``, paired bootstrap CIs (Deutsch, Dror & Roth 2021).
The results table follows dissertation Table 4.3: rows are metrics, columns τ_intra, τ_pair, τ_sum, τ_sys,
Acc_pair, cells ``+0.26 (+0.19 +0.33)``, undefined cells ``-``, the best value per column
(excluding a ``HUM`` row) in bold in Markdown and LaTeX.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from humaneval.core.deprecation import renamed
from humaneval.errors import OptionError, RatingsError
from humaneval.metaeval.bootstrap import (
    BootstrapResult,
    bootstrap,
    draw_counts,
    normalise_mode,
    resample_indices,
)
from humaneval.metaeval.data import ScoreMatrices, align
from humaneval.metaeval.kernel import Coefficient, PairKernel, normalise_coefficient
from humaneval.metaeval.levels import RESULT_NAMES, NanPolicy, measure, normalise_levels, per_system_intra
from humaneval.metaeval.significance import holm, permutation_test
from humaneval.present.document import Block, Bullets, Column, Paragraph, Table
from humaneval.present.formatting import MISSING
from humaneval.present.printable import Printable, frame_table

#: Adjustments of :func:`compare_metrics` (across the compared pairs, per measure).
ADJUSTMENTS = ("none", "holm")
COLUMN_ORDER = ("intra", "pair", "sum", "sys", "acc")
HEADERS = {"intra": "τ_intra", "pair": "τ_pair", "sum": "τ_sum", "sys": "τ_sys", "acc": "Acc_pair"}


@dataclass(frozen=True)
class MetaEvalResult(Printable):
    """Tidy ``table`` (metric, level, estimate, ci_low, ci_high, n_valid, n_groups_used, n_pairs),
    the aligned matrices and, when bootstrapped, the paired :class:`BootstrapResult`."""

    table: pd.DataFrame
    scores: ScoreMatrices = field(repr=False)
    coefficient: str
    levels: tuple[str, ...]
    bootstrap: BootstrapResult | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        """Per metric ``{tau_sys: {estimate, ci_low, ci_high, ...}, ...}`` plus the settings."""
        metrics: dict[str, dict] = {}
        for row in self.table.to_dict(orient="records"):
            entry = {k: row[k] for k in ("estimate", "n_groups_used", "n_pairs")}
            if self.bootstrap is not None:
                entry |= {k: row[k] for k in ("ci_low", "ci_high", "n_valid")}
            metrics.setdefault(row["metric"], {})[RESULT_NAMES[row["level"]]] = entry
        out: dict[str, Any] = {
            "coefficient": self.coefficient,
            "levels": list(self.levels),
            "alignment": self.scores.to_dict(),
        }
        out["alignment"].pop("documents")
        if self.bootstrap is not None:
            out["bootstrap"] = {
                "mode": self.bootstrap.mode,
                "n_resamples": self.bootstrap.n_resamples,
                "confidence_level": self.bootstrap.confidence_level,
            }
        out["metrics"] = metrics
        return out

    def results_table(self, digits: int = 2) -> pd.DataFrame:
        return results_table(self.table, digits)

    def blocks(
        self, caption: str | None = None, digits: int = 2, comparisons: Sequence[Mapping[str, Any]] = ()
    ) -> tuple[Block, ...]:
        """The results table (estimate with its interval per metric and level), ``caption`` first,
        then the ``comparisons`` of :func:`compare_metrics` (:func:`comparison_blocks`)."""
        table = results_table(self.table, digits)
        frame = table.reset_index(names="metric")
        shown = frame_table(frame, list(frame.columns), align=dict.fromkeys(table.columns, "r"))
        head = (Paragraph((caption,)), shown) if caption is not None else (shown,)
        return (*head, *comparison_blocks(comparisons))


@renamed(confidence="confidence_level")
def meta_evaluate(
    human: pd.Series,
    metrics: Mapping[str, pd.Series],
    levels=None,
    *,
    coefficient: Coefficient = "kendall",
    n_resamples: int = 0,
    mode: str = "both",
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
    nan_policy: NanPolicy = "omit",
    strict: bool = False,
) -> MetaEvalResult:
    """Meta-evaluate metrics against human scores (Series keyed by (document, system), e.g. from
    :func:`~humaneval.metaeval.read_scores` / :func:`~humaneval.metaeval.read_human`).

    Parameters
    ----------
    human : Series
        Gold scores indexed by ``(document, system)``.
    metrics : dict of str to Series
        Metric scores, same index.
    levels : str or sequence of str, optional
        The measures (see :func:`~humaneval.metaeval.correlation_levels`); default all.
    coefficient : str or callable
        The correlation coefficient.
    n_resamples : int
        Bootstrap resamples for percentile intervals (0: none).
    mode, confidence_level, seed, nan_policy :
        As for :func:`~humaneval.metaeval.bootstrap`.
    strict : bool
        Refuse (instead of warning about) summaries missing from a metric.

    Returns
    -------
    MetaEvalResult
        ``table`` with one row per metric and level (``metric, level, estimate, ci_low, ci_high,
        n_valid, n_groups_used, n_pairs``); see :func:`results_table`, :func:`to_markdown`.

    Raises
    ------
    OptionError
        An unknown level, coefficient or mode.
    RatingsError
        Scores that cannot be aligned (with ``strict``: any summary missing).

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])  # 3 systems × 4 documents
    >>> P = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> B = np.array([[.4, .1, .3, .2], [.5, .2, .6, .1], [.3, .6, .2, .4]])
    >>> import pandas as pd
    >>> key = pd.MultiIndex.from_product([["d1", "d2", "d3", "d4"], ["s1", "s2", "s3"]],
    ...                                  names=["document", "system"])
    >>> as_series = lambda M: pd.Series(M.T.ravel(), index=key)
    >>> result = meta_evaluate(as_series(H), {"P": as_series(P), "B": as_series(B)}, ["sys", "sum", "pair"])
    >>> results_table(result.table)
      τ_pair  τ_sum  τ_sys
    P  +0.91  +0.73  +1.00
    B  +0.04  -0.16  +1.00
    """
    scores = align(human, dict(metrics), strict=strict)
    levels = normalise_levels(levels)
    rows = []
    for name, P in scores.metrics.items():
        for level in levels:
            value = measure(scores.human, P, level, coefficient, nan_policy)
            rows.append(
                {
                    "metric": name,
                    "level": level,
                    "estimate": value.estimate,
                    "n_groups_used": value.n_groups_used,
                    "n_pairs": value.n_pairs,
                }
            )
    table = pd.DataFrame(rows)
    boot = None
    if n_resamples:
        boot = bootstrap(
            scores.human,
            scores.metrics,
            levels,
            coefficient=coefficient,
            mode=normalise_mode(mode),
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            seed=seed,
            nan_policy=nan_policy,
        )
        table = table.merge(boot.table.drop(columns="estimate"), on=["metric", "level"])
    else:
        table = table.assign(ci_low=np.nan, ci_high=np.nan, n_valid=0)
    cols = ["metric", "level", "estimate", "ci_low", "ci_high", "n_valid", "n_groups_used", "n_pairs"]
    name = coefficient if isinstance(coefficient, str) else getattr(coefficient, "__name__", "callable")
    return MetaEvalResult(table[cols], scores, str(name), levels, boot)


def format_cell(estimate: float, low: float = math.nan, high: float = math.nan, digits: int = 2) -> str:
    """``+0.26 (+0.19 +0.33)``; ``-`` when undefined; no interval when none was computed."""
    if estimate is None or math.isnan(estimate):
        return "-"
    text = f"{estimate:+.{digits}f}"
    if not (math.isnan(low) or math.isnan(high)):
        text += f" ({low:+.{digits}f} {high:+.{digits}f})"
    return text


def results_table(table: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """Table 4.3 layout: one row per metric, columns τ_intra, τ_pair, τ_sum, τ_sys, Acc_pair."""
    levels = [lv for lv in COLUMN_ORDER if lv in set(table["level"])]
    out = {}
    for metric, part in table.groupby("metric", sort=False):
        by_level = part.set_index("level")
        out[metric] = {
            HEADERS[lv]: format_cell(
                float(by_level.at[lv, "estimate"]),
                float(by_level.at[lv, "ci_low"]),
                float(by_level.at[lv, "ci_high"]),
                digits,
            )
            for lv in levels
            if lv in by_level.index
        }
    return pd.DataFrame.from_dict(out, orient="index")


def _best(table: pd.DataFrame) -> set[tuple[str, str]]:
    """(metric, header) of the best estimate per level, excluding a HUM row."""
    best = set()
    for level, part in table[table["metric"] != "HUM"].groupby("level"):
        if part["estimate"].notna().any():
            best.add((part.loc[part["estimate"].idxmax(), "metric"], HEADERS[level]))
    return best


def to_markdown(table: pd.DataFrame, digits: int = 2, caption: str | None = None) -> str:
    """The results table as Markdown, best non-HUM value per column in bold.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"metric": ["A", "A", "B", "B"], "level": ["sys", "sum"] * 2,
    ...                       "estimate": [1.0, 0.73, 0.8, 0.21], "ci_low": float("nan"),
    ...                       "ci_high": float("nan")})
    >>> print(to_markdown(table))
    | Metric | τ_sum | τ_sys |
    |---|---|---|
    | A | **+0.73** | **+1.00** |
    | B | +0.21 | +0.80 |
    """
    frame, best = results_table(table, digits), _best(table)
    lines = ["| Metric | " + " | ".join(frame.columns) + " |", "|---" * (len(frame.columns) + 1) + "|"]
    for metric, row in frame.iterrows():
        cells = [f"**{v}**" if (metric, c) in best else v for c, v in row.items()]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    return "\n".join(([caption, ""] if caption else []) + lines)


def to_latex(table: pd.DataFrame, digits: int = 2, caption: str | None = None) -> str:
    """The results table as a LaTeX tabular, best non-HUM value per column in bold."""
    frame, best = results_table(table, digits), _best(table)
    lines = [r"\begin{tabular}{l" + "r" * len(frame.columns) + "}", r"\toprule"]
    headers = [
        c.replace("τ_", r"$\tau_{\text{") + "}}$" if c.startswith("τ_") else c.replace("_", r"\_")
        for c in frame.columns
    ]
    lines.append("Metric & " + " & ".join(headers) + r" \\")
    lines.append(r"\midrule")
    for metric, row in frame.iterrows():
        cells = [rf"\textbf{{{v}}}" if (metric, c) in best else v for c, v in row.items()]
        lines.append(metric.replace("_", r"\_") + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption:
        lines = [r"\begin{table}", r"\centering", *lines, rf"\caption{{{caption}}}", r"\end{table}"]
    return "\n".join(lines)


@renamed(confidence="confidence_level")
def per_system_intervals(
    H: np.ndarray,
    P: np.ndarray,
    *,
    coefficient: Coefficient = "kendall",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Per-system τ_intra with percentile CIs from resampling documents only, systems fixed."""
    coefficient = normalise_coefficient(coefficient)
    if callable(coefficient):
        raise OptionError("per-system intervals need a named coefficient (kendall, pearson or spearman)")
    _, cols = resample_indices(H.shape[0], H.shape[1], "documents", n_resamples, seed)
    samples = PairKernel(np.asarray(H, float), np.asarray(P, float)).evaluate(
        draw_counts(cols, H.shape[1]), coefficient
    )["value"]
    alpha = 1 - confidence_level
    lo = np.nanquantile(samples, alpha / 2, axis=0)
    hi = np.nanquantile(samples, 1 - alpha / 2, axis=0)
    return pd.DataFrame({"estimate": per_system_intra(H, P, coefficient), "ci_low": lo, "ci_high": hi})


def plot_intra_system(
    scores: ScoreMatrices,
    metrics: Sequence[str] | None = None,
    *,
    coefficient: Coefficient = "kendall",
    n_resamples: int = 1000,
    seed: int | np.random.Generator | None = None,
    xlim: tuple[float, float] = (-0.45, 1.0),
):
    """Per-system intra-system plot: one panel per system ordered by mean human score
    in a 2-column grid, each metric a point with a horizontal 95 % bootstrap error bar."""
    import matplotlib.pyplot as plt

    from humaneval.metaeval.bias import system_order
    from humaneval.present.plotting import CATEGORICAL, TICK_SIZE

    metrics = list(metrics or scores.metrics)
    order = system_order(scores.human, scores.systems)
    intervals = {
        m: per_system_intervals(
            scores.human, scores.metrics[m], coefficient=coefficient, n_resamples=n_resamples, seed=seed
        )
        for m in metrics
    }
    nrows = -(-len(order) // 2)
    fig, axes = plt.subplots(
        nrows,
        2,
        figsize=(9, 0.3 * len(metrics) * nrows + 1.5),
        squeeze=False,
        sharex=True,
        layout="constrained",
    )
    for ax, s in zip(axes.ravel(), order, strict=False):
        for y, m in enumerate(metrics):
            row = intervals[m].iloc[s]
            if not np.isnan(row["estimate"]):
                ax.errorbar(
                    row["estimate"],
                    y,
                    xerr=[[row["estimate"] - row["ci_low"]], [row["ci_high"] - row["estimate"]]],
                    fmt="o",
                    color=CATEGORICAL[0],
                    capsize=2,
                )
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_yticks(range(len(metrics)), metrics, fontsize=TICK_SIZE - 1)
        ax.set_title(scores.systems[s], fontsize=TICK_SIZE)
        ax.set_xlim(*xlim)
    for ax in axes.ravel()[len(order) :]:
        ax.set_visible(False)
    names = {"kendall": "Kendall τ", "pearson": "Pearson r", "spearman": "Spearman ρ"}
    name = names.get(coefficient, coefficient) if isinstance(coefficient, str) else "correlation"
    fig.supxlabel(f"{name} with the human scores within the system (95 % bootstrap interval)")
    fig.supylabel("metric")
    return fig


def _nulls(unit: str, bootstrapped: bool) -> dict[str, str]:
    """What the interval and the p of a metric comparison each test, in words."""
    over = {"systems": "systems", "documents": "documents", "both": "systems and documents"}[unit]
    out = {
        "permutation": f"p: on these {over}, are A's and B's scores exchangeable (swaps of A and B over "
        f"{over})? A small p says A agrees better than B on this sample",
    }
    if bootstrapped:
        out["bootstrap"] = (
            f"interval: how far A − B varies over new {over} drawn like these (bootstrap over {over}); "
            "one covering 0 says another sample could rank the metrics the other way"
        )
    return out


def comparison_blocks(comparisons: Sequence[Mapping[str, Any]]) -> tuple[Block, ...]:
    """Per pair of :func:`compare_metrics`: the difference A − B per measure with its interval and
    (adjusted) permutation p, then what the interval and the p each test."""
    out: list[Block] = []
    for compared in comparisons:
        floor = 1 / (compared["n_permutations"] + 1)
        rows = tuple(
            (
                row["measure"],
                f"{row['difference']:+.4f}",
                f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]" if "ci_low" in row else MISSING,
                f"p ≤ {floor:.4f}" if row["p_adj"] <= floor else f"p = {row['p_adj']:.4f}",
            )
            for row in compared["levels"]
        )
        caption = (
            f"{compared['metric_a']} vs {compared['metric_b']} (A − B; permutation p, "
            f"{compared['alternative']}, adjust {compared['adjust']}):"
        )
        columns = (Column("measure"), Column("A − B", "r"), Column("CI", "r"), Column("p", "r"))
        out += [
            Table(columns, rows, caption=(caption,)),
            Bullets(tuple((line,) for line in compared["nulls"].values())),
        ]
    return tuple(out)


def compare_metrics(
    result: MetaEvalResult,
    pairs: Sequence[tuple[str, str]],
    *,
    n_permutations: int = 1000,
    adjust: str = "none",
    seed: int | np.random.Generator | None = None,
) -> list[dict]:
    """Does metric A agree better than B? Per pair (A, B) and measure: the difference of the
    estimates, the paired bootstrap CI of A − B (when ``result`` was bootstrapped) and the
    one-sided paired permutation p (``p_unadj``), with ``p_adj`` by Holm
    across the pairs per measure (Holm 1979) or unadjusted (``adjust="none"``).

    The permutations swap A and B over the same unit the bootstrap resampled (``systems``,
    ``documents`` or ``both``; ``both`` without a bootstrap). The two still answer different
    questions, which ``nulls`` states: the interval is how far A − B would vary over new systems
    and documents drawn like these (it covers 0 when another sample could rank the metrics the
    other way, e.g. with few systems), while the permutation p tests, on these very systems and
    documents, the null that A's and B's scores are exchangeable. A small p beside an interval
    over 0 means: A beats B here, but the sample is too small to say it would elsewhere.

    Parameters
    ----------
    result : MetaEvalResult
        From :func:`meta_evaluate` (with ``n_resamples`` for the intervals).
    pairs : sequence of (str, str)
        The metric pairs (A, B) to compare.
    n_permutations : int
        Rounds of :func:`~humaneval.metaeval.permutation_test`.
    adjust : {"none", "holm"}
        Adjustment across the pairs per measure.
    seed : int or Generator, optional
        Seed of the permutations.

    Returns
    -------
    list of dict
        Per pair: ``metric_a``, ``metric_b``, ``alternative``, ``n_permutations``, ``resampling``
        (the unit of both the bootstrap and the permutations), ``nulls`` (what each tests), ``adjust`` and
        ``levels`` (per measure: ``difference``, ``ci_low``, ``ci_high``, ``p_unadj``, ``p_adj``; the
        names of the contrast tables, docs/vocabulary.md).

    Raises
    ------
    OptionError
        An unknown adjustment.
    RatingsError
        A metric name not in ``result``.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.array([[1, 2, 3, 4], [2, 3, 4, 5], [3, 3, 5, 5]])  # 3 systems × 4 documents
    >>> P = np.array([[.1, .3, .2, .4], [.2, .5, .4, .6], [.5, .4, .7, .9]])
    >>> B = np.array([[.4, .1, .3, .2], [.5, .2, .6, .1], [.3, .6, .2, .4]])
    >>> import pandas as pd
    >>> key = pd.MultiIndex.from_product([["d1", "d2", "d3", "d4"], ["s1", "s2", "s3"]],
    ...                                  names=["document", "system"])
    >>> as_series = lambda M: pd.Series(M.T.ravel(), index=key)
    >>> result = meta_evaluate(as_series(H), {"P": as_series(P), "B": as_series(B)}, "sum",
    ...                        n_resamples=1000, seed=1)
    >>> (entry,) = compare_metrics(result, [("P", "B")], seed=1)[0]["levels"]
    >>> entry["measure"], round(entry["difference"], 3), round(entry["p_unadj"], 4)
    ('tau_sum', 0.883, 0.0569)
    """
    if adjust not in ADJUSTMENTS:
        raise OptionError(f"adjust={adjust!r}: use 'none' or 'holm'")
    estimates = result.table.set_index(["metric", "level"])["estimate"]
    unit = result.bootstrap.mode if result.bootstrap is not None else "both"
    compared: list[dict[str, Any]] = []
    for a, b in pairs:
        unknown = [name for name in (a, b) if name not in result.scores.metrics]
        if unknown:
            raise RatingsError(
                f"metric(s) {unknown} to compare are not among {list(result.scores.metrics)}; use those names"
            )
        diffs = result.bootstrap.difference(a, b).set_index("level") if result.bootstrap is not None else None
        rows = []
        for level in result.levels:
            test = permutation_test(
                result.scores.human,
                result.scores.metrics[a],
                result.scores.metrics[b],
                level,
                coefficient="kendall" if level == "acc" else result.coefficient,
                method=unit,
                n_permutations=n_permutations,
                seed=seed,
            )
            row = {
                "measure": RESULT_NAMES[level],
                "difference": float(estimates[(a, level)] - estimates[(b, level)]),
                "p_unadj": test.p_value,
            }
            if diffs is not None:
                row |= {
                    "ci_low": float(diffs.at[level, "ci_low"]),
                    "ci_high": float(diffs.at[level, "ci_high"]),
                }
            rows.append(row)
        compared.append(
            {
                "metric_a": a,
                "metric_b": b,
                "alternative": "greater",
                "n_permutations": n_permutations,
                "resampling": unit,
                "nulls": _nulls(unit, result.bootstrap is not None),
                "levels": rows,
            }
        )
    for i in range(len(result.levels) if compared else 0):
        rows = [c["levels"][i] for c in compared]
        p = [row["p_unadj"] for row in rows]
        for row, value in zip(rows, holm(p) if adjust == "holm" else p, strict=True):
            row["p_adj"] = float(value)
    for c in compared:
        c["adjust"] = adjust
    return compared
