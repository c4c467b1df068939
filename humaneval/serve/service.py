"""What the collection server does, independent of HTTP (docs/serve.md).

:class:`StudyService` implements slot assignment (resume, timeout release, fewest-filled block
first, ``study_full``, ``not_eligible``), idempotent screen saves (first write wins; the key is
``(participant, screen_index)``), finishing with the completion URL, admin release and the
per-block status. Every state change is one ``BEGIN IMMEDIATE`` transaction of
:class:`~humaneval.serve.store.Store`; an :class:`ApiError` raised inside it rolls everything back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from humaneval.errors import DesignError
from humaneval.io.studydb import DB_NAME
from humaneval.serve.limits import DEFAULT_LIMIT, StartLimit, StartLimiter
from humaneval.serve.store import Store, upgrade_schema
from humaneval.serve.study import PROLIFIC_COMPLETE
from humaneval.serve.validate import comment_problems, screen_problems, timing_problems

_PARAM = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


class ApiError(Exception):
    """An HTTP error answer: ``{"error": code, "details": [...], **extra}`` with ``status``."""

    def __init__(self, status: int, code: str, details: list[str] | None = None, **extra: Any):
        super().__init__(code)
        self.status, self.code, self.details, self.extra = status, code, details or [], extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "details": self.details, **self.extra}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def payload_digest(answers: dict[str, Any], comment: str) -> str:
    """The idempotency digest of a screen: its answers and comment (timings are measurements and
    may differ on a retry; they are stored from the first write)."""
    canonical = json.dumps(
        {"answers": {k: str(v) for k, v in answers.items()}, "comment": comment},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return sha256(canonical)


class StudyService:
    """The study of one ``study.sqlite``; ``clock`` (seconds since the epoch) is injectable for tests.

    Only participants arriving with the study's Prolific ``STUDY_ID`` (set by ``serve init
    --study-id`` or ``serve set-study-id``) are admitted. ``pilot=True`` admits any STUDY_ID, for
    trying the study through its link before it is published; without a STUDY_ID configured the
    service refuses to start unless ``pilot`` is set. New participants per client address are
    limited by ``start_limit`` (:class:`~humaneval.serve.limits.StartLimit`).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        clock: Callable[[], float] = time.time,
        pilot: bool = False,
        start_limit: StartLimit = DEFAULT_LIMIT,
    ):
        path = Path(path)
        self.store = Store(path / DB_NAME if path.is_dir() else path)
        self.clock = clock
        with self.store.write() as c:
            upgrade_schema(c)
        with self.store.read() as c:
            study = c.execute("SELECT * FROM study").fetchone()
            slots = c.execute("SELECT id, name, block, payload_json FROM slot ORDER BY id").fetchall()
        self.key: str = study["key"]
        self.design_id: str = study["design_id"]
        self.config: dict[str, Any] = json.loads(study["config_json"])
        self.admin_hash: str = study["admin_token_sha256"]
        self.preset: dict[str, Any] = self.config["preset"]
        self.method: str = self.config["method"]
        self.slot_names = {row["id"]: row["name"] for row in slots}
        self.payloads = {row["id"]: json.loads(row["payload_json"]) for row in slots}
        self.study_id: str | None = self.config.get("prolific_study_id")
        self.pilot = pilot
        if self.study_id is None and not pilot:
            raise DesignError(
                f"{self.store.path}: no Prolific STUDY_ID is set, so any link would be admitted; create the "
                "study on Prolific first ('humaneval prolific create STUDY_DIR --execute' records it; for a "
                "study made in Prolific's web app 'humaneval serve set-study-id STUDY_DIR STUDY_ID'), or run "
                "a pilot with --pilot"
            )
        self.limiter = StartLimiter(start_limit)

    # -- participants ---------------------------------------------------------------------------

    def start(self, body: dict[str, Any], client: str | None = None) -> dict[str, Any]:
        """``POST /api/<key>/start``: assign (or resume) the participant's slot and issue a token.

        ``client`` (the request's address) is charged one token of the start limit when the
        participant is new.
        """
        _only_keys(body, ("prolific_pid", "study_id", "session_id"))
        params = [body.get(k) for k in ("prolific_pid", "study_id", "session_id")]
        bad = [
            f"{k} must be 1-128 characters of A-Z a-z 0-9 _ . : -"
            for k, v in zip(("prolific_pid", "study_id", "session_id"), params, strict=True)
            if not isinstance(v, str) or not _PARAM.fullmatch(v)
        ]
        if bad:
            raise ApiError(422, "validation_failed", bad)
        pid, study_id, session_id = params
        if pid in self.config["exclude_pids"]:
            raise ApiError(403, "not_eligible", ["this Prolific ID took part in a related study"])
        if not self.pilot and study_id != self.study_id:
            raise ApiError(403, "wrong_study", ["this link belongs to another Prolific study"])
        token = secrets.token_urlsafe(16)
        with self.store.write() as c:
            now = self.clock()  # inside the lock: times follow commit order
            row = c.execute(
                "SELECT * FROM participant WHERE study = ? AND prolific_pid = ?", (self.key, pid)
            ).fetchone()
            if row is not None:
                c.execute(
                    "UPDATE participant SET token_sha256 = ?, session_id_param = ?, last_seen = ? "
                    "WHERE id = ?",
                    (sha256(token), session_id, now, row["id"]),
                )
                self._reclaim(c, row, now)
                slot = row["slot"]
            else:
                wait = self.limiter.retry_after(client, now)
                if wait:
                    raise ApiError(
                        429,
                        "rate_limited",
                        ["too many new participants from this address; please retry shortly"],
                        retry_after=math.ceil(wait),
                    )
                self._expire(c, now)
                slot = self._free_slot(c)
                cursor = c.execute(
                    "INSERT INTO participant (study, prolific_pid, study_id_param, session_id_param, "
                    "token_sha256, slot, started_at, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (self.key, pid, study_id, session_id, sha256(token), slot, now, now),
                )
                c.execute(
                    "UPDATE slot SET state = 'reserved', participant = ?, reserved_at = ? WHERE id = ?",
                    (cursor.lastrowid, now, slot),
                )
            stored = _stored(c, row["id"]) if row is not None else 0
        screens = self._screens(slot)
        return {
            "token": token,
            "slot": self.slot_names[slot],
            "screens": [s["id"] for s in screens],
            "next_screen": stored,
            "total_screens": len(screens),
            "form": self.payloads[slot],
        }

    def save_screen(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/<key>/screen``: validate and store one screen; repeats are idempotent."""
        _only_keys(body, ("token", "screen_index", "answers", "timing", "comment"))
        index = body.get("screen_index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            raise ApiError(422, "validation_failed", ["screen_index must be a non-negative whole number"])
        comment = body.get("comment") or ""
        problems = timing_problems(body.get("timing")) + comment_problems(body.get("comment"))
        with self.store.write() as c:
            now = self.clock()
            participant = self._participant(c, body)
            screens = self._screens(participant["slot"])
            if index >= len(screens):
                raise ApiError(
                    422,
                    "validation_failed",
                    [f"unknown screen {index}: this slot has {len(screens)} screens"],
                )
            problems = (
                screen_problems(self.method, self.preset, screens[index], body.get("answers")) + problems
            )
            if problems:
                raise ApiError(422, "validation_failed", problems)
            digest = payload_digest(body["answers"], comment)
            stored = _stored(c, participant["id"])
            existing = c.execute(
                "SELECT payload_sha256 FROM response WHERE participant = ? AND screen_index = ?",
                (participant["id"], index),
            ).fetchone()
            if existing is not None:
                if existing["payload_sha256"] != digest:
                    raise ApiError(
                        409,
                        "conflict",
                        ["this screen was already saved with other answers"],
                        next_screen=stored,
                    )
                return {
                    "stored": True,
                    "duplicate": True,
                    "next_screen": stored,
                    "done": stored == len(screens),
                }
            if index > stored:
                raise ApiError(409, "out_of_order", [f"screen {stored} comes first"], next_screen=stored)
            self._reclaim(c, participant, now)
            timing = body["timing"]
            payload = {"answers": body["answers"], "timing": timing, "comment": comment}
            c.execute(
                "INSERT INTO response (participant, screen_index, session_id_param, payload_json, "
                "payload_sha256, received_at, shown_at, answered_at, seconds, visible_seconds) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    participant["id"],
                    index,
                    participant["session_id_param"],
                    json.dumps(payload, ensure_ascii=False, sort_keys=True),
                    digest,
                    now,
                    timing["shown_at"],
                    timing["answered_at"],
                    timing["seconds"],
                    timing["visible_seconds"],
                ),
            )
            stored += 1
            done = stored == len(screens)
            c.execute(
                "UPDATE participant SET last_seen = ?, completed_at = ? WHERE id = ?",
                (now, now if done else None, participant["id"]),
            )
            if done:
                c.execute(
                    "UPDATE slot SET state = 'complete', completed_at = ? WHERE id = ? AND participant = ?",
                    (now, participant["slot"], participant["id"]),
                )
        return {"stored": True, "duplicate": False, "next_screen": stored, "done": done}

    def finish(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/<key>/finish``: the completion URL, only once every screen is stored."""
        _only_keys(body, ("token",))
        with self.store.read() as c:
            participant = self._participant(c, body)
            stored = _stored(c, participant["id"])
        total = len(self._screens(participant["slot"]))
        if stored < total:
            raise ApiError(
                409, "incomplete", [f"{total - stored} screen(s) not saved yet"], next_screen=stored
            )
        code = self.config["completion_code"]
        return {"completion_url": PROLIFIC_COMPLETE + code, "completion_code": code}

    # -- admin ----------------------------------------------------------------------------------

    def admin_ok(self, token: str) -> bool:
        """Constant-time comparison of the presented token's SHA-256 with the stored one."""
        return hmac.compare_digest(sha256(token), self.admin_hash)

    def release(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /admin/<key>/release``: free the slot of a participant who returned the study."""
        _only_keys(body, ("prolific_pid",))
        pid = body.get("prolific_pid")
        if not isinstance(pid, str):
            raise ApiError(422, "validation_failed", ["prolific_pid must be a string"])
        with self.store.write() as c:
            now = self.clock()
            row = c.execute(
                "SELECT * FROM participant WHERE study = ? AND prolific_pid = ?", (self.key, pid)
            ).fetchone()
            if row is None:
                raise ApiError(404, "unknown_participant", ["no participant with this Prolific ID"])
            if row["completed_at"] is not None:
                raise ApiError(409, "already_complete", ["this participant has completed the study"])
            freed = c.execute(
                "UPDATE slot SET state = 'free', participant = NULL, reserved_at = NULL "
                "WHERE id = ? AND participant = ? AND state = 'reserved'",
                (row["slot"], row["id"]),
            ).rowcount
            c.execute(
                "UPDATE participant SET released_at = ?, released_by = 'admin' WHERE id = ?", (now, row["id"])
            )
        return {"released": True, "slot": self.slot_names[row["slot"]], "slot_freed": bool(freed)}

    def reopen(self, pid: str) -> dict[str, Any]:
        """Free the slot of a participant who completed it but was rejected on Prolific, so the
        place Prolific reopens is taken by someone new; their answers stay on record."""
        with self.store.write() as c:
            row = c.execute(
                "SELECT * FROM participant WHERE study = ? AND prolific_pid = ?", (self.key, pid)
            ).fetchone()
            if row is None:
                raise ApiError(404, "unknown_participant", ["no participant with this Prolific ID"])
            freed = c.execute(
                "UPDATE slot SET state = 'free', participant = NULL, reserved_at = NULL, completed_at = NULL "
                "WHERE id = ? AND participant = ?",
                (row["slot"], row["id"]),
            ).rowcount
            if freed:
                c.execute(
                    "UPDATE participant SET released_at = ?, released_by = 'admin' WHERE id = ?",
                    (self.clock(), row["id"]),
                )
        return {"slot": self.slot_names[row["slot"]], "slot_freed": bool(freed)}

    def status(self) -> dict[str, Any]:
        """``GET /admin/<key>/status``: per block planned, reserved, complete, released, late."""
        with self.store.read() as c:
            blocks = c.execute(
                "SELECT block, COUNT(*) AS planned, SUM(state = 'reserved') AS reserved, "
                "SUM(state = 'complete') AS complete FROM slot WHERE study = ? GROUP BY block ORDER BY block",
                (self.key,),
            ).fetchall()
            people = c.execute(
                "SELECT s.block, SUM(p.released_at IS NOT NULL AND p.completed_at IS NULL) AS released, "
                "SUM(p.late) AS late, COUNT(*) AS participants, SUM(p.completed_at IS NOT NULL) AS completed "
                "FROM participant p JOIN slot s ON s.id = p.slot WHERE p.study = ? GROUP BY s.block",
                (self.key,),
            ).fetchall()
        extra = {row["block"]: row for row in people}
        rows = []
        for row in blocks:
            more = extra.get(row["block"])
            rows.append(
                {
                    "block": row["block"],
                    "planned": row["planned"],
                    "reserved": row["reserved"],
                    "complete": row["complete"],
                    "released": more["released"] if more else 0,
                    "late": more["late"] if more else 0,
                    "completed_participants": more["completed"] if more else 0,
                }
            )
        return {
            "study": self.key,
            "design_id": self.design_id,
            "blocks": rows,
            "slots": sum(r["planned"] for r in rows),
            "complete": sum(r["complete"] for r in rows),
            "participants": sum(r["participants"] for r in people),
        }

    def dashboard(self) -> dict[str, Any]:
        """``GET /admin/<key>/dashboard``: what the admin page shows, without any Prolific id.

        ``blocks``: per block the planned slots, slots complete / in progress / free, and the
        participants who returned (released by the admin) or timed out. ``participants``: one row
        per participant (pseudonym, slot, state, screens saved, minutes, attention checks and the
        QC flags of :func:`humaneval.qc.qc_report`). ``totals`` sums the blocks.
        """
        import pandas as pd

        from humaneval.collect.prolific import read_prolific
        from humaneval.errors import RatingsError
        from humaneval.qc import qc_report

        with self.store.read() as c:
            blocks = c.execute(
                "SELECT block, COUNT(*) AS planned, SUM(state = 'complete') AS complete, "
                "SUM(state = 'reserved') AS in_progress, SUM(state = 'free') AS free "
                "FROM slot WHERE study = ? GROUP BY block ORDER BY block",
                (self.key,),
            ).fetchall()
            people = c.execute(
                "SELECT s.block, SUM(p.released_by = 'admin' AND p.completed_at IS NULL) AS returned, "
                "SUM(p.released_by = 'timeout' AND p.completed_at IS NULL) AS timed_out, "
                "SUM(p.late) AS late FROM participant p JOIN slot s ON s.id = p.slot "
                "WHERE p.study = ? GROUP BY s.block",
                (self.key,),
            ).fetchall()
            released_by = dict(
                c.execute("SELECT id, released_by FROM participant WHERE study = ?", (self.key,))
            )
        extra = {row["block"]: dict(row) for row in people}
        rows = [
            {
                **dict(row),
                **{k: (extra.get(row["block"]) or {}).get(k) or 0 for k in ("returned", "timed_out", "late")},
            }
            for row in blocks
        ]
        keys = ("planned", "complete", "in_progress", "free", "returned", "timed_out", "late")
        participants: list[dict[str, Any]] = []
        try:
            results = read_prolific(self.store.path)
        except RatingsError:
            results = None
        if results is not None:
            table = results.participants
            flags = _qc_flags(qc_report(results.ratings).table) if results.ratings is not None else {}
            states = {"admin": "returned", "timeout": "timed_out", None: "in_progress"}
            for row in table.to_dict(orient="records"):
                state = "complete" if row["complete"] else states[released_by.get(int(row["participant"]))]
                participants.append(
                    {
                        "annotator": row["annotator"],
                        "slot": row["annotator_slot"],
                        "block": row["block"],
                        "state": state,
                        "screens": f"{row['screens_saved']}/{row['screens_total']}",
                        "minutes": 0.0
                        if pd.isna(row["total_seconds"])
                        else round(row["total_seconds"] / 60, 1),
                        "checks": f"{row['checks_total'] - row['checks_failed']}/{row['checks_total']}",
                        "flags": [
                            *(f for f in ("surplus", "late", "pilot") if row.get(f)),
                            *(["rejection_eligible"] if row["prolific_rejection_eligible"] else []),
                            *flags.get(row["annotator"], []),
                        ],
                    }
                )
        return {
            "study": self.key,
            "design_id": self.design_id,
            "title": self.config.get("title", ""),
            "prolific_study_id": self.study_id,
            "pilot": self.pilot,
            "blocks": rows,
            "totals": {k: sum(int(r[k] or 0) for r in rows) for k in keys},
            "participants": participants,
        }

    # -- internals ------------------------------------------------------------------------------

    def _screens(self, slot: int) -> list[dict[str, Any]]:
        return self.payloads[slot]["slots"][0]["screens"]

    def _participant(self, c, body: dict[str, Any]):
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise ApiError(401, "bad_token", ["a token from /start is required"])
        row = c.execute(
            "SELECT * FROM participant WHERE study = ? AND token_sha256 = ?", (self.key, sha256(token))
        ).fetchone()
        if row is None:
            raise ApiError(401, "bad_token", ["unknown or revoked token; reload the study page"])
        return row

    def _expire(self, c, now: float) -> None:
        """docs/serve.md step 2: reservations older than the slot timeout go back to ``free``."""
        cutoff = now - float(self.config["slot_timeout_s"])
        stale = c.execute(
            "SELECT id, participant FROM slot WHERE study = ? AND state = 'reserved' AND reserved_at < ?",
            (self.key, cutoff),
        ).fetchall()
        for row in stale:
            c.execute(
                "UPDATE slot SET state = 'free', participant = NULL, reserved_at = NULL WHERE id = ?",
                (row["id"],),
            )
            c.execute(
                "UPDATE participant SET released_at = ?, released_by = 'timeout' WHERE id = ?",
                (now, row["participant"]),
            )

    def _free_slot(self, c) -> int:
        """docs/serve.md step 3: the lowest free slot of the block with the fewest reserved + complete."""
        row = c.execute(
            "SELECT block FROM slot WHERE study = ? GROUP BY block HAVING SUM(state = 'free') > 0 "
            "ORDER BY SUM(state != 'free'), block LIMIT 1",
            (self.key,),
        ).fetchone()
        if row is None:
            extra = {}
            if self.config.get("full_code"):
                extra["completion_url"] = PROLIFIC_COMPLETE + self.config["full_code"]
            raise ApiError(
                409, "study_full", ["every place is taken; please return the study on Prolific"], **extra
            )
        return c.execute(
            "SELECT id FROM slot WHERE study = ? AND block = ? AND state = 'free' ORDER BY k LIMIT 1",
            (self.key, row["block"]),
        ).fetchone()["id"]

    def _reclaim(self, c, participant, now: float) -> None:
        """A released participant who comes back retakes the slot if still free, else is marked
        ``late``."""
        if participant["released_at"] is None or participant["completed_at"] is not None:
            return
        taken = c.execute(
            "UPDATE slot SET state = 'reserved', participant = ?, reserved_at = ? "
            "WHERE id = ? AND state = 'free'",
            (participant["id"], now, participant["slot"]),
        ).rowcount
        if taken:
            c.execute(
                "UPDATE participant SET released_at = NULL, released_by = NULL WHERE id = ?",
                (participant["id"],),
            )
        else:
            c.execute("UPDATE participant SET late = 1 WHERE id = ?", (participant["id"],))


def _qc_flags(table) -> dict[str, list[str]]:
    """QC warning flags per annotator from a :func:`humaneval.qc.qc_report` table (NaN: not set)."""
    names = [f for f in ("too_fast", "straight_line", "long_run") if f in table]
    return {
        row["annotator"]: [f for f in names if row[f] is True or str(row[f]) == "True"]
        for row in table.to_dict(orient="records")
    }


def _stored(c, participant: int) -> int:
    """Screens are stored strictly in order, so the first unanswered index is the count."""
    return c.execute("SELECT COUNT(*) FROM response WHERE participant = ?", (participant,)).fetchone()[0]


def _only_keys(body: dict[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(422, "validation_failed", [f"unknown field {k!r}" for k in unknown[:10]])
