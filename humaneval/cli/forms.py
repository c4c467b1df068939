"""``humaneval forms``: write the annotation forms of a design (designs-and-forms spec §3–4)."""

from __future__ import annotations

from pathlib import Path

import click

from humaneval.cli._common import emit, json_option


def _render(package) -> str:
    hits = package.hits
    lines = [f"wrote {len(hits)} HIT(s) to {package.out_dir}"]
    for row in hits.itertuples(index=False):
        lines.append(
            f"  {row.hit}: {row.n_screens} screens, {row.max_assignments} assignment(s) ({row.slots})"
        )
    lines.append(
        f"  open {package.out_dir / 'preview' / (hits['hit'].iloc[0] + '.html')} in a browser to try it"
    )
    return "\n".join(lines)


@click.command()
@click.argument("design", type=click.Path(dir_okay=False, exists=True))
@click.option(
    "--texts",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="texts.json, or a table document, system, text (default: the design's <stem>.texts.json).",
)
@click.option(
    "--documents",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Source documents: a table document, text.",
)
@click.option(
    "--placeholder-texts", is_flag=True, help="Use labelled placeholder texts (layout pilots, demos)."
)
@click.option(
    "--preset",
    default=None,
    help="Built-in preset name or a JSON/YAML preset file (default: from the design's method and dimension).",
)
@click.option("--platform", type=click.Choice(["mturk", "standalone"]), default="mturk", show_default=True)
@click.option("--route", type=click.Choice(["api", "batch", "both"]), default="both", show_default=True)
@click.option("--hit-per", type=click.Choice(["block", "slot"]), default="block", show_default=True)
@click.option("--live", is_flag=True, help="Submit to the live MTurk site (default: the sandbox).")
@click.option("--frame-height", type=int, default=0, show_default=True, help="HTMLQuestion FrameHeight.")
@click.option("--reward", default=None, help="Reward per assignment in USD, e.g. 1.80.")
@click.option("--minutes", "estimated_minutes", type=float, default=None, help="Estimated minutes per HIT.")
@click.option(
    "--allow-ties/--no-ties", default=None, help="Ranking: allow tied ranks (default: the preset's)."
)
@click.option(
    "--instructions",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Text file replacing the preset's instructions ({n} = number of screens; blank lines = paragraphs).",
)
@click.option(
    "--consent",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Text file with a consent statement; the start page then asks 'I agree'.",
)
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Output folder.")
@json_option
def command(
    design: str, texts, documents, placeholder_texts: bool, out: str, as_json: bool, **options
) -> None:
    """Write annotation forms (MTurk package or standalone pages) for a design."""
    from humaneval.forms import load_design, load_texts, write_forms
    from humaneval.forms import placeholder_texts as placeholders
    from humaneval.forms.screens import design_frame

    plan = load_design(design)
    if placeholder_texts:
        chosen = placeholders(design_frame(plan))
    elif texts is not None:
        chosen = load_texts(texts, documents)
    else:
        chosen = None
    for name in ("consent", "instructions"):
        if options[name] is not None:
            options[name] = Path(options[name]).read_text(encoding="utf-8")
    package = write_forms(plan, chosen, out, **options)
    emit(package.to_dict(), as_json, lambda: _render(package))
