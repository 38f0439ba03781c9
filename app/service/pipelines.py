"""Pipeline runs as the public SDK reads them: retrieve, list and list_results (issue 11).

Read-only: runs are created by the compute engine, outside this API. Paths, parameters and
record shapes are those of the SDK (``boltz-api`` 0.50.0), one resource per pipeline
(paths below ``/compute/v1``):

- ``/protein/design`` (SDK ``protein.design``): kinds ``protein_design`` and
  ``protein_redesign``;
- ``/protein/sequence-redesign`` (``protein.sequence_redesign``): ``protein_sequence_redesign``;
- ``/protein/library-screen`` (``protein.library_screen``): ``protein_library_screen``;
- ``/small-molecule/design`` (``small_molecule.design``): ``small_molecule_design``;
- ``/small-molecule/library-screen`` (``small_molecule.library_screen``):
  ``small_molecule_library_screen``.

The SDK has no resource of its own for protein redesign: a redesign of an existing binder
is a protein design run from a template, so those runs are served with the design runs
(their ``kind`` field tells them apart; their results have the same record shape).

Each resource answers ``GET {path}`` (one page of run summaries, ordered by id, ``limit``
1-1000, default 20), ``GET {path}/{id}`` (one run with its input) and
``GET {path}/{id}/results`` (its results in the page shape of the run's kind, exactly as
the share endpoint answers them, ``limit`` default 100, ``ids`` filter up to 200).
Scoping and modes: see ``app.service.read_scope``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from app.db import get_conn
from app.service import read_scope
from app.service.api import ApiBlueprint
from app.service.auth import current_key
from app.service.errors import not_found
from app.service.pagination import Page
from app.service.read_scope import RunListQuery, RunQuery, RunResultsQuery
from app.service.result_records import PAGE_MODELS, pipeline_results
from app.service.run_models import (
    DesignProgress,
    MoleculeDesignProgress,
    MoleculeScreenProgress,
    ProteinScreenProgress,
    RunModels,
)
from app.store import pipelines as store

bp = ApiBlueprint("pipelines", __name__)

_SCOPE = read_scope.__doc__.split("\n\n", 1)[1]


@dataclass(frozen=True)
class PipelineResource:
    """One SDK pipeline resource: its path, the kinds it serves, its models."""

    path: str
    kinds: tuple[str, ...]
    label: str
    tag: str
    models: RunModels


RESOURCES = (
    PipelineResource("/protein/design", ("protein_design", "protein_redesign"),
                     "protein design", "Protein",
                     RunModels("ProteinDesignRun", "boltzprot", "1.0", DesignProgress,
                               "protein design")),
    PipelineResource("/protein/sequence-redesign", ("protein_sequence_redesign",),
                     "protein sequence redesign", "Protein",
                     RunModels("ProteinSequenceRedesignRun", "boltz-protein-redesign",
                               "v2026-07-14", DesignProgress, "protein sequence redesign")),
    PipelineResource("/protein/library-screen", ("protein_library_screen",),
                     "protein library screen", "Protein",
                     RunModels("ProteinLibraryScreenRun", "boltzprot", "1.0",
                               ProteinScreenProgress, "protein library screen")),
    PipelineResource("/small-molecule/design", ("small_molecule_design",),
                     "small-molecule design", "Small molecule",
                     RunModels("SmallMoleculeDesignRun", "boltzmol", "1.0",
                               MoleculeDesignProgress, "small-molecule design")),
    PipelineResource("/small-molecule/library-screen", ("small_molecule_library_screen",),
                     "small-molecule library screen", "Small molecule",
                     RunModels("SmallMoleculeLibraryScreenRun", "boltzmol", "1.0",
                               MoleculeScreenProgress, "small-molecule library screen")),
)


def find_run(resource: PipelineResource, run_id: str,
             workspace_id: str | None) -> store.PipelineRow:
    """Return the caller's run of ``resource`` in the key's mode, or the shared 404."""
    key = current_key()
    run = store.find_pipeline(
        get_conn(), run_id, organization_id=key.organization_id, kinds=resource.kinds,
        livemode=key.livemode, workspace_id=read_scope.retrieve_workspace(workspace_id),
    )
    if run is None:
        raise not_found()
    return run


def _register(resource: PipelineResource) -> None:
    """Declare the three read operations of ``resource`` on ``bp``."""
    models, label = resource.models, resource.label
    common = {"tag": resource.tag, "auth": "any", "extra_statuses": (400, 401, 403, 404)}

    def list_runs(query: RunListQuery) -> BaseModel:
        key = current_key()
        runs, has_more = store.list_pipelines(
            get_conn(), read_scope.list_workspace(query.workspace_id), resource.kinds,
            key.livemode, limit=query.limit, after_id=query.after_id,
            before_id=query.before_id)
        return models.page_of(runs, has_more)

    def retrieve_run(id: str, query: RunQuery) -> BaseModel:
        return models.record(find_run(resource, id, query.workspace_id), full=True)

    def list_run_results(id: str, query: RunResultsQuery) -> Page:
        run = find_run(resource, id, query.workspace_id)
        return pipeline_results(run.kind, run.id, query)

    stem = resource.path.strip("/").replace("/", "_").replace("-", "_")
    for view, verb in ((list_runs, "list"), (retrieve_run, "retrieve"),
                       (list_run_results, "list_results")):
        view.__name__ = view.__qualname__ = f"{verb}_{stem}"
    bp.operation("GET", resource.path, summary=f"List {label} runs", query=RunListQuery,
                 response=models.page, description="Ordered by id (creation order). "
                 + _SCOPE, **common)(list_runs)
    bp.operation("GET", f"{resource.path}/<id>", summary=f"Retrieve a {label} run",
                 query=RunQuery, response=models.full, description=_SCOPE,
                 **common)(retrieve_run)
    bp.operation("GET", f"{resource.path}/<id>/results",
                 summary=f"List results of a {label} run", query=RunResultsQuery,
                 response=tuple(PAGE_MODELS[kind] for kind in resource.kinds),
                 description="The same page shapes as the share-link results endpoint. "
                 "`ids` filters before pagination. " + _SCOPE, **common)(list_run_results)


for _resource in RESOURCES:
    _register(_resource)
