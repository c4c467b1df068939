"""Power curves: power (and the tests' Type I error) along the size of one factor of the design.

Like simr's ``powerCurve``: the design is simulated at each break of one factor — for a block
design B × D × A the number of blocks (``blocks``), documents per block (``documents``) or
annotators per block (``annotators``); for a planned table the number of blocks, annotators or
documents in total (:meth:`~humaneval.simulate.table_design.TableDesign.resize`). Every point is
a full :func:`~humaneval.simulate.experiment.simulate` run with the same seed, reported with its
95 % Clopper–Pearson interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.core.docstrings import shared_docs
from humaneval.errors import DesignError
from humaneval.present.document import Block, Bullets, Paragraph
from humaneval.present.formatting import fmt_estimate_ci
from humaneval.present.printable import Formatter, Printable, frame_table
from humaneval.simulate.designs import SimDesign
from humaneval.simulate.experiment import SimulationResult, check_size, design_line, resolve_model, simulate
from humaneval.simulate.table_design import TableDesign
from humaneval.stats.proportions import CALIBRATION_RANGE

ALONG = ("blocks", "documents", "annotators")
FIGURE_FORMATS = ("png", "svg", "pdf")


@dataclass(frozen=True, eq=False)
class PowerCurve(Printable):
    """One row per (break, test, aggregate): power with its interval, failures and Type I error."""

    along: str
    table: pd.DataFrame
    results: tuple[SimulationResult, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"along": self.along, "points": self.table.to_dict(orient="records")}

    def blocks(
        self, design: SimDesign | TableDesign | None = None, notes: Sequence[str] = ()
    ) -> tuple[Block, ...]:
        """One row per break and test: power with its 95 % interval, failures, Type I error when
        calibrated; ``design`` (the one the curve resizes) and ``notes`` head the text."""
        of = "" if design is None else f" of {design_line(design)}"
        table = self.table.assign(
            power=[fmt_estimate_ci(r.rate, r.ci_low, r.ci_high) for r in self.table.itertuples()]
        )
        columns: dict[str, Formatter | None] = {
            "break": None,
            "test": None,
            "aggregate": None,
            "power": None,
            "n_failed": None,
        }
        if "type1" in table:
            table["type1_shown"] = [
                fmt_estimate_ci(r.type1, r.type1_ci_low, r.type1_ci_high) for r in table.itertuples()
            ]
            columns["type1_shown"] = None
        names = {"aggregate": "level", "power": "power [95% CI]", "n_failed": "failed"}
        return (
            Paragraph((f"power curve along {self.along}{of}",)),
            *((Bullets(tuple((n,) for n in notes)),) if notes else ()),
            frame_table(table, columns, names={**names, "type1_shown": "Type I [95% CI]"}),
        )

    def plot(self, path: str | Path, formats: Sequence[str] = FIGURE_FORMATS) -> list[Path]:
        """Power (and Type I error when calibrated) against the break, one line per test.

        Writes ``path`` with each suffix of ``formats`` and returns the files.
        """
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        calibrated = "type1" in self.table and self.table["type1"].notna().any()
        fig, axes = plt.subplots(
            1, 2 if calibrated else 1, figsize=(9 if calibrated else 5, 3.6), squeeze=False
        )
        panels = [("rate", "ci_low", "ci_high", "power")]
        if calibrated:
            panels.append(("type1", "type1_ci_low", "type1_ci_high", "Type I error"))
        for ax, (value, low, high, label) in zip(axes[0], panels, strict=True):
            for (test, aggregate), group in self.table.groupby(["test", "aggregate"], sort=False):
                group = group.sort_values("break")
                yerr = [group[value] - group[low], group[high] - group[value]]
                name = test if test in ("clmm", "artagg") else f"{test} ({aggregate})"
                ax.errorbar(group["break"], group[value], yerr=yerr, marker="o", ms=3, capsize=3, label=name)
            if value == "type1":
                ax.axhspan(*CALIBRATION_RANGE, color="green", alpha=0.12, lw=0)
            ax.set_xlabel(_axis_label(self.along, self.table))
            ax.set_ylabel(label)
            ax.set_ylim(-0.02, 1.02 if value == "rate" else max(0.2, float(self.table[high].max()) + 0.02))
            ax.grid(alpha=0.3)
        axes[0][0].legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        written = []
        for fmt in formats:
            target = path.with_suffix(f".{fmt}")
            fig.savefig(target, dpi=110)
            written.append(target)
        plt.close(fig)
        return written


def _axis_label(along: str, table: pd.DataFrame) -> str:
    if "per block" in str(table.get("unit", pd.Series([""])).iloc[0]):
        return f"{along} per block"
    return f"{along} in total" if along != "blocks" else "blocks"


def resize(design: SimDesign | TableDesign, along: str, count: int) -> SimDesign | TableDesign:
    """``design`` with ``count`` blocks, documents or annotators (see the module docstring)."""
    if along not in ALONG:
        raise DesignError(f"--along {along!r}: use one of {', '.join(ALONG)}")
    if isinstance(design, TableDesign):
        return design.resize(along, count)
    key = {"blocks": "blocks", "documents": "docs", "annotators": "annotators"}[along]
    return replace(design, **{key: count})


def parse_breaks(text: str | Sequence[int]) -> tuple[int, ...]:
    """``"1,3,5,10"`` → (1, 3, 5, 10): distinct whole numbers ≥ 1, in increasing order."""
    items = [t.strip() for t in text.split(",") if t.strip()] if isinstance(text, str) else list(text)
    try:
        values = [int(v) for v in items]
    except (TypeError, ValueError):
        raise DesignError(
            f"--breaks {text!r}: give whole numbers separated by commas, e.g. 1,3,5,10"
        ) from None
    if not values or min(values) < 1:
        raise DesignError(f"--breaks {text!r}: give whole numbers of at least 1, e.g. 1,3,5,10")
    if len(set(values)) != len(values):
        raise DesignError(f"--breaks {text!r}: a break is repeated; give each once")
    return tuple(sorted(values))


@shared_docs
def power_curve(
    model: Any,
    design: SimDesign | TableDesign | str,
    along: str,
    breaks: str | Sequence[int],
    tests: Sequence[str] = ("artagg",),
    **options: Any,
) -> PowerCurve:
    """Simulate ``design`` at every break of ``along`` and collect power per test.

    ``options`` go to :func:`~humaneval.simulate.experiment.simulate` (``calibrate=True`` adds the
    Type I error of each test at each break; ``checkpoint`` is taken as a folder, one file per
    break). Every design is built and checked before the first simulation starts.

    Parameters
    ----------
    model : OrdinalModel, FitResult, path or None
        %(generating_model)s
    design : SimDesign, TableDesign or str
        The design to resize.
    along : {"blocks", "docs", "annotators"}
        What changes between breaks (per block for a ``BxDxA`` design, in total for a table).
    breaks : str or sequence of int
        The counts, e.g. ``"5,10,20"``.
    tests : sequence of str
        As for :func:`~humaneval.simulate.simulate`.
    **options
        As for :func:`~humaneval.simulate.simulate`.

    Returns
    -------
    PowerCurve
        ``table`` with one row per break and test (``rate``, ``ci_low``, ``ci_high``,
        ``judgements``, …) and the per-break ``results``.

    Raises
    ------
    DesignError
        An unknown ``along``, bad breaks, or a design a break makes invalid.

    Examples
    --------
    With 5 blocks the ART on block means cannot reject at 0.05 (2⁻⁴ = 0.0625 is its smallest
    two-sided p); power rises with the blocks:

    >>> curve = power_curve(None, "5x5x3", "blocks", "5,10,20", trials=100, seed=1)
    >>> curve.table[["break", "judgements", "rate"]].round(3).values.tolist()
    [[5.0, 375.0, 0.0], [10.0, 750.0, 0.768], [20.0, 1500.0, 0.898]]
    """
    if isinstance(design, str):
        design = SimDesign.parse(design)
    values = parse_breaks(breaks)
    designs = [resize(design, along, v) for v in values]
    resolved = resolve_model(model)
    for point in designs:
        check_size(point, resolved)
    folder = options.pop("checkpoint", None)
    rows, results = [], []
    for value, point in zip(values, designs, strict=True):
        if folder is not None:
            options["checkpoint"] = Path(folder) / f"{along}-{value}.jsonl"
        result = simulate(model, point, tests, **options)
        results.append(result)
        calibration = None if result.calibration is None else result.calibration.overall()
        for k, row in result.overall().iterrows():
            entry = {
                "along": along,
                "break": value,
                "unit": f"{along} per block" if isinstance(design, SimDesign) else f"{along} in total",
                "design": point.label,
                "judgements": point.judgements(len(result.config.model.system_names)),
                "test": row["test"],
                "aggregate": row["aggregate"],
                "rate": row["rate"],
                "ci_low": row["ci_low"],
                "ci_high": row["ci_high"],
                "n_trials": row["n_trials"],
                "n_failed": row["n_failed"],
                "rungs": ", ".join(f"{r} {n}" for r, n in sorted(result.rungs.items())),
            }
            if calibration is not None:
                cal = calibration.iloc[k]
                entry.update(type1=cal["rate"], type1_ci_low=cal["ci_low"], type1_ci_high=cal["ci_high"])
            rows.append(entry)
    return PowerCurve(along, pd.DataFrame(rows), tuple(results))


def plot_result(
    result: SimulationResult, path: str | Path, formats: Sequence[str] = FIGURE_FORMATS
) -> list[Path]:
    """Per-pair power (or Type I error) of one run with 95 % Clopper–Pearson intervals, one panel per test.

    Writes ``path`` with each suffix of ``formats`` and returns the files.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = result.results
    groups = list(table.groupby(["test", "aggregate"], sort=False))
    n_pairs = int((table["pair"] != "all").sum() / max(len(groups), 1)) + 1
    fig, axes = plt.subplots(
        1, len(groups), figsize=(3.2 * len(groups) + 1.5, 0.32 * n_pairs + 1.2), sharey=True, squeeze=False
    )
    for ax, ((test, aggregate), group) in zip(axes[0], groups, strict=True):
        y = range(len(group))
        ax.errorbar(
            group["rate"],
            y,
            xerr=[group["rate"] - group["ci_low"], group["ci_high"] - group["rate"]],
            fmt="o",
            ms=3,
            capsize=2,
        )
        ax.set_yticks(list(y), [str(p) for p in group["pair"]], fontsize=7)
        ax.set_xlim(-0.02, 1.02)
        ax.set_title(test if test in ("clmm", "artagg") else f"{test} ({aggregate})", fontsize=9)
        ax.set_xlabel("Type I error" if result.config.null else "power")
        ax.grid(alpha=0.3)
    axes[0][0].invert_yaxis()
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        target = path.with_suffix(f".{fmt}")
        fig.savefig(target, dpi=110)
        written.append(target)
    plt.close(fig)
    return written
