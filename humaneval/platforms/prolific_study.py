"""A Prolific study's life through its API: the draft from the design, publishing, pausing,
stopping, and places that come back (Prolific's API reference, https://docs.prolific.com/api-reference).

:func:`draft_body` builds the ``POST studies/`` body from a collection-server study folder
(``humaneval serve init``): the study URL of ``humaneval serve`` with Prolific's
``{{%PROLIFIC_PID%}}``, ``{{%STUDY_ID%}}`` and ``{{%SESSION_ID%}}`` placeholders, the completion
code (manual review) and the "study full" code (asks for a return, no approval), places = the
design's annotator slots, estimated minutes and reward from the design's cost (in pence /
cents, as the API takes it, never below Prolific's minimum hourly pay), the maximum time =
the server's slot timeout, and the filters that keep annotators apart
(``previous_studies_blocklist``, ``participant_group_blocklist``). :func:`create_draft` posts it
and records the study id in the folder (``prolific.json`` and the server's STUDY_ID), so a second
run creates nothing. :func:`transition` publishes, pauses, resumes or stops.
:func:`feed_back` frees on the collection server the slots of submissions Prolific reports
returned, timed out or rejected, as the server's own release does.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.collect.prolific import REVIEW_RECORD
from humaneval.core.platforms import PROLIFIC
from humaneval.errors import DesignError, PayBelowMinimumError, PlatformError
from humaneval.platforms.prolific import call, pages, path_id, read_state
from humaneval.serve.study import Study, default_title, open_study, set_study_id

RECORD = REVIEW_RECORD
#: Study transitions by command: (action, statuses it applies to).
TRANSITIONS = {
    "publish": ("PUBLISH", ("UNPUBLISHED",)),
    "pause": ("PAUSE", ("ACTIVE",)),
    "resume": ("START", ("PAUSED",)),
    "stop": ("STOP", ("ACTIVE", "PAUSED")),
}
#: Submission statuses whose place Prolific gives to someone else: their slot is freed.
FREED = ("RETURNED", "TIMED-OUT", "REJECTED")
DEVICES = ("desktop", "tablet", "mobile")
FULL_REASON = "Every place of this study was taken when you arrived; please return it. Thank you."


def read_record(study_dir: str | Path) -> dict[str, Any]:
    """``prolific.json`` of a study folder (``{}`` before the draft exists)."""
    path = Path(study_dir) / RECORD
    return read_state(path, "study record") if path.exists() else {}


def write_record(study_dir: str | Path, record: dict[str, Any]) -> None:
    """Replace ``prolific.json`` atomically (file mode 0600)."""
    path = Path(study_dir) / RECORD
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(record, indent=2, sort_keys=True) + "\n")
    temporary.replace(path)


def study_design(study: Study) -> tuple[Any, dict[str, Any]]:
    """The :class:`~humaneval.design.Design` and the configuration stored in a study's database."""
    from humaneval.design.plan import Design
    from humaneval.io.studydb import connect

    connection = connect(study.db_path)
    try:
        row = connection.execute("SELECT design_json, config_json FROM study").fetchone()
    finally:
        connection.close()
    return Design.from_dict(json.loads(row["design_json"])), json.loads(row["config_json"])


def reward_minor(
    cost: dict[str, Any], minutes: int, *, reward: int | None = None, currency: str | None = None
) -> tuple[int, str]:
    """``(reward in pence / cents, currency)``: ``reward``, or the design's hourly wage for the
    ``minutes`` Prolific is told (so Prolific shows the design's rate) and at least the design's
    reward per annotator,
    refused below Prolific's minimum hourly pay for ``minutes``.

    Examples
    --------
    >>> reward_minor({"reward_per_annotator": 0.79, "hourly_wage": 9.0, "currency": "GBP"}, 6)
    (90, 'GBP')
    >>> try:
    ...     reward_minor({"reward_per_annotator": 0.5, "hourly_wage": 3.0, "currency": "GBP"}, 9)
    ... except PayBelowMinimumError as error:
    ...     print(str(error)[:70])
    reward 50 pence for 9 minutes is 3.33 GBP an hour, below Prolific's mi
    """
    currency = currency or cost.get("currency") or PROLIFIC.currency
    if reward is None:
        if cost.get("reward_per_annotator") is None:
            raise DesignError(
                "the design has no cost (its seconds per screen are unknown); pass --reward-pence"
            )
        at_wage = math.ceil(round(float(cost.get("hourly_wage") or 0) * minutes / 60 * 100, 6))
        reward = max(round(100 * float(cost["reward_per_annotator"])), at_wage)
    recommended, minimum = PROLIFIC.hourly_pay(currency)
    floor = math.ceil(100 * minimum * minutes / 60)
    if reward < floor:
        unit = "pence" if currency == PROLIFIC.currency else "cents"
        hourly = reward * 60 / minutes / 100
        advised = math.ceil(100 * recommended * minutes / 60)
        raise PayBelowMinimumError(
            f"reward {reward} {unit} for {minutes} minutes is {hourly:.2f} {currency} an hour, below "
            f"Prolific's minimum of {minimum:.2f} {currency}; pass --reward-pence {floor} or more "
            f"(the recommended {recommended:.2f} {currency} an hour is {advised})"
        )
    return reward, currency


#: Ceilings on what one participant is paid (pence / cents) and told the study takes (minutes).
MAX_REWARD = 100_000
MAX_MINUTES = 1440


def draft_body(
    study: Study,
    serve_url: str,
    *,
    name: str | None = None,
    description: str | None = None,
    reward: int | None = None,
    estimated_minutes: int | None = None,
    devices: Sequence[str] = (),
    exclude_studies: Iterable[str] = (),
    group_id: str | None = None,
    filters: Sequence[dict[str, Any]] = (),
    project: str | None = None,
) -> dict[str, Any]:
    """The ``POST studies/`` body of the study in ``study`` (see the module docstring).

    ``reward`` is in pence (cents); ``group_id`` is a participant group that completers join and
    that is excluded, so no one takes part in two studies sharing it.
    """
    if not serve_url.startswith("https://"):
        raise DesignError(
            f"--serve-url {serve_url!r} must be the https:// address of 'humaneval serve' (Prolific "
            "participants reach it over the internet; see docs/serve.md for HTTPS)"
        )
    bad = sorted(set(devices) - set(DEVICES))
    if bad:
        raise DesignError(f"device {bad[0]!r} is unknown; choose among {', '.join(DEVICES)}")
    design, config = study_design(study)
    cost = design.summary().to_dict().get("cost") or {}
    if not cost and estimated_minutes is None:
        raise DesignError("the design has no time estimate; pass --estimated-minutes")
    minutes = estimated_minutes or max(1, math.ceil(float(cost["minutes_per_annotator"])))
    if minutes > MAX_MINUTES:
        raise DesignError(
            f"--estimated-minutes {minutes} is more than {MAX_MINUTES} (a day); give the minutes one "
            "participant needs"
        )
    if reward is not None and reward > MAX_REWARD:
        raise DesignError(
            f"--reward-pence {reward} is more than {MAX_REWARD} ({MAX_REWARD // 100} pounds a person); "
            "the reward is in pence (cents), e.g. 360 for 3.60"
        )
    pence, _ = reward_minor(cost, minutes, reward=reward)
    maximum = max(minutes, math.ceil(study.slot_timeout_s / 60))
    codes: list[dict[str, Any]] = [
        {
            "code": study.completion_code,
            "code_type": "COMPLETED",
            "actions": [{"action": "MANUALLY_REVIEW"}]
            + ([{"action": "ADD_TO_PARTICIPANT_GROUP", "participant_group": group_id}] if group_id else []),
        }
    ]
    if config.get("full_code"):
        codes.append(
            {
                "code": config["full_code"],
                "code_type": "OTHER",
                "actions": [{"action": "REQUEST_RETURN", "return_reason": FULL_REASON}],
            }
        )
    excluded = sorted(set(exclude_studies))
    all_filters = [dict(f) for f in filters]
    if excluded:
        all_filters.append({"filter_id": "previous_studies_blocklist", "selected_values": excluded})
    if group_id:
        all_filters.append({"filter_id": "participant_group_blocklist", "selected_values": [group_id]})
    body: dict[str, Any] = {
        "name": name or _own_title(config.get("title")) or default_title(design),
        "internal_name": f"humaneval {design.design_id} {study.key}",
        "description": description
        or (
            f"Read short texts and answer questions about them ({len(design.blocks)} block(s); about "
            f"{minutes} minutes). Your answers are saved screen by screen."
        ),
        "external_study_url": study.url(serve_url),
        "prolific_id_option": "url_parameters",
        "completion_codes": codes,
        "total_available_places": study.slots,
        "estimated_completion_time": minutes,
        "maximum_allowed_time": maximum,
        "reward": pence,
        "device_compatibility": sorted(set(devices)),
        "filters": all_filters,
        "study_labels": ["annotation"],
    }
    if project:
        body["project"] = project
    return body


def find_or_create_group(
    client: Any, name: str, workspace_id: str | None, *, execute: bool
) -> tuple[str | None, bool]:
    """``(group id, created)`` of the participant group ``name`` in the workspace (the only one
    when ``workspace_id`` is ``None``); created only when ``execute``, else ``(None, False)``."""
    if workspace_id is None:
        workspaces = [w for page in pages(client, "workspaces/") for w in page]
        if len(workspaces) != 1:
            raise DesignError(
                f"the account has {len(workspaces)} workspaces; pass --workspace-id to say where the "
                "group goes"
            )
        workspace_id = str(workspaces[0].get("id"))
    for page in pages(client, "participant-groups/", params={"workspace_id": workspace_id}):
        for group in page:
            if group.get("name") == name and not group.get("is_deleted"):
                return str(group["id"]), False
    if not execute:
        return None, False
    made = call(
        client,
        "POST",
        "participant-groups/",
        json={
            "name": name,
            "workspace_id": workspace_id,
            "description": "humaneval: people who completed a study of this project",
        },
        safe=False,
    )
    return str(made["id"]), True


def _own_title(title: str | None) -> str | None:
    """A title the researcher chose: the old default every study shared is not one."""
    return None if title == "Annotation task" else title


def create_draft(
    study: Study, client: Any, body: dict[str, Any], *, group: str | None = None
) -> dict[str, Any]:
    """Post the draft unless the folder records one (or a STUDY_ID set with ``serve set-study-id``);
    record its id (``prolific.json`` and the server's STUDY_ID). Returns the record."""
    record = read_record(study.study_dir)
    if record.get("study_id") or study.prolific_study_id:
        return {"study_id": study.prolific_study_id, **record, "created": False}
    answer = call(client, "POST", "studies/", json=body, safe=False)
    study_id = answer.get("id")
    if not isinstance(study_id, str) or not study_id:
        raise PlatformError(
            "Prolific's answer to POST studies/ has no study id; check the studies in Prolific"
        )
    record = {
        "study_id": study_id,
        "group": group,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "reward": body["reward"],
        "places": body["total_available_places"],
        "fed_back": [],
    }
    write_record(study.study_dir, record)
    set_study_id(study.study_dir, study_id)
    return {**record, "created": True}


def get_study(client: Any, study_id: str) -> dict[str, Any]:
    """``GET studies/<id>/``; refuses an answer without a string ``status``."""
    return call(
        client,
        "GET",
        f"studies/{path_id(study_id, 'study id')}/",
        check=lambda s: "" if isinstance(s.get("status"), str) else "answered without a study status",
    )


def transition(client: Any, study_id: str, command: str, *, execute: bool) -> dict[str, Any]:
    """Publish, pause, resume or stop (``command``) when the study's status allows it.

    Returns ``{"study_id", "status", "action", "done"}``: ``done`` is False in a dry run and
    when the study is already past the step (nothing is sent then).
    """
    action, allowed = TRANSITIONS[command]
    status = get_study(client, study_id)["status"]
    if status not in allowed:
        return {"study_id": study_id, "status": status, "action": action, "done": False}
    if execute:
        url = f"studies/{path_id(study_id, 'study id')}/transition/"
        status = call(client, "POST", url, json={"action": action}).get("status", status)
    return {"study_id": study_id, "status": status, "action": action, "done": execute}


def http_releaser(server: Any, study: Study) -> Callable[[str], dict[str, Any]]:
    """Release through a running server's ``POST /admin/<key>/release`` (``server``: an
    ``httpx.Client`` on its base URL), with the folder's admin token."""
    token = study.token_path.read_text(encoding="utf-8").strip()

    def release(pid: str) -> dict[str, Any]:
        answer = server.post(
            f"/admin/{study.key}/release",
            json={"prolific_pid": pid},
            headers={"Authorization": f"Bearer {token}"},
        )
        try:
            body = answer.json()
        except ValueError:
            raise PlatformError(
                f"the collection server answered release with {answer.status_code} and no JSON"
            ) from None
        return body if answer.status_code == 200 else {"error": body.get("error", str(answer.status_code))}

    return release


def database_releaser(study: Study) -> Callable[[str], dict[str, Any]]:
    """Release in the study database with the server's own :meth:`StudyService.release`."""
    from humaneval.serve.service import ApiError, StudyService

    service = StudyService(study.study_dir, pilot=True)

    def release(pid: str) -> dict[str, Any]:
        try:
            return service.release({"prolific_pid": pid})
        except ApiError as exc:
            return {"error": exc.code}

    return release


def feed_back(
    submissions: pd.DataFrame, study: Study, release: Callable[[str], dict[str, Any]]
) -> pd.DataFrame:
    """Free the slots of submissions Prolific reports returned, timed out or rejected.

    Each submission is fed back once (recorded in ``prolific.json``). Returns one row per
    submission fed back: ``submission_id``, ``participant_id`` (Prolific's), ``slot`` (the
    server's, when it knew the participant), ``status``, ``outcome`` (``freed``, ``released``:
    the slot had already gone, ``not on the server``: the participant never started there,
    ``complete on the server``: the answers are kept; the slot is not reopened).
    """
    record = read_record(study.study_dir)
    done = set(record.get("fed_back", []))
    outcomes = {
        "unknown_participant": "not on the server",
        "already_complete": "complete on the server",
    }
    rows = []
    for row in submissions.itertuples(index=False):
        if row.status not in FREED or row.id in done:
            continue
        answer = release(row.participant_id)
        if "error" in answer:
            outcome = outcomes.get(answer["error"])
            if outcome is None:
                raise PlatformError(f"the collection server refused to release {row.id}: {answer['error']}")
        else:
            outcome = "freed" if answer.get("slot_freed") else "released"
        rows.append(
            {
                "submission_id": row.id,
                "participant_id": row.participant_id,
                "slot": answer.get("slot"),
                "status": row.status,
                "outcome": outcome,
            }
        )
        done.add(row.id)
        write_record(study.study_dir, {**record, "fed_back": sorted(done)})
    return pd.DataFrame(rows, columns=["submission_id", "participant_id", "slot", "status", "outcome"])


def open_prolific_study(study_dir: str | Path, study_id: str | None = None) -> tuple[Study, str]:
    """The study folder and its Prolific study id (``study_id`` or the recorded one)."""
    study = open_study(study_dir)
    study_id = study_id or study.prolific_study_id
    if not study_id:
        raise DesignError(
            f"{study_dir}: no Prolific study recorded; run 'humaneval prolific create {study_dir} "
            "--serve-url URL --execute' (or 'humaneval serve set-study-id') or pass --study-id"
        )
    return study, path_id(study_id, "--study-id")


def record_rejections(study_dir: str | Path, plan: pd.DataFrame) -> list[str]:
    """Add the participants ``plan`` rejected on Prolific to ``prolific.json``'s ``rejected``, which
    :func:`~humaneval.collect.prolific.read_prolific` leaves out of the ratings; returns the new ones."""
    done = plan["done"].fillna(False).astype(bool) if "done" in plan else False
    rejected = plan.loc[(plan["action"] == "reject") & done, "participant_id"]
    record = read_record(study_dir)
    known = list(record.get("rejected", []))
    new = [pid for pid in rejected if isinstance(pid, str) and pid not in known]
    if new:
        write_record(study_dir, {**record, "rejected": known + new})
    return new


def reopen_places(study: Study, client: Any, study_id: str, *, execute: bool) -> dict[str, Any]:
    """Reopen the places of participants rejected on Prolific and not reopened yet: their slot is
    freed on the server and Prolific gets one more place each (``PATCH studies/<id>/``
    ``total_available_places``; once published Prolific only lets places grow).

    Returns ``{"participants": [...], "slots": [...], "places": n or None, "done": bool}``; a dry run
    (``execute=False``) changes nothing.
    """
    from humaneval.serve.service import ApiError, StudyService

    record = read_record(study.study_dir)
    todo = [pid for pid in record.get("rejected", []) if pid not in set(record.get("reopened", []))]
    if not todo or not execute:
        return {"participants": todo, "slots": [], "places": None, "done": False}
    service = StudyService(study.study_dir, pilot=True)
    slots = []
    for pid in todo:
        try:
            slots.append(service.reopen(pid)["slot"])
        except ApiError:
            slots.append(None)  # never reached the server: only Prolific's place is missing
    places = get_study(client, study_id).get("total_available_places")
    if not isinstance(places, int):
        raise PlatformError(f"Prolific's study {study_id} has no total_available_places; check the study")
    answer = call(
        client,
        "PATCH",
        f"studies/{path_id(study_id, 'study id')}/",
        json={"total_available_places": places + len(todo)},
        safe=False,
    )
    write_record(study.study_dir, {**record, "reopened": [*record.get("reopened", []), *todo]})
    return {
        "participants": todo,
        "slots": slots,
        "places": answer.get("total_available_places", places + len(todo)),
        "done": True,
    }
