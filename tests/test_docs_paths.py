"""Every module path the docs and templates name exists: each dotted ``app.…`` path and
each ``app/…`` file path in ``docs/*.md``, ``README.md``, ``tests/README.md`` and
``templates/`` resolves to a module, package or file of this checkout, and a dotted path
that goes on past a module names something that module defines or imports.

Read from the source (``ast``), nothing imported: a name the module defines at any depth
(a function, a class, an assignment) or imports counts.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
DOCUMENTS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
             ROOT / "tests" / "README.md", *sorted((ROOT / "templates").rglob("*.html"))]
DOTTED = re.compile(r"(?<![\w./-])app(?:\.[A-Za-z_]\w*)+")
FILE = re.compile(r"(?<![\w./-])app/[\w/]*\w(?:\.py)?")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in APP.rglob("*.py")}


@cache
def _defined(module: str) -> frozenset[str]:
    """Return every name ``module`` defines or imports, at any depth."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(found)


def _dotted_fault(dotted: str) -> str | None:
    """Return why ``dotted`` does not resolve, or None when it does."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        if module in MODULES:
            rest = parts[end:]
            if not rest or rest[0] in _defined(module):
                return None
            return f"{module} defines no {rest[0]}"
    return "no such module"


def _unresolved(path: Path) -> list[str]:
    faults = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        where = f"{path.relative_to(ROOT)}:{number}"
        for match in DOTTED.finditer(line):
            fault = _dotted_fault(match.group(0))
            if fault:
                faults.append(f"{where}: {match.group(0)} ({fault})")
        for match in FILE.finditer(line):
            if not (ROOT / match.group(0)).exists():
                faults.append(f"{where}: {match.group(0)} (no such file)")
    return faults


def test_paths_named_in_docs_and_templates_exist():
    faults = [fault for path in DOCUMENTS for fault in _unresolved(path)]
    assert not faults, "stale module paths:\n" + "\n".join(faults)


def test_the_check_tells_a_stale_path_from_a_current_one():
    assert _dotted_fault("app.viewer.core.loaders.load_pipeline") is None
    assert _dotted_fault("app.viewer") is None
    assert _dotted_fault("app.viewer.loaders") == "app.viewer defines no loaders"
    assert _dotted_fault("app.no_such_module") == "app defines no no_such_module"
    assert _dotted_fault("app.viewer.core.loaders.no_such_name") is not None
    assert [m.group(0) for m in FILE.finditer("see `app/viewer/core/loaders.py`.")] == [
        "app/viewer/core/loaders.py"]
    assert [m.group(0) for m in DOTTED.finditer("(app.domain.KINDS).")] == ["app.domain.KINDS"]
