"""app.domain is the one vocabulary: pure, and what the store, the API and the viewer use."""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from app import domain

DOMAIN_DIR = Path(domain.__file__).parent
FRAMEWORKS = ("flask", "sqlalchemy", "werkzeug", "pydantic", "jinja2", "httpx")


def test_domain_imports_only_the_standard_library():
    """Each module of the package imports the standard library and its siblings only."""
    for path in DOMAIN_DIR.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom)}
        outside = {name for name in imported
                   if name.split(".")[0] not in sys.stdlib_module_names | {"__future__"}
                   and not (name + ".").startswith("app.domain.")}
        assert not outside, path.name


def test_loading_domain_loads_no_framework():
    # Loaded without app/__init__.py (which imports Flask first and would prove nothing):
    # a bare ``app`` package over the same folder, then the domain package and its modules.
    script = (
        "import sys, types\n"
        "package = types.ModuleType('app')\n"
        f"package.__path__ = [{str(DOMAIN_DIR.parent)!r}]\n"
        "sys.modules['app'] = package\n"
        "import app.domain\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {FRAMEWORKS!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_store_accepts_exactly_the_domain_kinds():
    from app.store import catalog

    inserted: list[dict] = []

    class Recorder:
        """A connection that keeps the rows it is asked to insert."""

        def execute(self, _statement, rows):
            inserted.extend(rows)

    def insert(kind: str) -> None:
        row = catalog.PipelineRow(id="pipe_1", workspace_id="ws_1", kind=kind, name=None,
                                  status="succeeded", input={}, result_count=0,
                                  created_at=None, completed_at=None)
        catalog.insert_pipelines(Recorder(), [row])

    for kind in domain.KINDS:
        insert(kind)
    assert [row["kind"] for row in inserted] == list(domain.KINDS)
    with pytest.raises(ValueError, match="protein_folding"):
        insert("protein_folding")


def test_usage_api_and_viewer_know_the_same_applications():
    from app.service import result_records, usage

    assert list(typing.get_args(usage.Application)) == list(domain.APPLICATIONS)
    assert "protein_redesign" in domain.APPLICATIONS
    assert set(result_records.PROTEIN_KINDS) == set(domain.PROTEIN_KINDS)
    assert set(result_records.SMALL_MOLECULE_KINDS) == set(domain.SMALL_MOLECULE_KINDS)
    assert set(result_records.SCREEN_KINDS) == set(domain.SCREEN_KINDS)


def _copied_lists(path: Path) -> list[int]:
    """Return the lines of collection literals holding 3+ kind, application or metric keys."""
    vocabulary = set(domain.KINDS) | set(domain.APPLICATIONS) | set(domain.METRICS)
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Dict | ast.Tuple | ast.List | ast.Set):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            keys = {i.value for i in items if isinstance(i, ast.Constant)}
            if len(keys & vocabulary) >= 3:
                lines.append(node.lineno)
    return lines


def test_viewer_and_store_keep_no_copy_of_the_vocabulary():
    root = DOMAIN_DIR.parent
    copies = {str(path.relative_to(root)): lines
              for folder in ("viewer", "store")
              for path in sorted((root / folder).rglob("*.py"))
              # A migration is a frozen copy of its schema on purpose.
              if "migrations" not in path.parts and (lines := _copied_lists(path))}
    assert not copies


def test_every_kind_has_a_results_model_and_consistent_shape():
    from app.service import result_records

    assert set(result_records.PAGE_MODELS) == set(domain.KINDS)
    for kind in domain.KINDS.values():
        assert set(kind.roles) <= set(domain.RESULT_ROLES)
        assert all(key in domain.METRICS for key in kind.metrics)
        for keys in kind.variants.values():
            assert set(keys) <= set(kind.metrics)  # ``metrics`` is the union


def test_sequence_redesign_metrics_follow_the_variants_present():
    kind = domain.KINDS["protein_sequence_redesign"]
    assert kind.metrics_of(["generic"]) == domain.GENERIC_METRICS
    assert kind.metrics_of(["binder", "generic"]) == domain.BINDER_METRICS
    assert kind.metrics_of([]) == kind.metrics == domain.BINDER_METRICS
    assert domain.KINDS["protein_design"].metrics_of([None]) == domain.BINDER_METRICS


def test_unknown_keys_get_plain_fallbacks():
    assert domain.metric("new_score").label == "New score"
    assert domain.quality(domain.metric("new_score"), 0.99) == ""
    assert domain.kind("future_kind").label == "Future kind"
    assert domain.metric("min_interaction_pae").scale == "Å"
    assert domain.metric("iptm").scale == "0\u20131"


def test_metric_quality_bands():
    quality, metric = domain.quality, domain.metric
    assert quality(metric("binding_confidence"), 0.85) == "strong"
    assert quality(metric("binding_confidence"), 0.49) == "weak"
    assert quality(metric("binding_confidence"), 0.6) == ""
    assert quality(metric("min_interaction_pae"), 3.2) == "strong"
    assert quality(metric("min_interaction_pae"), 16.0) == "weak"
    assert quality(metric("helix_fraction"), 0.9) == ""
    assert quality(metric("something_new"), 0.9) == ""
