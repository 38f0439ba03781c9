"""Shape of the code under ``app/``: module and function sizes, and the biggest of each.

Prints the median and maximum module length (lines) and function length (lines from
``def`` to the last line of its body), with demo data (``app/demo_data``) counted apart,
since it is mostly data. Run: ``python bench/code_shape.py [root]`` (default: this
repository), so two checkouts can be compared side by side.
"""

from __future__ import annotations

import ast
import statistics
import sys
from pathlib import Path


def measure(root: Path) -> dict:
    """Return module and function lengths of ``root/app``, demo data apart."""
    modules, functions = [], []
    for path in sorted((root / "app").rglob("*.py")):
        if "demo_data" in path.parts or "migrations" in path.parts:
            continue
        text = path.read_text()
        modules.append((len(text.splitlines()), str(path.relative_to(root))))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.append((node.end_lineno - node.lineno + 1,
                                  f"{path.relative_to(root)}:{node.name}"))
    return {"modules": sorted(modules), "functions": sorted(functions)}


def main() -> None:
    """Print the figures for the checkout given on the command line (default: this one)."""
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)
    shape = measure(root)
    for name in ("modules", "functions"):
        sizes = [size for size, _ in shape[name]]
        print(f"{name}: {len(sizes)}, median {statistics.median(sizes):g} lines, "
              f"p90 {sorted(sizes)[int(len(sizes) * 0.9)]}, max {max(sizes)} "
              f"({shape[name][-1][1]})")
    print("largest modules:", ", ".join(f"{p} {s}" for s, p in shape["modules"][-5:]))
    print("longest functions:", ", ".join(f"{p} {s}" for s, p in shape["functions"][-5:]))


if __name__ == "__main__":
    main()
