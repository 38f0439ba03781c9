"""The record shapes of pipeline results (one page model per kind), and ``result_record``.

Records are pydantic models built from store ``Result`` rows (``result_record``); the
JSON the store keeps (entities, metrics, warnings, ADME) is validated into TypedDicts,
which document it in the OpenAPI document like models but cost a third of nested models
per row, and keep exactly the keys present (``cyclic``, ``modifications``).

Optional fields (``warnings``, ``adme``, ``external_id``) are omitted when the result has
no value, never ``null`` (``wire.omitted_if_none``). In ``artifacts`` a role is present
when the result has that file: the spec always has ``archive`` (and ``structure`` for
screens and small molecules) for finished results; ``ligand_structure`` is optional.

Metrics are served as stored: the SDK's keys (protein records may carry its optional
``ipsae_min``) and any other key the engine reports. Extension (beyond the SDK): a metric
key the SDK does not declare is passed through, never dropped (the SDK's models allow
unknown keys). Small-molecule explore records are library-screen records without
``adme``, as the SDK has them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict

from app import domain
from app.domain import PROTEIN_KINDS, SCREEN_KINDS, SMALL_MOLECULE_KINDS
from app.platform.db import get_conn
from app.service import result_wire
from app.service.artifacts import ArtifactUrl, Presigner
from app.service.pagination import Page
from app.service.wire import Serialised, Timestamp, omitted_if_none
from app.store import results as results_store
from app.store.results import Result


class Modification(TypedDict):
    """A CCD modification of one residue."""

    residue_index: Annotated[int, Field(description="0-based index of the residue.")]
    type: Literal["ccd"]
    value: Annotated[str, Field(description="CCD code.")]


class PolymerEntity(TypedDict):
    """A protein, RNA or DNA chain."""

    type: Literal["protein", "rna", "dna"]
    chain_ids: list[str]
    value: Annotated[str, Field(description="Sequence (one-letter codes).")]
    cyclic: NotRequired[bool]
    modifications: NotRequired[list[Modification]]


class LigandEntity(TypedDict):
    """A ligand given by CCD code or SMILES."""

    type: Literal["ligand_ccd", "ligand_smiles"]
    chain_ids: list[str]
    value: Annotated[str, Field(description="CCD code or SMILES string.")]


Entity = Annotated[PolymerEntity | LigandEntity, Field(discriminator="type")]


class ResultWarning(TypedDict):
    """A machine-readable code and a human-readable message."""

    code: str
    message: str


IPSAE_MIN = Annotated[float, Field(description=(
    "Optional: the lower of target-to-binder and binder-to-target ipSAE at a 10 \u00c5 PAE "
    "cutoff; higher is a more confidently predicted interface."))]


def _metrics(name: str, keys: tuple[str, ...], doc: str,
             optional: dict[str, Any] | None = None) -> type:
    """Return a TypedDict of float metrics ``keys``, described as ``app.domain`` does.

    ``optional`` adds keys that may be absent. Keys beyond both are kept as stored
    (``extra="allow"``): metrics the SDK does not list must reach the viewer.
    """
    fields: dict[str, Any] = {}
    for key in sorted(keys):  # the spec's order
        metric = domain.METRICS[key]
        scale = (f" Unit: {metric.unit}." if metric.unit
                 else f" Range: {metric.range}." if metric.range else "")
        fields[key] = Annotated[float, Field(description=metric.description + scale)]
    for key, annotation in (optional or {}).items():
        fields[key] = NotRequired[annotation]
    model = TypedDict(name, fields)
    model.__doc__ = doc + (" Extension (beyond the SDK): metric keys the SDK does not "
                           "declare are served as stored.")
    model.__module__ = __name__
    model.__pydantic_config__ = ConfigDict(extra="allow")
    return model


BinderMetrics = _metrics("BinderMetrics", domain.BINDER_METRICS, "Protein binder metrics.",
                         {"ipsae_min": IPSAE_MIN})
GenericMetrics = _metrics("GenericMetrics", domain.GENERIC_METRICS,
                          "Generic protein design metrics.")
SmallMoleculeMetrics = _metrics("SmallMoleculeMetrics", domain.SMALL_MOLECULE_METRICS,
                                "Small-molecule metrics.")


class Adme(TypedDict):
    """Predicted ADME properties of a small molecule."""

    lipophilicity: float
    permeability: float
    solubility: Literal["high-confidence", "medium-confidence", "high-risk"]


class ProteinArtifacts(TypedDict):
    """Presigned URLs of a protein result's files by role (a role without a file is omitted)."""

    archive: NotRequired[ArtifactUrl]
    structure: NotRequired[ArtifactUrl]


class ScreenArtifacts(ProteinArtifacts):
    """Presigned URLs of a screened protein's files by role (a role without a file is omitted)."""


class SmallMoleculeArtifacts(TypedDict):
    """Presigned URLs of a small-molecule result's files by role (omitted without a file)."""

    archive: NotRequired[ArtifactUrl]
    structure: NotRequired[ArtifactUrl]
    ligand_structure: NotRequired[ArtifactUrl]


class ProteinDesignResult(BaseModel):
    """A record of protein_design and protein_redesign pipelines."""

    id: str
    artifacts: ProteinArtifacts
    created_at: Timestamp
    entities: list[Entity]
    metrics: BinderMetrics
    warnings: list[ResultWarning] | None = omitted_if_none()


class BinderRedesignResult(ProteinDesignResult):
    """A protein_sequence_redesign record of a binder design."""

    type: Literal["binder"]


class GenericRedesignResult(ProteinDesignResult):
    """A protein_sequence_redesign record of a generic design."""

    type: Literal["generic"]
    metrics: GenericMetrics


class ProteinLibraryScreenResult(ProteinDesignResult):
    """A record of protein_library_screen pipelines."""

    artifacts: ScreenArtifacts
    external_id: str | None = omitted_if_none("Client-provided identifier.")


class SmallMoleculeDesignResult(BaseModel):
    """A record of small_molecule_design pipelines."""

    id: str
    artifacts: SmallMoleculeArtifacts
    created_at: Timestamp
    metrics: SmallMoleculeMetrics
    smiles: str
    adme: Adme | None = omitted_if_none()
    warnings: list[ResultWarning] | None = omitted_if_none()


class SmallMoleculeScreenResult(SmallMoleculeDesignResult):
    """A record of small_molecule_library_screen pipelines."""

    external_id: str | None = omitted_if_none("Client-provided identifier.")


class SmallMoleculeExploreResult(BaseModel):
    """A record of small_molecule_explore pipelines: a screen record without ADME."""

    id: str
    artifacts: SmallMoleculeArtifacts
    created_at: Timestamp
    metrics: SmallMoleculeMetrics
    smiles: str
    external_id: str | None = omitted_if_none("Client-provided identifier.")
    warnings: list[ResultWarning] | None = omitted_if_none()


SequenceRedesignResult = Annotated[BinderRedesignResult | GenericRedesignResult,
                                   Field(discriminator="type")]


class ProteinDesignResultsResponse(Page[ProteinDesignResult]):
    """One page of protein_design results."""


class ProteinRedesignResultsResponse(Page[ProteinDesignResult]):
    """One page of protein_redesign results."""


class ProteinSequenceRedesignResultsResponse(Page[SequenceRedesignResult]):
    """One page of protein_sequence_redesign results (binder or generic records)."""


class ProteinLibraryScreenResultsResponse(Page[ProteinLibraryScreenResult]):
    """One page of protein_library_screen results."""


class SmDesignResultsResponse(Page[SmallMoleculeDesignResult]):
    """One page of small_molecule_design results."""


class SmScreenResultsResponse(Page[SmallMoleculeScreenResult]):
    """One page of small_molecule_library_screen results."""


class SmExploreResultsResponse(Page[SmallMoleculeExploreResult]):
    """One page of small_molecule_explore results."""


PAGE_MODELS: dict[str, type[Page]] = {
    "protein_design": ProteinDesignResultsResponse,
    "protein_redesign": ProteinRedesignResultsResponse,
    "protein_sequence_redesign": ProteinSequenceRedesignResultsResponse,
    "protein_library_screen": ProteinLibraryScreenResultsResponse,
    "small_molecule_design": SmDesignResultsResponse,
    "small_molecule_library_screen": SmScreenResultsResponse,
    "small_molecule_explore": SmExploreResultsResponse,
}
RESULT_PAGES = tuple(PAGE_MODELS.values())
"""What the results endpoint answers: the page model of the pipeline's kind."""

_RECORD_MODELS: dict[str, type[BaseModel]] = {
    "protein_design": ProteinDesignResult,
    "protein_redesign": ProteinDesignResult,
    "protein_library_screen": ProteinLibraryScreenResult,
    "small_molecule_design": SmallMoleculeDesignResult,
    "small_molecule_library_screen": SmallMoleculeScreenResult,
    "small_molecule_explore": SmallMoleculeExploreResult,
}


def result_record(kind: str, result: Result, artifacts: dict[str, ArtifactUrl]) -> BaseModel:
    """Return ``result`` as the record model of pipeline ``kind``.

    ``artifacts`` maps roles to presigned URLs; roles the kind's records cannot name
    (``app.domain.KINDS[kind].roles``) are left out.
    """
    roles = domain.KINDS[kind].roles
    fields: dict[str, Any] = {
        "id": result.id,
        "artifacts": {role: url for role, url in artifacts.items() if role in roles},
        "created_at": result.created_at,
        "metrics": result.metrics,
        "warnings": result.warnings,
    }
    if kind in PROTEIN_KINDS:
        fields["entities"] = result.entities or []
    if kind in SMALL_MOLECULE_KINDS:
        fields["smiles"] = result.smiles
        if kind != "small_molecule_explore":  # explore records have no ADME
            fields["adme"] = result.adme
    if kind in SCREEN_KINDS:
        fields["external_id"] = result.external_id
    if kind == "protein_sequence_redesign":
        variant = result.variant or "binder"
        fields["type"] = variant
        model = GenericRedesignResult if variant == "generic" else BinderRedesignResult
    else:
        model = _RECORD_MODELS[kind]
    return model.model_validate(fields)


def pipeline_results(kind: str, pipeline_id: str, query: Any) -> Serialised:
    """Return one page of a pipeline's results as ``kind``'s page model, files presigned.

    ``query`` holds ``limit``, ``after_id``, ``before_id`` and ``id_list()`` (the share
    read's and the SDK read's result queries both do). One query for the rows, one for
    their files, whatever the page size. Written from the stored JSON without validating
    each record again (``result_wire``); ``result_record`` builds the same record as a
    model.
    """
    conn = get_conn()
    page = results_store.results_page(conn, pipeline_id, limit=query.limit,
                                      after_id=query.after_id, before_id=query.before_id,
                                      ids=query.id_list(), raw=True)
    files = results_store.artifact_files_for_results(conn, [row.id for row in page.rows])
    return result_wire.page_json(kind, PAGE_MODELS[kind], page.rows, files,
                                 Presigner.for_request(), page.has_more)
