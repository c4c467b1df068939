"""The reliability summary of one criterion, as ``humaneval reliability`` prints it.

Combines Krippendorff's α with its KALPHA interval, Fleiss' κ where every unit
has the same number of ratings, split-half reliability and, given annotator times, the bucketed
time-vs-reliability curve (docs/reliability.md). A statistic that the design cannot support is
reported as ``None`` with a note saying why, so one missing piece never hides the others; an SHR
from fewer than 10 distinct splits carries ``shr_caveat``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import overload

import pandas as pd

from humaneval.core.deprecation import renamed, renamed_attribute
from humaneval.core.ratings import Ratings
from humaneval.core.structure import describe_structure
from humaneval.errors import HumanEvalError
from humaneval.methods import get_method
from humaneval.methods.base import MethodTable
from humaneval.present.document import Block, Bullets, Column, Paragraph, Table
from humaneval.present.formatting import MISSING, fmt, fmt_ci
from humaneval.present.printable import Printable
from humaneval.reliability.agreement import fleiss_kappa
from humaneval.reliability.alpha import Level, krippendorff_alpha
from humaneval.reliability.bootstrap import kalpha_bootstrap
from humaneval.reliability.curves import time_buckets, time_reliability_curve
from humaneval.reliability.splithalf import split_half_reliability


@dataclass(frozen=True, repr=False)
class ReliabilityReport(Printable):
    """Flat summary of agreement and split-half reliability for one criterion."""

    criterion: str | None
    alpha: float
    level_of_measurement: str
    alpha_ci: tuple[float, float] | None
    alpha_ci_method: str | None
    alpha_q: dict[float, float]
    n_resamples: int
    n_pairable: int
    n_pairable_units: int
    n_units_dropped: int
    fleiss_kappa: float | None
    shr: float | None
    shr_sd: float | None
    shr_spearman_brown: float | None
    shr_quantiles: tuple[float, float, float] | None
    shr_n_splits: int
    design_family: str
    n_blocks: int
    seed: int | None
    time_curve: list[dict[str, float]] | None = None
    notes: list[str] = field(default_factory=list)
    shr_caveat: str | None = None
    scale: tuple[float, float] | None = None
    scale_declared: bool = False

    def blocks(self, source: str | None = None) -> tuple[Block, ...]:
        """The report as ``humaneval reliability`` prints it, titled by ``source`` (e.g. the file)."""
        alpha = fmt(self.alpha)
        if self.alpha_ci is not None:
            alpha += f"  95% CI {fmt_ci(*self.alpha_ci)} (KALPHA, {self.n_resamples} resamples)"
            alpha += "".join(f"; P(α < {k:g}) = {fmt(v)}" for k, v in self.alpha_q.items())
        shr = MISSING
        if self.shr is not None and self.shr_caveat:
            shr = f"{fmt(self.shr)} from {self.shr_n_splits} split(s) only: not an estimate (see note)"
        elif self.shr is not None:
            shr = (
                f"{fmt(self.shr)} (sd {fmt(self.shr_sd)} over {self.shr_n_splits} splits); "
                f"Spearman–Brown {fmt(self.shr_spearman_brown)}"
            )
        rows = [
            (f"Krippendorff's α ({self.level_of_measurement})", alpha),
            ("pairable values / units", f"{self.n_pairable} / {self.n_pairable_units}"),
            ("units with one rating (dropped)", self.n_units_dropped),
            ("Fleiss' κ", fmt(self.fleiss_kappa)),
            ("split-half reliability", shr),
            ("design", f"{self.design_family}, {self.n_blocks} blocks"),
        ]
        if self.scale is not None:
            low, high = self.scale
            rows.append(("scale", f"{low:g}-{high:g} ({'declared' if self.scale_declared else 'inferred'})"))
        title = (source or "ratings") + (f" [{self.criterion}]" if self.criterion else "")
        blocks: list[Block] = [
            Paragraph((f"{title}: reliability",)),
            Table((Column(""), Column("")), tuple((k, str(v)) for k, v in rows), facts=True),
        ]
        if self.time_curve:
            hourly = [b for b in self.time_curve if b["minutes_from"] % 60 == 0]
            blocks.append(
                Table(
                    (Column("minutes"), Column("mean r", align="r"), Column("n", align="r")),
                    tuple(
                        (f"{b['minutes_from']:.0f}-{b['minutes_to']:.0f}", fmt(b["mean_r"]), str(b["n"]))
                        for b in hourly
                    ),
                    caption=("time vs reliability, every hour (all buckets in --json)",),
                )
            )
        notes = [*self.notes, *([self.shr_caveat] if self.shr_caveat else [])]
        if notes:
            blocks.append(Bullets(tuple((f"note: {n}",) for n in notes)))
        return tuple(blocks)

    def brief(self) -> str:
        """α with its interval, Fleiss' κ, split-half reliability and the design (the ``repr``)."""
        criterion = f"[{self.criterion}] " if self.criterion else ""
        ci = f" {fmt_ci(*self.alpha_ci)}" if self.alpha_ci is not None else ""
        return (
            f"{criterion}{self.level_of_measurement} α {fmt(self.alpha)}{ci}, "
            f"Fleiss' κ {fmt(self.fleiss_kappa)}, split-half {fmt(self.shr)}; "
            f"{self.design_family} design, {self.n_blocks} blocks"
        )

    alpha_level = renamed_attribute("alpha_level", "level_of_measurement")
    n_bootstrap = renamed_attribute("n_bootstrap", "n_resamples")

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out["alpha_q"] = {str(k): v for k, v in self.alpha_q.items()}
        return out


_BY_METHOD: dict[str, Callable[..., Printable]] = {}


def register_reliability(method: str, measure: Callable[..., Printable]) -> None:
    """Add the agreement statistics of a table of another method's answers, from the package that reads
    it (above this layer): ``humaneval.spans.adapter`` registers the span tables' (``measure(table,
    n_resamples=, seed=)``)."""
    _BY_METHOD[method] = measure


@overload
def reliability_report(
    ratings: Ratings,
    *,
    level_of_measurement: Level = ...,
    n_resamples: int = ...,
    alpha_min: Sequence[float] = ...,
    n_splits: int = ...,
    seed: int | None = ...,
    times: pd.Series | None = ...,
    criterion: str | None = ...,
) -> ReliabilityReport: ...
@overload
def reliability_report(
    ratings: MethodTable, *, n_resamples: int = ..., seed: int | None = ...
) -> Printable: ...
@renamed(level="level_of_measurement", n_bootstrap="n_resamples")
def reliability_report(
    ratings: Ratings | MethodTable,
    *,
    level_of_measurement: Level = "ordinal",
    n_resamples: int = 5000,
    alpha_min: Sequence[float] = (0.667,),
    n_splits: int = 1000,
    seed: int | None = None,
    times: pd.Series | None = None,
    criterion: str | None = None,
) -> ReliabilityReport | Printable:
    """α (+ KALPHA CI), Fleiss' κ, SHR and optionally the time curve of one criterion's ratings.

    A statistic the data or design cannot support (Fleiss' κ with unequal ratings per unit, SHR of
    a single block, …) is left out with a note rather than failing the report.

    Parameters
    ----------
    ratings : Ratings or MethodTable
        One criterion's ratings; a table of another method's answers (a span table) gets the
        statistics its method registered (:func:`register_reliability`; docs/spans.md), which take
        ``n_resamples`` and ``seed`` only.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}
        Of Krippendorff's α (formerly ``level=``).
    n_resamples : int
        KALPHA bootstrap resamples (0: no interval; formerly ``n_bootstrap=``).
    alpha_min : sequence of float
        Thresholds whose probability P(α < α_min) is reported.
    n_splits : int
        Splits of the split-half reliability.
    seed : int, optional
        Seed of the bootstrap and the splits.
    times : Series, optional
        Seconds per annotation, for the reliability-over-time curve.
    criterion : str, optional
        The criterion's name, for the report's title.

    Returns
    -------
    ReliabilityReport
        ``summary()`` is the text of ``humaneval reliability``, ``to_dict()`` its ``--json``
        (a span table: :class:`~humaneval.spans.agreement.SpanReliability`).

    Raises
    ------
    OptionError
        An unknown level of measurement, or too few resamples for a percentile interval.
    RatingsError
        A malformed table.

    References
    ----------
    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability measure
    for coding data. Communication Methods and Measures, 1(1), 77–89.

    Examples
    --------
    >>> from humaneval.io.datasets import wine_ratings
    >>> from humaneval.core.ratings import as_ratings
    >>> report = reliability_report(as_ratings(wine_ratings()), n_resamples=1000, n_splits=200, seed=1)
    >>> report  # doctest: +ELLIPSIS
    <ReliabilityReport ordinal α 0.344 [0.250, 0.437], Fleiss' κ 0.040, split-half –; ...>
    >>> print(report.notes[0])  # doctest: +ELLIPSIS
    SHR not computed: the design has a single block ...
    """
    if isinstance(ratings, MethodTable) and not isinstance(ratings, Ratings | pd.DataFrame):
        measure = _BY_METHOD[get_method(ratings.method).name]  # the table's method decides
        return measure(ratings, n_resamples=n_resamples, seed=seed)
    notes: list[str] = []
    alpha = krippendorff_alpha(ratings, level_of_measurement)
    ci = ci_method = None
    q: dict[float, float] = {}
    if n_resamples:
        boot = kalpha_bootstrap(
            ratings, level_of_measurement, n_resamples=n_resamples, alpha_min=alpha_min, seed=seed
        )
        ci, ci_method, q = boot.ci, "kalpha", boot.q
    kappa = _or_note(lambda: fleiss_kappa(ratings).kappa, "Fleiss' κ", notes)
    shr = _or_note(lambda: split_half_reliability(ratings, n_splits=n_splits, seed=seed), "SHR", notes)
    curve = None
    if times is not None:
        raw = _or_note(lambda: time_reliability_curve(ratings, times, seed=seed), "time curve", notes)
        if raw is not None:
            curve = time_buckets(raw).to_dict(orient="records")
    structure = describe_structure(ratings)
    return ReliabilityReport(
        criterion=criterion,
        alpha=alpha.alpha,
        level_of_measurement=alpha.level_of_measurement,
        alpha_ci=ci,
        alpha_ci_method=ci_method,
        alpha_q=q,
        n_resamples=n_resamples,
        n_pairable=alpha.n_pairable_values,
        n_pairable_units=alpha.n_pairable_units,
        n_units_dropped=alpha.n_units_dropped,
        fleiss_kappa=kappa,
        shr=None if shr is None else shr.shr,
        shr_sd=None if shr is None else shr.sd,
        shr_spearman_brown=None if shr is None else shr.spearman_brown,
        shr_quantiles=None if shr is None else shr.quantiles,
        shr_n_splits=0 if shr is None else shr.n_splits,
        design_family=structure.family,
        n_blocks=structure.n_blocks,
        seed=seed,
        time_curve=curve,
        notes=notes,
        shr_caveat=None if shr is None else shr.caveat,
        scale=ratings.scale if ratings.response == "score" else None,
        scale_declared=ratings.scale_declared,
    )


def _or_note(compute, what: str, notes: list[str]):
    """The statistic, or ``None`` with a note when the data or design cannot support it."""
    try:
        return compute()
    except HumanEvalError as exc:
        notes.append(f"{what} not computed: {exc}")
        return None
