"""Write a :class:`~humaneval.report.build.StudyReport` to disk: index.html, figures, JSON, Markdown, LaTeX.

The HTML page is ``templates/report.html.j2`` (jinja2, autoescaping on, inline CSS, figures as PNG
files next to it). Every number is formatted by :mod:`humaneval.formatting` and shared by the HTML,
Markdown and LaTeX outputs, so all three show the same digits as ``report.json``.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import numpy as np

from humaneval import __version__
from humaneval.analysis.prepare import select_criterion
from humaneval.formatting import fmt, fmt_ci, fmt_p, fmt_power
from humaneval.methods import lower_is_better
from humaneval.reliability.report import ReliabilityReport
from humaneval.report import figures
from humaneval.report.build import CriterionReport, StudyReport
from humaneval.report.cautions import plural
from humaneval.serialization import jsonable

QC_FLAGS = {
    "prolific_rejection_eligible": "failed ≥ 2 checks",
    "too_fast": "too fast",
    "straight_line": "same answer throughout",
    "long_run": "long run of one answer",
}


def write_report(report: StudyReport, out: str | Path) -> dict[str, Path]:
    """Write every file of the report into ``out``; returns the paths by name."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, Path] = {}
    views = [_criterion_view(report, part, out, files) for part in report.criteria]
    view = _study_view(report, views)
    view.update(criteria_view(report, views))
    files["json"] = out / "report.json"
    files["json"].write_text(json.dumps(jsonable(report.to_dict()), indent=1, ensure_ascii=False) + "\n")
    files["markdown"] = out / "report.md"
    files["markdown"].write_text(markdown(view), encoding="utf-8")
    files["latex"] = out / "results.tex"
    files["latex"].write_text(latex(view), encoding="utf-8")
    if report.datasheet_markdown:
        files["datasheet"] = out / "datasheet.md"
        files["datasheet"].write_text(report.datasheet_markdown, encoding="utf-8")
    files["html"] = out / "index.html"
    files["html"].write_text(html(view), encoding="utf-8")
    return files


def html(view: dict[str, Any]) -> str:
    from humaneval.forms.render import environment

    return environment().get_template("report.html.j2").render(**view)


def criteria_view(report: StudyReport, views: list[dict[str, Any]]) -> dict[str, Any]:
    """The systems × criteria summary, the correlations between criteria, and each criterion's
    declared scale (added to its view as ``scale``)."""
    for part, c in zip(report.criteria, views, strict=True):
        declared = report.ratings.scale_of(part.criterion)
        c["scale"] = "" if declared is None else declared.describe()
    table = report.criteria_table()
    summary = None
    if table is not None:
        summary = {
            "criteria": list(table.columns),
            "rows": [{"system": system, "cells": list(row)} for system, row in table.iterrows()],
        }
    correlations = [
        {
            "pair": f"{r['criterion_a']} – {r['criterion_b']}",
            "rho": fmt(r["rho"]),
            "n": r["n_judgements"],
            "within": fmt(r["rho_within_annotator"]),
            "n_annotators": r["n_annotators"],
            "systems": fmt(r["rho_systems"]),
        }
        for r in ([] if report.correlations is None else report.correlations.to_dict())
    ]
    return {"criteria_summary": summary, "correlations": correlations}


def _stem(part: CriterionReport) -> str:
    return "" if part.criterion is None else "-" + "".join(c if c.isalnum() else "_" for c in part.criterion)


def _criterion_view(report: StudyReport, part: CriterionReport, out: Path, files: dict[str, Path]) -> dict:
    analysis, rel, fit = part.analysis, part.reliability, part.analysis.fit
    table = part.table
    order = list(table["system"])
    stem = _stem(part)
    ratings = select_criterion(report.ratings, part.criterion)
    figs = {
        "distributions": figures.score_distributions(ratings, order, out / f"distributions{stem}.png"),
        "means": figures.means_figure(table, analysis.response, out / f"means{stem}.png"),
        "significance": figures.significance_matrix(
            analysis.contrasts, order, out / f"significance{stem}.png"
        ),
    }
    if rel is not None and rel.time_curve:
        figs["time_curve"] = figures.time_curve_figure(rel.time_curve, out / f"time_curve{stem}.png")
    if part.power is not None and _power_shown(part.power.pairs):
        figs["power"] = figures.power_figure(part.power.pairs, part.power.target, out / f"power{stem}.png")
    for k, v in figs.items():
        files[f"{k}{stem}"] = v
        files.update({f"{k}{stem}.{fmt}": v.with_suffix(f".{fmt}") for fmt in ("svg", "pdf")})
    systems = [
        {
            "system": r.system,
            "mean": fmt(r.mean, 2),
            "ci": fmt_ci(r.ci_low, r.ci_high, 2),
            "rank_group": r.rank_group,
            "letters": r.letters,
            "estimate": fmt(r.estimate),
            "label": r.label,
        }
        for r in table.itertuples()
    ]
    contrasts = [
        {
            "a": r.system_a,
            "b": r.system_b,
            "estimate": fmt(r.estimate),
            "se": fmt(r.se),
            "z": fmt(r.statistic, 2),
            "p": fmt_p(r.p_unadj),
            "p_adj": fmt_p(r.p_adj),
            "ci": fmt_ci(r.ci_low, r.ci_high),
            "better": r.better or "–",
        }
        for r in analysis.contrasts.itertuples()
    ]
    d = fit.diagnostics
    model = {
        "structure": fit.structure,
        "family": getattr(fit, "family", "cumulative link mixed model"),
        "abbrev": getattr(fit, "abbrev", "CLMM"),
        "formula": fit.formula,
        "link": fit.link,
        "engine": fit.engine,
        "reference": fit.reference,
        "nobs": fit.nobs,
        "loglik": fmt(fit.loglik, 2),
        "aic": fmt(fit.aic, 2),
        "max_grad": f"{d.max_grad:.1e}",
        "cond_h": f"{d.cond_h:.1e}",
        "seconds": fmt(d.fit_seconds, 1),
        "adjust": analysis.adjust,
        "fallbacks": [f"{a.structure} ({a.engine}): {a.reason}" for a in fit.fallbacks],
        "n_significant": int(analysis.contrasts["better"].notna().sum()),
        "n_pairs": len(analysis.contrasts),
    }
    reliability = None if rel is None else _reliability_view(rel)
    interval = part.means_interval
    return {
        "criterion": part.criterion,
        "title": part.criterion or "",
        "response": analysis.response,
        "mean_unit": getattr(
            analysis,
            "mean_unit",
            "mean rank (1 = best)" if lower_is_better(analysis.response) else "mean score",
        ),
        "figures": {k: v.name for k, v in figs.items()},
        "widths": {k: figures.css_width(v) for k, v in figs.items()},
        "systems": systems,
        "interval_note": None if interval is None or interval.caveat is None else interval.caveat,
        "intervals_shown": interval is None or interval.computed,
        "contrasts": contrasts,
        "model": model,
        "reliability": reliability,
        "reliability_error": part.reliability_error,
        "agreement": _agreement_view(part),
        "comparative_power": _comparative_power_view(part),
        "power": _power_view(part),
    }


def _agreement_view(part: CriterionReport) -> dict[str, Any] | None:
    """Agreement on comparative choices (pairwise winners, best and worst of a tuple), if computed."""
    agreement = getattr(part, "agreement", None)
    if agreement is None:
        return None
    return {
        "n_resamples": agreement.n_resamples,
        "choices": [
            {
                "choice": c.choice,
                "alpha": fmt(c.alpha),
                "ci": fmt_ci(*c.ci),
                "observed": fmt(c.observed_agreement),
                "majority": fmt(c.majority_share),
                "n_units": c.n_units,
                "n_judgements": c.n_judgements,
            }
            for c in agreement.choices
        ],
    }


def _comparative_power_view(part: CriterionReport) -> dict[str, Any] | None:
    """Observed power of a pairwise or best–worst study's own design, if simulated."""
    power = getattr(part, "comparative_power", None)
    if power is None:
        return None
    overall = power.overall().iloc[0]
    d = power.design.to_dict()
    return {
        "design": f"{d['judgements']} judgements by {d['annotators']} annotators",
        "trials": int(overall["n_trials"]),
        "model": f"{overall['test']} ({overall['aggregate']})",
        "annotator_sd": f"{power.annotator_sd:.2f}",
        "pairs": [
            {
                "pair": r.pair,
                "difference": fmt(r.true_difference),
                "power": fmt_power(r.rate, r.ci_low, r.ci_high),
            }
            for r in power.results.itertuples()
            if r.pair != "all"
        ],
    }


def _reliability_view(rel: ReliabilityReport) -> dict[str, Any]:
    """The reliability numbers as the page shows them."""
    return {
        "alpha": fmt(rel.alpha),
        "level_of_measurement": rel.level_of_measurement,
        "alpha_ci": fmt_ci(*rel.alpha_ci) if rel.alpha_ci else "–",
        "n_resamples": rel.n_resamples,
        "alpha_q": [{"min": f"{k:g}", "p": fmt(v)} for k, v in rel.alpha_q.items()],
        "fleiss_kappa": fmt(rel.fleiss_kappa),
        "shr": fmt(rel.shr),
        "shr_sd": fmt(rel.shr_sd),
        "shr_spearman_brown": fmt(rel.shr_spearman_brown),
        "shr_quantiles": fmt_ci(rel.shr_quantiles[0], rel.shr_quantiles[2]) if rel.shr_quantiles else "–",
        "shr_n_splits": rel.shr_n_splits,
        "shr_caveat": rel.shr_caveat,
        "n_pairable": rel.n_pairable,
        "n_pairable_units": rel.n_pairable_units,
        "seed": rel.seed,
        "notes": list(rel.notes),
    }


def _power_view(part: CriterionReport) -> dict[str, Any] | None:
    note = part.power
    if note is None:
        return None
    clmm = note.clmm_trials > 0
    art = note.artagg_can_reject
    pairs = [
        {
            "pair": r.pair,
            "difference": fmt(r.true_difference),
            "artagg": fmt_power(r.artagg, r.artagg_ci_low, r.artagg_ci_high) if art else "cannot reject",
            "clmm": fmt_power(r.clmm, r.clmm_ci_low, r.clmm_ci_high) if clmm else "–",
        }
        for r in note.pairs.itertuples()
    ]
    search = [
        {
            "design": f"{int(r.blocks)} × {int(r.docs)} × {int(r.annotators)}",
            "family": r.family.replace("_", " "),
            "judgements": int(r.judgements),
            "power": fmt_power(r.power, r.ci_low, r.ci_high),
        }
        for r in note.search.itertuples()
    ]
    reaching = None
    if note.reaching is not None:
        r = note.reaching
        reaching = (
            f"{int(r['blocks'])} blocks × {int(r['docs'])} documents × "
            f"{plural(int(r['annotators']), 'annotator')} per block ({int(r['judgements'])} judgements, "
            f"{int(r['blocks'] * r['docs'])} documents) reaches "
            f"{fmt_power(r['power'], r['ci_low'], r['ci_high'])} power (ARTagg) for {note.smallest_pair}"
        )
    rungs = ", ".join(f"{k}: {v}" for k, v in note.clmm_rungs.items())
    planned = note.planned
    return {
        "design": f"{note.design.blocks} × {note.design.docs} × {note.design.annotators}",
        "approximate": note.approximate,
        "planned": None
        if planned is None
        else (
            f"the planned table {planned.label}, simulated row by row as planned ({planned.judgements():,} "
            f"judgements, {planned.blocks} blocks, {planned.total_annotators} annotators)"
        ),
        "trials": note.trials,
        "clmm_trials": note.clmm_trials,
        "clmm_rungs": rungs,
        "pairs": pairs,
        "smallest_pair": note.smallest_pair,
        "smallest_difference": fmt(note.smallest_difference),
        "target": f"{note.target:.0%}",
        "search": search,
        "reaching": reaching,
        "seconds": fmt(note.seconds, 0),
        "artagg_can_reject": art,
        "blocks": (planned or note.design).blocks,
    }


def _power_shown(pairs) -> bool:
    """Whether any simulated power is a number (ARTagg is not simulated when it cannot reject)."""
    return bool(np.isfinite(pairs[["artagg", "clmm"]].to_numpy(dtype=float)).any())


def _study_view(report: StudyReport, criteria: list[dict[str, Any]]) -> dict[str, Any]:
    s = report.structure
    study = report.study()
    facts = [
        ("ratings file", report.source),
        ("response", f"{s.response} ({s.scale[0]:g}–{s.scale[1]:g})"),
        ("design family", s.family.replace("_", " ")),
        ("systems", s.n_systems),
        ("documents", s.n_documents),
        ("annotators", s.n_annotators),
        ("independent blocks", s.n_blocks),
        ("documents per block", str(s.block_documents)),
        ("annotators per block", str(s.block_annotators)),
        ("documents per annotator", str(s.documents_per_annotator)),
        ("judgements per summary", str(s.judgements_per_summary)),
        ("criteria", s.n_criteria),
        ("judgements analysed" + (" per criterion" if s.n_criteria > 1 else ""), s.n_ratings),
        ("attention-check rows", s.n_checks),
    ]
    if study["total_hours"] is not None:
        facts.append(
            (
                "annotator time",
                f"{study['total_hours']:.1f} h in total, median "
                f"{study['median_minutes_per_annotator']:.1f} min per annotator",
            )
        )
    if study["cost"] is not None and study["cost"]["total"] is not None:
        facts.append(("planned cost", f"{study['cost']['total']:.2f} {study['cost']['currency']}"))
    qc = report.qc.table
    qc_rows = [
        {
            "annotator": r["annotator"],
            "n": r["n_judgements"],
            "checks": f"{r['checks_total'] - r['checks_failed']}/{r['checks_total']}"
            if r["checks_total"]
            else "–",
            "imc": str(r["imc_failed"]) if r["checks_total"] else "–",
            "minutes": fmt(r.get("total_seconds", np.nan) / 60, 1) if "total_seconds" in r else "–",
            "flags": ", ".join(
                label
                for name, label in QC_FLAGS.items()
                if isinstance(r.get(name), bool | np.bool_) and r[name]
            ),
        }
        for r in qc.to_dict(orient="records")
    ]
    return {
        "title": report.title,
        "source": report.source,
        "generated": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "version": __version__,
        "facts": facts,
        "warnings": report.warnings,
        "criteria": criteria,
        "qc_rows": qc_rows,
        "qc_flagged": sum(1 for r in qc_rows if r["flags"]),
        "qc_has_checks": bool(qc["checks_total"].sum()) if "checks_total" in qc else False,
        "qc_has_times": "total_seconds" in qc,
        "datasheet": _datasheet_view(report.datasheet),
        "settings": report.settings.to_dict(),
    }


def _datasheet_view(sheet: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    if sheet is None:
        return None
    from humaneval.design.datasheet import SECTIONS, plain_text

    out = []
    for key, title in SECTIONS:
        section = sheet["sections"][key]
        todo = section.get("todo", {})
        items = [
            {
                "name": name.replace("_", " "),
                "value": plain_text(value) if value is not None else None,
                "todo": todo.get(name, "not known to the package") if value is None else None,
            }
            for name, value in section.items()
            if name != "todo"
        ]
        out.append({"title": title, "fields": items})
    return out


_MARKDOWN_SPECIALS = "\\`*_[]<>|#"


def md(text: Any) -> str:
    """Text with Markdown's special characters backslash-escaped (``__REFERENCE__`` stays literal)."""
    return "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in str(text))


def markdown(view: dict[str, Any]) -> str:
    """The report as Markdown (same numbers as the HTML page)."""
    lines = [
        f"# {md(view['title'])}",
        "",
        f"{md(view['source'])} — humaneval {view['version']}, {view['generated']}",
        "",
    ]
    if view["warnings"]:
        lines += ["## Warnings", ""] + [f"- {md(w)}" for w in view["warnings"]] + [""]
    lines += ["## Study", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {md(v)} |" for k, v in view["facts"]] + [""]
    lines += _markdown_criteria(view)
    for c in view["criteria"]:
        suffix = f" — {md(c['title'])}" if c["title"] else ""
        lines += _markdown_results(c, suffix)
        lines += _markdown_reliability(c, suffix)
        if "time_curve" in c["figures"]:
            lines += [f"![time vs reliability]({c['figures']['time_curve']})", ""]
        if c["comparative_power"] is not None:
            lines += _markdown_comparative_power(c["comparative_power"], suffix)
        if c["power"] is not None:
            lines += _markdown_power(c["power"], suffix)
    lines += _markdown_quality_control(view["qc_rows"])
    return "\n".join(lines)


def _markdown_results(c: dict[str, Any], suffix: str) -> list[str]:
    """One criterion's model line, system table, figures and contrast table."""
    m = c["model"]
    lines = [
        f"## Results{suffix}",
        "",
        f"{m['structure']} {m['abbrev']} `{m['formula']}`, {m['link']} link, {m['engine']} engine, "
        f"reference {md(m['reference'])}; {m['n_significant']} of {m['n_pairs']} pairs differ "
        f"({m['adjust']}-adjusted p < 0.05).",
        "",
        f"| system | {c['mean_unit']} | 95% CI (blocks) | rank group | letters | latent estimate |",
        "|---|---|---|---|---|---|",
    ]
    if c["interval_note"]:
        lines[-2:-2] = [f"Intervals: {md(c['interval_note'])}.", ""]
    lines += [
        f"| {md(s['system'])} | {s['mean']} | {s['ci']} | {s['rank_group']} | {s['letters']} | "
        f"{s['estimate']} |"
        for s in c["systems"]
    ]
    lines += [
        "",
        f"![means]({c['figures']['means']})",
        f"![distributions]({c['figures']['distributions']})",
        "",
    ]
    lines += [
        "| contrast | estimate | SE | z | p | p adj | CI | better |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {md(r['a'])} − {md(r['b'])} | {r['estimate']} | {r['se']} | {r['z']} | {r['p']} | "
        f"{r['p_adj']} | {r['ci']} | {md(r['better'])} |"
        for r in c["contrasts"]
    ]
    return [*lines, "", f"![significance]({c['figures']['significance']})", ""]


def _markdown_reliability(c: dict[str, Any], suffix: str) -> list[str]:
    """One criterion's reliability (α, κ, split-half) or, for a comparative table, agreement."""
    r = c["reliability"]
    if r is None and c["agreement"] is not None:
        body = [
            f"- agreement on the {a['choice']}: Krippendorff's α (nominal) {a['alpha']}, "
            f"95% CI {a['ci']} (KALPHA, {c['agreement']['n_resamples']} resamples); "
            f"pairs of annotators agreeing {a['observed']}, "
            f"judgements with the majority {a['majority']} ({a['n_units']} comparisons "
            f"made by several annotators, {a['n_judgements']} judgements)"
            for a in c["agreement"]["choices"]
        ]
    elif r is None:
        body = [f"Not computed: {md(c['reliability_error'])}"]
    else:
        body = [
            f"- Krippendorff's α ({r['level_of_measurement']}): {r['alpha']}, 95% CI {r['alpha_ci']} "
            f"(KALPHA, {r['n_resamples']} resamples)",
            f"- Fleiss' κ: {r['fleiss_kappa']}",
            f"- split-half reliability: {r['shr']} — not an estimate: {md(r['shr_caveat'])}"
            if r["shr_caveat"]
            else f"- split-half reliability: {r['shr']} (sd {r['shr_sd']}, {r['shr_n_splits']} splits); "
            f"Spearman–Brown {r['shr_spearman_brown']}",
        ]
    return [f"### Reliability{suffix}", "", *body, ""]


def _markdown_comparative_power(q: dict[str, Any], suffix: str) -> list[str]:
    """The observed power of a comparative study's simulated replications, per pair."""
    lines = [
        f"### Power{suffix}",
        "",
        f"{q['trials']} studies simulated on this study's design ({q['design']}) with the "
        f"fitted strengths and annotator × system deviations of SD {q['annotator_sd']}, analysed "
        f"by {q['model']}; observed power (fitted differences taken as true); brackets: 95 % "
        "Clopper–Pearson intervals.",
        "",
        "| pair | Δ log-odds | power |",
        "|---|---|---|",
    ]
    lines += [f"| {md(r['pair'])} | {r['difference']} | {r['power']} |" for r in q["pairs"]]
    return [*lines, ""]


def _markdown_power(p: dict[str, Any], suffix: str) -> list[str]:
    """The observed ARTagg and CLMM power of a rating study, per pair, and the design reaching the target."""
    lines = [
        f"### Power{suffix}",
        "",
        (
            f"Simulated {p['planned']}"
            if p["planned"]
            else f"Simulated design {p['design']} (blocks × documents × annotators)"
        )
        + f", {p['trials']} ARTagg and "
        f"{p['clmm_trials']} CLMM studies; observed power (fitted "
        "differences taken as true); brackets: 95 % Clopper–Pearson intervals."
        + (
            ""
            if p["artagg_can_reject"]
            else f" ARTagg cannot reject with {p['blocks']} blocks (it needs 6): not simulated."
        ),
        "",
        "| pair | Δ latent | ARTagg | CLMM |",
        "|---|---|---|---|",
    ]
    lines += [f"| {md(r['pair'])} | {r['difference']} | {r['artagg']} | {r['clmm']} |" for r in p["pairs"]]
    return [*lines, "", md(p["reaching"] or f"No screened design reached {p['target']} power."), ""]


def _markdown_quality_control(qc_rows: list[dict[str, Any]]) -> list[str]:
    """How many annotators were flagged, and a table of those that were."""
    flagged = [r for r in qc_rows if r["flags"]]
    lines = ["## Quality control", "", f"{len(flagged)} of {len(qc_rows)} annotators flagged.", ""]
    if flagged:
        lines += [
            "| annotator | judgements | checks passed | failed IMCs | minutes | flags |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {md(r['annotator'])} | {r['n']} | {r['checks']} | {r['imc']} | {r['minutes']} | "
            f"{md(r['flags'])} |"
            for r in flagged
        ]
        lines.append("")
    return lines


def _markdown_criteria(view: dict[str, Any]) -> list[str]:
    summary = view.get("criteria_summary")
    if not summary:
        return []
    lines = [
        "## Systems × criteria",
        "",
        "Mean score (rank group) per criterion; best system of the first criterion first.",
        "",
        "| system | " + " | ".join(md(c) for c in summary["criteria"]) + " |",
        "|---" * (len(summary["criteria"]) + 1) + "|",
    ]
    lines += [f"| {md(r['system'])} | " + " | ".join(r["cells"]) + " |" for r in summary["rows"]]
    if view.get("correlations"):
        lines += [
            "",
            "Correlation between criteria (Spearman ρ): over judgements / mean within annotators / "
            "system means.",
            "",
            "| criteria | judgements | within annotators | system means |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {md(r['pair'])} | {r['rho']} (n={r['n']}) | {r['within']} ({r['n_annotators']}) | "
            f"{r['systems']} |"
            for r in view["correlations"]
        ]
    return [*lines, ""]


_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def tex(text: Any) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in str(text))


def latex(view: dict[str, Any]) -> str:
    """One booktabs table per criterion: mean with its rank group (Table 3.2 style), CI and β."""
    out = ["% humaneval results table; needs \\usepackage{booktabs}"]
    for c in view["criteria"]:
        m = c["model"]
        caption = (
            f"{tex(c['mean_unit'].capitalize())} per system"
            f"{' (' + tex(c['title']) + ')' if c['title'] else ''}"
            ". Superscripts give the rank a system can take: systems sharing a rank do not differ "
            "significantly "
            f"({tex(m['structure'])} {m['abbrev']}, {tex(m['adjust'])}-adjusted $p<0.05$). "
            + (
                "Intervals: 95\\% block bootstrap"
                if c["intervals_shown"]
                else f"No intervals: {tex(c['interval_note'])}"
            )
            + f"; $\\hat\\beta$: latent estimate against {tex(m['reference'])}."
        )
        out += [
            "\\begin{table}[t]",
            "\\centering",
            "\\begin{tabular}{lrcr}",
            "\\toprule",
            f"System & {tex(c['mean_unit'].capitalize())} & 95\\% CI & $\\hat\\beta$ \\\\",
            "\\midrule",
        ]
        out += [
            f"{tex(s['system'])} & {s['mean']}$^{{({tex(s['rank_group'])})}}$ & {tex(s['ci'])} & "
            f"${s['estimate']}$ \\\\"
            for s in c["systems"]
        ]
        out += ["\\bottomrule", "\\end{tabular}", f"\\caption{{{caption}}}", "\\end{table}", ""]
    summary = view.get("criteria_summary")
    if summary:
        k = len(summary["criteria"])
        out += [
            "\\begin{table}[t]",
            "\\centering",
            "\\begin{tabular}{l" + "r" * k + "}",
            "\\toprule",
            "System & " + " & ".join(tex(c) for c in summary["criteria"]) + " \\\\",
            "\\midrule",
        ]
        out += [
            tex(r["system"]) + " & " + " & ".join(tex(cell) for cell in r["cells"]) + " \\\\"
            for r in summary["rows"]
        ]
        out += [
            "\\bottomrule",
            "\\end{tabular}",
            "\\caption{Mean score per system and criterion with its rank group in parentheses "
            "(systems sharing a rank do not differ significantly).}",
            "\\end{table}",
            "",
        ]
    return "\n".join(out).replace("–", "--")
