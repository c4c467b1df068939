"""Warnings in plain words: what a reader of the report must know before trusting a number.

Each rule cites where it comes from: the design rules of analysis spec §7 (D1 few annotators or
clusters, D3 repeated judgements, D8 few documents), §4.5 (classic tests on dependent units), §5.5
(CLMM fallbacks and boundary fits), §2 (α), §3 (SHR), §6.5/§7 D7 (power) and the QC flags of
designs-and-forms spec §6. Thresholds are the package defaults of those sections.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from humaneval.structure import DesignStructure

if TYPE_CHECKING:
    from humaneval.qc import QCReport
    from humaneval.report.build import CriterionReport

ALPHA_MIN = 0.667
SHR_MIN = 0.8
MIN_ANNOTATORS = 15
MIN_CLUSTERS = 15
MIN_DOCUMENTS = 50
ART_FLOOR = 6


def design_cautions(structure: DesignStructure) -> list[str]:
    """Design warnings (spec §7 D1, D3, D8 and §4.5)."""
    s = structure
    out = []
    if s.family == "fully_crossed":
        out.append(
            f"{s.n_annotators} annotators judged everything: classic tests (t-test, ART, ANOVA) on these "
            "judgements would be badly anti-conservative, because every judgement shares the same few "
            "annotators; only the mixed model accounts for them."
        )
    elif s.n_annotators < MIN_ANNOTATORS:
        out.append(
            f"Only {s.n_annotators} annotators in total: system differences partly reflect who happened to "
            "annotate, and classic tests on single judgements would find differences that are not there."
        )
    if s.n_blocks < ART_FLOOR:
        out.append(
            f"Only {plural(s.n_blocks, 'independent block')}: a randomisation test on block means can never "
            "reach p < 0.05 with 5 or fewer blocks"
            + (", and split-half reliability needs at least 2." if s.n_blocks == 1 else ".")
        )
    elif s.n_blocks < MIN_CLUSTERS:
        out.append(
            f"Only {s.n_blocks} independent blocks (fewer than {MIN_CLUSTERS}): tests on aggregated data "
            "have little power; prefer more, smaller blocks."
        )
    if s.n_documents < MIN_DOCUMENTS:
        out.append(
            f"Only {s.n_documents} documents: with document effects, more annotators cannot make up for too "
            f"few documents (aim for at least {MIN_DOCUMENTS})."
        )
    if s.judgements_per_summary.min > 1:
        out.append(
            f"Every summary was judged {s.judgements_per_summary} times. Repeated judgements buy precision "
            "for single summaries, not power for comparing systems: at the same cost, one judgement per "
            "summary on more documents is at least as reliable and more powerful."
        )
    return out


def criterion_cautions(part: CriterionReport) -> list[str]:
    """Warnings about one criterion's analysis, reliability and power."""
    out = []
    fit = part.analysis.fit
    if fit is not None:
        for attempt in fit.fallbacks:
            out.append(
                f"The {attempt.structure} CLMM failed ({attempt.reason}); the results come from the simpler "
                f"'{fit.structure}' model, whose standard errors can be too small."
            )
    out += [
        f"Mixed-model warning: {message}. This flags a boundary or hard-to-estimate fit, not a failure "
        "(analysis spec §5.5); the contrasts stand unless the fit failed."
        for message in part.fit_warnings
    ]
    rel = part.reliability
    if rel is None:
        out.append(f"Reliability was not computed: {part.reliability_error}.")
    elif rel.alpha is not None and rel.alpha == rel.alpha and rel.alpha < ALPHA_MIN:
        shr = "" if rel.shr is None else f" (split-half reliability {rel.shr:.2f})"
        out.append(
            f"Annotators agree little on single summaries (ordinal α = {rel.alpha:.3f} < {ALPHA_MIN}). "
            f"That does not stop the system ranking from replicating{shr}, but do not use these ratings "
            "as gold scores for single summaries."
        )
    if rel is not None and rel.shr is not None and rel.shr < SHR_MIN:
        out.append(
            f"The system means would not replicate well (split-half reliability {rel.shr:.2f} < {SHR_MIN}): "
            "collect more blocks before drawing conclusions."
        )
    out += [f"Reliability: {note}" for note in (rel.notes if rel is not None else [])]
    note = part.power
    if note is not None:
        weak = _underpowered(part.analysis.contrasts, note)
        if weak:
            verb = "does" if len(weak) == 1 else "do"
            out.append(
                f"{plural(len(weak), 'pair')} {verb} not differ significantly, but this design had little "
                f"power to detect differences of the estimated size ({_names(weak, sep='; ')}): "
                "'no significant difference' is not evidence that two systems are equally good."
            )
        if note.smallest_pair is not None and note.reaching is None and len(note.search):
            largest = note.search.iloc[note.search["judgements"].idxmax()]
            out.append(
                f"Even {int(largest['blocks'])} blocks would not give {note.target:.0%} power for the "
                f"smallest difference ({note.smallest_pair}); detecting it needs a much larger study."
            )
    return out


def qc_cautions(qc: QCReport) -> list[str]:
    """QC flags in words (designs-and-forms spec §6)."""
    table = qc.table
    out = []

    def who(column: str) -> list[str]:
        return (
            list(table.loc[table[column].fillna(False).astype(bool), "annotator"]) if column in table else []
        )

    failed = who("prolific_rejection_eligible")
    if failed:
        out.append(
            f"{plural(len(failed), 'annotator')} failed at least {qc.rules.min_failed_checks_for_rejection} "
            f"attention checks ({_names(failed)}); they are still in the analysis — exclude them "
            "explicitly if your protocol says so."
        )
    fast = who("too_fast")
    if fast:
        verb = "was" if len(fast) == 1 else "were"
        out.append(f"{plural(len(fast), 'annotator')} {verb} much faster than the others ({_names(fast)}).")
    flat = who("straight_line")
    if flat:
        out.append(f"{plural(len(flat), 'annotator')} gave the same answer to every item ({_names(flat)}).")
    return out


def plural(n: int, noun: str) -> str:
    """``"1 pair"``, ``"3 pairs"``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _names(items: Sequence[str], limit: int = 5, sep: str = ", ") -> str:
    shown = sep.join(map(str, items[:limit]))
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _underpowered(contrasts, note) -> list[str]:
    """``"A – B: 26 % (ARTagg)"`` for each non-significant pair simulated below the target power;
    the CLMM's power when it was simulated, else ARTagg's."""
    power = note.pairs.set_index("pair")
    out = []
    for row in contrasts.itertuples():
        key = _pair_key(power.index, row.system_a, row.system_b)
        if row.better is not None or key is None:
            continue
        value, test = power.loc[key, "clmm"], "CLMM"
        if value != value:
            value, test = power.loc[key, "artagg"], "ARTagg"
        if value < note.target:
            out.append(f"{row.system_a} – {row.system_b}: {value:.0%} ({test})")
    return out


def _pair_key(index, a: str, b: str) -> str | None:
    for key in (f"{a} - {b}", f"{b} - {a}"):
        if key in index:
            return key
    return None
