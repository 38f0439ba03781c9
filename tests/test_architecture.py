"""The shape of ``app/`` that reviews hold us to: no import cycle, small modules, a pure
domain vocabulary, SQL only in the stores, the viewer never importing the service, and
only the viewer's factory importing a module with routes (a blueprint).

Imports are read from the source (every ``import``, also those inside functions), so a
cycle cannot hide behind a function-level import.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parent.parent / "app"
MAX_MODULE_LINES = 350
# Mostly data (sequences, conformers, coordinates), not logic.
EXEMPT_FROM_SIZE = ("app.synthetic",)
SQL_PACKAGES = ("sqlalchemy", "alembic")
SQL_HOMES = ("app.store", "app.viewer.store", "app.platform.db")


def _module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in APP.rglob("*.py")}


def _imports(name: str) -> set[str]:
    """Return every module ``name`` imports (absolute names; app.* and third-party)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                # "from app.viewer import views" imports the module app.viewer.views.
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
    return found


def _app_graph() -> dict[str, set[str]]:
    return {name: {i for i in _imports(name) if i in MODULES} for name in MODULES}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph[node]:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    assert _cycles(_app_graph()) == []


# The viewer's packages, top to bottom. A package imports only packages below it: never one
# above, never one beside it on the same line. docs/architecture.md explains each layer.
VIEWER_LAYERS: tuple[tuple[str, ...], ...] = (
    ("app.viewer",),  # the factory: blueprints, error pages, embeds, template globals
    ("app.viewer.signin",),  # sign-in pages and flows
    ("app.viewer.structure_pages",),  # the 3D pages
    ("app.viewer.exports",),
    ("app.viewer.pages",),  # overview, run, result and prediction pages, downloads
    ("app.viewer.results",),  # the results table page
    ("app.viewer.explore",),  # the exploration engine: query, selections, answers, index
    ("app.viewer.depictions",),  # molecule drawings
    ("app.viewer.epitope",),
    ("app.viewer.proteins",),
    ("app.viewer.provenance",),  # what a run record says: inputs, chains, their roles
    ("app.viewer.chem",),
    ("app.viewer.structure",),  # structure files read: chains, confidence, PAE, fits
    ("app.viewer.runtime",),  # budgeted child processes, admission control, the cache
    ("app.viewer.core",),  # the API client, loaders, errors, formatting
    ("app.viewer.access",),  # who the visitor is: session, verified address, token
    ("app.viewer.web",),  # HTTP plumbing: security headers, compression, static files
    ("app.viewer.store",),  # the viewer's own tables
)


def _package(module: str) -> str:
    """Return the package ``module`` belongs to (itself when it is a package)."""
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def _viewer_package(module: str) -> str | None:
    """Return the top viewer package (a name of ``VIEWER_LAYERS``) holding ``module``."""
    package = _package(module) if module in MODULES else module
    names = [name for layer in VIEWER_LAYERS for name in layer
             if package == name or (name != "app.viewer" and package.startswith(name + "."))]
    return names[0] if names else None


def _layer(package: str) -> int:
    return next(i for i, layer in enumerate(VIEWER_LAYERS) if package in layer)


def _upward_imports(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Return {module: [imported modules]} for every viewer import that does not go down
    (imports inside one top package are the module cycle check's)."""
    found = {}
    for module, imported in graph.items():
        here = _viewer_package(module)
        if here is None:
            continue
        wrong = sorted(target for target in imported
                       if (there := _viewer_package(target)) is not None and there != here
                       and _layer(there) <= _layer(here))
        if wrong:
            found[module] = wrong
    return found


def test_every_viewer_package_has_a_layer():
    packages = {_package(name) for name in MODULES if name.startswith("app.viewer")}
    assert {package for package in packages if _viewer_package(package) is None} == set()


def test_viewer_imports_only_go_down():
    assert _upward_imports(_app_graph()) == {}


def test_the_layer_check_finds_an_import_going_up():
    graph = {"app.viewer.core.loaders": {"app.viewer.explore.fields"},
             "app.viewer.explore.fields": {"app.viewer.core.loaders"}}
    assert _upward_imports(graph) == {"app.viewer.core.loaders": ["app.viewer.explore.fields"]}


# The packages of app/, top to bottom, with the same rule: imports only go down, never
# beside. The composition root (app/__init__.py) alone may import the demo.
APP_LAYERS: tuple[tuple[str, ...], ...] = (
    ("app",),  # create_app: the service and the viewer composed, the demo's commands
    ("app.demo",),  # the demo link: development and evaluation only
    ("app.service", "app.viewer"),  # the two apps: never each other (HTTP only)
    ("app.jobs",),  # commands and retention's purge
    ("app.synthetic",),  # synthetic runs: test mode and the demo
    ("app.store", "app.artifact_storage"),  # the API's SQL; artifact files
    ("app.platform",),  # settings, Flask base, databases, ids, time, tokens, metrics
    ("app.domain",),  # the vocabulary (pure)
)


def _app_package(module: str) -> str:
    """Return the top package of app/ holding ``module`` ("app" for the root's own)."""
    parts = module.split(".")
    return "app" if len(parts) == 1 else ".".join(parts[:2])


def _app_layer(package: str) -> int:
    return next(i for i, layer in enumerate(APP_LAYERS) if package in layer)


def _app_upward_imports(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Return {module: [imported modules]} for every import between app/'s packages that
    does not go down."""
    found = {}
    for module, imported in graph.items():
        here = _app_package(module)
        wrong = sorted(target for target in imported
                       if (there := _app_package(target)) != here
                       and _app_layer(there) <= _app_layer(here))
        if wrong:
            found[module] = wrong
    return found


def test_every_app_package_has_a_layer():
    packages = {_app_package(name) for name in MODULES}
    layered = {name for layer in APP_LAYERS for name in layer}
    assert packages - layered == set()


def test_app_imports_only_go_down():
    assert _app_upward_imports(_app_graph()) == {}


def test_production_code_never_imports_the_demo():
    importers = {name for name, imported in _app_graph().items()
                 if _app_package(name) not in ("app", "app.demo")
                 and any(_app_package(target) == "app.demo" for target in imported)}
    assert importers == set()


def test_the_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_module_over_350_lines():
    long = {name: len(path.read_text().splitlines()) for name, path in MODULES.items()
            if not name.startswith(EXEMPT_FROM_SIZE)}
    assert {n: lines for n, lines in long.items() if lines > MAX_MODULE_LINES} == {}


def test_the_domain_vocabulary_is_pure():
    # The vocabulary and its own submodules (app.domain.adme): standard library only.
    for module in ("app.domain", "app.domain.adme", "app.domain.thresholds"):
        imported = _imports(module)
        assert not {i for i in imported if i.split(".")[0] in
                    ("flask", "werkzeug", "sqlalchemy", "alembic", "httpx", "pydantic")}
        assert not {i for i in imported
                    if i.startswith("app.") and not i.startswith("app.domain.")}, module


def test_sql_only_in_the_stores():
    offenders = {name for name in MODULES
                 if not name.startswith(SQL_HOMES)
                 and any(i.split(".")[0] in SQL_PACKAGES for i in _imports(name))}
    # Type hints of a Connection are allowed where a store function is handed one.
    assert offenders <= {"app.demo.seed", "app.jobs.cli"}, offenders


def test_the_viewer_knows_the_service_only_over_http():
    viewer = [name for name in MODULES if name.startswith("app.viewer")]
    reaching = {name: sorted(i for i in _imports(name)
                             if i.startswith(("app.service", "app.store")))
                for name in viewer}
    assert {name: found for name, found in reaching.items() if found} == {}


def test_the_service_does_not_import_the_viewer():
    service = [name for name in MODULES if name.startswith(("app.service", "app.store"))]
    assert [name for name in service
            if any(i.startswith("app.viewer") for i in _imports(name))] == []


VIEWER_FACTORY = "app.viewer"


def _defines_blueprint(name: str) -> bool:
    """Whether module ``name`` creates a Flask blueprint (``bp = Blueprint(...)``)."""
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Blueprint":
            return True
    return False


def test_only_the_viewer_factory_imports_a_blueprint_module():
    # A module with routes is no library: what others need lives in a sibling module.
    viewer = [name for name in MODULES if name.startswith("app.viewer")]
    with_routes = {name for name in viewer if _defines_blueprint(name)}
    assert len(with_routes) >= 8  # pages, downloads, results, exports, structure, ...
    importers = {name: sorted(_imports(name) & with_routes) for name in viewer
                 if name != VIEWER_FACTORY}
    assert {name: found for name, found in importers.items() if found} == {}


def test_the_blueprint_check_tells_routes_from_libraries():
    assert _defines_blueprint("app.viewer.pages.views")
    assert not _defines_blueprint("app.viewer.core.loaders")
    assert "app.viewer.pages.views" in _imports(VIEWER_FACTORY)
