"""``humaneval mturk``: MTurk's requester API over a forms package (extra ``humaneval[mturk]``).

``create`` posts the HITs of a ``humaneval forms`` folder (sandbox unless ``--production``),
``fetch`` downloads their assignments and parses them like ``collect mturk``, ``review``
approves / rejects by the QC rules (a dry run unless ``--execute``), ``bonus`` pays bonuses,
``exclusion`` creates a study's exclusion qualification and ``grant`` grants it. See
docs/platforms.md.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from humaneval.cli._common import InputFile, emit, json_option, plan_text
from humaneval.core.deprecation import renamed_option

production_option = click.option(
    "--production",
    is_flag=True,
    help="Use the production site, where HITs and bonuses cost real money (default: the sandbox).",
)


def profile_option(func):
    """``--aws-profile`` (formerly ``--profile``, which in ``judge`` and ``report`` names who the humans
    are)."""
    func = click.option(
        "--aws-profile", "profile", default=None, help="AWS credentials profile (default: boto3's chain)."
    )(func)
    return renamed_option("--profile", "--aws-profile", dest="profile")(func)


def _client(production: bool, profile: str | None):
    from humaneval.core.platforms import MTURK

    return MTURK.load("client")(production, profile=profile)


@click.group()
def command() -> None:
    """Create HITs, fetch and review assignments, pay bonuses and grant qualifications on MTurk."""


@command.command("create")
@click.argument("package", type=click.Path(file_okay=False))
@click.option("--reward", default=None, help="Reward per assignment in USD (default: hit_params.json).")
@click.option(
    "--exclusion-qualification", default=None, help="Qualification type id that excludes earlier workers."
)
@production_option
@profile_option
@json_option
def create(
    package: str,
    reward: str | None,
    exclusion_qualification: str | None,
    production: bool,
    profile: str | None,
    as_json: bool,
) -> None:
    """Create the HITs of PACKAGE (a 'humaneval forms' folder); already created ones are skipped."""
    from humaneval.platforms.mturk import create_hits, environment

    client = _client(production, profile)
    hits = create_hits(
        package, client, production=production, reward=reward, exclusion_qualification=exclusion_qualification
    )
    where = environment(client)

    def render() -> str:
        made = int(hits["created"].sum())
        lines = [f"{made} HITs created on the MTurk {where} site, {len(hits) - made} already existed"]
        lines += [
            f"  {r.hit}: {r.hit_id} ({r.max_assignments} assignment(s) at {r.reward} USD)"
            for r in hits.itertuples(index=False)
        ]
        lines.append(f"  recorded in {Path(package) / 'mturk_hits.json'}")
        return "\n".join(lines)

    emit({"environment": where, "hits": hits.to_dict(orient="records")}, as_json, render)


@command.command("fetch")
@click.argument("package", type=click.Path(file_okay=False))
@click.option("--design", type=InputFile(), required=True, help="design.csv or design.json of the study.")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Ratings table (CSV/TSV/JSONL).")
@click.option(
    "--results",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also keep the assignments as a batch results CSV (raw WorkerIds: personal data).",
)
@production_option
@profile_option
@json_option
def fetch(
    package: str,
    design: str,
    out: str,
    results: str | None,
    production: bool,
    profile: str | None,
    as_json: bool,
) -> None:
    """Fetch every assignment of PACKAGE's HITs and parse them like 'collect mturk'."""
    from humaneval.collect.mturk import parse_mturk_results
    from humaneval.collect.spreadsheet import write_safe_table
    from humaneval.errors import RatingsError
    from humaneval.forms.write import load_design
    from humaneval.platforms.mturk import fetch_results

    rows = fetch_results(package, _client(production, profile), production=production)
    if results:
        write_safe_table(rows, results)
        os.chmod(results, 0o600)  # raw WorkerIds
    if rows.empty:
        raise RatingsError(f"{package}: no assignment has been submitted yet; nothing written")
    parsed = parse_mturk_results(rows, load_design(design))
    if parsed.ratings is None:
        from humaneval.cli.collect import no_usable_assignment

        raise RatingsError(no_usable_assignment(package, parsed))
    parsed.ratings.write(Path(out))

    def render() -> str:
        from humaneval.cli.collect import _render

        return _render(parsed, Path(out), [f"  results: {results}"] if results else [])

    emit({"out": out, **parsed.to_dict()}, as_json, render)


@command.command("review")
@click.argument("package", type=click.Path(file_okay=False))
@click.option("--design", type=InputFile(), required=True, help="design.csv or design.json of the study.")
@click.option("--execute", is_flag=True, help="Approve and reject for real (default: only show the plan).")
@click.option(
    "--plan", "plan_out", type=click.Path(dir_okay=False), default=None, help="Write the plan (CSV)."
)
@production_option
@profile_option
@json_option
def review(
    package: str,
    design: str,
    execute: bool,
    plan_out: str | None,
    production: bool,
    profile: str | None,
    as_json: bool,
) -> None:
    """Approve or reject PACKAGE's submitted assignments by the QC rules (reject: ≥ 2 failed IMCs)."""
    from humaneval.collect.spreadsheet import write_safe_table
    from humaneval.forms.write import load_design
    from humaneval.platforms.mturk import apply_review, fetch_results, review_plan

    client = _client(production, profile)
    rows = fetch_results(package, client, production=production, statuses=("Submitted",))
    plan = review_plan(rows, load_design(design))
    if execute:
        plan = apply_review(plan, client, production=production)
    if plan_out:
        write_safe_table(plan, plan_out)
    _emit_plan(plan, execute, as_json)


def _emit_plan(plan, execute: bool, as_json: bool, key: str = "assignment_id") -> None:
    counts = plan["action"].value_counts().to_dict()

    def render() -> str:
        verb = "done" if execute else "planned (dry run; add --execute to act)"
        head = (
            f"{counts.get('approve', 0)} approve, {counts.get('reject', 0)} reject, "
            f"{counts.get('review', 0)} to review by hand: {verb}"
        )
        return plan_text(head, plan, ["action", key, "annotator", "reason"])

    emit({"executed": execute, "counts": counts, "plan": plan.to_dict(orient="records")}, as_json, render)


@command.command("bonus")
@click.argument("bonuses", type=InputFile())
@click.option("--execute", is_flag=True, help="Pay for real (default: only check the table).")
@click.option("--allow-repeat", is_flag=True, help="Pay an assignment listed more than once once per row.")
@click.option(
    "--ledger",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where paid bonuses are recorded (default: mturk_bonuses.json next to BONUSES).",
)
@production_option
@profile_option
@json_option
def bonus(
    bonuses: str,
    execute: bool,
    allow_repeat: bool,
    ledger: str | None,
    production: bool,
    profile: str | None,
    as_json: bool,
) -> None:
    """Pay the bonuses of BONUSES (CSV: assignment_id, amount in USD, reason[, worker_id]) once.

    MTurk's own record (ListBonusPayments) decides what was paid, whenever and with whatever
    reason, and each bonus is recorded in the ledger. Each row is reported paid, already paid or failed.
    """
    from humaneval.errors import DesignError, PlatformError
    from humaneval.io.tables import read_table
    from humaneval.platforms.mturk import check_money, check_repeats, pay_bonuses

    table = read_table(bonuses, what="bonus table")
    missing = [c for c in ("assignment_id", "amount", "reason") if c not in table]
    if missing:
        raise DesignError(
            f"{bonuses}: the bonus table needs columns assignment_id, amount (USD), reason; missing "
            f"{', '.join(missing)}"
        )
    table = table.astype({"amount": str})
    if execute:
        paid = pay_bonuses(
            table,
            _client(production, profile),
            production=production,
            allow_repeat=allow_repeat,
            ledger=ledger or Path(bonuses).with_name("mturk_bonuses.json"),
        )
    else:
        check_repeats(table, allow_repeat)
        paid = table.assign(
            amount=[check_money(a, "bonus") for a in table.get("amount", [])], outcome="checked", paid=False
        )
    counts = (
        paid["outcome"].where(~paid["outcome"].str.startswith("failed"), "failed").value_counts().to_dict()
    )
    total = sum(float(a) for a, ok in zip(paid["amount"], paid["paid"], strict=True) if ok or not execute)
    rows = paid[["assignment_id", "amount", "outcome"]].to_dict(orient="records")

    def render() -> str:
        if not execute:
            return f"{len(paid)} bonuses, {total:.2f} USD in total: checked (dry run; add --execute to pay)"
        lines = [
            f"{len(paid)} bonuses: {counts.get('paid', 0)} paid, {counts.get('already paid', 0)} already "
            f"paid, {counts.get('failed', 0)} failed ({total:.2f} USD paid now or before)"
        ]
        lines += [f"  {r['assignment_id']} {r['amount']} USD: {r['outcome']}" for r in rows]
        return "\n".join(lines)

    emit(
        {"executed": execute, "total": round(total, 2), "bonuses": len(paid), "counts": counts, "rows": rows},
        as_json,
        render,
    )
    if counts.get("failed"):
        raise PlatformError(
            f"{counts['failed']} bonus(es) failed; fix the cause and run again (paid ones are skipped)"
        )


@command.command("exclusion")
@click.argument("name")
@production_option
@profile_option
def exclusion(name: str, production: bool, profile: str | None) -> None:
    """Create an exclusion qualification NAME; pass its id to 'mturk create --exclusion-qualification'."""
    from humaneval.platforms.mturk import create_exclusion_qualification

    click.echo(create_exclusion_qualification(_client(production, profile), name, production=production))


@command.command("grant")
@click.argument("qualification")
@click.argument("workers", type=InputFile())
@production_option
@profile_option
def grant(qualification: str, workers: str, production: bool, profile: str | None) -> None:
    """Grant QUALIFICATION to every WorkerId in WORKERS (one per line, e.g. 'collect mturk --grant-out')."""
    from humaneval.platforms.mturk import grant_qualification

    ids = Path(workers).read_text(encoding="utf-8").split()
    count = grant_qualification(_client(production, profile), qualification, ids, production=production)
    click.echo(f"granted {qualification} to {count} workers")
