"""``humaneval collect``: bring platform results back as the validated ratings table.

A click group with one subcommand per platform: ``mturk`` (batch results CSV) and ``prolific``
(the collection server's database).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import click

from humaneval.cli._checks import OutputPath
from humaneval.cli._common import InputFile, emit, json_option, read_text


@click.group()
def command() -> None:
    """Parse collected answers (MTurk batch results, Prolific study database) into a ratings table."""


def _render(results, out: Path, extra: list[str]) -> str:
    w = results.workers
    data = results.ratings.data
    n_checks = int(data["is_check"].sum()) if "is_check" in data else 0
    lines = [
        f"wrote {len(data) - n_checks} ratings and {n_checks} attention-check answers to {out}",
        f"  assignments kept: {len(w)}; excluded by status: {results.excluded_assignments}",
    ]
    if len(w):
        dup = int(w["duplicate_worker"].sum())
        lines.append(f"  duplicate workers (excluded, still to be paid): {dup}")
        for row in w.itertuples(index=False):
            checks = f"{row.checks_total - row.checks_failed}/{row.checks_total} checks passed"
            lines.append(
                f"  {row.annotator} {row.annotator_slot}: {checks}, {row.work_time_seconds:g} s"
                + (" [duplicate]" if row.duplicate_worker else "")
            )
    if results.duplicate_rows:
        lines.append(f"  repeated batch rows (same AssignmentId) counted once: {results.duplicate_rows}")
    for row in results.collisions.itertuples(index=False):
        ids = row.assignment_ids.split(",")
        shown = ",".join(ids[:5]) + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")
        lines.append(
            f"  warning: slot collision: {row.assignments} assignments ({shown}) of HIT "
            f"{row.hit_id} got slot {row.annotator_slot} (same order and checks; position balance broken)"
        )
    for row in results.problems.itertuples(index=False):
        lines.append(
            f"  problem: line {row.line} ({row.assignment_id}): {row.kind} {row.field}: {row.detail}"
        )
    return "\n".join(lines + extra)


def no_usable_assignment(source: object, parsed) -> str:
    """The one line of a batch without a usable assignment: how many problems, and the first."""
    problems = parsed.problems
    if not len(problems):
        return f"{source}: no usable assignment; nothing written"
    row = next(problems.itertuples(index=False))
    first = f"line {row.line} ({row.assignment_id}): {row.kind} {row.field}: {row.detail}"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{source}: no usable assignment; first problem: {first}{more}; nothing written"


@command.command("mturk")
@click.argument("results", type=InputFile())
@click.option(
    "--design",
    type=InputFile(),
    required=True,
    help="design.csv or design.json of the study.",
)
@click.option("--out", type=OutputPath(), required=True, help="Ratings table (CSV/TSV/JSONL).")
@click.option("--table", type=OutputPath(), default=None, help="Also write the long export table.")
@click.option(
    "--status",
    "statuses",
    multiple=True,
    default=("Submitted", "Approved"),
    show_default=True,
    help="AssignmentStatus values to keep (repeat the option).",
)
@click.option("--points", type=int, default=None, help="Likert points (default: the design's scale).")
@click.option(
    "--allow-ties", is_flag=True, default=None, help="Ranking forms allowed ties (default: detected)."
)
@click.option(
    "--salt-file",
    type=InputFile(),
    callback=read_text,
    default=None,
    help="Secret salt for worker pseudonyms (default: the design id).",
)
@click.option("--keep-worker-ids", is_flag=True, help="Keep raw WorkerIds (personal data).")
@click.option(
    "--grant-out",
    type=OutputPath(),
    default=None,
    help="Write the raw WorkerIds seen, to grant the exclusion qualification.",
)
@json_option
def mturk(
    results: str,
    design: str,
    out: str,
    table: str | None,
    statuses: tuple[str, ...],
    points: int | None,
    allow_ties: bool | None,
    salt_file: str | None,
    keep_worker_ids: bool,
    grant_out: str | None,
    as_json: bool,
) -> None:
    """Parse an MTurk batch results CSV against the design."""
    from humaneval.collect.mturk import parse_mturk_results
    from humaneval.collect.spreadsheet import write_safe_table
    from humaneval.errors import RatingsError
    from humaneval.forms.write import load_design
    from humaneval.methods import get_method

    loaded = load_design(design)
    parsed = parse_mturk_results(
        results,
        loaded,
        statuses=statuses,
        points=points,
        allow_ties=allow_ties,
        salt=None if salt_file is None else salt_file.strip(),
        keep_worker_ids=keep_worker_ids,
    )
    if parsed.ratings is None:
        raise RatingsError(no_usable_assignment(results, parsed))
    out_path = Path(out)
    if get_method(str(parsed.table["method"].iloc[0])).marks_spans:  # the span table (docs/spans.md)
        from humaneval.spans.collected import collected_spans, texts_frame

        texts = getattr(loaded, "texts", None)
        if texts is None:
            raise RatingsError(
                f"{design}: no texts beside the design; give design.json with its texts.json (the span "
                "table needs every text's length)"
            )
        collected_spans(parsed, texts_frame(texts.summaries)).write(out_path)
    else:
        parsed.ratings.write(out_path)
    extra = []
    if table:
        write_safe_table(parsed.table, table)
        extra.append(f"  long table: {table}")
    if len(parsed.repost):
        repost = out_path.with_name("repost.csv")
        write_safe_table(parsed.repost, repost)
        extra.append(f"  blocks to re-post: {repost}")
    if grant_out:
        Path(grant_out).write_text("".join(w + "\n" for w in parsed.workers_seen), encoding="utf-8")
        extra.append(f"  worker ids to grant the exclusion qualification: {grant_out}")
    emit({"out": out, **parsed.to_dict()}, as_json, lambda: _render(parsed, out_path, extra))


@command.command("prolific")
@click.argument("database", type=click.Path())
@click.option(
    "--out",
    type=OutputPath(),
    required=True,
    help="Ratings table (CSV/TSV/JSONL); the span table of a span-marking study (docs/spans.md).",
)
@click.option("--table", type=OutputPath(), default=None, help="Also write the long table.")
@click.option("--participants", type=OutputPath(), default=None, help="Also write the participants.")
@click.option("--include-pids", is_flag=True, help="Add raw Prolific ids (personal data).")
@json_option
def prolific(
    database: str, out: str, table: str | None, participants: str | None, include_pids: bool, as_json: bool
) -> None:
    """Export a collection-server study (study.sqlite or its folder)."""
    from humaneval.collect.prolific import read_prolific
    from humaneval.collect.spreadsheet import write_safe_table
    from humaneval.errors import RatingsError
    from humaneval.methods import get_method

    results = read_prolific(database, include_pids=include_pids)
    if results.ratings is None:
        raise RatingsError(f"{database}: no participant has completed the study yet; nothing written")
    if get_method(str(results.table["method"].iloc[0])).marks_spans:  # the span table (docs/spans.md)
        from humaneval.spans.collected import collected_spans, study_texts

        spans = collected_spans(results, study_texts(database)).write(Path(out))
        lines = [f"wrote the span table to {spans} (with each item's length)"]
    else:
        results.ratings.write(Path(out))
        n_checks = len(results.ratings) - results.n_ratings
        lines = [f"wrote {results.n_ratings} ratings and {n_checks} attention-check answers to {out}"]
    for path, frame in ((table, results.table), (participants, results.participants)):
        if path:
            write_safe_table(frame, path)
            lines.append(f"  also wrote {path}")
    for row in results.participants.itertuples(index=False):
        state = "complete" if row.complete else f"{row.screens_saved}/{row.screens_total} screens"
        flags = "".join(f" [{f}]" for f in ("surplus", "late", "pilot", "rejected") if getattr(row, f))
        lines.append(
            f"  {row.annotator} {row.annotator_slot}: {state}, "
            f"{row.checks_total - row.checks_failed}/{row.checks_total} checks passed{flags}"
        )
    rejected = int(results.participants["rejected"].sum())
    if rejected:
        lines.append(
            f"  {rejected} participant(s) rejected on Prolific (prolific.json) left out of {out}; "
            "their rows are marked 'rejected' in --table and --participants"
        )
    emit({"out": out, **results.to_dict()}, as_json, lambda: "\n".join(lines))


@command.command("summeval")
@click.argument("annotations", type=InputFile())
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Ratings table (CSV/TSV/JSONL).")
@click.option(
    "--annotators",
    "group",
    type=click.Choice(["expert", "turker", "both"]),
    default="expert",
    show_default=True,
    help="Whose ratings: SummEval's 3 experts, its 5 crowd workers, or both (column annotator_group).",
)
@click.option(
    "--criteria", default=None, help="Comma-separated subset of coherence,consistency,fluency,relevance."
)
@click.option(
    "--unique-turkers",
    is_flag=True,
    help="Name every crowd annotation its own annotator (the file has no worker ids).",
)
@json_option
def summeval(
    annotations: str,
    out: str,
    group: Literal["expert", "turker", "both"],
    criteria: str | None,
    unique_turkers: bool,
    as_json: bool,
) -> None:
    """Convert SummEval's model_annotations.aligned.jsonl into a ratings table (with its 1-5 scales)."""
    from humaneval.collect.summeval import load_summeval

    chosen = tuple(c.strip() for c in criteria.split(",") if c.strip()) if criteria else None
    ratings = load_summeval(
        annotations,
        annotations=group,
        criteria=chosen,
        annotators="unique" if unique_turkers else "position",
    )
    path = ratings.write(Path(out))
    data = ratings.data
    summary = {
        "out": out,
        "ratings": len(data),
        "annotators": data["annotator"].nunique(),
        "documents": data["document"].nunique(),
        "systems": data["system"].nunique(),
        "criteria": ratings.criteria,
    }
    emit(
        summary,
        as_json,
        lambda: (
            f"wrote {len(data)} ratings ({summary['documents']} documents × {summary['systems']} systems, "
            f"{summary['annotators']} annotators, criteria {', '.join(map(str, ratings.criteria))}) "
            f"to {path} with their 1-5 scales in {path.with_name(path.stem + '.scale.json')}"
        ),
    )
