"""``humaneval analyze``: which systems differ (CLMM by default, classic tests on request)."""

from __future__ import annotations

import warnings
from pathlib import Path

import click
import pandas as pd

from humaneval._deprecation import renamed_option
from humaneval.analysis.classic import AGGREGATES, TESTS
from humaneval.analysis.criteria import ACROSS_METHODS
from humaneval.analysis.fit import ENGINES
from humaneval.cli._checks import NONNEG
from humaneval.cli._common import InputFile, emit, json_option, load_from_options, ratings_options
from humaneval.clmm.contrasts import ADJUSTMENTS
from humaneval.clmm.links import CLMM_LINKS
from humaneval.clmm.spec import THRESHOLDS
from humaneval.clmm.structures import STRUCTURES
from humaneval.errors import RatingsError
from humaneval.methods import RANK, get_method, lower_is_better


def _fmt(value: float, digits: int = 3) -> str:
    if value != value:  # NaN
        return "-"
    return f"{value:.{digits}f}"


def _p(value: float) -> str:
    return "<.0001" if value < 1e-4 else f"{value:.4f}"


def _p_is(value: float) -> str:
    """``p < 0.0001`` or ``p = 0.0123``."""
    return "p < 0.0001" if value < 1e-4 else f"p = {value:.4f}"


def render(result) -> str:
    """The system table with groupings and the contrast table, as text."""
    lines = []
    fit = result.fit
    if fit is not None:
        reference = f"; reference {fit.reference}" if fit.reference is not None else ""
        lines.append(
            f"CLMM {fit.structure} ({fit.formula}), {fit.link} link, {fit.threshold} thresholds, "
            f"{fit.engine} engine{reference}; {fit.nobs} ratings"
        )
        d = fit.diagnostics
        lines.append(
            f"logLik {fit.loglik:.2f}, AIC {fit.aic:.2f}, BIC {fit.bic:.2f}, max.grad {d.max_grad:.1e}, "
            f"cond.H {d.cond_h:.1e}, {d.fit_seconds:.1f} s"
        )
        for attempt in fit.fallbacks:
            lines.append(f"  fallback: {attempt.structure} failed ({attempt.reason})")
        if fit.engine_comparison:
            c = fit.engine_comparison
            lines.append(
                f"native vs R: max |Δ logLik| {c['loglik']:.2e}, max |Δβ| {c['beta']:.2e} "
                f"({c['beta_term']}), max |Δp| {c['p']:.2e}; "
                f"{c['seconds'][0]:.2f} s vs {c['seconds'][1]:.2f} s"
            )
        if result.fit.structure == "formula" or result.emms is not None:
            lines += ["", f"{'term':<28} {'estimate':>9} {'SE':>7} {'z':>8} {'p':>8}"]
            for row in fit.fixed_effects().itertuples():
                lines.append(
                    f"{row.term:<28} {row.estimate:>9.4f} {row.se:>7.4f} {row.z:>8.3f} {_p(row.p):>8}"
                )
    else:
        lines.append(f"{result.test} test, aggregate={result.aggregate}")
    if result.emms is not None:
        return "\n".join(lines + _render_emms(result))
    unit = "mean rank (1 = best)" if lower_is_better(result.response) else "mean score"
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


def _render_emms(result) -> list[str]:
    """EMM tables, contrasts with odds ratios and the tests of a formula analysis."""
    emms = result.emms
    factor = [c for c in emms.columns if c not in ("emmean", "se", "ci_low", "ci_high", "mode")]
    lines = []
    for mode, part in emms.groupby("mode", sort=False):
        lines += ["", f"estimated marginal means ({mode}, 95% CI)"]
        for row in part.itertuples(index=False):
            label = " ".join(f"{k}={getattr(row, k)}" for k in factor)
            lines.append(
                f"  {label:<36} {row.emmean:>8.3f} {row.se:>7.3f}  [{row.ci_low:.3f}, {row.ci_high:.3f}]"
            )
    lines += ["", f"contrasts (adjust = {result.adjust}; latent scale; OR = odds ratio)"]
    for row in result.contrasts.itertuples():
        by = "".join(f" | {k}={getattr(row, k)}" for k in result.by_columns)
        odds = getattr(row, "odds_ratio", None)
        odds_text = (
            f"  OR {odds:.3f} [{row.or_low:.3f}, {row.or_high:.3f}]"
            if odds is not None and odds == odds
            else ""
        )
        lines.append(
            f"  {row.system_a} - {row.system_b}{by:<12} {row.estimate:>8.3f} {row.se:>7.3f} "
            f"p {_p(row.p_unadj)} p.adj {_p(row.p_adj)}{odds_text}"
        )
    if result.omnibus:
        o = result.omnibus
        lines.append(
            f"omnibus Wald test of {o['factor']}: χ²({o['df']}) = {o['statistic']:.3f}, {_p_is(o['p'])}"
        )
    if result.lr_test:
        t = result.lr_test
        lines.append(
            f"likelihood-ratio test vs {t['restricted']}: χ²({t['df']}) = {t['statistic']:.3f}, "
            f"{_p_is(t['p'])}; AIC {t['aic_restricted']:.2f} → {t['aic_full']:.2f}, "
            f"BIC {t['bic_restricted']:.2f} → {t['bic_full']:.2f}"
        )
    return lines


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
@click.option("--reference", default=None, metavar="SYSTEM", help="Reference system of the treatment coding.")
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
@click.option(
    "--adjust-across-criteria",
    type=click.Choice(ACROSS_METHODS),
    default=None,
    help="Adjust the p-values of all criteria × pairs together (replaces each criterion's own adjustment).",
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
    adjust_across_criteria: str | None,
    no_fallback: bool,
    n_permutations: int,
    seed: int | None,
    as_json: bool,
    **options,
) -> None:
    """Test which systems differ: system table with rank groups and pairwise contrasts."""
    from humaneval.analysis.analyze import analyze

    table = _load(ratings, formula, options)
    if isinstance(table, pd.DataFrame) or (formula is not None and "criterion" in formula):
        criteria = [None]
    else:
        criteria = [criterion] if criterion is not None else table.criteria
    from humaneval.comparative import analyze_comparative, detect_kind

    if not isinstance(table, pd.DataFrame) and (
        test == "plackett-luce"
        or (test == "clmm" and formula is None and get_method(detect_kind(table)).analysis == "comparative")
    ):
        kind = {"plackett-luce": get_method(RANK).table_kind}.get(test)
        seed = 1 if seed is None else seed
        found = [
            analyze_comparative(table, kind=kind, criterion=name, adjust=adjust, seed=seed)
            for name in criteria
        ]
        payload = {"file": ratings, "criteria": [r.to_dict() for r in found]}
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
                structure=structure,
                link=link,
                reference=reference,
                adjust=adjust,
                aggregate=aggregate,
                criterion=name,
                fallback=not no_fallback,
                n_permutations=n_permutations,
                seed=seed,
                formula=formula,
                threshold=threshold,
                emm=emm,
                by=by,
                compare=compare,
                progress=engine in ("r", "both") and not as_json,
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
    if adjust_across_criteria is not None:
        from humaneval.analysis.criteria import adjust_across

        results = adjust_across(results, adjust_across_criteria)
    payload = {"file": ratings, "criteria": [r.to_dict() for r in results]}
    if adjust_across_criteria is not None:
        payload["adjust_across_criteria"] = adjust_across_criteria
    emit(payload, as_json, lambda: "\n\n".join(_titled(r) for r in results))


def _load(path: str, formula: str | None, options: dict):
    """The ratings table; with --formula, a file that is not one is read as a plain table."""
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
    text = render(result)
    return text if result.criterion is None else f"== {result.criterion} ==\n{text}"
