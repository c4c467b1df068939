"""MTurk packaging: HTMLQuestion XML per HIT, the batch template and input CSV, a preview page.

How HITs map to the design: ``hit_per="slot"`` (the default of
:func:`~humaneval.forms.write_forms` on MTurk) makes one HIT per annotator slot with
``MaxAssignments`` = 1, MTurk's own convention: every worker gets exactly the planned order and
checks. ``hit_per="block"`` makes one HIT per block with ``MaxAssignments`` = annotators per
block, and the page picks the slot by hashing the assignment id; nothing can stop two
assignments of a HIT hashing to the same slot (with a annotators per block the chance that some
two collide is 1 − a!/aᵃ: 50 % for 2, 78 % for 3), which breaks position balance.
``humaneval collect mturk`` reports every such collision. This module only writes files;
:mod:`humaneval.platforms.mturk` (``humaneval mturk create``) uploads them.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from humaneval.errors import DesignError
from humaneval.forms.presets import Preset
from humaneval.forms.render import base64url_payload, render_form
from humaneval.present.templates import environment

HTML_QUESTION_NS = (
    "http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2011-11-11/HTMLQuestion.xsd"
)
MAX_QUESTION_BYTES = 65_535
SUBMIT_ORIGINS = {"live": "https://www.mturk.com", "sandbox": "https://workersandbox.mturk.com"}

#: docs/forms.md: the SummEval worker filters (≥ 10,000 approved HITs, ≥ 97 % approval, US/GB/AU).
QUALIFICATIONS: list[dict[str, Any]] = [
    {
        "QualificationTypeId": "00000000000000000040",
        "Comparator": "GreaterThanOrEqualTo",
        "IntegerValues": [10000],
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    },
    {
        "QualificationTypeId": "000000000000000000L0",
        "Comparator": "GreaterThanOrEqualTo",
        "IntegerValues": [97],
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    },
    {
        "QualificationTypeId": "00000000000000000071",
        "Comparator": "In",
        "LocaleValues": [{"Country": "US"}, {"Country": "GB"}, {"Country": "AU"}],
        "ActionsGuarded": "DiscoverPreviewAndAccept",
    },
]


@dataclass(frozen=True)
class MTurkPackage:
    """What :func:`write_mturk_package` wrote: the folder, one entry per HIT, the file list and
    ``warnings`` (e.g. a design costed for another platform)."""

    out_dir: Path
    hits: pd.DataFrame
    files: tuple[Path, ...]
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "warnings": list(self.warnings),
            "out_dir": str(self.out_dir),
            "hits": self.hits.to_dict(orient="records"),
            "files": [str(f) for f in self.files],
        }


def submit_config(live: bool, extra_origins: tuple[str, ...] = ()) -> dict[str, Any]:
    """Which ``turkSubmitTo`` origins the page accepts, and the fallback (sandbox unless ``live``)."""
    return {
        "default_origin": SUBMIT_ORIGINS["live" if live else "sandbox"],
        "allowed_origins": [*SUBMIT_ORIGINS.values(), *extra_origins],
    }


def cdata(html: str) -> str:
    """Wrap ``html`` in CDATA, splitting every ``]]>`` as ``]]]]><![CDATA[>``."""
    return "<![CDATA[" + html.replace("]]>", "]]]]><![CDATA[>") + "]]>"


def html_question(html: str, frame_height: int = 0) -> str:
    """The ``HTMLQuestion`` XML of one HIT; refuses more than 65,535 UTF-8 bytes."""
    xml = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<HTMLQuestion xmlns="{HTML_QUESTION_NS}">\n'
        f"  <HTMLContent>{cdata(html)}</HTMLContent>\n  <FrameHeight>{int(frame_height)}</FrameHeight>\n"
        "</HTMLQuestion>\n"
    )
    size = len(xml.encode("utf-8"))
    if size > MAX_QUESTION_BYTES:
        raise DesignError(
            f"the HTMLQuestion XML is {size:,} bytes, above MTurk's limit of {MAX_QUESTION_BYTES:,}; use "
            "smaller blocks (fewer documents per block) or the batch route (--route batch)"
        )
    return xml


def write_mturk_package(
    payloads: dict[str, dict[str, Any]],
    preset: Preset,
    out_dir: str | Path,
    *,
    hit_per: str | None = None,
    route: str = "both",
    frame_height: int = 0,
    reward: str | None = None,
    estimated_minutes: float | None = None,
    live: bool = False,
) -> MTurkPackage:
    """Write the API route (``hits/<id>/question.xml`` + ``hit_params.json``), the batch route
    (``template.html`` + ``batch_input.csv``), ``preview/<id>.html`` and ``README.md``
    (``route="none"``: the preview pages only, for standalone pilots). ``hit_per`` (for the
    README) defaults to what the payloads are: ``"slot"`` when each holds one slot."""
    if route not in ("api", "batch", "both", "none"):
        raise DesignError(f"route must be 'api', 'batch' or 'both', not {route!r}")
    if hit_per is None:
        hit_per = "slot" if all(len(p["slots"]) == 1 for p in payloads.values()) else "block"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    title = preset.title or f"Judge the {preset.dimension} of summaries"
    files: list[Path] = []
    rows = []
    duration = max(3 * 60 * (estimated_minutes or 0), 1800)
    for hit_id, payload in payloads.items():
        html = render_form(payload, platform="mturk", title=title)
        preview = out / "preview" / f"{hit_id}.html"
        preview.parent.mkdir(parents=True, exist_ok=True)
        preview.write_text(html, encoding="utf-8")
        files.append(preview)
        n_screens = len(payload["slots"][0]["screens"])
        assignments = len(payload["slots"])
        if route in ("api", "both"):
            folder = out / "hits" / hit_id
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "question.xml").write_text(html_question(html, frame_height), encoding="utf-8")
            params = {
                "Title": title,
                "Description": f"Read summaries and judge their {preset.dimension} ({n_screens} screens).",
                "Keywords": f"summaries, {preset.dimension}, rating, text",
                "Reward": reward,
                "MaxAssignments": assignments,
                "AssignmentDurationInSeconds": int(duration),
                "LifetimeInSeconds": 7 * 24 * 3600,
                "AutoApprovalDelayInSeconds": 3 * 24 * 3600,
                "QualificationRequirements": QUALIFICATIONS,
                "RequesterAnnotation": f"{payload['design_id']}:{payload['block']}",
            }
            (folder / "hit_params.json").write_text(json.dumps(params, indent=2) + "\n", encoding="utf-8")
            files += [folder / "question.xml", folder / "hit_params.json"]
        rows.append(
            {
                "hit": hit_id,
                "design_id": payload["design_id"],
                "block_id": payload["block"],
                "slots": ",".join(s["slot"] for s in payload["slots"]),
                "max_assignments": assignments,
                "n_screens": n_screens,
                "payload": base64url_payload(payload),
            }
        )
    hits = pd.DataFrame(rows)
    if route in ("batch", "both"):
        template = out / "template.html"
        template.write_text(render_form(None, platform="mturk", title=title), encoding="utf-8")
        batch = out / "batch_input.csv"
        hits[["design_id", "block_id", "n_screens", "payload"]].to_csv(
            batch, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n"
        )
        files += [template, batch]
    if route != "none":
        readme = out / "README.md"
        readme.write_text(_readme(hits, preset, hit_per, reward, route, live), encoding="utf-8")
        files.append(readme)
    return MTurkPackage(out_dir=out, hits=hits.drop(columns="payload"), files=tuple(files))


def _readme(
    hits: pd.DataFrame, preset: Preset, hit_per: str, reward: str | None, route: str, live: bool
) -> str:
    per = (
        "block (the page picks the annotator slot from the assignment id; two workers can get the same "
        "slot, which `humaneval collect mturk` reports as a slot collision)"
        if hit_per == "block"
        else "annotator slot (one assignment each: every worker gets the planned order)"
    )
    return (
        environment()
        .get_template("mturk_readme.md.j2")
        .render(
            design_id=hits["design_id"].iloc[0],
            preset=preset,
            n_hits=len(hits),
            per=per,
            pay=f"{reward} USD per assignment" if reward else "TODO: set `Reward` in every hit_params.json",
            api=route in ("api", "both"),
            batch=route in ("batch", "both"),
            live=live,
        )
    )
