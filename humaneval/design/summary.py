"""Design summary with time and cost (docs/design.md; design rules of docs/design.md).

Seconds per screen default to the released timings of the reference study (Steen & Markert):
Likert coherence 32.0 s per item, repetition 27.1 s; ranking coherence 135.5 s and repetition
102.4 s per 5-summary screen (scaled by S/5 for other screen sizes, a package assumption); DA from
FFCI's stated minimum durations, 30 s per two-text and 18 s per single-text item. BWS and pairwise
have no study value. Reward per annotator = wage × seconds / 3600 rounded up to the minor unit;
total = reward × annotators × (1 + platform fee) × (1 + over-recruitment).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from humaneval.core.platforms import get_platform
from humaneval.errors import PayBelowMinimumError
from humaneval.methods import METHODS, get_method

if TYPE_CHECKING:
    from humaneval.design.plan import Design

STUDY_SECONDS = {
    (m.name, dimension): seconds for m in METHODS.values() for dimension, seconds in m.study_seconds.items()
}
"""Published seconds per screen by (method, dimension): each method's ``study_seconds``."""
FEW_UNITS = 10
FEW_ANNOTATORS = 15
FEW_DOCUMENTS = 50


@dataclass(frozen=True)
class CostSettings:
    """Time and pay assumptions; ``None`` means the study value / the platform default.

    ``seconds_per_screen`` overrides the study timings (pilot timings override everything);
    ``seconds_per_check`` prices checks embedded in a ranking screen.
    """

    seconds_per_screen: float | None = None
    seconds_per_check: float = 15.0
    seconds_overhead: float = 60.0
    hourly_wage: float | None = None
    currency: str | None = None
    min_hourly_wage: float | None = None
    platform_fee_rate: float = 0.0
    overrecruit_rate: float = 0.10

    def __post_init__(self) -> None:
        if self.currency is not None:
            from humaneval.core.currency import currency_code

            object.__setattr__(self, "currency", currency_code(self.currency))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CostEstimate:
    """Time and money of a design; rewards are per annotator, for the longest slot."""

    seconds_per_screen: float
    seconds_source: str
    seconds_per_annotator: float
    minutes_per_annotator: float
    currency: str
    hourly_wage: float
    reward_per_annotator: float
    reward_without_checks: float
    effective_hourly_wage: float
    platform_fee_rate: float
    overrecruit_rate: float
    total_before_fees: float
    total: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class DesignSummary:
    """What a design costs and buys. ``cost`` is ``None`` when the time is unknown."""

    design_id: str
    method: str
    family: str
    documents_used: int
    documents_dropped: list[str]
    systems: list[str]
    reference_system: str | None
    items: int
    blocks: int
    block_sizes: list[int]
    annotators_per_block: int
    annotators: int
    screens_per_annotator: list[int]
    judgements_per_annotator: list[int]
    judgements_per_summary: list[int]
    analysed_judgements: int
    check_rows: int
    independent_units: int
    nested_alternative: dict[str, int]
    cost: CostEstimate | None
    cost_note: str
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cost"] = None if self.cost is None else self.cost.to_dict()
        return out

    def to_markdown(self) -> str:
        ref = f" (reference: {self.reference_system})" if self.reference_system else ""
        lines = [
            f"# Design {self.design_id}",
            "",
            f"- method: {self.method}; family: {self.family}",
            f"- documents: {self.documents_used} used, {len(self.documents_dropped)} dropped",
            f"- systems: {', '.join(self.systems)}{ref}; items: {self.items}",
            f"- blocks: {self.blocks} of {span(self.block_sizes)} documents",
            f"- annotators: {self.annotators_per_block} per block, {self.annotators} in total",
            f"- per annotator: {span(self.screens_per_annotator)} screens, "
            f"{span(self.judgements_per_annotator)} judgements",
            f"- judgements per summary: {span(self.judgements_per_summary)}; analysed judgements: "
            f"{self.analysed_judgements} (plus {self.check_rows} check rows)",
            f"- independent units (blocks): {self.independent_units}",
            f"- equal-cost nested alternative: {self.nested_alternative['blocks']} blocks × "
            f"{self.nested_alternative['documents_per_block']} documents = "
            f"{self.nested_alternative['documents']} documents, 1 annotator per block",
        ]
        c = self.cost
        if c is None:
            lines.append(f"- time and cost: unknown ({self.cost_note})")
        else:
            lines += [
                f"- time per annotator: {c.seconds_per_annotator:g} s ({c.minutes_per_annotator:.1f} min; "
                f"{c.seconds_per_screen:g} s per screen, {c.seconds_source})",
                f"- reward per annotator: {c.reward_per_annotator:.2f} {c.currency} "
                f"({c.reward_without_checks:.2f} without checks) at {c.hourly_wage:.2f} {c.currency}/h; "
                f"effective {c.effective_hourly_wage:.2f} {c.currency}/h",
                f"- total: {c.total_before_fees:.2f} {c.currency} before fees; {c.total:.2f} {c.currency} "
                f"with {c.platform_fee_rate:.0%} fee and {c.overrecruit_rate:.0%} over-recruitment",
            ]
        lines += [f"- warning: {w}" for w in self.warnings]
        return "\n".join(lines) + "\n"


def study_seconds_per_screen(
    method: str, dimension: str, n_systems: int, show_source: bool
) -> tuple[float, str]:
    """Study seconds per screen and where they come from; ``nan`` when there is no study value.

    Each method's :meth:`~humaneval.methods.Method.seconds_per_screen` holds its published timing.
    """
    return get_method(method).seconds_per_screen(dimension, n_systems, show_source)


def ceil_minor(amount: float) -> float:
    """Round a money amount up to the minor unit (1/100), ignoring float noise below 1e-6."""
    return math.ceil(round(amount * 100, 6)) / 100


def summarize_design(design: Design) -> DesignSummary:
    """Build the :class:`DesignSummary` of ``design`` with its cost settings."""
    table = design.table[~design.table["is_warmup"]]
    real = table[~table["is_check"] & ~table["is_anchor_repeat"]]
    screens = design.table.groupby("annotator_slot", sort=False)["position"].nunique()
    judgements = real.groupby("annotator_slot", sort=False).size()
    per_summary = real.groupby(["document", "system"]).size()
    a = design.annotators_per_block
    sizes = [len(b) for b in design.blocks]
    alternative = {
        "blocks": len(design.slots),
        "documents_per_block": max(sizes),
        "documents": sum(sizes) * a,
    }
    cost, note = _cost(design, design.table)
    warnings = _warnings(design, sizes, a)
    return DesignSummary(
        design_id=design.design_id,
        method=design.method,
        family=design.spec["family"],
        documents_used=sum(sizes),
        documents_dropped=list(design.dropped_documents),
        systems=list(design.systems),
        reference_system=design.reference_system,
        items=sum(sizes) * len(design.systems) - len(design.skipped_pairs),
        blocks=len(design.blocks),
        block_sizes=sorted(set(sizes)),
        annotators_per_block=a,
        annotators=len(design.slots),
        screens_per_annotator=_minmax(screens),
        judgements_per_annotator=_minmax(judgements),
        judgements_per_summary=_minmax(per_summary),
        analysed_judgements=len(real),
        check_rows=int(table["is_check"].sum()),
        independent_units=len(design.blocks),
        nested_alternative=alternative,
        cost=cost,
        cost_note=note,
        warnings=warnings,
    )


def _cost(design: Design, table: Any) -> tuple[CostEstimate | None, str]:
    settings = design.cost or CostSettings()
    platform = design.spec["platform"]
    currency = settings.currency or get_platform(platform).currency
    default_wage, default_minimum = get_platform(platform).hourly_pay(currency)
    wage = default_wage if settings.hourly_wage is None else settings.hourly_wage
    minimum = default_minimum if settings.min_hourly_wage is None else settings.min_hourly_wage
    if wage < minimum:
        raise PayBelowMinimumError(
            f"hourly wage {wage:.2f} {currency} is below the minimum {minimum:.2f} {currency} for "
            f"{platform}; raise the wage (or set min_hourly_wage if your platform's floor differs)"
        )
    n_systems = len(design.systems)
    if settings.seconds_per_screen is not None:
        base, source = float(settings.seconds_per_screen), "user-supplied"
    else:
        base, source = study_seconds_per_screen(
            design.method, design.dimension, n_systems, design.spec["show_source"]
        )
    if math.isnan(base):
        return None, source
    n_questions = len(design.spec.get("criteria") or ())
    if settings.seconds_per_screen is None and n_questions > 1:
        # no study timed several questions per screen: count each question as a one-question screen,
        # which over- rather than under-estimates the time (and so the pay)
        base *= n_questions
        source += f", × {n_questions} questions per screen (conservative; time a pilot)"
    if table.empty:
        return None, "the design has no screens"
    extra = table["is_check"] | table["is_warmup"]
    per_screen = table.assign(extra=extra).groupby(["annotator_slot", "position"], sort=False)
    per_screen = per_screen.agg(size=("extra", "size"), extra=("extra", "sum"))
    real_size = per_screen["size"] - per_screen["extra"]
    unit = get_method(design.method).unit
    if unit == "document":
        # a ranking screen's time scales with its number of real summaries; embedded checks add a fixed time
        screen_seconds = base * real_size / n_systems
        check_seconds = per_screen["extra"] * settings.seconds_per_check
    elif unit == "item":
        # seconds per item; a grouped screen holds several items; check and warm-up screens cost one item
        screen_seconds = base * real_size
        check_seconds = base * (real_size == 0)
    else:
        screen_seconds = base * (real_size == per_screen["size"])
        check_seconds = base * (real_size < per_screen["size"])
    slot_real = screen_seconds.groupby(level=0, sort=False).sum()
    slot_total = slot_real + check_seconds.groupby(level=0, sort=False).sum()
    longest = float(slot_total.max()) + settings.seconds_overhead
    without_checks = float(slot_real.max()) + settings.seconds_overhead
    reward = ceil_minor(wage * longest / 3600)
    annotators = len(slot_total)
    before_fees = round(reward * annotators, 2)
    total = ceil_minor(before_fees * (1 + settings.platform_fee_rate) * (1 + settings.overrecruit_rate))
    estimate = CostEstimate(
        seconds_per_screen=base,
        seconds_source=source,
        seconds_per_annotator=longest,
        minutes_per_annotator=longest / 60,
        currency=currency,
        hourly_wage=wage,
        reward_per_annotator=reward,
        reward_without_checks=ceil_minor(wage * without_checks / 3600),
        effective_hourly_wage=reward * 3600 / longest if longest else math.inf,
        platform_fee_rate=settings.platform_fee_rate,
        overrecruit_rate=settings.overrecruit_rate,
        total_before_fees=before_fees,
        total=total,
    )
    return estimate, source


def _warnings(design: Design, sizes: list[int], a: int) -> list[str]:
    out = []
    if len(design.blocks) < FEW_UNITS:
        out.append(
            f"few independent blocks ({len(design.blocks)}): an aggregated test will have little power; "
            "prefer a mixed-effects analysis"
        )
    if len(design.slots) < FEW_ANNOTATORS:
        out.append(
            f"only {len(design.slots)} annotators in total: power depends on the number of annotators, "
            "and with 3 annotators a naive test rejects a true null about 8 times too often "
            ""
        )
    if sum(sizes) < FEW_DOCUMENTS:
        out.append(f"only {sum(sizes)} documents: more annotators cannot make up for too few documents ")
    if a > 1:
        out.append(
            f"{a} judgements per summary buy precision for single summaries (agreement, summary-level "
            "scores), not power for comparing systems: at equal cost the nested alternative is more powerful "
            ""
        )
    if len(set(sizes)) > 1:
        out.append("blocks differ in size, so they weigh unequally in per-block means")
    if design.dropped_documents:
        out.append(f"{len(design.dropped_documents)} documents dropped to make blocks equal")
    if design.skipped_pairs:
        out.append(f"{len(design.skipped_pairs)} (document, system) pairs have no summary and were skipped")
    return out


def _minmax(counts: Any) -> list[int]:
    return [int(counts.min()), int(counts.max())] if len(counts) else [0, 0]


def span(values: list[int]) -> str:
    """``"5"`` for [5, 5], ``"4–5"`` for [4, 5]."""
    return str(values[0]) if values[0] == values[-1] else f"{values[0]}–{values[-1]}"
