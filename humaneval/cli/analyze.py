"""``humaneval analyze``: which systems differ (CLMM by default, classic tests on request)."""

from __future__ import annotations

import warnings
from pathlib import Path

import click
import pandas as pd

from humaneval.analysis.classic import TESTS
from humaneval.analysis.criteria import ACROSS_METHODS
from humaneval.analysis.fit import ENGINES
from humaneval.analysis.plan import CEILING_MINUTES
from humaneval.cli import _spans as spans
from humaneval.cli._checks import NONNEG, FiniteRange
from humaneval.cli._common import (
    InputFile,
    emit,
    json_option,
    judge_options,
    load_from_options,
    ratings_options,
)
from humaneval.clmm.contrasts import ADJUSTMENTS
from humaneval.clmm.links import CLMM_LINKS
from humaneval.clmm.spec import THRESHOLDS
from humaneval.clmm.structures import STRUCTURES
from humaneval.core.deprecation import renamed_option
from humaneval.errors import OptionError, RatingsError
from humaneval.ppi.judged import MODELS
from humaneval.stats.kernels import AGGREGATES

#: Files at least this large say they are being read before the (seconds-long) validation.
READ_NOTICE_BYTES = 8 * 2**20


@click.command()
@renamed_option("--model", "--structure", type=click.Choice(["auto", *STRUCTURES]))
@renamed_option("--rounds", "--permutations", dest="n_permutations", type=click.IntRange(1, 1_000_000))
@click.argument("ratings", type=InputFile())
@ratings_options
@click.option(
    "--test",
    type=click.Choice(["clmm", *TESTS, "plackett-luce"]),
    default="clmm",
    show_default=True,
    help="CLMM (recommended) or a classic test; pairwise and best-worst tables get their own models.",
)
@click.option(
    "--engine",
    type=click.Choice([e for e in ENGINES if e != "auto"]),
    default="native",
    show_default=True,
    help="native (fast), r (ordinal::clmm) or both (fit with both and report the largest differences).",
)
@click.option(
    "--structure",
    type=click.Choice(["auto", *STRUCTURES]),
    default="auto",
    show_default=True,
    help="Named random-effect structure, a shortcut for a formula "
    "(auto: nested for nested designs, else maximal).",
)
@click.option(
    "--formula",
    default=None,
    metavar="FORMULA",
    help='Any CLMM formula, e.g. "score ~ system + position + (1 + system | annotator) + (1 | document)".',
)
@click.option(
    "--scale-effects",
    "scale_effects",
    default=None,
    metavar="FORMULA",
    help='Annotators use the scale differently: "~ annotator" (a fixed log-spread each) or '
    '"~ (1|annotator)" (a random log-scale); native engine. See docs/analysis.md.',
)
@click.option("--link", type=click.Choice(CLMM_LINKS), default="logit", show_default=True)
@click.option(
    "--threshold",
    type=click.Choice(THRESHOLDS),
    default="flexible",
    show_default=True,
    help="Threshold structure of the CLMM.",
)
@click.option(
    "--emmeans", "emm", default=None, metavar="FACTOR", help="Compare the marginal means of this factor."
)
@click.option(
    "--by", default=None, metavar="FACTOR", help="Compare the --emmeans factor within each level of this one."
)
@click.option(
    "--compare",
    default=None,
    metavar="FORMULA",
    help="A nested formula tested against the fitted one by a likelihood-ratio test.",
)
@click.option(
    "--reference",
    default=None,
    metavar="SYSTEM|FACTOR=LEVEL",
    help="Reference level of the treatment coding: a system, or e.g. temp=warm for a formula's factor.",
)
@click.option(
    "--adjust",
    type=click.Choice(ADJUSTMENTS),
    default=None,
    help="Multiplicity adjustment (default: tukey for clmm/anova, holm for paired tests).",
)
@click.option(
    "--aggregate",
    type=click.Choice(AGGREGATES),
    default="none",
    show_default=True,
    help="Aggregation level of classic tests.",
)
@click.option("--criterion", default=None, help="Criterion to analyse when the table has several.")
@judge_options
@click.option(
    "--judge-model",
    type=click.Choice(MODELS),
    default="mean",
    show_default=True,
    help="With --judge or --judge-file, score tables: PPI++ means or proportional-odds contrasts "
    "(the same analysis as humaneval ppi, docs/ppi.md).",
)
@click.option(
    "--adjust-across-criteria",
    type=click.Choice(ACROSS_METHODS),
    default=None,
    help="Adjust the p-values of all criteria × pairs together (replaces each criterion's own adjustment).",
)
@click.option(
    "--inference",
    type=click.Choice(["mixed", "two-way", "pigeonhole", "annotator", "document", "naive", "model"]),
    default=None,
    help="Pairwise/BWS/ranking tables: standard errors from the mixed-effects Bradley–Terry model "
    "(default for pairwise), a cluster bootstrap (two-way: default for BWS and ranking), or treating "
    "judgements as independent (naive, model). See docs/analysis.md.",
)
@click.option(
    "--style-columns",
    default=None,
    metavar="COLUMNS",
    help="Pairwise tables: comma-separated columns holding a style difference of the row's system over "
    "its opponent (e.g. normalised length difference), entered as covariates of the Bradley–Terry "
    "model (style control). See docs/analysis.md.",
)
@click.option(
    "--win-counts",
    is_flag=True,
    help="Pairwise tables too large for memory (.parquet, .csv): read the file in chunks into win counts "
    "and fit the pooled Bradley–Terry model (--inference model or naive). See docs/analysis.md.",
)
@click.option("--no-fallback", is_flag=True, help="Fail instead of falling back to a simpler CLMM.")
@click.option(
    "--permutations",
    "n_permutations",
    type=click.IntRange(1, 1_000_000),
    default=1000,
    show_default=True,
    help="Random sign flips of the randomisation test (art).",
)
@click.option("--seed", type=NONNEG, default=None, help="Seed of the randomisation test.")
@click.option(
    "--max-minutes",
    type=FiniteRange(min=0, min_open=True),
    default=CEILING_MINUTES,
    show_default=True,
    help="Refuse a CLMM fit estimated to need more CPU minutes than this, naming cheaper structures "
    "(docs/analysis.md, 'Large studies'); raise it to fit anyway.",
)
@spans.texts_option
@spans.scoring_option
@json_option
def command(
    ratings: str,
    test: str,
    engine: str,
    structure: str,
    formula: str | None,
    link: str,
    threshold: str,
    emm: str | None,
    by: str | None,
    compare: str | None,
    reference: str | None,
    adjust: str | None,
    aggregate: str,
    criterion: str | None,
    judge: str | None,
    judge_file: str | None,
    judge_columns: dict[str, str],
    judge_model: str,
    adjust_across_criteria: str | None,
    inference: str | None,
    style_columns: str | None,
    win_counts: bool,
    no_fallback: bool,
    n_permutations: int,
    seed: int | None,
    max_minutes: float,
    scale_effects: str | None,
    as_json: bool,
    texts: str | None,
    scoring: str | None,
    **options,
) -> None:
    """Test which systems differ: system table with rank groups and pairwise contrasts."""
    if win_counts:
        return _win_counts(ratings, criterion, inference, adjust, seed, as_json)
    from humaneval.analysis.criteria import adjust_across, analyze_criteria
    from humaneval.analysis.workflow import analyze
    from humaneval.spans.table import SpanTable

    size = Path(ratings).stat().st_size
    if size >= READ_NOTICE_BYTES:
        click.echo(f"reading {ratings} ({size / 2**20:.0f} MiB)", err=True)
    table = _load(ratings, formula, options, texts, scoring)
    criteria: list[str | None]
    if isinstance(table, pd.DataFrame) or (formula is not None and "criterion" in formula):
        criteria = [None]
    else:
        criteria = [criterion] if criterion is not None else table.criteria
    options = dict(
        engine=engine, structure=structure, link=link, reference=reference, adjust=adjust,
        aggregate=aggregate, fallback=not no_fallback, n_permutations=n_permutations, seed=seed,
        formula=formula, threshold=threshold, emm=emm, by=by, compare=compare,
        progress=not as_json or engine == "native", inference=inference, max_minutes=max_minutes,
        style=tuple(c.strip() for c in (style_columns or "").split(",") if c.strip()), scale=scale_effects,
    )  # fmt: skip
    if judge is not None or judge_file is not None:
        from humaneval.core.judge_scores import read_judge_scores

        if formula is not None or test != "clmm" or adjust_across_criteria is not None:
            raise OptionError(
                "--judge analyses humans and a judge with the table kind's PPI estimator; it takes no "
                "--formula, --test or --adjust-across-criteria"
            )
        scores = None if judge_file is None else read_judge_scores(judge_file, columns=judge_columns)
        options = dict(
            adjust=adjust, seed=seed, judge=judge, judge_scores=scores, judge_model=judge_model,
        )  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if "judge" in options:
            results = [analyze(table, criterion=name, **options) for name in criteria]
        elif criteria == [None] or isinstance(table, SpanTable):
            results = [analyze(table, test, criterion=name, **options) for name in criteria]
            if adjust_across_criteria is not None:
                results = adjust_across(results, adjust_across_criteria)
        else:
            found = analyze_criteria(
                table, test, criteria=criteria, adjust_across_criteria=adjust_across_criteria, **options
            )
            results = list(found.analyses)
    for w in dict.fromkeys(str(w.message) for w in caught):
        click.echo(f"warning: {w}", err=True)
    payload = {"file": ratings, "criteria": [r.to_dict() for r in results]}
    if adjust_across_criteria is not None:
        payload["adjust_across_criteria"] = adjust_across_criteria
    emit(payload, as_json, lambda: "\n\n".join(_titled(r) for r in results))


def _win_counts(
    path: str,
    criterion: str | None,
    inference: str | None,
    adjust: str | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """``--win-counts``: the pooled Bradley–Terry analysis of the file's win counts, read in chunks."""
    from humaneval.comparative.counts import CHUNK_ROWS, analyze_counts, read_pair_counts
    from humaneval.ranks.analysis import with_rank_sets

    size = Path(path).stat().st_size
    click.echo(
        f"counting the comparisons of {path} ({size / 2**20:,.1f} MiB), {CHUNK_ROWS:,} rows at a time",
        err=True,
    )
    counts = read_pair_counts(path, criterion=criterion, progress=True)
    result = analyze_counts(
        counts, inference=inference or "model", adjust=adjust, seed=1 if seed is None else seed
    )
    result = with_rank_sets(result, seed=seed)
    read = {"rows": counts.n_rows, "comparisons": counts.n_comparisons}
    payload = {"file": path, "criteria": [{**result.to_dict(), "win_counts": read}]}
    emit(payload, as_json, lambda: _titled(result))


def _load(path: str, formula: str | None, options: dict, texts: str | None, scoring: str | None):
    """The ratings table, or the span table (its header: docs/spans.md); with --formula, a file that is
    not one is read as a plain table."""
    table = spans.span_table(path, texts, scoring)
    if table is not None:
        return table
    try:
        return load_from_options(path, **options)
    except RatingsError:
        if formula is None:
            raise
    suffix = Path(path).suffix.lower()
    try:
        if suffix in (".tsv", ".tab"):
            return pd.read_csv(path, sep="\t")
        if suffix == ".json":
            return pd.read_json(path)
        if suffix == ".parquet":
            return pd.read_parquet(path)
        return pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise RatingsError(f"{path}: cannot read the table ({exc})") from None


def _titled(result) -> str:
    text = result.summary()
    return text if result.criterion is None else f"== {result.criterion} ==\n{text}"
