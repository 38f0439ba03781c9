"""Response models of pipeline runs and predictions, in the shapes of the public SDK.

Each SDK resource has a summary record (its list items, without ``input``) and a full
record (retrieval, with ``input``), named as the SDK's OpenAPI schemas are. What we fill:

- ``status`` as stored (``pending``, ``running``, ``succeeded``, ``failed``, ``stopped``);
  ``created_at``, ``completed_at``, ``workspace_id``, ``livemode``; ``input`` (pipelines)
  and ``input``/``output`` (predictions) as stored, null when there is none.
- ``engine``/``pipeline`` (and their versions) or ``model``/``version``: the constants the
  SDK declares for each resource.
- ``progress``: every stored result counts as generated (or screened); the requested
  total is not stored, so the total is the same count and nothing counts as failed.
- Not stored, so always null: ``started_at``, ``stopped_at``, ``data_deleted_at``
  (retention deletes whole rows), ``error``, and ``expires_at`` of predictions;
  ``idempotency_key`` is omitted (runs are not created through this API).
- Beyond the SDK (its clients ignore unknown fields): ``kind`` of pipelines (the result
  kind of ``app.domain``, which tells protein design from protein redesign runs, both
  served under ``/protein/design``), ``application`` of predictions, and ``name``
  (omitted when the run has none).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from app.service.pagination import Page
from app.service.wire import Timestamp, omitted_if_none
from app.store.pipelines import PipelineRow, PredictionRow


class RunError(BaseModel):
    """Why a run failed (never set here: failures are not stored)."""

    code: str
    message: str


class _Run(BaseModel):
    """Fields every run and prediction record shares."""

    id: str
    completed_at: Timestamp | None
    created_at: Timestamp
    data_deleted_at: Timestamp | None = Field(description="Always null here: retention "
                                              "deletes the whole run.")
    error: RunError | None
    livemode: bool = Field(description="Whether the run belongs to live mode (false: test).")
    started_at: Timestamp | None
    status: str = Field(description="pending, running, succeeded, failed or stopped.")
    workspace_id: str
    name: str | None = omitted_if_none("Beyond the SDK: the run's name, if any.")


class PipelineRunBase(_Run):
    """Fields every pipeline run record shares."""

    stopped_at: Timestamp | None
    kind: str = Field(description="Beyond the SDK: the result kind of the run (the shape "
                      "of its results).")


class PredictionBase(_Run):
    """Fields every prediction record shares."""

    expires_at: Timestamp | None = Field(description="Always null here: not stored.")
    application: str = Field(description="Beyond the SDK: the application of the usage "
                             "report.")


class DesignProgress(BaseModel):
    """Progress of a protein design or sequence redesign run."""

    num_proteins_generated: int
    total_proteins_to_generate: int


class ProteinScreenProgress(BaseModel):
    """Progress of a protein library screen."""

    num_proteins_failed: int
    num_proteins_screened: int
    total_proteins_to_screen: int


class MoleculeDesignProgress(BaseModel):
    """Progress of a small-molecule design run."""

    num_molecules_generated: int
    total_molecules_to_generate: int


class MoleculeScreenProgress(BaseModel):
    """Progress of a small-molecule library screen."""

    num_molecules_failed: int
    num_molecules_screened: int
    total_molecules_to_screen: int


def _progress(model: type[BaseModel], count: int) -> BaseModel:
    """Return ``model`` with every stored result done, none failed (see module docstring)."""
    values = {name: (0 if "failed" in name else count) for name in model.model_fields}
    return model(**values)


class RunModels:
    """The summary, full and page models of one SDK pipeline resource, and its builder."""

    def __init__(self, name: str, engine: str, version: str, progress: type[BaseModel],
                 label: str):
        constants = {"engine": engine, "engine_version": version, "pipeline": engine,
                     "pipeline_version": version}
        self.constants = constants
        self.progress = progress
        fields: dict[str, Any] = {key: (Literal[value], ...) for key, value in constants.items()}
        self.summary = create_model(f"{name}Summary", __base__=PipelineRunBase,
                                    __doc__=f"A {label} run, without its input.",
                                    __module__=__name__, progress=(progress, ...), **fields)
        self.full = create_model(name, __base__=self.summary,
                                 __doc__=f"A {label} run, with its input.",
                                 __module__=__name__, input=(Any, ...))
        self.page = create_model(f"{name}List", __base__=Page[self.summary],
                                 __doc__=f"One page of {label} runs, ordered by id.",
                                 __module__=__name__)

    def _fields(self, run: PipelineRow) -> dict:
        return {"id": run.id, "completed_at": run.completed_at, "created_at": run.created_at,
                "data_deleted_at": None, "error": None, "livemode": run.livemode,
                "started_at": None, "stopped_at": None, "status": run.status,
                "workspace_id": run.workspace_id, "kind": run.kind, "name": run.name,
                "progress": _progress(self.progress, run.result_count), **self.constants}

    def record(self, run: PipelineRow, *, full: bool) -> BaseModel:
        """Return the full record of ``run`` (with ``input``) or its summary."""
        if full:
            return self.full(input=run.input, **self._fields(run))
        return self.summary(**self._fields(run))

    def page_of(self, runs: list[PipelineRow], has_more: bool) -> Page:
        """Return a page of summaries."""
        return self.page.of([self.record(run, full=False) for run in runs], has_more)


class PredictionModels:
    """The summary, full and page models of one SDK prediction resource, and its builder."""

    def __init__(self, name: str, model: str, version: str, label: str):
        self.constants = {"model": model, "version": version}
        self.summary = create_model(f"{name}Summary", __base__=PredictionBase,
                                    __doc__=f"A {label}, without its input and output.",
                                    __module__=__name__, model=(Literal[model], ...),
                                    version=(str, ...))
        self.full = create_model(name, __base__=self.summary,
                                 __doc__=f"A {label}, with its input and output.",
                                 __module__=__name__, input=(Any, ...), output=(Any, ...))
        self.page = create_model(f"{name}List", __base__=Page[self.summary],
                                 __doc__=f"One page of {label}s, ordered by id.",
                                 __module__=__name__)

    def _fields(self, run: PredictionRow) -> dict:
        return {"id": run.id, "completed_at": run.completed_at, "created_at": run.created_at,
                "data_deleted_at": None, "error": None, "expires_at": None,
                "livemode": run.livemode, "started_at": None, "status": run.status,
                "workspace_id": run.workspace_id, "application": run.application,
                "name": run.name,
                **self.constants}

    def record(self, run: PredictionRow, *, full: bool) -> BaseModel:
        """Return the full record of ``run`` (with input and output) or its summary."""
        if full:
            return self.full(input=run.inputs, output=run.outputs, **self._fields(run))
        return self.summary(**self._fields(run))

    def page_of(self, runs: list[PredictionRow], has_more: bool) -> Page:
        """Return a page of summaries."""
        return self.page.of([self.record(run, full=False) for run in runs], has_more)
