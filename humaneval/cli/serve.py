"""``humaneval serve``: the Prolific collection server (docs/analysis.md).

``humaneval serve init DESIGN STUDY_DIR`` creates the study folder; ``humaneval serve STUDY_DIR``
(short for ``humaneval serve run STUDY_DIR``) runs it with uvicorn.
"""

from __future__ import annotations

import click

from humaneval.cli._checks import FiniteRange, OutputPath
from humaneval.cli._common import InputFile, emit, form_options, json_option, read_text


class _DefaultRun(click.Group):
    """A group whose first argument, if it is not a subcommand, is the STUDY_DIR of ``run``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultRun)
def command() -> None:
    """Run a Prolific study: 'serve init DESIGN STUDY_DIR', then 'serve STUDY_DIR'.

    'serve backup STUDY_DIR OUT.sqlite' copies the database while the server runs.
    """


@command.command("init")
@click.argument("design", type=InputFile())
@click.argument("study_dir", type=OutputPath(folder=True))
@form_options
@click.option("--completion-code", default=None, help="Prolific's completion code (default: random).")
@click.option(
    "--full-code", default=None, help="Optional second code for 'study full' (no approval implied)."
)
@click.option("--max-minutes", type=float, default=None, help="Prolific's maximum time: the slot timeout.")
@click.option(
    "--minutes", "estimated_minutes", type=float, default=None, help="Estimated minutes per person."
)
@click.option(
    "--exclude-pids",
    type=InputFile(),
    callback=read_text,
    default=None,
    help="File with one PROLIFIC_PID per line to refuse (e.g. sibling studies).",
)
@click.option("--key", default=None, help="Study key in the URL (default: random).")
@click.option(
    "--study-id",
    "prolific_study_id",
    default=None,
    help="Prolific's STUDY_ID: only links carrying it are admitted (or set it later with set-study-id).",
)
@click.option("--title", default=None, help="Page title [Judge summaries (<design id>)].")
@click.option(
    "--placeholder-texts", is_flag=True, help="Use labelled placeholder texts (layout pilots, demos)."
)
@json_option
def init(
    design: str,
    study_dir: str,
    texts: str | None,
    documents: str | None,
    exclude_pids: str | None,
    placeholder_texts: bool,
    as_json: bool,
    **options,
) -> None:
    """Create STUDY_DIR (study.sqlite + admin_token) from a design.json and its texts."""
    from humaneval.forms.screens import design_frame
    from humaneval.forms.texts import load_texts
    from humaneval.forms.texts import placeholder_texts as placeholders
    from humaneval.forms.write import load_design
    from humaneval.serve.study import create_study

    if placeholder_texts and texts:
        raise click.UsageError("give --texts or --placeholder-texts, not both")
    chosen = load_texts(texts, documents) if texts else None
    if placeholder_texts:
        chosen = placeholders(design_frame(load_design(design)))
    study = create_study(
        design,
        study_dir,
        texts=chosen,
        exclude_pids=exclude_pids.split() if exclude_pids else (),
        **options,
    )

    def render() -> str:
        return "\n".join(
            [
                f"created study {study.key} in {study.study_dir}: "
                f"{study.slots} slots in {study.blocks} blocks",
                f"  completion code: {study.completion_code} (enter it on Prolific)",
                f"  places on Prolific: {study.slots}; slot timeout: {study.slot_timeout_s / 60:g} min",
                f"  admin token: {study.token_path} (keep it secret)",
                (
                    f"  Prolific STUDY_ID: {study.prolific_study_id}"
                    if study.prolific_study_id
                    else "  Prolific STUDY_ID: not set yet; 'humaneval prolific create' records it "
                    "(docs/prolific.md)"
                ),
                (
                    f"  next: humaneval serve {study.study_dir} --host 127.0.0.1 --port 8000"
                    if study.prolific_study_id
                    else f"  next: humaneval prolific create {study.study_dir} --serve-url https://… "
                    f"--execute (or try the forms first: humaneval serve {study.study_dir} --pilot)"
                ),
            ]
        )

    emit(study.to_dict(), as_json, render)


@command.command("set-study-id")
@click.argument("study_dir", type=click.Path())
@click.argument("study_id")
def set_study_id(study_dir: str, study_id: str) -> None:
    """Record Prolific's STUDY_ID: from then on only links carrying it are admitted."""
    from humaneval.serve.study import set_study_id as record

    study = record(study_dir, study_id)
    click.echo(f"study {study.key} now admits only STUDY_ID={study.prolific_study_id} (restart the server)")


@command.command("backup")
@click.argument("study_dir", type=click.Path())
@click.argument("out", type=OutputPath())
def backup(study_dir: str, out: str) -> None:
    """Copy the study database to OUT while the server keeps running."""
    from humaneval.errors import DesignError
    from humaneval.serve.store import backup as copy
    from humaneval.serve.study import open_study

    study = open_study(study_dir)
    try:
        copy(study.db_path, out)
    except FileExistsError as exc:
        raise DesignError(str(exc)) from None
    click.echo(f"backed up {study.db_path} to {out}")


@command.command("run")
@click.argument("study_dir", type=click.Path())
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", type=int, default=8000, show_default=True, help="Port to listen on.")
@click.option(
    "--public-url",
    default=None,
    help="The HTTPS address participants use (the reverse proxy), for the printed study URL.",
)
@click.option(
    "--pilot",
    is_flag=True,
    help="Pilot/test mode: admit links with any STUDY_ID (never for the published study).",
)
@click.option(
    "--start-limit",
    default="5/60",
    show_default=True,
    help="New participants per client address: BURST/SECONDS (a burst, then one per SECONDS), or off.",
)
@click.option(
    "--request-timeout",
    type=FiniteRange(1, 3600),
    default=None,
    help="Seconds a client has to send a whole request; slower connections are closed [20] (docs/serve.md).",
)
@click.option("--quiet", is_flag=True, help="No access log.")
def run(
    study_dir: str,
    host: str,
    port: int,
    public_url: str | None,
    pilot: bool,
    start_limit: str,
    request_timeout: float | None,
    quiet: bool,
) -> None:
    """Serve STUDY_DIR with uvicorn until interrupted (connection limits: docs/serve.md)."""
    import logging

    import uvicorn

    from humaneval.serve.app import create_app
    from humaneval.serve.deployment import REQUEST_TIMEOUT, server_options
    from humaneval.serve.limits import StartLimit
    from humaneval.serve.study import open_study

    study = open_study(study_dir)
    app = create_app(study_dir, pilot=pilot, start_limit=StartLimit.parse(start_limit))
    if pilot:
        click.echo("PILOT MODE: links with any STUDY_ID are admitted; restart without --pilot to publish")
    base = public_url or f"http://{host}:{port}"
    click.echo(f"study URL for Prolific:\n  {study.url(base)}")
    if not public_url:
        click.echo(
            "  (behind an HTTPS reverse proxy, pass --public-url https://your.host; see docs/serve.md)"
        )
    click.echo(f"admin token: {study.token_path}  (Authorization: Bearer <token>)")
    click.echo(f"dashboard: {base}/admin/{study.key}/  (sign in with the admin token)")
    click.echo(
        f"status: {base}/admin/{study.key}/status   export: {base}/admin/{study.key}/export?format=csv"
    )
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO, format="%(asctime)s %(message)s")
    limits = server_options(request_timeout or REQUEST_TIMEOUT)
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="warning", **limits)
