"""The judged demo behind ``humaneval demo --judge``: humans and an LLM judge in one study, end to end.

It walks the path of the README's "Humans and an LLM judge" on simulated, Prolific-shaped data:

1. **pool** — a judge has scored every summary of a pool (``pool.csv``: ``document, system, score,
   judge``), as an LLM judge run over 200 documents × 3 systems would;
2. **calibration design** — :func:`humaneval.judges.planning.plan_calibration` chooses whole documents
   for the humans, stratified by the judge's score (``humaneval design --judge-scores pool.csv
   --calibration-items 300``), and the inclusion probabilities of every pool document
   (``design.probabilities.csv``);
3. **simulated humans** — Prolific participants (24-character participant ids, seconds per screen)
   in blocks of 15 documents, 3 per block, rate every summary of their block on a 1–5 scale: 45
   items each (the alt-test needs at least 30);
4. **judge** — :func:`humaneval.judges.verdict.assess_judges` (``humaneval judge ratings.csv
   --judge-file pool.csv``): may the judge stand in for a human?;
5. **ppi** — :func:`humaneval.analysis.workflow.analyze` with ``judge=`` (``humaneval ppi ratings.csv
   --judge-file pool.csv``): the system means and pairs with the judge's help (the stratified draw
   gave every document the same chance, so no weights are needed);
6. **report** — :func:`humaneval.report.build_report` with ``judge_scores`` (``humaneval report
   ratings.csv --judge-file pool.csv``).

Every simulated number comes from one latent quality per summary (system effect + document effect +
noise), read by the humans with their own bias and noise and by the judge with noise of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from humaneval.analysis.adapters import SystemAnalysis
from humaneval.judges.verdict import JudgeAssessment

__all__ = ["JudgedDemo", "run_judged_demo"]

JUDGE = "demo-judge"
SYSTEMS = ("extractive", "pegasus", "gpt")
EFFECTS = (0.0, 0.35, 0.7)
N_DOCUMENTS = 200
CALIBRATION_ITEMS = 300
DOCS_PER_BLOCK = 15
HUMANS_PER_BLOCK = 3


@dataclass(frozen=True)
class JudgedDemo:
    """What the judged demo wrote and found: the files, the judge's assessment and the PPI analysis."""

    files: dict[str, Path]
    judges: JudgeAssessment | None
    ppi: SystemAnalysis


def run_judged_demo(out: Path, *, seed: int = 1, progress: Callable[[str], None] | None = None) -> JudgedDemo:
    """Run pool → calibration design → simulated humans → judge → PPI → report into ``out``.

    Parameters
    ----------
    out : Path
        Folder for ``pool.csv``, ``design.probabilities.csv``, ``ratings.csv`` and the report.
    seed : int
        Of every simulated draw and of the analyses.
    progress : callable, optional
        Called with one line per step.

    Returns
    -------
    JudgedDemo
    """
    from humaneval.analysis.workflow import analyze
    from humaneval.core.ratings import load_ratings
    from humaneval.judges.data import load_annotations
    from humaneval.judges.planning import plan_calibration
    from humaneval.judges.verdict import assess_judges
    from humaneval.report.build import ReportSettings, build_report
    from humaneval.report.render import write_report

    say = progress or (lambda _line: None)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    latent = _latent(rng)
    pool = _judge_pool(latent, rng)
    files = {"pool": out / "pool.csv"}
    pool.to_csv(files["pool"], index=False)
    say(f"1. pool: {JUDGE} scored {len(pool)} summaries ({N_DOCUMENTS} documents × {len(SYSTEMS)} systems)")

    plan = plan_calibration(pool, CALIBRATION_ITEMS, humans_per_item=HUMANS_PER_BLOCK, seed=seed)
    files["probabilities"] = out / "design.probabilities.csv"
    plan.probabilities.to_csv(files["probabilities"], index=False)
    say(f"2. calibration design: {plan.summary().splitlines()[0]}")

    ratings_frame = _humans(latent, plan.documents, rng)
    files["ratings"] = out / "ratings.csv"
    ratings_frame.to_csv(files["ratings"], index=False)
    ratings = load_ratings(files["ratings"], scale="1-5")
    say(
        f"3. humans: {ratings_frame['annotator'].nunique()} Prolific participants rated "
        f"{len(ratings_frame)} summaries ({HUMANS_PER_BLOCK} per summary)"
    )

    judges = assess_judges(load_annotations(ratings, pool), n_resamples=1000, seed=seed)
    row = judges.verdict.iloc[0]
    say(
        f"4. judge: alt-test {'passed' if row['passed'] else 'failed'} (ω = {row['winning_rate']:.2f}), "
        f"system τ = {row['tau_system']:.2f}"
    )

    ppi = analyze(ratings, judge=JUDGE, judge_scores=pool, seed=seed)
    best = ppi.systems.iloc[0]
    say(f"5. ppi: {ppi.test}; best system {best['system']} ({best['estimate']:.2f}, group {best['letters']})")

    settings = ReportSettings(seed=seed, power_trials=0, clmm_power_trials=0, n_resamples=1000, n_splits=200)
    report = build_report(ratings, settings=settings, source=str(files["ratings"]), judge_scores=pool)
    files.update(write_report(report, out / "report"))
    say(f"6. report: {files['html']}")
    return JudgedDemo(files=files, judges=judges, ppi=ppi)


def _latent(rng: np.random.Generator) -> np.ndarray:
    """Latent quality of every summary: system effect + document effect + noise."""
    documents = rng.normal(0, 0.6, N_DOCUMENTS)
    noise = rng.normal(0, 0.6, (N_DOCUMENTS, len(SYSTEMS)))
    return 3.0 + np.asarray(EFFECTS)[None, :] + documents[:, None] + noise


def _documents() -> list[str]:
    return [f"doc{d:03d}" for d in range(N_DOCUMENTS)]


def _judge_pool(latent: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """The judge's scores of the pool: the latent quality through noise of its own, on 1–5 with decimals."""
    scores = np.clip(latent + rng.normal(0, 0.25, latent.shape), 1, 5).round(2)
    return pd.DataFrame(
        {
            "document": np.repeat(_documents(), len(SYSTEMS)),
            "system": np.tile(SYSTEMS, N_DOCUMENTS),
            "score": scores.ravel(),
            "judge": JUDGE,
        }
    )


def _humans(latent: np.ndarray, chosen: tuple[str, ...], rng: np.random.Generator) -> pd.DataFrame:
    """Prolific participants in blocks of ``DOCS_PER_BLOCK`` chosen documents, each rating every summary
    of their block on 1–5 with their own bias and noise; seconds per screen around 30."""
    index = {d: k for k, d in enumerate(_documents())}
    rows = []
    for block in range(int(np.ceil(len(chosen) / DOCS_PER_BLOCK))):
        documents = chosen[block * DOCS_PER_BLOCK : (block + 1) * DOCS_PER_BLOCK]
        for _ in range(HUMANS_PER_BLOCK):
            participant = "".join(rng.choice(list("0123456789abcdef"), 24))
            bias = rng.normal(0, 0.3)
            position = 0
            for document in documents:
                value = latent[index[document]] + bias + rng.normal(0, 0.5, len(SYSTEMS))
                for system, score in zip(SYSTEMS, np.clip(np.rint(value), 1, 5).astype(int), strict=True):
                    seconds = round(float(rng.lognormal(np.log(30), 0.4)), 1)
                    rows.append((participant, document, system, int(score), position, seconds))
                    position += 1
    return pd.DataFrame(rows, columns=["annotator", "document", "system", "score", "position", "seconds"])
