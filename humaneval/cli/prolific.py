"""``humaneval prolific``: Prolific's API for a collection-server study (extra ``humaneval[prolific]``).

``submissions`` lists the study's submissions, ``review`` approves / rejects them by the QC
rules from the study database (a dry run unless ``--execute``) and ``export`` downloads
Prolific's demographic export. The STUDY_ID is the one recorded in the study folder
(``serve init --study-id`` / ``serve set-study-id``); the API token comes from
``PROLIFIC_TOKEN`` or ``--token-file``. See docs/platforms.md.
"""

from __future__ import annotations

import click

from humaneval.cli._common import InputFile, emit, json_option, read_text

token_option = click.option(
    "--token-file",
    "token",
    type=InputFile(),
    callback=read_text,
    default=None,
    help="File holding the Prolific API token (default: the PROLIFIC_TOKEN environment variable).",
)
study_id_option = click.option(
    "--study-id", default=None, help="Prolific STUDY_ID (default: the one recorded in STUDY_DIR)."
)


def _setup(study_dir: str, study_id: str | None, token: str | None):
    from humaneval.errors import DesignError
    from humaneval.platforms import prolific
    from humaneval.serve import open_study

    study = open_study(study_dir)
    study_id = study_id or study.prolific_study_id
    if not study_id:
        raise DesignError(
            f"{study_dir}: no Prolific STUDY_ID recorded; run 'humaneval serve set-study-id {study_dir} "
            "STUDY_ID' or pass --study-id"
        )
    return prolific.prolific_client(token), study_id


@click.group()
def command() -> None:
    """List, approve/reject and export the submissions of a Prolific study run with 'humaneval serve'."""


@command.command("submissions")
@click.argument("study_dir", type=click.Path(file_okay=False))
@study_id_option
@token_option
@json_option
def submissions(study_dir: str, study_id: str | None, token: str | None, as_json: bool) -> None:
    """List the Prolific submissions of STUDY_DIR's study, counted by status."""
    from humaneval.platforms.prolific import list_submissions

    client, study_id = _setup(study_dir, study_id, token)
    frame = list_submissions(client, study_id)
    counts = frame["status"].value_counts().to_dict()

    def render() -> str:
        lines = [f"{len(frame)} submissions of study {study_id}"]
        lines += [f"  {status}: {n}" for status, n in sorted(counts.items())]
        return "\n".join(lines)

    emit({"study_id": study_id, "counts": counts, "submissions": len(frame)}, as_json, render)


@command.command("review")
@click.argument("study_dir", type=click.Path(file_okay=False))
@click.option("--execute", is_flag=True, help="Approve and reject for real (default: only show the plan).")
@click.option(
    "--plan", "plan_out", type=click.Path(dir_okay=False), default=None, help="Write the plan (CSV)."
)
@study_id_option
@token_option
@json_option
def review(
    study_dir: str,
    execute: bool,
    plan_out: str | None,
    study_id: str | None,
    token: str | None,
    as_json: bool,
) -> None:
    """Approve or reject the submissions awaiting review by the QC rules (reject: ≥ 2 failed IMCs)."""
    from humaneval.cli.mturk import _emit_plan
    from humaneval.collect.spreadsheet import write_safe_table
    from humaneval.platforms.prolific import apply_review, list_submissions, review_plan

    client, study_id = _setup(study_dir, study_id, token)
    plan = review_plan(list_submissions(client, study_id), study_dir)
    if execute:
        plan = apply_review(plan, client)
    if plan_out:
        write_safe_table(plan, plan_out)
    _emit_plan(plan, execute, as_json, key="submission_id")


@command.command("export")
@click.argument("study_dir", type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Where to save Prolific's CSV.")
@study_id_option
@token_option
def export(study_dir: str, out: str, study_id: str | None, token: str | None) -> None:
    """Save Prolific's demographic export of STUDY_DIR's study to OUT (personal data; file mode 0600)."""
    from humaneval.platforms.prolific import export_demographics

    client, study_id = _setup(study_dir, study_id, token)
    click.echo(f"saved Prolific's export of study {study_id} to {export_demographics(client, study_id, out)}")
