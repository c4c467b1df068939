"""Shared pieces of the reproduction scripts: options, the reference power files, line plots.

The scripts reproduce dissertation §3.6.5 / §3.7 (Fig. 3.6, 3.7, 3.9) with :mod:`humaneval.simulate`
and write a CSV and a PNG each into ``--out`` (default ``simulations/output``). Per-design JSONL
checkpoints go to ``<out>/checkpoints/<script>/`` so an interrupted run resumes with ``--resume``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib
import pandas as pd

from humaneval.clmm.model import default_model
from humaneval.simulate.obspower import read_obspower

HERE = Path(__file__).resolve().parent
OBSPOWER = HERE.parent.parent / "shared" / "data" / "steen2021" / "obspower"
#: Fig. 3.6 designs (blocks, docs per block) with 3 annotators per block: 100 documents × 3 judgements.
FIXED_BUDGET = [(1, 100), (2, 50), (4, 25), (5, 20), (10, 10), (20, 5), (50, 2), (100, 1)]


def parser(description: str, trials: int, clmm_trials: int | None = None) -> argparse.ArgumentParser:
    args = argparse.ArgumentParser(description=description)
    args.add_argument("--trials", type=int, default=trials, help="replicates per design for t-test/ART")
    if clmm_trials is not None:
        args.add_argument(
            "--clmm-trials", type=int, default=clmm_trials, help="replicates per design for the CLMM"
        )
        args.add_argument("--no-clmm", action="store_true", help="skip the (slow) CLMM fits")
    args.add_argument("--seed", type=int, default=1)
    args.add_argument("--workers", type=int, default=2)
    args.add_argument("--out", type=Path, default=HERE / "output")
    args.add_argument("--resume", action="store_true", help="continue the checkpoints of an earlier run")
    args.add_argument("--obspower", type=Path, default=OBSPOWER, help="reference power files (optional)")
    return args


def checkpoints(out: Path, script: str) -> Path:
    return out / "checkpoints" / script


def published_power(folder: Path) -> pd.DataFrame | None:
    """The reference study's CLMM power per design (spec §6.5), or None when the files are absent."""
    if not folder.is_dir():
        return None
    return read_obspower(folder, default_model())


def reference_series(reference: pd.DataFrame, series: str) -> pd.DataFrame:
    """Rows of :func:`published_power` as a plot series (failed R fits counted as non-significant)."""
    frame = reference.assign(
        series=series,
        rate=reference["power"],
        test="clmm",
        aggregate="none",
        n_trials=reference["iterations"],
        n_failed=reference["failed_iterations"],
    )
    columns = ["blocks", "docs", "annotators", "total_annotators", "series", "test", "aggregate"]
    return frame[[*columns, "rate", "mc_se", "n_trials", "n_failed"]]


def without_failures(frame: pd.DataFrame, series: str) -> pd.DataFrame:
    """The rates among successful fits as their own series."""
    return frame.assign(series=series, rate=frame["rate_successful"], mc_se=frame["mc_se_successful"])


def plot_series(
    frame: pd.DataFrame,
    x: str,
    path: Path,
    *,
    ylabel: str,
    xlabel: str,
    title: str,
    hline: float | None = None,
    logx: bool = True,
) -> Path:
    """One line (with ±1.96 MC-SE bars) per ``series`` value of ``frame`` (columns x, rate, mc_se)."""
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for name, group in frame.groupby("series", sort=False):
        group = group.sort_values(x)
        style = "--" if "reference" in str(name) else "-"
        ax.errorbar(
            group[x],
            group["rate"],
            yerr=1.96 * group["mc_se"],
            marker="o",
            ms=3,
            capsize=2,
            ls=style,
            label=name,
        )
    if hline is not None:
        ax.axhline(hline, color="grey", ls="--", lw=1)
    if logx:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xticks(sorted(frame[x].unique()))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
