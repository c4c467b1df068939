"""The end-to-end demo behind ``humaneval demo`` (and the README's main command).

It walks the whole pipeline on built-in defaults:

1. **design** — the planner (:func:`humaneval.design.generate_design`) with the EACL 2021 layout of
   Steen & Markert: Likert coherence, 100 documents × 5 systems, 20 blocks of 5 documents, 3
   annotators per block, 2 attention checks per annotator;
2. **forms** — the MTurk package for that design (:func:`humaneval.forms.write_forms`) with
   clearly labelled placeholder texts (:func:`humaneval.forms.placeholder_texts`);
3. **simulated annotators** — every slot fills in its form: scores sampled from the built-in
   coherence CLMM for exactly this design (:func:`humaneval.clmm.model.sample_ratings`), attention
   checks answered as instructed, per-screen times around the study's 32 s per Likert screen; a
   few *careless* annotators fail both checks and rush, so that quality control has something to
   find. The answers are written as a batch results CSV, as MTurk would return them;
4. **ratings** — the results parsed against the design (:func:`humaneval.collect.
   parse_mturk_results`) into the validated ratings table;
5. **reliability, analysis, power, report** — :func:`humaneval.report.build_report` and
   :func:`humaneval.report.write_report`. The demo uses the native CLMM engine by default: the
   maximal R fit of a 1,500-rating study takes about 5 minutes on 2 cores.

With ``criteria`` (``humaneval demo --criteria coherence,fluency``) the study asks several
questions about each summary on one screen (SummEval's layout): every simulated annotator answers
every question, each criterion from the coherence model moved to that criterion's scale with its
own system effects, and the report has one section per criterion plus the systems × criteria
summary table.

With ``method`` (``humaneval demo --method pairwise``, ``bws`` or ``rank``) the same study is a
comparative one: the coherence model's system effects are the systems' strengths on the logit
scale, every annotator has their own deviations from them
(:func:`humaneval.comparative.simulate.simulate_answers`), and the report analyses the judgements
with the comparative models (docs/analysis.md, "Comparative judgements").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from humaneval.clmm.model import OrdinalModel, default_model, sample_ratings
from humaneval.collect.mturk import parse_mturk_results, results_row
from humaneval.core.deprecation import renamed
from humaneval.core.ratings import Ratings
from humaneval.design.criteria import Criterion, question_field
from humaneval.design.generate import generate_design
from humaneval.design.plan import Design
from humaneval.design.spec import DesignSpec
from humaneval.errors import OptionError, RatingsError
from humaneval.forms.presets import get_preset
from humaneval.forms.texts import placeholder_texts
from humaneval.forms.write import form_preset, write_forms
from humaneval.methods import get_method
from humaneval.report.build import ReportSettings, StudyReport, build_report
from humaneval.report.render import write_report

#: The form of the EACL 2021 Likert coherence study.
PRESET = "coherence-likert7"
#: Median seconds per Likert coherence screen in the reference study (docs/analysis.md).
SECONDS_PER_SCREEN = 32.0


@dataclass(frozen=True)
class DemoSettings:
    """Size of the simulated study and of the report's resampling; the defaults are the EACL design."""

    documents: int = 100
    docs_per_block: int = 5
    annotators_per_block: int = 3
    checks_per_annotator: int = 2
    careless: int = 2
    engine: str = "native"
    n_resamples: int = 5000
    n_splits: int = 1000
    power_trials: int = 200
    clmm_power_trials: int = 20
    criteria: tuple[Any, ...] = ()
    method: str = "likert"
    annotator_sd: float = 0.5


DemoSettings.__init__ = renamed(n_bootstrap="n_resamples")(DemoSettings.__init__)  # type: ignore[method-assign]


@dataclass(frozen=True, eq=False)
class DemoResult:
    design: Design
    ratings: Ratings
    report: StudyReport
    files: dict[str, Path]
    careless: tuple[str, ...]


def run_demo(
    out: str | Path,
    *,
    seed: int = 1,
    settings: DemoSettings | None = None,
    progress: Callable[[str], None] | None = None,
) -> DemoResult:
    """Run design → forms → simulated annotators → ratings → reliability → analysis → power → report."""
    settings = settings or DemoSettings()
    method = get_method(settings.method)
    if settings.criteria and method.is_comparative:
        raise OptionError("several criteria per screen are a Likert layout; use --criteria without --method")
    say = progress or (lambda _msg: None)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model = default_model()
    reference = model.system_names[0]
    say(
        f"[1/5] design: {settings.documents} documents × {len(model.system_names)} systems, blocks of "
        f"{settings.docs_per_block} documents × {settings.annotators_per_block} annotators "
        f"(EACL 2021 layout), {method.title}"
    )
    design = generate_design(
        DesignSpec(
            documents=settings.documents,
            systems=list(model.system_names),
            reference_system=reference,
            method=method.name,
            documents_per_block=settings.docs_per_block,
            annotators_per_block=settings.annotators_per_block,
            checks_per_annotator=settings.checks_per_annotator,
            platform="mturk",
            seed=seed,
            criteria=settings.criteria,
        )
    )
    files = {k: Path(v) for k, v in design.write(out / "design.csv").items()}
    say(f"      {len(design.slots)} annotator slots → {files['csv']}")
    say("[2/5] forms: MTurk package with labelled placeholder texts")
    own_preset = settings.criteria or method.is_comparative
    preset = form_preset(design, design.table, None) if own_preset else get_preset(PRESET)
    package = write_forms(
        design,
        placeholder_texts(design.table),
        out / "forms",
        preset=None if own_preset else preset.name,
        route="batch" if method.unit == "tuple" else "both",  # best–worst HITs of 5 documents exceed 64 KB
    )
    say(f"      {len(package.hits)} HITs → {out / 'forms'}")
    if settings.criteria:
        say("      " + "; ".join(f"{c.name}: {c.scale().describe()}" for c in design.criteria))
    if method.is_comparative:
        say(
            "[3/5] simulated annotators fill in the forms (the built-in model's system effects as strengths, "
            f"annotator × system SD {settings.annotator_sd:g})"
        )
        results, careless = simulate_comparisons(design, model, settings, seed)
    else:
        say("[3/5] simulated annotators fill in the forms (scores from the built-in coherence model)")
        results, careless = simulate_annotators(
            design,
            model,
            seed=seed,
            careless=settings.careless,
            criteria=design.criteria if settings.criteria else (),
        )
    files["results"] = out / "Batch_results.csv"
    results.to_csv(files["results"], index=False)
    say(f"      {len(results)} assignments ({len(careless)} careless) → {files['results']}")
    say("[4/5] ratings: results parsed against the design and validated")
    parsed = parse_mturk_results(results, design, salt=f"humaneval-demo-{seed}")
    ratings = parsed.ratings
    if ratings is None:
        raise RatingsError("the simulated MTurk results parsed to no ratings")
    files["ratings"] = ratings.write(out / "ratings.csv")
    say(f"      {len(ratings.data)} rows → {files['ratings']}")
    analysis = "comparative models" if method.is_comparative else f"{settings.engine} CLMM engine"
    say(f"[5/5] reliability, analysis ({analysis}), power and report")
    report = build_report(
        ratings,
        design=design,
        preset=preset,
        settings=ReportSettings(
            engine=settings.engine,
            seed=seed,
            n_resamples=settings.n_resamples,
            n_splits=settings.n_splits,
            power_trials=settings.power_trials,
            clmm_power_trials=settings.clmm_power_trials,
        ),
        source=str(files["ratings"]),
        title="Demo study: simulated annotators, placeholder texts",
        progress=lambda msg: say("      " + msg),
    )
    files.update(write_report(report, out / "report"))
    return DemoResult(design, ratings, report, files, careless)


def simulate_comparisons(
    design: Design, model: OrdinalModel, settings: DemoSettings, seed: int
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Batch results of a pairwise, best–worst or ranking demo design: the model's system effects
    are the strengths (logit scale), each annotator has their own deviations (SD
    ``settings.annotator_sd``) and ``settings.careless`` random slots fail their attention checks."""
    from humaneval.comparative.simulate import simulate_answers

    rng = np.random.default_rng(seed)
    slots = sorted(design.table["annotator_slot"].unique())
    sloppy = tuple(sorted(rng.choice(slots, size=min(settings.careless, len(slots)), replace=False).tolist()))
    strengths = dict(zip(model.system_names, model.coefficients.tolist(), strict=True))
    results = simulate_answers(
        design, strengths, annotator_sd=settings.annotator_sd, tie=0.2, seed=rng, fail_checks=sloppy
    )
    return results, sloppy


def criterion_model(model: OrdinalModel, criterion: Criterion, m: int) -> OrdinalModel:
    """The demo's model of the ``m``-th criterion: ``model`` on the criterion's scale, with its own
    system effects (scaled by 1, 0.5, 1.5, 0.75, ...) so that the criteria differ."""
    k = model.thresholds.size
    theta = np.interp(np.linspace(0, k - 1, criterion.points - 1), np.arange(k), model.thresholds)
    factor = (1.0, 0.5, 1.5, 0.75)[m % 4]
    return OrdinalModel(
        model.system_names,
        model.coefficients * factor,
        theta,
        model.random_effects,
        model.link,
        f"{model.description} (demo: {criterion.name}, {criterion.points} points)",
    )


def simulate_annotators(
    design: Design,
    model: OrdinalModel,
    *,
    seed: int = 1,
    careless: int = 2,
    criteria: tuple[Criterion, ...] = (),
) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """A batch results table as MTurk returns it: one row per slot with the form's fields.

    Field names and values follow the form (docs/analysis.md): the Likert field of each
    judgement, ``ck_*`` for attention checks, ``tm_<screen>`` = ``seconds,visible_seconds,0`` and
    ``order``/``slot``/``design_id``/``form_version``. Scores come from :func:`sample_ratings` on
    ``design.judgements()``; ``careless`` randomly chosen slots answer every check wrongly and work
    five times faster. With ``criteria`` (a design asking several questions per summary) every
    question of every summary is answered (field ``lk_q{m}_…``), from :func:`criterion_model`.
    Each annotator also has a *halo*: with an annotator-specific probability (uniform on 0–0.6) a
    later question repeats the first question's answer, moved to its own scale — one overall
    impression answering every question, which the correlation between criteria of
    :func:`humaneval.reliability.criterion_correlations` detects. Returns the table and the
    careless slots.
    """
    rng = np.random.default_rng(seed)
    score: dict[tuple, int] = {}
    for m, criterion in enumerate(criteria or (None,)):
        own = model if criterion is None else criterion_model(model, criterion, m)
        sampled = sample_ratings(own, design.judgements(), seed=rng).data
        for key, value in zip(
            zip(sampled["annotator"], sampled["document"], sampled["system"], strict=True),
            sampled["score"],
            strict=True,
        ):
            cell = (*key, m)  # not score[*key, m]: Python 3.11 syntax to mypy
            score[cell] = int(value)
    if len(criteria) > 1:
        _add_halo(score, criteria, rng)
    slots = sorted(design.table["annotator_slot"].unique())
    sloppy = tuple(sorted(rng.choice(slots, size=min(careless, len(slots)), replace=False).tolist()))
    rows = []
    for k, (slot, part) in enumerate(design.table.groupby("annotator_slot", sort=True)):
        part = part.sort_values(["position", "display_pos"])
        screens = list(dict.fromkeys(part["screen_id"]))
        fields: dict[str, object] = {
            "slot": slot,
            "design_id": design.design_id,
            "form_version": 1,
            "order": ",".join(screens),
        }
        speed = 0.2 if slot in sloppy else 1.0
        seconds = speed * SECONDS_PER_SCREEN * rng.lognormal(0.0, 0.4, size=len(screens))
        for sid, secs in zip(screens, seconds, strict=True):
            fields[f"tm_{sid}"] = f"{secs:.1f},{secs:.1f},0"
        for r in part.itertuples():
            if r.is_check:
                expected = int(r.check_expected)
                fields[r.field] = expected - 1 if slot in sloppy else expected
            else:
                for m in range(max(len(criteria), 1)):
                    fields[question_field(r.field, m)] = score[(slot, r.document, r.system, m)]
        rows.append(
            results_row(
                fields,
                assignment_id=f"DEMOASSIGN{k:04d}",
                worker_id=f"DEMOWORKER{k:04d}",
                hit_id=f"DEMOHIT{int(part['block'].iloc[0]):03d}",
                work_time=round(float(seconds.sum())),
                inputs={"design_id": design.design_id, "block_id": int(part["block"].iloc[0])},
            )
        )
    return pd.DataFrame(rows), sloppy


def _add_halo(score: dict[tuple, int], criteria: tuple[Criterion, ...], rng: np.random.Generator) -> None:
    """Replace later answers by the first criterion's (rescaled) with a per-annotator probability."""
    first = criteria[0].points
    halo: dict[str, float] = {}
    for key in sorted(k for k in score if k[3] == 0):
        annotator = key[0]
        if annotator not in halo:
            halo[annotator] = float(rng.uniform(0.0, 0.6))
        for m in range(1, len(criteria)):
            if rng.random() < halo[annotator]:
                points = criteria[m].points
                cell = (*key[:3], m)
                score[cell] = round(1 + (score[key] - 1) * (points - 1) / (first - 1))
