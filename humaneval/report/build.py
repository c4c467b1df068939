"""Collect one study report: every section comes from the package's own APIs, nothing is recomputed.

Per criterion the report holds exactly what ``humaneval analyze`` (:func:`~humaneval.analysis.workflow.
analyze`, CLMM, same defaults) and ``humaneval reliability`` (:func:`~humaneval.reliability.report.
reliability_report`, same defaults and seed) return, the system means with block-bootstrap intervals
(:mod:`humaneval.report.means`) and the power note (:mod:`humaneval.report.power`); for the study,
the design structure (independent blocks, :mod:`humaneval.core.structure`), QC flags
(:func:`humaneval.qc.qc_report`), the design summary and HEDS datasheet when a planned design is
given (Belz & Thomson's HEDS 3.0), and the warnings of :mod:`humaneval.report.cautions`, most
important first. docs/report.md lists what a report states.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.analysis.adapters import SystemAnalysis
from humaneval.analysis.criteria import CriteriaAnalysis
from humaneval.analysis.joint import JOINT_FORMULA, joint_applies
from humaneval.analysis.workflow import analyze
from humaneval.clmm.model import OrdinalModel
from humaneval.clmm.result import FitResult
from humaneval.comparative.agreement import ComparativeAgreement
from humaneval.comparative.analyze import ComparativeAnalysis
from humaneval.comparative.power import ComparativePower
from humaneval.core.deprecation import renamed
from humaneval.core.ratings import Ratings, load_ratings, select_criterion
from humaneval.core.structure import DesignStructure, describe_structure
from humaneval.design.load import DesignLike, load_design
from humaneval.design.plan import Design
from humaneval.errors import AnalysisCaution, HumanEvalError
from humaneval.judges.data import load_annotations
from humaneval.judges.verdict import JudgeAssessment, assess_judges
from humaneval.methods import get_method
from humaneval.methods.kinds import detect_kind
from humaneval.ppi.result import JudgedAnalysis
from humaneval.qc import QCReport, qc_report
from humaneval.reliability.criteria import CriterionCorrelations, criterion_correlations
from humaneval.reliability.report import ReliabilityReport, reliability_report
from humaneval.reliability.timing import load_annotator_times, ratings_annotator_times
from humaneval.report.cautions import (
    NOTE,
    Caution,
    criterion_cautions,
    design_cautions,
    merge_criteria,
    ordered,
    qc_cautions,
)
from humaneval.report.means import mean_intervals
from humaneval.report.power import PowerNote, planned_tables, power_note
from humaneval.simulate.experiment import resolve_model
from humaneval.simulate.table_design import TableDesign
from humaneval.spans.summary import SpanSummary, span_summary
from humaneval.spans.table import SpanTable
from humaneval.stats.resampling import ClusterInterval

Progress = Callable[[str], None]


#: CPU minutes the simulated power of a comparative study may take by default (estimated from the
#: analysis's own fit time before it starts); fewer studies are simulated to fit, none below MIN_POWER_TRIALS.
POWER_MINUTES = 1.5
MIN_POWER_TRIALS = 20


def _silent(_message: str) -> None:
    """The progress callback of a report built without one."""


@dataclass(frozen=True)
class ReportSettings:
    """Everything that decides the report's numbers (the CLI defaults of analyze and reliability)."""

    engine: str = "auto"
    structure: str = "auto"
    seed: int = 1
    n_resamples: int = 5000
    n_splits: int = 1000
    mean_resamples: int = 2000
    power_trials: int = 200
    clmm_power_trials: int = 20
    power_target: float = 0.8
    style: tuple[str, ...] = ()
    power_minutes: float = POWER_MINUTES
    #: The alt-test's ε, or the annotators' profile it comes from (``judge --profile``; docs/judges.md).
    epsilon: float | None = None
    profile: str | None = None
    scale_use: bool = False  # fit a random annotator log-scale per criterion (report/sections/scale_use.py)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


ReportSettings.__init__ = renamed(analysis_model="structure", n_bootstrap="n_resamples")(  # type: ignore[method-assign]
    ReportSettings.__init__
)


@dataclass(frozen=True, eq=False)
class CriterionReport:
    """The results of one criterion: analysis, reliability, means with intervals, power, warnings."""

    criterion: str | None
    analysis: SystemAnalysis
    reliability: ReliabilityReport | None
    means: pd.DataFrame
    power: PowerNote | None
    fit_warnings: tuple[str, ...] = ()
    power_error: str | None = None
    reliability_error: str | None = None
    means_interval: ClusterInterval | None = None
    agreement: ComparativeAgreement | None = None
    comparative_power: ComparativePower | None = None

    @property
    def warnings(self) -> list[str]:
        """This criterion's cautions, most important first."""
        return ordered(criterion_cautions(self))

    @property
    def table(self) -> pd.DataFrame:
        """The main results table: analysis groupings joined with the mean intervals, best first."""
        return self.analysis.systems.merge(self.means.drop(columns="mean"), on="system", how="left")

    def to_dict(self, source: str) -> dict[str, Any]:
        return {
            "criterion": self.criterion,
            "analysis": {"file": source, **self.analysis.to_dict()},
            "reliability": None
            if self.reliability is None
            else {"file": source, **self.reliability.to_dict()},
            "reliability_error": self.reliability_error,
            "agreement": None if self.agreement is None else self.agreement.to_dict(),
            "comparative_power": None if self.comparative_power is None else self.comparative_power.to_dict(),
            "means": self.table.to_dict(orient="records"),
            "means_interval": None
            if self.means_interval is None
            else {
                "method": self.means_interval.method,
                "confidence_level": self.means_interval.confidence_level,
                "n_blocks": self.means_interval.n_clusters,
                "computed": self.means_interval.computed,
                "caveat": self.means_interval.caveat,
            },
            "power": None if self.power is None else self.power.to_dict(),
            "power_error": self.power_error,
            "warnings": self.warnings,
        }


@dataclass(frozen=True, eq=False)
class StudyReport:
    """The whole report; :meth:`to_dict` is ``report.json``."""

    source: str
    ratings: Ratings
    structure: DesignStructure
    criteria: tuple[CriterionReport, ...]
    qc: QCReport
    settings: ReportSettings
    annotator_seconds: pd.Series | None = None
    design_summary: dict[str, Any] | None = None
    datasheet: dict[str, Any] | None = None
    datasheet_markdown: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    title: str = "Human evaluation report"
    correlations: CriterionCorrelations | None = None
    #: The judges' alt-test, agreement and verdict (docs/judges.md) when the ratings hold judge rows.
    judges: JudgeAssessment | None = None
    #: Humans and a judge together (docs/ppi.md): per judge and criterion the analysis of
    #: ``analyze(..., judge=NAME)``, as ``humaneval ppi`` gives it.
    ppi: tuple[JudgedAnalysis, ...] = ()
    #: A span table's agreement and analysis (docs/spans.md); the other sections take its item scores.
    spans: SpanSummary | None = None

    @property
    def has_judges(self) -> bool:
        return self.judges is not None

    def _verdict_rows(self) -> list[Any]:
        return [] if self.judges is None else list(self.judges.verdict.itertuples())

    def criteria_table(self) -> pd.DataFrame | None:
        """Systems × criteria, each cell the mean and rank group (``"3.78 (1/2)"``); ``None`` for
        one criterion."""
        if len(self.criteria) < 2:
            return None
        return CriteriaAnalysis(tuple(p.analysis for p in self.criteria)).summary_table()

    @property
    def warnings(self) -> list[str]:
        """Every caution once, most important first; a criterion's carries its name when there are
        several criteria and it does not hold for all of them."""
        study = (
            design_cautions(self.structure)
            + qc_cautions(self.qc)
            + [Caution(NOTE, n) for n in self.notes]
            + [
                Caution(NOTE, f"LLM judge {r.judge}: {flag}.")
                for r in self._verdict_rows()
                for flag in r.flags
            ]
        )
        return merge_criteria(study, [(part.criterion, criterion_cautions(part)) for part in self.criteria])

    def study(self) -> dict[str, Any]:
        """Study summary: structure counts, time spent and cost when known."""
        out: dict[str, Any] = {"source": self.source, **self.structure.to_dict()}
        seconds = self.annotator_seconds
        out["total_hours"] = None if seconds is None else float(seconds.sum() / 3600)
        out["median_minutes_per_annotator"] = None if seconds is None else float(seconds.median() / 60)
        cost = (self.design_summary or {}).get("cost")
        out["cost"] = None if cost is None else {"total": cost.get("total"), "currency": cost.get("currency")}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "report_version": 1,
            "title": self.title,
            "settings": self.settings.to_dict(),
            "study": self.study(),
            "design": self.design_summary,
            "datasheet": self.datasheet,
            "criteria": [c.to_dict(self.source) for c in self.criteria],
            "criteria_summary": _summary_records(self.criteria_table()),
            "criterion_correlations": [] if self.correlations is None else self.correlations.to_dict(),
            "qc": self.qc.to_dict(),
            "judges": None if self.judges is None else self.judges.to_dict(),
            "ppi": [analysis.to_dict() for analysis in self.ppi],
            "spans": None if self.spans is None else self.spans.to_dict(),
            "warnings": self.warnings,
        }


def build_report(
    ratings: Ratings | SpanTable | str | Path,
    *,
    design: DesignLike | None = None,
    model: OrdinalModel | FitResult | str | Path | None = None,
    times: pd.Series | str | Path | None = None,
    form: Mapping[str, Any] | None = None,
    preset: Any = None,
    settings: ReportSettings | None = None,
    source: str | None = None,
    title: str = "Human evaluation report",
    progress: Progress | None = None,
    judge_scores: pd.DataFrame | str | Path | None = None,
) -> StudyReport:
    """Run every section of the report on ``ratings``.

    ``design``: a :class:`~humaneval.design.Design` or a design CSV/JSON path (adds the design
    summary and the datasheet). ``model``: the CLMM the power note simulates from (default: the
    model each criterion's analysis fitted). ``times``: per-annotator seconds (a Series or a timing
    table for :func:`~humaneval.reliability.timing.load_annotator_times`) for the time curve;
    without it, the per-annotator totals of a ``seconds`` column of the ratings are used.
    ``form``: the form settings for the datasheet (``preset``, ``overview``, ``question``, ``labels``,
    ...; see :func:`humaneval.design.datasheet.make_datasheet`), or ``preset``: the forms preset used.
    ``judge_scores``: the judges' scores of the pool when they are not rows of ``ratings`` (any layout of
    :func:`humaneval.core.judge_scores.read_judge_scores`): the judge sections then assess them and add
    the prediction-powered analyses.
    """
    settings = settings or ReportSettings()
    say = progress or _silent
    source, ratings, spans = _read_table(ratings, source, settings, say)
    source = source or "ratings"
    if times is not None and not isinstance(times, pd.Series):
        times = load_annotator_times(times)
    if model is not None:
        model = resolve_model(model)
    structure = describe_structure(ratings)
    seconds: pd.Series | None = times if times is not None else _ratings_seconds(ratings)
    planned = planned_tables(design) if design is not None and settings.power_trials > 0 else {}
    single = next(iter(planned.values())) if len(planned) == 1 else None
    if joint_applies(ratings):
        say(f"analysis: one joint model of the {len(ratings.criteria)} criteria "
            f"({JOINT_FORMULA.format(response=ratings.response)})")  # fmt: skip
    parts = tuple(
        _criterion_report(
            ratings,
            criterion,
            part,
            structure,
            seconds,
            model,
            settings,
            say,
            planned.get(criterion or "", single),
        )
        for criterion, part in ratings.by_criterion()
    )
    correlations = None
    if len(parts) > 1 and ratings.response == "score":
        say("correlation between criteria")
        correlations = criterion_correlations(ratings)
    say("quality control: attention checks, speed, straight-lining")
    qc = qc_report(ratings, unit=get_method(detect_kind(ratings)).unit)
    notes: list[str] = [n for n in (_untimed(ratings),) if n]
    pool = None
    if judge_scores is not None:
        from humaneval.core.judge_scores import read_judge_scores

        pool = read_judge_scores(judge_scores)
    judges = _assess_judges(ratings, pool, settings, say, notes)
    ppi = _ppi_analyses(ratings, pool, settings, say, notes)
    summary = sheet = sheet_md = None
    if design is not None:
        design = _load_design(design)
        if design is None:
            notes.append("The design file has no manifest (design.json) beside it: no datasheet.")
        else:
            if preset is not None:
                form = {**preset_form(preset, design), **(form or {})}
            recruitment = {}
            if seconds is not None:
                recruitment["median_minutes_actual"] = round(float(seconds.median() / 60), 1)
            datasheet = design.datasheet(
                form=form, recruitment=recruitment, qc={"annotators_analysed": structure.n_annotators}
            )
            summary, sheet, sheet_md = (
                design.summary().to_dict(),
                datasheet.to_dict(),
                datasheet.to_markdown(),
            )
    return StudyReport(
        source=source,
        ratings=ratings,
        structure=structure,
        criteria=parts,
        qc=qc,
        settings=settings,
        annotator_seconds=seconds,
        design_summary=summary,
        datasheet=sheet,
        datasheet_markdown=sheet_md,
        notes=tuple(notes),
        title=title,
        correlations=correlations,
        judges=judges,
        ppi=ppi,
        spans=spans,
    )


def _read_table(
    table: Ratings | SpanTable | str | Path, source: str | None, settings: ReportSettings, say: Progress
) -> tuple[str | None, Ratings, SpanSummary | None]:
    """The source name, the ratings the report analyses and, for a span table, its agreement and analysis
    (the other sections then take its item scores as the CLMM analyses them; docs/spans.md)."""
    if isinstance(table, Ratings):
        return source, table, None
    if isinstance(table, SpanTable):
        say("error spans: unitizing α, span F1, score α and the analysis of the item scores")
        spans = span_summary(table, engine=settings.engine, structure=settings.structure, seed=settings.seed)
        return source or table.source, spans.ratings, spans
    return source or str(table), load_ratings(Path(table)), None


def _assess_judges(
    ratings: Ratings, pool: pd.DataFrame | None, settings: ReportSettings, say: Progress, notes: list[str]
) -> JudgeAssessment | None:
    """The judges' alt-test, agreement and bias audit (``humaneval judge``) with the report's ε; a study
    too small for the alt-test gets a note saying why."""
    judge_names = sorted(pool["judge"].unique()) if pool is not None else ratings.judge_names
    if not judge_names:
        return None
    names = ", ".join(judge_names)
    say(f"LLM judges ({names}): alternative-annotator test, α and τ, verdict")
    try:
        return assess_judges(
            ratings if pool is None else load_annotations(ratings, pool),
            epsilon=settings.epsilon,
            profile=settings.profile,
            seed=settings.seed,  # the verdict's own resample count: the report and `humaneval judge` agree
        )
    except HumanEvalError as exc:  # too few items or humans for the alt-test: say why, report the rest
        notes.append(f"The LLM judges ({names}) were not assessed: {exc}")
        return None


def _ppi_analyses(
    ratings: Ratings, pool: pd.DataFrame | None, settings: ReportSettings, say: Progress, notes: list[str]
) -> tuple[JudgedAnalysis, ...]:
    """Humans and each judge together, per criterion: ``analyze(..., judge=NAME)`` with the defaults of
    ``humaneval ppi`` (docs/ppi.md); a judge or criterion that cannot be analysed gets a note saying why."""
    if ratings.response != "score":
        return ()
    data = ratings.data
    kind = data["rater_kind"] if "rater_kind" in data else pd.Series("human", index=data.index)
    humans = data[kind != "judge"]
    rated = set(zip(humans["document"].astype(str), humans["system"].astype(str), strict=True))
    scored = pool if pool is not None else data[kind == "judge"].rename(columns={"annotator": "judge"})
    out: list[JudgedAnalysis] = []
    for name in sorted(scored["judge"].unique()):
        judged = scored[scored["judge"] == name]
        if set(zip(judged["document"].astype(str), judged["system"].astype(str), strict=True)) <= rated:
            continue  # the judge scored only what the humans rated (a validation study): nothing to add
        say(f"humans and judge {name} together: prediction-powered inference (docs/ppi.md)")
        for criterion in ratings.criteria:
            where = f"judge {name}" + (f", criterion {criterion}" if criterion else "")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", AnalysisCaution)
                    result = analyze(
                        ratings, judge=name, judge_scores=pool, criterion=criterion, seed=settings.seed
                    )
            except HumanEvalError as exc:
                notes.append(f"No prediction-powered estimates for {where}: {exc}")
                continue
            assert isinstance(result, JudgedAnalysis)  # the ppi adapter's result
            out.append(result)
    return tuple(out)


def _comparative_report(
    criterion: str | None,
    comparative: ComparativeAnalysis,
    part: Ratings,
    settings: ReportSettings,
    say: Progress,
) -> CriterionReport:
    """Means, agreement on the choices and observed power of a pairwise or best–worst criterion."""
    kind = comparative.kind
    from humaneval.comparative.agreement import comparative_agreement
    from humaneval.comparative.power import DEFAULT_ANNOTATOR_SD, ComparativeDesign, comparative_power

    label = f" [{criterion}]" if criterion is not None else ""
    fit = comparative.fit
    say(f"analysis{label}: {kind} judgements, {fit.structure} ({fit.inference})")
    part = part.without_checks()  # the checks count in quality control, not in means, agreement, power
    means, _ = mean_intervals(part, n_resamples=settings.mean_resamples, seed=settings.seed)
    say(
        f"agreement{label}: Krippendorff's α (nominal) on the choices, "
        f"{settings.n_resamples} KALPHA resamples"
    )
    agreement = why = power = power_error = None
    try:
        agreement = comparative_agreement(part, kind, n_resamples=settings.n_resamples, seed=settings.seed)
    except HumanEvalError as exc:
        why = str(exc)
    if settings.power_trials > 0:
        sd = DEFAULT_ANNOTATOR_SD
        if fit.random_sd is not None:  # the mixed model's annotator deviations, as fitted
            annotator = fit.random_sd.loc[fit.random_sd["factor"] == "annotator", "sd"]
            sd = float(np.sqrt(np.mean(annotator**2)))
        try:
            design = ComparativeDesign.from_ratings(part, kind)
            strengths = fit.estimates().reindex(design.systems).to_numpy()

            def simulate(trials: int, progress: bool = False) -> ComparativePower:
                return comparative_power(
                    design, strengths, annotator_sd=sd, trials=trials, calibrate=False,
                    n_resamples=100, seed=settings.seed or 1, progress=progress,
                )  # fmt: skip

            say(f"power{label}: timing one simulated study of this design")
            started = time.process_time()
            simulate(1)  # its seed is study 1's: the run below repeats it
            per_study = time.process_time() - started
            trials, power_error = power_budget(settings, per_study)
            if trials > 0:
                say(
                    f"power{label}: {trials} simulated studies, about {_duration(trials * per_study)} "
                    f"({per_study:.1f} CPU-s each)"
                )
                power = simulate(trials, say is not _silent)  # a progress bar beside the messages
        except HumanEvalError as exc:
            power_error = str(exc)
    return CriterionReport(
        criterion, comparative, None, means, None,
        power_error=power_error, reliability_error=why, agreement=agreement, comparative_power=power,
    )  # fmt: skip


def power_budget(settings: ReportSettings, per_study: float) -> tuple[int, str | None]:
    """How many studies the comparative power step simulates within ``settings.power_minutes``, given
    the seconds one study's analysis takes (the observed fit's time), and why fewer or none.

    Examples
    --------
    >>> power_budget(ReportSettings(), 0.2)
    (200, None)
    >>> power_budget(ReportSettings(), 1.5)[0]
    60
    >>> power_budget(ReportSettings(), 8.0)[1].split(";")[0]
    '200 simulated studies of this design would take about 27 CPU-min (8.0 s each)'
    """
    wanted = settings.power_trials
    if wanted == 0 or per_study * wanted <= settings.power_minutes * 60:
        return wanted, None
    affordable = int(settings.power_minutes * 60 // max(per_study, 1e-9))
    if affordable >= MIN_POWER_TRIALS:
        return affordable, None
    return 0, (
        f"{wanted} simulated studies of this design would take about {_duration(wanted * per_study)} "
        f"({per_study:.1f} s each); fewer than {MIN_POWER_TRIALS} fit in --power-minutes "
        f"{settings.power_minutes:g}. Raise --power-minutes, or run 'humaneval power' on the design "
        "(it can use several workers; docs/simulation.md)"
    )


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} CPU-s" if seconds < 90 else f"{seconds / 60:.0f} CPU-min"


def _criterion_report(
    ratings: Ratings,
    criterion: str | None,
    part: Ratings,
    structure: DesignStructure,
    seconds: pd.Series | None,
    model: OrdinalModel | None,
    settings: ReportSettings,
    say: Progress,
    planned: TableDesign | None = None,
) -> CriterionReport:
    """Analysis, reliability, mean intervals and power of one criterion, called as the CLI calls them
    (``analyze`` on the whole table with ``criterion``, ``reliability_report`` on the criterion's rows)."""
    label = f" [{criterion}]" if criterion is not None else ""
    say(f"analysis{label}: the table kind's model (engine {settings.engine}, structure {settings.structure})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        analysis = analyze(
            ratings,
            "clmm",
            engine=settings.engine,
            structure=settings.structure,
            criterion=criterion,
            seed=settings.seed,
            style=settings.style,
        )
    if isinstance(analysis, ComparativeAnalysis):
        return _comparative_report(criterion, analysis, part, settings, say)
    fit = analysis.fit
    assert isinstance(fit, FitResult)  # the CLMM path always fits
    say(
        f"  fitted the {fit.structure} model with the {fit.engine} engine "
        f"in {fit.diagnostics.fit_seconds:.1f} s"
    )
    say(f"reliability{label}: α with {settings.n_resamples} KALPHA resamples, {settings.n_splits} splits")
    reliability = reliability_error = None
    try:
        reliability = reliability_report(
            part,
            n_resamples=settings.n_resamples,
            n_splits=settings.n_splits,
            seed=settings.seed,
            times=seconds,
            criterion=criterion,
        )
    except HumanEvalError as exc:
        reliability_error = str(exc)
        if structure.judgements_per_summary.max == 1:
            reliability_error = f"every summary was judged once, so there is no agreement to measure ({exc})"
    means, means_interval = mean_intervals(
        select_criterion(ratings, criterion), n_resamples=settings.mean_resamples, seed=settings.seed
    )
    note = power_error = None
    if settings.power_trials > 0:
        say(
            f"power{label}: {settings.power_trials} ARTagg and {settings.clmm_power_trials} CLMM "
            "simulated studies, then a design search"
        )
        try:
            note = power_note(
                resolve_model(model if model is not None else _simulable(fit, part, settings)),
                structure,
                trials=settings.power_trials,
                clmm_trials=settings.clmm_power_trials,
                target=settings.power_target,
                seed=settings.seed,
                planned=planned,
            )
        except HumanEvalError as exc:
            power_error = str(exc)
    return CriterionReport(
        criterion=criterion,
        analysis=analysis,
        reliability=reliability,
        means=means,
        power=note,
        fit_warnings=tuple(
            dict.fromkeys(str(w.message) for w in caught if not issubclass(w.category, AnalysisCaution))
        ),
        power_error=power_error,
        reliability_error=reliability_error,
        means_interval=means_interval,
    )


def _simulable(fit: FitResult, part: Ratings, settings: ReportSettings) -> FitResult:
    """The model the power note simulates from: the analysis's fit, or for the joint model of several
    criteria (which has no simulator) the criterion's own CLMM."""
    if fit.structure != "formula":
        return fit
    from humaneval.analysis.fit import fit_clmm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_clmm(part, engine=settings.engine, structure=settings.structure)


def preset_form(preset: Any, design: Design) -> dict[str, Any]:
    """The datasheet's form settings from a forms preset (a :class:`~humaneval.forms.Preset`, a built-in
    name or a preset file), with ``{n}`` in the instructions replaced by the design's screens per
    annotator."""
    from dataclasses import asdict

    from humaneval.forms.presets import get_preset

    preset = get_preset(preset)
    screens = max(design.summary().screens_per_annotator)
    return {**asdict(preset), "preset": preset.name, "overview": preset.overview.replace("{n}", str(screens))}


def _summary_records(table: pd.DataFrame | None) -> list[dict[str, Any]]:
    """``[{"system": ..., "<criterion>": "3.78 (1/2)", ...}, ...]``, best of the first criterion first."""
    return [] if table is None else table.reset_index().to_dict(orient="records")


def _ratings_seconds(ratings: Ratings) -> pd.Series | None:
    """Per-annotator seconds of the human rows that carry a time (judges spend none)."""
    humans = ratings.data if not ratings.has_judges else ratings.data[ratings.data["rater_kind"] != "judge"]
    if "seconds" not in humans or humans["seconds"].isna().all():
        return None
    return ratings_annotator_times(ratings)


def _untimed(ratings: Ratings) -> str | None:
    """A note when some (not all) human rows have no time: the totals cover the timed screens only."""
    humans = ratings.data if not ratings.has_judges else ratings.data[ratings.data["rater_kind"] != "judge"]
    if "seconds" not in humans:
        return None
    missing = int(humans["seconds"].isna().sum())
    if missing == 0 or missing == len(humans):
        return None
    return (
        f"{missing} of {len(humans)} human ratings have no time in 'seconds'; the time totals cover the "
        "timed ones only"
    )


def _load_design(design: DesignLike) -> Design | None:
    """A :class:`~humaneval.design.Design`, or None for a bare design table without manifest."""
    loaded = load_design(design)
    return loaded if isinstance(loaded, Design) else None
