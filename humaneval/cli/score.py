"""``humaneval score faithfulness|bias|coherence INPUT``: the bundled offline scorers."""

from __future__ import annotations

import click

from humaneval.cli._checks import NONNEG, OutputPath
from humaneval.cli._common import InputFile, emit, json_option
from humaneval.core.deprecation import renamed_option
from humaneval.errors import RatingsError
from humaneval.scorers.bias import MEASURES
from humaneval.scorers.ffci import (
    ASPECTS,
    COVERAGE_LAYER,
    FAITHFULNESS_LAYER,
    FAITHFULNESS_MODEL,
    FOCUS_LAYER,
    FOCUS_MODEL,
    NSP_MODEL,
)
from humaneval.scorers.nli import MODES as NLI_MODES


def _out_option(func):
    return click.option(
        "--out",
        type=OutputPath(),
        default=None,
        help="Write the table here (.csv, .tsv or .jsonl) instead of printing it.",
    )(func)


def _device_option(func):
    from humaneval.scorers.models import DEVICES

    return click.option(
        "--device",
        type=click.Choice(DEVICES),
        default="auto",
        show_default=True,
        help="auto: CUDA, then Apple MPS, then the CPU.",
    )(func)


def _allow_pickle_option(func):
    return click.option(
        "--allow-pickle",
        is_flag=True,
        help="Load pickled weights (pytorch_model.bin) of a model without safetensors; they can run code "
        "when loaded, so only for files you trust.",
    )(func)


def _finish(table, payload: dict, out: str | None, as_json: bool) -> None:
    from humaneval.io.tables import write_table
    from humaneval.present.printable import frame_table
    from humaneval.present.renderers import blocks_to_text

    if out:
        write_table(table, out)
    payload = {**payload, "out": out, "rows": table}
    header = "\n".join(f"{k}: {payload[k]}" for k in ("scorer", "method") if k in payload)
    emit(
        payload,
        as_json,
        lambda: (
            header
            + (
                f"\nwrote {len(table)} rows to {out}"
                if out
                else "\n" + blocks_to_text([frame_table(table, list(table.columns))])
            )
        ),
    )


@click.group()
def command() -> None:
    """Score summaries with the bundled scorers; outputs join with ``humaneval metaeval``."""


@command.command("faithfulness")
@click.argument("input_path", type=InputFile())
@click.option(
    "--backend",
    type=click.Choice(["nli", "summac-zs", "lexical"]),
    default="nli",
    show_default=True,
    help="lexical is the labelled non-NLI fallback.",
)
@click.option(
    "--model",
    default=None,
    help="NLI model: Hugging Face hub id (cached on first use), local directory or pkg:PACKAGE/SUBDIR "
    "[$HUMANEVAL_NLI_MODEL]; see docs/scorers.md for the documented checkpoints.",
)
@click.option("--revision", default=None, help="Branch, tag or commit of a hub model [main].")
@click.option(
    "--k", type=click.IntRange(min=1), default=15, show_default=True, help="MC-dropout passes (1 = off)."
)
@click.option("--mode", type=click.Choice(NLI_MODES), default="e-c", show_default=True)
@click.option(
    "--pair-mode", type=click.Choice(["e", "e-c"]), default="e", show_default=True, help="summac-zs only."
)
@click.option("--seed", type=NONNEG, default=0, show_default=True)
@click.option("--batch-size", type=click.IntRange(min=1), default=8, show_default=True)
@click.option("--max-length", type=click.IntRange(min=8), default=512, show_default=True)
@_device_option
@click.option("--label-order", default=None, help="Comma-separated label of every model output, in order.")
@_allow_pickle_option
@_out_option
@json_option
def faithfulness(input_path, backend, model, revision, k, mode, pair_mode, seed, batch_size, max_length,
                 device, label_order, allow_pickle, out, as_json) -> None:  # fmt: skip
    """Faithfulness of each summary to its source (columns document, system, source, summary)."""
    from humaneval.scorers.faithfulness import score_faithfulness
    from humaneval.scorers.inputs import metric_table, read_text_table

    frame = read_text_table(input_path, ("document", "system", "source", "summary"))
    options = {}
    if backend == "nli":
        options = {"k": k, "mode": mode, "seed": seed}
    elif backend == "summac-zs":
        options = {"k": k, "pair_mode": pair_mode, "seed": seed}
    common = {"model": model, "revision": revision, "max_length": max_length, "batch_size": batch_size,
              "device": device, "allow_pickle": allow_pickle}  # fmt: skip
    if label_order:
        common["label_order"] = [s.strip() for s in label_order.split(",")]
    result = score_faithfulness(
        frame["source"].tolist(), frame["summary"].tolist(), backend=backend,
        **({} if backend == "lexical" else common), **options,
    )  # fmt: skip
    meta = {key: value for key, value in result.meta.items() if key != "sd"}
    table = metric_table(frame, result, "faithfulness")
    _finish(table, {"scorer": "faithfulness", "method": result.method, "meta": meta}, out, as_json)


@command.command("coherence")
@click.argument("input_path", type=InputFile())
@click.option(
    "--measure",
    type=click.Choice(["entity-graph", "repeated-ngrams", "adjacent-cohesion", "redundancy"]),
    default="entity-graph",
    show_default=True,
)
@click.option(
    "--n", "ngram", type=click.IntRange(min=1), default=2, show_default=True, help="repeated-ngrams only."
)
@click.option(
    "--builder",
    type=click.Choice(["auto", "spacy", "lexical"]),
    default="auto",
    show_default=True,
    help="Entity grid: spaCy dependency roles, or the labelled lexical approximation (no parser needed).",
)
@click.option(
    "--spacy-model",
    default="en_core_web_sm",
    show_default=True,
    help="spaCy pipeline (package name or path) with a parser; install: python -m spacy download NAME.",
)
@click.option(
    "--weights",
    type=click.Choice(["syntactic", "count", "unweighted"]),
    default="syntactic",
    show_default=True,
)
@click.option("--no-distance-discount", is_flag=True, help="Do not divide arc weights by sentence distance.")
@_out_option
@json_option
def coherence(input_path, measure, ngram, builder, spacy_model, weights, no_distance_discount, out,
              as_json) -> None:  # fmt: skip
    """Coherence of each summary (columns document, system, summary): entity graph by default."""
    from humaneval.scorers import cohesion
    from humaneval.scorers.coherence import entity_graph_coherence
    from humaneval.scorers.inputs import metric_table, read_text_table

    frame = read_text_table(input_path, ("document", "system", "summary"))
    texts = frame["summary"].tolist()
    if measure == "entity-graph":
        result = entity_graph_coherence(
            texts,
            builder=builder,
            nlp=spacy_model,
            weights=weights,
            distance_discount=not no_distance_discount,
        )
    elif measure == "repeated-ngrams":
        result = cohesion.repeated_ngram_share(texts, n=ngram)
    elif measure == "adjacent-cohesion":
        result = cohesion.adjacent_cohesion(texts)
    else:
        result = cohesion.redundancy_penalty(texts)
    table = metric_table(frame, result, "coherence")
    _finish(table, {"scorer": "coherence", "method": result.method, "meta": result.meta}, out, as_json)


@command.command("ffci")
@click.argument("input_path", type=InputFile())
@click.option(
    "--aspects",
    default=",".join(ASPECTS),
    show_default=True,
    help="Comma-separated FFCI aspects; focus and coverage need a reference column.",
)
@click.option(
    "--backend",
    type=click.Choice(["bertscore", "lexical"]),
    default="bertscore",
    show_default=True,
    help="bertscore: the published backbones; lexical: ROUGE and exact tokens (no model).",
)
@click.option("--model", default=FAITHFULNESS_MODEL, show_default=True, help="Faithfulness BERTScore model.")
@click.option("--layer", type=click.IntRange(min=1), default=FAITHFULNESS_LAYER, show_default=True)
@click.option("--top-n", type=click.IntRange(min=1), default=None, help="AvgTop-n [3 bertscore, 2 lexical].")
@click.option("--sim", type=click.Choice(["rouge1", "rouge2"]), default="rouge1", show_default=True,
              help="lexical faithfulness similarity.")  # fmt: skip
@click.option("--focus-model", default=FOCUS_MODEL, show_default=True, help="Focus/coverage BERTScore model.")
@click.option("--focus-layer", type=click.IntRange(min=1), default=FOCUS_LAYER, show_default=True)
@click.option("--coverage-layer", type=click.IntRange(min=1), default=COVERAGE_LAYER, show_default=True)
@click.option("--nsp-model", default=NSP_MODEL, show_default=True, help="Next-sentence model for coherence.")
@click.option("--revision", default=None, help="Branch, tag or commit of the hub models [main].")
@click.option("--batch-size", type=click.IntRange(min=1), default=32, show_default=True)
@_device_option
@_allow_pickle_option
@_out_option
@json_option
def ffci(input_path, aspects, backend, model, layer, top_n, sim, focus_model, focus_layer, coverage_layer,
         nsp_model, revision, batch_size, device, allow_pickle, out, as_json) -> None:  # fmt: skip
    """FFCI faithfulness, focus, coverage and coherence (columns document, system, summary; source for
    faithfulness, reference for focus and coverage)."""
    from humaneval.scorers.ffci import score_ffci
    from humaneval.scorers.inputs import metric_table, read_text_table

    wanted = [a.strip() for a in aspects.split(",") if a.strip()]
    frame = read_text_table(input_path, ("document", "system", "summary"))
    column = {c: frame[c].tolist() if c in frame.columns else None for c in ("source", "reference")}
    options = (
        {}
        if backend == "lexical"
        else {"revision": revision, "device": device, "batch_size": batch_size, "allow_pickle": allow_pickle}
    )
    results = score_ffci(
        column["source"], column["reference"], frame["summary"].tolist(), aspects=wanted, backend=backend,
        model=model, layer=layer, top_n=top_n, focus_model=focus_model, focus_layer=focus_layer,
        coverage_layer=coverage_layer, nsp_model=nsp_model, sim=sim, **options,
    )  # fmt: skip
    table = frame[["document", "system"]].reset_index(drop=True)
    for aspect, result in results.items():
        table[f"ffci_{aspect}"] = metric_table(frame, result, aspect)[aspect].to_numpy()
    methods = {aspect: result.method for aspect, result in results.items()}
    meta = {aspect: result.meta for aspect, result in results.items()}
    _finish(table, {"scorer": "ffci", "method": methods, "meta": meta}, out, as_json)


@command.command("bias")
@renamed_option("--bootstrap", "--resamples", dest="n_resamples", type=click.IntRange(1, 1_000_000))
@click.argument("input_path", type=InputFile())
@click.option(
    "--measure",
    "measures",
    multiple=True,
    type=click.Choice(MEASURES),
    help="Measures to compute (repeatable; default: those the input's columns support).",
)
@click.option("--spacy-model", default=None, help="Installed spaCy pipeline for PERSON entities [heuristic].")
@click.option(
    "--embedding-model",
    default=None,
    help="Local sentence-embedding model directory for distinguishability [bag of words].",
)
@click.option("--smoothing", type=click.FloatRange(min=0), default=0.0, show_default=True)
@click.option("--name-table", type=InputFile(), default=None, help="Table with columns name, group.")
@click.option(
    "--resamples", "n_resamples", type=click.IntRange(1, 1_000_000), default=1000, show_default=True
)
@click.option("--seed", type=NONNEG, default=0, show_default=True)
@_allow_pickle_option
@_out_option
@json_option
def bias(input_path, measures, spacy_model, embedding_model, smoothing, name_table, n_resamples, seed,
         allow_pickle, out, as_json) -> None:  # fmt: skip
    """Bias scores per system with bootstrap CIs over documents (d) and name samples (s).

    Columns: document (or cluster), system, source, summary; optional sample, group, entities.
    """
    from humaneval.io.tables import read_table
    from humaneval.scorers.bias import bias_report
    from humaneval.scorers.embeddings import embedding_similarity
    from humaneval.scorers.inputs import read_text_table
    from humaneval.scorers.ner import spacy_persons

    frame = read_text_table(input_path, ("system", "source", "summary"))
    if "cluster" not in frame.columns:
        if "document" not in frame.columns:
            raise RatingsError(f"{input_path}: needs a cluster or document column (the original document)")
        frame["cluster"] = frame["document"]
    table = None
    if name_table:
        names = read_table(name_table, what="name table")
        if not {"name", "group"} <= set(names.columns):
            raise RatingsError(
                f"{name_table}: needs columns name and group; found {', '.join(names.columns)}"
            )
        table = dict(zip(names["name"].astype(str), names["group"].astype(str), strict=True))
    report = bias_report(
        frame,
        ner=spacy_persons(spacy_model) if spacy_model else None,
        measures=measures or None,
        smoothing=smoothing,
        table=table,
        similarity=embedding_similarity(embedding_model, allow_pickle=allow_pickle)
        if embedding_model
        else "bow",
        n_resamples=n_resamples,
        seed=seed,
    )
    ner = f"spacy:{spacy_model}" if spacy_model else "heuristic-capitalised-runs"
    _finish(report, {"scorer": "bias", "method": f"bias (persons: {ner})", "n_resamples": n_resamples,
                     "seed": seed}, out, as_json)  # fmt: skip
