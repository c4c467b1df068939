"""``humaneval validate``: check a ratings file and report its structure."""

from __future__ import annotations

import click

from humaneval.cli import _spans as spans
from humaneval.cli._common import InputFile, emit, facts_text, json_option, load_from_options, ratings_options
from humaneval.core.responses import lower_is_better
from humaneval.core.structure import DesignStructure, describe_structure
from humaneval.methods.kinds import count_judgements, detect_kind

FAMILY_NAMES = {
    "nested": "nested (one annotator per block)",
    "fully_crossed": "fully crossed (every annotator judged every document)",
    "crossed_in_blocks": "crossed within blocks",
    "irregular": "irregular (no clean block structure)",
}


def render_structure(
    source: str,
    s: DesignStructure,
    scales: tuple = (),
    judges: tuple[str, int] | None = None,
    judgements: tuple[str, int] | None = None,
) -> str:
    """The human-readable validation summary."""
    if lower_is_better(s.response):
        response = f"rank ({s.rank_base} = best)"
    else:
        low, high = (f"{v:g}" for v in s.scale)
        response = f"score, scale {low}-{high} ({'declared' if s.scale_declared else 'inferred'})"
    rows: list[tuple[str, object]] = [("ratings", s.n_ratings)]
    if (
        judgements is not None and judgements[1] != s.n_ratings
    ):  # (kind, count): a pairwise judgement is two rows
        rows = [("judgements", f"{judgements[0]}, {judgements[1]:,}"), ("rows", s.n_ratings)]
    rows += [
        ("response", response),
        ("annotators", s.n_annotators),
        ("documents", s.n_documents),
        ("systems", s.n_systems),
        ("criteria", s.n_criteria),
        ("judgements per summary", s.judgements_per_summary),
        ("annotators per document", s.annotators_per_document),
        ("documents per annotator", s.documents_per_annotator),
        ("blocks", f"{s.n_blocks} ({s.block_annotators} annotators × {s.block_documents} documents)"),
        ("design family", FAMILY_NAMES[s.family]),
    ]
    if s.n_checks:
        rows.append(("attention checks", s.n_checks))
    if judges:  # (names, rows): raters marked as judges, outside every human statistic above
        rows.append(("judges", f"{judges[0]} ({judges[1]} ratings, left out of the human statistics)"))
    for scale in scales:  # the declared scale of each criterion (design → collect → scale sidecar)
        rows.append(
            (f"scale of {scale.criterion}" if scale.criterion else "declared scale", scale.describe())
        )
    return facts_text(f"{source}: valid", rows)


@click.command()
@click.argument("ratings", type=InputFile())
@ratings_options
@spans.texts_option
@json_option
def command(ratings: str, as_json: bool, texts: str | None, **options) -> None:
    """Validate a ratings file and report its design structure (span tables: docs/spans.md)."""
    span_table = spans.span_table(ratings, texts, None)
    if span_table is not None:
        return spans.present(ratings, describe_structure(span_table), as_json)
    table = load_from_options(ratings, **options)
    structure = describe_structure(table)
    scales = table.scales
    judges = (", ".join(table.judge_names), len(table.judges())) if table.has_judges else None
    kind = detect_kind(table)
    n_judgements = count_judgements(table.humans())
    emit(
        {
            "file": ratings,
            "kind": kind,
            "n_judgements": n_judgements,
            **structure.to_dict(),
            "scales": [s.to_dict() for s in scales],
            "judges": table.judge_names,
        },
        as_json,
        lambda: render_structure(ratings, structure, scales, judges, (kind, n_judgements)),
    )
