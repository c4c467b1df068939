"""The report's figures as PNG files (matplotlib, Agg canvas; no pyplot state is touched).

- :func:`score_distributions`: how often each score (or rank) was given to each system, one line
  per system — dissertation Fig. 3.4.
- :func:`means_figure`: system means with their block-bootstrap intervals and rank groups — the
  content of dissertation Table 3.2 as a figure.
- :func:`significance_matrix`: adjusted p-value of every pair, coloured by which system is better.
- :func:`time_curve_figure`: r with the full-data system means against annotator time, 10-minute
  buckets with 95 % intervals — dissertation Fig. 3.5 (analysis spec §3.3).
- :func:`power_figure`: simulated power per pair with ±1.96 Monte-Carlo SE and the target line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from humaneval.ratings import Ratings

DPI = 150
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
BETTER_ROW, BETTER_COL, NEUTRAL = "#2e7d32", "#c62828", "#e0e0e0"


def css_width(path: Path) -> int:
    """Display width in CSS pixels of a PNG written here (its pixel width at 100 dpi)."""
    with open(path, "rb") as handle:
        header = handle.read(24)
    return round(int.from_bytes(header[16:20], "big") * 100 / DPI)


def _save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, dpi=DPI, bbox_inches="tight", facecolor="white")
    return path


def _style(ax) -> None:
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)


def score_distributions(ratings: Ratings, order: list[str], path: Path) -> Path:
    """Counts of every response value per system (Fig. 3.4); ``order`` lists systems best first.
    Ranks are shown 1-based, as the analysis reports their means."""
    values = ratings.reported()
    counts = pd.crosstab(ratings.data["system"], values).reindex(index=order, fill_value=0)
    fig = Figure(figsize=(5.2, 3.4))
    ax = fig.add_subplot()
    lines = [
        ax.plot(row.index, row.to_numpy(), marker="o", markersize=4, color=COLOURS[i % len(COLOURS)])[0]
        for i, (_, row) in enumerate(counts.iterrows())
    ]
    ax.set_xticks(counts.columns)
    ax.set_xticklabels([f"{v:g}" for v in counts.columns])
    ax.set_xlabel("rank (1 = best)" if ratings.response == "rank" else "score")
    ax.set_ylabel("judgements")
    # explicit labels: matplotlib would drop names starting with "_" such as __REFERENCE__
    ax.legend(
        lines,
        order,
        frameon=False,
        fontsize=8,
        ncols=min(len(order), 3),
        loc="lower left",
        bbox_to_anchor=(0, 1.0),
    )
    _style(ax)
    return _save(fig, path)


def means_figure(table: pd.DataFrame, response: str, path: Path) -> Path:
    """Mean per system with its interval and rank-group label, best at the top."""
    fig = Figure(figsize=(5.2, 0.45 * len(table) + 1.1))
    ax = fig.add_subplot()
    y = np.arange(len(table))[::-1]
    mean = table["mean"].to_numpy(dtype=float)
    low = np.where(np.isfinite(table["ci_low"]), mean - table["ci_low"], 0)
    high = np.where(np.isfinite(table["ci_high"]), table["ci_high"] - mean, 0)
    ax.errorbar(mean, y, xerr=[low, high], fmt="o", color="#1f4e79", ecolor="#7f9fbf", capsize=3)
    ax.set_yticks(y)
    ax.set_yticklabels(table["system"])
    # the label sits right of the interval: its larger end, or its smaller one on the inverted rank axis
    ends = mean - low if response == "rank" else mean + high
    for yi, m, end, group in zip(y, mean, ends, table["rank_group"], strict=True):
        ax.annotate(
            f"{m:.2f} ({group})",
            (end, yi),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_xlabel("mean rank (1 = best)" if response == "rank" else "mean score")
    if response == "rank":
        ax.invert_xaxis()
    ax.margins(x=0.18)
    ax.spines[["top", "right"]].set_visible(False)
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    return _save(fig, path)


def significance_matrix(contrasts: pd.DataFrame, order: list[str], path: Path) -> Path:
    """Pairwise adjusted p-values: green where the row system is significantly better, red where
    it is significantly worse, grey where the pair does not differ."""
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
            colour[win, lose], colour[lose, win] = BETTER_ROW, BETTER_COL
    fig = Figure(figsize=(1.0 * n + 1.8, 0.8 * n + 1.0))
    ax = fig.add_subplot()
    for i in range(n):
        for j in range(n):
            face = "#f5f5f5" if i == j else colour[i, j]
            ax.add_patch(_rect(j, n - 1 - i, face))
            dark = face in (BETTER_ROW, BETTER_COL)
            ax.text(
                j + 0.5,
                n - 0.5 - i,
                text[i, j],
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "#333333",
            )
    ax.set_xlim(0, n)
    ax.set_ylim(0, n)
    ax.set_xticks(np.arange(n) + 0.5)
    ax.set_xticklabels(order, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(np.arange(n)[::-1] + 0.5)
    ax.set_yticklabels(order, fontsize=8)
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_aspect("equal")
    ax.set_title("row vs column: green = row better, red = row worse, grey = no difference", fontsize=8)
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
        x, frame["ci_low"].clip(upper=1), frame["ci_high"].clip(upper=1), color="#c6dbef", linewidth=0
    )
    ax.plot(x, frame["mean_r"], color="#1f4e79", marker="o", markersize=2.5, linewidth=1)
    ax.set_ylim(bottom=max(float(frame["ci_low"].min()), float(frame["mean_r"].min()) - 0.1))
    ax.set_xlabel("annotator time in the subsample (minutes)")
    ax.set_ylabel("r with full-data system means")
    _style(ax)
    return _save(fig, path)


def power_figure(pairs: pd.DataFrame, target: float, path: Path) -> Path:
    """Power per pair (ARTagg when it can reject, and the CLMM when simulated) with 95 % Wilson bars."""
    tests = [("artagg", "ARTagg (block means)", "#7f9fbf")] if pairs["artagg"].notna().any() else []
    if pairs["clmm"].notna().any():
        tests.append(("clmm", "CLMM", "#1f4e79"))
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
                [pairs[column] - pairs[f"{column}_low"], pairs[f"{column}_high"] - pairs[column]], 0, None
            ),
            error_kw={"ecolor": "#555555", "capsize": 2, "lw": 0.8},
        )
    ax.axvline(target, color="#c62828", linestyle="--", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(
        [f"{p}  (Δ={d:+.2f})" for p, d in zip(pairs["pair"], pairs["true_difference"], strict=True)],
        fontsize=8,
    )
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("simulated power")
    ax.legend(frameon=False, fontsize=8, ncols=2, loc="lower left", bbox_to_anchor=(0, 1.0))
    ax.spines[["top", "right"]].set_visible(False)
    return _save(fig, path)
