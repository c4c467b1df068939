"""``humaneval analyze``: which systems differ (CLMM by default, classic tests on request)."""

from __future__ import annotations

import warnings

import click

from humaneval.cli._common import emit, json_option, load_from_options, ratings_options
from humaneval.model import LINKS


def _fmt(value: float, digits: int = 3) -> str:
    if value != value:  # NaN
        return "-"
    return f"{value:.{digits}f}"


def _p(value: float) -> str:
    return "<.0001" if value < 1e-4 else f"{value:.4f}"


def render(result) -> str:
    """The system table with groupings and the contrast table, as text."""
    lines = []
    fit = result.fit
    if fit is not None:
        lines.append(
            f"CLMM {fit.structure} ({fit.formula}), {fit.link} link, {fit.engine} engine; "
            f"reference {fit.reference}; {fit.nobs} ratings"
        )
        d = fit.diagnostics
        lines.append(
            f"logLik {fit.loglik:.2f}, AIC {fit.aic:.2f}, max.grad {d.max_grad:.1e}, cond.H {d.cond_h:.1e}, "
            f"{d.fit_seconds:.1f} s"
        )
        for attempt in fit.fallbacks:
            lines.append(f"  fallback: {attempt.structure} failed ({attempt.reason})")
    else:
        lines.append(f"{result.test} test, aggregate={result.aggregate}")
    unit = "mean rank (1 = best)" if result.response == "rank" else "mean score"
    lines += ["", f"{'system':<20} {unit:<22} letters  estimate"]
    for row in result.systems.itertuples():
        lines.append(f"{row.system:<20} {row.label:<22} {row.letters:<8} {_fmt(row.estimate)}")
    lines += ["", f"contrasts (adjust = {result.adjust}; positive = first system better)"]
    header = f"{'contrast':<36} {'estimate':>9} {'SE':>7} {'stat':>8} {'p':>8} {'p adj':>8}  CI"
    lines.append(header)
    for row in result.contrasts.itertuples():
        name = f"{row.system_a} - {row.system_b}"
        ci = "" if row.ci_low != row.ci_low else f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
        lines.append(
            f"{name:<36} {_fmt(row.estimate):>9} {_fmt(row.se):>7} {_fmt(row.statistic):>8} "
            f"{_p(row.p_unadj):>8} {_p(row.p_adj):>8}  {ci}"
        )
    return "\n".join(lines)


@click.command()
@click.argument("ratings", type=click.Path(dir_okay=False))
@ratings_options
@click.option(
    "--test",
    type=click.Choice(["clmm", "ttest", "art", "wilcoxon", "anova", "plackett-luce"]),
    default="clmm",
    show_default=True,
    help="CLMM (recommended) or a classic test; pairwise and best-worst tables get their own models.",
)
@click.option("--engine", type=click.Choice(["auto", "r", "native"]), default="auto", show_default=True)
@click.option(
    "--model",
    type=click.Choice(["auto", "maximal", "nested", "uncorrelated", "intercepts"]),
    default="auto",
    show_default=True,
    help="Random-effect structure (auto: nested for nested designs, else maximal).",
)
@click.option("--link", type=click.Choice(LINKS), default="logit", show_default=True)
@click.option("--reference", default=None, metavar="SYSTEM", help="Reference system of the treatment coding.")
@click.option(
    "--adjust",
    type=click.Choice(["tukey", "holm", "bonferroni", "none"]),
    default=None,
    help="Multiplicity adjustment (default: tukey for clmm/anova, holm for paired tests).",
)
@click.option(
    "--aggregate",
    type=click.Choice(["none", "document", "cluster"]),
    default="none",
    show_default=True,
    help="Aggregation level of classic tests.",
)
@click.option("--criterion", default=None, help="Criterion to analyse when the table has several.")
@click.option("--no-fallback", is_flag=True, help="Fail instead of falling back to a simpler CLMM.")
@click.option("--rounds", type=int, default=1000, show_default=True, help="Rounds of the randomisation test.")
@click.option("--seed", type=int, default=None, help="Seed of the randomisation test.")
@json_option
def command(
    ratings: str,
    test: str,
    engine: str,
    model: str,
    link: str,
    reference: str | None,
    adjust: str | None,
    aggregate: str,
    criterion: str | None,
    no_fallback: bool,
    rounds: int,
    seed: int | None,
    as_json: bool,
    **options,
) -> None:
    """Test which systems differ: system table with rank groups and pairwise contrasts."""
    from humaneval.analysis.analyze import analyze

    table = load_from_options(ratings, **options)
    criteria = [criterion] if criterion is not None else table.criteria
    from humaneval.comparative import analyze_comparative, detect_kind

    if test == "plackett-luce" or (test == "clmm" and detect_kind(table) in ("pairwise", "bws")):
        kind = "ranking" if test == "plackett-luce" else None
        seed = 1 if seed is None else seed
        found = [
            analyze_comparative(table, kind=kind, criterion=name, adjust=adjust, seed=seed)
            for name in criteria
        ]
        payload = {"file": ratings, "criteria": [r.to_dict() for r in found]}
        if len(found) == 1:
            payload = {"file": ratings, **found[0].to_dict()}
        titled = (
            r.summary() if r.criterion is None else f"== {r.criterion} ==\n{r.summary()}" for r in found
        )
        return emit(payload, as_json, lambda: "\n\n".join(titled))
    results = []
    for name in criteria:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = analyze(
                table,
                test,
                engine=engine,
                model=model,
                link=link,
                reference=reference,
                adjust=adjust,
                aggregate=aggregate,
                criterion=name,
                fallback=not no_fallback,
                rounds=rounds,
                seed=seed,
            )
        prefix = f"{name}: " if name is not None else ""
        for w in caught:
            click.echo(f"warning: {prefix}{w.message}", err=True)
        if test != "clmm" and not result.independent:
            click.echo(
                f"warning: {prefix}{test} treats the {aggregate}-level units as independent, but they share "
                "annotators or documents; p-values are too small. Use the CLMM or --aggregate cluster.",
                err=True,
            )
        results.append(result)
    if test == "anova":
        click.echo(
            "warning: one-way ANOVA ignores the pairing and grouping factors (not recommended)", err=True
        )
    if len(results) == 1:
        payload = {"file": ratings, **results[0].to_dict()}
    else:
        payload = {"file": ratings, "criteria": [r.to_dict() for r in results]}
    emit(payload, as_json, lambda: "\n\n".join(_titled(r) for r in results))


def _titled(result) -> str:
    text = render(result)
    return text if result.criterion is None else f"== {result.criterion} ==\n{text}"
