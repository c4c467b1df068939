"""Which analysis a table kind gets: one adapter per analysis path, chosen through the methods registry.

Every annotation method names its default analysis (``Method.analysis``: ``"clmm"`` for Likert,
slider and ranking tables, ``"comparative"`` for pairwise and best–worst tables; docs/methods.md).
:data:`ADAPTERS` maps that name to the adapter that runs it, as emmeans has one adapter per model
class, and :func:`adapter_for` is the one place that decides: :func:`~humaneval.analysis.workflow.
analyze` asks it, and ``humaneval analyze`` and ``humaneval report`` call :func:`analyze`, so one
table gets one model whichever door it came through.

Both adapters return a :class:`SystemAnalysis`: the system table with rank groups, the contrast
table, the fit, the cautions, ``blocks()`` (printed by ``summary()`` and a notebook's HTML through
:class:`~humaneval.present.printable.Printable`) and ``to_dict()`` (the ``--json`` schema of
docs/analysis.md). :class:`~humaneval.analysis.outcome.Analysis` (CLMM, classic tests) and
:class:`~humaneval.comparative.ComparativeAnalysis` (Bradley–Terry, MaxDiff, Plackett–Luce) both
satisfy it.

Adding an analysis path is one adapter here (a class with ``name`` and ``run``) and the name in the
methods that use it.
"""

from __future__ import annotations

from dataclasses import Field, dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import pandas as pd

from humaneval.analysis.joint import joint_analyses, joint_applies
from humaneval.analysis.options import AnalysisOptions
from humaneval.analysis.ordinal import clmm_analysis
from humaneval.comparative.analyze import analyze_comparative
from humaneval.core.docstrings import shared_docs
from humaneval.core.ratings import Ratings, as_ratings, select_criterion
from humaneval.core.responses import RANK
from humaneval.errors import OptionError
from humaneval.methods import get_method
from humaneval.methods.kinds import detect_kind

if TYPE_CHECKING:
    from humaneval.clmm.result import FitResult
    from humaneval.comparative.analyze import ComparativeFit
    from humaneval.present.document import Block


@runtime_checkable
class SystemAnalysis(Protocol):
    """What every analysis of a ratings table returns, whichever model fitted it.

    ``systems`` has one row per system (``system``, ``mean``, ``estimate``, ``label``, ``group``,
    ``letters``), ``contrasts`` one row per pair (``system_a``, ``system_b``, ``estimate``, ``se``,
    ``statistic``, ``p_unadj``, ``p_adj``, ``ci_low``, ``ci_high``, ``better``).
    """

    #: Every analysis is a dataclass: adjusted copies are made with ``dataclasses.replace``.
    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def test(self) -> str: ...
    @property
    def kind(self) -> str | None: ...
    @property
    def criterion(self) -> str | None: ...
    @property
    def adjust(self) -> str: ...
    @property
    def response(self) -> str: ...
    @property
    def systems(self) -> pd.DataFrame: ...
    @property
    def contrasts(self) -> pd.DataFrame: ...
    @property
    def fit(self) -> FitResult | ComparativeFit | None: ...
    @property
    def aggregate(self) -> str | None: ...
    @property
    def independent(self) -> bool: ...
    @property
    def cautions(self) -> tuple[str, ...]: ...

    def blocks(self) -> tuple[Block, ...]: ...

    def to_dict(self) -> dict[str, object]: ...


class AnalysisAdapter(Protocol):
    """One analysis path: ``run`` fits the criterion's table and returns a :class:`SystemAnalysis`."""

    name: ClassVar[str]
    title: ClassVar[str]

    def run(
        self, ratings: Ratings, kind: str, criterion: str | None, options: AnalysisOptions
    ) -> SystemAnalysis: ...


@dataclass(frozen=True)
class ClmmAdapter:
    """The cumulative link mixed model of ratings or ranks (Steen & Markert 2021)."""

    name: ClassVar[str] = "clmm"
    title: ClassVar[str] = "cumulative link mixed model"

    def run(
        self, ratings: Ratings, kind: str, criterion: str | None, options: AnalysisOptions
    ) -> SystemAnalysis:
        if options.inference is not None:
            raise OptionError(
                f"inference {options.inference!r} applies to pairwise, best–worst and Plackett–Luce "
                f"analyses; a {kind} table gets the CLMM, whose standard errors come from the model"
            )
        if options.style:
            raise OptionError(
                f"style covariates ({', '.join(options.style)}) are for pairwise tables (an 'opponent' "
                f"column with scores 1/0/0.5); a {kind} table gets the CLMM"
            )
        if joint_applies(ratings, kind):  # several criteria: one model of all (docs/analysis.md)
            select_criterion(ratings, criterion)  # an unknown or missing criterion is refused first
            return joint_analyses(ratings, options)[criterion]
        return clmm_analysis(ratings, kind, criterion, options)


@dataclass(frozen=True)
class ComparativeAdapter:
    """Bradley–Terry (mixed or with a cluster bootstrap), MaxDiff or Plackett–Luce strengths."""

    name: ClassVar[str] = "comparative"
    title: ClassVar[str] = "comparative-judgement model"

    def run(
        self, ratings: Ratings, kind: str, criterion: str | None, options: AnalysisOptions
    ) -> SystemAnalysis:
        return analyze_comparative(
            ratings,
            kind=kind,
            criterion=criterion,
            inference=options.inference,
            adjust=options.adjust,
            n_resamples=options.n_resamples,
            alpha=options.alpha,
            seed=1 if options.seed is None else options.seed,
            style=options.style,
        )


@dataclass(frozen=True)
class PPIAdapter:
    """Humans and a judge: prediction-powered system means, proportional-odds contrasts or Bradley–Terry
    strengths (docs/ppi.md), chosen by the table kind as the human analyses are."""

    name: ClassVar[str] = "ppi"
    title: ClassVar[str] = "prediction-powered inference"

    def run(
        self, ratings: Ratings, kind: str, criterion: str | None, options: AnalysisOptions
    ) -> SystemAnalysis:
        from humaneval.ppi.judged import analyze_ppi
        from humaneval.ppi.result import judged_analysis

        if options.inference is not None or options.style:
            raise OptionError("--inference and --style apply to the human-only comparative model, not to PPI")
        seed = options.seed if isinstance(options.seed, int) else 1
        ppi = analyze_ppi(
            ratings,
            judge=options.judge,
            judge_scores=options.judge_scores,
            criterion=criterion,
            model=options.judge_model,
            confidence_level=1 - options.alpha,
            adjust=options.adjust or "tukey",
            cluster=options.cluster,
            probabilities=options.probabilities,
            n_resamples=options.n_resamples,
            seed=seed,
        )
        table = select_criterion(ratings, criterion).without_checks()
        means = table.reported().groupby(table.data["system"]).mean()
        return judged_analysis(
            ppi,
            kind=kind,
            criterion=criterion,
            response=table.response,
            human_means=means,
            alpha=options.alpha,
        )


_REGISTERED: dict[str, AnalysisAdapter] = {
    a.name: a for a in (ClmmAdapter(), ComparativeAdapter(), PPIAdapter())
}
ADAPTERS: MappingProxyType[str, AnalysisAdapter] = MappingProxyType(_REGISTERED)
"""The analysis adapters by the name a :class:`~humaneval.methods.Method` gives as ``analysis``."""


def register_adapter(adapter: AnalysisAdapter) -> None:
    """Add the adapter of a table that is not a ratings table, from the package that reads it (which sits
    above this layer): ``humaneval.spans.adapter`` registers the span tables' ``spans`` adapter."""
    _REGISTERED[adapter.name] = adapter


MODEL_TESTS = ("clmm", "plackett-luce")
"""The ``test`` values that ask for a model rather than a classic test: ``clmm`` (the default) means
"the model of the table's kind"; ``plackett-luce`` analyses a ranking table as comparative judgements."""


def table_kind(ratings: Ratings | pd.DataFrame, criterion: str | None = None) -> str:
    """The kind of the criterion's table (``likert``, ``ranking``, ``bws`` or ``pairwise``)."""
    return detect_kind(select_criterion(as_ratings(ratings), criterion))


@shared_docs
def adapter_for(
    ratings: Ratings | pd.DataFrame, criterion: str | None = None, test: str = "clmm", judged: bool = False
) -> tuple[AnalysisAdapter, str]:
    """The adapter and table kind that analyse ``ratings`` (one criterion) for ``test``.

    Parameters
    ----------
    ratings : Ratings or DataFrame
        The ratings table.
    criterion : str, optional
        %(criterion_when_several)s
    test : {"clmm", "plackett-luce"}
        ``clmm``: the default model of the table's kind (``Method.analysis``);
        ``plackett-luce``: a ranking table as comparative judgements.
    judged : bool
        Humans and a judge (``analyze(..., judge=NAME)``): the ``ppi`` adapter.

    Returns
    -------
    (AnalysisAdapter, str)

    Examples
    --------
    >>> from humaneval.comparative.simulate import simulate_pairwise_study
    >>> from humaneval.io.datasets import wine_ratings
    >>> adapter, kind = adapter_for(simulate_pairwise_study([0.5, 0.0, -0.5], seed=1))
    >>> adapter.name, kind
    ('comparative', 'pairwise')
    >>> adapter_for(wine_ratings())[0].name
    'clmm'
    """
    if test not in MODEL_TESTS:
        raise OptionError(f"test {test!r} is not a model; use one of {', '.join(MODEL_TESTS)}")
    kind = table_kind(ratings, criterion)
    if judged:
        if test != "clmm":
            raise OptionError(f"a judge joins the table kind's model, not {test!r}; drop --test")
        return ADAPTERS["ppi"], kind
    if test == "plackett-luce":
        ranking = get_method(RANK).table_kind
        if kind != ranking:
            raise OptionError(f"the Plackett–Luce model is for ranking tables; this table is {kind}")
        return ADAPTERS["comparative"], ranking
    return ADAPTERS[get_method(kind).analysis], kind
