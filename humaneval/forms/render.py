"""Rendering a form payload into one self-contained HTML page (docs/forms.md).

The page is ``templates/form.html.j2`` with its CSS and JavaScript inlined; jinja2 autoescaping
is on. The payload goes into ``<script type="application/json">`` after JSON encoding with ``<``,
``>``, ``&``, U+2028 and U+2029 written as ``\\u`` escapes, so no text can close the script
element; the page renders every text with ``textContent``.
"""

from __future__ import annotations

import base64
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from markupsafe import Markup

from humaneval.methods import METHODS
from humaneval.present.templates import environment

_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
BATCH_PLACEHOLDER = "${payload}"


@lru_cache(maxsize=4)
def _asset(name: str) -> Markup:
    """A template asset (CSS or JS) without block comments and indentation, to keep HITs under
    MTurk's 64 KiB question limit (the assets contain no ``/*`` inside strings)."""
    text = (resources.files("humaneval") / "templates" / name).read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    return Markup("\n".join(line.strip() for line in text.splitlines() if line.strip()))


def script_json(data: Any) -> str:
    """JSON safe to place inside a ``<script>`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return "".join(_SCRIPT_ESCAPES.get(c, c) for c in text)


def base64url_payload(data: Any) -> str:
    """Base64url (no padding) of the UTF-8 JSON payload, for the batch-route ``${payload}`` variable."""
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_base64url_payload(text: str) -> dict[str, Any]:
    """Inverse of :func:`base64url_payload`."""
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("utf-8"))


def render_form(
    payload: dict[str, Any] | None, *, platform: str = "mturk", title: str = "Annotation task"
) -> str:
    """The HTML page for ``payload``; ``None`` renders the batch template with a ``${payload}`` slot.

    In the batch template every ``$`` of server-rendered text is written ``&#36;`` so that only
    the one intended placeholder can be substituted by the platform.
    """
    template = environment().get_template("form.html.j2")
    if payload is None:
        return template.render(
            title=Markup(str(Markup.escape(title)).replace("$", "&#36;")),
            css=_asset("form.css"),
            js=_asset("form.js"),
            platform=platform,
            design_id="",
            payload=Markup(BATCH_PLACEHOLDER),
        )
    return template.render(
        title=title,
        css=_asset("form.css"),
        js=_asset("form.js"),
        platform=platform,
        design_id=payload["design_id"],
        payload=Markup(script_json(shared_screens(payload))),
    )


def shared_screens(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with every best–worst or pairwise screen stored once per page.

    The slots of a HIT judge the same tuples (pairs) in their own order, so each screen is kept
    once under ``shared[<field>]`` and a slot's screen becomes ``{"id", "ref", "order"}`` (the
    indices of the shared entries as this slot shows them); the page expands them on load
    (``templates/form.js``). This keeps a 5-document × 5-system BWS HIT well under MTurk's
    64 KB question limit. Attention-check screens, which differ per slot, stay as they are.
    """
    method = METHODS.get(payload.get("method", ""))
    if method is None or method.screen_field_prefix is None:
        return payload
    shared: dict[str, dict[str, Any]] = {}
    slots = []
    for slot in payload["slots"]:
        screens = []
        for screen in slot["screens"]:
            key, entries = screen.get("field"), screen["entries"]
            rest = {k: v for k, v in screen.items() if k not in ("id", "entries")}
            base = shared.setdefault(key, {**rest, "entries": entries}) if key else None
            same = base is not None and {k: v for k, v in base.items() if k != "entries"} == rest
            if (
                base is None
                or not same
                or any(e.get("check") for e in entries)
                or sorted(map(str, entries)) != sorted(map(str, base["entries"]))
            ):
                screens.append(screen)
                continue
            order = [base["entries"].index(e) for e in entries]
            screens.append({"id": screen["id"], "ref": key, "order": order})
        slots.append({**slot, "screens": screens})
    used = {s["ref"] for slot in slots for s in slot["screens"] if "ref" in s}
    return {**payload, "slots": slots, "shared": {k: v for k, v in shared.items() if k in used}}
