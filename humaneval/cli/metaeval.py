"""``humaneval metaeval``: how well do automatic metrics agree with human scores?"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from humaneval.cli._checks import IMAGE, NONNEG, RESAMPLES
from humaneval.cli._common import InputFile, emit, json_option
from humaneval.core.deprecation import renamed_option
from humaneval.errors import RatingsError
from humaneval.metaeval.bootstrap import MODE_ALIASES
from humaneval.metaeval.kernel import COEFFICIENTS
from humaneval.metaeval.report import ADJUSTMENTS

if TYPE_CHECKING:
    import pandas as pd

    from humaneval.metaeval.report import MetaEvalResult

CONFIDENCE = click.FloatRange(0, 1, min_open=True, max_open=True)


def parse_metric(spec: str) -> tuple[str, str, str | None]:
    """``NAME=FILE[:column]`` → (name, file, column or None)."""
    name, sep, rest = spec.partition("=")
    if not sep or not name.strip() or not rest.strip():
        raise RatingsError(
            f"--metric {spec!r}: write NAME=FILE or NAME=FILE:column, e.g. BAS=bartscore.csv:0"
        )
    path, column = rest, None
    if ":" in rest and not Path(rest).exists():
        path, column = rest.rsplit(":", 1)
    return name.strip(), path, column or None


@click.command()
@renamed_option("--bootstrap", "--resamples", dest="n_resamples", type=RESAMPLES)
@renamed_option("--confidence", "--confidence-level", type=CONFIDENCE)
@click.option(
    "--human",
    "human_path",
    required=True,
    type=InputFile(),
    help="Human scores: a ratings table (averaged per summary) or a table keyed by document and system.",
)
@click.option(
    "--criterion", default=None, help="Criterion to use when the human ratings table holds several."
)
@click.option(
    "--human-column",
    default=None,
    help="Score column of the human table (default: the first non-key column).",
)
@click.option(
    "--metric",
    "metric_specs",
    multiple=True,
    required=True,
    metavar="NAME=FILE[:column]",
    help="A metric's scores; repeat for several metrics.",
)
@click.option(
    "--levels",
    default="sys,sum,pair,intra,acc",
    show_default=True,
    help="Measures to compute (sys, sum, pair, intra, acc).",
)
@click.option(
    "--coefficient",
    type=click.Choice(sorted(set(COEFFICIENTS.values()))),
    default="kendall",
    show_default=True,
)
@click.option(
    "--resamples",
    "n_resamples",
    type=RESAMPLES,
    default=0,
    show_default=True,
    help="Bootstrap resamples for CIs (0 = none; the study used 1000).",
)
@click.option(
    "--mode",
    type=click.Choice(sorted(set(MODE_ALIASES.values()))),
    default="both",
    show_default=True,
    help="What the bootstrap resamples.",
)
@click.option(
    "--confidence-level", type=CONFIDENCE, default=0.95, show_default=True, help="Of the bootstrap CIs."
)
@click.option("--seed", type=NONNEG, default=None, help="Random seed for bootstrap and permutation test.")
@click.option(
    "--compare",
    "comparisons",
    multiple=True,
    metavar="A,B",
    help="Test whether metric A agrees better than B (paired bootstrap CI of A − B, permutation p).",
)
@click.option(
    "--adjust",
    type=click.Choice(ADJUSTMENTS),
    default="none",
    show_default=True,
    help="Multiple-comparison correction of the --compare p-values, per measure across the pairs.",
)
@click.option(
    "--permutations",
    type=click.IntRange(1, 1_000_000),
    default=1000,
    show_default=True,
    help="Permutations for --compare.",
)
@click.option(
    "--bias-matrix",
    "bias_path",
    type=IMAGE,
    default=None,
    help="Write the bias-matrix plot of every metric to this image file (and as PNG, SVG and PDF beside it).",
)
@click.option(
    "--intra-plot",
    "intra_path",
    type=IMAGE,
    default=None,
    help="Write the per-system τ_intra plot with bootstrap error bars to this image file "
    "(and as PNG, SVG and PDF beside it).",
)
@click.option("--document-col", default=None, help="Name of the document column in every table.")
@click.option("--system-col", default=None, help="Name of the system column in every table.")
@click.option(
    "--strict", is_flag=True, help="Fail when human and metric keys differ instead of using the intersection."
)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "markdown", "latex"]), default="text", show_default=True
)
@json_option
def command(
    human_path: str,
    criterion: str | None,
    human_column: str | None,
    metric_specs: tuple[str, ...],
    levels: str,
    coefficient: str,
    n_resamples: int,
    mode: str,
    confidence_level: float,
    seed: int | None,
    comparisons: tuple[str, ...],
    adjust: str,
    permutations: int,
    bias_path: str | None,
    intra_path: str | None,
    document_col: str | None,
    system_col: str | None,
    strict: bool,
    fmt: str,
    as_json: bool,
) -> None:
    """Meta-evaluate automatic metrics against human scores: τ_sys, τ_sum, τ_pair, τ_intra and
    pairwise accuracy, with bootstrap CIs, metric comparisons and bias matrices."""
    from humaneval.metaeval.report import compare_metrics

    keys = {"document_col": document_col, "system_col": system_col}
    human, metrics = _read_inputs(human_path, human_column, criterion, metric_specs, keys)
    result = _evaluate(
        human,
        metrics,
        _level_names(levels),
        coefficient=coefficient,
        n_resamples=n_resamples,
        mode=mode,
        confidence_level=confidence_level,
        seed=seed,
        strict=strict,
    )
    payload = result.to_dict()
    compared = compare_metrics(
        result, [_pair(pair) for pair in comparisons], n_permutations=permutations, adjust=adjust, seed=seed
    )
    if compared:
        payload["comparisons"] = compared
    if bias_path:
        payload["bias_matrix"] = _bias_plot(result, bias_path)
    if intra_path:
        payload["intra_plot"] = _intra_plot(result, intra_path, coefficient, seed)
    caption = f"{result.coefficient}; " + (
        f"{int(confidence_level * 100)} % bootstrap CI, {mode}, {n_resamples} resamples"
        if n_resamples
        else "no bootstrap"
    )
    emit(payload, as_json, lambda: _render(result, payload, compared, caption, fmt))


def _read_inputs(
    human_path: str,
    human_column: str | None,
    criterion: str | None,
    metric_specs: tuple[str, ...],
    keys: dict[str, str | None],
) -> tuple[pd.Series, dict[str, pd.Series]]:
    """The human scores and each ``--metric``'s scores by name (a name given twice is an error)."""
    from humaneval.metaeval.data import read_human, read_scores

    human = read_human(
        human_path,
        human_column,
        criterion=criterion,
        document_col=keys["document_col"],
        system_col=keys["system_col"],
    )
    metrics = {}
    for spec in metric_specs:
        name, path, column = parse_metric(spec)
        if name in metrics:
            raise RatingsError(
                f"--metric {spec!r}: the name {name!r} is used twice; give each metric its own name"
            )
        metrics[name] = read_scores(path, column, **keys)
    return human, metrics


def _level_names(levels: str) -> tuple[str, ...]:
    """``--levels`` as measure names, or one error line."""
    from humaneval.metaeval.levels import normalise_levels

    try:
        return normalise_levels(levels)
    except ValueError as exc:
        raise RatingsError(f"--levels {levels!r}: {exc}") from None


def _evaluate(
    human: pd.Series, metrics: dict[str, pd.Series], levels: tuple[str, ...], **options: Any
) -> MetaEvalResult:
    """:func:`~humaneval.metaeval.report.meta_evaluate`, its alignment warnings printed as notes."""
    from humaneval.metaeval.data import AlignmentWarning
    from humaneval.metaeval.report import meta_evaluate

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AlignmentWarning)
        result = meta_evaluate(human, metrics, levels, **options)
    for warning in caught:
        click.echo(f"note: {warning.message}", err=True)
    return result


def _render(
    result: MetaEvalResult, payload: dict[str, Any], compared: list[dict[str, Any]], caption: str, fmt: str
) -> str:
    """The results table in ``fmt`` (text, markdown, latex), then the comparisons and plot paths."""
    from humaneval.metaeval.report import comparison_blocks, to_latex, to_markdown
    from humaneval.present.renderers import blocks_to_markdown, blocks_to_text

    if fmt == "text":
        text = result.summary(caption, comparisons=compared)
    else:
        table = to_markdown if fmt == "markdown" else to_latex
        rendered = blocks_to_markdown if fmt == "markdown" else blocks_to_text
        text = table(result.table, caption=caption)
        if compared:
            text += "\n\n" + rendered(comparison_blocks(compared)).rstrip("\n")
    for key in ("bias_matrix", "intra_plot"):
        if key in payload:
            text += f"\n{key.replace('_', ' ')}: {payload[key]}"
    return text


def _pair(pair: str) -> tuple[str, str]:
    """``A,B`` → (A, B)."""
    a, sep, b = pair.partition(",")
    if not sep or not a.strip() or not b.strip():
        raise RatingsError(f"--compare {pair!r}: write A,B with two metric names, e.g. --compare BAS,RND")
    return a.strip(), b.strip()


def _bias_plot(result, path: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    from humaneval.metaeval.bias import bias_matrix, plot_bias_matrix
    from humaneval.present.plotting import save_figure

    matrices = {
        name: bias_matrix(result.scores.human, P, result.scores.systems)
        for name, P in result.scores.metrics.items()
    }
    save_figure(plot_bias_matrix(matrices), path)
    return path


def _intra_plot(result, path: str, coefficient: str, seed: int | None) -> str:
    import matplotlib

    matplotlib.use("Agg")
    from humaneval.metaeval.report import plot_intra_system
    from humaneval.present.plotting import save_figure

    save_figure(plot_intra_system(result.scores, coefficient=coefficient, seed=seed), path)
    return path
