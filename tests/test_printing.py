"""Results print through the shared renderers (humaneval.present): a result builds its document blocks
once, and its terminal text, notebook HTML and Markdown come from them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import humaneval
from humaneval.present.printable import Printable

PACKAGE = Path(humaneval.__file__).parent

#: Summaries that are not printers of a result: the text of a summarised document, a design's summary
#: record, a formula written back as a formula.
NOT_PRINTERS = {
    "design/plan.py:DesignTexts.summary",
    "design/plan.py:Design.summary",
    "forms/texts.py:Texts.summary",
    "clmm/formula.py:Bar.__str__",
    "clmm/formula.py:ParsedFormula.__str__",
    "core/structure.py:Spread.__str__",
}
#: A format spec with a field width (``:<36``, ``:8.3f``, ``:>{width}``): a column of a hand-made table.
#: Zero-padding (``:03d``, an identifier) is not a column.
WIDTH = re.compile(r"^(.?[<>^=])?[-+ ]?#?[1-9]|^.?[<>^=]\{\}")


def hand_printers(source: str, where: str) -> set[str]:
    """``summary``/``__repr__``/``__str__`` methods written by hand, ``DataFrame.to_string`` tables,
    f-string fields padded to a width (``where:f-string width``) and ``print`` calls to stdout outside the
    command line in ``source`` (the module at ``where`` in the package), as ``where:Class.method`` or
    ``where:call``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            found |= {
                f"{where}:{node.name}.{f.name}"
                for f in node.body
                if isinstance(f, ast.FunctionDef) and f.name in ("summary", "__repr__", "__str__")
            }
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            to_stream = any(k.arg == "file" for k in node.keywords)  # a progress line, not a result
            if name == "to_string" or (name == "print" and not to_stream and not where.startswith("cli/")):
                found.add(f"{where}:{name}")
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.format_spec.values)
            if WIDTH.match(spec):
                found.add(f"{where}:f-string width")
    return found


def test_the_scan_sees_hand_printers():
    source = "class R:\n    def summary(self):\n        return frame.to_string()\n\nprint('x')\n"
    assert hand_printers(source, "qc/x.py") == {"qc/x.py:R.summary", "qc/x.py:to_string", "qc/x.py:print"}
    assert hand_printers(source, "cli/x.py") == {"cli/x.py:R.summary", "cli/x.py:to_string"}
    for column in ("f'{name:<9} {value:+.4f}'", "f'{value:8.3f}'", "f'{name:>{width}}'", "f'{action:7}'"):
        assert hand_printers(column, "cli/x.py") == {"cli/x.py:f-string width"}, column
    for not_a_column in ("f'd{i:03d}'", "f'{value:.2f} [{low:+.3f}]'", "f'{share:.0%}, {n:,}'"):
        assert hand_printers(not_a_column, "cli/x.py") == set(), not_a_column


def test_results_print_through_the_renderers():
    found = {
        item
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "present"
        for item in hand_printers(path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix())
    }
    assert found - NOT_PRINTERS == set(), "print through humaneval.present.printable"


def test_a_notebook_shows_a_result_as_html():
    from humaneval.clmm.model import default_model, sample_ratings
    from humaneval.design import block_design
    from humaneval.reliability import reliability_report

    model = default_model()
    ratings = sample_ratings(model, block_design(2, 5, 3, model.system_names, seed=1), seed=1)
    report = reliability_report(ratings, n_resamples=0, seed=1)
    assert isinstance(report, Printable)
    html = report._repr_html_()
    assert html.startswith('<div class="humaneval">') and "<table" in html and "Krippendorff" in html
    assert "| --- |" not in report._repr_markdown_() and "Krippendorff" in report._repr_markdown_()
    assert report.summary().splitlines()[0] == "ratings: reliability"


def test_a_notebook_shows_an_analysis_as_html():
    import warnings

    from humaneval.analysis import analyze
    from humaneval.io.datasets import wine_ratings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = analyze(wine_ratings(), "ttest")
    html = result._repr_html_()
    assert html.startswith('<div class="humaneval">') and html.count("<table") == 2
    assert "<td>warm-yes</td>" in html and "&lt;.0001" in html  # p-values as fmt_p writes them
    text = result.summary()
    assert "warm-yes  3.89 (1)" in text
    assert "contrasts (adjust = holm; positive = first system better)" in text
    assert "| cold-no - warm-yes |" in result._repr_markdown_()
    assert repr(result).startswith("<Analysis ttest: 4 systems, 6 contrasts (5 significant at adjust=holm)")
