"""Predictions as the public SDK reads them: retrieve and list.

Read-only: predictions are created by the compute engine, outside this API. Paths,
parameters and record shapes are those of the SDK (``boltz-api`` 0.50.0):
``/predictions/structure-and-binding`` (application ``structure_and_binding``) and
``/predictions/adme`` (application ``adme``). ``GET {path}`` answers one page of
summaries ordered by id (``limit`` 1-1000, default 20); ``GET {path}/{id}`` one
prediction with its input and output (a structure-and-binding output with its files'
presigned URLs), the same record the share read answers (``app.service.run_models``).
Scoping and modes: see ``app.service.read_scope``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from app.platform.db import get_conn
from app.service import read_scope
from app.service.api import ApiBlueprint
from app.service.auth import current_key
from app.service.errors import not_found
from app.service.read_scope import RunListQuery, RunQuery
from app.service.run_models import PREDICTION_MODELS, PredictionModels, presigned_by_role
from app.store import pipelines as store

bp = ApiBlueprint("predictions", __name__)

_SCOPE = read_scope.__doc__.split("\n\n", 1)[1]


@dataclass(frozen=True)
class PredictionResource:
    """One SDK prediction resource: its path, its application, its label."""

    path: str
    application: str
    label: str

    @property
    def models(self) -> PredictionModels:
        """The record models of the resource's predictions."""
        return PREDICTION_MODELS[self.application]


RESOURCES = (
    PredictionResource("/predictions/structure-and-binding", "structure_and_binding",
                       "structure and binding prediction"),
    PredictionResource("/predictions/adme", "adme", "ADME prediction"),
)


def _register(resource: PredictionResource) -> None:
    """Declare the list and retrieve operations of ``resource`` on ``bp``."""
    models, label = resource.models, resource.label
    common = {"tag": "Predictions", "auth": "any", "extra_statuses": (400, 401, 403, 404)}

    def list_runs(query: RunListQuery) -> BaseModel:
        key = current_key()
        runs, has_more = store.list_predictions(
            get_conn(), read_scope.list_workspace(query.workspace_id), resource.application,
            key.livemode, limit=query.limit, after_id=query.after_id,
            before_id=query.before_id)
        return models.page_of(runs, has_more)

    def retrieve_run(id: str, query: RunQuery) -> BaseModel:
        key = current_key()
        run = store.find_prediction(
            get_conn(), id, organization_id=key.organization_id,
            application=resource.application, livemode=key.livemode,
            workspace_id=read_scope.retrieve_workspace(query.workspace_id))
        if run is None:
            raise not_found()
        urls = (presigned_by_role([run.id]).get(run.id, {})
                if models.files_in_output else {})
        return models.record(run, full=True, urls=urls)

    stem = resource.path.strip("/").replace("/", "_").replace("-", "_")
    for view, verb in ((list_runs, "list"), (retrieve_run, "retrieve")):
        view.__name__ = view.__qualname__ = f"{verb}_{stem}"
    bp.operation("GET", resource.path, summary=f"List {label}s", query=RunListQuery,
                 response=models.page, description="Ordered by id (creation order). "
                 + _SCOPE, **common)(list_runs)
    bp.operation("GET", f"{resource.path}/<id>", summary=f"Retrieve a {label}",
                 query=RunQuery, response=models.full, description="The same record as "
                 "the prediction's entry in a share read. " + _SCOPE,
                 **common)(retrieve_run)


for _resource in RESOURCES:
    _register(_resource)
