"""Creating a study folder for the collection server (docs/serve.md).

:func:`create_study` turns a design (``design.json`` + ``texts.json``) into ``STUDY_DIR`` holding
``study.sqlite`` (schema of docs/serve.md, one form payload per annotator slot, built by the forms'
:func:`~humaneval.forms.design_payloads`) and ``admin_token`` (file mode 0600; the database keeps
only its SHA-256). The completion code lives only in the database, never in the page.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from humaneval.design.load import DesignLike, load_design
from humaneval.design.plan import Design
from humaneval.errors import DesignError
from humaneval.forms.presets import Preset
from humaneval.forms.texts import Texts
from humaneval.forms.write import design_payloads, design_texts
from humaneval.io.studydb import DB_NAME, connect, is_database
from humaneval.serve.store import create_private, create_schema

TOKEN_NAME = "admin_token"
MIN_SLOT_TIMEOUT_S = 20 * 60
PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="
URL_QUERY = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
_KEY = re.compile(r"[A-Za-z0-9_-]{4,64}")
_CODE = re.compile(r"[A-Za-z0-9]{4,32}")
_SLOT = re.compile(r"b(\d+)-a(\d+)")
_PARAM = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


@dataclass(frozen=True)
class Study:
    """A created study folder: where things are and what to paste into Prolific."""

    study_dir: Path
    key: str
    design_id: str
    slots: int
    blocks: int
    slot_timeout_s: float
    completion_code: str
    prolific_study_id: str | None = None

    @property
    def db_path(self) -> Path:
        return self.study_dir / DB_NAME

    @property
    def token_path(self) -> Path:
        return self.study_dir / TOKEN_NAME

    def url(self, base: str = "https://<host>") -> str:
        """The study URL of docs/serve.md with Prolific's ``{{%…%}}`` placeholders."""
        return f"{base.rstrip('/')}/s/{self.key}/?{URL_QUERY}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "study_dir": str(self.study_dir),
            "database": str(self.db_path),
            "admin_token_file": str(self.token_path),
            "key": self.key,
            "design_id": self.design_id,
            "slots": self.slots,
            "blocks": self.blocks,
            "slot_timeout_s": self.slot_timeout_s,
            "completion_code": self.completion_code,
            "prolific_study_id": self.prolific_study_id,
            "url": self.url(),
        }


def slot_timeout(
    max_minutes: float | None, estimated_minutes: float | None, design_seconds: float | None
) -> float:
    """docs/serve.md step 2: Prolific's maximum time if given, else 3 × the estimate; never below 20 min."""
    if max_minutes is not None:
        seconds = 60.0 * max_minutes
    elif estimated_minutes is not None:
        seconds = 3 * 60.0 * estimated_minutes
    elif design_seconds:
        seconds = 3 * design_seconds
    else:
        seconds = 0.0
    return max(float(seconds), float(MIN_SLOT_TIMEOUT_S))


def create_study(
    design: DesignLike,
    study_dir: str | Path,
    *,
    texts: Texts | Mapping | str | Path | None = None,
    preset: str | Path | Preset | None = None,
    allow_ties: bool | None = None,
    completion_code: str | None = None,
    full_code: str | None = None,
    max_minutes: float | None = None,
    estimated_minutes: float | None = None,
    exclude_pids: Iterable[str] = (),
    consent: str | None = None,
    key: str | None = None,
    title: str | None = None,
    prolific_study_id: str | None = None,
) -> Study:
    """Create ``study_dir`` for ``humaneval serve`` from a design and its texts.

    The folder is created 0700 and ``study.sqlite`` 0600: it holds raw Prolific IDs.

    Parameters
    ----------
    design : Design or str or Path
        A ``Design`` or the path of its ``design.json`` (the manifest is required: it carries the
        checks, warm-ups and scale).
    study_dir : str or Path
        A new folder (or an empty existing one) for the study.
    texts : Texts, mapping, str or Path, optional
        The summaries and documents; default: the design's own texts.
    preset : str, Path or Preset, optional
        The form preset (default: the design's method and dimension).
    allow_ties : bool, optional
        Whether a ranking may tie (passed to the preset).
    completion_code : str, optional
        The code Prolific shows under "completion" (random if omitted).
    full_code : str, optional
        The second code for "study full / declined consent".
    max_minutes, estimated_minutes : float, optional
        Prolific's maximum time or the estimated time; they set the slot timeout
        (:func:`slot_timeout`).
    exclude_pids : iterable of str
        PROLIFIC_PIDs refused with ``not_eligible`` (e.g. the participants of sibling studies).
    consent : str, optional
        A consent text: the start page then asks "I agree" before the first screen.
    title : str, optional
        The page title and, by default, the Prolific study name (default: ``Judge summaries
        (<design id>)``, so two studies of one project differ).
    key : str, optional
        The study key in the URL (random if omitted).
    prolific_study_id : str, optional
        The STUDY_ID Prolific gave the study; the server admits only links carrying it (set it
        later with :func:`set_study_id`).

    Returns
    -------
    Study
        Where the folder, database and admin token are, and what to paste into Prolific.

    Raises
    ------
    DesignError
        A bare design table, a folder that is a file or already holds a study, or a malformed
        key, code or STUDY_ID.
    """
    design = _manifest(design)
    title = title or default_title(design)
    study_dir = _new_study_dir(study_dir)
    key = key or secrets.token_urlsafe(9)
    completion_code = completion_code or secrets.token_hex(4).upper()
    _check_identifiers(key, completion_code, full_code, prolific_study_id)
    texts = design_texts(design, texts)
    extra = {
        "platform": "prolific",
        "submit": {"default_origin": "", "allowed_origins": []},
        "estimated_minutes": estimated_minutes,
        "consent": consent,
        "title": title,
    }
    chosen, payloads = design_payloads(
        design, texts, preset=preset, allow_ties=allow_ties, per_slot=True, extra=extra
    )
    cost = design.summary().to_dict().get("cost") or {}
    config: dict[str, Any] = {
        "completion_code": completion_code,
        "full_code": full_code,
        "slot_timeout_s": slot_timeout(max_minutes, estimated_minutes, cost.get("seconds_per_annotator")),
        "exclude_pids": sorted(set(exclude_pids)),
        "method": chosen.method,
        "preset": chosen.to_dict(),
        "title": title,
        "prolific_study_id": prolific_study_id,
    }
    _write_study(study_dir, key, design, texts, config, payloads)
    return Study(
        study_dir=study_dir,
        key=key,
        design_id=design.design_id,
        slots=len(payloads),
        blocks=len({p["block"] for p in payloads.values()}),
        slot_timeout_s=config["slot_timeout_s"],
        completion_code=completion_code,
        prolific_study_id=prolific_study_id,
    )


def default_title(design: Design) -> str:
    """The title of a study made from ``design`` when none is given: it names the design, so the
    sibling studies of one project are told apart on Prolific and in the browser."""
    return f"Judge summaries ({design.design_id})"


def _manifest(design: DesignLike) -> Design:
    """The loaded :class:`Design`; a bare design table is refused (it lacks checks, warm-ups, scale)."""
    loaded = load_design(design)
    if not isinstance(loaded, Design):
        raise DesignError(
            "the collection server needs the design manifest (design.json), not a bare table; "
            "pass the Design or the path of its design.json"
        )
    return loaded


def _new_study_dir(study_dir: str | Path) -> Path:
    """``study_dir`` as a path, refused when it is a file or already holds a study."""
    study_dir = Path(study_dir)
    if study_dir.exists() and not study_dir.is_dir():
        raise DesignError(f"{study_dir}: is a file; give a new folder for the study")
    if (study_dir / DB_NAME).exists():
        raise DesignError(f"{study_dir}: already holds a study ({DB_NAME}); choose a new folder")
    return study_dir


def _check_identifiers(key: str, completion_code: str, full_code: str | None, study_id: str | None) -> None:
    """Refuse a study key, completion or full code, or STUDY_ID that the server or Prolific would not take."""
    if not _KEY.fullmatch(key):
        raise DesignError(f"study key {key!r} must be 4-64 characters of A-Z a-z 0-9 _ -")
    for name, code in (("completion code", completion_code), ("full code", full_code)):
        if code is not None and not _CODE.fullmatch(code):
            raise DesignError(f"{name} {code!r} must be 4-32 letters or digits, as Prolific shows it")
    _check_study_id(study_id)


def _write_study(
    study_dir: Path,
    key: str,
    design: Design,
    texts: Texts,
    config: dict[str, Any],
    payloads: dict[str, dict[str, Any]],
) -> None:
    """Create the folder (0700), the admin token file and ``study.sqlite`` (0600) with its study and
    slot rows, in one transaction."""
    study_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = secrets.token_urlsafe(32)
    _write_secret(study_dir / TOKEN_NAME, token + "\n")
    create_private(study_dir / DB_NAME)
    connection = connect(study_dir / DB_NAME)
    try:
        create_schema(connection)
        connection.execute("BEGIN IMMEDIATE")
        connection.execute(
            "INSERT INTO study VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                design.design_id,
                design.to_json(),
                json.dumps(texts.to_json(), ensure_ascii=False, sort_keys=True),
                json.dumps(config, ensure_ascii=False, sort_keys=True),
                hashlib.sha256(token.encode("ascii")).hexdigest(),
                secrets.token_hex(16),
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            ),
        )
        for name, payload in payloads.items():
            slot = _SLOT.fullmatch(name)
            assert slot is not None, f"slot name {name!r} is not b<block>-a<k>"  # made by design_payloads
            block, k = (int(x) for x in slot.groups())
            connection.execute(
                "INSERT INTO slot (study, name, block, k, payload_json) VALUES (?, ?, ?, ?, ?)",
                (key, name, block, k, json.dumps(payload, ensure_ascii=False, sort_keys=True)),
            )
        connection.execute("COMMIT")
    finally:
        connection.close()


def open_study(study_dir: str | Path) -> Study:
    """The :class:`Study` of an existing folder (as written by :func:`create_study`)."""
    study_dir = Path(study_dir)
    path = study_dir / DB_NAME
    if not path.exists():
        raise DesignError(
            f"{study_dir}: no {DB_NAME} here; create the study first with "
            f"'humaneval serve init DESIGN {study_dir}'"
        )
    if not is_database(path):
        raise DesignError(f"{path}: not an SQLite database; restore the study from its backup")
    connection = connect(path)
    try:
        row = connection.execute("SELECT key, design_id, config_json FROM study").fetchone()
        slots = connection.execute("SELECT COUNT(*), COUNT(DISTINCT block) FROM slot").fetchone()
    finally:
        connection.close()
    config = json.loads(row["config_json"])
    return Study(
        study_dir=study_dir,
        key=row["key"],
        design_id=row["design_id"],
        slots=slots[0],
        blocks=slots[1],
        slot_timeout_s=config["slot_timeout_s"],
        completion_code=config["completion_code"],
        prolific_study_id=config.get("prolific_study_id"),
    )


def set_study_id(study_dir: str | Path, prolific_study_id: str) -> Study:
    """Record the Prolific STUDY_ID of an existing study (the server admits only links with it).

    Prolific gives the ID once the study's draft exists, which needs the study URL first, so
    this is usually the step after ``serve init``. Restart a running server to apply it.
    """
    study = open_study(study_dir)
    _check_study_id(prolific_study_id)
    connection = connect(study.db_path)
    try:
        connection.execute("BEGIN IMMEDIATE")
        config = json.loads(connection.execute("SELECT config_json FROM study").fetchone()[0])
        config["prolific_study_id"] = prolific_study_id
        connection.execute(
            "UPDATE study SET config_json = ?", (json.dumps(config, ensure_ascii=False, sort_keys=True),)
        )
        connection.execute("COMMIT")
    finally:
        connection.close()
    return open_study(study_dir)


def _check_study_id(study_id: str | None) -> None:
    if study_id is not None and not _PARAM.fullmatch(study_id):
        raise DesignError(
            f"Prolific STUDY_ID {study_id!r} must be 1-128 characters of A-Z a-z 0-9 _ . : - "
            "(copy it from the study's page on Prolific)"
        )


def _write_secret(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
