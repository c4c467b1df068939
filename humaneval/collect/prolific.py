"""Exporting a Prolific study from the collection server's SQLite file (docs/forms.md).

Every participant's stored screens are turned into the same answer-field map an MTurk form
posts (fields of docs/forms.md, ``tm_<screen>``, ``cm_<screen>``, ``order``, ``slot``) and parsed by
:func:`humaneval.collect.mturk.parse_mturk_results`, so both platforms share one mapping from
fields to design cells, one attention-check scoring (docs/forms.md) and one ratings validation. On top
come the Prolific columns: ``platform = prolific``, per-screen ``submitted_at`` (server receipt
time), ``complete``, ``late`` (wrote after their slot was released) and ``surplus`` (a slot
completed twice: every completion after the first, docs/serve.md "Slot assignment"). Participants are named by
the HMAC pseudonym of their PROLIFIC_PID keyed with the study's secret salt; raw PIDs and the
STUDY_ID/SESSION_ID parameters appear only with ``include_pids=True``. Direct-assessment
exports add ``z_value``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.collect.mturk import check_counts, parse_mturk_results, results_row
from humaneval.core.ratings import Ratings
from humaneval.errors import RatingsError
from humaneval.methods import get_method
from humaneval.qc import QCRules

EXPORT_COLUMNS = (
    "study",
    "design_id",
    "platform",
    "annotator",
    "annotator_slot",
    "block",
    "position",
    "screen_id",
    "display_pos",
    "document",
    "system",
    "method",
    "dimension",
    "value",
    "raw_value",
    "tuple_id",
    "pair_id",
    "opponent",
    "is_check",
    "check_kind",
    "check_expected",
    "check_passed",
    "is_warmup",
    "is_anchor_repeat",
    "screen_has_check",
    "seconds",
    "visible_seconds",
    "comment",
    "submitted_at",
    "complete",
    "surplus",
    "late",
    "rejected",
    "duplicate_worker",
    "round",
)
PID_COLUMNS = ("prolific_pid", "study_id", "session_id")
#: The record of the Prolific commands in the study folder; its ``rejected`` marks rows.
REVIEW_RECORD = "prolific.json"


@dataclass(frozen=True)
class ProlificResults:
    """What :func:`read_prolific` found.

    ``table``: the long export table of docs/forms.md (checks included, only stored screens).
    ``ratings``: the analysable :class:`~humaneval.core.ratings.Ratings` of complete, non-surplus
    participants (no checks, warm-ups or repeated anchors). ``participants``: one row per
    participant with status, screens saved, time on task, ``pilot`` (admitted by a server in
    pilot mode with another STUDY_ID than the study's) and attention-check outcomes
    (``checks_total``, ``checks_failed``, ``check_pass_rate``, ``imc_failed``,
    ``prolific_rejection_eligible`` = ``imc_failed ≥ 2``, docs/forms.md).
    """

    table: pd.DataFrame
    ratings: Ratings | None
    participants: pd.DataFrame

    @property
    def n_ratings(self) -> int:
        """Ratings in :attr:`ratings`, its attention-check rows not counted."""
        return 0 if self.ratings is None else len(self.ratings.without_checks())

    def to_dict(self) -> dict[str, Any]:
        p = self.participants
        return {
            "judgements": len(self.table),
            "ratings": self.n_ratings,
            "attention_checks": 0 if self.ratings is None else len(self.ratings) - self.n_ratings,
            "participants": len(p),
            "complete": int(p["complete"].sum()) if len(p) else 0,
            "surplus": int(p["surplus"].sum()) if len(p) else 0,
            "late": int(p["late"].sum()) if len(p) else 0,
            "rejected": int(p["rejected"].sum()) if len(p) else 0,
            "rejection_eligible": int(p["prolific_rejection_eligible"].sum()) if len(p) else 0,
            "participants_table": p.to_dict(orient="records"),
        }


def read_prolific(path: str | Path, *, include_pids: bool = False) -> ProlificResults:
    """Read a study's ``study.sqlite`` (or its folder) into the export of docs/forms.md.

    The database is read inside one read transaction, so a running server keeps writing.

    Parameters
    ----------
    path : str or Path
        The ``study.sqlite`` written by ``humaneval serve init``, or the study folder holding it.
    include_pids : bool, default False
        Add the raw ``prolific_pid``, ``study_id`` and ``session_id`` columns (personal data).

    Returns
    -------
    ProlificResults
        The long export table, the analysable ratings of complete non-surplus participants and
        one row per participant.

    Raises
    ------
    RatingsError
        The file is missing, not a collection-server database, damaged, or nobody has started.
    """
    from humaneval.design.plan import Design
    from humaneval.io.studydb import DB_NAME

    path = Path(path)
    path = path / DB_NAME if path.is_dir() else path
    snapshot = _read_snapshot(path)
    study, config = snapshot.study, json.loads(snapshot.study["config_json"])
    design = Design.from_dict(json.loads(study["design_json"]))
    rejected = _rejected(path.parent)
    for person in snapshot.people:
        person["rejected"] = person["prolific_pid"] in rejected
    _mark_surplus(snapshot.people)
    rows, receipts = _results_rows(snapshot)
    if not rows:
        raise RatingsError(f"{path}: no participant has started the study yet; nothing to export")
    preset = config["preset"]
    parsed = parse_mturk_results(
        pd.DataFrame(rows),
        design,
        points=int(preset.get("points", 7)),
        allow_ties=bool(preset.get("allow_ties", False)),
        salt=study["salt"],
    )
    info = _participant_info(snapshot, config.get("prolific_study_id"))
    table = _export_rows(parsed.table, receipts, info, study["key"])
    columns = [*EXPORT_COLUMNS, *(PID_COLUMNS if include_pids else ())]
    if get_method(design.method).standardise:
        table["z_value"] = _z_values(table)
        columns.append("z_value")
    participants = _participants(parsed.workers, info, table, include_pids)
    return ProlificResults(
        table=table[columns].reset_index(drop=True),
        ratings=_analysable(parsed.ratings, participants),
        participants=participants,
    )


@dataclass(frozen=True)
class _Snapshot:
    """The rows of one read transaction on a study database, with each slot's screen ids."""

    study: sqlite3.Row
    slots: dict[int, dict[str, Any]]
    people: list[dict[str, Any]]
    by_person: dict[int, list[dict[str, Any]]]
    screen_ids: dict[int, list[str]]


def _read_snapshot(path: Path) -> _Snapshot:
    """Open the study database ``path`` and read every table in one transaction."""
    from humaneval.io.studydb import connect, is_database

    if not path.exists():
        raise RatingsError(
            f"{path}: no such study database; pass the study.sqlite written by 'humaneval serve init'"
        )
    if not is_database(path):
        raise RatingsError(
            f"{path}: not an SQLite database; pass the study.sqlite written by 'humaneval serve init'"
        )
    try:
        connection = connect(path)
    except sqlite3.DatabaseError as exc:
        raise RatingsError(
            f"{path}: the database is damaged ({exc}); copy it again (humaneval serve backup) or restore "
            "a backup"
        ) from None
    try:
        connection.execute("BEGIN")
        study = connection.execute("SELECT * FROM study").fetchone()
        slots = {r["id"]: dict(r) for r in connection.execute("SELECT id, name, payload_json FROM slot")}
        people = [dict(r) for r in connection.execute("SELECT * FROM participant ORDER BY id")]
        responses = [
            dict(r) for r in connection.execute("SELECT * FROM response ORDER BY participant, screen_index")
        ]
        connection.execute("COMMIT")
    except Exception as exc:
        raise RatingsError(f"{path}: not a collection-server database ({exc}); check the path") from None
    finally:
        connection.close()
    by_person: dict[int, list[dict[str, Any]]] = {}
    for response in responses:
        by_person.setdefault(response["participant"], []).append(response)
    screen_ids = {
        sid: [s["id"] for s in json.loads(slot["payload_json"])["slots"][0]["screens"]]
        for sid, slot in slots.items()
    }
    return _Snapshot(study, slots, people, by_person, screen_ids)


def _results_rows(snapshot: _Snapshot) -> tuple[list[dict[str, Any]], list[tuple[str, str, str, Any]]]:
    """One MTurk-style results row per participant, and (participant, screen, receipt time, SESSION_ID)
    of every stored screen."""
    rows: list[dict[str, Any]] = []
    receipts: list[tuple[str, str, str, Any]] = []
    study = snapshot.study
    for person in snapshot.people:
        ids = snapshot.screen_ids[person["slot"]]
        responses = snapshot.by_person.get(person["id"], [])
        fields: dict[str, Any] = {
            "slot": snapshot.slots[person["slot"]]["name"],
            "design_id": study["design_id"],
            "order": ",".join(ids[r["screen_index"]] for r in responses),
        }
        for response in responses:
            sid = ids[response["screen_index"]]
            fields.update(_screen_fields(sid, json.loads(response["payload_json"])))
            receipts.append(
                (str(person["id"]), sid, _iso(response["received_at"]), response["session_id_param"])
            )
        rows.append(
            results_row(
                fields,
                assignment_id=str(person["id"]),
                worker_id=person["prolific_pid"],
                hit_id=study["key"],
                submit_time=_iso(person["completed_at"] or person["last_seen"]),
            )
        )
    return rows, receipts


def _screen_fields(sid: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The answer fields one stored screen posts: its answers, ``tm_<screen>`` and ``cm_<screen>``."""
    timing = payload["timing"]
    fields = dict(payload["answers"])
    fields[f"tm_{sid}"] = f"{timing['seconds']},{timing['visible_seconds']},{timing['hidden_count']}"
    if payload["comment"]:
        fields[f"cm_{sid}"] = payload["comment"]
    return fields


def _participant_info(snapshot: _Snapshot, prolific_study_id: str | None) -> pd.DataFrame:
    """One row per participant: Prolific parameters, status flags, screens saved and timestamps."""
    people, by_person = snapshot.people, snapshot.by_person
    return pd.DataFrame(
        {
            "assignment_id": [str(p["id"]) for p in people],
            "prolific_pid": [p["prolific_pid"] for p in people],
            "study_id": [p["study_id_param"] for p in people],
            # admitted in pilot mode with another STUDY_ID (e.g. the page's ?test= link)
            "pilot": [p["study_id_param"] != prolific_study_id for p in people],
            "complete": [p["completed_at"] is not None for p in people],
            "late": [bool(p["late"]) for p in people],
            "surplus": [p["surplus"] for p in people],
            "rejected": [p["rejected"] for p in people],
            "released": [p["released_at"] is not None and p["completed_at"] is None for p in people],
            "screens_saved": [len(by_person.get(p["id"], [])) for p in people],
            "screens_total": [len(snapshot.screen_ids[p["slot"]]) for p in people],
            "started_at": [_iso(p["started_at"]) for p in people],
            "completed_at": [_iso(p["completed_at"]) for p in people],
        }
    )


def _export_rows(
    parsed: pd.DataFrame, receipts: list[tuple[str, str, str, Any]], info: pd.DataFrame, study_key: str
) -> pd.DataFrame:
    """The parsed long table with the server's receipt times and the participant columns, sorted."""
    receipts_frame = pd.DataFrame(
        receipts, columns=["assignment_id", "screen_id", "submitted_at", "session_id"]
    )
    table = parsed.drop(columns=["submitted_at"]).merge(
        receipts_frame, on=["assignment_id", "screen_id"], how="inner", validate="many_to_one"
    )
    table = table.merge(info, on="assignment_id", how="left", validate="many_to_one")
    table["study"] = study_key
    table["platform"] = "prolific"
    return table.sort_values(
        ["block", "annotator_slot", "assignment_id", "position", "display_pos"], kind="stable"
    )


def _analysable(ratings: Ratings | None, participants: pd.DataFrame) -> Ratings | None:
    """``ratings`` restricted to complete, non-surplus participants not rejected on Prolific (``None``
    when nobody is left)."""
    if ratings is None:
        return None
    usable = participants["complete"] & ~participants["surplus"] & ~participants["rejected"]
    keep = set(participants.loc[usable, "annotator"])
    data = ratings.data[ratings.data["annotator"].isin(keep)].reset_index(drop=True)
    return ratings.with_data(data) if len(data) else None


def export_table(path: str | Path, *, include_pids: bool = False) -> pd.DataFrame:
    """Just the long table of docs/forms.md (what ``GET /admin/<key>/export`` sends)."""
    return read_prolific(path, include_pids=include_pids).table


def _z_values(table: pd.DataFrame) -> pd.Series:
    """docs/forms.md (DA): annotator-wise z-score over the annotator's real items (sample SD; empty if 0)."""
    real = ~table["is_check"] & ~table["is_warmup"]
    values = pd.to_numeric(table["value"].where(real), errors="coerce")
    grouped = values.groupby(table["annotator"])
    spread = grouped.transform("std")
    return (values - grouped.transform("mean")) / spread.where(spread > 0)


def _mark_surplus(people: list[dict[str, Any]]) -> None:
    """docs/forms.md step 6: of the participants who completed one slot, all but the first are surplus
    (one rejected on Prolific does not count: their place was reopened for the next)."""
    done = sorted(
        (p for p in people if p["completed_at"] is not None and not p["rejected"]),
        key=lambda p: (p["completed_at"], p["id"]),
    )
    seen: set[int] = set()
    for person in people:
        person["surplus"] = False
    for person in done:
        person["surplus"] = person["slot"] in seen
        seen.add(person["slot"])


def _participants(
    workers: pd.DataFrame, info: pd.DataFrame, table: pd.DataFrame, include_pids: bool
) -> pd.DataFrame:
    seconds = table.groupby("assignment_id")["seconds"].sum().rename("total_seconds")
    out = (
        workers[["assignment_id", "annotator", "annotator_slot", "block"]]
        .merge(info, on="assignment_id", how="left", validate="one_to_one")
        .merge(seconds, on="assignment_id", how="left")
    )
    # scored on stored screens only: the parser would count a check on an unsaved screen as failed
    out = out.join(check_counts(table, pd.Index(out["assignment_id"])), on="assignment_id")
    out["prolific_rejection_eligible"] = out["imc_failed"] >= QCRules.min_failed_checks_for_rejection
    out = out.rename(columns={"assignment_id": "participant"})
    if not include_pids:
        out = out.drop(columns=["prolific_pid", "study_id"])
    return out.sort_values(["block", "annotator_slot", "participant"], kind="stable").reset_index(drop=True)


def _rejected(study_dir: Path) -> set[str]:
    """The Prolific IDs ``humaneval prolific review --execute`` rejected (``prolific.json``'s
    ``rejected``; none without the file)."""
    path = study_dir / REVIEW_RECORD
    if not path.exists():
        return set()
    try:
        rejected = json.loads(path.read_text(encoding="utf-8")).get("rejected", [])
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        raise RatingsError(f"{path}: not the JSON record 'humaneval prolific' writes; restore it") from None
    if not isinstance(rejected, list) or not all(isinstance(pid, str) for pid in rejected):
        raise RatingsError(f"{path}: 'rejected' must be a list of Prolific IDs; restore the file")
    return set(rejected)


def _iso(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return (
        datetime.fromtimestamp(seconds, tz=timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
