"""The report's figures as PNG, SVG and PDF files (matplotlib, Agg canvas; no pyplot state is touched).

- :func:`score_distributions`: the share of each score (or rank) per system as diverging stacked
  bars, low answers left of zero and high ones right, the middle category split — the usual display
  of Likert data (Robbins & Heiberger 2011); the data of dissertation Fig. 3.4.
- :func:`means_figure`: system means with their block-bootstrap intervals and rank groups — the
  content of dissertation Table 3.2 as a figure.
- :func:`significance_matrix`: adjusted p-value of every pair, coloured by which system is better.
- :func:`time_curve_figure`: r with the full-data system means against annotator time, 10-minute
  buckets with 95 % intervals — dissertation Fig. 3.5.
- :func:`power_figure`: simulated power per pair with 95 % Clopper–Pearson intervals and the target line.
- :func:`scale_use_figure`: each annotator's location shift and spread from the CLMM with a random
  annotator log-scale (docs/analysis.md, "Annotators who use the scale differently").

Every figure is written by :func:`humaneval.present.plotting.save_figure` (PNG for the page, SVG and PDF
beside it for papers) in the colour-blind-safe colours of :mod:`humaneval.present.plotting`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from humaneval.core.ratings import Ratings
from humaneval.core.responses import lower_is_better
from humaneval.present.plotting import BETTER, DIVERGING, LABEL_SIZE, NEUTRAL, TICK_SIZE, WORSE, save_figure

DPI = 150
#: Most categories the distribution figure shows; continuous scores are binned into 5.
MAX_CATEGORIES = 11


def css_width(path: Path) -> int:
    """Display width in CSS pixels of a PNG written here (its pixel width at 100 dpi)."""
    with open(path, "rb") as handle:
        header = handle.read(24)
    return round(int.from_bytes(header[16:20], "big") * 100 / DPI)


def _save(fig: Figure, path: Path) -> Path:
    """Write the PNG at ``path`` and its SVG and PDF twins; returns the PNG."""
    return save_figure(fig, path, dpi=DPI)["png"]


def _style(ax, grid: str = "y") -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis=grid, color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.tick_params(labelsize=TICK_SIZE)
    ax.xaxis.label.set_size(LABEL_SIZE)
    ax.yaxis.label.set_size(LABEL_SIZE)


def score_distributions(ratings: Ratings, order: list[str], path: Path) -> Path:
    """Share of every response value per system as diverging stacked bars; ``order`` lists systems
    best first (top). Scores run from low (left, orange) to high (right, purple); ranks from last
    to first (rank 1 = best on the right), shown 1-based. Continuous scores are binned into 5."""
    values = ratings.reported()
    rank = lower_is_better(ratings.response)
    if values.nunique() > MAX_CATEGORIES:
        low, high = ratings.scale
        values = pd.cut(values, np.linspace(low, high, 6), include_lowest=True)
        labels = [f"{b.left:g}–{b.right:g}" for b in values.cat.categories]
        values = values.cat.rename_categories(labels)
    counts = pd.crosstab(ratings.data["system"], values).reindex(index=order, fill_value=0)
    if rank:
        counts = counts[counts.columns[::-1]]  # worst rank left, best right
    share = counts.div(counts.sum(axis=1).replace(0, np.nan), axis=0).fillna(0.0) * 100
    k = share.shape[1]
    colours = [colormaps[DIVERGING](x) for x in np.linspace(0.1, 0.9, k)]
    if k % 2:
        colours[k // 2] = NEUTRAL
    left = diverging_start(share)
    fig = Figure(figsize=(5.6, 0.42 * len(order) + 1.6))
    ax = fig.add_subplot()
    y = np.arange(len(order))[::-1]
    bars = []
    for i, column in enumerate(share.columns):
        width = share[column].to_numpy()
        bars.append(
            ax.barh(y, width, left=left.to_numpy(), color=colours[i], edgecolor="white", linewidth=0.6)
        )
        left = left + share[column]
    ax.axvline(0, color="#333333", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels(order)
    limit = max(5.0, float(np.ceil(np.abs(ax.get_xlim()).max() / 10) * 10))
    ax.set_xlim(-limit, limit)
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{abs(v):g}")
    ax.set_xlabel("share of the system's judgements (%)")
    ax.set_ylabel("system")
    names = [f"{c:g}" if isinstance(c, int | float | np.number) else str(c) for c in share.columns]
    # explicit handles: matplotlib would drop labels starting with "_"
    ax.legend(
        bars,
        names,
        title=("rank (1 = best)" if rank else "score"),
        title_fontsize=TICK_SIZE - 1,
        frameon=False,
        fontsize=TICK_SIZE - 1,
        ncols=min(k, 7),
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        handlelength=1.2,
        columnspacing=0.8,
    )
    _style(ax, grid="x")
    return _save(fig, path)


def diverging_start(share: pd.DataFrame) -> pd.Series:
    """Where each row's diverging bar starts: minus the share of the categories below the middle,
    and half of the middle category when there is one (an odd number of categories)."""
    k = share.shape[1]
    middle = share.iloc[:, k // 2] / 2 if k % 2 else 0.0
    return -(share.iloc[:, : k // 2].sum(axis=1) + middle)


def means_figure(table: pd.DataFrame, response: str, path: Path, unit: str | None = None) -> Path:
    """Mean per system with its interval and rank-group label, best at the top; ``unit`` names the
    axis (default: mean score, or mean rank for ranks)."""
    fig = Figure(figsize=(5.2, 0.45 * len(table) + 1.1))
    ax = fig.add_subplot()
    y = np.arange(len(table))[::-1]
    mean = table["mean"].to_numpy(dtype=float)
    low = np.where(np.isfinite(table["ci_low"]), mean - table["ci_low"], 0)
    high = np.where(np.isfinite(table["ci_high"]), table["ci_high"] - mean, 0)
    ax.errorbar(mean, y, xerr=[low, high], fmt="o", color=BETTER, ecolor="#9e9ac8", capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels(table["system"])
    # the label sits right of the interval: its larger end, or its smaller one on the inverted rank axis
    ends = mean - low if lower_is_better(response) else mean + high
    for yi, m, end, group in zip(y, mean, ends, table["rank_group"], strict=True):
        ax.annotate(
            f"{m:.2f} ({group})",
            (end, yi),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=TICK_SIZE - 1,
        )
    ax.set_xlabel(unit or ("mean rank (1 = best)" if lower_is_better(response) else "mean score"))
    ax.set_ylabel("system")
    if lower_is_better(response):
        ax.invert_xaxis()
    ax.margins(x=0.18)
    _style(ax, grid="x")
    return _save(fig, path)


def significance_matrix(contrasts: pd.DataFrame, order: list[str], path: Path) -> Path:
    """Pairwise adjusted p-values: purple where the row system is significantly better, orange where
    it is significantly worse (colour-blind safe), grey where the pair does not differ; the cell
    also says "better"/"worse", so the matrix reads in greyscale too."""
    n = len(order)
    index = {s: i for i, s in enumerate(order)}
    colour = np.full((n, n), "#ffffff", dtype=object)
    text = np.full((n, n), "", dtype=object)
    for row in contrasts.itertuples():
        i, j = index[row.system_a], index[row.system_b]
        p = "<.001" if row.p_adj < 1e-3 else f"{row.p_adj:.3f}"
        text[i, j] = text[j, i] = p
        if row.better is None:
            colour[i, j] = colour[j, i] = NEUTRAL
        else:
            win, lose = (i, j) if row.better == row.system_a else (j, i)
            colour[win, lose], colour[lose, win] = BETTER, WORSE
            text[win, lose], text[lose, win] = f"{p}\nbetter", f"{p}\nworse"
    fig = Figure(figsize=(1.1 * n + 2.0, 0.9 * n + 1.4))
    ax = fig.add_subplot()
    for i in range(n):
        for j in range(n):
            face = "#f5f5f5" if i == j else colour[i, j]
            ax.add_patch(_rect(j, n - 1 - i, face))
            ax.text(
                j + 0.5,
                n - 0.5 - i,
                text[i, j],
                ha="center",
                va="center",
                fontsize=TICK_SIZE - 1,
                color="white" if face == BETTER else "#1d1d1d",
            )
    ax.set_xlim(0, n)
    ax.set_ylim(0, n)
    ax.set_xticks(np.arange(n) + 0.5)
    ax.set_xticklabels(order, rotation=30, ha="right", fontsize=TICK_SIZE)
    ax.set_yticks(np.arange(n)[::-1] + 0.5)
    ax.set_yticklabels(order, fontsize=TICK_SIZE)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_aspect("equal")
    ax.set_xlabel("column system", fontsize=LABEL_SIZE)
    ax.set_ylabel("row system", fontsize=LABEL_SIZE)
    ax.set_title(
        "adjusted p; purple: row better, orange: row worse, grey: no difference", fontsize=TICK_SIZE - 1
    )
    return _save(fig, path)


def _rect(x: float, y: float, face: str):
    from matplotlib.patches import Rectangle

    return Rectangle((x, y), 1, 1, facecolor=face, edgecolor="white", linewidth=2)


def time_curve_figure(buckets: list[dict[str, float]], path: Path) -> Path:
    """Mean r per 10-minute bucket with its 95 % interval (Fig. 3.5)."""
    frame = pd.DataFrame(buckets)
    x = (frame["minutes_from"] + frame["minutes_to"]) / 2
    fig = Figure(figsize=(6.4, 3.0))
    ax = fig.add_subplot()
    ax.fill_between(
        x, frame["ci_low"].clip(upper=1), frame["ci_high"].clip(upper=1), color="#dadaeb", linewidth=0
    )
    ax.plot(x, frame["mean_r"], color=BETTER, marker="o", markersize=2.5, linewidth=1)
    ax.set_ylim(bottom=max(float(frame["ci_low"].min()), float(frame["mean_r"].min()) - 0.1))
    ax.set_xlabel("annotator time in the subsample (minutes)")
    ax.set_ylabel("r with full-data system means")
    _style(ax)
    return _save(fig, path)


def power_figure(pairs: pd.DataFrame, target: float, path: Path) -> Path:
    """Power per pair (ARTagg when it can reject, and the CLMM when simulated) with 95 % Clopper–Pearson
    bars."""
    tests = [("artagg", "ARTagg (block means)", "#b2abd2")] if pairs["artagg"].notna().any() else []
    if pairs["clmm"].notna().any():
        tests.append(("clmm", "CLMM", BETTER))
    fig = Figure(figsize=(6.4, 0.3 * len(pairs) * (1 + 0.4 * (len(tests) - 1)) + 1.0))
    ax = fig.add_subplot()
    y = np.arange(len(pairs))[::-1].astype(float)
    height = 0.8 / len(tests)
    for k, (column, label, colour) in enumerate(tests):
        offset = (k - (len(tests) - 1) / 2) * height
        ax.barh(
            y - offset,
            pairs[column],
            height=height,
            color=colour,
            label=label,
            xerr=np.clip(
                [pairs[column] - pairs[f"{column}_ci_low"], pairs[f"{column}_ci_high"] - pairs[column]],
                0,
                None,
            ),
            error_kw={"ecolor": "#555555", "capsize": 2, "lw": 0.8},
        )
    ax.axvline(target, color=WORSE, linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [f"{p}  (Δ={d:+.2f})" for p, d in zip(pairs["pair"], pairs["true_difference"], strict=True)],
    )
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("simulated power")
    ax.set_ylabel("system pair (Δ on the latent scale)")
    ax.legend(frameon=False, fontsize=TICK_SIZE - 1, ncols=2, loc="lower left", bbox_to_anchor=(0, 1.0))
    _style(ax, grid="x")
    return _save(fig, path)


def scale_use_figure(groups: pd.DataFrame, path: Path) -> Path:
    """Each annotator's location shift against its spread (× the median annotator's), with ±1.96
    conditional-SD bars: annotators right of 1 use more of the scale, those left of it compress it."""
    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    spread = np.exp(groups["log_spread"])
    low = spread - np.exp(groups["log_spread"] - 1.96 * groups["log_spread_se"])
    high = np.exp(groups["log_spread"] + 1.96 * groups["log_spread_se"]) - spread
    ax.errorbar(
        spread,
        groups["shift"],
        xerr=[low, high],
        yerr=1.96 * groups["shift_se"],
        fmt="o",
        color=BETTER,
        ecolor="#bbbbbb",
        elinewidth=0.7,
        markersize=3.5,
    )
    ax.axvline(1.0, color="#888888", linestyle="--", linewidth=0.8)
    ax.axhline(0.0, color="#888888", linestyle="--", linewidth=0.8)
    ax.set_xscale("log")
    ax.xaxis.set_major_locator(FixedLocator([0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("spread (× the median annotator's; log axis)")
    ax.set_ylabel("location shift (latent units)")
    _style(ax, grid="both")
    return _save(fig, path)
