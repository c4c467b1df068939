"""The HTTP layer of the collection server: a Starlette app (docs/serve.md "Endpoints").

JSON in and out; POST bodies must be ``application/json`` (else 415) and at most 64 KiB (else
413, checked on ``Content-Length`` and while streaming). Errors are always
``{"error": code, "details": [...]}``. Database work runs in the thread pool, and a response
is sent only after the transaction committed. Admin endpoints need ``Authorization: Bearer
<token>`` (missing → 401, wrong → 403); ``GET /admin/<key>/`` is the dashboard page, which
holds no data itself and reads ``/admin/<key>/dashboard`` with the token the admin types in.
No CORS headers are ever sent; the access log (logger ``humaneval.serve``) records method,
path and status but never query strings, which hold Prolific IDs.
"""

from __future__ import annotations

import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from humaneval.errors import RatingsError
from humaneval.serve.limits import DEFAULT_LIMIT, StartLimit
from humaneval.serve.service import ApiError, StudyService

MAX_BODY = 64 * 1024
log = logging.getLogger("humaneval.serve")
_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def create_app(
    path: str | Path,
    *,
    clock: Callable[[], float] = time.time,
    pilot: bool = False,
    start_limit: StartLimit = DEFAULT_LIMIT,
) -> Starlette:
    """The ASGI app serving the study in ``path`` (a study folder or its ``study.sqlite``).

    ``pilot`` admits links with any Prolific STUDY_ID; ``start_limit`` caps new participants
    per client address (see :class:`~humaneval.serve.service.StudyService`).
    """
    service = StudyService(path, clock=clock, pilot=pilot, start_limit=start_limit)
    app = Starlette(routes=_Endpoints(service).routes(), exception_handlers=_HANDLERS)
    app.state.service = service
    app.add_middleware(_Headers)
    return app


class _Endpoints:
    """The endpoints of one study: who may call them (:meth:`study`, :meth:`admin`), the participant's
    (form page, start, screen, finish) and the admin's (dashboard, status, export, release)."""

    def __init__(self, service: StudyService) -> None:
        self.service = service

    def routes(self) -> list[Route]:
        return [
            Route("/s/{key}/", self.page, methods=["GET"]),
            Route("/api/{key}/start", self.start, methods=["POST"]),
            Route("/api/{key}/screen", self.api(StudyService.save_screen), methods=["POST"]),
            Route("/api/{key}/finish", self.api(StudyService.finish), methods=["POST"]),
            Route("/admin/{key}/", self.admin_page, methods=["GET"]),
            Route("/admin/{key}/dashboard", self.dashboard, methods=["GET"]),
            Route("/admin/{key}/status", self.status, methods=["GET"]),
            Route("/admin/{key}/export", self.export, methods=["GET"]),
            Route("/admin/{key}/release", self.release, methods=["POST"]),
            Route("/healthz", _healthz, methods=["GET"]),
        ]

    # -- who may call: the study's key in the path, and the admin token for /admin
    def study(self, request: Request) -> StudyService:
        if request.path_params["key"] != self.service.key:
            raise ApiError(404, "unknown_study", ["no study with this key on this server"])
        return self.service

    def admin(self, request: Request) -> StudyService:
        found = self.study(request)
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise ApiError(401, "unauthorized", ["send Authorization: Bearer <admin token>"])
        if not found.admin_ok(token.strip()):
            raise ApiError(403, "forbidden", ["wrong admin token"])
        return found

    # -- the participant
    async def page(self, request: Request) -> Response:
        return HTMLResponse(*_page(self.study(request), request.url.path))

    def api(self, method: Callable[[StudyService, dict[str, Any]], dict[str, Any]]):
        async def endpoint(request: Request) -> Response:
            found = self.study(request)
            body = await read_json(request)
            return JSONResponse(await run_in_threadpool(method, found, body))

        return endpoint

    async def start(self, request: Request) -> Response:
        found = self.study(request)
        body = await read_json(request)
        client = request.client.host if request.client else None
        return JSONResponse(await run_in_threadpool(found.start, body, client))

    # -- the admin
    async def release(self, request: Request) -> Response:
        found = self.admin(request)
        return JSONResponse(await run_in_threadpool(found.release, await read_json(request)))

    async def status(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.admin(request).status))

    async def export(self, request: Request) -> Response:
        from humaneval.collect.prolific import export_table
        from humaneval.collect.spreadsheet import safe_csv_text

        found = self.admin(request)
        fmt = request.query_params.get("format", "csv")
        if fmt not in ("csv", "json"):
            raise ApiError(422, "validation_failed", ["format must be csv or json"])
        try:
            table = await run_in_threadpool(export_table, found.store.path)
        except RatingsError:
            raise ApiError(409, "no_data", ["no participant has started the study yet"]) from None
        if fmt == "json":
            text = table.to_json(orient="records", force_ascii=False)
            return Response(text, media_type="application/json")
        disposition = f'attachment; filename="{found.key}.csv"'
        return Response(
            safe_csv_text(table), media_type="text/csv", headers={"Content-Disposition": disposition}
        )

    async def dashboard(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.admin(request).dashboard))

    async def admin_page(self, request: Request) -> Response:
        return HTMLResponse(*_admin_page(self.study(request)))


async def _healthz(request: Request) -> Response:
    return JSONResponse({"ok": True})


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, enforcing the media type and the 64 KiB limit."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise ApiError(415, "unsupported_media_type", ["send Content-Type: application/json"])
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, "too_large", [f"the body is larger than {MAX_BODY} bytes"])
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ApiError(413, "too_large", [f"the body is larger than {MAX_BODY} bytes"])
        chunks.append(chunk)
    try:
        body = json.loads(b"".join(chunks).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ApiError(400, "invalid_json", ["the body is not valid UTF-8 JSON"]) from None
    except RecursionError:
        raise ApiError(400, "invalid_json", ["the body is nested too deeply"]) from None
    if not isinstance(body, dict):
        raise ApiError(400, "invalid_json", ["the body must be a JSON object"])
    return body


def _page(service: StudyService, path: str) -> tuple[str, int, dict[str, str]]:
    """The form page (no texts, no completion code) with a per-response CSP nonce."""
    from humaneval.forms.render import script_json
    from humaneval.present.templates import environment

    folder = resources.files("humaneval") / "templates"
    nonce = secrets.token_urlsafe(16)
    config = {"api": f"/api/{service.key}/", "title": service.config.get("title", "Annotation task")}
    html = (
        environment()
        .get_template("prolific.html.j2")
        .render(
            title=config["title"],
            nonce=nonce,
            css=Markup((folder / "form.css").read_text(encoding="utf-8")),
            form_js=Markup((folder / "form.js").read_text(encoding="utf-8")),
            prolific_js=Markup((folder / "prolific.js").read_text(encoding="utf-8")),
            config=Markup(script_json(config)),
        )
    )
    csp = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return html, 200, {"Content-Security-Policy": csp, "Referrer-Policy": "no-referrer"}


def _admin_page(service: StudyService) -> tuple[str, int, dict[str, str]]:
    """The admin dashboard's page: a sign-in form and the script that fetches ``/dashboard`` with
    the token in the Authorization header. The page itself holds no study data."""
    from humaneval.forms.render import script_json
    from humaneval.present.templates import environment

    nonce = secrets.token_urlsafe(16)
    config = {"key": service.key, "admin": f"/admin/{service.key}/"}
    html = (
        environment()
        .get_template("admin.html.j2")
        .render(key=service.key, nonce=nonce, config=Markup(script_json(config)))
    )
    csp = (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )
    return html, 200, {"Content-Security-Policy": csp, "Referrer-Policy": "no-referrer"}


class _Headers:
    """Pure ASGI middleware: security headers on every response and a query-free access log."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = time.perf_counter()
        status = {}

        async def wrapped(message):
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                headers = list(message.get("headers", []))
                headers += [
                    (b"x-content-type-options", b"nosniff"),
                    (b"cache-control", b"no-store"),
                    (b"x-frame-options", b"DENY"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, wrapped)
        finally:
            log.info(
                "%s %s %s %.1fms",
                scope["method"],
                scope["path"],
                status.get("code", "-"),
                1000 * (time.perf_counter() - started),
            )


async def _api_error(request: Request, exc: ApiError) -> Response:
    headers = {"Retry-After": str(exc.extra["retry_after"])} if "retry_after" in exc.extra else None
    return JSONResponse(exc.body(), status_code=exc.status, headers=headers)


async def _http_error(request: Request, exc: HTTPException) -> Response:
    code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
    return JSONResponse({"error": code, "details": []}, status_code=exc.status_code, headers=exc.headers)


async def _busy(request: Request, exc: sqlite3.OperationalError) -> Response:
    log.warning("database busy or unavailable: %s", exc)
    return JSONResponse({"error": "busy", "details": ["please retry"]}, status_code=503)


async def _internal(request: Request, exc: Exception) -> Response:
    log.exception("internal error on %s %s", request.method, request.url.path)
    return JSONResponse({"error": "internal", "details": []}, status_code=500)


_HANDLERS: dict[Any, Callable] = {
    ApiError: _api_error,
    HTTPException: _http_error,
    sqlite3.OperationalError: _busy,
    Exception: _internal,
}
