"""Warnings in plain words: what a reader of the report must know before trusting a number.

One :class:`Caution` per fact, ranked so that the report lists the most important first:
numbers that are not estimates at all (too few blocks to resample, to split or to test), then the
model, reliability, power, design advice and quality control. The rules follow Steen & Markert
(EACL 2021) and Steen's dissertation (ch. 3): few annotators or clusters, repeated judgements and
few documents (dissertation §3.6–§3.7), classic tests on dependent units, CLMM fallbacks and
boundary fits, α and split-half reliability, observed power; docs/report.md lists them with their thresholds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from humaneval.comparative.judgements import COMPARATIVE_KINDS
from humaneval.core.structure import DesignStructure
from humaneval.report.power import ART_MIN_BLOCKS
from humaneval.stats.resampling import FEW_CLUSTERS, MIN_INTERVAL_CLUSTERS, distinct_resamples

if TYPE_CHECKING:
    from humaneval.qc import QCReport
    from humaneval.report.build import CriterionReport

ALPHA_MIN = 0.667
SHR_MIN = 0.8
MIN_ANNOTATORS = 15
MIN_CLUSTERS = 15
MIN_DOCUMENTS = 50
ART_FLOOR = ART_MIN_BLOCKS

#: Ranks of the cautions, most important first.
NOT_AN_ESTIMATE, MODEL, RELIABILITY, QC, POWER, DESIGN, NOTE = range(7)


@dataclass(frozen=True)
class Caution:
    """One fact a reader must know; ``rank`` orders the list (0 first)."""

    rank: int
    text: str


def ordered(cautions: Iterable[Caution]) -> list[str]:
    """The texts, most important first (stable within a rank), each fact once."""
    ranked = sorted(cautions, key=lambda c: c.rank)
    return list(dict.fromkeys(c.text for c in ranked))


def caution_kind(text: str, criteria: Iterable[str | None] = ()) -> str:
    """What a caution is about, whatever its numbers and criterion: the text with numbers and
    criterion names blanked, so "α = 0.61 …" and "α = 0.48 …" are one kind.

    Examples
    --------
    >>> caution_kind("Only 3 annotators in total.") == caution_kind("Only 12 annotators in total.")
    True
    """
    for name in criteria:
        if name:
            text = re.sub(rf"\b{re.escape(str(name))}\b", "<criterion>", text)
    return re.sub(r"[−+-]?\d+(?:[.,]\d+)*", "#", text)


def merge_criteria(study: list[Caution], parts: Sequence[tuple[str | None, list[Caution]]]) -> list[str]:
    """Study cautions and each criterion's, one bullet per kind of caution (:func:`caution_kind`):
    a caution every criterion shares is stated once; one that holds for some criteria names them
    (``"coherence, fluency: ..."``); one whose numbers differ by criterion is one bullet listing each
    criterion's sentence (``"coherence: ...; fluency: ..."``)."""
    out = list(study)
    if len(parts) <= 1:
        return ordered(out + [c for _, cautions in parts for c in cautions])
    names = [criterion for criterion, _ in parts]
    groups: dict[str, list[tuple[str | None, Caution]]] = {}
    for criterion, cautions in parts:
        for c in cautions:
            groups.setdefault(caution_kind(c.text, names), []).append((criterion, c))
    for members in groups.values():
        rank = min(c.rank for _, c in members)
        by_text = dict.fromkeys(c.text for _, c in members)
        holders = list(dict.fromkeys(str(criterion) for criterion, _ in members))
        if len(by_text) == 1:
            text = next(iter(by_text))
            out.append(Caution(rank, text if len(holders) == len(names) else f"{', '.join(holders)}: {text}"))
        else:
            out.append(Caution(rank, _per_criterion(members, len(holders) == len(names))))
    return ordered(out)


_NUMBER = r"[−+-]?\d+(?:[.,]\d+)*"


def _per_criterion(members: list[tuple[str | None, Caution]], everyone: bool) -> str:
    """One sentence for a kind of caution whose numbers differ by criterion: the numbers that differ
    become "…" and each criterion's follow in brackets."""
    texts = [c.text for _, c in members]
    numbers = [re.findall(_NUMBER, t) for t in texts]
    if len({len(n) for n in numbers}) > 1 or caution_kind(texts[0]) != caution_kind(texts[-1]):
        return "; ".join(f"{criterion}: {c.text}" for criterion, c in members)
    differ = [i for i in range(len(numbers[0])) if len({n[i] for n in numbers}) > 1]
    pieces = re.split(f"({_NUMBER})", texts[0])
    template = pieces[0]
    for index, (number, rest) in enumerate(zip(pieces[1::2], pieces[2::2], strict=True)):
        template += ("…" if index in differ else number) + rest
    values = "; ".join(
        f"{criterion}: {', '.join(n[i] for i in differ)}"
        for (criterion, _), n in zip(members, numbers, strict=True)
    )
    who = "" if everyone else ", ".join(str(criterion) for criterion, _ in members) + ": "
    return f"{who}{template.rstrip('.')} ({values})."


def design_cautions(structure: DesignStructure) -> list[Caution]:
    """Design cautions: few annotators, blocks and documents, repeated judgements."""
    s = structure
    out = []
    if s.family == "fully_crossed":
        out.append(
            Caution(
                DESIGN,
                f"{s.n_annotators} annotators judged everything: classic tests (t-test, ART, ANOVA) on these "
                "judgements would be badly anti-conservative, because every judgement shares the same few "
                "annotators; only the mixed model accounts for them.",
            )
        )
    elif s.n_annotators < MIN_ANNOTATORS:
        out.append(
            Caution(
                DESIGN,
                f"Only {s.n_annotators} annotators in total: system differences partly reflect who happened "
                "to annotate, and classic tests on single judgements would find differences that are not "
                "there.",
            )
        )
    if s.n_blocks < ART_FLOOR:
        out.append(
            Caution(
                NOT_AN_ESTIMATE,
                f"Only {plural(s.n_blocks, 'independent block')}: a randomisation test on block means "
                f"(ARTagg) can never reach p < 0.05 with fewer than {ART_FLOOR} blocks (its smallest p-value "
                f"is 2^(1−B) = {2.0 ** (1 - s.n_blocks):.3f}), whatever the true differences; its power on "
                "this design is not estimated.",
            )
        )
    elif s.n_blocks < MIN_CLUSTERS:
        out.append(
            Caution(
                DESIGN,
                f"Only {s.n_blocks} independent blocks (fewer than {MIN_CLUSTERS}): tests on aggregated data "
                "have little power; prefer more, smaller blocks.",
            )
        )
    if s.n_documents < MIN_DOCUMENTS:
        out.append(
            Caution(
                DESIGN,
                f"Only {s.n_documents} documents: with document effects, more annotators cannot make up for "
                f"too few documents (aim for at least {MIN_DOCUMENTS}).",
            )
        )
    if s.judgements_per_summary.min > 1:
        out.append(
            Caution(
                DESIGN,
                f"Every summary was judged {s.judgements_per_summary} times. Repeated judgements buy "
                "precision for single summaries, not power for comparing systems: at the same cost, one "
                "judgement per summary on more documents is at least as reliable and more powerful.",
            )
        )
    return out


def criterion_cautions(part: CriterionReport) -> list[Caution]:
    """Cautions about one criterion's mean intervals, analysis, reliability and power."""
    out = _interval_cautions(part)
    out += model_cautions(part.analysis, part.fit_warnings)
    out += _reliability_cautions(part)
    out += _power_cautions(part)
    if part.power_error:
        out.append(Caution(NOTE, f"Power note not computed: {part.power_error}"))
    return out


def model_cautions(analysis: Any, fit_warnings: Iterable[str] = ()) -> list[Caution]:
    """Cautions about the model of one analysis: a comparative analysis's own cautions (fallbacks,
    few clusters, failed bootstrap replicates), or the CLMM's fallbacks and fit warnings."""
    fit = analysis.fit
    if getattr(fit, "kind", None) in COMPARATIVE_KINDS:
        return [Caution(MODEL, _sentence(text)) for text in analysis.cautions]
    out = [Caution(MODEL, _sentence(text)) for text in analysis.cautions]  # e.g. known mis-calibration
    fell_back = fit is not None and bool(fit.fallbacks)
    for attempt in fit.fallbacks if fit is not None else ():
        text = (
            f"The {attempt.structure} CLMM failed ({attempt.reason}); the results come from the "
            f"simpler '{fit.structure}' model, whose standard errors can be too small."
        )
        out.append(Caution(MODEL, text))
    for message in fit_warnings:
        if fell_back and "CLMM failed" in message:
            continue  # the fallback is stated above
        out.append(
            Caution(
                MODEL,
                f"Mixed-model warning: {message.rstrip('.')}. This flags a boundary or hard-to-estimate fit, "
                "not a failure: the contrasts stand (see docs/analysis.md).",
            )
        )
    return out


def _sentence(text: str) -> str:
    """``text`` with a capital first letter and a full stop, as the report's cautions read."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _interval_cautions(part: CriterionReport) -> list[Caution]:
    interval = part.means_interval
    if interval is None:
        return []
    n = interval.n_clusters
    if n < MIN_INTERVAL_CLUSTERS:
        distinct = plural(distinct_resamples(n), "distinct resample")
        return [
            Caution(
                NOT_AN_ESTIMATE,
                f"The system means have no intervals: a bootstrap over only {plural(n, 'independent block')} "
                f"has {distinct}, which is no "
                f"interval estimate (intervals need at least {MIN_INTERVAL_CLUSTERS} blocks).",
            )
        ]
    if n < FEW_CLUSTERS:
        return [
            Caution(
                RELIABILITY,
                f"The intervals of the system means resample only {n} independent blocks: they are rough "
                f"and tend to be too narrow (aim for at least {FEW_CLUSTERS} blocks).",
            )
        ]
    return []


def _reliability_cautions(part: CriterionReport) -> list[Caution]:
    rel = part.reliability
    agreement = getattr(part, "agreement", None)
    if rel is None and agreement is not None:
        low = [c for c in agreement.choices if c.alpha == c.alpha and c.alpha < ALPHA_MIN]
        return [
            Caution(
                RELIABILITY,
                f"Annotators agree little on the {c.choice} of a judgement (nominal α = {c.alpha:.3f} < "
                f"{ALPHA_MIN}); the system strengths average over their tastes, and the clustering-aware "
                "intervals account for it.",
            )
            for c in low
        ]
    if rel is None:
        why = f": {part.reliability_error.rstrip('.')}" if part.reliability_error else ""
        return [Caution(RELIABILITY, f"Reliability was not computed{why}.")]
    out = []
    shr_estimate = rel.shr is not None and not rel.shr_caveat
    if rel.shr is not None and rel.shr_caveat:
        out.append(
            Caution(
                NOT_AN_ESTIMATE,
                f"Split-half reliability ({rel.shr:.2f}) "
                + rel.shr_caveat.removeprefix("split-half reliability ").rstrip(".")
                + ".",
            )
        )
    if rel.alpha is not None and rel.alpha == rel.alpha and rel.alpha < ALPHA_MIN:
        shr = f" (split-half reliability {rel.shr:.2f})" if shr_estimate else ""
        out.append(
            Caution(
                RELIABILITY,
                f"Annotators agree little on single summaries (ordinal α = {rel.alpha:.3f} < {ALPHA_MIN}). "
                f"That does not stop the system ranking from replicating{shr}, but do not use these "
                "ratings as gold scores for single summaries.",
            )
        )
    if shr_estimate and rel.shr is not None and rel.shr < SHR_MIN:
        out.append(
            Caution(
                RELIABILITY,
                f"The system means would not replicate well (split-half reliability {rel.shr:.2f} < "
                f"{SHR_MIN}): collect more blocks before drawing conclusions.",
            )
        )
    out += [Caution(NOTE, f"Reliability: {note.rstrip('.')}.") for note in rel.notes]
    return out


def _power_cautions(part: CriterionReport) -> list[Caution]:
    note = part.power
    simulated = getattr(part, "comparative_power", None)
    if note is None and simulated is not None:
        power = simulated.results.set_index("pair")["rate"]
        weak = []
        for row in part.analysis.contrasts.itertuples():
            key = _pair_key(power.index, row.system_a, row.system_b)
            if row.better is None and key is not None and power[key] < 0.8:
                weak.append(f"{row.system_a} – {row.system_b}: {power[key]:.0%}")
        if not weak:
            return []
        verb = "does" if len(weak) == 1 else "do"
        return [
            Caution(
                POWER,
                f"{plural(len(weak), 'pair')} {verb} not differ significantly, but this design had little "
                f"power to detect differences of the estimated size ({'; '.join(weak)}): "
                "'no significant difference' is not evidence that two systems are equally good.",
            )
        ]
    if note is None:
        return []
    out = []
    weak = _underpowered(part.analysis.contrasts, note)
    if weak:
        verb = "does" if len(weak) == 1 else "do"
        out.append(
            Caution(
                POWER,
                f"{plural(len(weak), 'pair')} {verb} not differ significantly, but this design had little "
                f"power to detect differences of the estimated size ({_names(weak, sep='; ')}): "
                "'no significant difference' is not evidence that two systems are equally good.",
            )
        )
    if note.smallest_pair is not None and note.reaching is None and len(note.search):
        largest = note.search.loc[note.search["judgements"].idxmax()]
        out.append(
            Caution(
                POWER,
                f"Even {int(largest['blocks'])} blocks would not give {note.target:.0%} power for the "
                f"smallest difference ({note.smallest_pair}); detecting it needs a much larger study.",
            )
        )
    return out


def qc_cautions(qc: QCReport) -> list[Caution]:
    """QC flags in words (docs/forms.md, quality control)."""
    table = qc.table
    out = []

    def who(column: str) -> list[str]:
        return (
            list(table.loc[table[column].fillna(False).astype(bool), "annotator"]) if column in table else []
        )

    failed = who("prolific_rejection_eligible")
    if failed:
        out.append(
            Caution(
                QC,
                f"{plural(len(failed), 'annotator')} failed at least "
                f"{qc.rules.min_failed_checks_for_rejection} attention checks ({_names(failed)}); "
                "they are still in the analysis — exclude them explicitly if your protocol says so "
                "(humaneval qc --exclude).",
            )
        )
    fast = who("too_fast")
    if fast:
        verb = "was" if len(fast) == 1 else "were"
        out.append(
            Caution(
                QC, f"{plural(len(fast), 'annotator')} {verb} much faster than the others ({_names(fast)})."
            )
        )
    flat = who("straight_line")
    if flat:
        out.append(
            Caution(
                QC, f"{plural(len(flat), 'annotator')} gave the same answer to every item ({_names(flat)})."
            )
        )
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
        if np.isfinite(value) and value < note.target:
            out.append(f"{row.system_a} – {row.system_b}: {value:.0%} ({test})")
    return out


def _pair_key(index, a: str, b: str) -> str | None:
    for key in (f"{a} - {b}", f"{b} - {a}"):
        if key in index:
            return key
    return None
