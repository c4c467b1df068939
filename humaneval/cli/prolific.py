"""``humaneval prolific``: a collection-server study's whole life on Prolific (extra ``humaneval[prolific]``).

``create`` makes the draft study from the study folder (or a design: the folder is created
first) and records its id; ``publish``, ``pause``, ``resume`` and ``stop`` move it; ``status``
lists the submissions and frees on the collection server the slots of those returned, timed
out or rejected; ``review`` approves / rejects by the QC rules; ``bonus`` pays bonuses once;
``submissions`` counts and ``export`` downloads Prolific's demographic export. Whatever spends
money or changes the study is a dry run without ``--execute``. The API token comes from
``PROLIFIC_TOKEN`` or ``--token-file``, the base URL from ``PROLIFIC_API_URL``. See
docs/prolific.md and docs/platforms.md.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from humaneval.cli._common import InputFile, emit, json_option, plan_text, read_text

if TYPE_CHECKING:
    from humaneval.serve.study import Study

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
execute_option = click.option("--execute", is_flag=True, help="Act for real (default: only show the plan).")


def _client(token: str | None):
    from humaneval.core.platforms import PROLIFIC

    return PROLIFIC.load("client")(token)


def _setup(study_dir: str, study_id: str | None, token: str | None):
    from humaneval.platforms.prolific_study import open_prolific_study

    _, study_id = open_prolific_study(study_dir, study_id)
    return _client(token), study_id


@click.group()
def command() -> None:
    """Create, publish, watch, review, pay and export a Prolific study run with 'humaneval serve'."""


def _texts(design: str, texts: str | None, documents: str | None, placeholder: bool):
    """The texts ``serve init`` would take for DESIGN (None: the design's own)."""
    from humaneval.forms.screens import design_frame
    from humaneval.forms.texts import load_texts, placeholder_texts
    from humaneval.forms.write import load_design

    if placeholder and texts:
        raise click.UsageError("give --texts or --placeholder-texts, not both")
    if placeholder:
        return placeholder_texts(design_frame(load_design(design)))
    return load_texts(texts, documents) if texts else None


@contextmanager
def _study_folder(
    source: str, study_dir: str | None, execute: bool, texts: tuple[str | None, str | None, bool]
) -> Iterator[tuple[Study, Path]]:
    """``(study, folder)`` of SOURCE: itself, or one made from a design and ``texts`` (``--texts``,
    ``--documents``, ``--placeholder-texts``; made for real only with --execute; a dry run plans
    from a scratch copy)."""
    from humaneval.errors import DesignError
    from humaneval.io.studydb import DB_NAME
    from humaneval.serve.study import create_study, open_study

    path = Path(source)
    if (path / DB_NAME).exists():
        yield open_study(path), path
        return
    if path.is_dir() or not path.exists():
        raise DesignError(
            f"{source}: neither a study folder ('humaneval serve init') nor a design.json; check the path"
        )
    target = Path(study_dir) if study_dir else path.with_name(path.name.split(".")[0] + "_study")
    if (target / DB_NAME).exists():
        yield open_study(target), target
    elif execute:
        yield create_study(source, target, texts=_texts(source, *texts)), target
    else:
        with tempfile.TemporaryDirectory() as scratch:
            yield create_study(source, Path(scratch) / "study", texts=_texts(source, *texts)), target


@command.command("create")
@click.argument("source", metavar="DESIGN_OR_STUDY_DIR", type=click.Path())
@click.option("--serve-url", required=True, help="The https:// address where 'humaneval serve' runs.")
@click.option(
    "--study-dir", default=None, help="Study folder to create from a design (default: <design>_study)."
)
@click.option(
    "--texts",
    type=InputFile(),
    default=None,
    help="With a design: texts.json, or a table document, system, text (default: the design's own).",
)
@click.option(
    "--documents", type=InputFile(), default=None, help="With a design and --texts: source documents."
)
@click.option(
    "--placeholder-texts", is_flag=True, help="With a design: labelled placeholder texts (pilots, demos)."
)
@click.option("--name", default=None, help="Study name participants see (default: the study's title).")
@click.option("--description", default=None, help="Study description participants see.")
@click.option("--reward-pence", type=click.IntRange(min=1), default=None, help="Reward in pence (cents).")
@click.option("--estimated-minutes", type=click.IntRange(min=1), default=None, help="Default: the design's.")
@click.option("--device", "devices", multiple=True, help="desktop, tablet or mobile (repeat; default: all).")
@click.option("--exclude-study", "exclude_studies", multiple=True, help="Exclude participants of this study.")
@click.option(
    "--group", default=None, help="Participant group of the project: completers join, members excluded."
)
@click.option("--workspace-id", default=None, help="Workspace of --group (default: the account's only one).")
@click.option("--project", default=None, help="Prolific project id (default: the workspace's first).")
@click.option(
    "--filter", "filters", multiple=True, help='A Prolific filter as JSON, e.g. {"filter_id": ...}.'
)
@execute_option
@token_option
@json_option
def create(source: str, study_dir: str | None, execute: bool, token: str | None, as_json: bool, **o) -> None:
    """Make the draft study on Prolific from DESIGN_OR_STUDY_DIR and record its id there."""
    from humaneval.errors import DesignError
    from humaneval.platforms.prolific_study import create_draft, draft_body, find_or_create_group, read_record

    try:
        filters = [json.loads(f) for f in o["filters"]]
    except json.JSONDecodeError as exc:
        raise DesignError(
            f'--filter: not JSON ({exc.msg}); write e.g. \'{{"filter_id": "age", ...}}\''
        ) from None
    if not all(isinstance(f, dict) and "filter_id" in f for f in filters):
        raise DesignError("--filter: each filter is a JSON object with a filter_id")
    texts = (o.pop("texts"), o.pop("documents"), o.pop("placeholder_texts"))
    with _study_folder(source, study_dir, execute, texts) as (study, target):
        record = read_record(study.study_dir)
        if study.prolific_study_id and not record.get("study_id"):
            record = {"study_id": study.prolific_study_id}  # set by 'serve set-study-id'
        client = _client(token) if (execute or o["group"]) and not record.get("study_id") else None
        group_id, created_group = record.get("group"), False
        if o["group"] and client is not None:
            group_id, created_group = find_or_create_group(
                client, o["group"], o["workspace_id"], execute=execute
            )
        body = draft_body(
            study,
            o["serve_url"],
            name=o["name"],
            description=o["description"],
            reward=o["reward_pence"],
            estimated_minutes=o["estimated_minutes"],
            devices=o["devices"],
            exclude_studies=o["exclude_studies"],
            group_id=group_id or (f"<new group {o['group']}>" if o["group"] else None),
            filters=filters,
            project=o["project"],
        )
        if execute and client is not None:
            record = create_draft(study, client, body, group=group_id)
    payload = {
        "executed": execute,
        "study_dir": str(target),
        "study_id": record.get("study_id"),
        "created": bool(record.get("created")),
        "group_id": group_id,
        "group_created": bool(created_group),
        "study": body,
    }

    def render() -> str:
        pounds = f"{body['reward'] / 100:.2f}"
        lines = [
            f"study {body['name']!r}: {body['total_available_places']} places, reward {body['reward']} pence "
            f"({pounds} per person), {body['estimated_completion_time']} min estimated, "
            f"{body['maximum_allowed_time']} min at most",
            f"  URL: {body['external_study_url']}",
            "  completion codes: "
            + ", ".join(f"{c['code']} ({c['code_type']})" for c in body["completion_codes"]),
        ]
        lines += [f"  filter: {json.dumps(f)}" for f in body["filters"]]
        if record.get("study_id"):
            state = "created" if record.get("created") else "already created"
            lines.append(f"draft {record['study_id']} {state}; recorded in {target}")
            lines.append(f"next: humaneval prolific publish {target} --execute (after a pilot)")
        else:
            lines.append("planned (dry run; add --execute to create the draft)")
        return "\n".join(lines)

    emit(payload, as_json, render)


def _transition_command(name: str, doc: str) -> None:
    @command.command(name, help=doc)
    @click.argument("study_dir", type=click.Path(file_okay=False))
    @execute_option
    @study_id_option
    @token_option
    @json_option
    def run(study_dir: str, execute: bool, study_id: str | None, token: str | None, as_json: bool) -> None:
        from humaneval.platforms.prolific_study import transition

        client, study_id = _setup(study_dir, study_id, token)
        result = transition(client, study_id, name, execute=execute)

        def render() -> str:
            if result["done"]:
                return f"study {study_id}: {result['action']} sent; status now {result['status']}"
            if execute:
                return f"study {study_id} is {result['status']}: nothing to {name}"
            return (
                f"study {study_id} is {result['status']}: {result['action']} planned (dry run; add --execute)"
            )

        emit({"executed": execute, **result}, as_json, render)


_transition_command(
    "publish", "Publish STUDY_DIR's draft study (Prolific checks the balance and locks the money)."
)
_transition_command("pause", "Pause STUDY_DIR's active study (no new participants).")
_transition_command("resume", "Resume STUDY_DIR's paused study.")
_transition_command("stop", "Stop STUDY_DIR's study for good (it becomes COMPLETED).")


@command.command("status")
@click.argument("study_dir", type=click.Path(file_okay=False))
@click.option(
    "--server-url",
    default=None,
    help="Free slots through this running server's admin API (default: in the study database directly).",
)
@click.option("--no-release", is_flag=True, help="Only look: do not free any slot.")
@study_id_option
@token_option
@json_option
def status(
    study_dir: str,
    server_url: str | None,
    no_release: bool,
    study_id: str | None,
    token: str | None,
    as_json: bool,
) -> None:
    """Count STUDY_DIR's submissions; free the slots of those returned, timed out or rejected."""
    from humaneval.platforms.prolific import list_submissions
    from humaneval.platforms.prolific_study import database_releaser, feed_back, get_study, http_releaser
    from humaneval.serve.study import open_study

    client, study_id = _setup(study_dir, study_id, token)
    state = get_study(client, study_id)["status"]
    frame = list_submissions(client, study_id)
    counts = frame["status"].value_counts().to_dict()
    fed = None
    if not no_release:
        study = open_study(study_dir)
        if server_url:
            import httpx

            with httpx.Client(base_url=server_url, timeout=30.0) as server:
                fed = feed_back(frame, study, http_releaser(server, study))
        else:
            fed = feed_back(frame, study, database_releaser(study))
    released = [] if fed is None else fed.to_dict(orient="records")

    def render() -> str:
        lines = [f"study {study_id} is {state}: {len(frame)} submissions"]
        lines += [f"  {s}: {n}" for s, n in sorted(counts.items())]
        lines += [
            f"  {r['status']} {r['submission_id']} (participant {r['participant_id']}"
            + (f", slot {r['slot']}" if r["slot"] else "")
            + f"): {r['outcome']}"
            for r in released
        ]
        return "\n".join(lines)

    emit(
        {
            "study_id": study_id,
            "status": state,
            "counts": counts,
            "submissions": len(frame),
            "released": released,
        },
        as_json,
        render,
    )


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
@execute_option
@click.option(
    "--plan", "plan_out", type=click.Path(dir_okay=False), default=None, help="Write the plan (CSV)."
)
@click.option(
    "--reopen",
    is_flag=True,
    help="Reopen the places of rejected participants: free their slots, one more place each on Prolific.",
)
@study_id_option
@token_option
@json_option
def review(
    study_dir: str,
    execute: bool,
    plan_out: str | None,
    reopen: bool,
    study_id: str | None,
    token: str | None,
    as_json: bool,
) -> None:
    """Approve (in bulk) or reject the submissions awaiting review by the QC rules (reject: ≥ 2 failed
    IMCs)."""
    from humaneval.collect.spreadsheet import write_safe_table
    from humaneval.platforms.prolific import apply_review, list_submissions, review_plan
    from humaneval.platforms.prolific_study import record_rejections, reopen_places
    from humaneval.serve.study import open_study

    client, study_id = _setup(study_dir, study_id, token)
    plan = review_plan(list_submissions(client, study_id), study_dir)
    if execute:
        plan = apply_review(plan, client)
        record_rejections(study_dir, plan)
    if plan_out:
        write_safe_table(plan, plan_out)
    counts = plan["action"].value_counts().to_dict()
    reopened = reopen_places(open_study(study_dir), client, study_id, execute=execute and reopen)

    def render() -> str:
        verb = "done" if execute else "planned (dry run; add --execute to act)"
        head = (
            f"{counts.get('approve', 0)} approve, {counts.get('reject', 0)} reject, "
            f"{counts.get('review', 0)} to review by hand: {verb}"
        )
        lines: list[str] = []
        people = ", ".join(reopened["participants"])
        if reopened["done"]:
            lines.append(
                f"reopened {len(reopened['participants'])} place(s) of rejected participants ({people}): "
                f"slots {', '.join(str(s) for s in reopened['slots'])} free again; "
                f"Prolific now has {reopened['places']} places"
            )
        elif reopened["participants"]:
            lines.append(
                f"{len(reopened['participants'])} rejected participant(s) ({people}) still hold their "
                f"places; reopen them with 'humaneval prolific review {study_dir} --execute --reopen'"
            )
        if execute and counts.get("reject"):
            lines.append(
                "rejected participants' rows are marked 'rejected' and left out of the ratings "
                "'humaneval collect prolific' writes"
            )
        columns = dict.fromkeys(["action", "submission_id", "participant_id", "slot", "annotator", "reason"])
        return plan_text(head, plan, {**columns, "slot": _slot}, lines)

    emit(
        {
            "executed": execute,
            "counts": counts,
            "plan": plan.to_dict(orient="records"),
            "reopened": reopened,
        },
        as_json,
        render,
    )


@command.command("bonus")
@click.argument("bonuses", type=InputFile())
@click.argument("study_dir", type=click.Path(file_okay=False))
@execute_option
@click.option("--allow-repeat", is_flag=True, help="Pay a participant listed twice (or paid before) again.")
@click.option(
    "--confirm-unpaid",
    multiple=True,
    metavar="BULK_ID",
    help="After checking Prolific's web app: this bulk bonus was not paid; pay it.",
)
@study_id_option
@token_option
@json_option
def bonus(
    bonuses: str,
    study_dir: str,
    execute: bool,
    allow_repeat: bool,
    confirm_unpaid: tuple[str, ...],
    study_id: str | None,
    token: str | None,
    as_json: bool,
) -> None:
    """Pay the bonuses of BONUSES (participant_id, prolific_pid or submission_id; amount or bonus in
    pounds) once. The dry run checks every id against the study's submissions."""
    from humaneval.io.tables import read_table
    from humaneval.platforms.prolific_bonus import bonus_check, bonus_rows, pay_bonuses
    from humaneval.platforms.prolific_study import open_prolific_study

    table = read_table(bonuses, what="bonus table")
    study, study_id = open_prolific_study(study_dir, study_id)
    client = _client(token)
    check = bonus_check(client, study_id, bonus_rows(table, allow_repeat=allow_repeat))
    if check.above_reward and check.reward_pence is not None:
        click.echo(
            f"warning: {len(check.above_reward)} bonus(es) exceed the study's reward of "
            f"{check.reward_pence / 100:.2f} (e.g. {check.above_reward[0]}); pence typed as pounds?",
            err=True,
        )
    done = pay_bonuses(
        table,
        client,
        study.study_dir,
        study_id,
        execute=execute,
        allow_repeat=allow_repeat,
        confirm_unpaid=confirm_unpaid,
    )
    counts = done["state"].value_counts().to_dict()

    def render() -> str:
        lines = [
            f"{len(done)} bonuses, {check.total_pence / 100:.2f} in total (pounds); with Prolific's "
            f"service fee about {check.charge_pence / 100:.2f} (plus VAT where applicable): "
            + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
        ]
        if not execute:
            lines.append("checked (dry run; add --execute to pay)")
        return "\n".join(lines)

    emit(
        {
            "executed": execute,
            "counts": counts,
            "total_pence": check.total_pence,
            "charge_pence": check.charge_pence,
            "reward_pence": check.reward_pence,
            "above_reward": list(check.above_reward),
            "bonuses": done.to_dict(orient="records"),
        },
        as_json,
        render,
    )


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


def _slot(value: object) -> str:
    """A submission's slot number, ``none`` when it holds none."""
    if value is None or value != value:
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)
