"""Parameter texts that several docstrings share come from one source (humaneval/core/docstrings.py)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections import defaultdict
from pathlib import Path

import humaneval
from humaneval.core.docstrings import PARAMETERS

PACKAGE = Path(humaneval.__file__).parent
SECTION_END = r"\n(?:Returns|Raises|Examples|References|Notes|See Also|Yields|Attributes)\n-+"


def parameter_texts() -> dict[tuple[str, str], list[str]]:
    """(parameter, description) → the functions whose docstring *source* documents it so."""
    found: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            doc = ast.get_docstring(node) or ""
            if "Parameters\n----------\n" not in doc:
                continue
            section = re.split(SECTION_END, doc.split("Parameters\n----------\n", 1)[1])[0]
            for name, text in re.findall(r"^(\w+)[^\n]*\n((?:[ ]+[^\n]*\n?)+)", section, flags=re.M):
                text = " ".join(text.split())
                if len(text) >= 30 and not text.startswith("As for "):  # a cross-reference is no copy
                    found[(name, text)].append(f"{path.relative_to(PACKAGE.parent)}:{node.name}")
    return found


def test_no_parameter_text_is_copied_word_for_word():
    copies = {key: where for key, where in parameter_texts().items() if len(where) > 1}
    assert copies == {}


def test_every_shared_text_is_used_and_substituted():
    sources = "".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    assert all(f"%({name})s" in sources for name in PARAMETERS)
    leftovers = []
    for info in pkgutil.walk_packages(humaneval.__path__, "humaneval."):
        if info.name in {"humaneval.__main__", "humaneval.core.docstrings"}:
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.ismodule(value) or getattr(value, "__module__", info.name) != info.name:
                continue  # documented where it is defined (a package's submodules are walked themselves)
            members = [value, *vars(value).values()] if inspect.isclass(value) else [value]
            for member in members:
                doc = getattr(member, "__doc__", None)
                if isinstance(doc, str) and re.search(r"%\((\w+)\)s", doc):
                    leftovers.append(f"{info.name}.{name}")
    assert leftovers == []
    from humaneval.analysis import paired_ttest

    assert PARAMETERS["alpha"] in paired_ttest.__doc__ and PARAMETERS["aggregate"] in paired_ttest.__doc__
