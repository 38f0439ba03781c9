"""Response models of pipeline runs and predictions, exactly in the shapes of the public SDK.

One builder per resource makes both the run's retrieve answer and its entry in a share
read (``GET /share/{id}``), so the two cannot differ. Each SDK resource has a
summary record (its list items, without ``input``) and a full record (retrieve and share
read, with ``input``), named as the SDK's OpenAPI schemas are. What we fill:

- ``status``, ``created_at``, ``started_at``, ``completed_at``, ``stopped_at``
  (pipelines), ``workspace_id`` and ``livemode`` as stored; ``error`` (``code``,
  ``message``, ``details``) as stored when it is an error record (else marked
  unreadable, ``run_fields``); ``input`` (pipelines) and ``input``/``output``
  (predictions) as stored in the SDK's shapes, null when there is none.
- ``engine``/``pipeline`` (and their versions) or ``model``/``version``: the constants the
  SDK declares for each pipeline type and prediction model.
- ``progress``, per type as the SDK declares it: the count of results done
  (``num_*_generated``, ``num_*_screened``, ``num_molecules_scored``) is the number of
  stored results, ``latest_result_id`` the largest result id of the run (omitted while
  it has none); requested totals, failed counts, ``phase``, ``library_size`` and
  ``rejection_summary`` come from the stored ``progress``. A row without stored progress
  (``progress`` NULL) reads as: total = count, nothing failed, phase ``scoring``; so
  does a stored field that does not validate (``run_fields``): one run's malformed
  column never fails an answer listing other runs.
- A structure-and-binding ``output`` is stored without URLs: presigned ``{url,
  url_expires_at}`` are injected from the prediction's artifacts by role (``structure``
  and ``ligand_structure`` for ``best_sample``, ``structure_sample_<n>`` and
  ``ligand_structure_sample_<n>`` for ``all_sample_results[n-1]``, ``archive``).
- ``data_deleted_at``: when retention deleted the run's data (``app.jobs.retention``); the
  stub's stored ``input`` (a prediction's ``output`` too) is null, as the SDK says; its
  ``progress`` is what the run made, without ``latest_result_id`` (no result is left).
- Not stored, so always null: ``expires_at`` of predictions; ``idempotency_key`` is
  omitted (runs are not created through this API).

No field beyond the SDK: the record of a run says its type through ``pipeline``/
``engine``, their versions and the shapes of ``input`` and ``progress`` (see
``../shared/sdk-wire.md``), not through a ``kind`` of ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from app.platform.db import get_conn
from app.service.artifacts import ArtifactUrl, Presigner
from app.service.pagination import Page
from app.service.run_fields import (
    DesignProgress,
    MoleculeDesignProgress,
    MoleculeExploreProgress,
    MoleculeScreenProgress,
    ProteinScreenProgress,
    RunError,
    build_progress,
    run_error,
)
from app.service.wire import Timestamp
from app.store import results as results_store
from app.store.catalog import PipelineRow, PredictionRow


class _Run(BaseModel):
    """Fields every run and prediction record shares."""

    id: str
    completed_at: Timestamp | None
    created_at: Timestamp
    data_deleted_at: Timestamp | None = Field(
        description="When the input, output and result data was permanently deleted "
        "under the workspace's data retention; null if it has not been deleted.")
    error: RunError | None = Field(description="Why the run failed; null otherwise.")
    livemode: bool = Field(description="Whether the run belongs to live mode (false: test).")
    started_at: Timestamp | None


class PipelineRunBase(_Run):
    """Fields every pipeline run record shares."""

    status: str = Field(description="pending, running, succeeded, failed or stopped.")
    stopped_at: Timestamp | None
    workspace_id: str


class PredictionBase(_Run):
    """Fields every prediction record shares."""

    expires_at: Timestamp | None = Field(description="Always null here: not stored.")
    status: str = Field(description="pending, running, succeeded or failed.")
    workspace_id: str


class RunModels:
    """The summary, full and page models of one SDK pipeline type, and its builder."""

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
                                 __module__=__name__,
                                 input=(Any, Field(description=f"The {label} run's input "
                                                   "as the SDK declares it; null when "
                                                   "there is none or it was deleted.")))
        self.page = create_model(f"{name}List", __base__=Page[self.summary],
                                 __doc__=f"One page of {label} runs, ordered by id.",
                                 __module__=__name__)

    def _fields(self, run: PipelineRow, latest_result_id: str | None) -> dict:
        latest_result_id = None if run.data_deleted_at else latest_result_id  # a stub: none
        return {"id": run.id, "completed_at": run.completed_at, "created_at": run.created_at,
                "data_deleted_at": run.data_deleted_at, "error": run_error(run.error, run.id),
                "livemode": run.livemode, "started_at": run.started_at,
                "stopped_at": run.stopped_at, "status": run.status,
                "workspace_id": run.workspace_id,
                "progress": build_progress(self.progress, run.progress, run.result_count,
                                           latest_result_id, run.id),
                **self.constants}

    def record(self, run: PipelineRow, *, full: bool,
               latest_result_id: str | None = None) -> BaseModel:
        """Return the full record of ``run`` (with ``input``) or its summary."""
        if full:
            return self.full(input=run.input, **self._fields(run, latest_result_id))
        return self.summary(**self._fields(run, latest_result_id))

    def page_of(self, runs: list[PipelineRow], has_more: bool,
                latest: Mapping[str, str]) -> Page:
        """Return a page of summaries; ``latest`` maps run ids to their newest result id."""
        return self.page.of([self.record(run, full=False, latest_result_id=latest.get(run.id))
                             for run in runs], has_more)


def presigned_by_role(prediction_ids: list[str]) -> dict[str, dict[str, ArtifactUrl]]:
    """Return ``{prediction id: {role: presigned URL}}`` for many predictions, in one query."""
    files = results_store.artifact_files_for_predictions(get_conn(), prediction_ids)
    if not files:
        return {}
    sign = Presigner.for_request().sign_file
    return {owner: {role: sign(file) for role, file in roles.items()}
            for owner, roles in files.items()}


def _signed(urls: Mapping[str, ArtifactUrl], role: str, target: dict, key: str) -> None:
    """Set ``target[key]`` to the presigned URL of ``role`` when the prediction has it."""
    if role in urls:
        target[key] = urls[role]


def structure_output_with_urls(output: Any, urls: Mapping[str, ArtifactUrl]) -> Any:
    """Return a structure-and-binding ``output`` with its files' presigned URLs injected.

    ``urls`` maps artifact roles to presigned URLs (see the module docstring for the
    roles). The stored output is not modified: the parts that change are copied.
    """
    if not isinstance(output, dict):
        return output
    answer = dict(output)
    best = answer.get("best_sample")
    if isinstance(best, dict):
        best = answer["best_sample"] = dict(best)
        _signed(urls, "structure", best, "structure")
        _signed(urls, "ligand_structure", best, "ligand_structure")
    samples = answer.get("all_sample_results")
    if isinstance(samples, list):
        answer["all_sample_results"] = copied = []
        for number, sample in enumerate(samples, start=1):
            if isinstance(sample, dict):
                sample = dict(sample)
                _signed(urls, f"structure_sample_{number}", sample, "structure")
                _signed(urls, f"ligand_structure_sample_{number}", sample,
                        "ligand_structure")
            copied.append(sample)
    _signed(urls, "archive", answer, "archive")
    return answer


class PredictionModels:
    """The summary, full and page models of one SDK prediction resource, and its builder.

    ``files_in_output``: whether the output names files (structure and binding), whose
    presigned URLs are injected by role.
    """

    def __init__(self, name: str, model: str, version: str, label: str, *,
                 files_in_output: bool = False):
        self.constants = {"model": model, "version": version}
        self.files_in_output = files_in_output
        self.summary = create_model(f"{name}Summary", __base__=PredictionBase,
                                    __doc__=f"A {label}, without its input and output.",
                                    __module__=__name__, model=(Literal[model], ...),
                                    version=(str, ...))
        self.full = create_model(
            name, __base__=self.summary, __doc__=f"A {label}, with its input and output.",
            __module__=__name__,
            input=(Any, Field(description="The input as the SDK declares it; null if deleted.")),
            output=(Any, Field(description="The output as the SDK declares it, files as "
                               "presigned URLs; null until it succeeded, or if deleted.")))
        self.page = create_model(f"{name}List", __base__=Page[self.summary],
                                 __doc__=f"One page of {label}s, ordered by id.",
                                 __module__=__name__)

    def _fields(self, run: PredictionRow) -> dict:
        return {"id": run.id, "completed_at": run.completed_at, "created_at": run.created_at,
                "data_deleted_at": run.data_deleted_at, "error": run_error(run.error, run.id),
                "expires_at": None,
                "livemode": run.livemode, "started_at": run.started_at,
                "status": run.status, "workspace_id": run.workspace_id, **self.constants}

    def record(self, run: PredictionRow, *, full: bool,
               urls: Mapping[str, ArtifactUrl] | None = None) -> BaseModel:
        """Return the full record of ``run`` (input and output, ``urls`` by artifact role
        injected into the output) or its summary."""
        if full:
            output = run.outputs
            if self.files_in_output:
                output = structure_output_with_urls(output, urls or {})
            return self.full(input=run.inputs, output=output, **self._fields(run))
        return self.summary(**self._fields(run))

    def page_of(self, runs: list[PredictionRow], has_more: bool) -> Page:
        """Return a page of summaries."""
        return self.page.of([self.record(run, full=False) for run in runs], has_more)


# Each pipeline kind of ``app.domain.KINDS`` -> the SDK type its runs are (one builder
# for retrieve, list and the share read).
PIPELINE_MODELS: dict[str, RunModels] = {
    "protein_design": RunModels("ProteinDesignRun", "boltzprot", "1.0", DesignProgress,
                                "protein design"),
    "protein_redesign": RunModels("ProteinRedesignRun", "boltz-protein-redesign",
                                  "v2026-03-01", DesignProgress, "protein redesign"),
    "protein_sequence_redesign": RunModels(
        "ProteinSequenceRedesignRun", "boltz-protein-redesign", "v2026-07-14",
        DesignProgress, "protein sequence redesign"),
    "protein_library_screen": RunModels("ProteinLibraryScreenRun", "boltzprot", "1.0",
                                        ProteinScreenProgress, "protein library screen"),
    "small_molecule_design": RunModels("SmallMoleculeDesignRun", "boltzmol", "1.0",
                                       MoleculeDesignProgress, "small-molecule design"),
    "small_molecule_library_screen": RunModels(
        "SmallMoleculeLibraryScreenRun", "boltzmol", "1.0", MoleculeScreenProgress,
        "small-molecule library screen"),
    "small_molecule_explore": RunModels(
        "SmallMoleculeExploreRun", "boltzmol", "1.0", MoleculeExploreProgress,
        "small-molecule explore"),
}

# Each prediction application -> its SDK model.
PREDICTION_MODELS: dict[str, PredictionModels] = {
    "structure_and_binding": PredictionModels(
        "StructureAndBindingPrediction", "boltz-2.1", "2.1",
        "structure and binding prediction", files_in_output=True),
    "adme": PredictionModels("AdmePrediction", "adme-v1", "1", "ADME prediction"),
}
