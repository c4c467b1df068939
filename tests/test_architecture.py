"""The package's layering: no import cycle between subpackages, the CLMM engines below the analysis,
and the public names importable from the short paths the docs use."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
from collections.abc import Collection, Mapping
from pathlib import Path

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


@functools.lru_cache(maxsize=1)
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


def _cycles(graph: Mapping[str, Collection[str]]) -> list[list[str]]:
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


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _home_package(module: str) -> str:
    """The package a module belongs to: its parent, or itself for a package's ``__init__``."""
    is_package = (PACKAGE.parent.joinpath(*module.split(".")) / "__init__.py").is_file()
    return module if is_package else module.rpartition(".")[0]


def _run_imports(source: str) -> set[str]:
    """The ``humaneval`` modules ``source`` imports when it runs, at the top or inside a function, but
    not under ``if TYPE_CHECKING:`` (never run; an annotation may name a type of any module).
    ``from p import x`` imports the module ``p.x`` when there is one, else ``p``."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.update(
                    f"{child.module}.{a.name}" if _is_module(f"{child.module}.{a.name}") else child.module
                    for a in child.names
                )
            elif isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            visit(child)

    visit(ast.parse(source))
    return {name for name in found if name.split(".")[0] == "humaneval" and _is_module(name)}


@functools.lru_cache(maxsize=1)
def module_graph() -> dict[str, set[str]]:
    """``graph[a]``: the modules of ``a``'s own package that module ``a`` imports when it runs."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        name = _module(path)
        graph[name] = {
            target
            for target in _run_imports(path.read_text(encoding="utf-8"))
            if target != name and _home_package(target) == _home_package(name)
        }
    return graph


def test_the_module_graph_sees_function_imports_but_not_type_checking():
    source = (
        "from typing import TYPE_CHECKING\nfrom humaneval.analysis import joint\n"
        "if TYPE_CHECKING:\n    from humaneval.clmm.result import FitResult\n"
        "def f():\n    from humaneval.analysis.ordinal import formula_analysis\n"
    )
    assert _run_imports(source) == {"humaneval.analysis.joint", "humaneval.analysis.ordinal"}
    assert "humaneval.analysis.outcome" in module_graph()["humaneval.analysis.ordinal"]


def test_no_import_cycle_between_modules_of_a_package():
    """Inside a package, modules point one way as the packages do: no cycle through imports at the top or
    inside functions (a function-local import only hides a cycle until that function runs)."""
    graph = module_graph()
    report = [
        " → ".join(component)
        + ": "
        + "; ".join(f"{a}→{b}" for a in component for b in sorted(graph[a]) if b in component)
        for component in _cycles(graph)
    ]
    assert report == []


#: The packages from the bottom up: a package imports only from packages on lower lines. The first
#: three lines are the low-level packages named for what they hold (files, presentation, the table and
#: its vocabulary, statistics); the workflow's stages sit above them, the command line on top.
LAYERS: list[set[str]] = [
    {"io", "present"},
    {"core"},
    {"stats", "methods", "qc", "metaeval", "scorers", "ranks"},
    {"clmm", "design", "reliability"},
    {"forms", "judges", "ppi"},
    {"collect"},
    {"comparative", "serve"},
    {"analysis", "platforms"},
    {"simulate", "spans"},
    {"report"},
    {"reproducibility"},
    {"demo"},
    {"cli"},
]


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    placed = [name for layer in LAYERS for name in layer]
    assert len(placed) == len(set(placed))
    assert set(placed) == packages


def test_imports_point_down_the_layers():
    level = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    upward = [
        f"{source}→{target} in {sorted(files)}"
        for source, targets in subpackage_graph().items()
        for target, files in targets.items()
        if level[target] >= level[source]
    ]
    assert upward == []


def test_the_root_holds_only_the_public_face():
    assert sorted(p.name for p in PACKAGE.glob("*.py")) == ["__init__.py", "__main__.py", "errors.py"]
    assert _imported_modules(PACKAGE / "errors.py") == set()


@pytest.mark.parametrize(("old", "new"), sorted(humaneval.MOVED_MODULES.items()))
def test_old_import_paths_give_the_moved_module(old, new):
    moved = importlib.import_module(old)
    assert moved is importlib.import_module(new)
    assert moved.__name__ == new and moved.__spec__.name == new


def test_an_unknown_root_module_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("humaneval.no_such_module")


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
        ("humaneval.core.ratings", ["Ratings", "load_ratings", "as_ratings"]),
        ("humaneval.clmm.model", ["OrdinalModel", "default_model", "sample_ratings"]),
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


#: Modules that only keep old import paths alive (each one's docstring names its removal version).
SHIM_MODULES = {
    "humaneval.analysis.analyze",
    "humaneval.analysis.rbridge",
    "humaneval.analysis.result",
    "humaneval.collect.values",
    "humaneval.simulate.kernels",
}
#: Modules that also re-export, for old imports, names that live elsewhere.
RE_EXPORTING = {"humaneval.analysis", "humaneval.analysis.prepare"}


@functools.cache
def _defined_names(module: str) -> set[str]:
    """Names a module defines at its top level (not the ones it imports)."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _through_shims(path: Path) -> list[str]:
    """Every import in ``path`` that goes through a compatibility path: a shim module, or a name that
    a module of :data:`RE_EXPORTING` only re-exports from elsewhere."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in SHIM_MODULES]
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module):
            continue
        module = node.module
        if module.split(".")[0] != "humaneval":
            # shims are the package's own; importing e.g. rpy2.robjects here would embed R and
            # leave R's folders in LD_LIBRARY_PATH for every later subprocess (dask workers)
            continue
        if module in SHIM_MODULES:
            found.append(module)
            continue
        for alias in node.names:
            value = getattr(importlib.import_module(module), alias.name, None)
            if value is None and importlib.util.find_spec(f"{module}.{alias.name}") is not None:
                value = importlib.import_module(f"{module}.{alias.name}")
            if f"{module}.{alias.name}" in SHIM_MODULES and isinstance(value, type(ast)):
                found.append(f"{module}.{alias.name}")
            elif module in RE_EXPORTING and alias.name not in _defined_names(module):
                home = getattr(value, "__module__", "")
                if not (module == "humaneval.analysis" and home.startswith("humaneval.analysis.")):
                    found.append(f"{module}.{alias.name}")
    return found


def test_the_shim_scan_flags_re_exports_but_not_real_homes(tmp_path):
    source = tmp_path / "x.py"
    source.write_text(
        "from humaneval.analysis.prepare import select_criterion, prepare_clmm_data\n"
        "from humaneval.analysis.result import FitResult\n"
        "from humaneval.analysis import analyze, FitResult as F, rbridge\n"
        "from humaneval.core.ratings import select_criterion as s\n"
        "import humaneval.simulate.kernels\n"
    )
    assert _through_shims(source) == [
        "humaneval.analysis.prepare.select_criterion",
        "humaneval.analysis.result",
        "humaneval.analysis.FitResult",
        "humaneval.analysis.rbridge",
        "humaneval.simulate.kernels",
    ]


def test_the_package_never_imports_its_own_shims():
    library_path = os.environ.get("LD_LIBRARY_PATH")
    offenders = {
        str(path.relative_to(PACKAGE.parent)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) not in SHIM_MODULES
        if (found := _through_shims(path))
    }
    assert offenders == {}
    # the scan imports no third-party module: rpy2.robjects would leave R's folders in LD_LIBRARY_PATH,
    # and every later subprocess (a dask worker) would then fail to import ssl
    assert os.environ.get("LD_LIBRARY_PATH") == library_path


@functools.cache
def _reexported_names(module: str) -> set[str]:
    """Names ``module`` imports at its top level from another humaneval module (what it re-exports)."""
    path = PACKAGE.parent.joinpath(*module.split("."))
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    if not path.is_file():
        return set()
    return {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level == 0
        if (node.module or "").startswith("humaneval")
        for alias in node.names
    }


def _imports_not_from_home(path: Path) -> list[str]:
    """Imports in ``path`` of a name through a module that only re-exports it. A package's
    ``__init__`` gathering its own submodules' names (its public face) is not one."""
    own = None
    if path.name == "__init__.py" and path.is_relative_to(PACKAGE):
        own = ".".join(path.parent.relative_to(PACKAGE.parent).parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        module = node.module if isinstance(node, ast.ImportFrom) and not node.level else None
        if not (module or "").startswith("humaneval.") or (own and module.startswith(own)):
            continue
        folder = PACKAGE.parent.joinpath(*module.split("."))
        passed_on = _reexported_names(module) - _defined_names(module)
        found += [
            f"{module}.{alias.name}"
            for alias in node.names
            if alias.name in passed_on
            and not (folder / f"{alias.name}.py").is_file()
            and not (folder / alias.name).is_dir()
        ]
    return found


def test_the_package_imports_each_name_from_its_home():
    offenders = {
        str(path.relative_to(PACKAGE.parent)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts) not in SHIM_MODULES
        if (found := _imports_not_from_home(path))
    }
    assert offenders == {}


def test_the_home_scan_sees_a_re_export(tmp_path):
    source = tmp_path / "x.py"
    source.write_text(
        "from humaneval.analysis.contrasts import groupings\nfrom humaneval.stats.grouping import groupings\n"
    )
    assert _imports_not_from_home(source) == ["humaneval.analysis.contrasts.groupings"]


def test_warnings_compute_their_stacklevel():
    """A hand-counted ``stacklevel`` breaks when a wrapper is added; every warning uses
    ``caller_stacklevel()`` (errors.py, which _deprecation imports, warns from its module
    ``__getattr__``, called directly by the user)."""
    counted = [
        f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.keyword) and node.arg == "stacklevel" and isinstance(node.value, ast.Constant)
    ]
    assert counted == []


#: Functions whose body (docstring left out) is over 80 lines, with their length today: the ceiling of
#: each only falls, and no other function may grow past 80 lines.
LONG_FUNCTIONS = {
    "forms/presets.py:_builtin": 135,
    "clmm/rbridge.py:fit_r_spec": 102,
    "clmm/scalar_numba.py:laplace_logit": 101,
    "ppi/systems.py:ppi_systems": 91,
    "judges/alttest.py:_one_criterion": 93,
    "demo/__init__.py:run_demo": 88,
    "cli/design.py:command": 88,
    "ppi/ordinal.py:ppi_ordinal": 85,
    "report/sections/power.py:_rating": 84,
    "report/build.py:build_report": 84,
    "simulate/study.py:plan_study": 82,
}


def _function_lengths(source: str) -> dict[str, int]:
    """Body lines of every function in ``source`` (a docstring does not count)."""
    lengths = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0]
            documented = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            start = first.end_lineno + 1 if documented and len(node.body) > 1 else first.lineno
            lengths[node.name] = max(lengths.get(node.name, 0), node.end_lineno - start + 1)
    return lengths


def test_function_lengths_are_counted_without_docstrings():
    source = 'def f():\n    """Doc\n    string."""\n    a = 1\n    return a\n'
    assert _function_lengths(source) == {"f": 2}


def test_no_function_grows_past_80_lines():
    long = {
        f"{path.relative_to(PACKAGE).as_posix()}:{name}": n
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, n in _function_lengths(path.read_text(encoding="utf-8")).items()
        if n > 80
    }
    assert {k: n for k, n in long.items() if n > LONG_FUNCTIONS.get(k, 80)} == {}


def test_the_reference_lists_every_old_import_path():
    text = (PACKAGE.parent / "docs" / "reference.md").read_text(encoding="utf-8")
    assert all(f"| `{old}` | `{new}` |" in text for old, new in humaneval.MOVED_MODULES.items())


def test_mypy_exempts_no_module():
    """Every module is type-checked (issue 39): pyproject.toml's mypy section ignores no module's errors."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    mypy = tomllib.loads(pyproject.read_text())["tool"]["mypy"]
    exempt = [o["module"] for o in mypy.get("overrides", []) if o.get("ignore_errors")]
    assert not mypy.get("ignore_errors") and not exempt
    assert mypy["check_untyped_defs"]
