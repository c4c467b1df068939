"""Render one :class:`~humaneval.present.document.ReportDocument` as HTML, Markdown or LaTeX.

Each renderer walks the same blocks and escapes every piece of text for its format (HTML through
markupsafe, Markdown's and LaTeX's special characters by backslash); a new kind of block is one
case in each of the three walkers. The HTML page shell (inline CSS, header, navigation, footer) is
the jinja template ``templates/report.html.j2``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from markupsafe import Markup, escape

from humaneval.present.document import (
    Block,
    Bullets,
    Cell,
    Code,
    Definitions,
    Details,
    Figure,
    FigureRow,
    Inline,
    Math,
    Paragraph,
    ReportDocument,
    Section,
    Stats,
    Strong,
    Styled,
    Sup,
    Table,
    Text,
    as_text,
    plain,
)

CAUTIONS_TITLE = "Read this first"

# -- HTML ------------------------------------------------------------------------------------------


def _html_inline(piece: Inline) -> str:
    if isinstance(piece, str):
        return str(escape(piece))
    if isinstance(piece, Code):
        return f"<code>{escape(piece.text)}</code>"
    if isinstance(piece, Strong):
        return f"<b>{escape(piece.text)}</b>"
    if isinstance(piece, Styled):
        return f'<span class="{escape(piece.style)}">{escape(piece.text)}</span>'
    if isinstance(piece, Math):
        return str(escape(piece.plain))
    if isinstance(piece, Sup):
        return f"<sup>{escape(piece.text)}</sup>"
    return f'<a href="{escape(piece.href)}">{escape(piece.text)}</a>'


def html_text(value: Text | str) -> str:
    return "".join(_html_inline(p) for p in as_text(value))


def _attr(name: str, value: object) -> str:
    return "" if value is None else f' {name}="{escape(str(value))}"'


def _html_table(table: Table) -> list[str]:
    out = []
    described = None
    if table.caption:
        described = f"{table.id}-caption" if table.id else None
        out.append(f'<p class="caption"{_attr("id", described)}>{html_text(table.caption)}</p>')
    if table.facts:
        rows = "\n".join(
            f'<tr><th scope="row">{html_text(name)}</th><td>{html_text(value)}</td></tr>'
            for name, value in table.rows
        )
        return [
            *out,
            f'<div class="table-wrap"><table class="facts"{_attr("id", table.id)}>\n{rows}\n</table></div>',
        ]
    num = [' class="num"' if c.align == "r" else "" for c in table.columns]
    head = "".join(
        f"<th{n}{_attr('title', c.title)}>{html_text(c.name)}</th>"
        for c, n in zip(table.columns, num, strict=True)
    )
    body = "".join(
        "<tr>"
        + "".join(f"<td{n}>{html_text(cell)}</td>" for cell, n in zip(row, num, strict=True))
        + "</tr>\n"
        for row in table.rows
    )
    out.append(
        f'<div class="table-wrap"><table class="data"{_attr("id", table.id)}'
        f"{_attr('aria-describedby', described)}>\n<thead><tr>{head}</tr></thead>\n"
        f"<tbody>\n{body}</tbody></table></div>"
    )
    return out


def _html_figure(figure: Figure) -> str:
    return (
        f'<figure><img src="{escape(figure.src)}"{_attr("width", figure.width)} alt="{escape(figure.alt)}">\n'
        f"<figcaption>{html_text(figure.caption)}</figcaption></figure>"
    )


def _html_blocks(blocks: Iterable[Block], level: int) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            cls = "" if block.style == "body" else f' class="{block.style}"'
            out.append(f"<p{cls}>{html_text(block.text)}</p>")
        elif isinstance(block, Bullets):
            out.append("<ul>" + "".join(f"<li>{html_text(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, Table):
            out += _html_table(block)
        elif isinstance(block, Figure):
            out.append(_html_figure(block))
        elif isinstance(block, FigureRow):
            out.append(
                '<div class="grid">\n' + "\n".join(_html_figure(f) for f in block.figures) + "\n</div>"
            )
        elif isinstance(block, Stats):
            items = "\n".join(
                f"  <div>{escape(s.label)}<b>{escape(s.value)}</b>{html_text(s.detail)}</div>"
                for s in block.items
            )
            out.append(f'<div class="stat"{_attr("id", block.id)}>\n{items}\n</div>')
        elif isinstance(block, Definitions):
            items = "".join(f"<dt>{escape(k)}</dt><dd>{html_text(v)}</dd>" for k, v in block.items)
            out.append(f'<dl class="sheet">{items}</dl>')
        elif isinstance(block, Details):
            out += [
                f"<details><summary>{escape(block.summary)}</summary>",
                *_html_blocks(block.blocks, level),
                "</details>",
            ]
        elif isinstance(block, Section):
            out.append(f"<h{level + 1}{_attr('id', block.id)}>{escape(block.title)}</h{level + 1}>")
            out += _html_blocks(block.blocks, level + 1)
    return out


def html_body(doc: ReportDocument) -> Markup:
    """The sections of the page, each a ``<section>`` with its ``<h2>``."""
    parts = []
    for section in doc.sections:
        inner = "\n".join(_html_blocks(section.blocks, 2))
        parts.append(
            f"<section{_attr('id', section.id)}>\n<h2>{escape(section.title)}</h2>\n{inner}\n</section>"
        )
    return Markup("\n\n".join(parts))


def to_html(doc: ReportDocument) -> str:
    from humaneval.present.templates import environment

    nav = [(s.id, s.nav or s.title) for s in doc.sections if s.id]
    return (
        environment()
        .get_template("report.html.j2")
        .render(doc=doc, nav=nav, body=html_body(doc), cautions_title=CAUTIONS_TITLE)
    )


# -- Markdown --------------------------------------------------------------------------------------

_MARKDOWN_SPECIALS = "\\`*_|#"
#: A ``<`` that could open an HTML tag, and a ``[`` or ``]`` that could make a link.
_MARKDOWN_MARKUP = re.compile(r"<(?=[A-Za-z/!?])|[\[\]](?=.*\]\()")


def md(value: object) -> str:
    r"""Text with Markdown's special characters backslash-escaped (``__REFERENCE__`` stays literal).

    Brackets and ``<`` are escaped only where they could start a link or a tag, so intervals
    stay readable:

    >>> print(md("__REF__ <b> [0.1, 0.2] p < 0.05"))
    \_\_REF\_\_ \<b> [0.1, 0.2] p < 0.05
    """
    text = "".join("\\" + ch if ch in _MARKDOWN_SPECIALS else ch for ch in str(value))
    return _MARKDOWN_MARKUP.sub(lambda m: "\\" + m.group(0), text)


def _md_inline(piece: Inline) -> str:
    if isinstance(piece, str | Styled):
        return md(piece if isinstance(piece, str) else piece.text)
    if isinstance(piece, Code):
        return f"`{piece.text.replace('`', '')}`"
    if isinstance(piece, Strong):
        return f"**{md(piece.text)}**"
    if isinstance(piece, Math):
        return md(piece.plain)
    if isinstance(piece, Sup):
        return f"<sup>{md(piece.text)}</sup>"
    return f"[{md(piece.text)}]({piece.href})"


def md_text(value: Text | str) -> str:
    return "".join(_md_inline(p) for p in as_text(value)).replace("\n", " ")


def _md_table(table: Table) -> list[str]:
    out = [md_text(table.caption), ""] if table.caption else []
    if table.facts:
        out += ["| | |", "|---|---|"]
    else:
        align = {"l": "---", "r": "---:", "c": ":---:"}
        out += [
            "| " + " | ".join(md_text(c.name) for c in table.columns) + " |",
            "|" + "|".join(align[c.align] for c in table.columns) + "|",
        ]
    out += ["| " + " | ".join(md_text(cell) for cell in row) + " |" for row in table.rows]
    return [*out, ""]


def _md_figure(figure: Figure) -> list[str]:
    return [f"![{md(figure.alt)}]({figure.src})", "", md_text(figure.caption), ""]


def _md_blocks(blocks: Iterable[Block], level: int) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            out += [md_text(block.text), ""]
        elif isinstance(block, Bullets):
            out += [f"- {md_text(i)}" for i in block.items] + [""]
        elif isinstance(block, Table):
            out += _md_table(block)
        elif isinstance(block, Figure):
            out += _md_figure(block)
        elif isinstance(block, FigureRow):
            for figure in block.figures:
                out += _md_figure(figure)
        elif isinstance(block, Stats):
            out += [
                f"- {md(s.label)}: **{md(s.value)}** {md_text(s.detail)}".rstrip() for s in block.items
            ] + [""]
        elif isinstance(block, Definitions):
            out += [f"- **{md(k)}**: {md_text(v)}" for k, v in block.items] + [""]
        elif isinstance(block, Details):
            out += [f"**{md(block.summary)}**", "", *_md_blocks(block.blocks, level)]
        elif isinstance(block, Section):
            out += ["#" * (level + 1) + " " + md(block.title), "", *_md_blocks(block.blocks, level + 1)]
    return out


def to_markdown(doc: ReportDocument, *, header: bool = True) -> str:
    """The report as Markdown: the same sections, tables and numbers as the page."""
    lines: list[str] = []
    if header:
        lines += [
            f"# {md(doc.title)}",
            "",
            f"{md(doc.source)} — humaneval {doc.version}, {doc.generated}",
            "",
        ]
        if doc.cautions:
            lines += [f"## {CAUTIONS_TITLE}", ""] + [f"- {md(w)}" for w in doc.cautions] + [""]
    for section in doc.sections:
        lines += _md_blocks([section], 1)
    if header and doc.settings:
        lines += ["Settings: " + ", ".join(f"{k}={md(v)}" for k, v in doc.settings) + ".", ""]
    return "\n".join(lines)


# -- LaTeX -----------------------------------------------------------------------------------------

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
_LATEX_SECTIONS = ("section", "subsection", "subsubsection", "paragraph")


def tex(value: object) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in str(value))


def _tex_inline(piece: Inline) -> str:
    if isinstance(piece, str | Styled):
        return tex(piece if isinstance(piece, str) else piece.text)
    if isinstance(piece, Code):
        return f"\\texttt{{{tex(piece.text)}}}"
    if isinstance(piece, Strong):
        return f"\\textbf{{{tex(piece.text)}}}"
    if isinstance(piece, Math):
        return f"${piece.tex}$"
    if isinstance(piece, Sup):
        return f"$^{{{tex(piece.text)}}}$"
    return f"\\texttt{{{tex(piece.text)}}}"


def tex_text(value: Text | str) -> str:
    return "".join(_tex_inline(p) for p in as_text(value))


def _tex_row(cells: Iterable[Cell]) -> str:
    return " & ".join(tex_text(c) for c in cells) + " \\\\"


def paper_table(table: Table) -> list[str]:
    """A floating booktabs table with its caption below (for a paper)."""
    return [
        "\\begin{table}[t]",
        "\\centering",
        "\\begin{tabular}{" + "".join(c.align for c in table.columns) + "}",
        "\\toprule",
        _tex_row(c.name for c in table.columns),
        "\\midrule",
        *(_tex_row(row) for row in table.rows),
        "\\bottomrule",
        "\\end{tabular}",
        f"\\caption{{{tex_text(table.caption)}}}",
        "\\end{table}",
        "",
    ]


def to_latex_tables(doc: ReportDocument) -> str:
    """``results.tex``: the paper tables only (needs booktabs)."""
    out = ["% humaneval results table; needs \\usepackage{booktabs}"]
    for table in doc.paper_tables:
        out += paper_table(table)
    return "\n".join(out).replace("–", "--")


def _tex_table(table: Table) -> list[str]:
    out = [tex_text(table.caption), ""] if table.caption else []
    if table.facts:
        spec, head = "@{}lp{0.65\\linewidth}@{}", []
    else:
        spec = "@{}" + "".join(c.align for c in table.columns) + "@{}"
        head = [_tex_row(c.name for c in table.columns), "\\midrule", "\\endhead"]
    return [
        *out,
        f"\\begin{{longtable}}{{{spec}}}",
        "\\toprule",
        *head,
        *(_tex_row(row) for row in table.rows),
        "\\bottomrule",
        "\\end{longtable}",
        "",
    ]


def _tex_figure(figure: Figure) -> list[str]:
    pdf = figure.src.rsplit(".", 1)[0] + ".pdf"
    return [
        "\\begin{figure}[htbp]",
        "\\centering",
        f"\\includegraphics[width=\\linewidth]{{{pdf}}}",
        f"\\caption{{{tex_text(figure.caption)}}}",
        "\\end{figure}",
        "",
    ]


def _tex_blocks(blocks: Iterable[Block], level: int) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Paragraph):
            out += [tex_text(block.text), ""]
        elif isinstance(block, Bullets):
            out += ["\\begin{itemize}", *(f"\\item {tex_text(i)}" for i in block.items), "\\end{itemize}", ""]
        elif isinstance(block, Table):
            out += _tex_table(block)
        elif isinstance(block, Figure):
            out += _tex_figure(block)
        elif isinstance(block, FigureRow):
            for figure in block.figures:
                out += _tex_figure(figure)
        elif isinstance(block, Stats):
            items = (
                f"\\item {tex(s.label)}: \\textbf{{{tex(s.value)}}} {tex_text(s.detail)}".rstrip()
                for s in block.items
            )
            out += ["\\begin{itemize}", *items, "\\end{itemize}", ""]
        elif isinstance(block, Definitions):
            items = (f"\\item[{tex(k)}] {tex_text(v)}" for k, v in block.items)
            out += ["\\begin{description}", *items, "\\end{description}", ""]
        elif isinstance(block, Details):
            out += [f"\\paragraph{{{tex(block.summary)}}}", *_tex_blocks(block.blocks, level)]
        elif isinstance(block, Section):
            command = _LATEX_SECTIONS[min(level, len(_LATEX_SECTIONS) - 1)]
            out += [f"\\{command}{{{tex(block.title)}}}", "", *_tex_blocks(block.blocks, level + 1)]
    return out


def to_latex(doc: ReportDocument) -> str:
    """A complete LaTeX document of the report (booktabs, longtable, graphicx; LuaLaTeX or XeLaTeX)."""
    out = [
        "% humaneval report; compile with lualatex or xelatex (the text is Unicode)",
        "\\documentclass[11pt]{article}",
        "\\usepackage{fontspec,booktabs,longtable,graphicx}",
        "\\usepackage[margin=2.5cm]{geometry}",
        f"\\title{{{tex(doc.title)}}}",
        f"\\author{{{tex(doc.source)}}}",
        f"\\date{{humaneval {tex(doc.version)}, {tex(doc.generated)}}}",
        "\\begin{document}",
        "\\maketitle",
        "",
    ]
    if doc.cautions:
        out += [
            f"\\section*{{{CAUTIONS_TITLE}}}",
            "\\begin{itemize}",
            *(f"\\item {tex(w)}" for w in doc.cautions),
        ]
        out += ["\\end{itemize}", ""]
    out += _tex_blocks(doc.sections, 0)
    if doc.settings:
        out += [
            "\\bigskip",
            "\\noindent\\small Settings: " + ", ".join(f"{tex(k)}={tex(v)}" for k, v in doc.settings) + ".",
            "",
        ]
    out.append("\\end{document}")
    return "\n".join(out).replace("–", "--") + "\n"


# -- plain text (terminals, ``summary()``) ---------------------------------------------------------


def plain_text(value: Text | str) -> str:
    """Text without markup; a superscript rank group follows its value after a space."""
    return "".join(
        f" {p.text}" if isinstance(p, Sup) else plain((p,)) if not isinstance(p, str) else p
        for p in as_text(value)
    )


def _text_table(table: Table) -> list[str]:
    rows = [[plain_text(cell) for cell in row] for row in table.rows]
    out = [plain_text(table.caption)] if table.caption else []
    if table.facts:
        width = max((len(r[0]) for r in rows), default=0)
        return [*out, *(f"{r[0] + ':':<{width + 1}} {' '.join(r[1:])}".rstrip() for r in rows)]
    header = [plain_text(c.name) for c in table.columns]
    widths = [max(len(v) for v in col) for col in zip(header, *rows, strict=False)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.rjust(w) if c.align == "r" else cell.center(w) if c.align == "c" else cell.ljust(w)
            for cell, w, c in zip(cells, widths, table.columns, strict=True)
        ).rstrip()

    return [*out, line(header), *(line(r) for r in rows)]


def _text_blocks(blocks: Iterable[Block], level: int) -> list[str]:
    out: list[str] = []
    for block in blocks:
        if out and out[-1] != "":
            out.append("")
        if isinstance(block, Paragraph):
            out.append(plain_text(block.text))
        elif isinstance(block, Bullets):
            out += [f"- {plain_text(i)}" for i in block.items]
        elif isinstance(block, Table):
            out += _text_table(block)
        elif isinstance(block, Figure | FigureRow):
            figures = block.figures if isinstance(block, FigureRow) else (block,)
            out += [f"[figure {f.src}: {plain_text(f.caption) or f.alt}]" for f in figures]
        elif isinstance(block, Stats):
            out += [f"{s.label}: {s.value} {plain_text(s.detail)}".rstrip() for s in block.items]
        elif isinstance(block, Definitions):
            out += [f"{k}: {plain_text(v)}" for k, v in block.items]
        elif isinstance(block, Details):
            out += [f"{block.summary}:", *_text_blocks(block.blocks, level)]
        elif isinstance(block, Section):
            rule = "=-~"[min(level, 2)] * len(block.title)
            out += [block.title, rule, *_text_blocks(block.blocks, level + 1)]
    return out


def blocks_to_text(blocks: Iterable[Block]) -> str:
    """Blocks as plain text for a terminal: aligned table columns, no markup.

    Examples
    --------
    >>> from humaneval.present.document import Column, Paragraph, Table
    >>> table = Table((Column("system"), Column("mean", align="r")), (("BART", "5.25"), ("seneca", "13.52")))
    >>> print(blocks_to_text([Paragraph(("Coherence, 1–7",)), table]))
    Coherence, 1–7
    <BLANKLINE>
    system   mean
    BART     5.25
    seneca  13.52
    """
    return "\n".join(_text_blocks(blocks, 0)).rstrip("\n")


def blocks_to_markdown(blocks: Iterable[Block]) -> str:
    """Blocks as Markdown (a notebook's ``_repr_markdown_``)."""
    return "\n".join(_md_blocks(blocks, 2)).rstrip("\n") + "\n"


def blocks_to_html(blocks: Iterable[Block]) -> str:
    """Blocks as an HTML fragment (a notebook's ``_repr_html_``): escaped, no page shell."""
    return '<div class="humaneval">\n' + "\n".join(_html_blocks(blocks, 2)) + "\n</div>"
