"""``humaneval forms``: write the annotation forms of a design (docs/analysis.md)."""

from __future__ import annotations

import warnings

import click

from humaneval.cli._checks import MINUTES, NONNEG, OutputPath, money
from humaneval.cli._common import InputFile, emit, form_options, json_option, read_text
from humaneval.core.platforms import PLATFORMS, Platform, get_platform
from humaneval.errors import CostWarning, DesignError


def _render(package, where: Platform) -> str:
    hits = package.hits
    if where.forms == "server":
        lines = [
            f"wrote {len(hits)} preview page(s) to {package.out_dir} ({where.title} participants get their "
            "forms from 'humaneval serve')"
        ]
    else:
        lines = [f"wrote {len(hits)} {'HIT(s)' if where.forms == 'hits' else 'page(s)'} to {package.out_dir}"]
    for row in hits.itertuples(index=False):
        lines.append(
            f"  {row.hit}: {row.n_screens} screens, {row.max_assignments} assignment(s) ({row.slots})"
        )
    lines.append(
        f"  open {package.out_dir / 'preview' / (hits['hit'].iloc[0] + '.html')} in a browser to try it"
    )
    lines += [f"  warning: {w}" for w in package.warnings]
    return "\n".join(lines)


@click.command()
@click.argument("design", type=InputFile())
@form_options
@click.option(
    "--placeholder-texts", is_flag=True, help="Use labelled placeholder texts (layout pilots, demos)."
)
@click.option(
    "--platform",
    type=click.Choice(tuple(PLATFORMS)),
    default=None,
    help="Where the forms run (default: the design's platform; Prolific when it names none). Prolific's "
    "forms are served by 'humaneval serve': the pages written are a preview.",
)
@click.option("--route", type=click.Choice(["api", "batch", "both"]), default="both", show_default=True)
@click.option(
    "--hit-per",
    type=click.Choice(["block", "slot"]),
    default=None,
    help="One HIT per annotator slot (default on MTurk: one assignment each, the planned order) or per "
    "block (the page picks a slot by hashing the assignment id, so two workers can get the same slot).",
)
@click.option("--live", is_flag=True, help="Submit to the live MTurk site (default: the sandbox).")
@click.option("--frame-height", type=NONNEG, default=0, show_default=True, help="HTMLQuestion FrameHeight.")
@click.option("--reward", callback=money, default=None, help="Reward per assignment in USD, e.g. 1.80.")
@click.option("--minutes", "estimated_minutes", type=MINUTES, default=None, help="Estimated minutes per HIT.")
@click.option(
    "--instructions",
    type=InputFile(),
    callback=read_text,
    default=None,
    help="Text file replacing the preset's instructions ({n} = number of screens; blank lines = paragraphs).",
)
@click.option("--out", type=OutputPath(folder=True), required=True, help="Output folder.")
@json_option
def command(
    design: str, texts, documents, placeholder_texts: bool, out: str, as_json: bool, **options
) -> None:
    """Write annotation forms (Prolific preview pages, MTurk package or standalone pages) for a design."""
    from humaneval.forms.screens import design_frame
    from humaneval.forms.texts import load_texts
    from humaneval.forms.texts import placeholder_texts as placeholders
    from humaneval.forms.write import design_platform, load_design, write_forms

    plan = load_design(design)
    if placeholder_texts:
        chosen = placeholders(design_frame(plan))
    elif texts is not None:
        chosen = load_texts(texts, documents)
    else:
        chosen = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CostWarning)  # printed with the summary below
            package = write_forms(plan, chosen, out, **options)
    except KeyError as exc:  # a key every manifest written by `humaneval design` has
        raise DesignError(
            f"{design}: the design has no {exc} entry where forms need one; the file was edited or damaged, "
            "write it again with 'humaneval design'"
        ) from None
    where = get_platform(options.get("platform") or design_platform(plan))
    emit(package.to_dict(), as_json, lambda: _render(package, where))
