"""A criterion's observed power: per pair on this design, and the design that reaches the target."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from humaneval.comparative.power import ComparativePower
from humaneval.present.document import Block, Code, Column, Details, Paragraph, Section, Strong, Table, text
from humaneval.present.formatting import fmt, fmt_power
from humaneval.report import figures
from humaneval.report.cautions import plural
from humaneval.report.power import PowerNote
from humaneval.report.sections.base import CriterionView
from humaneval.simulate.table_design import TableDesign

OBSERVED = "This is observed power — the fitted differences are taken as true — so use it to compare designs"


def planned_description(planned: TableDesign) -> str:
    """How the page names a planned design table that was simulated row by row."""
    return (
        f"the planned table {planned.label}, simulated row by row as planned ({planned.judgements():,} "
        f"judgements, {planned.blocks} blocks, {planned.total_annotators} annotators)"
    )


def reaching_sentence(note: PowerNote) -> str | None:
    """The screened design with the fewest judgements that reaches the target, in words."""
    r = note.reaching
    if r is None:
        return None
    return (
        f"{int(r['blocks'])} blocks × {int(r['docs'])} documents × "
        f"{plural(int(r['annotators']), 'annotator')} per block ({int(r['judgements'])} judgements, "
        f"{int(r['blocks'] * r['docs'])} documents) reaches "
        f"{fmt_power(r['power'], r['ci_low'], r['ci_high'])} power (ARTagg) for {note.smallest_pair}"
    )


def _comparative(view: CriterionView, power: ComparativePower) -> list[Block]:
    overall = power.overall().iloc[0]
    d = power.design.to_dict()
    intro = text(
        f"{int(overall['n_trials'])} studies simulated on the design of this study "
        f"({d['judgements']} judgements by {d['annotators']} annotators) with the fitted strengths and "
        f"annotator × system deviations of SD {power.annotator_sd:.2f}, each analysed by "
        f"{overall['test']} ({overall['aggregate']}). Brackets are 95 % Clopper–Pearson intervals. "
        f"{OBSERVED} (",
        Code("humaneval power --design"),
        "), not as a finding.",
    )
    table = Table(
        (Column("pair"), Column("Δ log-odds", "r"), Column("power", "r")),
        tuple(
            (r.pair, fmt(r.true_difference), fmt_power(r.rate, r.ci_low, r.ci_high))
            for r in power.results.itertuples()
            if r.pair != "all"
        ),
        id=f"cpower{view.index}",
    )
    return [Paragraph(intro), table]


def _shown(pairs: pd.DataFrame) -> bool:
    """Whether any simulated power is a number (ARTagg is not simulated when it cannot reject)."""
    return bool(np.isfinite(pairs[["artagg", "clmm"]].to_numpy(dtype=float)).any())


def _rating(view: CriterionView, note: PowerNote) -> list[Block]:
    art, clmm = note.artagg_can_reject, note.clmm_trials > 0
    if note.planned is not None:
        design = planned_description(note.planned)
    else:
        d = note.design
        design = (
            f"the design of this study, {d.blocks} × {d.docs} × {d.annotators} (blocks × documents × "
            "annotators per block)"
            + (", an approximation of the irregular observed design" if note.approximate else "")
        )
    if art:
        tests = f"{note.trials} studies for ARTagg (randomisation test on block means)"
    else:
        tests = (
            "ARTagg (randomisation test on block means) was not simulated: with "
            f"{(note.planned or note.design).blocks} blocks its smallest p-value is above 0.05, so it "
            "cannot reject"
        )
    if clmm:
        rungs = ", ".join(f"{k}: {v}" for k, v in note.clmm_rungs.items())
        tests += f" and {note.clmm_trials} for the CLMM (native engine; rungs used: {rungs})"
    intro = text(
        f"Simulated from the fitted model on {design}: {tests}. Brackets are exact 95 % Clopper–Pearson "
        f"intervals of the simulated rate. {OBSERVED}, not as a finding."
    )
    pairs = Table(
        (Column("pair"), Column("Δ latent", "r"), Column("ARTagg", "r"), Column("CLMM", "r")),
        tuple(
            (
                r.pair,
                fmt(r.true_difference),
                fmt_power(r.artagg, r.artagg_ci_low, r.artagg_ci_high) if art else "cannot reject",
                fmt_power(r.clmm, r.clmm_ci_low, r.clmm_ci_high) if clmm else "–",
            )
            for r in note.pairs.itertuples()
        ),
        id=f"power{view.index}",
    )
    blocks: list[Block] = [Paragraph(intro), pairs]
    target = f"{note.target:.0%}"
    if _shown(note.pairs):
        blocks.append(
            view.figure(
                "power",
                lambda path: figures.power_figure(note.pairs, note.target, path),
                "Simulated power per pair",
                text(f"Power per pair with 95 % Clopper–Pearson intervals; dashed: {target} target."),
            )
        )
    if note.smallest_pair:
        reaching = reaching_sentence(note)
        blocks.append(
            Paragraph(
                text(
                    "Smallest difference: ",
                    Strong(note.smallest_pair),
                    f" (Δ = {fmt(note.smallest_difference)} on the latent scale). "
                    + (
                        f"{reaching}."
                        if reaching
                        else f"None of the screened designs reached {target} power for it."
                    ),
                )
            )
        )
        search = Table(
            (
                Column("blocks × docs × annotators"),
                Column("family"),
                Column("judgements", "r"),
                Column("power (ARTagg)", "r"),
            ),
            tuple(
                (
                    f"{int(r.blocks)} × {int(r.docs)} × {int(r.annotators)}",
                    r.family.replace("_", " "),
                    str(int(r.judgements)),
                    fmt_power(r.power, r.ci_low, r.ci_high),
                )
                for r in note.search.itertuples()
            ),
        )
        blocks.append(Details(f"Designs screened for {target} power", (search,)))
    return blocks


def part(view: CriterionView) -> Iterator[Block]:
    if view.part.comparative_power is not None:
        yield Section("Power", tuple(_comparative(view, view.part.comparative_power)))
    if view.part.power is not None:
        yield Section("Power", tuple(_rating(view, view.part.power)))
