"""Parsing an MTurk batch results CSV into the long ratings table (docs/forms.md).

Each ``Answer.<field>`` is mapped through the design (field names of docs/forms.md, shared with the
form builder via :func:`humaneval.forms.screens.design_frame`) back to its (slot, screen,
document, system) cell; positions come from ``Answer.order``, times from ``Answer.tm_*``.
Rejected assignments are dropped (configurable), missing/unknown fields and out-of-range values
are reported per assignment and never guessed, attention checks are scored per worker (docs/forms.md,
"Quality control"), and a worker found in two slots keeps only the earliest submission (the others are flagged
``duplicate_worker`` and listed for re-posting). Worker ids are pseudonymised with HMAC-SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from humaneval.core.ratings import Ratings, validate_ratings
from humaneval.core.responses import RANK, SCORE, lower_is_better
from humaneval.core.scales import Scale
from humaneval.design.criteria import criteria_of, declares_criteria, expand_criteria, scales_of
from humaneval.design.load import DesignLike
from humaneval.errors import OptionError, RatingsError
from humaneval.forms.screens import Order, design_frame, design_order, index_maps
from humaneval.io.tables import file_kind
from humaneval.methods import get_method
from humaneval.methods.base import Method
from humaneval.methods.bws import CHOICES
from humaneval.methods.pairwise import SIDES, WON

KEEP_STATUSES = ("Submitted", "Approved")
IDENTITY_FIELDS = {"order", "slot", "design_id", "form_version", "assignmentId"}
GOLD_LOW_MAX, GOLD_HIGH_MIN = 30.0, 70.0
COLLISION_COLUMNS = ["annotator_slot", "block", "hit_id", "assignments", "assignment_ids"]
#: Problem kinds that are reported but do not take an assignment out of the ratings.
INFORMATIONAL = {"unknown_field", "duplicate_row", "bad_work_time"}
#: MTurk's longest assignment duration (one year): a WorkTimeInSeconds beyond it, or below 0, is corrupt.
MAX_WORK_SECONDS = 31_536_000


@dataclass(frozen=True)
class MTurkResults:
    """What :func:`parse_mturk_results` found.

    ``table``: the long export table of every kept assignment, checks
    included. ``ratings``: the analysable :class:`~humaneval.core.ratings.Ratings` (no checks,
    warm-ups, repeated anchor judgements, duplicate workers or assignments with value problems;
    one row per summary and judgement for BWS (``tuple_id``; best = +1, worst = −1, else 0) and
    pairwise comparisons (``opponent``; win = 1, tie = 0.5, loss = 0)). ``workers``:
    one row per assignment with ``WorkTimeInSeconds`` and attention-check results.
    ``problems``: one row per missing/unknown field or bad value. ``repost``: blocks that need
    an extra assignment because a duplicate worker was excluded. ``workers_seen``: raw
    ``WorkerId``\\ s to grant the study's exclusion qualification (personal data: keep private).
    ``collisions``: annotator slots that two or more kept assignments filled (a block HIT's page
    picks the slot by hashing the assignment id, so two workers can get the same order and
    checks): one row per slot with ``block``, ``hit_id``, ``assignments`` and
    ``assignment_ids``; the answers are kept, but the planned position balance is broken.
    ``duplicate_rows``: copies of an already-seen ``AssignmentId`` (e.g. from concatenated
    downloads) that were dropped before parsing.
    """

    table: pd.DataFrame
    ratings: Ratings | None
    workers: pd.DataFrame
    problems: pd.DataFrame
    repost: pd.DataFrame
    workers_seen: tuple[str, ...]
    excluded_assignments: int
    collisions: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=COLLISION_COLUMNS))
    duplicate_rows: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "collisions": self.collisions.to_dict(orient="records"),
            "duplicate_rows": self.duplicate_rows,
            "judgements": len(self.table),
            "ratings": 0 if self.ratings is None else len(self.ratings),
            "assignments": len(self.workers),
            "excluded_assignments": self.excluded_assignments,
            "workers": self.workers.to_dict(orient="records"),
            "problems": self.problems.to_dict(orient="records"),
            "repost": self.repost.to_dict(orient="records"),
        }


def pseudonym(worker_id: str, salt: str) -> str:
    """``w_`` + the first 12 hex digits of HMAC-SHA-256(salt, worker id).

    Examples
    --------
    >>> pseudonym("A1B2C3", "secret"), pseudonym("A1B2C3", "other salt") != pseudonym("A1B2C3", "secret")
    ('w_496a279afe11', True)
    """
    digest = hmac.new(salt.encode("utf-8"), worker_id.encode("utf-8"), hashlib.sha256).hexdigest()
    return "w_" + digest[:12]


def results_row(
    fields: Mapping[str, Any],
    *,
    assignment_id: str,
    worker_id: str,
    hit_id: str = "HIT",
    status: str = "Submitted",
    submit_time: str = "",
    work_time: float | str = 0,
    inputs: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """One row of a batch results CSV from submitted form fields (for pilots and tests).

    ``fields`` are the names/values the form posts (``assignmentId`` is dropped, as MTurk does);
    ``inputs`` are the batch variables (``Input.*``).
    """
    row = {
        "HITId": hit_id,
        "AssignmentId": assignment_id,
        "WorkerId": worker_id,
        "AssignmentStatus": status,
        "SubmitTime": submit_time,
        "WorkTimeInSeconds": str(work_time),
    }
    row.update({f"Input.{k}": str(v) for k, v in (inputs or {}).items()})
    row.update({f"Answer.{k}": str(v) for k, v in fields.items() if k != "assignmentId"})
    return row


def answers_from_xml(xml: str) -> dict[str, str]:
    """The field map of an API-route ``Answer`` (QuestionFormAnswers XML of ListAssignmentsForHIT)."""
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise RatingsError(f"assignment Answer is not well-formed XML ({exc})") from None
    out = {}
    for answer in root.iter():
        if answer.tag.rsplit("}", 1)[-1] != "Answer":
            continue
        parts = {child.tag.rsplit("}", 1)[-1]: child.text or "" for child in answer}
        out[parts.get("QuestionIdentifier", "")] = parts.get("FreeText", "")
    return out


def assignment_row(assignment: Mapping[str, Any]) -> dict[str, str]:
    """A results-CSV row from one assignment dict of the API (``ListAssignmentsForHIT``)."""
    submit, accept = assignment.get("SubmitTime", ""), assignment.get("AcceptTime", "")
    work = (submit - accept).total_seconds() if hasattr(submit, "timestamp") and accept else ""
    row = results_row(
        answers_from_xml(assignment["Answer"]),
        assignment_id=assignment["AssignmentId"],
        worker_id=assignment["WorkerId"],
        hit_id=assignment.get("HITId", ""),
        status=assignment.get("AssignmentStatus", ""),
        submit_time=str(submit),
        work_time=work,
    )
    return row


def parse_mturk_results(
    results: str | Path | pd.DataFrame,
    design: DesignLike,
    *,
    statuses: Sequence[str] = KEEP_STATUSES,
    points: int | None = None,
    allow_ties: bool | None = None,
    salt: str | None = None,
    keep_worker_ids: bool = False,
) -> MTurkResults:
    """Parse a batch results CSV (or its DataFrame) against ``design``.

    API-route assignments become rows of such a frame with :func:`assignment_row`.

    ``design`` is a ``Design``, its table or a ``design.csv`` path. ``points`` is the Likert
    scale (default: the design's ``scale_points``, else 7). ``allow_ties`` (ranking) defaults to
    whether the results carry raw tied choices (``Answer.rkraw_*``). ``salt`` keys the worker
    pseudonyms; it defaults to the design id, which only hides ids from casual readers — pass
    a secret salt for real pseudonymity.

    Parameters
    ----------
    results : str, Path or DataFrame
        The batch results CSV as MTurk exports it.
    design : Design, DataFrame, str or Path
        The design the forms were written from.
    statuses : sequence of str
        Assignment statuses kept (default submitted and approved).
    points : int, optional
        The Likert scale points.
    allow_ties : bool, optional
        Ranking: accept tied ranks.
    salt : str, optional
        Key of the worker pseudonyms.
    keep_worker_ids : bool
        Keep MTurk worker ids instead of pseudonyms.

    Returns
    -------
    MTurkResults
        ``ratings`` (the validated ratings table, attention checks marked), ``table`` (every
        answer), ``workers`` (per assignment: checks failed, work time, duplicate workers),
        ``problems`` (line, field and what is wrong) and ``repost`` (slots to post again).

    Raises
    ------
    RatingsError
        An unreadable file, missing MTurk columns, or rows of another design.

    Examples
    --------
    Simulated annotators answer a 10-document design; one careless annotator fails the check:

    >>> from humaneval.demo import simulate_annotators
    >>> from humaneval.design import DesignSpec, generate_design
    >>> from humaneval.clmm.model import default_model
    >>> model = default_model()
    >>> design = generate_design(DesignSpec(documents=10, systems=list(model.system_names), seed=1,
    ...                                     checks_per_annotator=1, platform="mturk"))
    >>> batch, careless = simulate_annotators(design, model, seed=1, careless=1)
    >>> parsed = parse_mturk_results(batch, design)
    >>> careless, parsed.workers.set_index("annotator_slot")["checks_failed"].to_dict()
    (('b001-a1',), {'b000-a1': 0, 'b000-a2': 0, 'b000-a3': 0, 'b001-a1': 1, 'b001-a2': 0, 'b001-a3': 0})
    >>> len(parsed.ratings.data), parsed.ratings.scale, parsed.problems.empty
    (156, (1, 7), True)
    """
    frame = design_frame(design)
    design_id = frame["design_id"].iloc[0]
    method = get_method(frame["method"].iloc[0])
    spec = getattr(design, "spec", None) or {}
    points = points or int(spec.get("scale_points", 7))
    scales: tuple[Scale, ...] = ()
    points_of: dict[str, int] = {}
    if method.criteria and declares_criteria(design):
        criteria = criteria_of(design)
        frame = expand_criteria(frame, criteria)
        points_of = {c.name: c.points for c in criteria}
        scales = scales_of(criteria)
    elif method.criteria and spec:
        scales = (Scale(str(frame["dimension"].iloc[0]), 1, points, points),)
    raw, label = _read_results(results)
    _check_design_id(raw, design_id, label)
    raw, copies = _drop_duplicate_rows(raw, statuses)
    if allow_ties is None:
        allow_ties = any(c.startswith("Answer.rkraw_") for c in raw.columns)
    keep = raw["AssignmentStatus"].isin(list(statuses))
    kept = raw[keep]
    parser = _Parser(frame, method, points, allow_ties, points_of, order=design_order(design))
    parser.problems += copies
    columns = list(kept.columns)
    for line, values in zip(kept.index, kept.to_numpy(dtype=object).tolist(), strict=True):
        parser.assignment(dict(zip(columns, values, strict=True)), line)
    table = pd.DataFrame(parser.rows)
    workers = pd.DataFrame(parser.workers)
    problems = pd.DataFrame(
        parser.problems, columns=["line", "assignment_id", "slot", "kind", "field", "detail"]
    )
    salt = salt if salt is not None else design_id
    seen: tuple[str, ...] = ()
    if not workers.empty:
        workers = _mark_duplicates(workers)
        names = {w: (w if keep_worker_ids else pseudonym(w, salt)) for w in workers["worker_id"]}
        workers["annotator"] = workers["worker_id"].map(names)
        seen = tuple(sorted(names))
    if not table.empty:
        duplicate = dict(zip(workers["assignment_id"], workers["duplicate_worker"], strict=True))
        table["annotator"] = table["worker_id"].map(names)
        table["duplicate_worker"] = table["assignment_id"].map(duplicate)
        table = _score_checks(table).drop(columns="worker_id")
    if not workers.empty:
        workers = _check_summary(workers, table).drop(columns="worker_id")
    repost = _repost(workers)
    bad = set(problems.loc[~problems["kind"].isin(INFORMATIONAL), "assignment_id"])
    ratings = _ratings(table, method, points, allow_ties, bad, scales) if not table.empty else None
    return MTurkResults(
        table=table,
        ratings=ratings,
        workers=workers,
        problems=problems,
        repost=repost,
        workers_seen=seen,
        excluded_assignments=int((~keep).sum()),
        collisions=_collisions(workers),
        duplicate_rows=sum(1 for p in copies if p[3] == "duplicate_row"),
    )


def _read_results(results: str | Path | pd.DataFrame) -> tuple[pd.DataFrame, str]:
    if isinstance(results, pd.DataFrame):
        raw, label = results.fillna("").astype(str), "results"
    else:
        label = str(results)
        kind = file_kind(results)
        if kind:
            raise RatingsError(f"{label}: {kind}")
        try:
            raw = pd.read_csv(results, dtype=str, keep_default_na=False, encoding="utf-8-sig")
        except FileNotFoundError:
            raise RatingsError(f"{label}: no such file; check the path") from None
        except pd.errors.EmptyDataError:
            raise RatingsError(
                f"{label}: the file is empty; download the batch results CSV from MTurk again"
            ) from None
        except (UnicodeDecodeError, pd.errors.ParserError) as exc:
            raise RatingsError(
                f"{label}: not a readable UTF-8 CSV ({' '.join(str(exc).split())}); "
                "download the batch results again"
            ) from None
    raw.index = pd.RangeIndex(2, len(raw) + 2)
    missing = [c for c in ("AssignmentId", "WorkerId", "AssignmentStatus") if c not in raw]
    if missing:
        raise RatingsError(
            f"{label}: missing column(s) {', '.join(missing)}; is this an MTurk batch results CSV?"
        )
    return raw, label


def _drop_duplicate_rows(raw: pd.DataFrame, statuses: Sequence[str]) -> tuple[pd.DataFrame, list[tuple]]:
    """One row per ``AssignmentId``: a batch file concatenated from two downloads repeats rows.

    Copies with the same answers are one assignment: the copy whose status is kept (the last
    such row, e.g. ``Approved`` after ``Submitted``) stays and the others are reported as
    ``duplicate_row``. Copies whose answers differ cannot be told apart: the assignment is
    reported as ``conflicting_rows`` and left out of the ratings (its worker still has to be paid).
    """
    repeated = raw["AssignmentId"].duplicated(keep=False) & (raw["AssignmentId"] != "")
    if not repeated.any():
        return raw, []
    answers = [c for c in raw.columns if c.startswith("Answer.")]
    drop, problems = [], []
    for assignment, group in raw[repeated].groupby("AssignmentId", sort=False):
        kept = group[group["AssignmentStatus"].isin(list(statuses))]
        stay = (kept if len(kept) else group).index[-1]
        same = len(group[answers].drop_duplicates()) == 1
        for line in group.index.drop(stay):
            drop.append(line)
            if same:
                detail = f"same answers as line {stay}; counted once"
                problems.append((line, assignment, "", "duplicate_row", "AssignmentId", detail))
        if not same:
            detail = f"lines {', '.join(map(str, group.index))} repeat this assignment with different answers"
            problems.append((stay, assignment, "", "conflicting_rows", "AssignmentId", detail))
    return raw.drop(index=drop), problems


def _collisions(workers: pd.DataFrame) -> pd.DataFrame:
    """Slots filled by more than one kept, non-duplicate-worker assignment."""
    if workers.empty:
        return pd.DataFrame(columns=COLLISION_COLUMNS)
    known = workers[workers["block"].notna() & ~workers["duplicate_worker"].astype(bool)]
    grouped = known.groupby("annotator_slot", sort=True)
    rows = [
        {
            "annotator_slot": slot,
            "block": int(group["block"].iloc[0]),
            "hit_id": ",".join(dict.fromkeys(group["hit_id"])),
            "assignments": len(group),
            "assignment_ids": ",".join(group["assignment_id"]),
        }
        for slot, group in grouped
        if len(group) > 1
    ]
    return pd.DataFrame(rows, columns=COLLISION_COLUMNS)


def _check_design_id(raw: pd.DataFrame, design_id: str, label: str) -> None:
    """docs/forms.md rule 1: refuse rows of another design."""
    for column in ("Input.design_id", "Answer.design_id", "RequesterAnnotation"):
        if column not in raw:
            continue
        values = raw[column]
        if column == "RequesterAnnotation":
            # ours is "design_id:block"; the requester website writes its own "BatchId:...;..." there
            ours = values.str.fullmatch(r"[0-9a-f]{16}:\d+")
            values = values.str.partition(":")[0].where(ours, "")
        foreign = raw.index[(values != "") & (values != design_id)]
        if len(foreign):
            line = foreign[0]
            raise RatingsError(
                f"{label}: line {line}: {column} is {raw.at[line, column]!r} but the design is {design_id}; "
                "these results belong to another design — pass the matching design file"
            )


@dataclass(frozen=True)
class _Screen:
    """One screen of a slot as the parser needs it, read from the design once (not per assignment: a
    batch may hold hundreds of assignments of one slot)."""

    id: str
    rows: pd.DataFrame
    records: list[dict[str, Any]]
    position: int
    fields: list[str]
    checks: np.ndarray
    dimensions: list[Any]

    @classmethod
    def of(cls, screen_id: str, rows: pd.DataFrame) -> _Screen:
        checks = rows["is_check"].to_numpy() & (rows["system"] == "").to_numpy()
        return cls(screen_id, rows, rows.to_dict(orient="records"), int(rows["position"].iloc[0]),
                   list(rows["field"]), checks, list(rows.get("dimension", [None] * len(rows))))  # fmt: skip


class _Parser:
    """Turns one assignment's answer fields into long-table rows, collecting problems."""

    def __init__(
        self,
        frame: pd.DataFrame,
        method: Method,
        points: int,
        allow_ties: bool,
        points_of: dict[str, int] | None = None,
        order: Order | None = None,
    ):
        self.method, self.points, self.allow_ties = method, points, allow_ties
        self.points_of = points_of or {}
        self.slots = {slot: rows for slot, rows in frame.groupby("annotator_slot", sort=False)}
        self.screens = {
            slot: [_Screen.of(str(k), screen) for k, screen in rows.groupby("screen_id", sort=False)]
            for slot, rows in self.slots.items()
        }
        self.docs, self.systems = index_maps(frame, order)
        self.rows: list[dict[str, Any]] = []
        self.workers: list[dict[str, Any]] = []
        self.problems: list[tuple] = []

    def problem(self, kind: str, field: str, detail: str) -> None:
        self.problems.append((self.line, self.assignment_id, self.slot, kind, field, detail))

    def assignment(self, row: dict[str, str], line: int) -> None:
        self.line, self.assignment_id = line, row["AssignmentId"]
        answers = {k[7:]: v for k, v in row.items() if k.startswith("Answer.") and v != ""}
        self.slot = answers.get("slot", "")
        self.workers.append(
            {
                "worker_id": row["WorkerId"],
                "assignment_id": self.assignment_id,
                "hit_id": row.get("HITId", ""),
                "annotator_slot": self.slot,
                "block": None,
                "status": row["AssignmentStatus"],
                "submit_time": row.get("SubmitTime", ""),
                "work_time_seconds": self.work_time(row.get("WorkTimeInSeconds", "")),
                "line": line,
            }
        )
        if self.slot not in self.slots:
            self.problem("unknown_slot", "slot", f"slot {self.slot!r} is not in the design")
            return
        rows = self.slots[self.slot]
        self.workers[-1]["block"] = int(rows["block"].iloc[0])
        shown = answers.get("order", "").split(",") if answers.get("order") else []
        if not shown:
            self.problem("missing_field", "order", "no Answer.order (the order the screens were shown in)")
        used = set(IDENTITY_FIELDS)
        for screen in self.screens[self.slot]:
            screen_id = screen.id
            position = shown.index(screen_id) if screen_id in shown else screen.position
            timing = self.timing(answers, screen_id)
            used |= {f"tm_{screen_id}", f"cm_{screen_id}"}
            values, fields = self.screen_values(screen, answers)
            used |= fields
            for record, (value, raw_value) in zip(screen.records, values, strict=True):
                self.rows.append(
                    {
                        **record,
                        "platform": "mturk",
                        "worker_id": row["WorkerId"],
                        "assignment_id": self.assignment_id,
                        "hit_id": row.get("HITId", ""),
                        "planned_position": record["position"],
                        "position": position,
                        "value": value,
                        "raw_value": raw_value,
                        **timing,
                        "comment": answers.get(f"cm_{screen_id}", ""),
                        "submitted_at": row.get("SubmitTime", ""),
                    }
                )
        for name in sorted(set(answers) - used):
            self.problem("unknown_field", name, "not a field of this slot's screens")

    def work_time(self, text: str) -> float:
        """WorkTimeInSeconds, NaN (and a problem) when it is not a duration MTurk can report."""
        value = pd.to_numeric(text, errors="coerce")
        if text != "" and not 0 <= value <= MAX_WORK_SECONDS:
            detail = f"{text!r} is not a duration from 0 to {MAX_WORK_SECONDS} s; shown as unknown"
            self.problem("bad_work_time", "WorkTimeInSeconds", detail)
            return np.nan
        return value

    def timing(self, answers: dict[str, str], screen_id: str) -> dict[str, float]:
        text = answers.get(f"tm_{screen_id}")
        if text is None:
            self.problem("missing_field", f"tm_{screen_id}", "no time on screen")
            return {"seconds": np.nan, "visible_seconds": np.nan, "hidden_count": np.nan}
        parts = text.split(",")
        numbers = [_number(p) for p in parts]
        if len(parts) != 3 or not all(n >= 0 for n in numbers):  # NaN (unreadable) fails too
            self.problem(
                "bad_value", f"tm_{screen_id}", f"{text!r} is not 'seconds,visible_seconds,hidden_count'"
            )
            return {"seconds": np.nan, "visible_seconds": np.nan, "hidden_count": np.nan}
        return dict(zip(("seconds", "visible_seconds", "hidden_count"), numbers, strict=True))

    def get(self, answers: dict[str, str], name: str) -> str | None:
        if name not in answers:
            self.problem("missing_field", name, "no answer")
            return None
        return answers[name]

    def number(self, answers: dict[str, str], name: str, points: int) -> float:
        """The answer ``name`` read by the method's parser (``points``: the scale, or a screen's entries)."""
        text = self.get(answers, name)
        if text is None:
            return np.nan
        value = self.method.parse_value(text, points)
        if value is None:
            low, high = self.method.value_range(points) or (1, points)
            kind = "whole number" if self.method.integer else "number"
            self.problem("bad_value", name, f"{text!r} is not a {kind} in {low:g}..{high:g}")
            return np.nan
        return value

    def answer(self, answers: dict[str, str], name: str, points: int) -> tuple[float, str]:
        """(value, raw_value) of the answer ``name`` read by the method (spans: the score or the number
        of spans, and the spans' JSON)."""
        text = self.get(answers, name)
        if text is None:
            return np.nan, ""
        value, raw = self.method.read_answer(text, points)
        if value is None:
            if self.method.marks_spans:
                self.problem("bad_value", name, "is not the JSON of marked spans (docs/spans.md)")
                return np.nan, ""
            return self.number(answers, name, points), ""
        return value, raw

    def screen_values(self, screen: _Screen, answers: dict[str, str]) -> tuple[list[tuple], set[str]]:
        """(value, raw_value) per design row of one screen, and the answer fields it used."""
        fields, checks = screen.fields, screen.checks
        method = self.method
        if method.rates_items:
            out = []
            for name, criterion in zip(fields, screen.dimensions, strict=True):
                out.append(self.answer(answers, name, self.points_of.get(criterion, self.points)))
            return out, set(fields)
        if method.unit == "document":
            n_real = int((~checks).sum())
            out, used = [], set()
            for name, is_check in zip(fields, checks, strict=True):
                high = len(fields) if is_check else n_real
                out.append((self.number(answers, name, high), ""))
                used.add(name)
                if self.allow_ties and not is_check:
                    if method.field_prefix is None or method.raw_field_prefix is None:
                        raise OptionError(f"allow_ties: the {method.name} method has no tied answers to read")
                    raw_name = name.replace(method.field_prefix, method.raw_field_prefix, 1)
                    out[-1] = (out[-1][0], answers.get(raw_name, ""))
                    used.add(raw_name)
            return out, used
        if method.unit == "tuple":
            return self.bws_values(screen.rows, answers, checks)
        return self.pair_values(screen.rows, answers, checks)

    def bws_values(
        self, screen: pd.DataFrame, answers: dict[str, str], checks: np.ndarray
    ) -> tuple[list, set]:
        rows = list(screen.itertuples(index=False))
        if checks.any():
            name = rows[int(np.flatnonzero(checks)[0])].field
            choice = self.get(answers, name)
            if choice is not None and choice not in CHOICES:
                self.problem("bad_value", name, f"{choice!r} is not best, worst or none")
                choice = None
            return [(choice if c else np.nan, "") for c in checks], {name}
        from humaneval.forms.screens import entry_code

        field = rows[0].field
        mixed = len({r.document for r in rows}) > 1
        codes = [entry_code(r, self.systems, self.docs, mixed) for r in rows]
        best, worst = self.get(answers, field + "_best"), self.get(answers, field + "_worst")
        for name, value in ((field + "_best", best), (field + "_worst", worst)):
            if value is not None and value not in codes:
                self.problem("bad_value", name, f"{value!r} is not one of the tuple's entries {codes}")
        if best is None or worst is None or best not in codes or worst not in codes or best == worst:
            if best is not None and best == worst:
                self.problem("bad_value", field, "best and worst are the same entry")
            return [(np.nan, "")] * len(rows), {field + "_best", field + "_worst"}
        out = [(1.0, "best") if c == best else (-1.0, "worst") if c == worst else (0.0, "") for c in codes]
        return out, {field + "_best", field + "_worst"}

    def pair_values(
        self, screen: pd.DataFrame, answers: dict[str, str], checks: np.ndarray
    ) -> tuple[list, set]:
        name = screen["field"].iloc[0]
        side = self.get(answers, name)
        if side is not None and side not in SIDES:
            self.problem("bad_value", name, f"{side!r} is not A, B or tie")
            side = None
        if checks.any():
            return [(side if c else np.nan, "") for c in checks], {name}
        if side is None:
            return [(np.nan, "")] * len(screen), {name}
        won = WON[side]
        return [(won[p], side) for p in screen["display_pos"]], {name}


def _number(text: str) -> float:
    """A decimal number as ``pd.to_numeric`` reads it, NaN when it is not one."""
    text = text.strip()
    if not text.isascii() or "_" in text:
        return np.nan
    try:
        return float(text)
    except ValueError:
        return np.nan


def _mark_duplicates(workers: pd.DataFrame) -> pd.DataFrame:
    """docs/forms.md rule 5: a worker in several slots keeps the earliest submission only."""
    order = workers.assign(
        _t=pd.to_datetime(workers["submit_time"], errors="coerce", utc=True, format="mixed")
    )
    order = order.sort_values(["_t", "line"], kind="stable", na_position="last")
    first = ~order.duplicated("worker_id", keep="first")
    workers = workers.copy()
    workers["duplicate_worker"] = ~first.reindex(workers.index)
    return workers


def _score_checks(table: pd.DataFrame) -> pd.DataFrame:
    """docs/forms.md: IMC passed when the instructed answer was given; gold by the low/high thresholds."""
    passed: list[Any] = [pd.NA] * len(table)
    checks = (table["is_check"] & (table["system"] == "")).to_numpy(dtype=bool)
    rows = table.loc[checks, ["value", "check_expected", "check_kind", "method", "raw_value"]]
    found_rows = zip(np.flatnonzero(checks), *map(rows.get, rows), strict=True)
    for k, value, expected, kind, method, raw in found_rows:
        expected = str(expected).strip()
        if value is None or (isinstance(value, float) and np.isnan(value)):
            passed[k] = False
        elif kind == "gold":
            passed[k] = bool(value <= GOLD_LOW_MAX if expected == "low" else value >= GOLD_HIGH_MIN)
        else:  # a span answer is its marked spans (the raw value), not their count
            found = get_method(method)
            passed[k] = bool(found.check_passed(raw if found.marks_spans else value, expected))
    table = table.copy()
    table["check_passed"] = pd.array(passed, dtype="boolean")
    return table


def check_counts(table: pd.DataFrame, assignments: pd.Index) -> pd.DataFrame:
    """docs/forms.md per assignment (index ``assignments``): ``checks_total``, ``checks_failed``,
    ``check_pass_rate`` and ``imc_failed`` over the scored check rows (``check_passed`` set) of ``table``."""
    if table.empty:
        table = pd.DataFrame({"assignment_id": [], "check_kind": [], "check_passed": []})
    checks = table[table["check_passed"].notna()]
    grouped = checks.groupby("assignment_id")["check_passed"]
    imc = checks[checks["check_kind"] == "imc"].groupby("assignment_id")["check_passed"]
    out = pd.DataFrame(index=assignments)
    out["checks_total"] = grouped.size().reindex(assignments).fillna(0).astype(int)
    out["checks_failed"] = (grouped.size() - grouped.sum()).reindex(assignments).fillna(0).astype(int)
    out["check_pass_rate"] = 1 - out["checks_failed"] / out["checks_total"].where(out["checks_total"] > 0)
    out["imc_failed"] = (imc.size() - imc.sum()).reindex(assignments).fillna(0).astype(int)
    return out


def _check_summary(workers: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    out = workers.set_index("assignment_id")
    out = out.join(check_counts(table, out.index))
    columns = [
        "annotator",
        "worker_id",
        "annotator_slot",
        "block",
        "hit_id",
        "status",
        "submit_time",
        "work_time_seconds",
        "checks_total",
        "checks_failed",
        "check_pass_rate",
        "imc_failed",
        "duplicate_worker",
    ]
    return out.reset_index()[["assignment_id", *columns]]


def _repost(workers: pd.DataFrame) -> pd.DataFrame:
    columns = ["block", "hit_id", "annotator_slot", "extra_assignments"]
    if workers.empty or not workers["duplicate_worker"].any():
        return pd.DataFrame(columns=columns)
    dup = workers[workers["duplicate_worker"]]
    return (
        dup.groupby(["block", "hit_id", "annotator_slot"], dropna=False)
        .size()
        .rename("extra_assignments")
        .reset_index()[columns]
    )


def _ratings(
    table: pd.DataFrame,
    method: Method,
    points: int,
    allow_ties: bool,
    bad: set[str],
    scales: tuple[Scale, ...] = (),
) -> Ratings | None:
    """The analysable :class:`Ratings` of clean, non-duplicate assignments.

    Likert, slider, pairwise and best–worst tables also carry their stand-alone attention checks as
    ``is_check`` rows
    (``document`` = the check field, ``system`` = ``check``, with ``check_kind``,
    ``check_expected`` and ``check_passed``) so :func:`humaneval.qc.qc_report` can score them;
    analyses drop them with :meth:`~humaneval.core.ratings.Ratings.without_checks`.
    """
    clean = ~table["duplicate_worker"].astype(bool) & ~table["assignment_id"].isin(bad)
    use = table[clean & ~table["is_check"] & ~table["is_anchor_repeat"] & ~table["is_warmup"]]
    if use.empty:
        return None

    def base(rows: pd.DataFrame, **columns: Any) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "annotator": rows["annotator"],
                "document": rows["document"],
                "system": rows["system"],
                "criterion": rows["dimension"],
                "position": rows["position"],
                "seconds": rows["seconds"],
                "annotator_slot": rows["annotator_slot"],
                "block": rows["block"],
                **columns,
            }
        )

    if lower_is_better(method.response):
        frame = base(use, rank=use["value"].astype("int64"))
        return validate_ratings(frame, response=RANK, allow_ties=allow_ties, source="MTurk results")
    checks = table[clean & table["is_check"] & (table["system"] == "") & table["value"].notna()]

    def with_checks(frame: pd.DataFrame, score: Any) -> pd.DataFrame:
        if not len(checks):
            return frame
        rows = base(checks, score=score, is_check=True).assign(
            document=checks["field"],
            system="check",
            check_kind=checks["check_kind"],
            check_expected=checks["check_expected"],
            check_passed=checks["check_passed"],
        )
        return pd.concat([frame.assign(is_check=False), rows], ignore_index=True)

    if method.is_comparative:
        # one row per summary and judgement, beside its tuple (bws) or its opponent (pairwise); a
        # check's answer is a choice, not a score, so its row carries only the outcome (score 0)
        beside = "tuple_id" if method.screen_key == "tuple_id" else "opponent"
        values = use["value"].astype("int64" if method.integer else float)
        frame = with_checks(base(use, **{beside: use[beside]}, score=values), 0)
        return validate_ratings(frame, response=SCORE, scale=method.value_range(), source="MTurk results")
    frame = with_checks(base(use, score=use["value"].astype(float)), checks["value"].astype(float))
    scale: Any = scales or method.value_range(points)
    return validate_ratings(
        frame, response=SCORE, scale=scale, continuous=not method.integer, source="MTurk results"
    )
