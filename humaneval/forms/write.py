"""The one entry point that turns a design plus texts into forms on disk (docs/forms.md)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from humaneval.core.deprecation import caller_stacklevel
from humaneval.core.platforms import Platform, get_platform
from humaneval.design.criteria import CRITERIA, criteria_of, declares_criteria, get_criterion
from humaneval.design.load import DesignLike
from humaneval.design.load import load_design as read_design
from humaneval.design.plan import Design
from humaneval.errors import CostWarning, DesignError
from humaneval.forms.mturk import MTurkPackage, submit_config, write_mturk_package
from humaneval.forms.presets import PRESETS, Preset, criteria_preset, get_preset
from humaneval.forms.screens import block_payloads, design_frame, design_order
from humaneval.forms.texts import Texts, load_texts
from humaneval.methods import get_method


def default_preset_name(method: str, dimension: str) -> str:
    """The built-in preset of a design's method and dimension (likert + coherence → coherence-likert7)."""
    name = get_method(method).preset_name(dimension)
    if name not in PRESETS:
        raise DesignError(
            f"no built-in preset for method {method!r} and dimension {dimension!r}; pass preset= one of "
            f"{', '.join(sorted(PRESETS))} or a JSON/YAML preset file"
        )
    return name


def form_preset(
    design: DesignLike, frame: Any, preset: str | Path | Preset | None, *, allow_ties: bool | None = None
) -> Preset:
    """The preset of a design's forms, refusing one whose scale differs from the design's.

    A design made with criteria asks their questions (:func:`~humaneval.forms.presets.criteria_preset`)
    and takes no preset. Otherwise the preset is the given one or the built-in one of the design's
    method and dimension; when the design declares a Likert scale (``scale_points``), a preset with
    another number of points is an error (its attention checks could ask for a point that is not
    on the scale), and a built-in default of another size is replaced by the dimension's question
    on the design's scale.
    """
    method = frame["method"].iloc[0]
    spec = getattr(design, "spec", None) or {}
    if declares_criteria(design):
        if preset is not None:
            raise DesignError(
                "this design asks its criteria's questions (design --criteria); drop the preset, or use "
                "custom instructions to change the overview"
            )
        return criteria_preset(criteria_of(design), show_source=bool(spec.get("show_source")))
    declared = criteria_of(design) if get_method(method).criteria else ()
    if preset is None and declared:
        default = get_preset(default_preset_name(method, frame["dimension"].iloc[0]), allow_ties=allow_ties)
        if default.points == declared[0].points:
            return default
        dimension = declared[0].name
        criterion = (
            get_criterion(f"{dimension}:{declared[0].points}") if dimension in CRITERIA else declared[0]
        )
        return criteria_preset((criterion,), show_source=bool(spec.get("show_source"))).with_options(
            title=default.title, definition=default.definition
        )
    chosen = get_preset(
        preset or default_preset_name(method, frame["dimension"].iloc[0]), allow_ties=allow_ties
    )
    if declared and get_method(chosen.method).criteria and chosen.points != declared[0].points:
        raise DesignError(
            f"preset {chosen.name!r} has a {chosen.points}-point scale but the design declares "
            f"{declared[0].points} points (scale_points); choose a {declared[0].points}-point preset or "
            f"regenerate the design with --scale-points {chosen.points}"
        )
    return chosen


def design_payloads(
    design: DesignLike,
    texts: Texts | Mapping | str | Path | None,
    *,
    preset: str | Path | Preset | None = None,
    allow_ties: bool | None = None,
    instructions: str | None = None,
    per_slot: bool = False,
    extra: dict[str, Any] | None = None,
) -> tuple[Preset, dict[str, dict[str, Any]]]:
    """The chosen preset and the form payloads (one per block, or per slot) of a design.

    Shared by every platform: resolves the preset (checking it matches the design's method),
    the texts (``None`` = the design's own) and the design's check and warm-up definitions,
    then calls :func:`~humaneval.forms.screens.block_payloads`. ``instructions`` (plain text,
    ``{n}`` = number of screens) replaces the preset's overview and definition.
    """
    frame = design_frame(design)
    method = frame["method"].iloc[0]
    chosen = form_preset(design, frame, preset, allow_ties=allow_ties)
    if instructions is not None:
        chosen = chosen.with_options(overview=instructions, definition="")
    if chosen.method != method:
        raise DesignError(
            f"preset {chosen.name!r} is for {chosen.method!r} screens but the design uses {method!r}; "
            "choose a matching preset"
        )
    checks = {f"ck_{c['id']}": c for c in getattr(design, "checks", ())}
    warmups = {(w["slot"], int(w["position"])): w["filler"] for w in getattr(design, "warmups", ())}
    payloads = block_payloads(
        frame,
        design_texts(design, texts),
        chosen,
        per_slot=per_slot,
        checks=checks,
        warmups=warmups,
        extra=extra,
        order=design_order(design),
    )
    return chosen, payloads


def design_texts(design: DesignLike, texts: Texts | Mapping | str | Path | None) -> Texts:
    """``texts`` as :class:`Texts`; ``None`` = the design's own texts (an error when it has none)."""
    if texts is None:
        texts = getattr(design, "texts", None)
        if texts is None or texts.is_empty():
            raise DesignError(
                "the design carries no texts; give them (a texts.json or a document, system, text table), "
                "or use placeholder texts for a demo (--placeholder-texts)"
            )
    if hasattr(texts, "to_dict") and not isinstance(texts, Texts):
        texts = texts.to_dict()
    return texts if isinstance(texts, Texts) else load_texts(texts)


def write_forms(
    design: DesignLike,
    texts: Texts | Mapping | str | Path | None,
    out_dir: str | Path,
    *,
    platform: str | None = None,
    preset: str | Path | Preset | None = None,
    hit_per: str | None = None,
    route: str = "both",
    live: bool = False,
    frame_height: int = 0,
    reward: str | None = None,
    estimated_minutes: float | None = None,
    allow_ties: bool | None = None,
    instructions: str | None = None,
    consent: str | None = None,
    extra_submit_origins: tuple[str, ...] = (),
) -> MTurkPackage:
    """Write the annotation forms of ``design`` into ``out_dir``.

    ``design`` is a ``Design``, its long table or the path of ``design.csv``; ``texts`` is a
    :class:`Texts`, a ``texts.json`` mapping or path, or a ``document, system, text`` table
    (:func:`~humaneval.forms.placeholder_texts` makes labelled stand-ins for demos). The preset
    defaults to the built-in one of the design's method and dimension. ``platform`` (default: the
    design's own, Prolific when it names none) decides the packaging by its registry record
    (:data:`humaneval.core.platforms.PLATFORMS`): ``"mturk"`` writes the package of
    docs/forms.md (see :func:`~humaneval.forms.mturk.write_mturk_package`); ``"standalone"``
    writes the same pages for local pilots (no submission; ``?slot=`` picks the slot);
    ``"prolific"`` writes those pages as a preview plus a README, since Prolific's forms are
    served by ``humaneval serve`` (docs/serve.md). ``instructions`` replaces the preset's overview
    and definition (custom instructions); ``consent`` adds an "I agree" step to the start page.
    ``extra_submit_origins`` lets pilots and tests accept a non-MTurk ``turkSubmitTo``.
    ``hit_per`` defaults to the platform's unit (``"slot"`` on MTurk: one HIT per annotator slot
    with one assignment, every worker gets the planned order; ``"block"`` for pages).

    Parameters
    ----------
    design : Design, DataFrame, str or Path
        As for :func:`humaneval.design.load_design`.
    texts : Texts, mapping, str, Path or None
        The documents' and summaries' texts (None: the design's own).
    out_dir : str or Path
        The folder written.
    platform : {"prolific", "mturk", "standalone"}, optional
        Where the forms run (default: the design's platform).
    preset : str, Path or Preset, optional
        The question, scale and instructions (default: the built-in one of the method).
    hit_per : {"slot", "block"}, optional
        One HIT per annotator slot or per block.
    route, live, frame_height, reward, estimated_minutes, extra_submit_origins :
        MTurk settings (docs/forms.md).
    allow_ties : bool, optional
        Ranking forms: accept tied ranks.
    instructions, consent : str, optional
        Custom instructions and a consent step.

    Returns
    -------
    MTurkPackage
        ``out_dir``, ``hits`` (one row per HIT), ``files`` and ``warnings``.

    Raises
    ------
    DesignError
        An unknown platform or ``hit_per``, a preset that does not match the design's method or
        scale, or missing texts.

    Examples
    --------
    >>> import tempfile
    >>> from humaneval.design import DesignSpec, generate_design
    >>> from humaneval.forms import placeholder_texts
    >>> design = generate_design(DesignSpec(documents=10, systems=["A", "B", "C"], seed=1,
    ...                                     checks_per_annotator=1, platform="mturk"))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     package = write_forms(design, placeholder_texts(design.table), folder)  # the design's MTurk
    ...     names = sorted(path.name for path in package.out_dir.iterdir())
    >>> len(package.hits), names
    (6, ['README.md', 'batch_input.csv', 'hits', 'preview', 'template.html'])
    """
    where = get_platform(platform if platform is not None else design_platform(design))
    if hit_per is None:
        hit_per = where.form_per
    if hit_per not in ("block", "slot"):
        raise DesignError(f"hit_per must be 'block' or 'slot', not {hit_per!r}")
    extra = {
        "submit": submit_config(live, tuple(extra_submit_origins)),
        "estimated_minutes": estimated_minutes,
        "consent": consent,
    }
    chosen, payloads = design_payloads(
        design,
        texts,
        preset=preset,
        allow_ties=allow_ties,
        instructions=instructions,
        per_slot=hit_per == "slot",
        extra=extra,
    )
    package = write_mturk_package(
        payloads,
        chosen,
        out_dir,
        hit_per=hit_per,
        route=route if where.routes else "none",
        frame_height=frame_height,
        reward=reward,
        estimated_minutes=estimated_minutes,
        live=live,
    )
    if where.forms == "server":
        readme = package.out_dir / "README.md"
        readme.write_text(SERVER_README.format(title=where.title, docs=where.docs), encoding="utf-8")
        package = replace(package, files=(*package.files, readme))
    return _pay_warning(package, design, where)


SERVER_README = """# Preview of the annotation pages

These pages show the forms as {title} participants will see them; open one in a browser and
add `?slot=<slot>` to try an annotator slot. On {title} the forms are served, stored and checked
by the collection server: `humaneval serve init DESIGN STUDY_DIR`, then
`humaneval prolific create STUDY_DIR --serve-url https://<host>` ({docs}, docs/serve.md).
"""


def design_platform(design: DesignLike) -> str | None:
    """The platform a design was planned for (``None`` for a bare table)."""
    return (getattr(design, "spec", None) or {}).get("platform")


def _pay_warning(package: MTurkPackage, design: DesignLike, where: Platform) -> MTurkPackage:
    """Warn when forms that carry a reward are for another paying platform than the design was
    costed for."""
    costed = design_platform(design)
    if not where.routes or costed is None or not get_platform(costed).client or costed == where.name:
        return package
    cost = getattr(design, "cost", None)
    currency = getattr(cost, "currency", None) or get_platform(costed).currency
    note = (
        f"the design was costed for {costed} ({currency}, at {costed}'s pay rates) but these are "
        f"{where.title} forms: set the Reward in {where.currency} (--reward) from the time per HIT, or "
        f"re-plan the design with --platform {where.name}"
    )
    warnings.warn(note, CostWarning, stacklevel=caller_stacklevel())
    return replace(package, warnings=(*package.warnings, note))


def load_design(path: DesignLike) -> Any:
    """:func:`humaneval.design.load_design`, with a bare table's answer fields filled in.

    A ``design.json`` (or a CSV with its manifest beside it) gives the :class:`Design`; a lone
    CSV or a table gives the design table of :func:`~humaneval.forms.screens.design_frame`.
    """
    loaded = read_design(path)
    return loaded if isinstance(loaded, Design) else design_frame(loaded)
