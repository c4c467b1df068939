"""The package's layering: no import cycle between subpackages, the CLMM engines below the analysis,
and the public names importable from the short paths the docs use."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pandas as pd
import pytest

import humaneval

PACKAGE = Path(humaneval.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    """Every ``humaneval...`` module named by an import in ``path`` (also imports inside functions)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {name for name in names if name.split(".")[0] == "humaneval"}


def _subpackage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else None


def subpackage_graph() -> dict[str, dict[str, set[str]]]:
    """``graph[a][b]``: the files of subpackage ``a`` importing from subpackage ``b`` (a ≠ b)."""
    graph: dict[str, dict[str, set[str]]] = {}
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE.parent)
        source = _subpackage(".".join(relative.with_suffix("").parts))
        if source is None or len(relative.parts) < 3:
            continue
        for module in _imported_modules(path):
            target = _subpackage(module)
            if target is not None and target != source:
                graph.setdefault(source, {}).setdefault(target, set()).add(str(relative))
    return graph


def _cycles(graph: dict[str, dict[str, set[str]]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_known_edges():
    graph = subpackage_graph()
    assert "humaneval/simulate/procedures.py" in graph["simulate"]["analysis"]
    assert "clmm" in graph["analysis"]


def test_cycle_finder_finds_a_three_cycle():
    assert _cycles({"a": {"b": set()}, "b": {"c": set()}, "c": {"a": set()}, "d": {"a": set()}}) == [
        ["a", "b", "c"]
    ]


def test_no_import_cycle_between_subpackages():
    graph = subpackage_graph()
    report = [
        " → ".join(component)
        + ": "
        + "; ".join(
            f"{a}→{b} in {sorted(graph[a][b])}" for a in component for b in component if b in graph.get(a, {})
        )
        for component in _cycles(graph)
    ]
    assert report == []


def test_clmm_never_imports_analysis():
    assert "analysis" not in subpackage_graph().get("clmm", {})


@pytest.mark.parametrize(
    ("module", "names"),
    [
        (
            "humaneval.analysis",
            [
                "analyze",
                "Analysis",
                "analyze_criteria",
                "paired_ttest",
                "approximate_randomization",
                "wilcoxon_test",
                "one_way_anova",
                "fit_clmm",
                "bws_scores",
                "bradley_terry",
            ],
        ),
        ("humaneval.simulate", ["plan_budget", "CostModel", "power", "simulate", "SimulationResult"]),
        ("humaneval.comparative", ["bws_scores", "analyze_comparative"]),
        ("humaneval.ratings", ["Ratings", "load_ratings", "as_ratings"]),
        ("humaneval.model", ["OrdinalModel", "default_model", "sample_ratings"]),
        ("humaneval.qc", ["QCRules", "qc_report", "apply_exclusions"]),
    ],
)
def test_public_names_are_exported(module, names):
    imported = importlib.import_module(module)
    assert set(names) <= set(imported.__all__)
    for name in names:
        assert getattr(imported, name) is not None


def test_analyze_is_the_function_not_the_module():
    from humaneval.analysis import analyze
    from humaneval.analysis.workflow import analyze as in_module

    assert callable(analyze) and analyze is in_module
    # old import path of the module, kept for one release
    from humaneval.analysis.analyze import analyze as old

    assert old is analyze


def test_bradley_terry_is_the_pairwise_comparative_analysis():
    from humaneval.analysis import bradley_terry
    from humaneval.comparative import analyze_comparative
    from humaneval.comparative.simulate import simulate_pairwise_study

    table = simulate_pairwise_study({"a": 0.0, "b": 0.8, "c": 1.6}, blocks=6, seed=3)
    shortcut = bradley_terry(table, n_resamples=200, seed=5)
    full = analyze_comparative(table, kind="pairwise", n_resamples=200, seed=5)
    pd.testing.assert_frame_equal(shortcut.contrasts, full.contrasts)
    assert shortcut.systems["system"].iloc[0] == "c"


def _attrs_uses(source: str) -> list[int]:
    """Lines of ``source`` touching an ``.attrs`` attribute in code (not docstrings or comments)."""
    return [
        n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Attribute) and n.attr == "attrs"
    ]


def test_the_attrs_scan_sees_code_but_not_docstrings_or_comments():
    source = '"""frame.attrs in a docstring"""\n# frame.attrs in a comment\nx = frame.attrs["order"]\n'
    assert _attrs_uses(source) == [3]


def test_no_side_data_in_dataframe_attrs():
    """Nothing in the package reads or writes ``DataFrame.attrs`` (pandas copies them unpredictably):
    side data such as a design's manifest order travels as an explicit argument instead."""
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in _attrs_uses(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
