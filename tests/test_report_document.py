"""The report is one typed document rendered three ways; a new section is one module plus one line."""

from __future__ import annotations

import importlib
import pkgutil
import re
import typing

import pytest

from humaneval.clmm.model import default_model, sample_ratings
from humaneval.design import block_design
from humaneval.present.document import (
    Block,
    Bullets,
    Code,
    Column,
    Definitions,
    Details,
    Figure,
    FigureRow,
    Link,
    Math,
    Paragraph,
    ReportDocument,
    Section,
    Stat,
    Stats,
    Strong,
    Styled,
    Sup,
    Table,
    text,
)
from humaneval.present.renderers import md, tex, to_html, to_latex, to_markdown
from humaneval.report import ReportSettings, build_report, sections
from humaneval.report.render import write_report

HOSTILE = "<i>R&D_100%</i> $x^2$ {a} #1 *b* |c|"


def every_block() -> tuple[Block, ...]:
    """One block of every kind, each carrying the hostile text and a marker of its kind."""
    words = text("para ", Strong("strong"), " ", Code("a ~ b"), " ", Styled("styled", "sig"), " ", HOSTILE)
    figure = Figure("means.png", "alt text", text("figure caption"), 300)
    return (
        Paragraph(words),
        Bullets((text("bullet one"), text("bullet ", Link("two", "report.json")))),
        Table(
            (Column("name"), Column(text(Math(r"\hat\beta", "β")), "r")),
            (("cell-a", text("4.33", Sup("(3/4)"))), (HOSTILE, "1.0")),
            caption=text("table caption"),
            id="t1",
        ),
        Table((Column("fact"), Column("value")), (("fact-name", "fact-value"),), facts=True),
        figure,
        FigureRow((figure, Figure("other.png", "other alt", text("second caption")))),
        Stats((Stat("stat label", "0.221", text("stat detail")),)),
        Definitions((("def-name", text("def-value")),)),
        Details("details summary", (Paragraph(text("inside details")),)),
        Section("Subsection title", (Paragraph(text("inside subsection")),)),
    )


def test_every_block_kind_renders_in_every_format():
    blocks = every_block()
    assert {type(b) for b in blocks} == set(typing.get_args(Block))  # a new kind needs a case here
    doc = ReportDocument(
        "Title", "ratings.csv", cautions=("caution one",), sections=(Section("Top", blocks),)
    )
    outputs = {"html": to_html(doc), "markdown": to_markdown(doc), "latex": to_latex(doc)}
    markers = [
        "para", "strong", "styled", "bullet one", "two", "table caption", "cell-a", "fact-name", "fact-value",
        "figure caption", "second caption", "stat label", "0.221", "stat detail", "def-name", "def-value",
        "details summary", "inside details", "Subsection title", "inside subsection", "caution one",
    ]  # fmt: skip
    for name, out in outputs.items():
        missing = [m for m in markers if m not in out]
        assert not missing, (name, missing)
    html, markdown, latex = outputs["html"], outputs["markdown"], outputs["latex"]
    assert "<i>R&D" not in html and "&lt;i&gt;R&amp;D_100%&lt;/i&gt;" in html
    assert "<sup>(3/4)</sup>" in html and "<code>a ~ b</code>" in html and '<span class="sig">' in html
    assert md(HOSTILE) in markdown and "`a ~ b`" in markdown and "[two](report.json)" in markdown
    assert tex(HOSTILE) in latex and r"$\hat\beta$" in latex and r"4.33$^{(3/4)}$" in latex
    assert (
        tex(HOSTILE) == r"\textless{}i\textgreater{}R\&D\_100\%\textless{}/i\textgreater{} "
        r"\$x\textasciicircum{}2\$ \{a\} \#1 *b* |c|"
    )
    assert latex.startswith("% humaneval report") and latex.rstrip().endswith("\\end{document}")
    assert "\\includegraphics[width=\\linewidth]{means.pdf}" in latex  # the PDF twin, for print
    assert latex.count("\\begin{longtable}") == latex.count("\\end{longtable}") == 2


def test_every_section_module_is_listed():
    """Each module of humaneval/report/sections is a study section or a criterion part, and listed."""
    helpers = {"base", "paper", "results"}
    modules = {m.name for m in pkgutil.iter_modules(sections.__path__)} - helpers
    listed = {getattr(b, "func", b).__module__.rsplit(".", 1)[1] for b in sections.SECTIONS}
    listed |= {b.__module__.rsplit(".", 1)[1] for b in sections.CRITERION_PARTS}
    assert modules == listed - helpers
    for name in modules:
        module = importlib.import_module(f"humaneval.report.sections.{name}")
        assert hasattr(module, "section") != hasattr(module, "part"), name


@pytest.fixture(scope="module")
def small_report():
    model = default_model()
    ratings = sample_ratings(model, block_design(6, 5, 2, model.system_names, seed=2), seed=2)
    settings = ReportSettings(
        engine="native", n_resamples=200, n_splits=20, mean_resamples=100, power_trials=0
    )
    return build_report(ratings, settings=settings)


def test_a_new_section_is_one_function_and_one_line(small_report, tmp_path, monkeypatch):
    def judges(report, canvas):
        yield Section(
            "Judges", (Paragraph(text(f"{report.structure.n_annotators} raters, none a judge")),), id="judges"
        )

    def note(view):
        yield Paragraph(text(f"criterion part {view.index}"))

    monkeypatch.setattr(sections, "SECTIONS", [*sections.SECTIONS[:-1], judges, sections.SECTIONS[-1]])
    sections.CRITERION_PARTS.append(note)
    try:
        files = write_report(small_report, tmp_path)
    finally:
        sections.CRITERION_PARTS.remove(note)
    html = files["html"].read_text()
    assert '<a href="#judges">Judges</a>' in html and "12 raters, none a judge" in html
    assert (
        "## Judges" in files["markdown"].read_text()
        and "\\section{Judges}" in files["latex_report"].read_text()
    )
    assert "criterion part 1" in html
    order = [m for m in re.findall(r'<section id="([a-z-]+)\d*"', html)]
    assert order == ["study", "results", "qc", "judges", "files"]


def test_the_three_formats_carry_the_same_numbers(small_report, tmp_path):
    files = write_report(small_report, tmp_path)
    html = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", files["html"].read_text()))
    markdown, latex = files["markdown"].read_text(), files["latex_report"].read_text()
    [part] = small_report.criteria
    z = f"{part.analysis.contrasts['statistic'].iloc[0]:.2f}"  # a contrast's z, from the analysis
    for system, mean in zip(part.table["system"], part.table["mean"], strict=True):
        assert f"{system} {mean:.2f}" in html
        assert f"| {md(system)} | {mean:.2f} |" in markdown
        assert f"{tex(system)} & {mean:.2f} &" in latex
    for out in (html, markdown, latex):
        assert z in out and "Quality control" in out and "Pairwise contrasts" in out
    for caution in small_report.warnings:
        assert tex(caution).replace("–", "--") in latex and md(caution) in markdown
