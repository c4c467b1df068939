"""``humaneval design``: plan a study (docs/analysis.md) and write its files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from humaneval.cli._checks import COUNT, DURATION, FACTOR, NONNEG, RATE, SECONDS, SHARE, WAGE, OutputPath
from humaneval.cli._common import InputFile, emit, json_option, judge_column_option, read_text
from humaneval.core.currency import currency_code
from humaneval.core.platforms import DEFAULT_PLATFORM, PLATFORMS
from humaneval.design.judged import STRATEGIES as JUDGED_STRATEGIES
from humaneval.design.spec import CHECK_KINDS, FAMILIES, ORDERS, REMAINDERS
from humaneval.errors import DesignError, OptionError
from humaneval.methods import METHODS

if TYPE_CHECKING:
    import pandas as pd

    from humaneval.design.plan import Design
    from humaneval.judges.planning import CalibrationPlan


@click.command()
@click.option(
    "--documents",
    default=None,
    help="Number of documents, or a file of ids (column document/id, optional text); "
    "default: the documents of --summaries.",
)
@click.option("--systems", default=None, help="Comma-separated system names (default: those of --summaries).")
@click.option("--summaries", type=InputFile(), default=None, help="Table document, system, text.")
@click.option("--reference", default=None, help="The system that is the human reference.")
@click.option(
    "--method",
    type=click.Choice(sorted(METHODS)),
    default="likert",
    show_default=True,
)
@click.option("--family", type=click.Choice(FAMILIES), default="blocks", show_default=True)
@click.option("--docs-per-block", type=COUNT, default=5, show_default=True)
@click.option(
    "--annotators-per-block",
    type=COUNT,
    default=None,
    help="Annotators per block [default: 3; nested designs have 1].",
)
@click.option("--remainder", type=click.Choice(REMAINDERS), default="spread", show_default=True)
@click.option("--order", type=click.Choice(ORDERS), default="random", show_default=True)
@click.option("--attention-checks", type=NONNEG, default=2, show_default=True, help="Checks per annotator.")
@click.option(
    "--check-kind", type=click.Choice(CHECK_KINDS), multiple=True, default=["imc"], show_default=True
)
@click.option(
    "--fillers",
    type=InputFile(),
    callback=read_text,
    default=None,
    help="Text file, one filler text per line (gold checks, warm-ups).",
)
@click.option(
    "--dimension",
    default=None,
    help="What the annotators judge [default: coherence; preference for --method pairwise].",
)
@click.option(
    "--criteria",
    default=None,
    help="Several questions per screen (likert): built-in criteria, e.g. coherence,consistency,fluency,"
    "relevance (name:points changes the scale), or a YAML/JSON file of criteria. Replaces --dimension "
    "and --scale-points.",
)
@click.option("--scale-points", type=click.IntRange(2, 1001), default=7, show_default=True)
@click.option("--show-source", is_flag=True, help="Show the source document with each summary.")
@click.option("--layout", type=click.Choice(["single", "grouped"]), default="single", show_default=True)
@click.option("--group-size", type=COUNT, default=5, show_default=True, help="Summaries per grouped screen.")
@click.option("--anchor-in-every-group", is_flag=True, help="Grouped layout: the reference in every group.")
@click.option("--warmups", type=NONNEG, default=0, show_default=True, help="Practice screens from --fillers.")
@click.option("--tuple-size", type=COUNT, default=4, show_default=True, help="BWS tuple size.")
@click.option("--bws-factor", type=FACTOR, default=2.0, show_default=True, help="BWS tuples per item.")
@click.option("--bws-scope", type=click.Choice(["document", "block"]), default="document", show_default=True)
@click.option("--pairs", default="all", show_default=True, help="Pairwise: 'all' or pairs per document.")
@click.option(
    "--platform",
    type=click.Choice(tuple(PLATFORMS)),
    default=DEFAULT_PLATFORM,
    show_default=True,
)
@click.option("--seed", type=NONNEG, default=1, show_default=True)
@click.option(
    "--seconds-per-screen", type=DURATION, default=None, help="Pilot timing (default: study values)."
)
@click.option("--seconds-overhead", type=SECONDS, default=60.0, show_default=True)
@click.option("--wage", type=WAGE, default=None, help="Hourly wage (default: the platform minimum).")
@click.option(
    "--currency",
    default=None,
    callback=lambda ctx, param, value: None if value is None else currency_code(value, "--currency"),
    help="ISO 4217 currency code (default: GBP on Prolific, USD on MTurk).",
)
@click.option("--fee-rate", type=RATE, default=0.0, show_default=True, help="Platform fee as a fraction.")
@click.option("--overrecruit", type=SHARE, default=0.10, show_default=True, help="Budget for replacements.")
@click.option(
    "--judge-scores",
    type=InputFile(),
    default=None,
    help="A judge's scores of the pool (document, system, score, or a ratings table of judge rows): "
    "the humans rate the documents chosen by --choose, --documents N of them or as many as hold "
    "--calibration-items summaries; <out>.probabilities.csv goes beside the design "
    "(docs/ppi.md, docs/judges.md).",
)
@click.option(
    "--choose",
    type=click.Choice(JUDGED_STRATEGIES),
    default=None,
    help="How --judge-scores documents are drawn "
    "[default: stratified with --calibration-items, else random].",
)
@judge_column_option
@click.option(
    "--judge",
    default=None,
    metavar="NAME",
    help="With --judge-scores holding several judges: the one whose scores order the documents.",
)
@click.option("--strata", type=COUNT, default=5, show_default=True, help="Strata of --choose stratified.")
@click.option(
    "--calibration-items",
    type=COUNT,
    default=None,
    help="With --judge-scores: plan the judge's calibration (alt-test) on this many summaries, each rated "
    "by --annotators-per-block humans; --documents may then name the pool's documents file.",
)
@click.option("--out", type=OutputPath(), required=True, help="Design CSV; design.json etc. go beside it.")
@click.option("--datasheet", is_flag=True, help="Also write <stem>.datasheet.md and .datasheet.json.")
@click.option(
    "--heds", is_flag=True, help="Also write <stem>.heds.json, the HEDS 3.0 datasheet in the form's JSON."
)
@click.option(
    "--prereg",
    is_flag=True,
    help="Also write <stem>.prereg.json, the frozen preregistration 'report --prereg' compares with "
    "(docs/reproducibility.md).",
)
@click.option("--summary", "show_summary", is_flag=True, help="Print the design summary.")
@json_option
def command(**o) -> None:
    """Generate a study design: blocks, slots, presentation order, checks, cost."""
    from humaneval.design.generate import generate_design
    from humaneval.design.inputs import documents_of, read_documents, read_summaries
    from humaneval.design.judged import chosen_documents
    from humaneval.design.spec import BWSOptions, DesignSpec, PairOptions

    o, calibration = _judged_pool(o)
    pairs = o["pairs"] if o["pairs"] == "all" else int(o["pairs"]) if o["pairs"].isdigit() else o["pairs"]
    fillers = () if o["fillers"] is None else [t for t in o["fillers"].splitlines() if t.strip()]
    summaries = read_summaries(o["summaries"])
    if o["documents"] is None and not summaries and not o.get("chosen"):
        raise DesignError("give --documents (a count or a file of ids) or --summaries (document, system)")
    per_block = o["annotators_per_block"]
    if o["family"] == "nested" and per_block not in (None, 1):
        raise DesignError(
            f"--family nested has one annotator per block, not {per_block}; use --family blocks for "
            f"{per_block} annotators per block"
        )
    documents = documents_of(summaries) if o["documents"] is None else read_documents(o["documents"])
    if o.get("chosen"):
        documents, summaries = chosen_documents(o["chosen"], documents, summaries)
    spec = DesignSpec(
        documents=documents,
        summaries=summaries,
        systems=None if o["systems"] is None else [s.strip() for s in o["systems"].split(",") if s.strip()],
        reference_system=o["reference"],
        method=o["method"],
        family=o["family"],
        documents_per_block=o["docs_per_block"],
        annotators_per_block=1 if o["family"] == "nested" else per_block or 3,
        remainder=o["remainder"],
        order=o["order"],
        checks_per_annotator=o["attention_checks"],
        check_kinds=tuple(o["check_kind"]),
        fillers=fillers,
        dimension=o["dimension"],
        scale_points=o["scale_points"],
        show_source=o["show_source"],
        likert_layout=o["layout"],
        group_size=o["group_size"],
        anchor_in_every_group=o["anchor_in_every_group"],
        warmup_items=o["warmups"],
        bws=BWSOptions(tuple_size=o["tuple_size"], factor=o["bws_factor"], scope=o["bws_scope"]),
        pairwise=PairOptions(pairs=pairs),
        platform=o["platform"],
        seed=o["seed"],
        criteria=o["criteria"] or (),
    )
    design = generate_design(spec).with_cost(
        seconds_per_screen=o["seconds_per_screen"],
        seconds_overhead=o["seconds_overhead"],
        hourly_wage=o["wage"],
        currency=o["currency"],
        platform_fee_rate=o["fee_rate"],
        overrecruit_rate=o["overrecruit"],
    )
    _check_items_per_human(design, calibration)
    paths = design.write(o["out"])
    if o.get("chosen"):
        paths["probabilities"] = _write_probabilities(o["probabilities"], o["out"])
    paths.update(_documentation_files(design, o))
    summary = design.summary()

    def render() -> str:
        files = ", ".join(str(p) for p in paths.values())
        line = f"design {design.design_id}: {len(design.table)} rows, {len(design.slots)} slots → {files}"
        if spec.criteria:
            line += "\ncriteria: " + "; ".join(f"{c.name} ({c.scale().describe()})" for c in spec.criteria)
        if calibration is not None:
            line += "\n" + calibration.summary()
        return line + ("\n\n" + summary.to_markdown() if o["show_summary"] else "")

    emit(
        {
            "design_id": design.design_id,
            "files": {k: str(v) for k, v in paths.items()},
            "rows": len(design.table),
            "summary": summary.to_dict(),
            "balance": design.balance,
            "criteria": [c.to_dict() for c in design.criteria],
            "calibration": None if calibration is None else calibration.to_dict(),
        },
        o["as_json"],
        render,
    )


def _write_probabilities(picks: pd.DataFrame, out: str) -> Path:
    """``<out>.probabilities.csv``, written only once the design is: its document ids then passed the
    design's id check (no formula can start one), and 'ppi --probabilities' reads them back unchanged."""
    path = Path(out).with_suffix(".probabilities.csv")
    picks.to_csv(path, index=False)
    return path


def _check_items_per_human(design: Design, calibration: CalibrationPlan | None) -> None:
    """The alt-test compares each human with the judge on at least 30 items: a calibration design that
    gives a human fewer is refused here, not discovered after the study."""
    from humaneval.judges.alttest import MIN_ITEMS

    if calibration is None:
        return
    judgements = design.summary().judgements_per_annotator
    low, high = judgements[0], judgements[-1]
    if low < MIN_ITEMS:
        raise DesignError(
            f"this calibration design gives each human {low}–{high} items, but the alt-test needs at least "
            f"{MIN_ITEMS} per human (Calderon, Reichart & Dror, 2025); raise --docs-per-block so that "
            f"documents per block × systems ≥ {MIN_ITEMS}"
        )


def _judge_rows(judge: pd.DataFrame, name: str | None, strategy: str) -> pd.DataFrame:
    """One judge's rows of the pool for a stratified or random draw; several judges are refused unless one
    is named (the active draw uses their disagreement, so it keeps them all)."""
    names = sorted(judge["judge"].unique())
    if name is not None:
        if name not in names:
            raise OptionError(
                f"--judge {name!r}: no such judge in the pool; the judges are {', '.join(names)}"
            )
        return judge if strategy == "active" else judge[judge["judge"] == name]
    if len(names) > 1 and strategy != "active":
        raise OptionError(
            f"the pool holds {len(names)} judges ({', '.join(names)}); the {strategy} draw orders documents "
            "by one judge's scores: name it with --judge NAME"
        )
    return judge


def _judged_pool(o: dict) -> tuple[dict, CalibrationPlan | None]:
    """The documents chosen for the humans from the judge's scores of the pool, written with their
    inclusion probabilities beside the design (``<out>.probabilities.csv``); with
    ``--calibration-items`` also the calibration plan of the alt-test. Without ``--judge-scores``, the
    options as they are."""
    if o["judge_scores"] is None:
        if o["calibration_items"] is not None:
            raise OptionError(
                "--calibration-items needs --judge-scores (the judge-scored pool to choose from)"
            )
        return o, None
    from humaneval.core.judge_scores import read_judge_scores
    from humaneval.design.judged import choose_documents
    from humaneval.judges.planning import plan_calibration

    strategy = o["choose"] or ("stratified" if o["calibration_items"] is not None else "random")
    judge = _judge_rows(
        read_judge_scores(o["judge_scores"], columns=o["judge_columns"]), o["judge"], strategy
    )
    count = str(o["documents"]).isdigit()
    calibration = None
    if o["calibration_items"] is not None:
        if count:
            raise OptionError(
                "give the humans' share as --documents N or as --calibration-items N, not both "
                "(with --calibration-items, --documents may name the pool's documents file)"
            )
        calibration = plan_calibration(
            judge,
            o["calibration_items"],
            humans_per_item=o["annotators_per_block"] or 3,
            strategy=o["choose"] or "stratified",
            strata=o["strata"],
            seed=o["seed"],
        )
        picks = calibration.probabilities
    elif count:
        picks = choose_documents(
            judge, int(o["documents"]), strategy=o["choose"] or "random", strata=o["strata"], seed=o["seed"]
        )
    else:
        raise OptionError(
            "with --judge-scores, give how many documents the humans rate (--documents 20) or how many "
            "summaries the judge's calibration needs (--calibration-items 100)"
        )
    drawn = int(picks["selected"].sum())
    if strategy == "active" and count and drawn != int(o["documents"]):
        click.echo(
            f"warning: the active draw chose {drawn} of the {o['documents']} documents asked for: each "
            "document is drawn on its own with its probability, so the number varies around the one asked "
            "for; use --choose stratified or random for exactly that many",
            err=True,
        )
    chosen = [str(d) for d in picks.loc[picks["selected"], "document"]]
    systems = o["systems"] or (
        None if o["summaries"] else ",".join(sorted(judge["system"].astype(str).unique()))
    )
    return {
        **o,
        "documents": None if count else o["documents"],
        "chosen": chosen,
        "probabilities": picks,
        "systems": systems,
    }, calibration


def _documentation_files(design, o: dict) -> dict[str, Path]:
    """``--datasheet``, ``--heds`` and ``--prereg``: the datasheet (Markdown and JSON, and in the HEDS
    form's JSON) and the frozen preregistration (docs/reproducibility.md)."""
    stem = Path(o["out"]).with_suffix("")
    paths: dict[str, Path] = design.datasheet().write(stem) if o["datasheet"] else {}
    power = None
    if o["prereg"]:
        from humaneval.reproducibility.prereg import make_prereg, write_prereg

        prereg = make_prereg(design, design_file=str(o["out"]))
        paths["prereg"] = write_prereg(prereg, stem.with_name(stem.name + ".prereg.json"))
        power = {
            "method": "simulation of the planned design (humaneval power)",
            "script": prereg["power"]["command"],
        }
    if o["heds"]:
        from humaneval.reproducibility.heds import heds_from_design

        sheet = heds_from_design(design, power=power)
        paths["heds"] = sheet.write(stem.with_name(stem.name + ".heds.json"))
    return paths
