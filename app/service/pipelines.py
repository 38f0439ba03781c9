"""Pipeline runs as the public SDK reads them: retrieve, list and list_results.

Read-only: runs are created by the compute engine, outside this API. Paths, parameters and
record shapes are those of the SDK (``boltz-api`` 0.50.0), one resource per pipeline type
(paths below ``/compute/v1``):

- ``/protein/design`` (SDK ``protein.design``): ``protein_design``;
- ``/protein/sequence-redesign`` (``protein.sequence_redesign``): ``protein_sequence_redesign``;
- ``/protein/library-screen`` (``protein.library_screen``): ``protein_library_screen``;
- ``/small-molecule/design`` (``small_molecule.design``): ``small_molecule_design``;
- ``/small-molecule/library-screen`` (``small_molecule.library_screen``):
  ``small_molecule_library_screen``;
- ``/small-molecule/explore`` (``small_molecule.explore``): ``small_molecule_explore``
  (the SDK has retrieve and list_results; the list is an extension beyond the SDK);
- ``/protein/redesign``: ``protein_redesign``. Extension (beyond the SDK): the SDK has
  no resource for protein redesign runs (``boltz-protein-redesign`` ``v2026-03-01``,
  ``PipelineProteinRedesignRun`` of its share reads); their records fail the protein
  design model, so they get a resource of their own with the same three reads.

Each resource answers ``GET {path}`` (one page of run summaries, ordered by id, ``limit``
1-1000, default 20), ``GET {path}/{id}`` (one run with its input, the same record the
share read answers) and ``GET {path}/{id}/results`` (its results in the page shape of
the run's type, exactly as the share endpoint answers them, ``limit`` default 100,
``ids`` filter up to 200). Records: ``app.service.run_models``. Scoping and modes: see
``app.service.read_scope``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from app.platform.db import get_conn
from app.service import read_scope
from app.service.api import ApiBlueprint
from app.service.auth import current_key
from app.service.errors import not_found
from app.service.pagination import Page
from app.service.read_scope import RunListQuery, RunQuery, RunResultsQuery
from app.service.result_records import PAGE_MODELS, pipeline_results
from app.service.run_models import PIPELINE_MODELS, RunModels
from app.service.wire import Serialised
from app.store import pipelines as store
from app.store import results as results_store

bp = ApiBlueprint("pipelines", __name__)

_SCOPE = read_scope.__doc__.split("\n\n", 1)[1]


@dataclass(frozen=True)
class PipelineResource:
    """One pipeline resource: its path, the kind it serves, its label and tag."""

    path: str
    kind: str
    label: str
    tag: str
    extension: str = ""  # why the resource (or its list) goes beyond the SDK, if it does

    @property
    def models(self) -> RunModels:
        """The record models of the resource's runs."""
        return PIPELINE_MODELS[self.kind]


_EXPLORE_LIST = ("Extension (beyond the SDK): the SDK has no list of small-molecule "
                 "explore runs; this one answers as the other run lists do. ")
_REDESIGN = ("Extension (beyond the SDK): the SDK has no resource for protein redesign "
             "runs (boltz-protein-redesign v2026-03-01); records are its "
             "PipelineProteinRedesignRun. ")

RESOURCES = (
    PipelineResource("/protein/design", "protein_design", "protein design", "Protein"),
    PipelineResource("/protein/redesign", "protein_redesign", "protein redesign", "Protein",
                     extension=_REDESIGN),
    PipelineResource("/protein/sequence-redesign", "protein_sequence_redesign",
                     "protein sequence redesign", "Protein"),
    PipelineResource("/protein/library-screen", "protein_library_screen",
                     "protein library screen", "Protein"),
    PipelineResource("/small-molecule/design", "small_molecule_design",
                     "small-molecule design", "Small molecule"),
    PipelineResource("/small-molecule/library-screen", "small_molecule_library_screen",
                     "small-molecule library screen", "Small molecule"),
    PipelineResource("/small-molecule/explore", "small_molecule_explore",
                     "small-molecule explore", "Small molecule"),
)


def find_run(resource: PipelineResource, run_id: str,
             workspace_id: str | None) -> store.PipelineRow:
    """Return the caller's run of ``resource`` in the key's mode, or the shared 404."""
    key = current_key()
    run = store.find_pipeline(
        get_conn(), run_id, organization_id=key.organization_id, kinds=(resource.kind,),
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
        conn = get_conn()
        runs, has_more = store.list_pipelines(
            conn, read_scope.list_workspace(query.workspace_id), (resource.kind,),
            key.livemode, limit=query.limit, after_id=query.after_id,
            before_id=query.before_id)
        # One grouped query gives every run of the page its latest_result_id.
        latest = results_store.latest_result_ids(conn, [run.id for run in runs])
        return models.page_of(runs, has_more, latest)

    def retrieve_run(id: str, query: RunQuery) -> BaseModel:
        run = find_run(resource, id, query.workspace_id)
        latest = results_store.latest_result_ids(get_conn(), [run.id])
        return models.record(run, full=True, latest_result_id=latest.get(run.id))

    def list_run_results(id: str, query: RunResultsQuery) -> Page | Serialised:
        run = find_run(resource, id, query.workspace_id)
        if run.data_deleted_at is not None:  # retention deleted its results: a stub
            return PAGE_MODELS[run.kind].of([], False)
        return pipeline_results(run.kind, run.id, query)

    stem = resource.path.strip("/").replace("/", "_").replace("-", "_")
    for view, verb in ((list_runs, "list"), (retrieve_run, "retrieve"),
                       (list_run_results, "list_results")):
        view.__name__ = view.__qualname__ = f"{verb}_{stem}"
    extension = resource.extension
    list_extension = extension or (_EXPLORE_LIST if resource.kind == "small_molecule_explore"
                                   else "")
    bp.operation("GET", resource.path, summary=f"List {label} runs", query=RunListQuery,
                 response=models.page, description=list_extension
                 + "Ordered by id (creation order). " + _SCOPE, **common)(list_runs)
    bp.operation("GET", f"{resource.path}/<id>", summary=f"Retrieve a {label} run",
                 query=RunQuery, response=models.full, description=extension
                 + "The same record as the run's entry in a share read. " + _SCOPE,
                 **common)(retrieve_run)
    bp.operation("GET", f"{resource.path}/<id>/results",
                 summary=f"List results of a {label} run", query=RunResultsQuery,
                 response=PAGE_MODELS[resource.kind], description=extension
                 + "The same page shape as the share-link results endpoint. "
                 "`ids` filters before pagination. " + _SCOPE, **common)(list_run_results)


for _resource in RESOURCES:
    _register(_resource)
